"""The colours survive the exporters: read back with third-party readers (pygltflib for glTF, ufbx for FBX).

A glTF viewer (or Unity's glTFast) shows ``baseColorFactor`` times the base
colour texture (and COLOR_0); Unity's FBX importer gives each material the FBX
diffuse colour times its diffuse texture (its shaders ignore vertex colours).
Blender's procedural nodes (noise -> colour ramp, the terrain's palette, the
texture layers' blend) are not exported, so what they stand for must reach
the files as a constant colour or as a texture, the same in both files.
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
from worldseed.core import wfc as core_wfc
from worldseed.operators.bridge import export, materials, world

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


def _glb_image(gltf, blob, material):
    """The PNG bytes of a glTF material's base colour texture."""
    info = material.pbrMetallicRoughness.baseColorTexture
    assert info is not None, f"{material.name} has no base colour texture"
    image = gltf.images[gltf.textures[info.index].source]
    assert image.mimeType == "image/png"
    view = gltf.bufferViews[image.bufferView]
    return blob[(view.byteOffset or 0) : (view.byteOffset or 0) + view.byteLength]


def _cell_means(me):
    """The terrain's palette colours (sRGB bytes) per cell: the mean of its four corner vertices."""
    n = len(me.vertices)
    side = int(round(n**0.5))
    srgb = np.empty(n * 4, np.float32)
    me.color_attributes[materials.TERRAIN_COLOURS].data.foreach_get("color_srgb", srgb)
    v = srgb.reshape(side, side, 4)[..., :3] * 255.0
    return (v[:-1, :-1] + v[:-1, 1:] + v[1:, :-1] + v[1:, 1:]) / 4.0


def test_glb_terrain_carries_its_ground_texture(built):
    """The terrain's colours travel as a texture (one texel per cell, the mean of its corners'
    palette colours) under a white base colour; no COLOR_0 multiplies them again."""
    recipe, made, paths = built
    gltf = pygltflib.GLTF2().load(next(p for p in paths if p.endswith(".glb")))
    blob = gltf.binary_blob()
    terrain_mat = next(i for i, m in enumerate(gltf.materials) if m.name.startswith("Worldseed Terrain"))
    material = gltf.materials[terrain_mat]
    factor = material.pbrMetallicRoughness.baseColorFactor
    assert factor is None or list(factor[:3]) == WHITE
    texels = core_wfc.read_png(_glb_image(gltf, blob, material), name="ground")[::-1]  # row 0 at -Y, as UV v
    lod0 = next(c for c in made.terrain.children if c.name.endswith("_LOD0"))
    want = _cell_means(lod0.data)
    assert texels.shape == want.shape == (64, 64, 3)
    assert np.abs(texels - want).max() <= 1.0
    water = np.array(core_palette.PALETTES[recipe.terrain.palette].water) * 255.0
    assert (np.abs(texels - water).max(axis=-1) < 3).mean() > 0.05  # the sea is there
    assert (texels.max(axis=-1) < 243).all()  # no white
    for mesh in gltf.meshes:
        for prim in mesh.primitives:
            if prim.material == terrain_mat:
                assert prim.attributes.COLOR_0 is None, mesh.name


# ufbx's Python objects crash the garbage collector once Mesh.color_sets has been read (with bpy in
# the process, and at exit in any process on ufbx 0.0.5): read the FBX in a Python of its own that
# prints plain values and leaves without tearing anything down
_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1])
out = {"diffuse": {}, "textures": {}, "colour_sets": {m.name: len(m.color_sets) for m in scene.meshes}}
for m in scene.materials:
    diffuse = m.fbx.diffuse_color
    out["diffuse"][m.name] = list(diffuse.value_vec4)[:3]
    if diffuse.texture is not None:
        out["textures"][m.name] = bytes(diffuse.texture.content).hex()
print(json.dumps(out), flush=True)
os._exit(0)
"""


def _read_fbx(path):
    done = subprocess.run([sys.executable, "-c", _READ_FBX, path], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_fbx_diffuse_colours_equal_the_glb_base_colours(built):
    """Every material of the FBX has the diffuse colour the .glb gives it as base colour (white where
    a texture carries the colour), the same materials in both, and the terrain's texture is embedded
    in the FBX with the very pixels of the .glb's."""
    recipe, _, paths = built
    fbx = _read_fbx(next(p for p in paths if p.endswith(".fbx")))
    gltf = pygltflib.GLTF2().load(next(p for p in paths if p.endswith(".glb")))
    blob = gltf.binary_blob()
    glb = {m.name: m for m in gltf.materials}
    assert sorted(fbx["diffuse"]) == sorted(glb)
    spec = core_trees.species_spec("broadleaf")
    assert {"Broadleaf_Bark", "Broadleaf_Leaves", "Worldseed_Rock", "Worldseed Terrain"} <= set(glb)
    np.testing.assert_allclose(fbx["diffuse"]["Broadleaf_Bark"], spec.bark_colour, atol=1e-5)
    for name, material in glb.items():
        factor = material.pbrMetallicRoughness.baseColorFactor or [1.0, 1.0, 1.0, 1.0]
        np.testing.assert_allclose(fbx["diffuse"][name], factor[:3], atol=1e-5, err_msg=name)
    assert sorted(fbx["textures"]) == ["Worldseed Terrain"]
    embedded = core_wfc.read_png(bytes.fromhex(fbx["textures"]["Worldseed Terrain"]), name="fbx texture")
    np.testing.assert_array_equal(embedded, core_wfc.read_png(_glb_image(gltf, blob, glb["Worldseed Terrain"])))
    # the terrain's vertex colours too: Unity keeps them in Mesh.colors, for shaders that use them
    assert fbx["colour_sets"]["Isle_LOD0"] == fbx["colour_sets"]["Isle_LOD1"] == 1
