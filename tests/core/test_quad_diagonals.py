"""Terrain quads start where every reader cuts them the same way.

Blender (viewport, ``loop_triangles``, so the glTF exporter) cuts a quad along corner 0 -- corner 2
unless that cut folds it (then corner 1 -- corner 3); ufbx (and Unity's FBX importer, which ufbx
aims to match) along the shorter 3-D diagonal, with a fold rule.  ``mesh.grid_turns`` says which
quads must start one corner later so that both agree with ``mesh.quad_split``, the cut the scatter
places props on.  The references here are both rules written out on 3-D positions (ufbx's
``ufbx_triangulate_face``; Blender's tessellation, checked against real Blender in
``tests/blender/test_gltf_ground.py``), independent of core's algebra.
"""

import numpy as np
import pytest

from worldseed.core import mesh
from worldseed.core.errors import ParameterError


def ufbx_cut_02(v0, v1, v2, v3):
    """ufbx's choice for quads ``v0 v1 v2 v3`` ((N, 3) each): True for ``v0 -- v2``."""

    def unit(n):
        return n / np.linalg.norm(n, axis=1, keepdims=True)

    a, b = v2 - v0, v3 - v1
    dot_a = np.einsum("ij,ij->i", unit(np.cross(a, v1 - v0)), unit(np.cross(a, v0 - v3)))
    dot_b = np.einsum("ij,ij->i", unit(np.cross(b, v1 - v0)), unit(np.cross(b, v2 - v1)))
    cut_a = np.einsum("ij,ij->i", a, a) <= np.einsum("ij,ij->i", b, b)
    folded = (dot_a < 0) | (dot_b < 0)
    return np.where(folded, dot_a >= dot_b, cut_a)


def blender_cut_02(v0, v1, v2, v3):
    """Blender's choice for quads ``v0 v1 v2 v3``: True for ``v0 -- v2`` (its triangles do not fold)."""
    return np.einsum("ij,ij->i", np.cross(v1 - v0, v2 - v0), np.cross(v3 - v0, v2 - v0)) <= 0


def cut_diagonals(faces, cut_02):
    """The cut of each quad as a sorted vertex pair: (Q, 2)."""
    return np.sort(np.where(cut_02[:, None], faces[:, [0, 2]], faces[:, [1, 3]]), axis=1)


def grid_points(h, cell, ri=None, ci=None):
    """(rows * cols, 3) positions of heights ``h`` sampled at rows ``ri`` and columns ``ci``."""
    ri = np.arange(h.shape[0]) if ri is None else ri
    ci = np.arange(h.shape[1]) if ci is None else ci
    x, y = np.meshgrid(ci * cell, ri * cell)
    return np.stack([x, y, h[np.ix_(ri, ci)]], axis=-1).reshape(-1, 3)


def rough_heights(rng, shape, relief):
    """Smooth hills plus per-vertex noise: long and short diagonals both ways, and folded quads."""
    rows, cols = shape
    y, x = np.mgrid[0:rows, 0:cols]
    hills = np.sin(x / 5.0 + 1.0) * np.cos(y / 7.0) * relief
    return (hills + rng.normal(0.0, relief / 3, shape)).astype(np.float32)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("cell", [0.25, 2.0])
def test_quad_split_is_ufbxs_rule(seed, cell):
    rng = np.random.default_rng(seed)
    h = rough_heights(rng, (60, 70), relief=3.0).astype(np.float64)
    v = grid_points(h, cell)
    quads = mesh.grid_faces(*h.shape).astype(np.int64)
    want = ufbx_cut_02(*(v[quads[:, k]] for k in range(4)))
    got = mesh.quad_split(h[:-1, :-1], h[:-1, 1:], h[1:, 1:], h[1:, :-1], cell).ravel()
    np.testing.assert_array_equal(got, want)
    # the case is not trivial: both cuts occur, and the fold rule decides some quads
    assert 0.2 < want.mean() < 0.8
    p, w = (v[quads[:, 2]] - v[quads[:, 0]])[:, 2], (v[quads[:, 3]] - v[quads[:, 1]])[:, 2]
    assert np.any((p * p <= w * w) != want), "no folded quad decided by the fold rule"


