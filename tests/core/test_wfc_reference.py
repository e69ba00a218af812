"""core.wfc against a plain reference: the same seed gives the same output in
fresh processes; the solver equals bench/wfc_reference.py's straightforward solver where the search
is deterministic (and both are valid elsewhere); pattern counts of hand-made samples equal counts
worked out by hand; a known impossible tileset fails at once naming the cell.

(The transcription of the reference's pattern extraction and overlap table, and the window checks
of overlapping outputs, are in test_wfc_overlapping.py; neighbour pairs of tiled outputs in
test_wfc_tiled.py and test_wfc_presets.py.)
"""

import importlib.util
import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from core.wfc import (
    Contradiction,
    extract_patterns,
    load_tileset,
    overlap_compatible,
    overlapping,
    read_sample,
    solve,
    tiled,
)

ROOT = Path(__file__).resolve().parents[2]
PRESETS = ROOT / "presets" / "wfc"

_spec = importlib.util.spec_from_file_location("wfc_reference", ROOT / "bench" / "wfc_reference.py")
wfc_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wfc_reference)
reference_solve = wfc_reference.reference_solve
ReferenceContradiction = wfc_reference.ReferenceContradiction


def valid(grid, compatible, periodic):
    g = np.asarray(grid)
    ok = compatible[0][g[:, :-1], g[:, 1:]].all() and compatible[1][g[:-1], g[1:]].all()
    if periodic:
        ok = ok and compatible[0][g[:, -1], g[:, 0]].all() and compatible[1][g[-1], g[0]].all()
    return bool(ok)


# --- (a) the same seed, the same output, in fresh processes ---

CHILD = """
import json, runpy, sys
runpy.run_path(sys.argv[1])  # tests/conftest.py: the extension as the package worldseed
from worldseed.core.wfc import load_tileset, overlapping, read_sample, tiled
root = sys.argv[2]
flowers = overlapping(read_sample(root + "/presets/wfc/samples/flowers.txt"), 20, 16, seed=7)
rooms = overlapping(read_sample(root + "/presets/wfc/samples/rooms.txt"), 14, 14, periodic=False, seed=2)
roads = tiled(load_tileset(root + "/presets/wfc/roads.toml"), 24, 18, seed=5)
dungeon = tiled(load_tileset(root + "/presets/wfc/dungeon.toml"), 16, 16, periodic=True, seed=1)
tight = tiled(load_tileset(root + "/presets/wfc/dungeon.toml"), 8, 8, seed=0, backtrack_limit=0, attempts=30,
              connected=True, counts={"door": (4, None)})  # a later attempt's stream
print(json.dumps({name: [r.output.tobytes().hex() if hasattr(r, "output") else r.tiles.tobytes().hex(),
                         r.attempts, r.backtracks]
                  for name, r in [("flowers", flowers), ("rooms", rooms), ("roads", roads), ("dungeon", dungeon),
                                  ("tight", tight)]}))
"""


def child_run(hash_seed):
    env = dict(os.environ, PYTHONHASHSEED=str(hash_seed))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT / "tests" / "conftest.py"), str(ROOT)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_same_seed_gives_the_same_bytes_in_fresh_processes():
    # different string-hash seeds too: no set or dict order of names may leak into the output
    first, second = child_run(1), child_run(2)
    assert first == second
    here = tiled(load_tileset(PRESETS / "roads.toml"), 24, 18, seed=5)
    assert first["roads"] == [here.tiles.tobytes().hex(), here.attempts, here.backtracks]
    here = overlapping(read_sample(PRESETS / "samples" / "flowers.txt"), 20, 16, seed=7)
    assert first["flowers"][0] == here.output.tobytes().hex()
    assert first["tight"][1] > 1  # attempt k's stream default_rng([seed, k]) is the same everywhere too
    assert len({v[0] for v in first.values()}) == 5


# --- (b) the solver against the plain reference solver ---


def cyclic_rules(p, east, south):
    """Pattern q east of p only when q = p + east (mod p), south when q = p + south."""
    c = np.zeros((4, p, p), bool)
    i = np.arange(p)
    c[0, i, (i + east) % p] = True
    c[1, i, (i + south) % p] = True
    c[2], c[3] = c[0].T, c[1].T
    return c


def stripes():
    c = np.zeros((4, 2, 2), bool)
    c[[0, 2]] = np.eye(2, dtype=bool)  # east-west: the same pattern
    c[[1, 3]] = ~np.eye(2, dtype=bool)  # north-south: the other one
    return c


