"""Global WFC constraints (core/wfc/_constraints.py): connectivity and counts on hand-made waves.

Through the tiled and overlapping models: test_wfc_constraints_models.py; through the solver
(wave readings, 3-D, repeated checks, seeds, wrap on periodic outputs): test_wfc_constraints_solve.py."""

import numpy as np
import pytest

from core.errors import ParameterError
from core.wfc._constraints import Connected, Counts, Unsatisfied
from core.wfc._nodes import components

from ._wfc_cases import WALK, B, W, X, changes, wave_of

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
