"""Global WFC constraints through the solver: the word and product readings of the wave, 3-D
connectivity, repeated checks against first looks, seeded repeats, and wrap on periodic outputs."""

import numpy as np
import pytest

from core.errors import ParameterError
from core.levels import label_regions
from core.wfc import load_tileset, overlapping, read_sample, solve, tiled
from core.wfc._constraints import Connected, Unsatisfied

from ._wfc_cases import ROOMS, SPECKLE, WALK, B, W, X, assert_pairs_allowed, changes, regions, torus_connected, wave_of


@pytest.mark.parametrize("patterns", [5, 24, 80])
def test_word_and_product_readings_of_the_wave_agree(patterns, monkeypatch):
    import core.wfc._nodes as nodes

    rng = np.random.default_rng(patterns)
    walk = rng.random(patterns) < 0.4
    wave = rng.random((60, patterns)) < 0.2
    window = rng.random((patterns, 3, 3)) < 0.4
    got = []
    for limit in (0, 1000):  # products only, words whenever they fit
        monkeypatch.setattr(nodes, "WORD_PATTERNS", limit)
        for table, shape in ((walk, (10, 6)), (window, (8, 5))):  # 60 and 40 solver cells
            c = Connected(table, *shape)
            read = c.nodes.read(wave[: shape[0] * shape[1]])
            got.append((c.nodes.hits(read, c.walk_masks), c.nodes.hits(read, c.wall_masks)))
    for (a, b), (c, d) in zip(got[:2], got[2:]):
        assert np.array_equal(a, c) and np.array_equal(b, d)
    # and against plain fancy indexing
    assert np.array_equal(got[2][0], wave[:, walk].any(1))


def joined_3d(walk):
    """A flood fill over the 6 neighbours from one walkable cell reaches them all."""
    cells = {tuple(c) for c in np.argwhere(walk)}
    if not cells:
        return True
    start = next(iter(cells))
    seen, stack = {start}, [start]
    while stack:
        z, y, x = stack.pop()
        for d in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
            nxt = (z + d[0], y + d[1], x + d[2])
            if nxt in cells and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen == cells


def test_connected_through_the_solver_in_three_dimensions():
    from core.wfc import solve

    anything = np.ones((6, 2, 2), bool)  # walkable and wall may sit anywhere: a random speckle
    weights = [1.0, 2.0]
    assert not all(joined_3d(solve(weights, anything, 6, 5, depth=3, seed=s).indices == 0) for s in range(4))
    for seed in range(4):
        grid = solve(weights, anything, 6, 5, depth=3, seed=seed, constraints=[Connected(WALK, 6, 5, depth=3)])
        assert joined_3d(grid.indices == 0), seed


