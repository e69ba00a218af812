"""The WFC solver (core/wfc/_solver.py): valid outputs, constraints kept, clear failures."""

import itertools
import math
import time

import numpy as np
import pytest

from core.errors import ParameterError
from core.wfc._contract import Contradiction
from core.wfc._solver import SolveResult, solve


def random_rules(p, density, seed):
    rng = np.random.default_rng(seed)
    c = np.zeros((4, p, p), bool)
    c[0] = rng.random((p, p)) < density
    c[1] = rng.random((p, p)) < density
    c[2], c[3] = c[0].T, c[1].T
    return rng.random(p) + 0.1, c


def assert_valid(indices, compatible, periodic):
    east = compatible[0][indices[:, :-1], indices[:, 1:]]
    south = compatible[1][indices[:-1], indices[1:]]
    assert east.all() and south.all()
    if periodic:
        assert compatible[0][indices[:, -1], indices[:, 0]].all()
        assert compatible[1][indices[-1], indices[0]].all()


@pytest.mark.parametrize("periodic", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_neighbouring_pair_is_compatible(periodic, seed):
    weights, compatible = random_rules(12, 0.4, seed)
    result = solve(weights, compatible, 17, 13, periodic=periodic, seed=seed)
    assert isinstance(result, SolveResult)
    assert result.indices.shape == (13, 17) and result.indices.dtype == np.int32
    assert result.attempts >= 1 and result.backtracks >= 0
    assert_valid(result.indices, compatible, periodic)


def test_fixed_cells_and_allowed_masks_are_kept():
    weights, compatible = random_rules(8, 0.5, 3)
    fixed = np.full((10, 12), -1)
    fixed[0, 0], fixed[5, 7], fixed[9, 11] = 2, 5, 1
    allowed = np.ones((10, 12, 8), bool)
    allowed[:, 3, :4] = False  # column 3 only patterns 4..7
    result = solve(weights, compatible, 12, 10, seed=4, fixed=fixed, allowed=allowed)
    assert result.indices[0, 0] == 2 and result.indices[5, 7] == 5 and result.indices[9, 11] == 1
    assert (result.indices[:, 3] >= 4).all()
    assert_valid(result.indices, compatible, False)


def test_a_tile_compatible_with_nothing_fails_quickly_naming_cell_and_attempts():
    compatible = np.ones((4, 3, 3), bool)
    compatible[:, 2, :] = compatible[:, :, 2] = False  # tile 2 fits next to nothing
    fixed = np.full((6, 6), -1)
    fixed[4, 1] = 2
    with pytest.raises(Contradiction) as info:
        solve([1.0, 1.0, 1.0], compatible, 6, 6, fixed=fixed)
    assert info.value.cell == (1, 4) or info.value.cell in {(0, 4), (2, 4), (1, 3), (1, 5)}
    assert info.value.attempts == 1 and "(" in str(info.value)
    assert isinstance(info.value, ParameterError)


def test_impossible_rules_raise_after_the_attempts_without_hanging():
    # a 2-colouring of an odd periodic cycle: no tiling exists, found without waiting long
    compatible = np.zeros((4, 2, 2), bool)
    compatible[:] = ~np.eye(2, dtype=bool)
    start = time.perf_counter()
    with pytest.raises(Contradiction) as info:
        solve([1.0, 1.0], compatible, 5, 4, periodic=True, attempts=3)
    assert time.perf_counter() - start < 2.0
    x, y = info.value.cell
    assert 0 <= x < 5 and 0 <= y < 4 and 1 <= info.value.attempts <= 3
    assert f"{info.value.cell}" in str(info.value) and "attempt" in str(info.value)


def test_backtracking_rescues_what_restarts_alone_cannot():
    weights, compatible = random_rules(8, 0.3, 3)
    with pytest.raises(Contradiction) as info:
        solve(weights, compatible, 16, 16, attempts=4, backtrack_limit=0, periodic=True)
    assert info.value.attempts == 4 and "4 attempt(s)" in str(info.value)
    result = solve(weights, compatible, 16, 16, attempts=4, backtrack_limit=1000, periodic=True)
    assert result.backtracks > 0
    assert_valid(result.indices, compatible, True)


def test_rules_impossible_from_the_start_fail_at_once():
    weights, compatible = random_rules(6, 0.18, 11)
    with pytest.raises(Contradiction, match="no pattern fits cell") as info:
        solve(weights, compatible, 30, 30, attempts=4, periodic=True)
    assert info.value.attempts == 1


def test_same_seed_same_output_different_seeds_differ():
    weights, compatible = random_rules(10, 0.5, 5)
    a = solve(weights, compatible, 20, 20, seed=7).indices
    b = solve(weights, compatible, 20, 20, seed=7).indices
    c = solve(weights, compatible, 20, 20, seed=8).indices
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def brute_force(weights, compatible, width, height, periodic):
    out = []
    p = len(weights)
    for combo in itertools.product(range(p), repeat=width * height):
        grid = np.array(combo).reshape(height, width)
        ok = compatible[0][grid[:, :-1], grid[:, 1:]].all() and compatible[1][grid[:-1], grid[1:]].all()
        if periodic:
            ok = ok and compatible[0][grid[:, -1], grid[:, 0]].all()
            ok = ok and compatible[1][grid[-1], grid[0]].all()
        if ok:
            out.append(grid)
    return out


def test_a_chain_with_exactly_one_tiling_equals_brute_force():
    # east of p may only be p + 1, and the chain must start with 0: one tiling, 0 1 2 3 4
    p = 5
    compatible = np.zeros((4, p, p), bool)
    compatible[0] = np.eye(p, k=1, dtype=bool)
    compatible[2] = compatible[0].T
    compatible[1] = compatible[3] = np.eye(p, dtype=bool)
    fixed = np.array([[0, -1, -1, -1, -1]])
    solutions = [g for g in brute_force([1.0] * p, compatible, 5, 1, False) if g[0, 0] == 0]
    assert len(solutions) == 1
    for seed in range(4):
        result = solve(np.ones(p), compatible, 5, 1, seed=seed, fixed=fixed)
        assert np.array_equal(result.indices, solutions[0])


@pytest.mark.parametrize("seed", range(6))
def test_solutions_are_among_brute_force_tilings(seed):
    weights, compatible = random_rules(3, 0.55, seed)
    tilings = brute_force(weights, compatible, 3, 2, True)
    if not tilings:
        with pytest.raises(Contradiction):
            solve(weights, compatible, 3, 2, periodic=True, seed=seed)
        return
    result = solve(weights, compatible, 3, 2, periodic=True, seed=seed)
    assert any(np.array_equal(result.indices, t) for t in tilings)


def test_forty_eight_square_with_a_hundred_patterns_is_fast():
    weights, compatible = random_rules(100, 0.3, 1)
    solve(weights, compatible, 8, 8)  # warm up
    start = time.perf_counter()
    result = solve(weights, compatible, 48, 48, periodic=True, seed=2)
    took = time.perf_counter() - start
    assert_valid(result.indices, compatible, True)
    assert took < 3.0, took


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"weights": [1.0, 0.0]}, "weights"),
        ({"compatible": np.ones((4, 3, 3), bool)}, "compatible"),
        ({"width": 0}, "width"),
        ({"attempts": 0}, "attempts"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"backtrack_limit": -1}, "backtrack_limit"),
        ({"fixed": np.zeros((2, 2), int)}, "fixed"),
        ({"fixed": np.full((3, 4), 5)}, "fixed"),
        ({"allowed": np.ones((3, 4, 3), bool)}, "allowed"),
    ],
)
def test_bad_arguments_name_the_parameter(kwargs, word):
    args = {"weights": [1.0, 1.0], "compatible": np.ones((4, 2, 2), bool), "width": 4, "height": 3}
    args.update(kwargs)
    with pytest.raises(ParameterError, match=word):
        solve(**args)


