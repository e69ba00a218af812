"""Global WFC constraints (core/wfc/_constraints.py): connectivity and counts, on hand-made waves
and through the tiled and overlapping models."""

import time
from pathlib import Path

import numpy as np
import pytest

from core.errors import ParameterError
from core.levels import label_regions
from core.wfc import Contradiction, load_tileset, overlapping, read_sample, solve, tiled
from core.wfc._constraints import Connected, Counts, Unsatisfied
from core.wfc._nodes import components

PRESETS = Path(__file__).resolve().parents[2] / "presets" / "wfc"

WALK = np.array([True, False])  # pattern 0 walkable, pattern 1 not
W, X, B = [1, 0], [0, 1], [1, 1]  # rows: surely walkable, surely not, both possible


def assert_pairs_allowed(tiles, compatible, periodic):
    assert compatible[0][tiles[:, :-1], tiles[:, 1:]].all()
    assert compatible[1][tiles[:-1], tiles[1:]].all()
    if periodic:
        assert compatible[0][tiles[:, -1], tiles[:, 0]].all()
        assert compatible[1][tiles[-1], tiles[0]].all()


def wave_of(*rows):
    return np.array(rows, bool)


def changes(result):
    if result is None:
        return None
    cells, rows = result
    return dict(zip(cells.tolist(), rows.astype(int).tolist()))


# ---------------------------------------------------------------- components


def test_components_match_a_breadth_first_labelling():
    rng = np.random.default_rng(5)
    h, w = 23, 31
    for _ in range(5):
        mask = rng.random(h * w) < 0.6
        idx = np.arange(h * w).reshape(h, w)
        label = components(mask, idx[:-1].ravel(), idx[1:].ravel(), row=w)
        # reference: flood fill from each cell
        ref = np.full(h * w, -1)
        for start in range(h * w):
            if not mask[start] or ref[start] >= 0:
                continue
            stack, ref[start] = [start], start
            while stack:
                c = stack.pop()
                y, x = divmod(c, w)
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    d = ny * w + nx
                    if 0 <= ny < h and 0 <= nx < w and mask[d] and ref[d] < 0:
                        ref[d] = start
                        stack.append(d)
        assert np.array_equal(label < 0, ~mask)
        pairs = np.unique(np.stack([label[mask], ref[mask]]), axis=1)  # one label per reference region
        assert pairs.shape[1] == np.unique(ref[mask]).size == np.unique(label[mask]).size


# ---------------------------------------------------------------- Connected on hand-made waves


def test_connected_accepts_a_joinable_wave_and_refuses_a_cut_one():
    c = Connected(WALK, 5, 1)
    assert changes(c.revise(wave_of(W, B, B, B, W), False)) == {1: W, 2: W, 3: W}  # the only way
    assert Connected(WALK, 5, 1).revise(wave_of(W, W, W, B, B), False) is None
    with pytest.raises(Unsatisfied, match="walkable cells cannot all be connected"):
        Connected(WALK, 5, 1).revise(wave_of(W, B, X, B, W), False)


def test_connected_prunes_the_cells_that_cannot_join():
    # cell 0 surely walkable; cells 3 and 4 are cut off by cell 2: they must not be walkable
    got = changes(Connected(WALK, 5, 1).revise(wave_of(W, B, X, B, B), False))
    assert got == {3: X, 4: X}


def test_connected_with_nothing_surely_walkable_leaves_the_wave_alone():
    assert Connected(WALK, 5, 1).revise(wave_of(B, B, X, B, B), False) is None
    assert Connected(WALK, 3, 1).revise(wave_of(X, X, X), True) is None  # no walkable cell: connected


def test_points_are_forced_walkable():
    assert changes(Connected(WALK, 5, 1, points=[(1, 0)]).revise(wave_of(B, B, B, B, B), False)) == {1: W}


def test_points_that_cannot_be_walkable_or_reached_are_named():
    with pytest.raises(Unsatisfied, match=r"point \(2, 0\) cannot be walkable"):
        Connected(WALK, 5, 1, points=[(2, 0)]).revise(wave_of(B, B, X, B, B), False)
    with pytest.raises(Unsatisfied, match=r"point \(4, 0\) cannot be reached") as info:
        Connected(WALK, 5, 1, points=[(0, 0), (4, 0)]).revise(wave_of(B, B, X, B, B), False)
    assert "4" in str(info.value)


