"""Shared helpers for the tests beside this file (not collected: the name does not start with test_)."""

import numpy as np

from worldseed.core.trees import _tube
from worldseed.core.trees.skeleton import LeafCards, Skeleton
from worldseed.core.trees.tree_mesh import BARK

# --- skeletons built by hand --------------------------------------------------------------------


def _unit(a):
    a = np.asarray(a, np.float64)
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


def _perp(h, rng=None):
    """A unit vector orthogonal to each heading (random about it when ``rng`` is given)."""
    helper = np.where(np.abs(h[:, 2:3]) < 0.9, [0.0, 0.0, 1.0], [1.0, 0.0, 0.0])
    if rng is not None:
        helper = helper + rng.normal(0, 1, h.shape)
    u = helper - np.sum(helper * h, 1, keepdims=True) * h
    return _unit(u)


def make_skeleton(positions, parents, radii, *, orders=None, ups=None, leaves=None, polygons=()):
    positions = np.asarray(positions, np.float64)
    parents = np.asarray(parents, np.int64)
    n = len(positions)
    headings = np.tile([0.0, 0.0, 1.0], (n, 1))
    drawn = parents >= 0
    step = positions[drawn] - positions[parents[drawn]]
    length = np.linalg.norm(step, axis=1, keepdims=True)
    headings[drawn] = np.where(length > 0, step / np.maximum(length, 1e-300), [0.0, 0.0, 1.0])
    if orders is None:
        orders = np.zeros(n, np.int16)
    if ups is None:
        ups = _perp(headings)
    return Skeleton(
        positions=positions,
        headings=headings,
        ups=np.asarray(ups, np.float64),
        radii=np.asarray(radii, np.float64),
        parents=parents,
        orders=np.asarray(orders, np.int16),
        leaves=LeafCards.empty() if leaves is None else leaves,
        polygons=tuple(polygons),
    )


def trunk(n=5, *, length=1.0, radii=None, ups=None):
    z = np.arange(n) * length
    return make_skeleton(
        np.column_stack([np.zeros(n), np.zeros(n), z]),
        np.arange(-1, n - 1),
        np.linspace(0.3, 0.1, n) if radii is None else radii,
        ups=ups,
    )


def y_fork():
    """Trunk 0-1-2-3 up Z; a side branch 4-5 (order 1) from node 2 toward +X."""
    positions = [[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3], [0.7, 0.1, 2.7], [1.4, 0.2, 3.4]]
    return make_skeleton(positions, [-1, 0, 1, 2, 2, 4], [0.3, 0.25, 0.2, 0.15, 0.1, 0.06], orders=[0, 0, 0, 0, 1, 1])


def leaf_cards(positions, rng, size=0.1):
    positions = np.asarray(positions, np.float64)
    n = len(positions)
    headings = _unit(rng.normal(0, 1, (n, 3)) + [0, 0, 0.5])
    return LeafCards(
        positions=positions,
        headings=headings,
        ups=_perp(headings, rng),
        sizes=np.full(n, size),
        orders=np.zeros(n, np.int16),
    )


def random_tree(seed, n=40, *, leaves=True):
    """Nodes attached to random earlier parents; leaves at the tips."""
    rng = np.random.default_rng(seed)
    parents = np.full(n, -1)
    parents[1:] = [rng.integers(0, i) for i in range(1, n)]
    roots = rng.random(n) < 0.03
    roots[0] = True
    parents[roots] = -1
    positions = np.zeros((n, 3))
    radii = np.zeros(n)
    orders = np.zeros(n, np.int16)
    radii[0] = 0.3
    for i in range(1, n):
        if parents[i] < 0:
            positions[i] = rng.normal(0, 3, 3)
            radii[i] = rng.uniform(0.05, 0.3)
            continue
        p = parents[i]
        d = _unit(rng.normal(0, 1, 3) + [0, 0, 1.0])
        positions[i] = positions[p] + d * rng.uniform(0.2, 1.0)
        radii[i] = radii[p] * rng.uniform(0.6, 1.0)
        orders[i] = orders[p] + (rng.random() < 0.5)
    tips = np.setdiff1d(np.arange(n), parents)
    cards = leaf_cards(positions[tips], rng) if leaves else None
    return make_skeleton(
        positions, parents, radii, orders=orders, ups=_perp(np.tile([0.0, 0, 1], (n, 1)), rng), leaves=cards
    )