def test_quad_split_with_rectangular_cells():
    rng = np.random.default_rng(5)
    z = rng.normal(0.0, 2.0, (4, 5000))
    cx, cy = 3.0, 0.5
    xy = [(0.0, 0.0), (cx, 0.0), (cx, cy), (0.0, cy)]
    corners = [np.column_stack([np.full(len(zk), x), np.full(len(zk), y), zk]) for (x, y), zk in zip(xy, z)]
    np.testing.assert_array_equal(mesh.quad_split(*z, cx, cell_y=cy), ufbx_cut_02(*corners))


def test_quad_split_tie_is_the_first_diagonal():
    assert mesh.quad_split(0.0, 1.0, 2.0, -1.0, 1.0).item() is True  # |p| = |w| = 2, no fold


@pytest.mark.parametrize("seed", [3, 4])
def test_blender_and_ufbx_cut_the_turned_quads_as_quad_split_says(seed):
    rng = np.random.default_rng(seed)
    h = rough_heights(rng, (65, 65), relief=2.0)
    cell = 1.5
    turn = mesh.grid_turns(h, cell_size=cell)
    assert turn.dtype == bool and turn.shape == (64 * 64,)
    plain = mesh.grid_faces(65, 65).astype(np.int64)
    faces = mesh.grid_faces(65, 65, turn=turn).astype(np.int64)
    hf = h.astype(np.float64)
    split = mesh.quad_split(hf[:-1, :-1], hf[:-1, 1:], hf[1:, 1:], hf[1:, :-1], cell).ravel()
    want = cut_diagonals(plain, split)
    v = grid_points(hf, cell)
    corners = [v[faces[:, k]] for k in range(4)]
    np.testing.assert_array_equal(cut_diagonals(faces, blender_cut_02(*corners)), want)
    np.testing.assert_array_equal(cut_diagonals(faces, ufbx_cut_02(*corners)), want)
    # the case is not trivial: Blender would cut the other diagonal of many quads unturned, some of
    # them because both cuts fold (those turn although quad_split's cut is v0 -- v2)
    plain_corners = [v[plain[:, k]] for k in range(4)]
    wrong = cut_diagonals(plain, blender_cut_02(*plain_corners)) != want
    assert wrong.any(axis=1).mean() > 0.2
    both_fold = ~blender_cut_02(*plain_corners) & ~blender_cut_02(*(plain_corners[1:] + plain_corners[:1]))
    assert (both_fold & turn & split).sum() > 5
    # the same faces: same corners in the same cyclic order (winding kept), unturned ones untouched
    np.testing.assert_array_equal(faces[~turn], plain[~turn])
    np.testing.assert_array_equal(faces[turn], plain[turn][:, [1, 2, 3, 0]])


def test_turned_topology_and_uvs_follow_the_corners():
    rng = np.random.default_rng(8)
    h = rough_heights(rng, (9, 12), relief=1.0)
    turn = mesh.grid_turns(h)
    assert turn.any() and not turn.all()
    faces = mesh.grid_faces(9, 12, turn=turn)
    topo = mesh.grid_topology(9, 12, turn=turn)
    plain = mesh.grid_topology(9, 12)
    np.testing.assert_array_equal(topo.corner_verts, faces.ravel())
    np.testing.assert_array_equal(topo.edges, plain.edges)
    np.testing.assert_array_equal(topo.loop_starts, plain.loop_starts)
    # corner i's edge joins corner i and the next corner of its quad
    c = topo.corner_verts.reshape(-1, 4)
    nxt = np.roll(c, -1, axis=1).ravel()
    e = topo.edges[topo.corner_edges]
    np.testing.assert_array_equal(np.sort(e, axis=1), np.sort(np.stack([c.ravel(), nxt], axis=1), axis=1))
    # corner UVs are the vertex UVs by corner
    m = mesh.grid_mesh(np.zeros((9, 12), np.float32))
    np.testing.assert_array_equal(mesh.grid_corner_uvs(9, 12, turn=turn), m.uvs[faces.ravel()])