def test_asymmetric_compatibility_is_refused():
    compatible = np.ones((4, 2, 2), bool)
    compatible[0, 0, 1] = False
    with pytest.raises(ParameterError, match="symmetric"):
        solve([1.0, 1.0], compatible, 3, 3)


def test_entropies_are_the_same_one_by_one_and_in_one_numpy_pass():
    from core.wfc._rules import Rules

    rng = np.random.default_rng(5)
    weights, compatible = random_rules(150, 0.2, 4)
    weights = weights * 1000.0  # many magnitudes of weight
    rules = Rules(weights, compatible)
    masks = [int(rng.integers(1, 2**62)) << int(rng.integers(0, 80)) for _ in range(300)]
    masks = [m & rules.full for m in masks if m & rules.full]
    together = rules.entropies(masks).tolist()
    assert together == [rules.entropy(m) for m in masks]  # exact: the search order cannot differ
    assert rules.entropies([1, 1 << 149, 3]).tolist() == [math.inf, math.inf, rules.entropy(3)]  # one pattern: decided
    full = rules.entropy(rules.full)
    p = weights / weights.sum()
    assert abs(full - float(-(p * np.log(p)).sum())) < 1e-6


def test_a_grid_with_many_changes_per_step_takes_both_entropy_paths_alike(monkeypatch):
    # big cascades of large sets refresh entropies in one numpy pass, small ones one by one: the
    # output is the output of a run that refreshes everything one by one
    from core.wfc import _rules, _search

    weights, compatible = random_rules(40, 0.35, 9)
    monkeypatch.setattr(_search, "_CACHED_ENTROPY_BYTES", 0)  # 40 patterns: the numpy pass too
    a = solve(weights, compatible, 30, 30, periodic=True, seed=3).indices
    saved = _rules.Rules.entropies
    _rules.Rules.entropies = lambda self, masks: [self.entropy(m) if m & (m - 1) else math.inf for m in masks]
    try:
        b = solve(weights, compatible, 30, 30, periodic=True, seed=3).indices
    finally:
        _rules.Rules.entropies = saved
    monkeypatch.setattr(_search, "_CACHED_ENTROPY_BYTES", 16)  # one by one, however many changed
    c = solve(weights, compatible, 30, 30, periodic=True, seed=3).indices
    assert np.array_equal(a, b) and np.array_equal(a, c)