DETERMINISTIC = {
    # (weights, compatible, width, height, periodic, fixed): every cell forced by the fixed cells
    # and propagation, or only one pattern at all: the search has nothing to choose
    "one pattern": ([2.0], np.ones((4, 1, 1), bool), 7, 5, False, None),
    "stripes, one cell fixed": ([1.0, 3.0], stripes(), 6, 5, False, (4, 2, 1)),
    "cyclic group, periodic": ([1.0, 2.0, 1.0, 5.0, 1.0], cyclic_rules(5, 1, 2), 10, 5, True, (3, 1, 4)),
    "cyclic group, bounded": ([1.0] * 7, cyclic_rules(7, 3, 1), 9, 6, False, (8, 5, 2)),
}


@pytest.mark.parametrize("case", list(DETERMINISTIC))
@pytest.mark.parametrize("seed", [0, 5])
def test_the_solver_equals_the_reference_where_the_search_is_deterministic(case, seed):
    weights, compatible, width, height, periodic, pin = DETERMINISTIC[case]
    fixed = None
    if pin is not None:
        fixed = np.full((height, width), -1)
        fixed[pin[1], pin[0]] = pin[2]
    ours = solve(weights, compatible, width, height, periodic=periodic, seed=seed, fixed=fixed)
    grid, attempts, backtracks = reference_solve(
        weights, compatible, width, height, periodic=periodic, seed=seed, fixed=fixed
    )
    assert ours.indices.tolist() == grid
    assert (ours.attempts, ours.backtracks) == (attempts, backtracks) == (1, 0)
    assert valid(grid, compatible, periodic)
    if fixed is not None:
        assert grid[pin[1]][pin[0]] == pin[2]


def test_the_solver_equals_the_reference_in_3d_where_the_search_is_deterministic():
    # pattern q sits east of p when q = p + 1, south when q = p + 2, above when q = p + 4 (mod 7):
    # one fixed cell decides the whole (depth, height, width) grid
    p = 7
    flat = cyclic_rules(p, 1, 2)
    up = np.zeros((p, p), bool)
    up[np.arange(p), (np.arange(p) + 4) % p] = True
    c = np.concatenate([flat, up[None], up.T[None]])
    fixed = np.full((3, 4, 5), -1)
    fixed[2, 1, 3] = 6
    ours = solve(np.ones(p), c, 5, 4, depth=3, seed=1, fixed=fixed)
    grid, _, _ = reference_solve(np.ones(p), c, 5, 4, depth=3, seed=1, fixed=fixed)
    assert ours.indices.shape == (3, 4, 5) and ours.indices.tolist() == grid
    z, y, x = np.indices((3, 4, 5))
    assert np.array_equal(ours.indices, (6 + (x - 3) + 2 * (y - 1) + 4 * (z - 2)) % p)


def brute_force_solvable(compatible, width, height, periodic):
    p = compatible.shape[1]
    for combo in itertools.product(range(p), repeat=width * height):
        if valid(np.array(combo).reshape(height, width), compatible, periodic):
            return True
    return False


@pytest.mark.parametrize("seed", range(8))
def test_solver_and_reference_agree_on_what_is_solvable_and_both_are_valid(seed):
    rng = np.random.default_rng(seed)
    c = np.zeros((4, 3, 3), bool)
    c[0], c[1] = rng.random((3, 3)) < 0.45, rng.random((3, 3)) < 0.45
    c[2], c[3] = c[0].T, c[1].T
    weights = (rng.random(3) + 0.2).tolist()
    periodic = bool(seed % 2)
    solvable = brute_force_solvable(c, 3, 3, periodic)
    if not solvable:
        with pytest.raises(Contradiction):
            solve(weights, c, 3, 3, periodic=periodic, seed=seed)
        with pytest.raises(ReferenceContradiction):
            reference_solve(weights, c, 3, 3, periodic=periodic, seed=seed)
        return
    ours = solve(weights, c, 3, 3, periodic=periodic, seed=seed)
    grid, _, _ = reference_solve(weights, c, 3, 3, periodic=periodic, seed=seed)
    assert valid(ours.indices, c, periodic) and valid(grid, c, periodic)


@pytest.mark.parametrize(("stem", "periodic"), [("roads", False), ("pipes", True), ("dungeon", False)])
def test_the_reference_keeps_every_rule_on_the_presets(stem, periodic):
    # the anchor of the benchmark must be right too: every neighbouring pair allowed
    ts = load_tileset(PRESETS / f"{stem}.toml")
    grid, attempts, _ = reference_solve(ts.weights, ts.compatible, 16, 12, periodic=periodic, seed=3)
    assert valid(grid, ts.compatible, periodic)
    assert np.array(grid).shape == (12, 16) and attempts >= 1


