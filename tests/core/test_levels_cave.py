"""core.levels.cave and its automaton: the rule cell for cell, one region, the border, min_region, content."""

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core.errors import ParameterError
from worldseed.core.levels import CORRIDOR, FLOOR, WALL, LevelSpec, _cave, cave, check_spec, generate, label_regions
from worldseed.core.levels._regions import walk_distances


def reference_automaton(walls, steps):
    """The cave rule as written: per cell, count the 8 neighbours (outside = wall); > 4 wall, 4 keep, < 4 floor."""
    h, w = len(walls), len(walls[0])
    cur = [[bool(v) for v in row] for row in walls]
    for _ in range(steps):
        nxt = [[False] * w for _ in range(h)]
        for y in range(h):
            for x in range(w):
                n = 0
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        if dy == 0 and dx == 0:
                            continue
                        yy, xx = y + dy, x + dx
                        if not (0 <= yy < h and 0 <= xx < w) or cur[yy][xx]:
                            n += 1
                nxt[y][x] = True if n > 4 else (cur[y][x] if n == 4 else False)
        cur = nxt  # double-buffered: every cell read the previous grid
    return np.array(cur, bool).reshape(h, w)


def pre_connect_labels(width, height, fill, steps, seed):
    """Regions of the cave before the connect step, rebuilt from the documented steps."""
    rng = np.random.default_rng(seed)
    walls = rng.random((height, width), dtype=np.float32) < np.float32(fill)
    walls[0] = walls[-1] = walls[:, 0] = walls[:, -1] = True
    walls = reference_automaton(walls, steps) if width * height <= 900 else _cave.automaton(walls, steps)
    walls[0] = walls[-1] = walls[:, 0] = walls[:, -1] = True
    return label_regions(~walls)


# --- the automaton ---------------------------------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 20), st.integers(1, 20), st.floats(0.0, 1.0), st.integers(0, 6), st.integers(0, 2**32 - 1))
def test_automaton_equals_the_per_cell_rule(h, w, fill, steps, seed):
    walls = np.random.default_rng(seed).random((h, w)) < fill
    keep = walls.copy()
    got = _cave.automaton(walls, steps)
    assert got.dtype == bool and got.shape == (h, w)
    np.testing.assert_array_equal(got, reference_automaton(walls, steps))
    np.testing.assert_array_equal(walls, keep)  # never in place


@pytest.mark.parametrize("size, seed", [((48, 64), 0), ((33, 17), 5), ((60, 60), 9)])
def test_automaton_equals_the_rule_on_cave_sized_grids(size, seed):
    walls = np.random.default_rng(seed).random(size) < 0.45
    np.testing.assert_array_equal(_cave.automaton(walls, 5), reference_automaton(walls, 5))


def test_automaton_zero_steps_is_a_copy_and_bad_input_is_refused():
    walls = np.eye(4, dtype=bool)
    out = _cave.automaton(walls, 0)
    assert out is not walls and (out == walls).all()
    with pytest.raises(ParameterError, match="steps must be an integer in \\[0, inf\\], got -1"):
        _cave.automaton(walls, -1)
    with pytest.raises(ParameterError, match="walls must be a 2-dimensional array of bool"):
        _cave.automaton(np.zeros(4, bool), 1)


# --- cave ----------------------------------------------------------------------------------------


def test_cave_signature():
    sig = inspect.signature(cave)
    assert list(sig.parameters)[:2] == ["width", "height"]
    want = {"fill": 0.45, "steps": 5, "connect": "tunnels", "min_region": 12, "enemy_density": 0.02, "loot_chance": 0.3}
    for name, default in {**want, "seed": 0}.items():
        assert sig.parameters[name].kind is inspect.Parameter.KEYWORD_ONLY and sig.parameters[name].default == default


def check_level(level, width, height):
    g = level.grid
    assert g.dtype == np.uint8 and g.shape == (height, width)
    assert set(np.unique(g)) <= {WALL, FLOOR, CORRIDOR}
    assert (g[0] == WALL).all() and (g[-1] == WALL).all() and (g[:, 0] == WALL).all() and (g[:, -1] == WALL).all()
    assert label_regions(level.walkable)[1] == 1
    spawn = level.spawn
    assert len(level.markers_of("spawn")) == 1 and g[spawn.y, spawn.x] == FLOOR
    dist = walk_distances(level.walkable, (spawn.x, spawn.y))
    assert (dist[level.walkable] >= 0).all()  # every walkable cell reachable from the spawn
    (exit_,) = level.markers_of("exit")
    assert dist[exit_.y, exit_.x] == dist[g == FLOOR].max()
    cells = [(m.x, m.y) for m in level.markers]
    assert len(set(cells)) == len(cells) and all(g[y, x] == FLOOR for x, y in cells)