@pytest.mark.parametrize("periodic", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_repeated_checks_agree_with_first_looks(periodic, seed):
    # a random narrowing sequence: every check's verdict equals that of a fresh constraint (which
    # labels everything), whatever the constraint remembers from the calls before; its rows too,
    # but for cells that must be walkable, which it may find fewer of (it looks near the changes)
    rng = np.random.default_rng(seed)
    h, w = 9, 11
    walk = np.array([True, True, False, False])
    wave = np.ones((h * w, 4), bool)
    wave[rng.choice(h * w, 3, replace=False)] = [True, False, False, False]
    c = Connected(walk, w, h, periodic=periodic)
    verdicts = []
    for _ in range(60):
        try:
            expected = changes(Connected(walk, w, h, periodic=periodic).revise(wave, False)) or {}
        except Unsatisfied:
            with pytest.raises(Unsatisfied):
                c.revise(wave, False)
            verdicts.append("unsatisfied")
            break
        got = changes(c.revise(wave, False)) or {}

        def pruned(rows):  # cells losing every walkable pattern (the others are made walkable)
            return {k: v for k, v in rows.items() if not np.any(np.array(v, bool) & walk)}

        assert pruned(got) == pruned(expected)
        assert got.items() <= expected.items()
        verdicts.append(len(expected))
        for cell, row in expected.items():  # apply the fresh look's rows, then narrow a few cells
            wave[cell] &= np.array(row, bool)
        cells = rng.choice(h * w, 4, replace=False)
        wave[cells] &= rng.random((4, 4)) < 0.5
        wave[cells[~wave[cells].any(1)], 2] = True
    assert verdicts[-1] == "unsatisfied" and any(v not in (0, "unsatisfied") for v in verdicts)


def test_constrained_runs_repeat_with_the_seed():
    ts = load_tileset(SPECKLE)
    kwargs = dict(seed=5, connected=True, connect_points=[(1, 1)], counts={"chest": (1, 2)})
    first, again = tiled(ts, 20, 14, **kwargs), tiled(ts, 20, 14, **kwargs)
    assert first.tiles.tobytes() == again.tiles.tobytes() and first.backtracks == again.backtracks
    assert tiled(ts, 20, 14, **(kwargs | {"seed": 6})).tiles.tobytes() != first.tiles.tobytes()


# ---------------------------------------------------------------- wrap: periodic outputs read as finite grids


def test_wrap_false_refuses_paths_across_the_edge_of_a_periodic_grid():
    wave = wave_of(W, B, X, B, W)  # the two ends meet only across the edge
    assert Connected(WALK, 5, 1, periodic=True, wrap=True).revise(wave, False) is None  # today's behaviour
    assert Connected(WALK, 5, 1, periodic=True).revise(wave, False) is None  # wrap=True is the default
    with pytest.raises(Unsatisfied, match="walkable cells cannot all be connected"):
        Connected(WALK, 5, 1, periodic=True, wrap=False).revise(wave, False)
    with pytest.raises(Unsatisfied, match=r"point \(4, 0\) cannot be reached"):
        Connected(WALK, 5, 1, periodic=True, wrap=False, points=[(0, 0), (4, 0)]).revise(wave_of(B, B, X, B, B), False)
    # 2-D: the gap in the middle column is the only way without the edge, so it is forced
    g = [[B, B, X, B, B], [W, B, B, B, W], [B, B, X, B, B]]
    rows = [r for row in g for r in row]
    assert Connected(WALK, 5, 3, periodic=True).revise(wave_of(*rows), False) is None
    assert changes(Connected(WALK, 5, 3, periodic=True, wrap=False).revise(wave_of(*rows), False)) == {
        6: W,
        7: W,
        8: W,
    }


def test_wrap_must_be_a_bool():
    with pytest.raises(ParameterError, match="wrap must be true or false, got 'no'"):
        Connected(WALK, 5, 1, periodic=True, wrap="no")


def solve_speckle_periodic(seed, **connected):
    ts = load_tileset(SPECKLE)
    c = Connected(ts.walkable, 12, 10, periodic=True, **connected)
    result = solve(ts.weights, ts.compatible, 12, 10, periodic=True, seed=seed, constraints=[c])
    return ts, result.indices


def test_periodic_output_with_wrap_false_is_one_region_without_crossing_the_edges():
    points = [(0, 0), (11, 9), (6, 0)]  # corners joined through the edge only if wrap were allowed
    for seed in range(6):
        ts, tiles = solve_speckle_periodic(seed, wrap=False, points=points)
        walk = ts.walkable[tiles]
        labels, count = label_regions(walk)  # core.levels' labeller: a finite grid
        assert count == 1, seed
        assert all(labels[y, x] == 0 for x, y in points), seed
        assert_pairs_allowed(tiles, ts.compatible, True)  # still a periodic tiling
        assert walk.sum() > 20, seed


def test_periodic_output_with_wrap_true_keeps_joining_across_the_edges():
    seams = 0
    for seed in range(6):
        ts, tiles = solve_speckle_periodic(seed, wrap=True)
        walk = ts.walkable[tiles]
        assert torus_connected(walk), seed
        seams += regions(walk) > 1
        # the default is the same solve, byte for byte
        assert np.array_equal(tiles, solve_speckle_periodic(seed)[1]), seed
    assert seams  # some output is joined only across its edges: the test can tell wrap from no wrap


def test_models_pass_wrap_to_their_connectivity():
    # tiled: periodic tilings connected on the finite grid, corners linked
    ts = load_tileset(SPECKLE)
    points = [(0, 0), (11, 9)]
    for seed in range(4):
        tiles = tiled(ts, 12, 10, seed=seed, periodic=True, connected=True, wrap=False, connect_points=points).tiles
        labels, count = label_regions(ts.walkable[tiles])
        assert count == 1 and all(labels[y, x] == 0 for x, y in points), seed
        assert_pairs_allowed(tiles, ts.compatible, True)
        old = tiled(ts, 12, 10, seed=seed, periodic=True, connected=True).tiles
        assert np.array_equal(old, tiled(ts, 12, 10, seed=seed, periodic=True, connected=True, wrap=True).tiles)
    # overlapping: the rooms sample on a periodic output, one region without the edges
    sample = read_sample(ROOMS)
    for seed in range(3):
        out = overlapping(sample, 16, 16, seed=seed, periodic=True, connected=True, wrap=False).output
        assert regions(out != 1) == 1, seed
        # the default (wrap=True) joins these outputs across the edges only: several finite regions
        assert regions(overlapping(sample, 16, 16, seed=seed, periodic=True, connected=True).output != 1) > 1
    with pytest.raises(ParameterError, match="wrap must be true or false"):
        tiled(ts, 8, 6, wrap=None)  # checked without connected too
    with pytest.raises(ParameterError, match="wrap must be true or false"):
        overlapping(sample, 16, 16, wrap=0)
