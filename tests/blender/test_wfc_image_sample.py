"""An image of the .blend as a WFC sample reads as the PNG file it came from would, and errors name the
image, not the temporary PNG of its pixels."""

import bpy
import numpy as np
import pytest

from worldseed.core import levels as core_levels
from worldseed.core import wfc as core_wfc
from worldseed.core.errors import ParameterError, short
from worldseed.core.preview import png_bytes
from worldseed.operators.bridge import levels as bridge_levels


def test_an_rgba_image_keeps_its_alpha_like_the_png_file(tmp_path):
    rgba = np.zeros((4, 5, 4), np.uint8)
    rgba[..., 0] = 255  # red everywhere
    rgba[..., 3] = 255
    rgba[1:3, 1:4, 3] = 0  # a transparent red patch: another value than opaque red
    path = tmp_path / "patch.png"
    path.write_bytes(png_bytes(rgba))
    from_file = core_wfc.read_sample(str(path))
    image = bpy.data.images.load(str(path))
    try:
        from_image = bridge_levels.image_sample(image)
    finally:
        bpy.data.images.remove(image)
    assert from_image.shape == from_file.shape == (4, 5, 4)
    assert np.array_equal(from_image, from_file)


def test_an_rgb_png_stays_rgb(tmp_path):
    rgb = np.arange(4 * 3 * 3, dtype=np.uint8).reshape(4, 3, 3) * 7
    path = tmp_path / "plain.png"
    path.write_bytes(png_bytes(rgb))
    image = bpy.data.images.load(str(path))
    try:
        assert np.array_equal(bridge_levels.image_sample(image), core_wfc.read_sample(str(path)))
    finally:
        bpy.data.images.remove(image)


def test_a_float_image_gives_the_srgb_bytes_its_colours_show():
    image = bpy.data.images.new("linear grey", 2, 2, alpha=False, float_buffer=True)
    try:
        image.pixels.foreach_set(np.tile([0.5, 0.5, 0.5, 1.0], 4).astype(np.float32))
        sample = bridge_levels.image_sample(image)
    finally:
        bpy.data.images.remove(image)
    assert sample.shape[2] in (3, 4) and (sample[..., :3] == 188).all()  # linear 0.5 is sRGB #bcbcbc


def _image(name, grey):
    """An image ``name`` whose pixels are the grey levels ``grey`` (rows top to bottom, values 0 to 1)."""
    grey = np.asarray(grey, np.float32)
    h, w = grey.shape
    image = bpy.data.images.new(name, w, h)
    px = np.ones((h, w, 4), np.float32)
    px[..., :3] = grey[::-1, :, None]  # Blender's rows run bottom to top
    image.pixels.foreach_set(px.ravel())
    return image


def _sampled(image, **values):
    settings = bpy.context.scene.worldseed.level
    settings.auto_update = False
    for k, v in dict(generator="wfc_overlapping", width=16, height=12, name="I", sample_source="IMAGE").items():
        setattr(settings, k, v)
    settings.sample_image = image
    for k, v in values.items():
        setattr(settings, k, v)
    return settings


def test_errors_name_the_image_not_the_temporary_file_of_its_pixels(empty_scene):
    from worldseed.operators.bridge import levels as bridge_levels

    # too many patterns: refused while the settings are read (Add, Update)
    noise = _image("Noise", np.random.default_rng(1).integers(0, 4, (64, 64)) / 3)
    _sampled(noise, n=3, symmetry=8)
    with pytest.raises(RuntimeError) as err:
        bpy.ops.worldseed.level_add(from_settings=True)
    assert "level.sample image 'Noise' gives" in str(err.value) and bridge_levels.SAMPLES_FOLDER not in str(err.value)
    # no walkable cell: refused while the level is made (at once, and in a modal run's steps)
    thin = _image("Thin", np.zeros((5, 1)))
    _sampled(thin, n=2, symmetry=1)
    with pytest.raises(RuntimeError) as err:
        bpy.ops.worldseed.level_add(from_settings=True)
    assert "(sample image 'Thin')" in str(err.value) and bridge_levels.SAMPLES_FOLDER not in str(err.value)
    spec = core_levels.from_dict(
        dict(generator="wfc_overlapping", width=16, height=12, n=2, symmetry=1, sample=bridge_levels.sample_file(thin))
    )
    steps = bridge_levels.build_steps(spec, collection=bpy.context.scene.collection, sample_image=thin)
    with pytest.raises(ParameterError) as err:
        for _ in steps:
            pass
    assert "(sample image 'Thin')" in str(err.value)
    # Update Level of a level made from an image, the image made unusable
    good = _image("Good", np.kron(np.array([[0, 0, 0, 0], [0, 1, 1, 0], [0, 1, 1, 0], [0, 0, 0, 0]]), np.ones((3, 3))))
    _sampled(good, n=3, symmetry=8)
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    good.pixels.foreach_set(np.tile(np.float32([0, 0, 0, 1]), 12 * 12))
    with pytest.raises(RuntimeError) as err:
        bpy.ops.worldseed.level_update()
    assert "image 'Good'" in str(err.value) and bridge_levels.SAMPLES_FOLDER not in str(err.value)


