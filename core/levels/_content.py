"""Room content: the spawn, the exit, enemies and loot of a level, as :class:`~._level.Marker` points.

One function for every generator (:func:`place_markers`): the BSP dungeon and rooms + caves pass
their rooms and doors, the caves and walks pass none and are treated as one area.
"""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .._checks import check_float, make_rng
from ..errors import ParameterError
from ._level import DOOR, FLOOR, WALL, Marker
from ._regions import walk_distances

__all__ = ["place_markers", "marker_cells", "LOOT_AREA", "SAFE_STEPS"]

#: Without rooms, one loot chance per this many floor cells (an 8 x 8 room's worth).
LOOT_AREA = 64
#: Without rooms, no enemy closer to the spawn than this many steps (the spawn room plays this part with rooms).
SAFE_STEPS = 8

# The 8 neighbours of a cell in ring order (N, NE, E, SE, S, SW, W, NW), as (row, column) offsets.
_RING = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def _ring(mask: npt.NDArray[np.bool_]) -> list[npt.NDArray[np.bool_]]:
    """The 8 neighbour masks of every cell of ``mask`` in ring order; outside the grid counts as False."""
    h, w = mask.shape
    pad = np.zeros((h + 2, w + 2), bool)
    pad[1:-1, 1:-1] = mask
    return [pad[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w] for dy, dx in _RING]