def test_a_point_decides_which_side_survives():
    # the point is right of the cut: the surely walkable cell on the left cannot be joined
    with pytest.raises(Unsatisfied, match="connected"):
        Connected(WALK, 5, 1, points=[(4, 0)]).revise(wave_of(W, B, X, B, B), False)


def test_periodic_grids_join_across_the_edge():
    wave = wave_of(W, B, X, B, W)
    assert Connected(WALK, 5, 1, periodic=True).revise(wave, False) is None
    with pytest.raises(Unsatisfied):
        Connected(WALK, 5, 1).revise(wave, False)


def test_connected_in_two_dimensions_goes_round_obstacles():
    # 3 x 3: walls down the middle column except the bottom cell
    rows = [W, X, W, B, X, B, B, B, B]
    # the one way round is forced walkable
    assert changes(Connected(WALK, 3, 3).revise(wave_of(*rows), False)) == {3: W, 5: W, 6: W, 7: W, 8: W}
    rows[7] = X  # close the gap
    with pytest.raises(Unsatisfied):
        Connected(WALK, 3, 3).revise(wave_of(*rows), False)


def test_cells_without_which_the_walkable_cells_fall_apart_are_forced():
    # 5 x 3: walkable at the left and right ends of the middle row; the middle column is a wall
    # but for its middle cell: that gap and the cells either side of it must be walkable
    g = [[B, B, X, B, B], [W, B, B, B, W], [B, B, X, B, B]]
    got = changes(Connected(WALK, 5, 3).revise(wave_of(*[r for row in g for r in row]), False))
    assert got == {6: W, 7: W, 8: W}
    # with a second gap there is a way round: nothing is forced
    g[0][2] = B
    assert Connected(WALK, 5, 3).revise(wave_of(*[r for row in g for r in row]), False) is None
    # across the edges of a periodic grid the wrap is a way round too
    g[0][2] = X
    assert Connected(WALK, 5, 3, periodic=True).revise(wave_of(*[r for row in g for r in row]), False) is None


def test_bridges_found_near_the_latest_changes():
    # the same as above reached in two steps: the second check looks only round what changed
    c = Connected(WALK, 5, 3)
    g = [[B, B, B, B, B], [W, B, B, B, W], [B, B, B, B, B]]
    assert c.revise(wave_of(*[r for row in g for r in row]), False) is None
    g[0][2] = g[2][2] = X
    assert changes(c.revise(wave_of(*[r for row in g for r in row]), False)) == {6: W, 7: W, 8: W}
    # in a bigger grid, away from the edges
    c = Connected(WALK, 12, 9)
    wave = np.tile(np.array(B, bool), (108, 1))
    wave[4 * 12 + 1] = wave[4 * 12 + 10] = W
    assert c.revise(wave, False) is None
    for y in range(9):
        if y != 4:
            wave[y * 12 + 6] = X
    local = changes(c.revise(wave, False))
    assert local == {4 * 12 + x: W for x in (5, 6, 7)}  # the gap and the one way to it each side
    assert local == changes(Connected(WALK, 12, 9).revise(wave, False))  # as a first, global look


def test_depth_links_layers():
    # 2 x 1 x 2: walkable at (0, 0, 0) and (1, 0, 1); linked through (0, 0, 1) or (1, 0, 0)
    wave = wave_of(W, B, B, W)
    assert Connected(WALK, 2, 1, depth=2).revise(wave, False) is None
    with pytest.raises(Unsatisfied):
        Connected(WALK, 2, 1, depth=2).revise(wave_of(W, X, X, W), False)


def test_checks_are_throttled_but_always_run_on_the_final_wave():
    assert [Connected(WALK, n, n).every for n in (8, 32, 48, 128)] == [1, 2, 4, 4]
    c = Connected(WALK, 32, 32)  # 1024 cells: a full check every 2 calls
    good = np.zeros((1024, 2), bool)
    good[:, 0] = True
    bad = good.copy()
    bad[1:1023] = [False, True]  # cells 0 and 1023 walkable, everything else a wall
    assert c.revise(good, False) is None  # call 1: checked
    assert c.revise(good, False) is None  # call 2: checked
    assert c.revise(bad, False) is None  # call 3: skipped
    with pytest.raises(Unsatisfied):
        c.revise(bad, True)  # final: checked
    with pytest.raises(Unsatisfied):
        c.revise(bad, False)  # after a failure: checked