@pytest.mark.parametrize(
    "width, height, fill, steps, min_region, seed",
    [  # each drops some regions and keeps several (80 x 80 seed 2 has one of exactly 12 cells: kept)
        (80, 80, 0.45, 5, 15, 0),
        (64, 40, 0.5, 4, 30, 3),
        (80, 80, 0.48, 5, 12, 2),
        (100, 70, 0.5, 5, 20, 5),
        (25, 60, 0.55, 5, 50, 8),
        (120, 90, 0.42, 6, 0, 11),
    ],
)
def test_cave_tunnels_one_region_border_min_region(width, height, fill, steps, min_region, seed):
    level = cave(width, height, fill=fill, steps=steps, min_region=min_region, seed=seed)
    check_level(level, width, height)
    assert level.generator == "cave" and level.seed == seed and level.rooms == () and level.doors == ()
    labels, count = pre_connect_labels(width, height, fill, steps, seed)
    sizes = np.bincount(labels[labels >= 0], minlength=count)
    big = sizes >= max(min_region, 1)
    kept = big[labels] & (labels >= 0)
    # floor is exactly the regions of at least min_region cells; the tunnels are the only other walkable cells
    np.testing.assert_array_equal(level.grid == FLOOR, kept)
    assert (~kept[level.grid == CORRIDOR]).all()
    if big.sum() > 1:
        assert (level.grid == CORRIDOR).any()
    assert (sizes < min_region).any() or min_region <= 1  # the cases do drop small regions


@pytest.mark.parametrize("seed", [0, 1, 2, 7])
def test_cave_largest_keeps_the_largest_region(seed):
    level = cave(70, 50, fill=0.5, connect="largest", seed=seed)
    check_level(level, 70, 50)
    labels, count = pre_connect_labels(70, 50, 0.5, 5, seed)
    sizes = np.bincount(labels[labels >= 0], minlength=count)
    assert (sizes >= 12).sum() > 1  # tunnels would have kept more than one
    np.testing.assert_array_equal(level.walkable, labels == int(np.argmax(sizes)))
    assert not (level.grid == CORRIDOR).any()


def test_cave_same_seed_same_bytes_other_seed_other_cave():
    a, b = cave(90, 70, seed=21), cave(90, 70, seed=21)
    assert a.grid.tobytes() == b.grid.tobytes() and a.markers == b.markers
    assert cave(90, 70, seed=22).grid.tobytes() != a.grid.tobytes()
    assert a.settings == {**_cave.DEFAULTS}


def test_cave_fill_zero_is_one_open_room_and_tiny_caves_are_refused_clearly():
    level = cave(12, 9, fill=0.0)  # one open room; its four corners have 5 wall neighbours and close
    inner = level.grid[1:-1, 1:-1]
    assert (inner == FLOOR).sum() == 10 * 7 - 4 and (inner[[0, 0, -1, -1], [0, -1, 0, -1]] == WALL).all()
    with pytest.raises(ParameterError, match=r"^min_region must be at most 1 \(the cells inside the wall border"):
        cave(3, 3)
    with pytest.raises(ParameterError, match=r"no floor region of at least min_region=1 cells .*\(fill=0.45"):
        cave(3, 3, min_region=1)  # one inner cell, with 8 wall neighbours: wall after the first step
    with pytest.raises(ParameterError, match="lower fill or min_region"):
        cave(40, 40, fill=0.9, seed=1)


