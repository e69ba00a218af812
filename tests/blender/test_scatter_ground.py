"""Scattered props stand on the ground Unity draws: the FBX terrain's triangles, read back with ufbx.

A world is built from a recipe (``operators.bridge.world.build_world``) with a rock layer that
does not sink (``sink = 0``), exported with ``operators.bridge.export.export_unity``, and read
back with the third-party reader ``ufbx`` in Unity's frame (left-handed, Y up, metres, X
mirrored as Unity's importer mirrors it).  The terrain's quads are cut into triangles here, as
ufbx's ``ufbx_triangulate_face`` (which aims to match Autodesk's FBX SDK) cuts them: the shorter
diagonal, the first one on a tie, unless a cut folds the quad.  Every prop's origin, from the
FBX's nodes and from the placement file, must lie within 1 cm of the triangle below it.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.operators.bridge import export, placements, world

#: Largest distance (metres, along Unity's Y) from a prop's origin to the ground under it.
TOLERANCE = 0.01

RECIPE = """
[world]
name = "Ground"
seed = 4

[terrain]
resolution = 65
size = 128.0
height = 60.0
octaves = 6
scale = 40.0
sea_level = 0.0

[[scatter]]
name = "Rocks"
prop = "rock"
variants = 2
radius = 4.0
sink = 0.0
slope_range = [0.0, 90.0]
above_sea = false
"""

# ufbx's Python objects can crash the garbage collector (ufbx 0.0.5, with bpy in the process):
# read the FBX in a Python of its own that prints plain values and leaves without tearing down
_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1], target_unit_meters=1.0)
out = {"nodes": {}, "terrain": None}
for node in list(scene.nodes):
    name = node.name
    out["nodes"][name] = list(node.node_to_world.c3)
    if name == sys.argv[2]:
        mesh = node.mesh
        g = node.geometry_to_world
        indices = list(mesh.vertex_indices)
        out["terrain"] = {
            "matrix": [list(g.c0), list(g.c1), list(g.c2), list(g.c3)],
            "vertices": [[v.x, v.y, v.z] for v in list(mesh.vertices)],
            "faces": [indices[f.index_begin : f.index_begin + f.num_indices] for f in list(mesh.faces)],
        }
print(json.dumps(out), flush=True)
os._exit(0)
"""


#: Unity's importer turns the file's right-handed Y-up frame into its left-handed one by mirroring X.
UNITY = np.array([-1.0, 1.0, 1.0])


def _read_fbx(path, terrain_name):
    """Node origins ``{name: (3,)}`` and the terrain's vertices ``(V, 3)`` and faces, in Unity's frame."""
    done = subprocess.run(
        [sys.executable, "-c", _READ_FBX, path, terrain_name], capture_output=True, text=True, check=True
    )
    fbx = json.loads(done.stdout)
    nodes = {name: np.array(t) * UNITY for name, t in fbx["nodes"].items()}
    terrain = fbx["terrain"]
    if terrain is None:
        return nodes, None, None
    m = np.array(terrain["matrix"])  # columns c0 c1 c2 c3 of geometry_to_world
    vertices = (np.array(terrain["vertices"]) @ m[:3] + m[3]) * UNITY
    return nodes, vertices, terrain["faces"]


def _triangles(vertices, faces):
    """The faces as triangles ``(T, 3, 3)``; quads cut as ufbx cuts them."""
    tris = []
    quads = np.array([f for f in faces if len(f) == 4], np.int64)
    tris += [vertices[np.array([f for f in faces if len(f) == 3], np.int64).reshape(-1, 3)]]
    if len(quads):
        v0, v1, v2, v3 = (vertices[quads[:, k]] for k in range(4))

        def unit(n):
            return n / np.linalg.norm(n, axis=1, keepdims=True)

        a, b = v2 - v0, v3 - v1
        dot_a = np.einsum("ij,ij->i", unit(np.cross(a, v1 - v0)), unit(np.cross(a, v0 - v3)))
        dot_b = np.einsum("ij,ij->i", unit(np.cross(b, v1 - v0)), unit(np.cross(b, v2 - v1)))
        cut_a = np.einsum("ij,ij->i", a, a) <= np.einsum("ij,ij->i", b, b)
        folded = (dot_a < 0) | (dot_b < 0)
        cut_a = np.where(folded, dot_a >= dot_b, cut_a)
        first = np.where(cut_a[:, None], quads[:, [0, 1, 2]], quads[:, [1, 2, 3]])
        second = np.where(cut_a[:, None], quads[:, [2, 3, 0]], quads[:, [3, 0, 1]])
        tris += [vertices[first], vertices[second]]
    assert all(len(f) in (3, 4) for f in faces)
    return np.concatenate(tris)


