"""Shared set-up of the Blender networks tests: a small terrain with rivers and roads, from the sidebar
and as a recipe (the same world), and an FBX reader in a Python of its own (ufbx, not Blender's
importer)."""

import json
import subprocess
import sys

import bpy
import numpy as np

#: The Networks test world: 129 x 129 vertices over 512 m (40 m high: every road class joins the points),
#: rivers with lakes, roads joining three points.
TERRAIN = {"name": "Vale", "seed": 5, "resolution": 129, "size": 512.0, "height": 40.0, "scale": 300.0}
TERRAIN_MORE = {"octaves": 5, "sea_level": 0.05}
RIVERS = {"enabled": True, "threshold": 4000.0, "width_scale": 20.0, "bank_width": 12.0}
POINTS = [[-200.0, -180.0], [190.0, -150.0], [0.0, 200.0]]
ROADS = {"enabled": True, "road_class": "road"}

RECIPE = f"""
[world]
name = "Vale"
seed = 5
[terrain]
resolution = 129
size = 512.0
height = 40.0
scale = 300.0
octaves = 5
sea_level = 0.05
[rivers]
enabled = true
threshold = 4000.0
width_scale = 20.0
bank_width = 12.0
[roads]
enabled = true
points = {POINTS}
road_class = "road"
"""


def networks_sidebar(*, rivers=True, roads=True):
    """The sidebar set to the test world (the Terrain and Networks panels); returns ``scene.worldseed``."""
    ws = bpy.context.scene.worldseed
    for name, value in {**TERRAIN, **TERRAIN_MORE}.items():
        setattr(ws.terrain, name, value)
    for name, value in RIVERS.items():
        setattr(ws.rivers, name, value)
    ws.rivers.enabled = rivers
    for name, value in ROADS.items():
        setattr(ws.roads, name, value)
    ws.roads.enabled = roads
    ws.roads.points_source = "TEXT"
    ws.roads.points_text = "; ".join(f"{x}, {y}" for x, y in POINTS)
    return ws


# ufbx's Python objects can crash the garbage collector with bpy in the process: read in a Python of its own
_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1], target_unit_meters=1.0)
out = {}
for n in list(scene.nodes):
    if n.is_root:
        continue
    if n.mesh is None:
        out[n.name] = None
        continue
    g = n.geometry_to_world
    mesh = n.mesh
    out[n.name] = {
        "matrix": [list(g.c0), list(g.c1), list(g.c2), list(g.c3)],
        "vertices": [[v.x, v.y, v.z] for v in list(mesh.vertices)],
        "materials": [m.name for m in list(mesh.materials)],
        "uv_sets": len(list(mesh.uv_sets)),
        "parent": n.parent.name if n.parent is not None and not n.parent.is_root else None,
    }
print(json.dumps(out), flush=True)
os._exit(0)
"""
#: Unity's importer turns the file's right-handed Y-up frame into its left-handed one by mirroring X.
UNITY = np.array([-1.0, 1.0, 1.0])


def read_fbx(path):
    """``{node name: None (no mesh) or {"vertices": (V, 3) in Unity's frame, "materials", "uv_sets",
    "parent"}}`` of an FBX file, read by ufbx."""
    done = subprocess.run([sys.executable, "-c", _READ_FBX, str(path)], capture_output=True, text=True, check=True)
    nodes = json.loads(done.stdout)
    for node in nodes.values():
        if node is not None:
            m = np.array(node.pop("matrix"))
            node["vertices"] = (np.array(node["vertices"]).reshape(-1, 3) @ m[:3] + m[3]) * UNITY
    return nodes


#: A 2 x 2 world with rivers and roads (erosion off: the networks are planned over its base heights;
#: test_networks_headless also builds it with erosion, planned over its stitched eroded heights).
TILED = """
[world]
name = "Delta"
seed = 11
tiles = [2, 2]
[terrain]
resolution = 65
size = 128.0
height = 30.0
scale = 160.0
octaves = 5
persistence = 0.5
normalize = "fixed"
[rivers]
enabled = true
threshold = 300.0
lake_min_area = 50.0
[roads]
enabled = true
road_class = "trail"
points = [[-236.0, -236.0], [-216.0, -20.0], [-56.0, -68.0], [-36.0, -216.0]]
"""
