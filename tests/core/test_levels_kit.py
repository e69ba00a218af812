"""core.levels kit_placements and the auto-tile masks (blob 47, wang 16)."""

import math

import numpy as np
import pytest

from core.errors import ParameterError
from core.levels import Level
from core.levels._autotile import (
    BLOB_INDEX,
    BLOB_MASKS,
    NE,
    NW,
    SE,
    SW,
    E,
    N,
    S,
    W,
    blob_canonical,
    blob_masks,
    blob_tiles,
    wang16_masks,
)
from core.levels._kit import KIT_ROLES, kit_placements, kit_role_table

#: Directions (Blender dx, dy) that are open (walkable) at rest, per role; the other sides are closed.
OPEN_AT_REST = {
    "wall": [(0, -1)],
    "outer_corner": [(0, -1), (-1, 0)],
    "wall_double": [(0, -1), (0, 1)],
    "wall_end": [(0, -1), (-1, 0), (1, 0)],
    "pillar": [(0, -1), (-1, 0), (1, 0), (0, 1)],
    "inner_corner": [(-1, -1)],
}
SIDES = [(0, -1), (-1, 0), (1, 0), (0, 1)]


def turned(d, yaw):
    c, s = round(math.cos(yaw)), round(math.sin(yaw))
    return (c * d[0] - s * d[1], s * d[0] + c * d[1])


def walkable_at(walk, col, row, d):
    """Is the neighbour in Blender direction d = (dx, dy) walkable? (+Y is north: row - 1.)"""
    r, c = row - d[1], col + d[0]
    rows, cols = walk.shape
    return 0 <= r < rows and 0 <= c < cols and bool(walk[r, c])


def brute_blob_mask(same, r, c):
    rows, cols = same.shape
    mask = 0
    for bit, dr, dc in (
        (N, -1, 0),
        (NE, -1, 1),
        (E, 0, 1),
        (SE, 1, 1),
        (S, 1, 0),
        (SW, 1, -1),
        (W, 0, -1),
        (NW, -1, -1),
    ):
        rr, cc = r + dr, c + dc
        if 0 <= rr < rows and 0 <= cc < cols and same[rr, cc]:
            mask |= bit
    return mask


# ---------------------------------------------------------------- auto-tile masks


def test_47_distinct_canonical_masks():
    assert len(BLOB_MASKS) == 47 and len(set(BLOB_MASKS.tolist())) == 47
    assert BLOB_INDEX.shape == (256,) and set(BLOB_INDEX.tolist()) == set(range(47))
    for m in range(256):  # a corner survives only with both its edges
        canon = int(blob_canonical(m))
        for corner, a, b in ((NE, N, E), (SE, S, E), (SW, S, W), (NW, N, W)):
            assert bool(canon & corner) == bool(m & corner and m & a and m & b)
        assert BLOB_MASKS[BLOB_INDEX[m]] == canon


def test_blob_and_wang_masks_match_a_plain_reference():
    rng = np.random.default_rng(3)
    same = rng.random((17, 23)) < 0.5
    masks = blob_masks(same)
    wang = wang16_masks(same)
    for r in range(17):
        for c in range(23):
            ref = brute_blob_mask(same, r, c)
            assert masks[r, c] == ref
            wref = (ref & N and 1) | (ref & E and 2) | (ref & S and 4) | (ref & W and 8)
            assert wang[r, c] == wref
    assert np.array_equal(blob_tiles(same), BLOB_INDEX[masks])
    assert wang.max() <= 15


def test_masks_refuse_non_bool():
    with pytest.raises(ParameterError, match="same"):
        blob_masks(np.zeros((3, 3), np.uint8))
    with pytest.raises(ParameterError, match="same"):
        wang16_masks([[True]])


# ---------------------------------------------------------------- kit


def placements_by_cell(k):
    return {(int(x), int(y)): (k.roles[r], float(a)) for (x, y), r, a in zip(k.cells, k.role, k.yaw)}


def test_room_hand_case():
    # a 3 x 2 room in a 5 x 4 map with a door in its south wall at (2, 3)
    g = np.zeros((4, 5), np.uint8)
    g[1:3, 1:4] = 1
    g[3, 2] = 3
    k = placements_by_cell(kit_placements(Level(grid=g), cell_size=2.0))
    assert k[(2, 3)] == ("door", 0.0)  # passage north-south
    assert k[(2, 0)] == ("wall", 0.0)  # the north wall faces south into the room: its rest pose
    assert k[(0, 1)] == ("wall", pytest.approx(math.pi / 2))  # west wall faces east
    assert k[(4, 1)] == ("wall", pytest.approx(3 * math.pi / 2))  # east wall faces west
    assert k[(0, 0)][0] == "inner_corner" and k[(4, 0)][0] == "inner_corner"
    # beside the (walkable) door: open to the room (north) and to the door: outer corners
    assert k[(1, 3)] == ("outer_corner", pytest.approx(math.pi))  # rest S + W turned to N + E
    assert k[(3, 3)] == ("outer_corner", pytest.approx(3 * math.pi / 2))  # rest S + W turned to W + N
    assert all(k[(x, y)][0] == "floor" for x in range(1, 4) for y in range(1, 3))
    assert len(k) == 20  # every cell of this small map touches the room