def _never_blocking(walkable: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """(h, w) bool: cells whose removal cannot disconnect any two walkable cells.

    A cell is safe when its walkable edge neighbours are joined through its 8-neighbour ring
    (the digital-topology "simple point" test for 4-connected regions): every path through
    the cell can step around it.  Counted as runs of walkable cells around the ring that hold
    an edge neighbour (a corner alone touches the cell only diagonally and does not count).
    """
    r = _ring(walkable)
    runs = np.zeros(walkable.shape, np.int8)
    for i in range(8):
        start = r[i] & ~r[i - 1]
        if i % 2:  # a corner starting a run counts only when the run goes on to an edge neighbour
            start = start & r[(i + 1) % 8]
        runs += start
    return runs <= 1


def marker_cells(grid: npt.NDArray[np.uint8], doors: Sequence[tuple[int, int]] = ()) -> npt.NDArray[np.bool_]:
    """(h, w) bool: the cells :func:`place_markers` may use.

    Floor cells (class ``floor``: never a corridor or a door) that touch no door, not even
    diagonally, and whose blocking would disconnect no neighbours (see ``_never_blocking``).

    >>> g = np.zeros((5, 7), np.uint8); g[1:4, 1:6] = FLOOR; g[2, 0] = DOOR
    >>> marker_cells(g).astype(int)[1:4, 1:6]
    array([[0, 1, 1, 1, 1],
           [0, 1, 1, 1, 1],
           [0, 1, 1, 1, 1]])
    """
    g = np.asarray(grid)
    walkable = g != WALL
    door = g == DOOR
    for x, y in doors:
        door[y, x] = True
    near_door = door.copy()
    for n in _ring(door):
        near_door |= n
    return (g == FLOOR) & ~near_door & _never_blocking(walkable)


def _half_up(value: float) -> int:
    return int(np.floor(value + 0.5))


def _take(rng: np.random.Generator, cells: npt.NDArray[np.int64], n: int, free: npt.NDArray[np.bool_]) -> list[int]:
    """Up to ``n`` distinct flat indices drawn from ``cells`` where ``free`` (then marked taken), in drawn order."""
    cells = cells[free[cells]]
    if n <= 0 or cells.size == 0:
        return []
    picked = rng.choice(cells, size=min(n, cells.size), replace=False)
    free[picked] = False
    return picked.tolist()


def _room_picks(
    rng: np.random.Generator,
    cells: npt.NDArray[np.int64],
    room: npt.NDArray[np.int32],
    wanted: npt.NDArray[np.int64],
    loot: npt.NDArray[np.bool_],
) -> tuple[list[int], list[int]]:
    """Per room, ``wanted[room]`` enemy cells and then one loot cell where ``loot[room]``, vectorised.

    ``cells`` (flat indices) and ``room`` (their room index) list the free usable cells. Each
    room's cells are put in a random order (one random key per cell); its first ``wanted`` go to
    enemies and the next to loot.  Returns (enemy cells, loot cells), in room order.
    """
    key = rng.random(cells.size)
    # Only a room's (wanted + 1) smallest keys matter: sort a shortlist of the cells whose key is below a
    # threshold that leaves about twice that many per room, and every cell of a room whose shortlist came
    # out too short. The picks are those of sorting every cell (a 4096^2 dungeon: 4 s -> 0.2 s).
    size = np.bincount(room, minlength=wanted.size)
    need = np.minimum(wanted + 1, size)
    short = key < np.minimum(1.0, (2 * need + 16) / np.maximum(size, 1))[room]
    short |= (np.bincount(room[short], minlength=wanted.size) < need)[room]
    cells, room, key = cells[short], room[short], key[short]
    order = np.lexsort((key, room))
    cells, room = cells[order], room[order]
    first = np.searchsorted(room, np.arange(wanted.size))
    rank = np.arange(cells.size) - first[room]
    enemy = rank < wanted[room]
    treasure = (rank == wanted[room]) & loot[room]
    return cells[enemy].tolist(), cells[treasure].tolist()


def place_markers(
    grid: npt.NDArray[np.uint8],
    *,
    rooms: Sequence[tuple[int, int, int, int]] = (),
    doors: Sequence[tuple[int, int]] = (),
    rng: np.random.Generator,
    enemy_density: float = 0.0,
    loot_chance: float = 0.0,
) -> tuple[Marker, ...]:
    """Markers of a level: one spawn, one exit, enemies and loot, on distinct floor cells.

    Parameters
    ----------
    grid : (H, W) uint8 ndarray
        Cell classes (:data:`~._level.CLASSES`); every class but ``wall`` is walkable.
    rooms : sequence of (x, y, w, h)
        Room rectangles (``x`` column, ``y`` row of the top-left cell). Empty: the walkable
        cells are one area (caves, walks).
    doors : sequence of (x, y)
        Door cells (cells of class ``door`` count as doors too).
    rng : numpy.random.Generator or int
        The stream the choices are drawn from.
    enemy_density : float, in [0, 1]
        Enemies per floor cell.
    loot_chance : float, in [0, 1]
        Chance of one loot per room.

    Returns
    -------
    markers : tuple of :class:`~._level.Marker`
        ``spawn`` first, then ``exit``, then the ``enemy`` markers, then the ``loot`` markers
        (room by room with rooms).

    Notes
    -----
    Markers only go on :func:`marker_cells`: floor cells, never a corridor or a door, none next
    to a door, none whose blocking would cut a path; never two on one cell.

    With rooms: the spawn is in a room drawn at random (among rooms with a usable cell), on a
    random cell of it. Every other room gets ``round(enemy_density * its floor cells)`` enemies
    (half up; the spawn room gets none) and, with probability ``loot_chance``, one loot (where
    rooms overlap, a cell belongs to the later room).
    Without rooms: the spawn is on a random usable cell; ``round(enemy_density * floor cells)``
    enemies go anywhere at least :data:`SAFE_STEPS` steps from the spawn (none closer), and
    ``round(loot_chance * floor cells / LOOT_AREA)`` loot anywhere (one loot chance per 64 cells).
    Either way the exit is the usable cell farthest from the spawn by walking distance
    (4-connected; the first in raster order on a tie). When fewer usable cells are left than
    asked for, fewer markers are placed. With no usable cell at all, the spawn and exit fall
    back to any walkable cell.

    Raises
    ------
    ParameterError
        ``grid`` has fewer than 2 walkable cells, or a density out of range.

    Examples
    --------
    >>> g = np.zeros((12, 20), np.uint8); g[1:11, 1:9] = FLOOR; g[1:11, 11:19] = FLOOR
    >>> g[5, 9:11] = 2  # a corridor joins the two rooms
    >>> ms = place_markers(g, rooms=[(1, 1, 8, 10), (11, 1, 8, 10)], rng=0, enemy_density=0.05)
    >>> [m.kind for m in ms]
    ['spawn', 'exit', 'enemy', 'enemy', 'enemy', 'enemy']
    """
    enemy_density = check_float(enemy_density, name="enemy_density", bounds=(0.0, 1.0))
    loot_chance = check_float(loot_chance, name="loot_chance", bounds=(0.0, 1.0))
    rng = make_rng(rng, name="rng")
    g = np.asarray(grid)
    h, w = g.shape
    walkable = g != WALL
    n_walkable = int(np.count_nonzero(walkable))
    if n_walkable < 2:
        raise ParameterError(
            f"the {w} x {h} level has {'no walkable cell' if n_walkable == 0 else 'only 1 walkable cell'}: "
            "a level needs at least 2, for its spawn and its exit (make it larger or change its settings)"
        )
    usable = marker_cells(g, doors)
    if not usable.any():
        usable = (g == FLOOR) & (g != DOOR)
    if not usable.any():
        usable = walkable & (g != DOOR)
    if not usable.any():
        usable = walkable
    floor = g == FLOOR
    flat_usable = usable.ravel()
    ids = np.full(g.shape, -1, np.int32)  # room index of every cell (a later room wins where rooms overlap)
    for i, (x, y, rw, rh) in enumerate(rooms):
        ids[y : y + rh, x : x + rw] = i
    flat_ids = ids.ravel()
    in_room = np.flatnonzero(flat_usable & (flat_ids >= 0))
    everywhere = np.flatnonzero(flat_usable)
    if in_room.size:
        filled = np.unique(flat_ids[in_room])
        spawn_room = int(filled[rng.integers(filled.size)])
        choices = in_room[flat_ids[in_room] == spawn_room]
    else:
        spawn_room, choices = None, everywhere
    spawn = int(choices[rng.integers(choices.size)])
    sy, sx = divmod(spawn, w)
    markers = [Marker("spawn", sx, sy)]
    dist = walk_distances(walkable, (sx, sy)).ravel()
    far = np.where(flat_usable, dist, -1)
    far[spawn] = -1
    if far.max() < 0:  # only the spawn is usable: any other reachable cell
        far = dist.copy()
        far[spawn] = -1
    free = flat_usable.copy()
    free[spawn] = False
    if far.max() > 0:
        exit_ = int(np.argmax(far))
        free[exit_] = False
        markers.append(Marker("exit", exit_ % w, exit_ // w))
    if spawn_room is not None:
        n = len(rooms)
        floors = np.bincount(flat_ids[floor.ravel() & (flat_ids >= 0)], minlength=n)
        wanted = np.floor(enemy_density * floors + 0.5).astype(np.int64)
        wanted[spawn_room] = 0
        loot = rng.random(n) < loot_chance
        cells = in_room[free[in_room]]
        enemies, treasure = _room_picks(rng, cells, flat_ids[cells], wanted, loot)
    else:
        n_floor = int(floor.sum())
        away = everywhere[dist[everywhere] >= SAFE_STEPS]
        enemies = _take(rng, away, _half_up(enemy_density * n_floor), free)
        treasure = _take(rng, everywhere, _half_up(loot_chance * n_floor / LOOT_AREA), free)
    markers += [Marker("enemy", c % w, c // w) for c in enemies]
    markers += [Marker("loot", c % w, c // w) for c in treasure]
    return tuple(markers)