def test_window_form_checks_the_overhang_of_a_bounded_output():
    # 2 x 2 patterns on a 2 x 1 solver grid: the output is 3 x 2. Pattern 0's bottom row is a wall,
    # pattern 1 all floor: two cells of pattern 0 leave their bottom row apart? no - the top row joins.
    walk = np.array([[[1, 1], [0, 0]], [[1, 1], [1, 1]], [[1, 0], [1, 0]]], bool)
    assert Connected(walk, 2, 1).revise(wave_of([1, 0, 0], [1, 0, 0]), True) is None
    # pattern 2 (walkable left column only) twice: output columns 0 and 1 walkable, 2 not: joined
    assert Connected(walk, 2, 1).revise(wave_of([0, 0, 1], [0, 0, 1]), True) is None
    # pattern 2 then pattern 0: top row joined, output (0, 1) walkable and joined through (0, 0)
    assert Connected(walk, 2, 1).revise(wave_of([0, 0, 1], [1, 0, 0]), True) is None
    # a point on the overhang (2, 1) is forced: only pattern 1 makes it walkable at cell 1
    got = changes(Connected(walk, 2, 1, points=[(2, 1)]).revise(wave_of([1, 1, 1], [1, 1, 1]), False))
    assert got == {1: [0, 1, 0]}


def test_window_form_refuses_a_cut_overhang():
    # the overhang cell (2, 1) is walkable only if reached through (2, 0) or (1, 1)
    walk = np.array([[[1, 0], [0, 1]], [[1, 1], [1, 1]]], bool)  # pattern 0: a diagonal
    with pytest.raises(Unsatisfied, match="connected"):
        Connected(walk, 2, 1).revise(wave_of([0, 1], [1, 0]), True)  # (1,1) and (2,1) diagonal only


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(walkable=[1, 0]), "walkable must be a bool array"),
        (dict(walkable=np.ones((2, 2), bool)), r"\(P,\) or \(P, n, n\)"),
        (dict(points=[(5, 0)]), r"points must be cells of the 5 x 1 output"),
        (dict(points=[(0.5, 0)]), "points must hold"),
        (dict(points=5), "points must be a sequence"),
        (dict(width=0), "width must be an integer >= 1"),
    ],
)
def test_connected_refuses_bad_arguments(kwargs, match):
    args = dict(walkable=WALK, width=5, height=1) | kwargs
    with pytest.raises(ParameterError, match=match):
        Connected(args.pop("walkable"), args.pop("width"), args.pop("height"), **args)


# ---------------------------------------------------------------- Counts on hand-made waves


def test_counts_max_reached_removes_the_value_elsewhere():
    c = Counts(np.arange(2), {1: (0, 2)}, 4, 1)
    got = changes(c.revise(wave_of([0, 1], [0, 1], B, B), False))
    assert got == {2: W, 3: W}


def test_counts_more_than_max_is_unsatisfied():
    with pytest.raises(Unsatisfied, match="value 1 may fill at most 1 cells, 2 do"):
        Counts(np.arange(2), {1: (0, 1)}, 3, 1).revise(wave_of(X, X, B), False)


def test_counts_min_forces_the_last_possible_cells_and_refuses_too_few():
    c = Counts(np.arange(2), {0: (2, None)}, 4, 1)
    assert changes(c.revise(wave_of(B, X, B, X), False)) == {0: W, 2: W}
    with pytest.raises(Unsatisfied, match="value 0 must fill at least 3 cells, only 2 can"):
        Counts(np.arange(2), {0: (3, None)}, 4, 1).revise(wave_of(B, X, B, X), False)


def test_counts_minimums_beyond_the_grid_fail_at_once():
    with pytest.raises(Unsatisfied, match="add up to 5, more than the 4 cells"):
        Counts(np.arange(2), {0: (3, None), 1: (2, None)}, 4, 1).revise(wave_of(B, B, B, B), False)


