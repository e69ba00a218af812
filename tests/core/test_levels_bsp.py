"""core.levels bsp_dungeon: leaves, rooms, corridors, doors, markers, settings checks."""

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core.errors import ParameterError
from worldseed.core.levels import (
    CORRIDOR,
    DOOR,
    FLOOR,
    GENERATOR_KEYS,
    WALL,
    LevelSpec,
    bsp_dungeon,
    check_spec,
    generate,
    label_regions,
)
from worldseed.core.levels._bsp import ASPECT, LAYOUT_KEYS, bsp_layout, bsp_leaves, check_settings
from worldseed.core.levels._content import marker_cells
from worldseed.core.levels._regions import walk_distances


def four_neighbours(mask):
    out = np.zeros_like(mask)
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def covered_by_squares(walkable, k):
    """(h, w) bool: cells inside some k x k square of walkable cells."""
    h, w = walkable.shape
    s = np.zeros((h + 1, w + 1), np.int64)
    s[1:, 1:] = walkable.cumsum(0).cumsum(1)
    full = (s[k:, k:] - s[:-k, k:] - s[k:, :-k] + s[:-k, :-k]) == k * k  # top-left corners of full squares
    out = np.zeros_like(walkable)
    for dy in range(k):
        for dx in range(k):
            out[dy : dy + full.shape[0], dx : dx + full.shape[1]] |= full
    return out


def check_level(level, s):
    """Every invariant of a BSP level made with settings ``s``."""
    g = level.grid
    h, w = g.shape
    walk = level.walkable
    # the border is wall; one walkable region
    assert not walk[[0, -1], :].any() and not walk[:, [0, -1]].any()
    assert label_regions(walk)[1] == 1
    # rooms: inside the map, no overlaps, sizes in range, floor exactly the rooms
    paint = np.zeros(g.shape, np.int64)
    for x, y, rw, rh in level.rooms:
        assert 1 <= x and x + rw <= w - 1 and 1 <= y and y + rh <= h - 1
        assert s["room_min"] <= rw <= s["room_max"] and s["room_min"] <= rh <= s["room_max"]
        paint[y : y + rh, x : x + rw] += 1
    assert paint.max() == 1
    assert np.array_equal(paint == 1, g == FLOOR)
    # doors: exactly the non-room walkable cells beside a room floor cell; no corridor touches a floor cell
    touches_floor = four_neighbours(g == FLOOR)
    assert np.array_equal(g == DOOR, walk & (g != FLOOR) & touches_floor)
    assert not (touches_floor & (g == CORRIDOR)).any()
    assert set(level.doors) == {(int(x), int(y)) for y, x in zip(*np.nonzero(g == DOOR), strict=True)}
    # corridors of the asked width
    k = s["corridor_width"]
    corridor = (g == CORRIDOR) | (g == DOOR)
    assert covered_by_squares(walk, k)[corridor].all()
    # markers: one spawn, one exit farthest by walking distance, all on distinct usable floor cells
    kinds = [m.kind for m in level.markers]
    usable = marker_cells(g, level.doors)
    if not usable.any():  # rooms too small to keep a marker off a door (room_min 1 or 2): any floor cell
        usable = g == FLOOR
    assert kinds.count("spawn") == 1 and kinds.count("exit") == (walk.sum() > 1)
    assert len({(m.x, m.y) for m in level.markers}) == len(level.markers)
    dist = walk_distances(walk, (level.spawn.x, level.spawn.y))
    assert (dist >= 0)[walk].all()
    if usable.sum() == 1:  # only the spawn's cell is usable (one 1 x 1 room): the exit may be anywhere
        assert len(level.markers) <= 2 and usable[level.spawn.y, level.spawn.x]
        return
    for m in level.markers:
        assert g[m.y, m.x] == FLOOR and usable[m.y, m.x], m
    ex = level.markers_of("exit")[0]
    assert dist[ex.y, ex.x] == dist[usable].max()


settings_strategy = st.fixed_dictionaries(
    {
        "min_leaf": st.integers(4, 12),
        "extra_leaf": st.integers(0, 12),
        "room_min": st.integers(2, 4),
        "room_span": st.integers(0, 8),
        "padding": st.integers(0, 2),
        "corridor_width": st.integers(1, 3),
        "loop_fraction": st.floats(0.0, 1.0),
        "enemy_density": st.floats(0.0, 0.2),
        "loot_chance": st.floats(0.0, 1.0),
    }
)


def draw_settings(d):
    min_leaf = max(d["min_leaf"], d["room_min"] + 2 * d["padding"])
    return {
        "min_leaf": min_leaf,
        "max_leaf": 2 * min_leaf - 1 + d["extra_leaf"],
        "room_min": d["room_min"],
        "room_max": d["room_min"] + d["room_span"],
        "padding": d["padding"],
        "corridor_width": d["corridor_width"],
        "loop_fraction": d["loop_fraction"],
        "enemy_density": d["enemy_density"],
        "loot_chance": d["loot_chance"],
    }


