"""Terrains with layers in real Blender: erosion, biomes and texture layers from a recipe, the
splat material, the Unity terrain package headless and from the sidebar, Esc mid-erosion, bad settings."""

import json
import os
import struct
import subprocess
import sys
import types
import zlib

import bpy
import numpy as np
import pytest

from worldseed.core import export as core_export
from worldseed.core import recipe as core_recipe
from worldseed.core import splat as core_splat
from worldseed.core import terrain as core_terrain
from worldseed.core import unity_package as core_package
from worldseed.operators.bridge import materials, sections, world
from worldseed.operators.bridge import terrain as bridge_terrain
from worldseed.operators.common import ModalBuild

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")

RECIPE = """
[world]
name = "Eroded"
seed = 9

[terrain]
resolution = 65
size = 128.0
height = 30.0
octaves = 5
scale = 60.0
sea_level = 0.15
lods = 2

[terrain.erosion]
enabled = true
droplets_per_km2 = 600000.0
thermal = true

[biomes]
enabled = true

[[splat]]
name = "Grass"
color = [0.1, 0.3, 0.05]

[[splat]]
name = "Sand"
color = [0.8, 0.7, 0.45]
height_range = [0.0, 6.0]

[[splat]]
name = "Rock"
color = [0.3, 0.28, 0.26]
slope_range = [30.0, 90.0]

[[splat]]
name = "Snow"
color = [0.9, 0.92, 0.95]
biomes = ["snow", "tundra", "bare rock"]

[[splat]]
name = "Silt"
color = [0.35, 0.3, 0.2]
deposits = 1.0

[export]
fbx = true
heightmap_raw = true
preview = false
"""


def _recipe(text=RECIPE):
    return core_recipe.loads(text, source="test")


def decode_png(data):
    """(rows, cols[, channels]) uint8 of an 8-bit grey, RGB or RGBA PNG, with the standard library alone."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, tag = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        assert zlib.crc32(tag + body) & 0xFFFFFFFF == struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0]
        if tag == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif tag == b"IDAT":
            idat += body
        pos += 12 + length
    cols, rows, depth, colour_type, _, _, interlace = header
    assert depth == 8 and interlace == 0
    channels = {0: 1, 2: 3, 6: 4}[colour_type]
    raw = zlib.decompress(idat)
    stride = cols * channels
    out = np.zeros((rows, stride), np.int32)
    for r in range(rows):
        kind, line = raw[r * (stride + 1)], np.frombuffer(raw, np.uint8, stride, r * (stride + 1) + 1).astype(np.int32)
        prev = out[r - 1] if r else np.zeros(stride, np.int32)
        cur = out[r]
        for i in range(stride):
            a = cur[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 0:
                pred = 0
            elif kind == 1:
                pred = a
            elif kind == 2:
                pred = b
            elif kind == 3:
                pred = (a + b) // 2
            else:
                p = a + b - c
                pred = a if abs(p - a) <= min(abs(p - b), abs(p - c)) else (b if abs(p - b) <= abs(p - c) else c)
            cur[i] = (line[i] + pred) & 0xFF
    image = out.astype(np.uint8).reshape(rows, cols, channels)
    return image[..., 0] if channels == 1 else image


def _lod0(root):
    return next(c for c in root.children if c.name.endswith("_LOD0"))


def _z(obj):
    me = obj.data
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.attributes["position"].data.foreach_get("vector", co)
    return co[2::3]


@pytest.fixture(scope="module")
def expected_layers():
    """The layers core makes of the recipe, worked out here without Blender's help."""
    recipe = _recipe()
    heights = core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed)
    return core_terrain.terrain_layers(
        heights,
        terrain_spec=recipe.terrain,
        biomes_spec=recipe.biomes,
        splats=recipe.splat,
        seed=recipe.world.seed,
        flow=True,
    )


