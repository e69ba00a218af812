"""Scattered props stand on the ground Unity draws: the FBX terrain's triangles, read back with ufbx.

A world is built from a recipe (``operators.bridge.world.build_world``) with a rock layer that
does not sink (``sink = 0``), exported with ``operators.bridge.export.export_unity``, and read
back with the third-party reader ``ufbx`` in Unity's frame (left-handed, Y up, metres, X
mirrored as Unity's importer mirrors it).  The terrain's quads are cut into triangles here, as
ufbx's ``ufbx_triangulate_face`` (which aims to match Autodesk's FBX SDK) cuts them: the shorter
diagonal, the first one on a tie, unless a cut folds the quad.  Every prop's origin, from the
FBX's nodes and from the placement file, must lie within 1 cm of the triangle below it.
"""

import numpy as np
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.operators.bridge import export, placements, world

from ._ground_cases import fbx_triangles, ground_under, read_fbx

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
    nodes, vertices, faces = read_fbx(path, built.terrain.name)
    assert vertices is not None, sorted(nodes)[:5]
    tris = fbx_triangles(vertices, faces)
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
        ground = ground_under(points, tris)
        assert not np.isnan(ground).any()
        gap = np.abs(points[:, 1] - ground)
        assert gap.max() < TOLERANCE, f"worst {gap.max():.4f} m, {np.sum(gap >= TOLERANCE)} props"


def test_the_terrain_arrives_as_triangles_cut_both_ways(exported):
    """The FBX holds the terrain as triangles (no quad left to a reader's own rule: Unity's FBX SDK,
    ufbx and assimp all see the one surface), and its quads are really cut both ways here (along
    x = z or x = -z), so the test above tells the cuts apart."""
    built, path, _ = exported
    _, vertices, faces = read_fbx(path, built.terrain.name)
    assert {len(f) for f in faces} == {3}
    tris = fbx_triangles(vertices, faces)
    # each triangle's long edge (across its cell) is the quad's diagonal: rising or falling in (x, z)
    edges = np.stack([tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 1], tris[:, 0] - tris[:, 2]], axis=1)
    across = edges[np.arange(len(tris)), np.argmax(np.abs(edges[..., 0]) * np.abs(edges[..., 2]), axis=1)]
    rising = across[:, 0] * across[:, 2] > 0
    assert 0.2 < rising.mean() < 0.8