@settings(max_examples=100, deadline=None)
@given(settings_strategy, st.integers(0, 100), st.integers(0, 100), st.integers(0, 2**31 - 1))
def test_invariants_over_many_seeds(d, extra_w, extra_h, seed):
    s = draw_settings(d)
    width, height = s["min_leaf"] + 2 + extra_w, s["min_leaf"] + 2 + extra_h
    check_level(bsp_dungeon(width, height, seed=seed, **s), s)


@settings(max_examples=100, deadline=None)
@given(st.integers(3, 10), st.integers(0, 10), st.integers(3, 200), st.integers(3, 200), st.integers(0, 2**31 - 1))
def test_leaves_tile_the_rectangle_and_follow_the_aspect_rule(min_leaf, extra, w, h, seed):
    max_leaf = 2 * min_leaf - 1 + extra
    w, h = max(w, min_leaf), max(h, min_leaf)
    leaves, nodes = bsp_leaves(2, 3, w, h, min_leaf=min_leaf, max_leaf=max_leaf, rng=np.random.default_rng(seed))
    paint = np.zeros((h + 3, w + 2), np.int64)
    for x, y, lw, lh in leaves.tolist():
        assert lw >= min(min_leaf, w) and lh >= min(min_leaf, h)
        assert lw <= max_leaf and lh <= max_leaf
        paint[y : y + lh, x : x + lw] += 1
    assert paint[3:, 2:].min() == 1 and paint.max() == 1 and paint.sum() == w * h
    assert len(nodes) == len(leaves) - 1
    for first, middle, end, axis, at in nodes:

        def box(a, b):
            part = leaves[a:b]
            x0, y0 = part[:, 0].min(), part[:, 1].min()
            return x0, y0, (part[:, 0] + part[:, 2]).max() - x0, (part[:, 1] + part[:, 3]).max() - y0

        px, py, pw, ph = box(first, end)
        ax, ay, aw, ah = box(first, middle)
        across_x = ah == ph  # the halves side by side: the cut runs across x
        assert (aw == pw) != across_x  # exactly one of the two
        assert axis == (0 if across_x else 1) and at == (ax + aw if across_x else ay + ah)
        if pw > ASPECT * ph:
            assert across_x
        if ph > ASPECT * pw:
            assert not across_x


def test_rooms_inside_their_leaves_with_padding():
    s = {k: getattr(LevelSpec, k) for k in LAYOUT_KEYS}
    s.update(padding=2, min_leaf=10, max_leaf=24, room_min=3)
    for seed in range(5):
        level = bsp_dungeon(96, 80, seed=seed, **s)
        layout = bsp_layout(96, 80, np.random.default_rng(seed).spawn(2)[0], **s)
        assert np.array_equal(layout.grid, level.grid) and layout.rooms == level.rooms
        for (x, y, w, h), (lx, ly, lw, lh) in zip(layout.rooms, layout.leaves.tolist(), strict=True):
            assert lx + 2 <= x and x + w <= lx + lw - 2 and ly + 2 <= y and y + h <= ly + lh - 2


def test_loops():
    s = {k: getattr(LevelSpec, k) for k in LAYOUT_KEYS}
    rng = lambda: np.random.default_rng(5)  # noqa: E731
    tree = bsp_layout(100, 100, rng(), **{**s, "loop_fraction": 0.0})
    full = bsp_layout(100, 100, rng(), **{**s, "loop_fraction": 1.0})
    half = bsp_layout(100, 100, rng(), **{**s, "loop_fraction": 0.5})
    n = len(tree.rooms)
    assert len(tree.links) == n - 1 and len(set(tree.links)) == n - 1
    spare = len(full.links) - (n - 1)
    assert spare > n // 2  # every pair of neighbouring leaves joined: many more
    assert len(half.links) - (n - 1) == int(np.floor(0.5 * spare + 0.5))
    assert (full.grid == CORRIDOR).sum() > (tree.grid == CORRIDOR).sum()
    # a loop corridor joins two neighbouring leaves
    for i, j in full.links[n - 1 :]:
        (ax, ay, aw, ah), (bx, by, bw, bh) = full.leaves[i].tolist(), full.leaves[j].tolist()
        side = (ax + aw == bx or bx + bw == ax) and min(ay + ah, by + bh) > max(ay, by)
        stacked = (ay + ah == by or by + bh == ay) and min(ax + aw, bx + bw) > max(ax, bx)
        assert side or stacked