def test_cave_through_the_recipe_dispatch():
    spec = LevelSpec(generator="cave", width=50, height=40, seed=3, fill=0.48, connect="largest")
    check_spec(spec)
    level = generate(spec)
    assert level.grid.tobytes() == cave(50, 40, fill=0.48, connect="largest", seed=3).grid.tobytes()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"fill": 1.5}, r"^fill must be a finite number in \[0, 1\], got 1.5$"),
        ({"fill": -0.1}, r"^fill must be a finite number in \[0, 1\], got -0.1$"),
        ({"fill": float("nan")}, r"^fill must be a finite number in \[0, 1\], got nan$"),
        ({"fill": "half"}, r"^fill must be a finite number in \[0, 1\], got 'half'$"),
        ({"fill": 1.0}, r"^fill must be below 1 .* got 1$"),
        ({"steps": -1}, r"^steps must be an integer in \[0, 32\], got -1$"),
        ({"steps": 33}, r"^steps must be an integer in \[0, 32\], got 33$"),
        ({"steps": 2.5}, r"^steps must be an integer in \[0, 32\], got 2.5$"),
        ({"connect": "bridges"}, r"^connect must be one of 'tunnels', 'largest', got 'bridges'"),
        ({"min_region": -1}, r"^min_region must be an integer in \[0, 16777216\], got -1$"),
        ({"min_region": 4000}, r"^min_region must be at most 3,364 \(the cells inside the wall border of a 60 x 60"),
        ({"enemy_density": 2.0}, r"^enemy_density must be a finite number in \[0, 1\], got 2$"),
        ({"loot_chance": -1}, r"^loot_chance must be a finite number in \[0, 1\], got -1$"),
        ({"seed": -1}, r"^seed must be an integer in \[0, \d+\], got -1$"),
        ({"fil": 0.5}, r"unknown key\(s\) \['fil'\] in cave settings \(did you mean 'fil' -> 'fill'\?\)"),
    ],
)
def test_cave_bad_settings_name_the_setting_value_and_range(kwargs, match):
    if "fil" not in kwargs:
        with pytest.raises(ParameterError, match=match):
            cave(60, 60, **kwargs)
    if "seed" not in kwargs:
        with pytest.raises(ParameterError, match=match):
            _cave.check_settings(60, 60, **kwargs)


@pytest.mark.parametrize(
    "width, height, match",
    [
        (2, 40, r"^width must be an integer in \[3, 4096\], got 2$"),
        (40, 0, r"^height must be an integer in \[3, 4096\], got 0$"),
        (5000, 40, r"^width must be an integer in \[3, 4096\], got 5000$"),
        (40, 1e12, r"^height must be an integer in \[3, 4096\], got 1000000000000$"),
        ("40", 40, r"^width must be an integer in \[3, 4096\], got '40'$"),
    ],
)
def test_cave_bad_sizes_are_refused_before_allocating(width, height, match):
    with pytest.raises(ParameterError, match=match):
        cave(width, height)


def test_check_size_refuses_more_cells_than_max_cells():
    """Sides up to 4096 cannot exceed MAX_CELLS (4096^2) together; with longer sides allowed, the cells are counted."""
    assert _cave.check_size(4096, 4096) == (4096, 4096)
    with pytest.raises(
        ParameterError, match=r"^width x height 5000 x 4000 has 20,000,000 cells, more than the 16,777,216"
    ):
        _cave.check_size(5000, 4000, max_side=10_000)


def test_cave_grid_is_the_cave_without_its_markers():
    level = cave(90, 60, fill=0.5, seed=4)
    grid = _cave.cave_grid(90, 60, fill=0.5, steps=5, connect="tunnels", min_region=12, rng=np.random.default_rng(4))
    assert grid.tobytes() == level.grid.tobytes()


@settings(max_examples=80, deadline=None)
@given(
    st.integers(3, 40),
    st.integers(3, 40),
    st.floats(0.0, 0.99),
    st.integers(0, 8),
    st.sampled_from(["tunnels", "largest"]),
    st.integers(0, 30),
    st.integers(0, 2**31 - 1),
)
def test_cave_any_settings_give_one_reachable_region_or_a_clear_refusal(w, h, fill, steps, connect, min_region, seed):
    try:
        level = cave(
            w, h, fill=fill, steps=steps, connect=connect, min_region=min(min_region, (w - 2) * (h - 2)), seed=seed
        )
    except ParameterError as err:
        assert "no floor region of at least min_region" in str(err) or (
            "only 1 walkable cell: a level needs at least 2" in str(err)  # no room for an exit
        )
        return
    g = level.grid
    assert (g[0] == WALL).all() and (g[-1] == WALL).all() and (g[:, 0] == WALL).all() and (g[:, -1] == WALL).all()
    assert label_regions(level.walkable)[1] == 1
    spawn = level.spawn
    assert (walk_distances(level.walkable, (spawn.x, spawn.y))[level.walkable] >= 0).all()


def test_cave_records_a_numpy_integer_seed():
    assert cave(30, 20, seed=np.int64(5)).seed == 5 == cave(30, 20, seed=5).seed
