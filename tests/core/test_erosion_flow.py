"""Pit filling and flow accumulation against a plain-Python priority-flood + D8 reference."""

import heapq
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core.erosion import fill_pits, flow_accumulation
from worldseed.core.erosion._flow import DEFAULT_EPSILON, NEIGHBOURS, drains, flow_receivers, pits, receivers
from worldseed.core.errors import ParameterError

WEIGHTS = [1.0 if dy == 0 or dx == 0 else 1.0 / math.sqrt(2.0) for dy, dx in NEIGHBOURS]


def reference_fill(h, eps):
    """Priority-flood (+ epsilon), one cell at a time with heapq: F(n) = max(h(n), F(c) + eps)."""
    rows, cols = len(h), len(h[0])
    F = [[None] * cols for _ in range(rows)]
    heap = []
    for r in range(rows):
        for c in range(cols):
            if r in (0, rows - 1) or c in (0, cols - 1):
                F[r][c] = h[r][c]
                heap.append((h[r][c], r, c))
    heapq.heapify(heap)
    while heap:
        value, r, c = heapq.heappop(heap)
        for dy, dx in NEIGHBOURS:
            y, x = r + dy, c + dx
            if 0 <= y < rows and 0 <= x < cols and F[y][x] is None:
                F[y][x] = max(h[y][x], value + eps)
                heapq.heappush(heap, (F[y][x], y, x))
    return F


def reference_receivers(F):
    """D8: the steepest strictly lower neighbour (drop * weight), first in NEIGHBOURS on ties; on a flat the first
    equal neighbour of the four before the cell in raster order; the border is not in the dict."""
    rows, cols = len(F), len(F[0])
    rec = {}
    for r in range(1, rows - 1):
        for c in range(1, cols - 1):
            best, to = 0.0, (r, c)
            for (dy, dx), w in zip(NEIGHBOURS, WEIGHTS, strict=True):
                s = (F[r][c] - F[r + dy][c + dx]) * w
                if s > best:
                    best, to = s, (r + dy, c + dx)
            if best == 0.0:  # no lower neighbour: the first equal one among those before it in raster order
                for dy, dx in NEIGHBOURS[:4]:
                    if F[r + dy][c + dx] == F[r][c]:
                        to = (r + dy, c + dx)
                        break
            rec[(r, c)] = to
    return rec


def reference_routing(h):
    """Where each cell sends its water: D8, and each pit's basin out over its lowest pass.

    Basins (cells whose D8 path ends in the same pit) are flooded from the edge in order of
    water level with heapq, like priority-flood; a basin's pass is the pair of neighbouring
    cells through which it was reached, and the D8 path from its inner cell down to the pit
    is turned around.
    """
    rows, cols = len(h), len(h[0])
    rec = reference_receivers(h)
    pit_list = sorted(cell for cell, to in rec.items() if to == cell)
    pit_id = {cell: i + 1 for i, cell in enumerate(pit_list)}
    basin = {}
    for r in range(rows):
        for c in range(cols):
            cell = (r, c)
            while cell in rec and rec[cell] != cell:
                cell = rec[cell]
            basin[(r, c)] = pit_id.get(cell, 0)
    best = {}  # (lower basin, higher basin) -> (spill, cell in lower, cell in higher)
    for r in range(rows):
        for c in range(cols):
            for dy, dx in NEIGHBOURS:
                y, x = r + dy, c + dx
                if 0 <= y < rows and 0 <= x < cols and basin[(r, c)] < basin[(y, x)]:
                    a, b = r * cols + c, y * cols + x
                    edge = (max(h[r][c], h[y][x]), a, b)
                    key = (basin[(r, c)], basin[(y, x)])
                    best[key] = min(best.get(key, edge), edge)
    links = {}
    for (lo, hi), (spill, a, b) in best.items():
        links.setdefault(lo, []).append((hi, spill, a, b))
        links.setdefault(hi, []).append((lo, spill, b, a))
    settled = {}
    heap = [(-math.inf, 0, -1, -1)]
    while heap:
        value, node, inner, outer = heapq.heappop(heap)
        if node in settled:
            continue
        settled[node] = (inner, outer)
        for other, spill, here, there in links.get(node, []):
            if other not in settled:
                heapq.heappush(heap, (max(spill, value), other, there, here))
    out = {cell: to[0] * cols + to[1] for cell, to in rec.items()}
    for node, (inner, outer) in settled.items():
        if node == 0:
            continue
        prev, cell = outer, divmod(inner, cols)
        while True:
            nxt = rec[cell]
            out[cell] = prev
            if nxt == cell:
                break
            prev, cell = cell[0] * cols + cell[1], nxt
    n = rows * cols
    return [out.get((r, c), n) for r in range(rows) for c in range(cols)]