@pytest.mark.parametrize("k", [1, 2, 3])
def test_corridor_width_at_scale(k):
    s = {k_: getattr(LevelSpec, k_) for k_ in LAYOUT_KEYS}
    level = bsp_dungeon(160, 120, seed=11, corridor_width=k)
    s.update(corridor_width=k, enemy_density=0.02, loot_chance=0.3)
    check_level(level, s)
    if k > 1:  # and not narrower: some corridor cell is in no (k+1)-wide... but in a k-wide square
        corridor = level.grid == CORRIDOR
        assert covered_by_squares(level.walkable, k)[corridor].all()
        assert not covered_by_squares(level.walkable, k + 1)[corridor].all()


def test_deterministic_and_seeded():
    a, b, c = bsp_dungeon(80, 60, seed=4), bsp_dungeon(80, 60, seed=4), bsp_dungeon(80, 60, seed=5)
    assert a.grid.tobytes() == b.grid.tobytes() and a.markers == b.markers and a.rooms == b.rooms
    assert a.grid.tobytes() != c.grid.tobytes()
    assert a.generator == "bsp" and a.seed == 4 and a.settings["room_max"] == 12
    assert a.grid.dtype == np.uint8 and a.grid.shape == (60, 80)


def test_big_map_many_rooms_and_content():
    level = bsp_dungeon(256, 256, seed=0)
    assert len(level.rooms) >= 40
    kinds = [m.kind for m in level.markers]
    floors = [int((level.grid[y : y + h, x : x + w] == FLOOR).sum()) for x, y, w, h in level.rooms]
    assert kinds.count("enemy") > 0.5 * sum(round(0.02 * f) for f in floors)
    assert 0.15 * len(level.rooms) < kinds.count("loot") < 0.45 * len(level.rooms)


def test_spec_and_generate():
    spec = LevelSpec(generator="bsp", width=48, height=40, seed=3, room_max=8)
    level = generate(spec)
    assert level.generator == "bsp" and level.seed == 3
    assert level.grid.tobytes() == bsp_dungeon(48, 40, seed=3, room_max=8).grid.tobytes()
    with pytest.raises(ParameterError, match=r"^level\.room_min must be at most room_max = 3, got 4"):
        check_spec(LevelSpec(generator="bsp", room_max=3))


def test_signature_defaults_are_the_spec_defaults():
    params = inspect.signature(bsp_dungeon).parameters
    assert [k for k, p in params.items() if p.kind is p.KEYWORD_ONLY and k != "seed"] == list(GENERATOR_KEYS["bsp"])
    for key in GENERATOR_KEYS["bsp"]:
        assert params[key].default == getattr(LevelSpec, key), key


@pytest.mark.parametrize(
    ("width", "height", "bad", "message"),
    [
        (64, 64, {"room_min": 7, "padding": 1}, r"^room_min \+ 2 \* padding = 9 is more than min_leaf = 8"),
        (64, 64, {"padding": 10}, r"fit in the smallest leaf \(padding at most 2 with room_min 4\)$"),
        (64, 64, {"room_min": 5, "room_max": 4}, r"^room_min must be at most room_max = 4, got 5"),
        (64, 64, {"min_leaf": 10, "max_leaf": 8}, r"^max_leaf must be at least 2 \* min_leaf - 1 = 19 .*got 8"),
        (64, 64, {"min_leaf": 8, "max_leaf": 14}, r"^max_leaf must be at least .* = 15"),
        (9, 64, {}, r"^width must be at least min_leaf \+ 2 = 10 .*got 9"),
        (64, 5, {}, r"^height must be at least min_leaf \+ 2 = 10 .*got 5"),
        (5000, 64, {}, r"^width must be an integer in \[1, 4096\], got 5000"),
        (64, 64, {"corridor_width": 4}, r"^corridor_width must be an integer in \[1, 3\], got 4"),
        (64, 64, {"loop_fraction": 1.5}, r"^loop_fraction must be a finite number in \[0, 1\], got 1.5"),
        (64, 64, {"enemy_density": float("nan")}, r"^enemy_density must be"),
        (64, 64, {"padding": -1}, r"^padding must be an integer in \[0, 64\], got -1"),
        (64, 64, {"min_leaf": 2}, r"^min_leaf must be an integer in \[3, 4096\], got 2"),
        (64, 64, {"room_min": 2.5}, r"^room_min must be an integer"),
        (64, 64, {"fill": 0.5}, r"^fill is not a setting of this generator"),
    ],
)
def test_bad_settings_refused_before_work(width, height, bad, message):
    with pytest.raises(ParameterError, match=message):
        check_settings(width, height, **bad)
    if "fill" not in bad:
        with pytest.raises(ParameterError, match=message):
            bsp_dungeon(width, height, **bad)


def test_grid_limit_refused_before_allocating():
    # 4096 x 4096 is allowed by the cell limit; the refusal names the bound of one side first
    with pytest.raises(ParameterError, match=r"^height must be an integer in \[1, 4096\], got 10000"):
        bsp_dungeon(4096, 10_000)
    assert WALL == 0