def test_a_failure_under_constraints_names_them():
    from core.wfc import Counts, load_tileset, tiled

    ts = load_tileset("presets/wfc/dungeon.toml")
    with pytest.raises(Contradiction, match=r"constraints: connected; counts tile 'door' 2-3"):
        tiled(ts, 32, 32, seed=0, connected=True, counts={"door": (2, 3)}, attempts=1, backtrack_limit=50)
    assert str(Counts(np.arange(2), {1: (0, None)}, 2, 2)) == "counts value 1 0-"


def test_a_grid_too_large_for_memory_is_refused_before_any_work():
    from core.wfc._solver import MAX_CELLS

    start = time.perf_counter()
    with pytest.raises(ParameterError, match="4,194,304 cells, more than the 1,048,576"):
        solve([1.0, 1.0], np.ones((4, 2, 2), bool), 2048, 2048)
    with pytest.raises(ParameterError, match="x depth"):
        solve([1.0], np.ones((6, 1, 1), bool), 1024, 1024, depth=2)
    assert time.perf_counter() - start < 1.0
    assert MAX_CELLS == 1024 * 1024


@pytest.mark.parametrize("source", ["flowers", "roads"])
def test_narrowing_by_lost_classes_equals_narrowing_by_whole_supports(source, monkeypatch):
    # a visited cell that lost a few patterns narrows its neighbours by the classes it no longer
    # meets (how few depends on P); forced on for every loss of up to 10 patterns, and forced
    # off, the search is the same
    from core.wfc import _search, extract_patterns, load_tileset, overlap_compatible, read_sample
    from core.wfc._rules import Rules

    if source == "flowers":
        sample = read_sample("presets/wfc/samples/flowers.txt")
        patterns, weights = extract_patterns(np.searchsorted(np.unique(sample), sample), n=3, symmetry=8)
        compatible, size, periodic = overlap_compatible(patterns), 20, True
    else:
        ts = load_tileset("presets/wfc/roads.toml")
        weights, compatible, size, periodic = ts.weights, ts.compatible, 24, False
    assert Rules(np.asarray(weights, float), compatible).classes is not None
    runs = []
    for per_lost, few in ((1, 10), (1, 0)):
        monkeypatch.setattr(_search, "_BYTES_PER_LOST", per_lost)
        monkeypatch.setattr(_search, "_FEW", few)
        r = solve(weights, compatible, size, size, periodic=periodic, seed=4)
        runs.append((r.indices.tolist(), r.attempts, r.backtracks))
    assert runs[0] == runs[1]


def test_supports_and_kills_equal_the_brute_force_unions():
    from core.wfc._rules import Rules

    rng = np.random.default_rng(8)
    for p, directions in ((150, 4), (13, 6)):
        weights, compatible = random_rules(p, 0.1, 2)
        if directions == 6:
            extra = rng.random((p, p)) < 0.3
            compatible = np.concatenate([compatible, extra[None], extra.T[None]])
        rules = Rules(weights, compatible)
        for _ in range(40):
            chosen = rng.random(p) < rng.choice([0.02, 0.3, 0.9])
            m = sum(1 << int(i) for i in np.flatnonzero(chosen)) or 1
            want = [compatible[d][chosen if chosen.any() else [0]].any(0) for d in range(directions)]
            got = rules.support(m)
            assert [[bool(s >> q & 1) for q in range(p)] for s in got] == [w.tolist() for w in want]
            for k, w in zip(rules.kills(m), want):  # the complement, below 2**P
                assert [bool(k >> q & 1) for q in range(p)] == (~w).tolist()


def test_the_lowest_cell_found_by_blocks_is_the_cell_one_argmin_finds(monkeypatch):
    # large grids find the lowest-entropy cell through per-block minima; with tiny blocks (so a
    # small grid takes that path, undo and backtracks included) the search is the same
    from core.wfc import _search

    weights, compatible = random_rules(8, 0.3, 3)
    runs = []
    for bits, start in ((3, 64), (20, 1 << 30)):
        monkeypatch.setattr(_search, "_BLOCK_BITS", bits)
        monkeypatch.setattr(_search, "_BLOCKS_FROM", start)
        r = solve(weights, compatible, 16, 16, attempts=4, periodic=True)
        runs.append((r.indices.tolist(), r.attempts, r.backtracks))
    assert runs[0] == runs[1] and runs[0][2] > 0  # backtracked: undone cells refresh their blocks


def test_a_solve_costs_time_linear_in_its_cells():
    # one argmin over every cell per choice made a 1024 x 1024 level quadratic (177 s of CPU where
    # 14 s do); process CPU time (not wall time) per cell, a 384^2 grid against a 128^2 one
    from core.wfc import load_tileset, tiled

    ts = load_tileset("presets/wfc/pipes.toml")
    tiled(ts, 32, 32, seed=1)  # warm up
    per_cell = []
    for size in (128, 384):
        start = time.process_time()
        tiled(ts, size, size, seed=1)
        per_cell.append((time.process_time() - start) / size**2)
    assert per_cell[1] < 2.0 * per_cell[0], per_cell
