"""Tilted, sunk rocks stand on the one surface every reader draws (issue 21).

The demo's rocks (``align = 1``, ``max_tilt = 40``, ``sink = 0.2``, scales 1..3) on steep ground,
exported to FBX and .glb and read back with ufbx and pygltflib.  The terrain arrives as triangles
cut along the diagonals the scatter placed the props by (``core.mesh.quad_split``), so no reader
cuts its quads its own way (the other diagonal left rocks up to 1.5 m in the air): every prop's
base -- its origin raised by ``sink * scale`` -- lies on the triangles of both files within 1 cm,
and both files hold the same triangles.  On the other diagonal many bases would be off by more.
"""

import bpy
import numpy as np
import pygltflib
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.operators.bridge import export, placements, world

from ._ground_cases import fbx_triangles, glb_triangles, ground_under, read_fbx, world_matrices

TOLERANCE = 0.01
SINK = 0.2

RECIPE = f"""
[world]
name = "Steep"
seed = 21

[terrain]
resolution = 65
size = 128.0
height = 70.0
kind = "ridged"
octaves = 6
scale = 50.0

[[scatter]]
name = "Rocks"
prop = "rock"
variants = 3
radius = 5.0
slope_range = [20.0, 90.0]
scale_range = [1.0, 3.0]
align = 1.0
max_tilt = 40.0
sink = {SINK}
above_sea = false
"""


@pytest.fixture(scope="module")
def exported(addon, tmp_path_factory):
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    recipe = core_recipe.loads(RECIPE, source="test recipe")
    made = world.build_world(recipe, scene=bpy.context.scene)
    folder = tmp_path_factory.mktemp("steep")
    paths = export.export_unity(made.roots, str(folder / "steep.fbx"), formats=("fbx", "glb"), quiet=True)
    data = placements.placement_data(made.scatters[0])
    return made.terrain.name, paths, data


def _bases(points, scales):
    """Where each prop meets the ground: its origin raised by ``sink * scale`` along +Y."""
    return points + np.outer(SINK * np.asarray(scales), [0.0, 1.0, 0.0])


def _other_cut(tris):
    """The same cells cut along their other diagonal: (T, 3, 3)."""
    cells = {}
    for t in tris:
        key = tuple(np.round(t[:, [0, 2]].min(axis=0), 3))
        cells.setdefault(key, []).append(t)
    out = []
    for a, b in cells.values():
        shared = [v for v in a if (np.abs(b - v).max(axis=1) < 1e-6).any()]
        other = [v for v in a if not (np.abs(b - v).max(axis=1) < 1e-6).any()]
        other += [v for v in b if not (np.abs(a - v).max(axis=1) < 1e-6).any()]
        out += [np.array([other[0], shared[0], other[1]]), np.array([other[0], shared[1], other[1]])]
    return np.array(out)


def test_tilted_sunk_props_stand_on_the_fbx_and_glb_triangles(exported):
    terrain, paths, data = exported
    records = data["instances"]
    assert len(records) > 150
    scales = [r["scale"] for r in records]
    # FBX, read by ufbx: triangles only
    nodes, vertices, faces = read_fbx(next(p for p in paths if p.endswith(".fbx")), terrain)
    assert {len(f) for f in faces} == {3}
    fbx_tris = fbx_triangles(vertices, faces)
    fbx_bases = _bases(np.array([nodes[r["object"]] for r in records]), scales)
    # glb, read by pygltflib
    gltf = pygltflib.GLTF2().load(next(p for p in paths if p.endswith(".glb")))
    blob = gltf.binary_blob()
    matrices = world_matrices(gltf)
    names = {gltf.nodes[i].name: i for i in matrices}
    glb_tris = glb_triangles(gltf, blob, names[terrain], matrices[names[terrain]])
    glb_bases = _bases(np.array([matrices[names[r["object"]]][:3, 3] for r in records]), scales)
    # glTF is right-handed: Unity's frame mirrors X (as the FBX's above)
    glb_tris = glb_tris * [-1.0, 1.0, 1.0]
    glb_bases = glb_bases * [-1.0, 1.0, 1.0]
    np.testing.assert_allclose(glb_bases, fbx_bases, atol=1e-4)
    for label, tris, bases in (("FBX", fbx_tris, fbx_bases), ("glb", glb_tris, glb_bases)):
        ground = ground_under(bases, tris)
        assert not np.isnan(ground).any(), label
        gap = np.abs(bases[:, 1] - ground)
        assert gap.max() < TOLERANCE, f"{label}: worst {gap.max():.4f} m, {np.sum(gap >= TOLERANCE)} props"
    # the same surface in both files: every glb triangle's corners are FBX vertices, triangle for triangle
    key = np.round(np.sort(fbx_tris.reshape(len(fbx_tris), -1), axis=1), 3)
    glb_key = np.round(np.sort(glb_tris.reshape(len(glb_tris), -1), axis=1), 3)
    assert len(key) == len(glb_key) == 2 * 64 * 64
    assert {k.tobytes() for k in key} == {k.tobytes() for k in glb_key}
    # teeth: on the other diagonal many of these bases would float or sink
    off = np.abs(fbx_bases[:, 1] - ground_under(fbx_bases, _other_cut(fbx_tris)))
    assert (off > 0.05).sum() > 10, off.max()


def test_the_triangulated_copy_is_a_clean_mesh_cut_as_quad_split_says(empty_scene):
    """Every LOD's triangulated copy validates clean (its edges built from the quads' own plus a
    diagonal each) and keeps vertices, UVs and colours; LOD0's diagonals are quad_split's."""
    from worldseed.core import mesh as core_mesh
    from worldseed.operators.bridge import terrain_export

    recipe = core_recipe.loads(RECIPE.replace("[terrain]", "[terrain]\nlods = 3"), source="test recipe")
    made = world.build_world(recipe, scene=empty_scene)
    lods = terrain_export.terrain_lods([made.terrain, *made.terrain.children])[made.terrain]
    assert len(lods) == 3
    for obj in lods:
        me = obj.data
        tri = terrain_export.triangulated(me, "copy")
        assert not tri.validate()
        assert len(tri.polygons) == 2 * len(me.polygons) and len(tri.vertices) == len(me.vertices)
        assert {len(p.vertices) for p in tri.polygons} == {3}
        assert sorted(a.name for a in tri.color_attributes) == sorted(a.name for a in me.color_attributes)
        assert tri.uv_layers.active.name == me.uv_layers.active.name
        assert [m.name for m in tri.materials] == [m.name for m in me.materials]
        if obj is lods[0]:
            h = made.heights[made.terrain.name].metres.astype(np.float64)
            split = core_mesh.quad_split(h[:-1, :-1], h[:-1, 1:], h[1:, 1:], h[1:, :-1], recipe.terrain.cell_size)
            plain = core_mesh.grid_faces(65, 65).astype(np.int64)
            want = np.where(split.ravel()[:, None], plain[:, [0, 2]], np.sort(plain[:, [1, 3]], axis=1))
            verts = np.array([p.vertices[:] for p in tri.polygons]).reshape(-1, 2, 3)
            shared = np.array([sorted(set(a) & set(b)) for a, b in verts.tolist()])
            np.testing.assert_array_equal(shared, want)
            assert 0.2 < 1 - split.mean() < 0.8  # both diagonals in use
        bpy.data.meshes.remove(tri)