def reference_flow(h, cell_size):
    """Accumulate down the reference routing in topological order (Kahn), one cell at a time."""
    rows, cols = len(h), len(h[0])
    n = rows * cols
    to = reference_routing(h)
    acc = [cell_size * cell_size] * n
    pending = [0] * n
    for t in to:
        if t < n:
            pending[t] += 1
    ready = [i for i in range(n) if pending[i] == 0]
    done = 0
    while ready:
        i = ready.pop()
        done += 1
        if to[i] < n:
            acc[to[i]] += acc[i]
            pending[to[i]] -= 1
            if pending[to[i]] == 0:
                ready.append(to[i])
    assert done == n, "the routing has a cycle"
    return np.array(acc).reshape(rows, cols)


def plain_d8_flow(h, cell_size):
    """D8 accumulation in order of descending height (for maps where every cell drains)."""
    rows, cols = len(h), len(h[0])
    rec = reference_receivers(h)
    acc = [[cell_size * cell_size] * cols for _ in range(rows)]
    for _, r, c in sorted(((h[r][c], r, c) for r in range(rows) for c in range(cols)), reverse=True):
        if (r, c) in rec:
            y, x = rec[(r, c)]
            assert (y, x) != (r, c)
            acc[y][x] += acc[r][c]
    return np.array(acc)


def maps(seed, shape, kind):
    rng = np.random.default_rng(seed)
    if kind == "noise":
        return rng.random(shape) * 10.0
    if kind == "integers":  # plateaus, flats and ties everywhere
        return rng.integers(0, 4, shape).astype(np.float64)
    if kind == "smooth":  # a few big pits, like terrain
        y, x = np.mgrid[0 : shape[0], 0 : shape[1]]
        return np.sin(x / 3.0) * np.cos(y / 4.0) * 5.0 + rng.random(shape) * 0.5 + 10.0
    raise AssertionError(kind)


CASES = [
    (seed, shape, kind)
    for seed in range(3)
    for shape in [(7, 9), (16, 16), (23, 11)]
    for kind in ("noise", "integers", "smooth")
]


@pytest.mark.parametrize("eps", [0.0, DEFAULT_EPSILON, 0.25])
@pytest.mark.parametrize(("seed", "shape", "kind"), CASES)
def test_fill_equals_priority_flood(seed, shape, kind, eps):
    h = maps(seed, shape, kind)
    ours = fill_pits(h, epsilon=eps)
    ref = np.array(reference_fill(h.tolist(), eps))
    assert ours.dtype == np.float64
    assert np.array_equal(ours, ref)  # bit for bit, raised and unchanged cells alike


@pytest.mark.parametrize(("seed", "shape", "kind"), CASES)
def test_flow_equals_reference(seed, shape, kind):
    h = maps(seed, shape, kind)
    # cell areas 1: every sum is an integer, so any order of summing is exact
    assert np.array_equal(flow_accumulation(h, cell_size=1.0), reference_flow(h.tolist(), 1.0))
    got = flow_accumulation(h, cell_size=2.5)
    np.testing.assert_allclose(got, reference_flow(h.tolist(), 2.5), rtol=1e-12)


def border(a):
    inner = np.zeros(a.shape, bool)
    inner[1:-1, 1:-1] = True
    return a[~inner]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 14),
    st.integers(1, 14),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["noise", "integers", "smooth"]),
    st.sampled_from([0.5, 1.0, 3.0]),
)
def test_random_maps(rows, cols, seed, kind, cell_size):
    h = maps(seed, (rows, cols), kind)
    filled = fill_pits(h)
    assert (filled >= h).all()
    assert drains(filled).all()  # every cell's steepest path reaches the edge
    ref = np.array(reference_fill(h.tolist(), DEFAULT_EPSILON))
    assert np.array_equal(filled, ref)
    acc = flow_accumulation(h, cell_size=cell_size)
    area = cell_size * cell_size
    assert acc.min() >= area
    # all water leaves across the edge: what the border cells hold is the map's area
    assert math.isclose(border(acc).sum(), h.size * area, rel_tol=1e-12)
    np.testing.assert_allclose(acc, reference_flow(h.tolist(), cell_size), rtol=1e-12)
    assert_routes_descend(h)