def test_counts_group_variants_of_one_value():
    # patterns 0 and 1 both show value 0 (two variants of one tile); pattern 2 shows value 1
    values = np.array([0, 0, 1])
    c = Counts(values, {0: (0, 1)}, 3, 1, names={0: "tile 'door'"})
    got = changes(c.revise(wave_of([1, 1, 0], [1, 1, 1], [0, 1, 1]), False))
    assert got == {1: [0, 0, 1], 2: [0, 0, 1]}  # cell 0 is a door (either variant): no other door
    with pytest.raises(Unsatisfied, match="tile 'door' may fill at most 1"):
        Counts(values, {0: (0, 1)}, 3, 1, names={0: "tile 'door'"}).revise(
            wave_of([1, 0, 0], [0, 1, 0], [0, 0, 1]), True
        )


def test_counts_window_form_counts_the_overhang():
    # 2 x 2 patterns on a 1 x 1 solver grid: four output cells, all from one pattern
    values = np.array([[[0, 0], [0, 1]], [[1, 1], [1, 1]]])
    with pytest.raises(Unsatisfied, match="at most 2"):
        Counts(values, {1: (0, 2)}, 1, 1).revise(wave_of([0, 1]), True)
    assert changes(Counts(values, {1: (0, 2)}, 1, 1).revise(wave_of([1, 1]), False)) is None
    # at least 2 cells of value 1: only pattern 1 gives them
    assert changes(Counts(values, {1: (2, None)}, 1, 1).revise(wave_of([1, 1]), False)) is None
    with pytest.raises(Unsatisfied, match="value 1 must fill at least 2 cells, only 1 can"):
        Counts(values, {1: (2, None)}, 1, 1).revise(wave_of([1, 0]), False)


@pytest.mark.parametrize(
    ("limits", "match"),
    [
        ({0: (2, 1)}, r"limits\[0\] must have min <= max, got \(2, 1\)"),
        ({0: (-1, 1)}, r"limits\[0\] min must be an integer >= 0, got -1"),
        ({0: 3}, r"limits\[0\] must be a \(min, max\) pair, got 3"),
        ({0: (0, 1.5)}, r"limits\[0\] max must be an integer >= 0, got 1.5"),
        ([0, 1], "limits must be a dict"),
    ],
)
def test_counts_refuses_bad_limits(limits, match):
    with pytest.raises(ParameterError, match=match):
        Counts(np.arange(2), limits, 4, 1)


# ---------------------------------------------------------------- through the tiled model

# rock and floor may sit anywhere: an unconstrained output is a random speckle of floor islands
SPECKLE = """
[[tile]]
name = "rock"
class = "wall"
sockets = { north = "a", east = "a", south = "a", west = "a" }
[[tile]]
name = "floor"
class = "floor"
sockets = { north = "a", east = "a", south = "a", west = "a" }
[[tile]]
name = "chest"
class = "floor"
weight = 0.1
sockets = { north = "a", east = "a", south = "a", west = "a" }
[[tile]]
name = "door"
symmetry = "T"
class = "door"
weight = 0.2
sockets = { north = "a", east = "a", south = "a", west = "a" }
"""


def regions(walkable):
    """Number of 4-connected regions, by core.levels' own labeller (not the constraint's)."""
    return label_regions(walkable)[1]


def test_tiled_outputs_are_connected_when_asked_and_often_not_otherwise():
    ts = load_tileset(SPECKLE)
    free = [regions(ts.walkable[tiled(ts, 16, 12, seed=s).tiles]) for s in range(6)]
    assert max(free) > 1  # without the constraint the floor falls apart
    for seed in range(12):
        result = tiled(ts, 16, 12, seed=seed, connected=True)
        walk = ts.walkable[result.tiles]
        assert regions(walk) == 1, seed
        assert walk.sum() > 20  # not a trivial output: most of the floor survives
        assert_pairs_allowed(result.tiles, ts.compatible, False)


@pytest.mark.parametrize("name", ["pipes", "roads", "dungeon"])
def test_preset_outputs_are_connected(name):
    ts = load_tileset(PRESETS / f"{name}.toml")
    free = [regions(ts.walkable[tiled(ts, 20, 20, seed=s).tiles]) for s in range(4)]
    assert max(free) > 1  # the test can fail: unconstrained outputs fall apart
    for seed in range(6):
        result = tiled(ts, 20, 20, seed=seed, connected=True)
        assert regions(ts.walkable[result.tiles]) == 1, seed
        assert_pairs_allowed(result.tiles, ts.compatible, False)