def test_a_path_into_the_samples_folder_reads_as_the_image(tmp_path):
    # core shows a path whole up to SHOWN_PATH_CHARACTERS, then its start and its end: the folder falls in the cut
    long = "/tmp/" + "x" * 90 + f"/{bridge_levels.SAMPLES_FOLDER}/" + "y" * 200 + "/Noise.png"
    cut = ParameterError(f"level.sample {short(long)} gives 9 patterns")
    assert "characters)" in str(cut) and str(cut).endswith("/Noise.png' (330 characters) gives 9 patterns")
    assert bridge_levels.image_named(str(cut), "Noise", long) == "level.sample image 'Noise' gives 9 patterns"
    assert bridge_levels.SAMPLES_FOLDER not in str(cut)  # cut before the folder: only the path tells
    assert bridge_levels.image_named(f"no file {long}, sorry", "N") == "no file image 'N', sorry"
    assert bridge_levels.image_named("level.sample 'rooms' is fine", "N") == "level.sample 'rooms' is fine"


@pytest.mark.parametrize("depth", ["8", "16"])
@pytest.mark.parametrize("mode", ["BW", "RGB", "RGBA"])
def test_pngs_blender_writes_read_as_blender_reads_them(empty_scene, tmp_path, mode, depth):
    """Blender's own PNG writer (``save_render`` at 8 and 16 bits, grey, RGB and RGBA) and its own reader
    (the file loaded back, its pixels unconverted) against core's reader: the same 8-bit picture."""
    rng = np.random.default_rng(int(depth) + len(mode))
    values = rng.integers(0, 256, (5, 7, 4))
    if mode != "RGBA":
        values[..., 3] = 255  # Blender blends a colour with its alpha when it writes no alpha
    scene = bpy.context.scene
    scene.view_settings.view_transform, scene.view_settings.look = "Standard", "None"  # the colours as given
    settings = scene.render.image_settings
    settings.file_format, settings.color_mode, settings.color_depth = "PNG", mode, depth
    image = bpy.data.images.new("written", 7, 5, alpha=True)
    path = tmp_path / f"{mode}_{depth}.png"
    try:
        image.pixels.foreach_set((values / 255.0).astype(np.float32).ravel())
        image.save_render(str(path), scene=scene)
    finally:
        bpy.data.images.remove(image)
    data = path.read_bytes()
    assert data[24] == int(depth) and data[25] == {"BW": 0, "RGB": 2, "RGBA": 6}[mode]  # IHDR: depth, colour type
    back = bpy.data.images.load(str(path))
    try:
        back.colorspace_settings.name = "Non-Color"  # the file's values, not converted to linear
        pixels = np.empty(7 * 5 * 4, np.float32)
        back.pixels.foreach_get(pixels)
    finally:
        bpy.data.images.remove(back)
    blender = np.rint(pixels.reshape(5, 7, 4)[::-1] * 255).astype(np.uint8)  # Blender's rows go up
    blender = blender[..., 0] if mode == "BW" else blender[..., : len(mode)]
    ours = core_wfc.read_png(data)
    assert ours.shape == blender.shape and np.array_equal(ours, blender)
    if mode != "BW":
        assert np.array_equal(ours, values[::-1, :, : len(mode)])  # and the colours written
