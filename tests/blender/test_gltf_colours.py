"""The colours survive the exporters: read back with third-party readers (pygltflib for glTF, ufbx for FBX).

A glTF viewer (or Unity's glTFast) shows ``baseColorFactor`` times the
COLOR_0 vertex colours; Unity's FBX importer gives each material the FBX
diffuse colour.  Blender's procedural nodes (noise -> colour ramp, the
terrain's height-and-slope nodes) are not exported, so what they stand for
must reach the files as a constant colour or as vertex colours.
"""

import json
import subprocess
import sys

import numpy as np
import pygltflib
import pytest

from worldseed.core import palette as core_palette
from worldseed.core import recipe as core_recipe
from worldseed.core import trees as core_trees
from worldseed.operators.bridge import export, world

RECIPE = """
[world]
name = "Isle"
seed = 5
[terrain]
resolution = 65
size = 256.0
height = 60.0
scale = 90.0
octaves = 4
falloff = "radial"
sea_level = 0.15
lods = 2
[[scatter]]
name = "Rocks"
prop = "rock"
variants = 2
radius = 24.0
[[trees]]
species = "broadleaf"
variants = 1
seed = 3
"""

ROCK = (0.32, 0.30, 0.28)
WHITE = [1.0, 1.0, 1.0]
_COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
_DTYPES = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}


def _accessor(gltf, blob, index):
    """An accessor's values as float rows (normalized integers scaled to [0, 1])."""
    acc = gltf.accessors[index]
    view = gltf.bufferViews[acc.bufferView]
    dtype = np.dtype(_DTYPES[acc.componentType]).newbyteorder("<")
    width = _COMPONENTS[acc.type]
    start = (view.byteOffset or 0) + (acc.byteOffset or 0)
    stride = view.byteStride or dtype.itemsize * width
    raw = np.frombuffer(blob, np.uint8, count=stride * (acc.count - 1) + dtype.itemsize * width, offset=start)
    rows = np.lib.stride_tricks.as_strided(raw, shape=(acc.count, dtype.itemsize * width), strides=(stride, 1))
    values = np.ascontiguousarray(rows).view(dtype).reshape(acc.count, width).astype(np.float64)
    if acc.normalized:
        values /= np.iinfo(dtype).max
    return values


@pytest.fixture
def built(empty_scene, tmp_path):
    recipe = core_recipe.loads(RECIPE, source="test recipe")
    made = world.build_world(recipe, scene=empty_scene)
    paths = export.export_unity(made.roots, str(tmp_path / "isle.fbx"), formats=("fbx", "glb"))
    return recipe, made, paths


def _gltf_materials(gltf):
    return {m.name: m for m in gltf.materials}


def test_glb_materials_carry_their_colours(built):
    recipe, _, paths = built
    gltf = pygltflib.GLTF2().load(next(p for p in paths if p.endswith(".glb")))
    mats = _gltf_materials(gltf)
    spec = core_trees.species_spec("broadleaf")
    expected = {"Broadleaf_Bark": spec.bark_colour, "Broadleaf_Leaves": spec.leaf_colour, "Worldseed_Rock": ROCK}
    for name, rgb in expected.items():
        factor = mats[name].pbrMetallicRoughness.baseColorFactor
        assert factor is not None, f"{name} has no baseColorFactor (white in a viewer)"
        np.testing.assert_allclose(factor[:3], rgb, atol=1e-5, err_msg=name)


def test_glb_terrain_has_palette_vertex_colours(built):
    recipe, _, paths = built
    spec = recipe.terrain
    gltf = pygltflib.GLTF2().load(next(p for p in paths if p.endswith(".glb")))
    blob = gltf.binary_blob()
    terrain_mat = next(i for i, m in enumerate(gltf.materials) if m.name.startswith("Worldseed Terrain"))
    factor = gltf.materials[terrain_mat].pbrMetallicRoughness.baseColorFactor
    assert factor is None or list(factor[:3]) == WHITE  # the colours are all in COLOR_0, not multiplied again
    meshes = {m.name: m for m in gltf.meshes}
    for lod in ("Isle_LOD0", "Isle_LOD1"):
        (prim,) = [p for p in meshes[lod].primitives if p.material == terrain_mat]
        assert prim.attributes.COLOR_0 is not None, f"{lod} has no COLOR_0"
        colours = _accessor(gltf, blob, prim.attributes.COLOR_0)[:, :3]
        pos = _accessor(gltf, blob, prim.attributes.POSITION)
        normals = _accessor(gltf, blob, prim.attributes.NORMAL)
        # glTF is Y up: heights are y, the slope is the angle of the normal from +Y
        slope = np.degrees(np.arccos(np.clip(normals[:, 1], -1.0, 1.0)))
        want = core_palette.srgb_to_linear(
            core_palette.terrain_colours(
                pos[:, 1] / spec.height,
                height_m=spec.height,
                sea_level=spec.sea_level,
                slope_degrees=slope,
                palette=spec.palette,
            )
        )
        # 8-bit colour attributes: within a step of sRGB quantisation
        assert np.abs(colours - want).max() < 0.02, lod
        water = core_palette.srgb_to_linear(core_palette.PALETTES[spec.palette].water)
        assert (np.abs(colours - water).max(axis=1) < 0.01).mean() > 0.05  # the sea is there
        assert (colours.max(axis=1) < 0.95).all()  # no white


# ufbx's Python objects crash the garbage collector once Mesh.color_sets has been read (with bpy in
# the process, and at exit in any process on ufbx 0.0.5): read the FBX in a Python of its own that
# prints plain values and leaves without tearing anything down
_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1])
print(json.dumps({
    "diffuse": {m.name: list(m.fbx.diffuse_color.value_vec4)[:3] for m in scene.materials},
    "colour_sets": {m.name: len(m.color_sets) for m in scene.meshes},
}), flush=True)
os._exit(0)
"""


def _read_fbx(path):
    done = subprocess.run([sys.executable, "-c", _READ_FBX, path], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_fbx_materials_carry_diffuse_colours(built):
    recipe, _, paths = built
    fbx = _read_fbx(next(p for p in paths if p.endswith(".fbx")))
    spec = core_trees.species_spec("broadleaf")
    pal = core_palette.PALETTES[recipe.terrain.palette]
    expected = {
        "Broadleaf_Bark": spec.bark_colour,
        "Broadleaf_Leaves": spec.leaf_colour,
        "Worldseed_Rock": ROCK,
        "Worldseed Terrain": core_palette.srgb_to_linear(pal.stops[2][1]),
    }
    for name, rgb in expected.items():
        np.testing.assert_allclose(fbx["diffuse"][name], rgb, atol=1e-5, err_msg=name)
    # the terrain's vertex colours too: Unity keeps them in Mesh.colors, for shaders that use them
    assert fbx["colour_sets"]["Isle_LOD0"] == fbx["colour_sets"]["Isle_LOD1"] == 1