def test_the_reference_keeps_every_rule_of_an_overlapping_sample():
    sample = read_sample(PRESETS / "samples" / "rooms.txt")
    patterns, weights = extract_patterns(sample, n=3, symmetry=8)
    c = overlap_compatible(patterns)
    grid, _, _ = reference_solve(weights, c, 12, 12, periodic=True, seed=1)
    assert valid(grid, c, True)


def test_the_reference_backtracks_correctly():
    # sparse random rules that need backtracking (5 backtracks or so a run): the undo log must
    # restore the wave exactly, or the output breaks a rule
    rng = np.random.default_rng(3)
    c = np.zeros((4, 8, 8), bool)
    c[0], c[1] = rng.random((8, 8)) < 0.3, rng.random((8, 8)) < 0.3
    c[2], c[3] = c[0].T, c[1].T
    weights = rng.random(8) + 0.1
    for seed in range(2):
        grid, _, backtracks = reference_solve(weights, c, 16, 16, periodic=True, seed=seed, attempts=4)
        assert backtracks > 0 and valid(grid, c, True)
        with pytest.raises(ReferenceContradiction) as info:
            reference_solve(weights, c, 16, 16, periodic=True, seed=seed, attempts=2, backtrack_limit=0)
        assert info.value.attempts == 2


# --- (c) pattern counts of hand-made samples, worked out by hand ---


def dot(side, at=(1, 1)):
    s = np.zeros((side, side), int)
    s[at] = 1
    return s


HAND_COUNTS = [
    # (sample, n, symmetry, periodic_input, patterns): why
    (np.zeros((5, 5), int), 3, 8, True, 1),  # one window, all blank
    (dot(6), 3, 8, True, 10),  # the dot at each of the 9 places of a 3 x 3 window, and none
    (dot(6), 2, 8, True, 5),  # the dot at each of the 4 places of a 2 x 2 window, and none
    (dot(6), 3, 1, False, 5),  # inside the 6 x 6 without wrapping: rows/cols 0-1 only hold it: 4 + blank
    (np.indices((4, 4)).sum(0) % 2, 3, 8, True, 2),  # a checkerboard: two windows, each symmetric
    (np.indices((4, 4)).sum(0) % 2, 2, 8, True, 2),
    (np.tile([0, 1], (4, 2)), 3, 1, True, 2),  # vertical stripes 0101: two windows, unturned
    (np.tile([0, 1], (4, 2)), 3, 8, True, 4),  # and turned a quarter: horizontal stripes too
    (np.tile([0, 0, 1], (3, 2)), 2, 2, True, 3),  # columns 001001: windows 00, 01, 10 (mirror 01 -> 10)
    (np.tile([0, 0, 1], (3, 2)), 2, 8, True, 5),  # and 01, 10 turned: a row of 1s on top or below
]


@pytest.mark.parametrize(("sample", "n", "symmetry", "periodic_input", "count"), HAND_COUNTS)
def test_pattern_counts_of_hand_made_samples(sample, n, symmetry, periodic_input, count):
    patterns, weights = extract_patterns(sample, n=n, symmetry=symmetry, periodic_input=periodic_input)
    assert len(patterns) == count
    windows = sample.size if periodic_input else (sample.shape[0] - n + 1) * (sample.shape[1] - n + 1)
    assert weights.sum() == windows * symmetry


# --- (e) a known impossible tileset fails quickly, naming the cell ---

TWO_COLOURS = """
name = "two colours"
[[tile]]
name = "black"
[[tile]]
name = "white"
[[neighbor]]
left = "black"
right = "white"
"""


@pytest.mark.parametrize(("width", "height"), [(5, 4), (6, 7), (9, 9)])
def test_an_odd_periodic_two_colouring_fails_quickly_naming_the_cell(width, height):
    # black and white must alternate in every direction: no periodic tiling with an odd side
    ts = load_tileset(TWO_COLOURS)
    assert valid(tiled(ts, 4, 6, periodic=True).tiles, ts.compatible, True)  # even: fine
    start = time.perf_counter()
    with pytest.raises(Contradiction) as info:
        tiled(ts, width, height, periodic=True, seed=3, attempts=10)
    assert time.perf_counter() - start < 2.0
    x, y = info.value.cell
    assert 0 <= x < width and 0 <= y < height
    assert f"{info.value.cell}" in str(info.value)
    assert info.value.attempts == 1  # the whole search failed: restarts cannot help
    with pytest.raises(ReferenceContradiction):
        reference_solve(ts.weights, ts.compatible, width, height, periodic=True, seed=3)
