"""Maze rooms and loops: the room tiling, the settings check it bounds, and the walls opened after the tree."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .._checks import check_int
from ..errors import ParameterError
from ..spec import check_value
from ._fields import LIMITS
from ._level import MAX_CELLS

__all__ = ["check_settings", "place_rooms", "open_rooms", "open_loops", "MIN_SIDE", "ROOM_MAX", "ROOM_TILE"]

#: Smallest width or height, in maze cells.
MIN_SIDE = 2
#: Largest side of a room, in maze cells.
ROOM_MAX = 6
#: Smallest tile a room is placed in (a room of 2 cells and a margin of 1), in maze cells.
ROOM_TILE = 3


def _room_tiles(width: int, height: int, rooms: int) -> tuple[int, int]:
    """``(tiles across, tiles down)`` for ``rooms`` rooms: tiles as large as possible, each >= ROOM_TILE."""
    best = None
    for across in range(1, width // ROOM_TILE + 1):
        down = -(-rooms // across)
        if down > height // ROOM_TILE:
            continue
        side = min(width // across, height // down)
        if best is None or side > best[0]:
            best = (side, across, down)
    assert best is not None, "one tile a room always fits"
    return best[1], best[2]


def _room_max(width: int, height: int, rooms: int) -> tuple[int, int]:
    """Largest room ``(w, h)`` the layout of ``rooms`` rooms allows, in maze cells."""
    across, down = _room_tiles(width, height, rooms)
    return min(width // across - 1, ROOM_MAX), min(height // down - 1, ROOM_MAX)


def _walls_for_loops(width: int, height: int, rooms: int) -> int:
    """Closed walls between maze cells that are certainly left for loops after ``rooms`` rooms.

    A perfect maze keeps ``(width - 1) * (height - 1)`` walls closed; a room opens at most all of
    its inner walls.
    """
    walls = (width - 1) * (height - 1)
    if rooms:
        rw, rh = _room_max(width, height, rooms)
        walls -= rooms * (rw * (rh - 1) + rh * (rw - 1))
    return max(walls, 0)


def check_settings(width: int, height: int, *, algorithm: str = "dfs", loops: int = 0, rooms: int = 0) -> None:
    """Refuse impossible maze settings before any work, naming the setting, its value and what is allowed.

    >>> for bad in ({"algorithm": "dsf"}, {"loops": 7}):
    ...     try:
    ...         check_settings(4, 3, **bad)
    ...     except ParameterError as err:
    ...         print(err)
    algorithm must be one of 'dfs', 'prim', 'kruskal', 'wilson', got 'dsf' (did you mean 'dfs'?)
    loops must be at most 6 for a 4 x 3 maze (its walls between cells once it is perfect), got 7
    """
    hi = LIMITS["width"].bounds[1]
    width = check_int(width, name="width", bounds=(MIN_SIDE, hi))
    height = check_int(height, name="height", bounds=(MIN_SIDE, hi))
    cells = (2 * width + 1) * (2 * height + 1)
    if cells > MAX_CELLS:
        raise ParameterError(
            f"width x height = {width} x {height} maze cells make a {2 * width + 1} x {2 * height + 1} grid "
            f"({cells:,} cells); at most {MAX_CELLS:,} grid cells are allowed"
        )
    check_value(algorithm, LIMITS["algorithm"], name="algorithm")
    rooms = check_value(rooms, LIMITS["rooms"], name="rooms")
    most = (width // ROOM_TILE) * (height // ROOM_TILE)
    if rooms > most:
        raise ParameterError(
            f"rooms must be at most {most} for a {width} x {height} maze (a room and its margin take "
            f"{ROOM_TILE} x {ROOM_TILE} maze cells), got {rooms}"
        )
    loops = check_value(loops, LIMITS["loops"], name="loops")
    walls = _walls_for_loops(width, height, rooms)
    if loops > walls:
        what = "its walls between cells once it is perfect" + (f" and {rooms} rooms are cut" if rooms else "")
        raise ParameterError(f"loops must be at most {walls} for a {width} x {height} maze ({what}), got {loops}")


def place_rooms(width: int, height: int, rooms: int, rng: np.random.Generator) -> list[tuple[int, int, int, int]]:
    """``rooms`` rectangles ``(cx, cy, w, h)`` in maze cells, one in each of ``rooms`` random tiles."""
    if not rooms:
        return []
    across, down = _room_tiles(width, height, rooms)
    tw, th = width // across, height // down
    rw_max, rh_max = min(tw - 1, ROOM_MAX), min(th - 1, ROOM_MAX)
    tiles = np.sort(rng.choice(across * down, size=rooms, replace=False))
    rw = rng.integers(2, rw_max + 1, size=rooms)
    rh = rng.integers(2, rh_max + 1, size=rooms)
    ox = (rng.random(rooms) * (tw - rw)).astype(np.int64)  # the last column and row of a tile stay maze
    oy = (rng.random(rooms) * (th - rh)).astype(np.int64)
    return [
        (int(t % across * tw + x), int(t // across * th + y), int(w), int(h))
        for t, x, y, w, h in zip(tiles, ox, oy, rw, rh, strict=True)
    ]


def open_rooms(
    horizontal: npt.NDArray[np.bool_], vertical: npt.NDArray[np.bool_], rooms: Sequence[tuple[int, int, int, int]]
) -> None:
    for cx, cy, w, h in rooms:
        horizontal[cy : cy + h, cx : cx + w - 1] = True
        vertical[cy : cy + h - 1, cx : cx + w] = True


def open_loops(
    horizontal: npt.NDArray[np.bool_], vertical: npt.NDArray[np.bool_], loops: int, rng: np.random.Generator
) -> None:
    """Open exactly ``loops`` walls chosen uniformly among the closed ones."""
    if not loops:
        return
    closed = np.flatnonzero(np.concatenate([~horizontal.ravel(), ~vertical.ravel()]))
    pick = rng.choice(closed, size=loops, replace=False)
    nh = horizontal.size
    horizontal.flat[pick[pick < nh]] = True
    vertical.flat[pick[pick >= nh] - nh] = True