def grown_tree(seed=0, *, trunk_segments=16, depth=3, fork=0.55, leaves=True):
    """A plausible tree: tapering, gently bending branches of decreasing order; leaves on the twigs."""
    rng = np.random.default_rng(seed)
    pos, par, rad, order, ups = [np.zeros(3)], [-1], [0.25], [0], [np.array([0.0, -1.0, 0.0])]
    spots, leaf_dirs = [], []
    todo = [(0, np.array([0.0, 0.0, 1.0]), 0.25, 0, trunk_segments, 0.4)]
    while todo:
        node, d, r0, o, segments, step = todo.pop()
        for k in range(segments):
            d = _unit(d + rng.normal(0, 0.1, 3) + [0, 0, 0.04])
            pos.append(pos[node] + step * d)
            par.append(node)
            rad.append(r0 * (1 - 0.85 * (k + 1) / segments))
            order.append(o)
            ups.append(_perp(d[None])[0])
            node = len(pos) - 1
            if o < depth and k < segments - 1 and rng.random() < fork:
                side = _unit(d + 1.2 * _perp(d[None], rng)[0])
                todo.append((node, side, rad[-1] * 0.6, o + 1, max(2, int(segments * 0.6)), step * 0.8))
            if leaves and o >= depth - 1:
                for _ in range(2):
                    spots.append(pos[node])
                    leaf_dirs.append(d)
    cards = None
    if spots:
        cards = leaf_cards(np.array(spots), rng, size=0.15)
    return make_skeleton(np.array(pos), par, rad, orders=order, ups=np.array(ups), leaves=cards)


# --- mesh checks --------------------------------------------------------------------------------


def triangle_areas(m):
    tri = m.vertices.astype(np.float64)[m.indices.astype(np.int64)]
    return np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1) / 2


def tubes(m):
    """Bark triangles, and the tube (connected component) of every vertex (-1 off the bark)."""
    tri = m.indices[m.materials == BARK].astype(np.int64)
    label = np.full(m.n_vertices, -1)
    label[tri.ravel()] = tri.ravel()
    while True:  # min-label propagation with pointer jumping
        low = label[tri].min(axis=1)
        new = label.copy()
        np.minimum.at(new, tri.ravel(), np.repeat(low, 3))
        new[new >= 0] = new[new[new >= 0]]
        if np.array_equal(new, label):
            return tri, label
        label = new


def check_mesh(m):
    """The invariants every tree mesh keeps.

    Duplicate positions are checked within each bark tube (only its seam column may repeat); different
    tubes may touch where branches meet, and leaves may share their attachment point.
    """
    n = m.n_vertices
    assert m.indices.dtype == (np.uint16 if n <= 65_535 else np.uint32)
    assert m.materials is not None and m.materials.shape == (m.n_triangles,)
    if m.n_triangles:
        assert int(m.indices.max()) < n
        assert (triangle_areas(m) > 0).all(), "degenerate triangle"
    assert np.isfinite(m.vertices).all() and np.isfinite(m.uvs).all()
    np.testing.assert_allclose(np.linalg.norm(m.normals, axis=1), 1.0, atol=1e-5)
    used = np.zeros(n, bool)
    used[m.indices.ravel()] = True
    assert used.all(), "unused vertex"
    _, label = tubes(m)
    bark = np.flatnonzero(label >= 0)
    keys = np.column_stack([label[bark], (m.vertices[bark] + np.float32(0)).view(np.int32)])  # -0.0 -> 0.0
    _, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    dup = np.flatnonzero(counts[inverse] > 1)
    if dup.size:
        assert counts.max() == 2
        order = bark[dup[np.argsort(inverse[dup], kind="stable")]]
        a, b = order[0::2], order[1::2]
        np.testing.assert_array_equal(
            np.sort(np.stack([m.uvs[a, 0], m.uvs[b, 0]], 1), 1), np.tile([0.0, 1.0], (a.size, 1))
        )
        np.testing.assert_array_equal(m.uvs[a, 1], m.uvs[b, 1])


def bark_edges(m):
    """Bark edges with the seam columns welded within each tube: undirected edges, the number of
    triangles using each, the directed edges, and the welded id of every vertex."""
    tri, label = tubes(m)
    keys = np.column_stack([label, (m.vertices + np.float32(0)).view(np.int32)])
    _, weld = np.unique(keys, axis=0, return_inverse=True)
    tri = weld.ravel()[tri]
    directed = tri[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    undirected = np.sort(directed, axis=1)
    edges, counts = np.unique(undirected, axis=0, return_counts=True)
    return edges, counts, directed, weld.ravel()


def check_manifold(m, n_side_branches, sides):
    """Every bark edge in two triangles (opposite directions) but the base rings of side branches (one)."""
    edges, counts, directed, _ = bark_edges(m)
    assert set(np.unique(counts)) <= {1, 2}
    assert np.count_nonzero(counts == 1) == n_side_branches * sides
    # consistent winding: no directed edge twice
    assert np.unique(directed, axis=0).shape[0] == directed.shape[0]


def signed_volume(m):
    tri = m.vertices.astype(np.float64)[m.indices[m.materials == BARK].astype(np.int64)]
    return np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum() / 6


def side_branch_count(sk, min_radius=0.0):
    head, side = _tube.chain_heads(sk.parents, sk.orders)
    return int(np.count_nonzero(side))