def torus_connected(walk):
    """A flood fill on the torus from one walkable cell reaches them all (independent of the constraint)."""
    h, w = walk.shape
    if not walk.any():
        return True
    start = tuple(np.argwhere(walk)[0])
    seen, stack = {start}, [start]
    while stack:
        y, x = stack.pop()
        for ny, nx in (((y + 1) % h, x), ((y - 1) % h, x), (y, (x + 1) % w), (y, (x - 1) % w)):
            if walk[ny, nx] and (ny, nx) not in seen:
                seen.add((ny, nx))
                stack.append((ny, nx))
    return len(seen) == walk.sum()


def test_periodic_connectivity_may_cross_the_edges():
    ts = load_tileset(SPECKLE)
    seams = 0
    for seed in range(6):
        tiles = tiled(ts, 12, 10, seed=seed, periodic=True, connected=True).tiles
        walk = ts.walkable[tiles]
        assert torus_connected(walk), seed
        seams += regions(walk) > 1
    assert seams  # some output is joined only across its edges


def test_connect_points_are_walkable_and_linked():
    ts = load_tileset(SPECKLE)
    points = [(0, 0), (15, 11), (8, 3)]
    for seed in range(8):
        tiles = tiled(ts, 16, 12, seed=seed, connected=True, connect_points=points).tiles
        labels, count = label_regions(ts.walkable[tiles])
        assert count == 1
        assert all(labels[y, x] == 0 for x, y in points), seed


def test_tiled_counts_hold_summed_over_variants():
    ts = load_tileset(SPECKLE)
    base = np.array(ts.base_names)

    def tally(tiles, name):
        return int((base[tiles] == name).sum())

    free = [(tally(t, "chest"), tally(t, "door")) for t in (tiled(ts, 16, 16, seed=s).tiles for s in range(6))]
    assert any(not 2 <= c <= 3 for c, _ in free) and any(d > 4 for _, d in free)
    for seed in range(10):
        tiles = tiled(ts, 16, 16, seed=seed, counts={"chest": (2, 3), "door": (1, 4)}).tiles
        assert 2 <= tally(tiles, "chest") <= 3, seed
        assert 1 <= tally(tiles, "door") <= 4, seed  # the four turns of the door together


def test_counts_and_connectivity_together():
    ts = load_tileset(SPECKLE)
    for seed in range(6):
        tiles = tiled(ts, 14, 14, seed=seed, connected=True, counts={"chest": (3, 3)}).tiles
        assert regions(ts.walkable[tiles]) == 1
        assert (np.array(ts.base_names)[tiles] == "chest").sum() == 3


def test_impossible_counts_fail_fast_with_the_reason():
    ts = load_tileset(SPECKLE)
    start = time.perf_counter()
    with pytest.raises(Contradiction, match="more than the 100 cells") as info:
        tiled(ts, 10, 10, counts={"chest": (101, None)})
    with pytest.raises(Contradiction, match="minimum counts add up to 120"):
        tiled(ts, 10, 10, counts={"chest": (60, None), "door": (60, None)})
    assert time.perf_counter() - start < 1.0
    assert info.value.attempts == 1


def test_points_a_fixed_wall_keeps_apart_fail_at_once_with_the_point_named():
    ts = load_tileset(SPECKLE)
    fixed = np.full((6, 9), "", object)
    fixed[:, 4] = "rock"
    start = time.perf_counter()
    with pytest.raises(Contradiction, match=r"point \(8, 5\) cannot be reached") as info:
        tiled(ts, 9, 6, fixed=fixed, connected=True, connect_points=[(0, 0), (8, 5)])
    assert time.perf_counter() - start < 1.0
    assert info.value.cell == (8, 5) and info.value.attempts == 1
    with pytest.raises(Contradiction, match="tile 'rock' may fill at most 3 cells, 6 do"):
        tiled(ts, 9, 6, fixed=fixed, counts={"rock": (0, 3)})


