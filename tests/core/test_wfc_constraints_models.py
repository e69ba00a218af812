"""Global WFC constraints through the tiled and overlapping models: connected outputs, points,
counts, and the arguments each model refuses."""

import time

import numpy as np
import pytest

from core.errors import ParameterError
from core.levels import label_regions
from core.wfc import Contradiction, load_tileset, overlapping, read_sample, tiled

from ._wfc_cases import PRESETS, ROOMS, SPECKLE, assert_pairs_allowed, regions, torus_connected

# ---------------------------------------------------------------- through the tiled model


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