def _side(u, v, p):
    """Which side of the edges ``u -> v`` ((T, 3)) the point ``p`` lies on, in the (x, z) plane."""
    return (v[:, 0] - u[:, 0]) * (p[2] - u[:, 2]) - (v[:, 2] - u[:, 2]) * (p[0] - u[:, 0])


def _ground_under(points, tris):
    """Y of the triangles (Unity's frame, Y up) under each point's (x, z): (N,), NaN where none."""
    out = np.full(len(points), np.nan)
    t0, t1, t2 = tris[:, 0], tris[:, 1], tris[:, 2]
    lo = np.minimum(np.minimum(t0, t1), t2) - 1e-6
    hi = np.maximum(np.maximum(t0, t1), t2) + 1e-6
    n = np.cross(t1 - t0, t2 - t0)
    for k, p in enumerate(points):
        near = np.flatnonzero((lo[:, 0] <= p[0]) & (hi[:, 0] >= p[0]) & (lo[:, 2] <= p[2]) & (hi[:, 2] >= p[2]))
        a, b, c = t0[near], t1[near], t2[near]
        s = np.stack([_side(a, b, p), _side(b, c, p), _side(c, a, p)], axis=1)
        inside = (s >= -1e-9).all(axis=1) | (s <= 1e-9).all(axis=1)
        if inside.any():
            i = near[np.flatnonzero(inside)[0]]
            out[k] = t0[i, 1] - (n[i, 0] * (p[0] - t0[i, 0]) + n[i, 2] * (p[2] - t0[i, 2])) / n[i, 1]
    return out


@pytest.fixture
def exported(empty_scene, tmp_path):
    recipe = core_recipe.loads(RECIPE, source="test")
    built = world.build_world(recipe, scene=empty_scene)
    path = str(tmp_path / "ground.fbx")
    export.export_unity(built.roots, path)  # a few thousand instances: one FBX object each
    data = placements.placement_data(built.scatters[0])
    return built, path, data


def test_every_prop_origin_lies_on_the_exported_triangles(exported):
    built, path, data = exported
    nodes, vertices, faces = _read_fbx(path, built.terrain.name)
    assert vertices is not None, sorted(nodes)[:5]
    tris = _triangles(vertices, faces)
    assert len(tris) == 2 * 64 * 64
    # the placement file and the FBX agree on where every instance is (Unity's frame)
    instances = data["instances"]
    from_file = np.array([r["position"] for r in instances])
    assert len(from_file) > 500
    # instance k of the file is the object <prop>_<k> of the FBX (bridge.placements)
    from_nodes = np.array([nodes[f"{r['prop']}_{k:05d}"] for k, r in enumerate(instances)])
    np.testing.assert_allclose(from_nodes, from_file, atol=1e-4)
    # every origin is on the ground Unity draws (sink 0)
    for points in (from_file, from_nodes):
        ground = _ground_under(points, tris)
        assert not np.isnan(ground).any()
        gap = np.abs(points[:, 1] - ground)
        assert gap.max() < TOLERANCE, f"worst {gap.max():.4f} m, {np.sum(gap >= TOLERANCE)} props"


def test_the_readers_cut_is_not_always_the_same_diagonal(exported):
    """The terrain's quads really are cut both ways here (across the grid: along x = z or x = -z),
    so the test above tells the cuts apart.  Nearly every quad starts on the shorter diagonal,
    corner 0 -- corner 2, the cut Blender and its glTF exporter draw too (core.mesh.grid_turns;
    a quad that both cuts fold starts on the other one, which Blender leaves for ufbx's)."""
    built, path, _ = exported
    _, vertices, faces = _read_fbx(path, built.terrain.name)
    quads = np.array([f for f in faces if len(f) == 4])
    v0, v1, v2, v3 = (vertices[quads[:, k]] for k in range(4))
    shorter_a = np.einsum("ij,ij->i", v2 - v0, v2 - v0) <= np.einsum("ij,ij->i", v3 - v1, v3 - v1)
    assert shorter_a.mean() > 0.95
    cut = _triangles(vertices, faces)[: len(quads)]  # each quad's first triangle: cut[:, 0] -- cut[:, 2]
    d = cut[:, 2] - cut[:, 0]
    rising = d[:, 0] * d[:, 2] > 0
    assert 0.2 < rising.mean() < 0.8
    assert os.path.getsize(path) > 0