def assert_routes_descend(h):
    """Every route ends off the map and never climbs above the priority-flood filled surface."""
    to = flow_receivers(h)
    assert to.tolist() == reference_routing(h.tolist())
    n = h.size
    level = np.append(np.array(reference_fill(h.tolist(), 0.0)).reshape(-1), -np.inf)
    inside = to < n
    assert (level[to[inside]] <= level[:n][inside]).all()
    p = np.append(to, n)
    for _ in range(n):
        p = p[p]
    assert (p == n).all()


@pytest.mark.parametrize(("seed", "shape", "kind"), CASES)
def test_routes_descend_over_the_filled_surface(seed, shape, kind):
    assert_routes_descend(maps(seed, shape, kind))


@pytest.mark.parametrize("block", [1, 5, 37, 1 << 16])
@pytest.mark.parametrize("kind", ["noise", "integers"])
def test_receivers_equal_the_reference_in_any_blocks(block, kind, monkeypatch):
    from worldseed.core.erosion import _flow

    monkeypatch.setattr(_flow, "BLOCK", block)
    h = maps(7, (13, 17), kind)
    ref = reference_receivers(h.tolist())
    want = [ref[(r, c)][0] * 17 + ref[(r, c)][1] if (r, c) in ref else h.size for r in range(13) for c in range(17)]
    assert receivers(h).tolist() == want


@pytest.mark.parametrize("seed", range(3))
def test_many_pits_take_the_sorting_path(seed, monkeypatch):
    from worldseed.core.erosion import _flow

    h = maps(seed, (25, 19), "noise")
    dense = flow_accumulation(h, cell_size=1.0), fill_pits(h)
    monkeypatch.setattr(_flow, "_DENSE_PAIRS", 0)
    assert np.array_equal(flow_accumulation(h, cell_size=1.0), dense[0])
    assert np.array_equal(fill_pits(h), dense[1])
    assert np.array_equal(dense[1], np.array(reference_fill(h.tolist(), DEFAULT_EPSILON)))


@pytest.mark.parametrize("seed", range(4))
def test_flow_without_pits_is_plain_d8(seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:17, 0:21]
    h = x * 1.0 + y * 0.5 + rng.random((17, 21)) * 0.4  # tilted: every cell has a lower neighbour
    assert not (receivers(h) == np.arange(h.size)).any()
    np.testing.assert_array_equal(flow_accumulation(h, cell_size=1.0), plain_d8_flow(h.tolist(), 1.0))


def test_flat_fill_gives_non_ascending_paths():
    h = maps(4, (30, 30), "smooth")
    filled = fill_pits(h, epsilon=0)
    changed = filled != h
    assert changed.any()
    # unchanged cells keep their bits; raised cells sit on a flat lake at their spill height
    assert np.array_equal(filled[~changed], h[~changed])
    assert not pits(filled).any()
    # every cell has a non-ascending path to the edge: a flood from the edge over <= steps reaches all
    reach = np.zeros(h.shape, bool)
    reach[0], reach[-1], reach[:, 0], reach[:, -1] = True, True, True, True
    while True:
        grown = reach.copy()
        for dy, dx in NEIGHBOURS:
            src = np.roll(reach, (dy, dx), (0, 1))
            higher = filled >= np.roll(filled, (dy, dx), (0, 1))
            grown[1:-1, 1:-1] |= (src & higher)[1:-1, 1:-1]
        if (grown == reach).all():
            break
        reach = grown
    assert reach.all()


def test_map_without_pits_is_unchanged():
    y, x = np.mgrid[0:20, 0:30]
    h = (x * 0.7 + y * 0.3 + (x % 3) * 0.05).astype(np.float64)  # a tilted ramp: all drains already
    assert drains(h).all()
    assert np.array_equal(fill_pits(h), h)


