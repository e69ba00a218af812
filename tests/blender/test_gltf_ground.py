"""Props stand on the ground Blender and the glTF file draw, not only on the FBX's.

Blender cuts every quad along corner 0 -- corner 2 (its viewport and ``mesh.loop_triangles``,
which the glTF exporter writes), while the scatter places props on the cut ``core.mesh.quad_split``
picks (ufbx's and Unity's FBX rule: the shorter 3-D diagonal).  The terrain's quads therefore start
where the two agree.  Checked here on a terrain with real relief, in Blender (every LOD's
``loop_triangles``) and in the exported .glb read back with the third-party reader ``pygltflib``:
every prop origin (sink 0) within 1 cm of the glTF triangle under it.
"""

import numpy as np
import pygltflib
import pytest

from worldseed.core import mesh as core_mesh
from worldseed.core import recipe as core_recipe
from worldseed.operators.bridge import export, world

from ._ground_cases import glb_triangles, ground_under, world_matrices

#: Largest distance (metres, along glTF's +Y) from a prop's origin to the ground under it.
TOLERANCE = 0.01

RECIPE = """
[world]
name = "Ridge"
seed = 9

[terrain]
resolution = 129
size = 256.0
height = 60.0
kind = "ridged"
octaves = 6
scale = 60.0
lods = 3
material = false

[[scatter]]
name = "Rocks"
prop = "rock"
variants = 2
radius = 6.0
sink = 0.0
slope_range = [0.0, 90.0]
above_sea = false
"""


@pytest.fixture
def built(empty_scene, tmp_path):
    recipe = core_recipe.loads(RECIPE, source="test recipe")
    made = world.build_world(recipe, scene=empty_scene)
    return recipe, made, tmp_path


def _lod_meshes(root):
    return sorted((c for c in root.children if c.type == "MESH" and "_LOD" in c.name), key=lambda o: o.name)


def _loop_triangle_diagonals(me):
    """Per polygon, the diagonal (sorted vertex pair) that Blender's two triangles share: (P, 2)."""
    me.calc_loop_triangles()
    n = len(me.loop_triangles)
    verts = np.empty(n * 3, np.int32)
    me.loop_triangles.foreach_get("vertices", verts)
    poly = np.empty(n, np.int32)
    me.loop_triangles.foreach_get("polygon_index", poly)
    verts = verts.reshape(-1, 3)
    order = np.argsort(poly, kind="stable")
    assert np.array_equal(poly[order], np.repeat(np.arange(len(me.polygons)), 2))
    first, second = np.sort(verts[order[0::2]], axis=1), np.sort(verts[order[1::2]], axis=1)
    # the shared edge of the two triangles of each quad
    shared = np.array([sorted(set(a) & set(b)) for a, b in zip(first.tolist(), second.tolist())])
    assert shared.shape == (len(me.polygons), 2)
    return shared


def _check_cuts(spec, root, heights, n_lods):
    """Every LOD's loop_triangles cut each quad along quad_split's diagonal; the share of quads
    cut along v1 -- v3, per LOD."""
    metres = heights.metres.astype(np.float64)
    lods = _lod_meshes(root)
    assert len(lods) == n_lods
    turned = []
    for level, obj in enumerate(lods):
        me = obj.data
        assert not me.validate()
        idx = core_mesh.lod_indices(spec.resolution, 2**level)
        n = len(idx)
        h = metres[np.ix_(idx, idx)]
        cx, cy = (np.diff(idx) * spec.cell_size)[None, :], (np.diff(idx) * spec.cell_size)[:, None]
        split = core_mesh.quad_split(h[:-1, :-1], h[:-1, 1:], h[1:, 1:], h[1:, :-1], cx, cell_y=cy).ravel()
        plain = core_mesh.grid_faces(n, n).astype(np.int64)
        want = np.where(split[:, None], plain[:, [0, 2]], np.sort(plain[:, [1, 3]], axis=1))
        got = _loop_triangle_diagonals(me)
        bad = np.flatnonzero((got != want).any(axis=1))
        assert bad.size == 0, f"LOD{level}: {bad.size} of {len(want)} quads cut the other diagonal"
        turned.append(1.0 - split.mean())
        # the mesh is the same grid: its vertices lie on the heights, faces still face up
        z = np.empty(len(me.vertices) * 3, np.float32)
        me.attributes["position"].data.foreach_get("vector", z)
        np.testing.assert_array_equal(z.reshape(-1, 3)[:, 2], h.astype(np.float32).ravel())
        normals = np.empty(len(me.polygons) * 3, np.float32)
        me.polygons.foreach_get("normal", normals)
        assert (normals.reshape(-1, 3)[:, 2] > 0).all()
    return turned


def test_blenders_triangles_cut_the_diagonal_quad_split_picks_at_every_lod(built):
    recipe, made, _ = built
    turned = _check_cuts(recipe.terrain, made.terrain, made.heights[made.terrain.name], 3)
    # the relief is real: a good share of the quads is cut along v1 -- v3 (Blender's other diagonal)
    assert turned[0] > 0.2, turned


def test_grids_too_large_to_cache_are_turned_too(empty_scene, monkeypatch):
    """Grids above CACHED_GRID_VERTICES make their (turned) corners on demand: the same cuts, also
    on a resolution whose LODs end in a narrower strip of cells."""
    from worldseed.operators.bridge import terrain as bridge_terrain

    monkeypatch.setattr(bridge_terrain, "CACHED_GRID_VERTICES", 0)
    text = RECIPE.replace("resolution = 129", "resolution = 98").split("[[scatter]]")[0]
    recipe = core_recipe.loads(text, source="test recipe")
    made = world.build_world(recipe, scene=empty_scene)
    turned = _check_cuts(recipe.terrain, made.terrain, made.heights[made.terrain.name], 3)
    assert min(turned) > 0.1, turned


def test_every_prop_origin_lies_on_the_gltf_triangles(built):
    recipe, made, tmp_path = built
    paths = export.export_unity(made.roots, str(tmp_path / "ridge.fbx"), formats=("fbx", "glb"), quiet=True)
    glb = next(p for p in paths if p.endswith(".glb"))
    gltf = pygltflib.GLTF2().load(glb)
    blob = gltf.binary_blob()
    matrices = world_matrices(gltf)
    names = {gltf.nodes[i].name: i for i in matrices}

    terrain = names[f"{made.terrain.name}_LOD0"]
    tris = glb_triangles(gltf, blob, terrain, matrices[terrain])
    assert len(tris) == 2 * 128 * 128

    props = np.array([matrices[i][:3, 3] for name, i in names.items() if name.startswith("Rock_")])
    assert len(props) > 300, sorted(names)[:10]
    ground = ground_under(props, tris)
    assert not np.isnan(ground).any()
    gap = np.abs(props[:, 1] - ground)
    assert gap.max() < TOLERANCE, f"worst {gap.max():.4f} m, {np.sum(gap >= TOLERANCE)} of {len(gap)} props"