def test_pillar_wall_end_double_and_outer_corner():
    g = np.ones((5, 7), np.uint8)
    g[2, 1] = 0  # freestanding: pillar
    g[1:4, 4] = 0  # a wall stub north-south: ends at rows 1 and 3, double in the middle
    k = placements_by_cell(kit_placements(Level(grid=g)))
    assert k[(1, 2)] == ("pillar", 0.0)
    assert k[(4, 1)] == ("wall_end", pytest.approx(math.pi))  # joins the wall to its south: rest +Y turned by pi
    assert k[(4, 3)] == ("wall_end", 0.0)  # joins the wall to its north: the rest pose
    assert k[(4, 2)] == ("wall_double", pytest.approx(math.pi / 2))  # floors east and west
    g2 = np.zeros((4, 4), np.uint8)
    g2[2:, 2:] = 1  # floor in the south-east quarter
    g2[3, 3] = 1
    k2 = placements_by_cell(kit_placements(Level(grid=g2)))
    assert k2[(1, 1)][0] == "inner_corner"
    assert k2[(2, 1)][0] == "wall" and k2[(1, 2)][0] == "wall"


def test_door_along_x_turns():
    g = np.zeros((3, 5), np.uint8)
    g[1, :] = 1
    g[1, 2] = 3
    k = placements_by_cell(kit_placements(Level(grid=g)))
    assert k[(2, 1)] == ("door", pytest.approx(math.pi / 2))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_random_grids_every_module_faces_its_floor(seed):
    rng = np.random.default_rng(seed)
    g = (rng.random((29, 37)) < 0.45).astype(np.uint8)
    lv = Level(grid=g)
    walk = lv.walkable
    k = kit_placements(lv, cell_size=1.5, origin=(3.0, 4.0, 5.0))
    cells = placements_by_cell(k)
    assert len(cells) == len(k)  # exactly one module per cell
    for r in range(29):
        for c in range(37):
            touches = any(walkable_at(walk, c, r, (dx, dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)
            assert ((c, r) in cells) == bool(walk[r, c] or touches)
    for (c, r), (role, yaw) in cells.items():
        assert 0 <= yaw < 2 * math.pi and (yaw / (math.pi / 2)) == pytest.approx(round(yaw / (math.pi / 2)))
        if role in ("floor", "door"):
            assert walk[r, c]
            continue
        assert not walk[r, c]
        if role == "junction":
            assert not any(walkable_at(walk, c, r, d) for d in SIDES)
            continue
        opened = {turned(d, yaw) for d in OPEN_AT_REST[role]}
        for d in opened:
            assert walkable_at(walk, c, r, d), (role, yaw, d)
        if role != "inner_corner":
            for d in set(SIDES) - opened:
                assert not walkable_at(walk, c, r, d), (role, yaw, d)
        else:
            assert not any(walkable_at(walk, c, r, d) for d in SIDES)
    # positions: the cell centre at floor level, row 0 at the north
    x, y = k.cells[:, 0], k.cells[:, 1]
    assert np.allclose(k.positions[:, 0], 3.0 + (x + 0.5) * 1.5)
    assert np.allclose(k.positions[:, 1], 4.0 + (29 - y - 0.5) * 1.5)
    assert np.all(k.positions[:, 2] == 5.0)


def test_role_table_is_complete_and_matches_the_placements():
    roles, yaws = kit_role_table()
    assert len(roles) == 256
    assert roles[0] is None  # buried in rock
    assert all(r is not None for r in roles[1:])  # every other mask has a module
    assert set(r for r in roles if r) == set(KIT_ROLES) - {"floor", "door"}


def test_kit_dtypes_deterministic_and_fast_enough_shape():
    rng = np.random.default_rng(11)
    lv = Level(grid=(rng.random((128, 128)) < 0.5).astype(np.uint8))
    a, b = kit_placements(lv), kit_placements(lv)
    assert len(a) > 10_000
    assert a.role.dtype == np.uint8 and a.positions.dtype == np.float32 and a.yaw.dtype == np.float32
    for name in ("role", "positions", "yaw", "cells"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes()


@pytest.mark.parametrize(("kwargs", "match"), [({"cell_size": -2.0}, "cell_size"), ({"origin": "here"}, "origin")])
def test_kit_bad_inputs(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        kit_placements(Level(grid=np.ones((3, 3), np.uint8)), **kwargs)
    with pytest.raises(ParameterError, match="level"):
        kit_placements("level")