def test_flats_drain_in_chains_back_in_raster_order():
    h = np.full((6, 7), 9.0)
    h[1:5, 1:6] = 2.0  # a flat lake bed
    h[3, 6] = 1.0  # its one way out, on the right edge
    rec = receivers(h).reshape(6, 7)
    assert rec[2, 3] == 1 * 7 + 2  # up-left: the first equal of up-left, up, up-right, left
    assert rec[2, 1] == 1 * 7 + 1  # up (up-left is the higher border)
    assert rec[1, 1] == 1 * 7 + 1  # the flat's first cell in raster order: no equal before it
    assert rec[3, 5] == 3 * 7 + 6  # strictly lower beats equal
    acc = flow_accumulation(h, cell_size=1.0)
    assert acc[3, 6] == 1 + 20  # the whole bed leaves through the gap
    np.testing.assert_array_equal(acc, reference_flow(h.tolist(), 1.0))


def test_pit_filled_to_its_spill_height():
    h = np.full((5, 5), 10.0)
    h[1:4, 1:4] = 6.0
    h[2, 2] = 1.0
    h[1, 2] = 4.0
    h[0, 2] = 3.0  # the lowest way out
    filled = fill_pits(h, epsilon=0)
    assert filled[2, 2] == 4.0 and filled[1, 2] == 4.0
    assert filled[0, 2] == 3.0 and filled[1, 1] == 6.0
    eps = fill_pits(h, epsilon=0.01)
    assert eps[1, 2] == 4.0 and math.isclose(eps[2, 2], 4.01)


def test_flat_sea_drains_to_the_edge():
    h = maps(2, (40, 40), "smooth")
    h[:, :15] = 0.0  # a flat sea along one edge
    h[20:30, 20:30] = 0.0  # and a flat lake inland
    acc = flow_accumulation(h, cell_size=1.0)
    assert border(acc).sum() == h.size
    assert drains(fill_pits(h)).all()
    np.testing.assert_array_equal(acc, reference_flow(h.tolist(), 1.0))


def test_receivers_and_pits():
    h = np.array([[9.0, 9, 9, 9], [9, 2, 5, 9], [9, 6, 1, 9], [9, 9, 9, 0]])
    rec = receivers(h).reshape(4, 4)
    assert rec[1, 1] == 2 * 4 + 2  # diagonal drop 1 / sqrt 2 beats nothing lower
    assert rec[2, 2] == 3 * 4 + 3  # to the corner (border), drop 1 / sqrt 2
    assert (rec[0] == 16).all()  # border cells drain out
    assert not pits(h).any()
    h[3, 3] = 5.0
    assert pits(h)[2, 2] and pits(h).sum() == 1
    assert not drains(h)[2, 2] and not drains(h)[1, 1] and drains(h)[1, 2] is np.False_


def test_tiny_maps():
    for shape in [(1, 1), (1, 5), (2, 7), (5, 2)]:
        h = np.arange(np.prod(shape), dtype=float).reshape(shape)
        assert np.array_equal(fill_pits(h), h)
        assert np.array_equal(flow_accumulation(h, cell_size=2.0), np.full(shape, 4.0))
        assert drains(h).all() and not pits(h).any()


def test_input_kept_and_float32_accepted():
    h = maps(1, (12, 12), "smooth").astype(np.float32)
    before = h.copy()
    out = fill_pits(h)
    assert out.dtype == np.float64 and np.array_equal(h, before)
    assert np.array_equal(out, fill_pits(h.astype(np.float64)))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: fill_pits(np.zeros(5)), "heights must be a non-empty 2-D array"),
        (lambda: fill_pits(np.full((3, 3), np.nan)), "heights must be finite"),
        (lambda: fill_pits(np.zeros((3, 3)), epsilon=-1), r"epsilon must be a number in \[0, 1\]"),
        (lambda: fill_pits(np.zeros((3, 3)), epsilon="a"), "epsilon must be a number"),
        (lambda: flow_accumulation(np.zeros((3, 3)), cell_size=0), "cell_size must be a positive number"),
        (lambda: flow_accumulation(np.zeros((3, 3)), cell_size=float("inf")), "cell_size must be a positive"),
    ],
)
def test_errors_name_the_parameter(call, match):
    with pytest.raises(ParameterError, match=match):
        call()