@pytest.mark.parametrize("side, stride", [(65, 2), (65, 4), (50, 4), (37, 8)])
def test_lod_turns_match_ufbx_on_the_lod_grid(side, stride):
    """Every level of detail, including the narrower last strip of a stride that does not divide."""
    rng = np.random.default_rng(side + stride)
    h = rough_heights(rng, (side, side), relief=4.0)
    cell = 2.0
    ri = ci = mesh.lod_indices(side, stride)
    n = len(ri)
    turn = mesh.grid_turns(h, cell_size=cell, stride=stride)
    assert turn.shape == ((n - 1) ** 2,) and turn.any()
    v = grid_points(h.astype(np.float64), cell, ri, ci)
    plain = mesh.grid_faces(n, n).astype(np.int64)
    want = cut_diagonals(plain, ufbx_cut_02(*(v[plain[:, k]] for k in range(4))))
    faces = mesh.grid_faces(n, n, turn=turn).astype(np.int64)
    corners = [v[faces[:, k]] for k in range(4)]
    np.testing.assert_array_equal(cut_diagonals(faces, blender_cut_02(*corners)), want)
    np.testing.assert_array_equal(cut_diagonals(faces, ufbx_cut_02(*corners)), want)


def test_turns_are_deterministic_and_flat_ground_turns_nothing():
    h = rough_heights(np.random.default_rng(1), (129, 129), relief=5.0)
    assert mesh.grid_turns(h, cell_size=2.0).tobytes() == mesh.grid_turns(h.copy(), cell_size=2.0).tobytes()
    assert not mesh.grid_turns(np.zeros((17, 17), np.float32)).any()  # ties: v0 -- v2


def test_turn_quads_in_place_and_errors():
    a = np.arange(8, dtype=np.int32)
    out = mesh.turn_quads(a, [True, False])
    assert out.tolist() == [1, 2, 3, 0, 4, 5, 6, 7] and a.tolist() == list(range(8))
    assert mesh.turn_quads(a, [False, True], out=a) is a and a.tolist() == [0, 1, 2, 3, 5, 6, 7, 4]
    with pytest.raises(ParameterError, match="turn must have one entry per quad"):
        mesh.turn_quads(a, [True])
    with pytest.raises(ParameterError, match="turn must have one entry per quad"):
        mesh.grid_faces(3, 3, turn=[True, False])
    with pytest.raises(ParameterError, match="heights"):
        mesh.grid_turns(np.zeros(5))
    with pytest.raises(ParameterError, match="stride"):
        mesh.grid_turns(np.zeros((5, 5)), stride=0)
    with pytest.raises(ParameterError, match="cell_size"):
        mesh.grid_turns(np.zeros((5, 5)), cell_size=-1.0)


@pytest.mark.parametrize("stride", [1, 2, 4])
def test_turns_and_turned_corners_band_by_band_are_the_whole_grids(stride):
    """The terrain build works out turns and turned corners in bands of quad rows, on two
    threads: band by band gives the same bytes as the whole grid."""
    h = rough_heights(np.random.default_rng(stride), (67, 67), relief=3.0)
    idx = mesh.lod_indices(67, stride)
    n = len(idx)
    whole = mesh.grid_turns(h, cell_size=1.5, stride=stride)
    topo = mesh.grid_topology(n, n)
    uvs = mesh.grid_corner_uvs(n, n)
    outs = [np.empty_like(topo.corner_verts), np.empty_like(topo.corner_edges), np.empty_like(uvs)]
    bounds = [0, (n - 1) // 3, n - 1]
    for first, stop in zip(bounds[:-1], bounds[1:]):
        band = mesh.grid_turns(h[idx[first] : idx[stop] + 1], cell_size=1.5, stride=stride)
        np.testing.assert_array_equal(band, whole[first * (n - 1) : stop * (n - 1)])
        lo, hi = 4 * first * (n - 1), 4 * stop * (n - 1)
        for values, out in zip((topo.corner_verts, topo.corner_edges, uvs), outs):
            assert mesh.turn_quads(values[lo:hi], band, out=out[lo:hi]).base is out
    turned = mesh.grid_topology(n, n, turn=whole)
    assert outs[0].tobytes() == turned.corner_verts.tobytes()
    assert outs[1].tobytes() == turned.corner_edges.tobytes()
    assert outs[2].tobytes() == mesh.grid_corner_uvs(n, n, turn=whole).tobytes()