def test_a_recipe_with_erosion_biomes_and_texture_layers_builds(empty_scene, expected_layers):
    recipe = _recipe()
    built = world.build_world(recipe, scene=empty_scene)
    root = built.terrain
    layers = built.layers[root.name]
    assert layers.ledger["droplets"] > 5000 and layers.ledger["relative_error"] <= 1e-6
    # the mesh stands on the eroded heights, not on the noise
    z = _z(_lod0(root))
    np.testing.assert_array_equal(z, expected_layers.heights.metres.ravel())
    plain = core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed)
    assert np.abs(z - plain.metres.ravel()).max() > 0.05
    assert bridge_terrain.terrain_heights_of(root)[0] is not None
    np.testing.assert_array_equal(bridge_terrain.terrain_heights_of(root)[0], z.reshape(65, 65))
    # the material blends the texture layers from core's packed weights, pixel for pixel
    mat = _lod0(root).data.materials[0]
    assert mat.name.startswith(materials.SPLAT_MATERIAL) and materials.is_terrain_material(mat)
    side = core_package.alphamap_side(recipe.terrain.resolution)
    packed = core_splat.pack_splats(core_package.texel_weights(expected_layers.weights, side=side))
    images = [n.image for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"]
    assert len(images) == len(packed) == 2
    for image, pixels in zip(images, packed):
        assert image.colorspace_settings.name == "Non-Color" and image.packed_file is not None
        np.testing.assert_array_equal(materials.splat_pixels(image), pixels)
    total = sum(materials.splat_pixels(i).astype(int).sum(axis=-1) for i in images)
    assert (total == 255).all()
    scales = [n for n in mat.node_tree.nodes if n.type == "VECT_MATH" and n.operation == "SCALE"]
    assert len(scales) == len(recipe.splat)


def test_turning_every_layer_off_leaves_the_terrain_as_before(empty_scene):
    recipe = core_recipe.replace(
        _recipe(), terrain_erosion={"enabled": False}, biomes={"enabled": False}, splat=[], scatter=[]
    )
    built = world.build_world(recipe, scene=empty_scene)
    assert not built.layers
    plain = core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed)
    np.testing.assert_array_equal(_z(_lod0(built.terrain)), plain.metres.ravel())
    assert _lod0(built.terrain).data.materials[0].name == materials.material_name("temperate")


