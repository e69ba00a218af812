"""The asymmetric mark, FBX side: a bump near one corner of a terrain lands in the same corner
of Unity's world in the exported FBX mesh (read back with the third-party reader ufbx) and in the RAW
heightmap placed where its JSON says; core's tests follow the same mark through the RAW, the splat PNGs
and the placement file (tests/core/test_unity_package*.py)."""

import json
import os
import struct
import subprocess
import sys
import zlib

import numpy as np

from worldseed.core import recipe as core_recipe
from worldseed.core import terrain as core_terrain
from worldseed.core import unity as core_unity
from worldseed.operators.bridge import terrain as bridge_terrain
from worldseed.operators.bridge import world

RECIPE = """
[world]
name = "Mark"
seed = 2
[terrain]
resolution = 33
size = 64.0
height = 20.0
scale = 100000.0
octaves = 1
material = false
[[splat]]
name = "Ground"
[[splat]]
name = "Peak"
height_range = [12.0, 1000.0]
[export]
fbx = true
heightmap_raw = true
preview = false
"""

#: The bump: row (Blender y) and column (Blender x) of the grid, near the corner of row 0 and column 0.
BUMP = (6, 4)

# ufbx's Python objects can crash the garbage collector with bpy in the process: read in a Python of its own
_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1], target_unit_meters=1.0)
node = next(n for n in scene.nodes if n.name == sys.argv[2])
g = node.geometry_to_world
print(json.dumps({"matrix": [list(g.c0), list(g.c1), list(g.c2), list(g.c3)],
                  "vertices": [[v.x, v.y, v.z] for v in list(node.mesh.vertices)]}), flush=True)
os._exit(0)
"""
#: Unity's importer turns the file's right-handed Y-up frame into its left-handed one by mirroring X.
UNITY = np.array([-1.0, 1.0, 1.0])


def _fbx_vertices(path, name):
    done = subprocess.run([sys.executable, "-c", _READ_FBX, path, name], capture_output=True, text=True, check=True)
    data = json.loads(done.stdout)
    m = np.array(data["matrix"])
    return (np.array(data["vertices"]) @ m[:3] + m[3]) * UNITY


def decode_png(data):
    """(rows, cols, 4) uint8 of an RGBA8 PNG written without filters (core.preview.png_bytes)."""
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, tag = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        header = struct.unpack(">IIBBBBB", body) if tag == b"IHDR" else header
        idat += body if tag == b"IDAT" else b""
        pos += 12 + length
    cols, rows, depth, colour_type = header[:4]
    assert (depth, colour_type) == (8, 6)
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(rows, 1 + 4 * cols)
    assert (raw[:, 0] == 0).all()  # filter type None on every row
    return raw[:, 1:].reshape(rows, cols, 4)


def _marked_heights(spec):
    n = spec.resolution
    rows, cols = np.mgrid[0:n, 0:n]
    bump = np.exp(-((rows - BUMP[0]) ** 2 + (cols - BUMP[1]) ** 2) / 18.0)
    values = (0.1 + 0.8 * bump).astype(np.float32)
    return core_terrain.TerrainHeights(values=values, cell_size=spec.cell_size, height=spec.height)


def test_a_bump_near_one_corner_lands_in_the_same_unity_corner_in_the_fbx_raw_and_splat(empty_scene, tmp_path):
    recipe = core_recipe.loads(RECIPE, source="test")
    built = world.build_world(recipe, scene=empty_scene)
    root = built.terrain
    heights = _marked_heights(recipe.terrain)
    bridge_terrain.set_terrain_positions(root.data, heights)
    built.heights[root.name] = heights
    built.layers[root.name] = core_terrain.terrain_layers(
        heights, terrain_spec=recipe.terrain, splats=recipe.splat, seed=recipe.world.seed, flow=True
    )
    written = world.write_exports(
        built.roots, str(tmp_path), "mark", recipe.export, heights=built.heights, layers=built.layers
    )
    assert sorted(os.path.basename(p) for p in written) == [
        "mark.fbx",
        "mark_flow.png",
        "mark_heightmap.json",
        "mark_heightmap.raw",
        "mark_splat0.png",
        "mark_terrain.json",
    ]

    # where the bump is in Blender, and where Worldseed says it arrives in Unity
    cell = recipe.terrain.cell_size
    half = (recipe.terrain.resolution - 1) / 2
    blender_peak = np.array([(BUMP[1] - half) * cell, (BUMP[0] - half) * cell, 0.9 * recipe.terrain.height])
    expected = core_unity.unity_position(blender_peak)
    assert expected[0] > 0 and expected[2] > 0  # Blender's (-x, -y) corner is Unity's (+x, +z) corner

    # the FBX mesh, as Unity's importer places it
    vertices = _fbx_vertices(str(tmp_path / "mark.fbx"), root.name)
    assert len(vertices) == recipe.terrain.resolution**2
    peak = vertices[np.argmax(vertices[:, 1])]
    np.testing.assert_allclose(peak, expected, atol=1e-3)

    # the RAW heightmap, read as Unity reads it (heights[z, x]) and put where its JSON says
    settings = json.loads((tmp_path / "mark_heightmap.json").read_text())
    side = settings["width"]
    raw = core_unity.read_raw16((tmp_path / "mark_heightmap.raw").read_bytes(), side=side)
    z, x = np.unravel_index(np.argmax(raw), raw.shape)
    step = settings["terrain_size_m"]["width"] / (side - 1)
    origin = np.array(settings["terrain_position"])
    raw_peak = origin + np.array([x * step, raw[z, x] * settings["terrain_size_m"]["height"], z * step])
    np.testing.assert_allclose(raw_peak, expected, atol=1e-2)

    # the Peak layer's patch in the splat PNG, read as Unity reads a control texture (v up: the last
    # row is the Terrain's -Z edge), put where the terrain JSON says: around the bump, to a texel
    package = json.loads((tmp_path / "mark_terrain.json").read_text())
    peak_layer = package["layers"][1]
    assert (peak_layer["name"], peak_layer["file"], peak_layer["channel"]) == ("Peak", "mark_splat0.png", "G")
    png = decode_png((tmp_path / "mark_splat0.png").read_bytes())[::-1]  # rows from the -Z edge up
    r = package["import_settings"]["alphamap_resolution"]
    assert png.shape == (r, r, 4)
    weight = png[..., "RGBA".index(peak_layer["channel"])].astype(float)
    zs, xs = np.nonzero(weight > 128)
    assert len(zs) >= 4
    texel = recipe.terrain.size / r
    centre = np.array(package["import_settings"]["terrain_position"]) + np.array(
        [
            (np.average(xs, weights=weight[zs, xs]) + 0.5) * texel,
            0.0,
            (np.average(zs, weights=weight[zs, xs]) + 0.5) * texel,
        ]
    )
    assert abs(centre[0] - expected[0]) < 1.5 * texel and abs(centre[2] - expected[2]) < 1.5 * texel
