"""core.levels place_markers: spawn, exit, enemies and loot on safe floor cells."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core.errors import ParameterError
from worldseed.core.levels import CORRIDOR, DOOR, FLOOR, WALL, label_regions
from worldseed.core.levels._content import LOOT_AREA, SAFE_STEPS, marker_cells, place_markers
from worldseed.core.levels._regions import walk_distances


def two_rooms():
    """Two 8 x 10 rooms joined by a corridor through a door on each side."""
    g = np.zeros((12, 22), np.uint8)
    g[1:11, 1:9] = FLOOR
    g[1:11, 13:21] = FLOOR
    g[5, 9:13] = CORRIDOR
    g[5, 9] = g[5, 12] = DOOR
    return g, [(1, 1, 8, 10), (13, 1, 8, 10)], [(9, 5), (12, 5)]


def cells(ms, kind=None):
    return [(m.x, m.y) for m in ms if kind is None or m.kind == kind]


@pytest.mark.parametrize("seed", range(6))
def test_rooms_spawn_exit_enemies_loot(seed):
    g, rooms, doors = two_rooms()
    ms = place_markers(g, rooms=rooms, doors=doors, rng=seed, enemy_density=0.05, loot_chance=1.0)
    assert [m.kind for m in ms].count("spawn") == 1 and [m.kind for m in ms].count("exit") == 1
    assert len(set(cells(ms))) == len(ms)  # distinct cells
    for m in ms:
        assert g[m.y, m.x] == FLOOR
        assert all(abs(m.x - dx) > 1 or abs(m.y - dy) > 1 for dx, dy in doors), m
    (sx, sy), (ex, ey) = cells(ms, "spawn")[0], cells(ms, "exit")[0]
    dist = walk_distances(g != WALL, (sx, sy))
    usable = marker_cells(g, doors)
    assert dist[ey, ex] == dist[usable].max()
    # the exit is in the other room; the spawn room gets no enemy, the other round(0.05 * 80) = 4; loot 1 each
    spawn_room = 0 if sx < 9 else 1
    inside = [sum(rx <= x < rx + rw and ry <= y < ry + rh for x, y in cells(ms, "enemy")) for rx, ry, rw, rh in rooms]
    assert inside[spawn_room] == 0 and inside[1 - spawn_room] == 4
    assert len(cells(ms, "loot")) == 2


def test_deterministic_and_seed_dependent():
    g, rooms, doors = two_rooms()
    a = place_markers(g, rooms=rooms, doors=doors, rng=3, enemy_density=0.1, loot_chance=0.5)
    b = place_markers(g, rooms=rooms, doors=doors, rng=np.random.default_rng(3), enemy_density=0.1, loot_chance=0.5)
    c = place_markers(g, rooms=rooms, doors=doors, rng=4, enemy_density=0.1, loot_chance=0.5)
    assert a == b
    assert a != c


def test_without_rooms_one_area():
    rng = np.random.default_rng(1)
    g = np.zeros((40, 40), np.uint8)
    g[1:39, 1:39] = FLOOR
    g[rng.random(g.shape) < 0.1] = WALL
    labels, _ = label_regions(g != WALL)
    g[(labels != labels[20, 20])] = WALL  # one region
    n_floor = int((g == FLOOR).sum())
    ms = place_markers(g, rng=2, enemy_density=0.02, loot_chance=0.5)
    spawn = cells(ms, "spawn")[0]
    dist = walk_distances(g != WALL, spawn)
    assert len(cells(ms, "enemy")) == int(np.floor(0.02 * n_floor + 0.5))
    assert len(cells(ms, "loot")) == int(np.floor(0.5 * n_floor / LOOT_AREA + 0.5))
    assert all(dist[y, x] >= SAFE_STEPS for x, y in cells(ms, "enemy"))
    ex, ey = cells(ms, "exit")[0]
    assert dist[ey, ex] == dist[marker_cells(g)].max()


def test_corridor_and_door_cells_never_used():
    g, rooms, doors = two_rooms()
    usable = marker_cells(g, doors)
    assert not usable[g == CORRIDOR].any() and not usable[g == DOOR].any()
    assert not usable[4:7, 8].any() and not usable[4:7, 13].any()  # beside the doors
    # a 1-cell-wide room: every inner cell would cut it, none is usable
    g2 = np.zeros((5, 9), np.uint8)
    g2[2, 1:8] = FLOOR
    assert not marker_cells(g2)[2, 2:7].any()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.2, 0.6))
def test_a_marker_cell_never_disconnects(seed, fill):
    """Walling up any one usable cell leaves every other walkable cell as connected as before."""
    rng = np.random.default_rng(seed)
    g = np.where(rng.random((9, 11)) < fill, WALL, FLOOR).astype(np.uint8)
    usable = marker_cells(g)
    _, before = label_regions(g != WALL)
    for y, x in zip(*np.nonzero(usable), strict=True):
        walk = g != WALL
        alone = not (walk[max(y - 1, 0) : y + 2, x].sum() + walk[y, max(x - 1, 0) : x + 2].sum() - 2)
        walk[y, x] = False
        _, after = label_regions(walk)
        assert after == before - alone, (y, x)


def test_fallbacks_and_bad_input():
    g = np.zeros((3, 4), np.uint8)
    with pytest.raises(ParameterError, match="no walkable cell"):
        place_markers(g, rng=0)
    g[1, 1] = FLOOR
    with pytest.raises(ParameterError, match="only 1 walkable cell: a level needs at least 2"):
        place_markers(g, rng=0)  # a spawn without an exit is no level
    g[1, 1:3] = CORRIDOR  # no floor at all: spawn and exit still on walkable cells
    assert sorted(m.kind for m in place_markers(g, rng=0)) == ["exit", "spawn"]
    with pytest.raises(ParameterError, match=r"enemy_density must be .*\[0, 1\], got 2"):
        place_markers(g, rng=0, enemy_density=2)
    with pytest.raises(ParameterError, match="loot_chance"):
        place_markers(g, rng=0, loot_chance=-0.1)


# --------------------------------------------------------------------------- estimate before making


@pytest.mark.parametrize(
    ("settings", "size"),
    [
        ({"generator": "bsp"}, (700, 520)),
        ({"generator": "cave", "enemy_density": 0.05}, (640, 640)),
        ({"generator": "walk", "loot_chance": 1.0}, (600, 500)),
        ({"generator": "rooms_caves"}, (560, 700)),
    ],
)
def test_the_marker_estimate_is_near_the_count_of_the_level_made(settings, size):
    # the up-front check of a level's markers scales a small level of the same settings
    from worldseed.core.levels import LevelSpec, estimate_markers, generate

    spec = LevelSpec(**settings, width=size[0], height=size[1], seed=4)
    count = len(generate(spec).markers)
    assert count > 500
    assert 0.85 < estimate_markers(spec) / count < 1.15


def test_small_levels_get_no_estimate_and_mazes_and_wfc_levels_have_two_markers():
    from worldseed.core.levels import LevelSpec, estimate_markers, grid_shape

    assert estimate_markers(LevelSpec(generator="cave", width=300, height=200, enemy_density=0.1)) is None
    maze = LevelSpec(generator="maze", width=1500, height=1000)
    assert estimate_markers(maze) == 2 and grid_shape(maze) == (2001, 3001)
    assert estimate_markers(LevelSpec(generator="wfc", wfc_tileset="roads", width=1024, height=1024)) == 2
    # settings that need more than the small grid: counted once made
    big_leaves = LevelSpec(generator="bsp", width=800, height=700, min_leaf=300, max_leaf=700, room_max=200)
    assert estimate_markers(big_leaves) is None
