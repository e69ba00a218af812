"""core.levels.random_walk: the floor target, the border, one region, bias, walkers, determinism, bad input."""

import inspect
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core.errors import ParameterError
from worldseed.core.levels import FLOOR, WALL, LevelSpec, _walk, generate, label_regions, random_walk
from worldseed.core.levels._regions import walk_distances


def test_random_walk_signature():
    sig = inspect.signature(random_walk)
    assert list(sig.parameters)[:2] == ["width", "height"]
    want = {"floor_fraction": 0.4, "walkers": 1, "bias": 0.0, "enemy_density": 0.02, "loot_chance": 0.3, "seed": 0}
    for name, default in want.items():
        assert sig.parameters[name].kind is inspect.Parameter.KEYWORD_ONLY and sig.parameters[name].default == default


@pytest.mark.parametrize(
    "width, height, fraction, walkers, bias, seed",
    [
        (80, 80, 0.4, 1, 0.0, 0),
        (80, 80, 0.4, 4, 0.3, 1),
        (61, 23, 0.6, 1, 0.8, 2),
        (30, 90, 0.25, 16, 0.0, 3),
        (9, 7, 0.5, 2, 0.5, 4),  # 35 inner cells, 32 to dig: the walkers press on the border all the time
        (200, 150, 0.05, 1, 0.95, 5),
    ],
)
def test_random_walk_reaches_the_floor_fraction_connected_inside_the_border(
    width, height, fraction, walkers, bias, seed
):
    level = random_walk(width, height, floor_fraction=fraction, walkers=walkers, bias=bias, seed=seed)
    g = level.grid
    assert g.dtype == np.uint8 and g.shape == (height, width) and set(np.unique(g)) <= {WALL, FLOOR}
    assert level.generator == "walk" and level.seed == seed
    floor = int((g == FLOOR).sum())
    # reached, and not over: exactly the first cell that reaches the target ends the walk
    assert floor >= fraction * width * height and floor == math.ceil(fraction * width * height - 1e-9)
    assert (g[0] == WALL).all() and (g[-1] == WALL).all() and (g[:, 0] == WALL).all() and (g[:, -1] == WALL).all()
    assert g[height // 2, width // 2] == FLOOR  # the walkers' start
    assert label_regions(level.walkable)[1] == 1
    spawn = level.spawn
    dist = walk_distances(level.walkable, (spawn.x, spawn.y))
    assert (dist[level.walkable] >= 0).all()
    exits = level.markers_of("exit")
    assert len(exits) == 1 and dist[exits[0].y, exits[0].x] > 0
    assert all(g[m.y, m.x] == FLOOR for m in level.markers)


def corridor_share(level):
    """Share of floor cells that are straight corridor pieces: floor on both sides along one axis, wall across it."""
    g = level.walkable
    c, n, s, e, w = g[1:-1, 1:-1], g[:-2, 1:-1], g[2:, 1:-1], g[1:-1, 2:], g[1:-1, :-2]
    straight = c & ((n & s & ~e & ~w) | (e & w & ~n & ~s))
    return straight.sum() / c.sum()


def test_bias_makes_the_walk_measurably_straighter():
    """The same floor count dug with more bias: more straight corridor cells and a farther reach from the start."""
    shares, reach = {}, {}
    for bias in (0.0, 0.5, 0.9):
        levels = [random_walk(121, 121, floor_fraction=0.08, bias=bias, seed=s) for s in range(4)]
        shares[bias] = np.mean([corridor_share(lv) for lv in levels])
        reach[bias] = np.mean([walk_distances(lv.walkable, (60, 60))[lv.walkable].mean() for lv in levels])
    # measured: shares 0.04, 0.22, 0.74; mean steps from the start 54, 73, 101
    assert shares[0.0] < 0.1 < shares[0.5] < 0.4 < shares[0.9]
    assert reach[0.0] * 1.2 < reach[0.5] and reach[0.5] * 1.2 < reach[0.9]


def test_more_walkers_dig_a_more_compact_area():
    """Walkers share the centre: with many, the dug area stays nearer the start than one walker's."""
    reach = {}
    for walkers in (1, 32):
        levels = [random_walk(151, 151, floor_fraction=0.05, walkers=walkers, seed=s) for s in range(3)]
        reach[walkers] = np.mean([walk_distances(lv.walkable, (75, 75))[lv.walkable].mean() for lv in levels])
    assert reach[32] < reach[1]


def test_random_walk_same_seed_same_bytes_other_seed_other_level():
    a = random_walk(80, 60, walkers=3, bias=0.4, seed=9)
    b = random_walk(80, 60, walkers=3, bias=0.4, seed=9)
    assert a.grid.tobytes() == b.grid.tobytes() and a.markers == b.markers
    assert random_walk(80, 60, walkers=3, bias=0.4, seed=10).grid.tobytes() != a.grid.tobytes()
    assert a.settings == {**_walk.DEFAULTS, "walkers": 3, "bias": 0.4}


def test_random_walk_through_the_recipe_dispatch():
    spec = LevelSpec(generator="walk", width=40, height=30, seed=2, floor_fraction=0.3, walkers=2)
    assert generate(spec).grid.tobytes() == random_walk(40, 30, floor_fraction=0.3, walkers=2, seed=2).grid.tobytes()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"floor_fraction": 0.0}, r"^floor_fraction must be a finite number in \[0.01, 0.95\], got 0$"),
        ({"floor_fraction": 0.96}, r"^floor_fraction must be a finite number in \[0.01, 0.95\], got 0.96$"),
        ({"floor_fraction": float("inf")}, r"^floor_fraction must be a finite number in \[0.01, 0.95\], got inf$"),
        ({"walkers": 0}, r"^walkers must be an integer in \[1, 256\], got 0$"),
        ({"walkers": 257}, r"^walkers must be an integer in \[1, 256\], got 257$"),
        ({"walkers": True}, r"^walkers must be an integer in \[1, 256\], got True$"),
        ({"bias": -0.1}, r"^bias must be a finite number in \[0, 1\], got -0.1$"),
        ({"bias": 1.0}, r"^bias must be below 1 \(at 1 a walker never turns.*got 1$"),
        ({"enemy_density": 1.5}, r"^enemy_density must be a finite number in \[0, 1\], got 1.5$"),
        ({"loot_chance": "x"}, r"^loot_chance must be a finite number in \[0, 1\], got 'x'$"),
        ({"seed": 2.5}, r"^seed must be an integer in \[0, \d+\], got 2.5$"),
    ],
)
def test_random_walk_bad_settings_name_the_setting_value_and_range(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        random_walk(50, 40, **kwargs)
    if "seed" not in kwargs:
        with pytest.raises(ParameterError, match=match):
            _walk.check_settings(50, 40, **kwargs)


def test_random_walk_refuses_a_fraction_the_inside_cannot_hold_and_bad_sizes():
    with pytest.raises(ParameterError, match=r"^floor_fraction must be at most 0.5625 for the 8 x 8 grid \(36 cells"):
        random_walk(8, 8, floor_fraction=0.6)
    assert int((random_walk(8, 8, floor_fraction=0.5625).grid == FLOOR).sum()) == 36  # every inner cell
    with pytest.raises(ParameterError, match=r"^width must be an integer in \[3, 4096\], got 2$"):
        random_walk(2, 50)
    with pytest.raises(ParameterError, match=r"^height must be an integer in \[3, 4096\], got 4097$"):
        random_walk(50, 4097)
    with pytest.raises(ParameterError, match=r"unknown key\(s\) \['walker'\] in walk settings"):
        _walk.check_settings(50, 40, walker=2)


def test_a_blocked_walker_turns_instead_of_pushing_on_the_border():
    """With bias 0.99 a walker that kept pushing on the border (the first version) took ~5x the steps of
    an unbiased walk to dig 80 x 80 at 0.4 (51k against 10k, means of 3 seeds); turning when blocked: ~1.4x."""
    target = _walk.floor_target(80, 80, 0.4)

    def mean_steps(bias):
        return np.mean([_walk._dig(80, 80, target, 1, bias, np.random.default_rng(s))[1] for s in range(3)])

    free, straight = mean_steps(0.0), mean_steps(0.99)
    assert 5_000 < free < 20_000
    assert straight < 2 * free


@settings(max_examples=80, deadline=None)
@given(
    st.integers(3, 40),
    st.integers(3, 40),
    st.floats(0.01, 0.95),
    st.integers(1, 12),
    st.floats(0.0, 0.99),
    st.integers(0, 2**31 - 1),
)
def test_random_walk_any_settings_give_the_target_connected_or_a_clear_refusal(w, h, fraction, walkers, bias, seed):
    try:
        level = random_walk(w, h, floor_fraction=fraction, walkers=walkers, bias=bias, seed=seed)
    except ParameterError as err:
        if "a level needs at least 2" in str(err):  # the target is one cell: no room for an exit
            assert math.ceil(fraction * w * h - 1e-9) == 1
            return
        assert str(err).startswith("floor_fraction must be at most")
        assert math.ceil(fraction * w * h - 1e-9) > (w - 2) * (h - 2)
        return
    g = level.grid
    assert int((g == FLOOR).sum()) == math.ceil(fraction * w * h - 1e-9)
    assert (g[0] == WALL).all() and (g[-1] == WALL).all() and (g[:, 0] == WALL).all() and (g[:, -1] == WALL).all()
    assert label_regions(level.walkable)[1] == 1


def test_random_walk_records_a_numpy_integer_seed():
    assert random_walk(30, 20, seed=np.int64(5)).seed == 5
