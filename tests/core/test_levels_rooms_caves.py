"""core.levels rooms_caves: BSP rooms shaped by the cave automaton, still one region."""

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
    rooms_caves,
)
from worldseed.core.levels._content import marker_cells
from worldseed.core.levels._regions import walk_distances
from worldseed.core.levels._rooms_caves import KEYS, check_settings


def four_neighbours(mask):
    out = np.zeros_like(mask)
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def check_level(level):
    g = level.grid
    walk = level.walkable
    assert not walk[[0, -1], :].any() and not walk[:, [0, -1]].any()
    assert label_regions(walk)[1] == 1
    rooms = np.zeros(g.shape, bool)
    for x, y, w, h in level.rooms:
        rooms[y : y + h, x : x + w] = True
    assert not (g == FLOOR)[~rooms].any()  # the caves stay inside the room rectangles
    touches_floor = four_neighbours(g == FLOOR)
    assert np.array_equal(g == DOOR, walk & (g != FLOOR) & touches_floor)
    assert set(level.doors) == {(int(x), int(y)) for y, x in zip(*np.nonzero(g == DOOR), strict=True)}
    kinds = [m.kind for m in level.markers]
    assert kinds.count("spawn") == 1 and kinds.count("exit") == (walk.sum() > 1)
    assert len({(m.x, m.y) for m in level.markers}) == len(level.markers)
    usable = marker_cells(g, level.doors)
    if not usable.any():
        usable = g == FLOOR
    dist = walk_distances(walk, (level.spawn.x, level.spawn.y))
    assert (dist >= 0)[walk].all()
    if usable.sum() > 1:
        for m in level.markers:
            assert usable[m.y, m.x], m
        ex = level.markers_of("exit")[0]
        assert dist[ex.y, ex.x] == dist[usable].max()


@settings(max_examples=60, deadline=None)
@given(
    st.integers(4, 10),
    st.integers(2, 4),
    st.integers(0, 2),
    st.integers(1, 3),
    st.floats(0.0, 1.0),
    st.integers(0, 8),
    st.integers(0, 60),
    st.integers(0, 60),
    st.integers(0, 2**31 - 1),
)
def test_one_region_over_many_seeds(min_leaf, room_min, padding, k, fill, steps, extra_w, extra_h, seed):
    min_leaf = max(min_leaf, room_min + 2 * padding)
    s = dict(min_leaf=min_leaf, max_leaf=2 * min_leaf + 3, room_min=room_min, room_max=room_min + 6, padding=padding)
    level = rooms_caves(
        min_leaf + 2 + extra_w, min_leaf + 2 + extra_h, corridor_width=k, fill=fill, steps=steps, seed=seed, **s
    )
    check_level(level)


def test_same_layout_as_the_bsp_dungeon():
    for seed in range(4):
        bsp = bsp_dungeon(90, 70, seed=seed)
        rc = rooms_caves(90, 70, seed=seed)
        assert rc.rooms == bsp.rooms
        corridors = (bsp.grid == CORRIDOR) | (bsp.grid == DOOR)
        assert rc.walkable[corridors].all()  # every BSP corridor is still there
        # the caves: some room cells walled, many kept
        floor = (rc.grid == FLOOR).sum()
        assert 0.3 * (bsp.grid == FLOOR).sum() < floor < 0.95 * (bsp.grid == FLOOR).sum()
        check_level(rc)


def test_no_fill_no_steps_is_the_bsp_dungeon():
    a = rooms_caves(80, 60, seed=9, fill=0.0, steps=0)
    b = bsp_dungeon(80, 60, seed=9)
    assert a.grid.tobytes() == b.grid.tobytes() and a.doors == b.doors and a.markers == b.markers


def test_full_fill_leaves_tunnels_between_the_doors():
    level = rooms_caves(80, 60, seed=2, fill=1.0, steps=3)
    check_level(level)
    assert (level.grid == FLOOR).sum() < 0.25 * sum(w * h for _, _, w, h in level.rooms)


def test_deterministic_and_seeded():
    a, b, c = rooms_caves(70, 50, seed=1), rooms_caves(70, 50, seed=1), rooms_caves(70, 50, seed=2)
    assert a.grid.tobytes() == b.grid.tobytes() and a.markers == b.markers
    assert a.grid.tobytes() != c.grid.tobytes()
    assert a.generator == "rooms_caves" and a.seed == 1 and a.settings["fill"] == 0.45


def test_spec_and_generate():
    spec = LevelSpec(generator="rooms_caves", width=50, height=40, seed=6, fill=0.5)
    assert generate(spec).grid.tobytes() == rooms_caves(50, 40, seed=6, fill=0.5).grid.tobytes()
    with pytest.raises(ParameterError, match=r"^level\.max_leaf must be at least"):
        check_spec(LevelSpec(generator="rooms_caves", min_leaf=12, max_leaf=20))


def test_signature_defaults_are_the_spec_defaults():
    params = inspect.signature(rooms_caves).parameters
    assert KEYS == GENERATOR_KEYS["rooms_caves"] and [
        k for k, p in params.items() if p.kind is p.KEYWORD_ONLY and k != "seed"
    ] == list(KEYS)
    for key in KEYS:
        assert params[key].default == getattr(LevelSpec, key), key


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"fill": 1.5}, r"^fill must be a finite number in \[0, 1\], got 1.5"),
        ({"fill": "lots"}, r"^fill must be a finite number"),
        ({"steps": 33}, r"^steps must be an integer in \[0, 32\], got 33"),
        ({"room_min": 9, "room_max": 12}, r"^room_min \+ 2 \* padding = 11 is more than min_leaf = 8"),
        ({"connect": "largest"}, r"^connect is not a setting of this generator"),
    ],
)
def test_bad_settings(bad, message):
    with pytest.raises(ParameterError, match=message):
        check_settings(64, 64, **bad)
    if "connect" not in bad:
        with pytest.raises(ParameterError, match=message):
            rooms_caves(64, 64, **bad)
    with pytest.raises(ParameterError, match=r"^width must be at least min_leaf \+ 2"):
        rooms_caves(9, 64)
    assert WALL == 0
