"""core.levels region tools: label_regions, walk_distances, nearest_sources, connect_regions.

Each is checked against a plain per-cell Python reference (flood fill, breadth-first search,
brute force) on random grids of many densities, and on the worst shapes for it (a serpentine
passage: one region, the longest walk).
"""

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core.errors import ParameterError
from worldseed.core.levels import _regions, label_regions
from worldseed.core.levels._regions import walk_distances

# --- plain references ----------------------------------------------------------------------------

STEPS4 = ((0, 1), (1, 0), (0, -1), (-1, 0))


def reference_labels(walkable):
    """Flood fill cell by cell, regions numbered in raster order of their first cell."""
    h, w = walkable.shape
    labels = [[-1] * w for _ in range(h)]
    count = 0
    for y in range(h):
        for x in range(w):
            if walkable[y, x] and labels[y][x] < 0:
                labels[y][x] = count
                todo = [(y, x)]
                while todo:
                    cy, cx = todo.pop()
                    for dy, dx in STEPS4:
                        ny, nx = cy + dy, cx + dx
                        if 0 <= ny < h and 0 <= nx < w and walkable[ny, nx] and labels[ny][nx] < 0:
                            labels[ny][nx] = count
                            todo.append((ny, nx))
                count += 1
    return np.array(labels, np.int32).reshape(h, w), count


def reference_distances(walkable, start):
    h, w = walkable.shape
    dist = np.full((h, w), -1, np.int32)
    x, y = start
    if not walkable[y, x]:
        return dist
    dist[y, x] = 0
    queue = deque([(y, x)])
    while queue:
        cy, cx = queue.popleft()
        for dy, dx in STEPS4:
            ny, nx = cy + dy, cx + dx
            if 0 <= ny < h and 0 <= nx < w and walkable[ny, nx] and dist[ny, nx] < 0:
                dist[ny, nx] = dist[cy, cx] + 1
                queue.append((ny, nx))
    return dist


def serpentine(rows, cols):
    """One passage winding down and up every other column: a single region, the longest walk."""
    g = np.zeros((rows, cols), bool)
    g[:, 0::2] = True
    for i, col in enumerate(range(0, cols - 2, 2)):
        g[rows - 1 if i % 2 == 0 else 0, col + 1] = True
    return g


grids = st.tuples(st.integers(1, 24), st.integers(1, 24), st.floats(0.0, 1.0), st.integers(0, 2**32 - 1)).map(
    lambda t: np.random.default_rng(t[3]).random((t[0], t[1])) < t[2]
)

# --- label_regions ---------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(grids)
def test_label_regions_equals_a_flood_fill(walkable):
    labels, count = label_regions(walkable)
    want, want_count = reference_labels(walkable)
    assert labels.dtype == np.int32 and labels.shape == walkable.shape
    assert count == want_count
    np.testing.assert_array_equal(labels, want)


@pytest.mark.parametrize("fill", [0.3, 0.41, 0.5, 0.6, 0.75])
def test_label_regions_at_the_percolation_threshold(fill):
    """Near the threshold (open fraction ~0.59) regions are large and winding: the hardest case for union-find."""
    walkable = np.random.default_rng(int(fill * 100)).random((120, 90)) < fill
    labels, count = label_regions(walkable)
    want, want_count = reference_labels(walkable)
    assert count == want_count
    np.testing.assert_array_equal(labels, want)


def test_label_regions_serpentine_and_empty():
    g = serpentine(64, 63)
    labels, count = label_regions(g)
    assert count == 1 and (labels[g] == 0).all() and (labels[~g] == -1).all()
    labels, count = label_regions(np.zeros((5, 4), bool))
    assert count == 0 and (labels == -1).all()
    labels, count = label_regions(np.ones((3, 7), bool))
    assert count == 1 and (labels == 0).all()


def test_label_regions_refuses_a_non_grid():
    with pytest.raises(ParameterError, match="walkable must be a 2-dimensional array"):
        label_regions(np.zeros(5, bool))


# --- walk_distances ------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(grids, st.integers(0, 10_000), st.integers(0, 10_000))
def test_walk_distances_equal_a_breadth_first_search(walkable, sx, sy):
    h, w = walkable.shape
    start = (sx % w, sy % h)
    dist = walk_distances(walkable, start)
    assert dist.dtype == np.int32 and dist.shape == walkable.shape
    np.testing.assert_array_equal(dist, reference_distances(walkable, start))


@pytest.mark.parametrize("small", [0, 1, 48, 10**9])
@pytest.mark.parametrize("fill", [0.45, 0.6, 0.8, 1.0])
def test_walk_distances_python_and_numpy_steps_agree(monkeypatch, small, fill):
    """Frontiers of up to SMALL_FRONTIER cells step in Python, larger ones in numpy: every mix is exact."""
    monkeypatch.setattr(_regions, "SMALL_FRONTIER", small)
    walkable = np.random.default_rng(int(fill * 10)).random((90, 120)) < fill
    walkable[45, 60] = True
    np.testing.assert_array_equal(walk_distances(walkable, (60, 45)), reference_distances(walkable, (60, 45)))


