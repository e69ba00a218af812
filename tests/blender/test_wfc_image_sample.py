"""An image of the .blend as a WFC sample reads as the PNG file it came from would."""

import bpy
import numpy as np

from worldseed.core import wfc as core_wfc
from worldseed.core.preview import png_bytes
from worldseed.operators.bridge import level_wfc


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
        from_image = level_wfc.image_sample(image)
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
        assert np.array_equal(level_wfc.image_sample(image), core_wfc.read_sample(str(path)))
    finally:
        bpy.data.images.remove(image)


def test_a_float_image_gives_the_srgb_bytes_its_colours_show():
    image = bpy.data.images.new("linear grey", 2, 2, alpha=False, float_buffer=True)
    try:
        image.pixels.foreach_set(np.tile([0.5, 0.5, 0.5, 1.0], 4).astype(np.float32))
        sample = level_wfc.image_sample(image)
    finally:
        bpy.data.images.remove(image)
    assert sample.shape[2] in (3, 4) and (sample[..., :3] == 188).all()  # linear 0.5 is sRGB #bcbcbc
