"""core.tree_mesh: bark tubes, leaves, billboards, index dtype, random skeletons."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core.errors import ParameterError
from worldseed.core.trees import _tree_parts, _tube, tree_mesh
from worldseed.core.trees.skeleton import LeafCards, Polygon, Skeleton
from worldseed.core.trees.tree_mesh import BARK, BILLBOARD, LEAVES, billboard_mesh, tree_lods

from ._tree_skeletons import (
    _unit,
    bark_edges,
    check_manifold,
    check_mesh,
    leaf_cards,
    make_skeleton,
    random_tree,
    side_branch_count,
    signed_volume,
    trunk,
    y_fork,
)

# --- doctests, options ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"sides": 2}, "sides"),
        ({"sides": 3.5}, "sides"),
        ({"leaf_shape": "oak"}, "leaf_shape"),
        ({"leaf_width": 0.0}, "leaf_width"),
        ({"min_radius": -1.0}, "min_radius"),
        ({"keep_leaves": 1.5}, "keep_leaves"),
        ({"simplify_angle": 90.0}, "simplify_angle"),
        ({"uv_scale": 0.0}, "uv_scale"),
        ({"seed": -1}, "seed"),
    ],
)
def test_tree_mesh_options_are_checked(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        tree_mesh.tree_mesh(y_fork(), **kwargs)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"levels": 0}, "levels"),
        ({"levels": 4}, "ratios"),
        ({"ratios": (1.0, 0.5, 0.6)}, "ratios"),
        ({"ratios": (0.9, 0.5, 0.1)}, "ratios"),
        ({"ratios": 3}, "ratios"),
    ],
)
def test_tree_lods_options_are_checked(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        tree_lods(y_fork(), **kwargs)


def test_skeleton_is_checked():
    with pytest.raises(ParameterError, match="skeleton"):
        tree_mesh.tree_mesh("F[+F]")
    sk = y_fork()
    bad = Skeleton(sk.positions, sk.headings, sk.ups, np.r_[np.nan, sk.radii[1:]], sk.parents, sk.orders)
    with pytest.raises(ParameterError, match="radii"):
        tree_mesh.tree_mesh(bad)
    with pytest.raises(ParameterError, match=r"polygons\[0\]"):
        tree_mesh.tree_mesh(make_skeleton(sk.positions, sk.parents, sk.radii, polygons=[Polygon(np.zeros((3, 2)))]))


def test_empty_and_point_skeletons_give_empty_meshes():
    empty = make_skeleton(np.zeros((0, 3)), np.zeros(0, np.int64), np.zeros(0))
    lone = make_skeleton([[0.0, 0.0, 0.0]], [-1], [0.1])
    for sk in (empty, lone):
        m = tree_mesh.tree_mesh(sk)
        assert m.n_vertices == 0 and m.n_triangles == 0 and m.indices.dtype == np.uint16
        assert all(lod.n_triangles == 0 for lod in tree_lods(sk))


# --- bark ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("sides", [3, 4, 8, 13])
def test_straight_trunk_counts_layout_and_closed_volume(sides):
    n, r = 6, 0.2
    m = tree_mesh.tree_mesh(trunk(n, radii=np.full(n, r)), sides=sides)
    w = sides + 1
    assert m.n_vertices == n * w + 1
    assert m.n_triangles == (n - 1) * 2 * sides + sides + (sides - 2)
    assert (m.materials == BARK).all()
    check_mesh(m)
    check_manifold(m, 0, sides)
    # rings at the node heights, radius r; the apex one radius beyond the top
    rings = m.vertices[: n * w].reshape(n, w, 3)
    np.testing.assert_allclose(rings[..., 2], np.arange(n)[:, None] * np.ones(w), atol=1e-6)
    np.testing.assert_allclose(np.hypot(rings[..., 0], rings[..., 1]), r, rtol=1e-5)
    np.testing.assert_allclose(m.vertices[-1], [0, 0, n - 1 + _tube.TIP_LENGTH * r], atol=1e-6)
    np.testing.assert_allclose(m.normals[-1], [0, 0, 1], atol=1e-6)
    # a closed prism plus a cone, wound outward: positive volume of the right size
    polygon = sides / 2 * r * r * math.sin(2 * math.pi / sides)
    expected = polygon * (n - 1) + polygon * _tube.TIP_LENGTH * r / 3
    assert signed_volume(m) == pytest.approx(expected, rel=1e-5)


def test_radial_normals_point_outward_and_match_faces():
    m = tree_mesh.tree_mesh(y_fork(), sides=8)
    tri = m.vertices.astype(np.float64)[m.indices.astype(np.int64)]
    face = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    corner = m.normals[m.indices.astype(np.int64)].sum(axis=1)
    agree = np.einsum("ij,ij->i", face, corner)
    # the trunk's base cap (the last 6 triangles) faces down, across the radial normals of its ring
    assert (agree[:-6] > 0).all()
    np.testing.assert_allclose(agree[-6:], 0, atol=1e-6)
    np.testing.assert_allclose(_unit(face[-6:]), np.tile([0, 0, -1.0], (6, 1)), atol=1e-6)


def test_y_fork_is_two_tubes_with_an_open_base_at_the_parent_node():
    sk = y_fork()
    sides = 7
    m = tree_mesh.tree_mesh(sk, sides=sides)
    check_mesh(m)
    check_manifold(m, 1, sides)
    edges, counts, _, weld = bark_edges(m)
    border = np.unique(edges[counts == 1])
    first = np.array([np.flatnonzero(weld == b)[0] for b in border])
    ring = m.vertices[first].astype(np.float64)
    np.testing.assert_allclose(ring.mean(axis=0), sk.positions[2], atol=1e-6)
    # the branch's own radius (0.1 < parent's 0.2), in the plane across the branch's first segment
    np.testing.assert_allclose(np.linalg.norm(ring - sk.positions[2], axis=1), 0.1, rtol=1e-5)
    d = _unit(sk.positions[4] - sk.positions[2])
    np.testing.assert_allclose((ring - sk.positions[2]) @ d, 0.0, atol=1e-6)
    # trunk: rings at nodes 0..3 + apex; branch: base ring + rings at 4, 5 + apex
    assert m.n_vertices == (4 + 3) * (sides + 1) + 2


def test_side_branch_base_radius_is_capped_by_the_parent():
    sk = y_fork()
    radii = sk.radii.copy()
    radii[4] = 0.5  # branch thicker than the node it starts from (0.2)
    m = tree_mesh.tree_mesh(make_skeleton(sk.positions, sk.parents, radii, orders=sk.orders), sides=6)
    edges, counts, _, weld = bark_edges(m)
    border = np.unique(edges[counts == 1])
    first = np.array([np.flatnonzero(weld == b)[0] for b in border])
    np.testing.assert_allclose(np.linalg.norm(m.vertices[first] - sk.positions[2], axis=1), 0.2, rtol=1e-5)


@pytest.mark.parametrize("uv_scale", [1.0, 2.5])
def test_v_is_length_over_base_circumference_and_continues_into_branches(uv_scale):
    sk = y_fork()
    sides = 6
    w = sides + 1
    m = tree_mesh.tree_mesh(sk, sides=sides, uv_scale=uv_scale)
    v = m.uvs[:, 1].astype(np.float64)
    trunk_v = v[np.arange(4) * w]
    np.testing.assert_allclose(trunk_v, np.arange(4) / (2 * math.pi * 0.3) * uv_scale, rtol=1e-6)
    # each ring has one v; u runs 0..1 around it
    rings = m.uvs[: 7 * w].reshape(7, w, 2)
    assert (rings[..., 1] == rings[..., :1, 1]).all()
    np.testing.assert_allclose(rings[0, :, 0], np.arange(w) / sides)
    # rings of all chains come first (trunk, then branch), apexes after; the branch starts at v of node 2
    branch = rings[4:, 0, 1].astype(np.float64)
    assert branch[0] == pytest.approx(trunk_v[2], rel=1e-6)
    seg = np.linalg.norm(np.diff(sk.positions[[2, 4, 5]], axis=0), axis=1)
    np.testing.assert_allclose(np.diff(branch), seg / (2 * math.pi * 0.1) * uv_scale, rtol=1e-5)
    # apexes continue v beyond their last ring
    apex = m.uvs[7 * w :]
    assert (apex[:, 1] > np.array([trunk_v[3], branch[-1]])).all()


def test_frames_do_not_twist_when_the_turtle_rolls():
    n = 8
    roll = np.radians(40) * np.arange(n)
    ups = np.column_stack([np.sin(roll), -np.cos(roll), np.zeros(n)])
    m = tree_mesh.tree_mesh(trunk(n, ups=ups), sides=5)
    column0 = m.vertices[: n * 6].reshape(n, 6, 3)[:, 0, :2]
    np.testing.assert_allclose(_unit(column0), np.tile([0.0, -1.0], (n, 1)), atol=1e-6)


def test_frames_are_parallel_transported_around_a_bend():
    # an arc in the XZ plane: the frame vector starting along -Y stays along -Y (it never rotates)
    n = 10
    a = np.linspace(0, np.pi / 2, n)
    positions = np.column_stack([1 - np.cos(a), np.zeros(n), np.sin(a)])
    ups = np.tile([0.0, -1.0, 0.0], (n, 1))
    m = tree_mesh.tree_mesh(make_skeleton(positions, np.arange(-1, n - 1), np.full(n, 0.05), ups=ups), sides=4)
    rings = m.vertices[: n * 5].reshape(n, 5, 3).astype(np.float64)
    np.testing.assert_allclose(_unit(rings[:, 0] - positions), np.tile([0.0, -1.0, 0.0], (n, 1)), atol=1e-5)
    # interior ring planes bisect the two segments: centred on the node, across the mean direction
    d = _unit(np.diff(positions, axis=0))
    bis = _unit(d[:-1] + d[1:])
    offsets = rings[1:-1] - positions[1:-1, None]
    np.testing.assert_allclose(np.einsum("rjk,rk->rj", offsets, bis), 0.0, atol=1e-6)


def test_min_radius_prunes_chains_and_the_branches_beyond():
    sk = y_fork()  # radii 0.3 0.25 0.2 0.15 | 0.1 0.06
    sides = 5
    w = sides + 1
    m = tree_mesh.tree_mesh(sk, sides=sides, min_radius=0.12)
    check_mesh(m)
    assert m.n_vertices == 4 * w + 1  # the trunk only, all its rings above 0.12
    m = tree_mesh.tree_mesh(sk, sides=sides, min_radius=0.2)
    assert m.n_vertices == 2 * w + 1  # rings at nodes 0, 1; tip at node 1
    np.testing.assert_allclose(m.vertices[-1], sk.positions[1] + [0, 0, 0.25], atol=1e-6)
    check_manifold(m, 0, sides)
    assert tree_mesh.tree_mesh(sk, min_radius=0.3).n_vertices == 0


def test_tiny_radii_are_clamped_not_collapsed():
    m = tree_mesh.tree_mesh(trunk(4, radii=np.zeros(4)), sides=4)
    check_mesh(m)
    r = np.hypot(m.vertices[:-1, 0], m.vertices[:-1, 1])
    np.testing.assert_allclose(r, _tube.RADIUS_FLOOR, rtol=1e-3)


def test_simplify_angle_keeps_bends_ends_and_branch_points():
    # straight trunk of 8 segments: only its two ends stay
    m = tree_mesh.tree_mesh(trunk(9), sides=4, simplify_angle=5.0)
    assert m.n_vertices == 2 * 5 + 1
    # a 30 degree kink at node 4: kept; the straight runs either side are dropped
    positions = np.zeros((9, 3))
    positions[:5, 2] = np.arange(5)
    kink = np.array([math.sin(math.radians(30)), 0, math.cos(math.radians(30))])
    positions[5:] = positions[4] + np.arange(1, 5)[:, None] * kink
    sk = make_skeleton(positions, np.arange(-1, 8), np.full(9, 0.1))
    m = tree_mesh.tree_mesh(sk, sides=4, simplify_angle=10.0)
    check_mesh(m)
    centres = m.vertices[:-1].reshape(-1, 5, 3)[:, :4].mean(axis=1)
    np.testing.assert_allclose(centres, positions[[0, 4, 8]], atol=1e-5)
    assert tree_mesh.tree_mesh(sk, sides=4, simplify_angle=40.0).n_vertices == 2 * 5 + 1
    # a fork keeps the parent ring where its branch starts
    m = tree_mesh.tree_mesh(y_fork(), sides=4, simplify_angle=30.0)
    check_mesh(m)
    check_manifold(m, 1, 4)
    assert m.n_vertices == (3 + 2) * 5 + 2  # trunk rings at nodes 0, 2, 3; the straight branch: 2
    # pruning the branch frees node 2
    assert tree_mesh.tree_mesh(y_fork(), sides=4, simplify_angle=30.0, min_radius=0.11).n_vertices == 2 * 5 + 1


def test_gentle_arc_keeps_a_ring_per_simplify_angle_of_turning():
    n = 91  # 90 degrees in 1-degree steps
    a = np.radians(np.arange(n))
    positions = np.column_stack([1 - np.cos(a), np.zeros(n), np.sin(a)]) * 10
    sk = make_skeleton(positions, np.arange(-1, n - 1), np.full(n, 0.05))
    rings = (tree_mesh.tree_mesh(sk, sides=4, simplify_angle=15.0).n_vertices - 1) // 5
    assert 6 <= rings <= 8  # 90 / 15 = 6 spans, plus the ends


def test_zero_length_segments_are_merged():
    positions = [[0, 0, 0], [0, 0, 1], [0, 0, 1], [0, 0, 2]]
    m = tree_mesh.tree_mesh(make_skeleton(positions, [-1, 0, 1, 2], [0.2, 0.2, 0.2, 0.2]), sides=4)
    check_mesh(m)
    assert m.n_vertices == 3 * 5 + 1


# --- leaves ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape, k, t", [("leaf", 6, 4), ("card", 4, 2), ("diamond", 4, 2)])
def test_leaf_cards_geometry(shape, k, t):
    rng = np.random.default_rng(3)
    base = trunk(3)
    spots = rng.normal(0, 1, (12, 3))
    cards = leaf_cards(spots, rng, size=0.2)
    sk = make_skeleton(base.positions, base.parents, base.radii, leaves=cards)
    bark = tree_mesh.tree_mesh(base, sides=6)
    m = tree_mesh.tree_mesh(sk, sides=6, leaf_shape=shape, leaf_width=0.4)
    check_mesh(m)
    assert m.n_vertices == bark.n_vertices + 12 * k
    assert m.n_triangles == bark.n_triangles + 12 * t
    assert (m.materials[bark.n_triangles :] == LEAVES).all() and (m.materials[: bark.n_triangles] == BARK).all()
    v = m.vertices[bark.n_vertices :].reshape(12, k, 3).astype(np.float64)
    uv = m.uvs[bark.n_vertices :].reshape(12, k, 2)
    nrm = m.normals[bark.n_vertices :].reshape(12, k, 3)
    assert (uv >= 0).all() and (uv <= 1).all()
    np.testing.assert_allclose(nrm, np.repeat(cards.ups[:, None], k, 1), atol=1e-6)
    rel = v - spots[:, None]
    np.testing.assert_allclose(np.einsum("ijk,ik->ij", rel, cards.ups), 0, atol=1e-6)  # flat, facing up
    along = np.einsum("ijk,ik->ij", rel, cards.headings)
    across = np.einsum("ijk,ik->ij", rel, np.cross(cards.headings, cards.ups))
    np.testing.assert_allclose(along, 0.2 * uv[..., 1], atol=1e-6)
    np.testing.assert_allclose(across, 0.2 * 0.4 * (uv[..., 0] - 0.5), atol=1e-6)
    # triangles face the leaf's up (single-sided, counter-clockwise seen from up)
    tri = m.vertices.astype(np.float64)[m.indices[m.materials == LEAVES].astype(np.int64)]
    face = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    assert (np.einsum("ij,ij->i", face, np.repeat(cards.ups, t, 0)) > 0).all()


def test_leaf_cards_that_cannot_be_drawn_are_dropped():
    cards = LeafCards(
        positions=np.zeros((3, 3)),
        headings=np.array([[0, 0, 1.0], [0, 0, 1], [0, 0, 0]]),
        ups=np.array([[0, 1.0, 0], [0, 0, 1], [0, 1, 0]]),
        sizes=np.full(3, 0.1),
        orders=np.zeros(3, np.int16),
    )
    m = tree_mesh.tree_mesh(
        make_skeleton(np.zeros((0, 3)), np.zeros(0, np.int64), np.zeros(0), leaves=cards), leaf_shape="card"
    )
    assert m.n_triangles == 2  # up parallel to heading, zero heading: dropped


def test_polygons_are_fanned_facing_their_newell_normal():
    hexagon = np.array([[0, 0, 0], [0.2, 0.1, 0], [0.3, 0.4, 0], [0, 0.6, 0], [-0.3, 0.4, 0], [-0.2, 0.1, 0]])
    tilted = hexagon @ np.array([[1, 0, 0], [0, 0.6, 0.8], [0, -0.8, 0.6]]) + [1, 2, 3]
    polygons = [
        Polygon(tilted),
        Polygon(np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0.0]])),  # collinear: dropped
        Polygon(np.array([[5, 0, 0], [6, 0, 0], [6, 0, 0], [6, 1, 0], [5, 0, 0.0]])),
    ]  # repeats: a triangle
    sk = make_skeleton(np.zeros((0, 3)), np.zeros(0, np.int64), np.zeros(0), polygons=polygons)
    m = tree_mesh.tree_mesh(sk)
    check_mesh(m)
    assert m.n_triangles == 4 + 1 and m.n_vertices == 6 + 3
    assert (m.materials == LEAVES).all()
    n = _unit(np.cross(tilted[1] - tilted[0], tilted[2] - tilted[0]))
    np.testing.assert_allclose(m.normals[:6], np.tile(n, (6, 1)), atol=1e-6)
    np.testing.assert_allclose(m.vertices[:6], tilted, atol=1e-6)
    face = np.cross(
        *(np.diff(m.vertices.astype(np.float64)[m.indices[:4].astype(np.int64)], axis=1).transpose(1, 0, 2))
    )
    assert (face @ n > 0).all()
    uv = m.uvs[:6]
    assert (uv >= 0).all() and (uv <= 1).all()
    assert np.ptp(uv, axis=0).max() == pytest.approx(1.0)
    # u, v preserve the hexagon's shape (a similarity of its plane coordinates)
    d_uv = np.linalg.norm(uv[:, None] - uv[None], axis=2)
    d_xyz = np.linalg.norm(tilted[:, None] - tilted[None], axis=2)
    np.testing.assert_allclose(d_uv * (d_xyz.max() / d_uv.max()), d_xyz, atol=1e-5)


def test_keep_leaves_is_a_seeded_nested_subset_with_bigger_leaves():
    rng = np.random.default_rng(5)
    spots = rng.normal(0, 2, (200, 3))
    cards = leaf_cards(spots, rng, size=0.1)
    sk = make_skeleton(np.zeros((0, 3)), np.zeros(0, np.int64), np.zeros(0), leaves=cards)

    def attached(m):
        base = m.vertices[0::4].astype(np.float64)  # "card": vertex 0 of each card is (u, v) = (0, 0)
        top = m.vertices[3::4].astype(np.float64)  # (0, 1): one leaf length along the heading
        return base, np.linalg.norm(top - base, axis=1)

    a = tree_mesh.tree_mesh(sk, leaf_shape="card", keep_leaves=0.5, seed=11)
    b = tree_mesh.tree_mesh(sk, leaf_shape="card", keep_leaves=0.5, seed=11)
    c = tree_mesh.tree_mesh(sk, leaf_shape="card", keep_leaves=0.5, seed=12)
    small = tree_mesh.tree_mesh(sk, leaf_shape="card", keep_leaves=0.2, seed=11)
    assert a.vertices.tobytes() == b.vertices.tobytes() and a.indices.tobytes() == b.indices.tobytes()
    assert a.vertices.tobytes() != c.vertices.tobytes()
    assert a.n_triangles == 2 * 100 and small.n_triangles == 2 * 40
    keys = {}
    for name, m, keep in (("a", a, 0.5), ("small", small, 0.2)):
        base, length = attached(m)
        np.testing.assert_allclose(length, 0.1 / math.sqrt(keep), rtol=1e-5)
        # each kept card is attached to one of the original spots (the centre of the card's base edge)
        mid = (m.vertices[0::4].astype(np.float64) + m.vertices[1::4]) / 2
        hit = np.linalg.norm(mid[:, None] - spots[None], axis=2).argmin(axis=1)
        np.testing.assert_allclose(mid, spots[hit], atol=1e-5)
        keys[name] = set(hit.tolist())
    assert keys["small"] < keys["a"]
    assert tree_mesh.tree_mesh(sk, keep_leaves=0.0).n_triangles == 0


def test_keep_leaves_thins_and_grows_polygons_too():
    rng = np.random.default_rng(8)
    triangle = np.array([[0, 0, 0], [0.1, 0, 0.02], [0, 0.1, 0.05]])
    offsets = rng.normal(0, 3, (100, 3))
    sk = make_skeleton(
        np.zeros((0, 3)), np.zeros(0, np.int64), np.zeros(0), polygons=[Polygon(triangle + o) for o in offsets]
    )
    m = tree_mesh.tree_mesh(sk, keep_leaves=0.25, seed=3)
    assert m.n_triangles == 25 and (m.materials == LEAVES).all()
    v = m.vertices.reshape(25, 3, 3).astype(np.float64)
    hit = np.linalg.norm(v[:, 0, None] - offsets[None], axis=2).argmin(axis=1)
    np.testing.assert_allclose(v[:, 0], offsets[hit], atol=1e-5)  # scaled about the first vertex
    np.testing.assert_allclose(v - v[:, :1], np.broadcast_to(triangle * 2, (25, 3, 3)), atol=1e-5)


def test_too_many_vertices_are_refused_before_building(monkeypatch):
    monkeypatch.setattr(_tree_parts, "MAX_VERTICES", 100)  # where the mesh builder reads it
    with pytest.raises(ParameterError, match="vertices"):
        tree_mesh.tree_mesh(trunk(20), sides=8)
    assert tree_mesh.tree_mesh(trunk(5), sides=3).n_vertices == 5 * 4 + 1


# --- billboard ------------------------------------------------------------------------------------


@pytest.mark.parametrize("planes", [1, 2, 3])
def test_billboard_covers_the_bounds_from_both_sides(planes):
    rng = np.random.default_rng(0)
    points = rng.normal(0, 1, (500, 3)) * [2, 1, 3] + [5, -1, 4]
    b = billboard_mesh(points.astype(np.float32), planes=planes)
    check_mesh(b)
    assert b.n_vertices == 8 * planes and b.n_triangles == 4 * planes
    assert (b.materials == BILLBOARD).all()
    lo, hi = points.min(axis=0), points.max(axis=0)
    np.testing.assert_allclose([b.vertices[:, 2].min(), b.vertices[:, 2].max()], [lo[2], hi[2]], rtol=1e-6)
    width = max(hi[0] - lo[0], hi[1] - lo[1])
    centre = (lo + hi)[:2] / 2
    quads = b.vertices.reshape(planes, 8, 3).astype(np.float64)
    for q in quads:
        np.testing.assert_allclose(np.linalg.norm(q[1, :2] - q[0, :2]), width, rtol=1e-5)
        np.testing.assert_allclose((q[0, :2] + q[1, :2]) / 2, centre, atol=1e-5)
        np.testing.assert_array_equal(q[:4], q[4:])
    assert (b.uvs >= 0).all() and (b.uvs <= 1).all()
    # front and back faces: the triangle windings agree with the normals, and both directions are present
    tri = b.vertices.astype(np.float64)[b.indices.astype(np.int64)]
    face = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    corner = b.normals[b.indices.astype(np.int64)][:, 0]
    assert (np.einsum("ij,ij->i", face, corner) > 0).all()
    np.testing.assert_allclose(b.normals[0::8], -b.normals[4::8])
    assert np.abs(b.normals[:, 2]).max() == 0


def test_billboard_checks_its_input():
    with pytest.raises(ParameterError, match="vertices"):
        billboard_mesh(np.zeros((0, 3)))
    with pytest.raises(ParameterError, match="vertices"):
        billboard_mesh([[0, 0, 0], [0, 0, 1]])
    with pytest.raises(ParameterError, match="planes"):
        billboard_mesh([[0, 0, 0], [1, 1, 1]], planes=0)


# --- index dtype ----------------------------------------------------------------------------------


def test_index_dtype_switches_with_the_vertex_count():
    small = tree_mesh.tree_mesh(trunk(50), sides=8)
    assert small.n_vertices < 65_536 and small.indices.dtype == np.uint16
    big = tree_mesh.tree_mesh(trunk(1100, length=0.1), sides=64)
    assert big.n_vertices == 1100 * 65 + 1 and big.indices.dtype == np.uint32
    assert int(big.indices.max()) == big.n_vertices - 1
    check_mesh(big)


# --- random skeletons -----------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**31),
    st.integers(2, 60),
    st.integers(3, 9),
    st.sampled_from(["leaf", "card", "diamond"]),
    st.sampled_from([0.0, 0.1, 0.2]),
    st.sampled_from([0.0, 10.0, 45.0]),
    st.sampled_from([1.0, 0.5]),
)
def test_random_skeletons_give_valid_meshes(seed, n, sides, shape, min_radius, angle, keep):
    sk = random_tree(seed, n)
    m = tree_mesh.tree_mesh(
        sk, sides=sides, leaf_shape=shape, min_radius=min_radius, simplify_angle=angle, keep_leaves=keep, seed=seed
    )
    check_mesh(m)
    _, counts, directed, _ = bark_edges(m)
    assert set(np.unique(counts)) <= {1, 2}
    assert np.unique(directed, axis=0).shape[0] == directed.shape[0]
    if min_radius == 0.0:
        check_manifold(m, side_branch_count(sk), sides)
        assert (m.materials == BARK).sum() > 0 or sk.n_segments == 0
    # v grows along every chain: wound outward, a tube or tip triangle lists its base-side corners first
    v = m.uvs[m.indices[m.materials == BARK].astype(np.int64), 1]
    flat = v[:, 0] == v[:, 2]
    assert ((v[:, 0] <= v[:, 1]) & (v[:, 1] <= v[:, 2]) & ~flat | flat & (v[:, 1] == v[:, 0])).all()
    roots = np.count_nonzero((sk.parents < 0) & np.isin(np.arange(sk.n_nodes), sk.parents))
    if min_radius == 0.0 and angle == 0.0:
        assert np.count_nonzero(flat) <= roots * (sides - 2)