def test_walk_distances_along_a_serpentine():
    g = serpentine(40, 41)
    dist = walk_distances(g, (0, 0))
    np.testing.assert_array_equal(dist, reference_distances(g, (0, 0)))
    assert dist.max() == g.sum() - 1  # one passage: every cell one step further


def test_walk_distances_from_a_wall_reach_nothing_and_bad_starts_are_refused():
    g = np.ones((4, 5), bool)
    g[2, 3] = False
    assert (walk_distances(g, (3, 2)) == -1).all()
    with pytest.raises(ParameterError, match=r"start must be a cell of the 5 x 4 grid .* got \(5, 0\)"):
        walk_distances(g, (5, 0))
    with pytest.raises(ParameterError, match=r"start must be a cell .* got \(0, -1\)"):
        walk_distances(g, (0, -1))
    with pytest.raises(ParameterError, match="start must be an \\(x, y\\) pair"):
        walk_distances(g, 3)


# --- nearest_sources -------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(grids.filter(lambda g: g.any()))
def test_nearest_sources_are_the_nearest_by_city_block(sources):
    h, w = sources.shape
    dist, src = _regions.nearest_sources(sources)
    ys, xs = np.nonzero(sources)
    yy, xx = np.mgrid[0:h, 0:w]
    brute = (np.abs(yy[..., None] - ys) + np.abs(xx[..., None] - xs)).min(axis=-1)
    np.testing.assert_array_equal(dist, brute)
    sy, sx = np.divmod(src, w)
    assert sources[sy, sx].all()  # every nearest cell is a source ...
    np.testing.assert_array_equal(np.abs(sy - yy) + np.abs(sx - xx), dist)  # ... at that distance


def test_nearest_sources_refuses_no_source():
    with pytest.raises(ParameterError, match="sources must hold at least one True cell"):
        _regions.nearest_sources(np.zeros((3, 3), bool))


# --- connect_regions --------------------------------------------------------------------------------


def manhattan_mst(points):
    """Total length of a minimum spanning tree of points under the city-block distance (Prim)."""
    p = np.asarray(points)
    d = np.abs(p[:, None, :] - p[None, :, :]).sum(-1)
    inside = np.zeros(len(p), bool)
    inside[0] = True
    best = d[0].astype(float)
    total = 0
    for _ in range(len(p) - 1):
        best[inside] = np.inf
        k = int(np.argmin(best))
        total += int(best[k])
        inside[k] = True
        best = np.minimum(best, d[k])
    return total


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**32 - 1))
def test_connect_regions_joins_points_with_a_minimum_spanning_tree(n, seed):
    """Single cells as regions: the tunnels join them all, inside the border, with no more cells
    than a minimum spanning tree of their city-block distances needs (each link of length L digs
    at most L - 1 cells)."""
    rng = np.random.default_rng(seed)
    h, w = 20, 30
    cells = rng.choice((h - 2) * (w - 2), size=n, replace=False)
    ys, xs = np.divmod(cells, w - 2)
    ys, xs = ys + 1, xs + 1
    walk = np.zeros((h, w), bool)
    walk[ys, xs] = True
    labels, count = label_regions(walk)
    tunnels = connect_regions_checked(labels, count, seed)
    assert label_regions(walk | tunnels)[1] == 1
    assert not tunnels[0].any() and not tunnels[-1].any() and not tunnels[:, 0].any() and not tunnels[:, -1].any()
    assert not (tunnels & walk).any()
    links_cells = manhattan_mst(np.stack([ys, xs], 1)) - (count - 1)
    assert tunnels.sum() <= links_cells


def connect_regions_checked(labels, count, seed):
    out = _regions.connect_regions(labels, count, seed=seed)
    assert out.dtype == bool and out.shape == labels.shape
    return out


def test_connect_regions_two_blobs_take_the_shortest_link():
    """Two regions: the tunnel is exactly as long as their closest cells are apart (the link found is exact)."""
    walk = np.zeros((30, 40), bool)
    walk[3:10, 3:12] = True  # a block
    walk[14:25, 20:23] = True  # a bar
    walk[20, 23:36] = True  # its arm
    labels, count = label_regions(walk)
    assert count == 2
    tunnels = _regions.connect_regions(labels, count, seed=4)
    # closest cells: (9, 11) and (14, 20): 5 + 9 = 14 steps, 13 cells between them
    assert tunnels.sum() == 13
    assert label_regions(walk | tunnels)[1] == 1


def test_connect_regions_is_seeded_and_leaves_one_region_alone():
    walk = np.random.default_rng(3).random((40, 50)) < 0.3
    walk[0] = walk[-1] = walk[:, 0] = walk[:, -1] = False
    labels, count = label_regions(walk)
    assert count > 20
    a = _regions.connect_regions(labels, count, seed=5)
    assert a.tobytes() == _regions.connect_regions(labels, count, seed=5).tobytes()
    assert label_regions(walk | a)[1] == 1
    one = np.zeros((5, 5), bool)
    one[2, 2] = True
    assert not _regions.connect_regions(*label_regions(one), seed=0).any()
