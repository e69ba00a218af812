"""The small tiled world "Isle" of the headless world tests (``worldseed_run.py`` runs), as recipe text.

Seed 13, two texture layers (Grass; Rock from 25 degrees), a rock scatter and an FBX per tile; each
test names what it changes.  (tests/core/_world_cases.py has the core tests' worlds.)

Below it, the 2 x 2 world "Land" of the Build Tiles tests (test_world_build*.py): its recipe, its
tile files written as core writes them, the sidebar settings of it, and what to compare in the scene
and in an FBX.
"""

import json
import os
import subprocess
import sys

import bpy
import numpy as np

from worldseed.core import recipe as core_recipe
from worldseed.core import terrain as core_terrain
from worldseed.core import unity as core_unity
from worldseed.operators.bridge import world_tiles


def isle(
    *,
    tiles=(2, 2),
    resolution=33,
    size=128.0,
    height=40.0,
    falloff="",
    droplets=None,
    variants=None,
    rocks=8.0,
    export="",
):
    """Recipe text: ``falloff`` is extra ``[terrain]`` lines, ``droplets`` turns on erosion with that
    many droplets per km^2, ``variants``/``rocks`` the rock scatter's, ``export`` extra ``[export]`` lines."""
    erosion = "" if droplets is None else f"[terrain.erosion]\nenabled = true\ndroplets_per_km2 = {droplets}\n\n"
    variants = "" if variants is None else f"variants = {variants}\n"
    return f"""
[world]
name = "Isle"
seed = 13
tiles = [{tiles[0]}, {tiles[1]}]

[terrain]
resolution = {resolution}
size = {size}
height = {height}
normalize = "fixed"
{falloff}
{erosion}[[splat]]
name = "Grass"
color = [0.1, 0.3, 0.1]

[[splat]]
name = "Rock"
color = [0.4, 0.4, 0.4]
slope_range = [25.0, 90.0]

[[scatter]]
name = "Rocks"
prop = "rock"
{variants}radius = {rocks}

[export]
fbx = true
{export}
"""


# --------------------------------------------------------------------------- the Build Tiles world "Land"

SIDE = 65
SIZE = 128.0

WORLD_TOML = f"""
[world]
name = "Land"
seed = 3
tiles = [2, 2]

[terrain]
resolution = {SIDE}
size = {SIZE}
height = 40.0
normalize = "fixed"
lods = {{lods}}
"""


def world_recipe(lods=1):
    return core_recipe.loads(WORLD_TOML.format(lods=lods))


def write_tile_heights(recipe, folder, name="world", tiles=((0, 0), (1, 0), (0, 1), (1, 1))):
    """Each tile's RAW, as core writes it: its own terrain at the tile's noise offset, turned for Unity."""
    for x, z in tiles:
        spec = world_tiles.tile_recipe(recipe, x, z).terrain
        heights = core_terrain.terrain_heights(spec, seed=recipe.world.seed)
        raw = core_unity.heightmap_raw16(core_unity.unity_heights(heights.values))
        core_unity.write_bytes_atomic(os.path.join(folder, f"{name}_{x}_{z}.raw"), raw)


def world_positions(obj):
    """(side, side, 3) float64 world positions of a tile mesh's vertices (row 0 at Blender -Y)."""
    me = obj.data
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.attributes["position"].data.foreach_get("vector", co)
    m = np.array(obj.matrix_world, np.float64)
    side = int(round(np.sqrt(len(me.vertices))))
    return (co.reshape(-1, 3).astype(np.float64) @ m[:3, :3].T + m[:3, 3]).reshape(side, side, 3)


def snapshot():
    return (
        sorted((o.name, tuple(round(v, 6) for v in o.matrix_world.translation)) for o in bpy.data.objects),
        sorted(m.name for m in bpy.data.meshes),
        sorted(m.name for m in bpy.data.materials),
        sorted(i.name for i in bpy.data.images),
        sorted(g.name for g in bpy.data.node_groups),
        sorted(c.name for c in bpy.data.collections),
    )


# ufbx's Python objects can crash the garbage collector with bpy in the process (see
# test_export_scatter.py): read the FBX in a Python of its own that prints plain values
_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1], target_unit_meters=1.0)
out = {}
for node in list(scene.nodes):
    if node.is_root:
        continue
    lt = node.local_transform
    t, r, s = lt.translation, lt.rotation, lt.scale
    box = None
    if node.mesh is not None:
        vs = [(v.x, v.y, v.z) for v in node.mesh.vertices]
        box = [[min(v[i] for v in vs) for i in range(3)], [max(v[i] for v in vs) for i in range(3)]]
    out[node.name] = [[t.x, t.y, t.z], [r.x, r.y, r.z, r.w], [s.x, s.y, s.z], box]
print(json.dumps(out), flush=True)
os._exit(0)
"""


def fbx_nodes(path):
    """``{name: (translation, rotation (x, y, z, w), scale, mesh bounds)}`` as ufbx reads them."""
    done = subprocess.run([sys.executable, "-c", _READ_FBX, str(path)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def panel_world(folder, *, erosion=False, lods=1):
    settings = bpy.context.scene.worldseed
    terrain = settings.terrain
    terrain.name, terrain.seed, terrain.resolution, terrain.size = "Land", 3, SIDE, SIZE
    terrain.height, terrain.normalize, terrain.lods = 40.0, "fixed", lods
    terrain.erosion_enabled = erosion
    settings.world.tiles_x, settings.world.tiles_z = 2, 2
    settings.world.folder = str(folder)
    return settings


_READ_FBX_WORLD = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1], target_unit_meters=1.0)
out = {}
for node in list(scene.nodes):
    if not node.is_root:
        parent = node.parent.name if node.parent is not None and not node.parent.is_root else None
        verts = len(node.mesh.vertices) if node.mesh is not None else 0
        c = node.node_to_world.c3
        out[node.name] = [parent, [c.x, c.y, c.z], verts]
print(json.dumps(out), flush=True)
os._exit(0)
"""


def fbx_world(path):
    """``{name: (parent name or None, world position in the file's frame, mesh vertex count)}`` as ufbx
    reads them (the file's frame is Blender's ``(x, z, -y)``; Unity's flips x)."""
    done = subprocess.run(
        [sys.executable, "-c", _READ_FBX_WORLD, str(path)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)
