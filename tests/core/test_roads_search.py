"""The least-cost search against a textbook Dijkstra (heapq) on the same cost graph, and its costs."""

import heapq

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import roads
from worldseed.core.errors import ParameterError


def reference_dijkstra(n, u, v, w, source):
    """Plain Dijkstra with a binary heap over an edge list (the reference)."""
    order = np.argsort(u, kind="stable")
    u, v, w = u[order], v[order], w[order].astype(np.float64)
    start = np.searchsorted(u, np.arange(n + 1))
    dist = np.full(n, np.inf)
    dist[source] = 0.0
    heap = [(0.0, source)]
    done = np.zeros(n, bool)
    while heap:
        d, x = heapq.heappop(heap)
        if done[x]:
            continue
        done[x] = True
        for k in range(start[x], start[x + 1]):
            y, nd = int(v[k]), d + w[k]
            if nd < dist[y]:
                dist[y] = nd
                heapq.heappush(heap, (nd, y))
    return dist


def _terrain(seed, rows, cols, relief):
    rng = np.random.default_rng(seed)
    h = rng.normal(0.0, 1.0, (rows, cols)).cumsum(axis=0).cumsum(axis=1)
    h = (h - h.min()) / max(np.ptp(h), 1e-9) * relief
    water = np.zeros((rows, cols), bool)
    water[rows // 2, :] = rng.random(cols) < 0.7
    return h, water


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    directions=st.sampled_from([16, 32]),
    relief=st.floats(1.0, 15.0),
    grade=st.floats(0.1, 0.5),
)
def test_the_path_cost_equals_a_reference_dijkstra(seed, directions, relief, grade):
    h, water = _terrain(seed, 30, 40, relief)
    g = roads.build_graph(h, cell_size=2.0, max_grade=grade, directions=directions, water=water, bridge_cost=5.0)
    u, v, w = g.edges()
    src, dst = (1, 2), (27, 36)
    ref = reference_dijkstra(h.size, u, v, w, src[0] * 40 + src[1])
    dist, move, _ = roads.search(g, [g.index(*src)], goal=g.index(*dst))
    want = ref[dst[0] * 40 + dst[1]]
    got = dist[g.index(*dst)]
    if not np.isfinite(want):
        assert not np.isfinite(got)
        return
    assert abs(got - want) <= 0.01 * want  # the 1 %; in fact equal to rounding:
    assert got == pytest.approx(want, rel=1e-12)
    # the traced path is a real path of that cost, move by move
    path = roads.trace(g, move, g.index(*dst))
    ks = move[path[1:]]
    assert np.array_equal(path[1:] - path[:-1], g.offsets[ks])
    cost = 0.0
    for a, k in zip(path[:-1].tolist(), ks.tolist()):
        cost += float(g.weights[a, k])
    assert cost == pytest.approx(got, rel=1e-12)


def test_every_distance_equals_the_reference_whatever_the_bucket_width():
    h, water = _terrain(7, 24, 28, 12.0)
    g = roads.build_graph(h, cell_size=1.5, max_grade=0.3, water=water)
    u, v, w = g.edges()
    ref = reference_dijkstra(h.size, u, v, w, 0)
    rows, cols = np.divmod(np.arange(h.size), 28)
    cells = g.index(rows, cols)
    for delta in (0.5, 4.0, 50.0, 1e9):
        dist, _, _ = roads.search(g, [g.index(0, 0)], delta=delta)
        assert np.allclose(dist[cells], ref, rtol=1e-12, equal_nan=False)
        assert np.array_equal(np.isinf(dist[cells]), np.isinf(ref))


def test_the_moves_are_16_or_32_directions_and_cross_no_water_unseen():
    assert len(roads.MOVES[16]) == 16 and len(roads.MOVES[32]) == 32
    # a diagonal river: no move gets across it without touching a water cell
    h = np.zeros((20, 20))
    water = np.eye(20, dtype=bool)[::-1]
    blocked = water.copy()
    for directions in (16, 32):
        g = roads.build_graph(h, cell_size=1.0, max_grade=0.1, directions=directions, blocked=blocked)
        dist, _, _ = roads.search(g, [g.index(0, 0)])
        assert not np.isfinite(dist[g.index(19, 19)])


def test_steep_moves_are_forbidden_and_grade_costs_more():
    h = np.tile(np.arange(10, dtype=np.float64) * 0.5, (10, 1))  # 50 % grade along x
    g = roads.build_graph(h, cell_size=1.0, max_grade=0.3, directions=16)
    right = list(map(tuple, roads.MOVES[16])).index((0, 1))
    down = list(map(tuple, roads.MOVES[16])).index((1, 0))
    cell = g.index(5, 5)
    assert np.isinf(g.weights[cell, right])
    assert g.weights[cell, down] == pytest.approx(1.0)
    flat = roads.build_graph(np.zeros((10, 10)), cell_size=1.0, max_grade=0.3)
    tilted = roads.build_graph(h * 0.2, cell_size=1.0, max_grade=0.3)  # 10 %
    assert tilted.weights[cell, right] > flat.weights[cell, right]


def test_bad_graph_arguments_name_themselves():
    with pytest.raises(ParameterError, match="directions must be 16 or 32, got 8"):
        roads.build_graph(np.zeros((4, 4)), cell_size=1.0, max_grade=0.1, directions=8)
    with pytest.raises(ParameterError, match="max_grade"):
        roads.build_graph(np.zeros((4, 4)), cell_size=1.0, max_grade=0.0)