def test_headless_writes_the_unity_terrain_package(tmp_path, expected_layers):
    (tmp_path / "world.toml").write_text(RECIPE)
    proc = subprocess.run(
        [sys.executable, RUN, "--recipe", str(tmp_path / "world.toml"), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = tmp_path / "out"
    files = set(os.listdir(out))
    assert {
        "world_splat0.png",
        "world_splat1.png",
        "world_biomes.png",
        "world_flow.png",
        "world_terrain.json",
        "world_heightmap.raw",
        "world_heightmap.json",
        "world.fbx",
        "world.blend",
    } <= files
    assert "erosion" in proc.stderr  # the erosion's progress on the terminal
    side = core_package.alphamap_side(65)
    splats = [decode_png((out / f"world_splat{k}.png").read_bytes()) for k in range(2)]
    for k, image in enumerate(splats):
        assert image.shape == (side, side, 4)
        np.testing.assert_array_equal(image, core_package.unity_image(expected_layers.splats[k]))
    assert (sum(i.astype(int).sum(axis=-1) for i in splats) == 255).all()
    assert decode_png((out / "world_biomes.png").read_bytes()).shape == (65, 65, 3)
    flow = decode_png((out / "world_flow.png").read_bytes())
    assert flow.shape == (65, 65) and flow.max() > 200
    package = json.loads((out / "world_terrain.json").read_text())
    assert [(layer["name"], layer["file"], layer["channel"]) for layer in package["layers"]] == [
        ("Grass", "world_splat0.png", "R"),
        ("Sand", "world_splat0.png", "G"),
        ("Rock", "world_splat0.png", "B"),
        ("Snow", "world_splat0.png", "A"),
        ("Silt", "world_splat1.png", "R"),
    ]
    assert package["erosion"]["ledger"]["relative_error"] <= 1e-6
    assert package["biomes"]["file"] == "world_biomes.png" and package["flow"]["file"] == "world_flow.png"
    # the RAW holds the eroded heights
    raw = (out / "world_heightmap.raw").read_bytes()
    assert raw == core_package.heightmap_bytes(expected_layers.heights.values)[0]


def test_export_for_unity_writes_the_package_too(empty_scene, tmp_path):
    recipe = _recipe()
    built = world.build_world(recipe, scene=empty_scene)
    headless = tmp_path / "headless"
    headless.mkdir()
    spec = core_export.ExportSpec(fbx=False, heightmap_raw=True, preview=False)
    world.write_exports([built.terrain], str(headless), "world", spec, heights=built.heights, layers=built.layers)
    (tmp_path / "ui").mkdir()
    result = bpy.ops.worldseed.export_unity(
        filepath=str(tmp_path / "ui" / "world.fbx"), scope="WORLDSEED", heightmap_raw=True, relief=False
    )
    assert result == {"FINISHED"}
    for name in ("world_splat0.png", "world_splat1.png", "world_biomes.png", "world_flow.png", "world_terrain.json"):
        assert (tmp_path / "ui" / name).read_bytes() == (headless / name).read_bytes(), name


def test_export_for_unity_works_out_layers_not_kept_with_progress(empty_scene, tmp_path):
    """After a reload (no layers kept), Export for Unity erodes again as steps (progress, Esc in a window)
    on a worker, and writes the same files."""
    from worldseed.operators import export as export_ops
    from worldseed.operators.bridge import terrain_layers as bridge_layers

    recipe = _recipe()
    built = world.build_world(recipe, scene=empty_scene)
    spec = core_export.ExportSpec(fbx=False, heightmap_raw=True, preview=False)
    (tmp_path / "kept").mkdir()
    kept = str(tmp_path / "kept")
    world.write_exports([built.terrain], kept, "world", spec, heights=built.heights, layers=built.layers)
    bridge_layers.forget()
    stored = bridge_terrain.stored_recipe(built.terrain)
    assert not bridge_layers.is_kept(stored)
    assert not export_ops.erodes_first([built.terrain], spec)  # background: no window to show progress in
    steps = export_ops.export_steps(bpy.context, [built.terrain], str(tmp_path / "again" / "world.fbx"), spec)
    labels = []
    while True:
        try:
            labels.append(next(steps)[2])
        except StopIteration:
            break
    assert "erosion" in labels and "splats" in labels
    assert bridge_layers.is_kept(stored)
    for name in ("world_heightmap.raw", "world_splat0.png", "world_splat1.png", "world_flow.png", "world_terrain.json"):
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "kept" / name).read_bytes(), name


RESULT = {}


class Tap:
    """The build's steps, noting each label (what the status line shows) as it passes."""

    def __init__(self, steps, labels):
        self.steps, self.labels = steps, labels

    def __next__(self):
        step = next(self.steps)
        self.labels.append(step[2])
        return step

    def close(self):
        self.steps.close()


class WORLDSEED_OT_test_erosion_modal(ModalBuild, bpy.types.Operator):
    """Drive a terrain build with layers by hand (background Blender delivers no events): TIMER events,
    then Esc once the step ``cancel_at`` has shown."""

    bl_idname = "worldseed.test_erosion_modal"
    bl_label = "Test Erosion Modal"
    cancel_at: bpy.props.StringProperty(default="")
    replace: bpy.props.StringProperty(default="")

    def finished(self, context, root):
        RESULT["root"] = root.name

    def execute(self, context):
        recipe = core_recipe.loads(RESULT["recipe"], source="test")
        replace = bpy.data.objects[self.replace] if self.replace else None
        labels = RESULT.setdefault("labels", [])
        steps = Tap(bridge_terrain.terrain_steps(recipe, collection=context.scene.collection, replace=replace), labels)
        self.start_modal(context, steps, "test build", handler=False)
        state = {"RUNNING_MODAL"}
        while state == {"RUNNING_MODAL"}:
            cancel = bool(self.cancel_at) and self.cancel_at in labels
            state = self.modal(context, types.SimpleNamespace(type="ESC" if cancel else "TIMER", value="PRESS"))
        RESULT["state"] = state
        return {"FINISHED"}


@pytest.fixture
def modal_op():
    bpy.utils.register_class(WORLDSEED_OT_test_erosion_modal)
    RESULT.clear()
    yield
    bpy.utils.unregister_class(WORLDSEED_OT_test_erosion_modal)


def _snapshot():
    return (
        sorted(o.name for o in bpy.data.objects),
        sorted(m.name for m in bpy.data.meshes),
        sorted(m.name for m in bpy.data.materials),
        sorted(i.name for i in bpy.data.images),
    )


#: Many droplets: the erosion takes several steps, so Esc lands in the middle of it.
HEAVY = RECIPE.replace("droplets_per_km2 = 600000.0", "droplets_per_km2 = 1000000.0")


def test_the_modal_build_shows_the_erosion_and_finishes(empty_scene, modal_op):
    RESULT["recipe"] = RECIPE.replace("seed = 9", "seed = 11")  # not the layers kept from another test
    bpy.ops.worldseed.test_erosion_modal()
    assert RESULT["state"] == {"FINISHED"} and RESULT["root"] == "Eroded"
    assert {"erosion", "flow", "biomes", "splats", "done"} <= set(RESULT["labels"])


def test_esc_during_the_erosion_leaves_the_scene_as_it_was(empty_scene, modal_op):
    before = _snapshot()
    RESULT["recipe"] = HEAVY
    bpy.ops.worldseed.test_erosion_modal(cancel_at="erosion")
    assert RESULT["state"] == {"CANCELLED"} and "root" not in RESULT
    assert RESULT["labels"][-1] == "erosion"  # stopped in the middle of the erosion
    assert _snapshot() == before


def test_esc_during_a_rebuild_leaves_the_old_terrain_as_it_was(empty_scene, modal_op):
    built = world.build_world(_recipe(), scene=empty_scene)
    root = built.terrain
    z = _z(_lod0(root)).copy()
    mat = _lod0(root).data.materials[0]
    pixels = [materials.splat_pixels(n.image) for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"]
    before = _snapshot()
    RESULT["recipe"] = HEAVY.replace("seed = 9", "seed = 10")
    bpy.ops.worldseed.test_erosion_modal(cancel_at="erosion", replace=root.name)
    assert RESULT["state"] == {"CANCELLED"}
    assert _snapshot() == before
    np.testing.assert_array_equal(_z(_lod0(root)), z)
    assert _lod0(root).data.materials[0] == mat
    after = [materials.splat_pixels(n.image) for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"]
    assert all(np.array_equal(a, b) for a, b in zip(after, pixels)) and len(after) == len(pixels)


def test_the_splat_images_are_steps_of_their_own_and_esc_between_them_changes_nothing(empty_scene, modal_op):
    """The last step (splat images, material, linking) is split: an image a step, so Esc lands inside it;
    a rebuild cancelled there leaves the old terrain's material and images, and no image of its own."""
    built = world.build_world(_recipe(), scene=empty_scene)
    root = built.terrain
    mat = _lod0(root).data.materials[0]
    pixels = [materials.splat_pixels(n.image) for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"]
    before = _snapshot()
    RESULT["recipe"] = RECIPE.replace("seed = 9", "seed = 12")
    bpy.ops.worldseed.test_erosion_modal(cancel_at="splat 0", replace=root.name)
    assert RESULT["state"] == {"CANCELLED"}
    assert RESULT["labels"][-1] == "splat 0"  # one image made, the second not yet
    assert _snapshot() == before  # no staged image left behind
    assert _lod0(root).data.materials[0] == mat
    after = [materials.splat_pixels(n.image) for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"]
    assert len(after) == len(pixels) == 2 and all(np.array_equal(a, b) for a, b in zip(after, pixels))
    # not cancelled: both images as steps, then the material holds them under their own names
    RESULT.clear()
    RESULT["recipe"] = RECIPE.replace("seed = 9", "seed = 12")
    bpy.ops.worldseed.test_erosion_modal(replace=root.name)
    assert RESULT["state"] == {"FINISHED"}
    assert RESULT["labels"].index("splat 0") < RESULT["labels"].index("splat 1") < RESULT["labels"].index("done")
    names = sorted(n.image.name for n in _lod0(root).data.materials[0].node_tree.nodes if n.type == "TEX_IMAGE")
    assert names == [f"{root.name}_splat0", f"{root.name}_splat1"]
    assert not [i.name for i in bpy.data.images if i.name.endswith(materials.STAGED_SUFFIX) or ".old" in i.name]


def _settings():
    return bpy.context.scene.worldseed.terrain


def test_a_bad_erosion_setting_is_one_clear_report(empty_scene):
    settings = _settings()
    settings.size = 128.0
    settings.resolution = 257
    settings.erosion_enabled = True
    settings.erosion_radius = 500.0  # 1,000 cells of 0.5 m: at most 32
    with pytest.raises(RuntimeError) as info:
        bpy.ops.worldseed.terrain_add(from_settings=True)
    message = str(info.value).strip().splitlines()
    assert len(message) == 1 and "terrain.erosion.radius" in message[0], message
    assert len(bpy.data.objects) == 0 and len(bpy.data.meshes) == 0


def test_a_texture_layer_naming_an_unknown_biome_is_one_clear_report(empty_scene):
    settings = _settings()
    settings.resolution = 17
    settings.biomes_enabled = True
    bpy.ops.worldseed.splat_layer_add()
    bpy.ops.worldseed.splat_layer_add()
    settings.splats[1].name = "Pines"
    settings.splats[1].biomes = "taigaa"
    with pytest.raises(RuntimeError) as info:
        bpy.ops.worldseed.terrain_add(from_settings=True)
    message = str(info.value).strip().splitlines()
    assert len(message) == 1 and "taigaa" in message[0] and "taiga" in message[0], message
    assert len(bpy.data.objects) == 0


def test_the_sidebar_builds_what_the_recipe_builds(empty_scene):
    """Erosion, biomes and texture layers set in the sidebar make the recipe's terrain."""

    recipe = _recipe()
    settings = _settings()
    sections.adapter("terrain").load(settings, recipe)
    assert settings.erosion_enabled and settings.biomes_enabled and len(settings.splats) == 5
    again = sections.adapter("terrain").scene_recipe(bpy.context.scene)
    assert again.terrain == recipe.terrain and again.biomes == recipe.biomes and again.splat == recipe.splat
    assert bpy.ops.worldseed.terrain_add(from_settings=True) == {"FINISHED"}
    root = bridge_terrain.terrain_root(bpy.context.active_object)
    assert _lod0(root).data.materials[0].name.startswith(materials.SPLAT_MATERIAL)


def test_a_long_erosion_is_announced_before_it_starts(empty_scene, capsys, monkeypatch):
    # a new-user trial: erosion at the allowed maximum on a 4 km terrain ran for minutes without a word
    most = RECIPE.replace("resolution = 65", "resolution = 4097").replace("size = 128.0", "size = 4096.0")
    most = most.replace("droplets_per_km2 = 600000.0", "droplets_per_km2 = 894069.0")
    note = bridge_terrain.erosion_note(core_recipe.loads(most))
    assert note == (
        "erosion of 14,999,989 droplets of up to 100 steps and 50 thermal passes on 4,097 x 4,097 vertices: "
        "about 13 min of CPU (an estimate; Esc in the sidebar, Ctrl-C headless stops it)"
    )
    assert bridge_terrain.erosion_note(core_recipe.loads(RECIPE)) is None  # a second or so: nothing to say
    # a world build (headless) prints it on stderr before the erosion's first step
    monkeypatch.setattr(bridge_terrain, "NOTE_SECONDS", 0.0)
    seen = []

    def progress(done, total, label):
        if label == "erosion" and not seen:
            seen.append(capsys.readouterr().err)

    world.build_world(core_recipe.loads(RECIPE.replace("seed = 9", "seed = 12")), scene=empty_scene, progress=progress)
    assert seen and seen[0].startswith(
        "worldseed: erosion of 9,830 droplets of up to 50 steps and 50 thermal passes on 65 x 65"
    )
