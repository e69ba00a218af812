"""Rooms + caves: the BSP layout whose rooms are shaped by the cave automaton.

The steps of :func:`rooms_caves`, each from its own stream of ``seed``:

1. **Layout**: the BSP dungeon's leaves, rooms, corridors and doors (:func:`~._bsp.bsp_layout`;
   the same seed gives the same layout as :func:`~._bsp.bsp_dungeon`).
2. **Caves**: every room cell starts as wall with probability ``fill``; ``steps`` steps of the
   cave automaton (:func:`~._cave.automaton`) run with every cell outside the rooms as wall, so
   the rooms become cave-shaped and never grow past their rectangles.
3. **Doors kept**: the room cells beside a door stay floor, so every corridor still enters a cave;
   so do every room's centre cell and the one west of it, so no room is walled up whole.
4. **One region**: cave pockets of fewer than :data:`MIN_POCKET` cells that touch no door are
   filled in; whatever regions are left (pockets cut off from their doors, rooms cut in two) are
   joined by the shortest tunnels (:func:`~._regions.connect_regions`): tunnel cells inside a
   room are floor, outside corridor. Doors are then the corridor cells beside a floor cell again.
5. **Markers**: as in the BSP dungeon (:func:`~._content.place_markers`, per room).
"""

from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import Seed, make_rng
from ._bsp import LAYOUT_KEYS, bsp_layout, check_all, doors_of
from ._cave import automaton
from ._content import place_markers
from ._fields import GENERATOR_KEYS
from ._level import CORRIDOR, DOOR, FLOOR, WALL, Level
from ._regions import connect_regions, label_regions

__all__ = ["rooms_caves", "check_settings", "KEYS", "MIN_POCKET"]

#: The keyword settings of :func:`rooms_caves` (as ``spec.GENERATOR_KEYS["rooms_caves"]``).
KEYS = LAYOUT_KEYS + ("fill", "steps", "enemy_density", "loot_chance")
#: Cave pockets smaller than this (cells) that touch no door are filled in rather than tunnelled to.
MIN_POCKET = 4

assert KEYS == GENERATOR_KEYS["rooms_caves"]


def check_settings(width: int, height: int, **settings: Any) -> None:
    """Refuse impossible rooms + caves settings before any work (the BSP rules, ``fill`` and ``steps``).

    Every key of ``GENERATOR_KEYS["rooms_caves"]`` may be given (the others take their defaults);
    returns nothing.

    >>> try:
    ...     check_settings(64, 48, fill=1.5)
    ... except ValueError as err:  # core.errors.ParameterError
    ...     print(err)
    fill must be a finite number in [0, 1], got 1.5
    """
    check_all(width, height, settings, KEYS)


def _beside(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    out = np.zeros_like(mask)
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def rooms_caves(
    width: int,
    height: int,
    *,
    min_leaf: int = 8,
    max_leaf: int = 20,
    room_min: int = 4,
    room_max: int = 12,
    padding: int = 1,
    corridor_width: int = 1,
    loop_fraction: float = 0.1,
    fill: float = 0.45,
    steps: int = 5,
    enemy_density: float = 0.02,
    loot_chance: float = 0.3,
    seed: Seed = 0,
) -> Level:
    """A BSP dungeon whose rooms are caves: one connected walkable region, with doors and markers.

    Parameters
    ----------
    width, height, min_leaf, max_leaf, room_min, room_max, padding, corridor_width, loop_fraction
        As :func:`~._bsp.bsp_dungeon` (the same checks).
    fill : float, in [0, 1]
        Chance that a room cell starts as wall (0.40 to 0.55 makes caves; 0 keeps the rooms whole
        but their corners, 1 leaves only the tunnels from the doors).
    steps : int, in [0, 32]
        Steps of the cave automaton.
    enemy_density, loot_chance : float, in [0, 1]
        Room content: see :func:`~._content.place_markers`.
    seed : int or numpy.random.Generator

    Returns
    -------
    level : :class:`~._level.Level`
        ``generator="rooms_caves"``; ``rooms`` are the BSP rectangles (their cave floor lies inside
        them); every walkable cell is reachable from the spawn.

    Examples
    --------
    >>> level = rooms_caves(64, 48, seed=7)
    >>> level.generator, int(label_regions(level.walkable)[1]), level.spawn.kind
    ('rooms_caves', 1, 'spawn')
    """
    settings: dict[str, Any] = dict(
        min_leaf=min_leaf,
        max_leaf=max_leaf,
        room_min=room_min,
        room_max=room_max,
        padding=padding,
        corridor_width=corridor_width,
        loop_fraction=loop_fraction,
        fill=fill,
        steps=steps,
        enemy_density=enemy_density,
        loot_chance=loot_chance,
    )
    width, height, settings = check_all(width, height, settings, KEYS)
    layout_rng, marker_rng, cave_rng = make_rng(seed).spawn(3)  # the first two as bsp_dungeon's
    layout = bsp_layout(width, height, layout_rng, **{k: settings[k] for k in LAYOUT_KEYS})
    grid = layout.grid
    in_room = np.zeros(grid.shape, bool)
    for x, y, w, h in layout.rooms:
        in_room[y : y + h, x : x + w] = True
    walls = ~in_room | (cave_rng.random(grid.shape, dtype=np.float32) < settings["fill"])
    cave = in_room & ~automaton(walls, settings["steps"])
    entries = in_room & _beside(grid == DOOR)
    rooms = np.array(layout.rooms, np.int64).reshape(-1, 4)
    # every room keeps its centre and the cell west of it (rooms are at least 2 wide): a one-room level
    # keeps room for a spawn and an exit
    entries[rooms[:, 1] + rooms[:, 3] // 2, rooms[:, 0] + rooms[:, 2] // 2] = True
    entries[rooms[:, 1] + rooms[:, 3] // 2, rooms[:, 0] + rooms[:, 2] // 2 - 1] = True
    cave |= entries
    labels, count = label_regions(cave)
    if count:
        sizes = np.bincount(labels[cave], minlength=count)
        kept = np.zeros(count, bool)
        kept[np.unique(labels[entries])] = True
        kept |= sizes >= MIN_POCKET
        cave &= kept[labels]
    grid[in_room] = WALL
    grid[cave] = FLOOR
    walkable = grid != WALL
    labels, count = label_regions(walkable)
    if count > 1:
        tunnels = connect_regions(labels, count, seed=cave_rng)
        grid[tunnels & in_room] = FLOOR
        grid[tunnels & ~in_room] = CORRIDOR
    grid[grid == DOOR] = CORRIDOR
    doors = doors_of(grid)
    markers = place_markers(
        grid,
        rooms=layout.rooms,
        doors=doors,
        rng=marker_rng,
        enemy_density=settings["enemy_density"],
        loot_chance=settings["loot_chance"],
    )
    return Level(
        grid,
        rooms=layout.rooms,
        doors=doors,
        markers=markers,
        seed=int(seed) if isinstance(seed, (int, np.integer)) else 0,
        generator="rooms_caves",
        settings=settings,
    )