def test_points_on_a_wall_only_tileset_fail_with_the_point_named():
    ts = load_tileset(SPECKLE.replace('class = "floor"', 'class = "wall"').replace('class = "door"', 'class = "wall"'))
    with pytest.raises(Contradiction, match=r"point \(3, 2\) cannot be walkable"):
        tiled(ts, 6, 5, connected=True, connect_points=[(3, 2)])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(connected="yes"), "connected must be"),
        (dict(connect_points=[(1, 1)]), "connect_points needs connected=True"),
        (dict(connected=True, connect_points=[(8, 1)]), r"connect_points must be cells of the 8 x 6 output"),
        (dict(connected=True, connect_points=3), "connect_points must be a sequence"),
        (dict(counts={"chset": (1, 2)}), r"counts: unknown tile 'chset' .*did you mean 'chest'"),
        (dict(counts={"chest": (3, 1)}), r"counts\['chest'\] must have min <= max, got \(3, 1\)"),
        (dict(counts=[("chest", 1)]), "counts must be a dict"),
    ],
)
def test_tiled_refuses_bad_constraint_arguments(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        tiled(load_tileset(SPECKLE), 8, 6, **kwargs)


# ---------------------------------------------------------------- through the overlapping model

ROOMS = PRESETS / "samples" / "rooms.txt"  # walls 1 (the border), floors 0, doors 2


@pytest.mark.parametrize("periodic", [False, True])
def test_overlapping_outputs_are_connected(periodic):
    sample = read_sample(ROOMS)
    check = torus_connected if periodic else (lambda walk: regions(walk) == 1)
    assert not all(check(overlapping(sample, 16, 16, seed=s, periodic=periodic).output != 1) for s in range(3))
    for seed in range(4):
        out = overlapping(sample, 16, 16, seed=seed, periodic=periodic, connected=True).output
        assert check(out != 1), seed  # the default walkable values: all but the border's wall
        assert (out != 1).any()


def test_overlapping_walkable_values_and_points():
    sample = read_sample(ROOMS)
    points = [(0, 0), (15, 15)]
    for seed in range(3):
        out = overlapping(
            sample, 16, 16, seed=seed, periodic=False, connected=True, walkable=[0, 2], connect_points=points
        ).output
        labels, count = label_regions(out != 1)
        assert count == 1 and all(labels[y, x] == 0 for x, y in points), seed


def test_overlapping_points_on_the_overhang_of_a_bounded_output():
    sample = read_sample(ROOMS)
    out = overlapping(sample, 14, 12, seed=2, periodic=False, connected=True, connect_points=[(13, 11), (0, 11)]).output
    labels, count = label_regions(out != 1)
    assert count == 1 and labels[11, 13] == 0 and labels[11, 0] == 0


@pytest.mark.parametrize("periodic", [False, True])
def test_overlapping_counts_hold(periodic):
    dots = read_sample(PRESETS / "samples" / "dots.txt")  # single stones (1) on a field (0)
    free = [int((overlapping(dots, 20, 20, seed=s, periodic=periodic).output == 1).sum()) for s in range(3)]
    assert min(free) > 6
    for seed in range(5):
        out = overlapping(dots, 20, 20, seed=seed, periodic=periodic, counts={1: (3, 6)}).output
        assert 3 <= (out == 1).sum() <= 6, seed


def test_overlapping_counts_of_colours_and_impossible_minimums():
    image = np.zeros((6, 6, 3), np.uint8)
    image[2, 3] = (255, 0, 0)
    out = overlapping(image, 12, 12, n=2, seed=1, counts={(255, 0, 0): (2, 2)}).output
    assert (out == (255, 0, 0)).all(2).sum() == 2
    with pytest.raises(Contradiction, match="more than the 144 cells"):
        overlapping(image, 12, 12, n=2, counts={(255, 0, 0): (145, None)})


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(walkable=[7], connected=True), r"walkable: 7 is not a value of the sample \(its values: 0, 1, 2\)"),
        (dict(walkable=5, connected=True), "walkable must be a sequence of sample values"),
        (dict(walkable=[0, 8]), "walkable: 8 is not a value"),  # checked without connected too
        (dict(connect_points=[(0, 0)]), "connect_points needs connected=True"),
        (dict(connected=True, connect_points=[(0, 16)]), r"connect_points must be cells of the 16 x 16 output"),
        (dict(counts={9: (0, 1)}), "counts: 9 is not a value of the sample"),
        (dict(counts={0: (0, -1)}), r"counts\[0\] max must be an integer >= 0, got -1"),
        (dict(counts="0"), "counts must be a dict"),
    ],
)
def test_overlapping_refuses_bad_constraint_arguments(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        overlapping(read_sample(ROOMS), 16, 16, **kwargs)


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
