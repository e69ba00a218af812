"""Cellular-automaton caves: random fill, Moore-rule smoothing, regions joined by tunnels or the largest kept.

The steps of :func:`cave`, each from one ``numpy.random.Generator`` made from ``seed``:

1. **Fill**: every cell is wall with probability ``fill``; the border is wall.
2. **Smooth**: ``steps`` steps of :func:`automaton` (more than 4 of the 8 neighbours wall -> wall,
   exactly 4 -> unchanged, fewer -> floor; outside the grid counts as wall), each step computed
   from the previous grid into a new one (never in place). The border is walled again after.
3. **Regions**: floor regions (4-connected) of fewer than ``min_region`` cells are filled in.
4. **Connect**: ``"tunnels"`` joins the remaining regions with one-cell tunnels along a minimum
   spanning tree of the shortest links between neighbouring regions (tunnel cells dug through
   wall are class ``corridor``, 2); ``"largest"`` keeps only the largest region (the first in
   raster order on a tie) and fills in the others.
5. **Markers**: one spawn, the exit farthest from it by walking distance, enemies and loot
   (:func:`~._content.place_markers`, without rooms).

Every walkable cell of the result is reachable from the spawn. When no region of at least
``min_region`` cells is left (a fill near 1, a tiny grid), :func:`cave` refuses with a
:class:`~core.errors.ParameterError` that names the fill, the size and the seed, rather than
quietly changing the seed: the same settings always give the same answer.
"""

from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import Seed, check_int, make_rng
from ..errors import ParameterError
from ..spec import check_keys, check_value
from ._content import place_markers
from ._fields import GENERATOR_KEYS, LIMITS
from ._level import CORRIDOR, FLOOR, MAX_CELLS, WALL, Level
from ._regions import connect_regions, label_regions

__all__ = ["cave", "cave_grid", "automaton", "check_settings", "check_size", "DEFAULTS", "GRID_KEYS", "MIN_SIDE"]

#: The keyword settings of :func:`cave` and their defaults.
DEFAULTS = {"fill": 0.45, "steps": 5, "connect": "tunnels", "min_region": 12, "enemy_density": 0.02, "loot_chance": 0.3}
#: The settings that shape the cells (:func:`cave_grid`); the others place content.
GRID_KEYS = ("fill", "steps", "connect", "min_region")
#: Smallest width or height: a wall border around at least one cell.
MIN_SIDE = 3

assert tuple(DEFAULTS) == GENERATOR_KEYS["cave"]


def check_size(width: int, height: int, *, min_side: int = MIN_SIDE, max_side: int | None = None) -> tuple[int, int]:
    """``(width, height)`` as ints, each in ``[min_side, max_side]`` (default: the recipe's 4096), with at
    most ``MAX_CELLS`` cells.

    Checked before anything is allocated.

    >>> check_size(80, 60)
    (80, 60)
    """
    hi = LIMITS["width"].bounds[1] if max_side is None else max_side
    width = check_int(width, name="width", bounds=(min_side, hi))
    height = check_int(height, name="height", bounds=(min_side, hi))
    if width * height > MAX_CELLS:
        raise ParameterError(
            f"width x height {width} x {height} has {width * height:,} cells, more than the {MAX_CELLS:,} allowed"
        )
    return width, height


def check_settings(width: int, height: int, **settings: Any) -> dict[str, Any]:
    """Refuse impossible cave settings before any work, naming the setting, the value and the range.

    Parameters are those of :func:`cave` (without ``seed``); missing ones take their defaults.
    Returns the checked settings, every key filled in.

    >>> check_settings(64, 48, fill=0.5)["fill"]
    0.5
    >>> try:
    ...     check_settings(64, 48, fill=1.5)
    ... except ParameterError as err:
    ...     print(err)
    fill must be a finite number in [0, 1], got 1.5
    """
    check_keys(settings, DEFAULTS, where="cave settings")
    width, height = check_size(width, height)
    out = {key: check_value(settings.get(key, default), LIMITS[key], name=key) for key, default in DEFAULTS.items()}
    inside = (width - 2) * (height - 2)
    if out["min_region"] > inside:
        raise ParameterError(
            f"min_region must be at most {inside:,} (the cells inside the wall border of a {width} x {height} cave), "
            f"got {out['min_region']:,}"
        )
    if out["fill"] >= 1.0:
        raise ParameterError(f"fill must be below 1 (at 1 every cell is wall and no cave is left), got {out['fill']:g}")
    return out


def automaton(walls: npt.ArrayLike, steps: int) -> npt.NDArray[np.bool_]:
    """``steps`` steps of the cave rule on a grid of walls (True) and floor (False).

    A cell with more than 4 wall neighbours (of its 8) becomes wall, with exactly 4 it stays as it
    is, with fewer it becomes floor; cells outside the grid count as wall. Every step reads the
    previous grid and writes a new one (never in place). The rule is the same as "wall when the
    3 x 3 block around the cell, the cell included, holds at least 5 walls", which is how it is
    computed: two sums of three shifted slices.

    Parameters
    ----------
    walls : (H, W) array_like of bool
    steps : int, >= 0

    Returns
    -------
    walls : (H, W) bool ndarray
        A new array (also for ``steps = 0``).

    Examples
    --------
    >>> w = np.array([[0, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0]], bool)
    >>> automaton(w, 1).astype(int)
    array([[1, 1, 1, 1],
           [0, 0, 0, 0],
           [1, 1, 1, 1]])
    """
    cur = np.asarray(walls)
    if cur.ndim != 2 or cur.dtype.kind not in "biu":
        raise ParameterError(f"walls must be a 2-dimensional array of bool, got {cur.dtype} {cur.shape}")
    steps = check_int(steps, name="steps", bounds=(0, None))
    cur = cur.astype(bool)  # a copy: the caller's array is never touched
    h, w = cur.shape
    pad = np.ones((h + 2, w + 2), np.uint8)  # outside the grid: wall
    for _ in range(steps):
        pad[1:-1, 1:-1] = cur
        rows = pad[:-2] + pad[1:-1]
        rows += pad[2:]
        block = rows[:, :-2] + rows[:, 1:-1]
        block += rows[:, 2:]
        cur = block >= 5  # a new array: the next step reads this one
    return cur


def cave(
    width: int,
    height: int,
    *,
    fill: float = 0.45,
    steps: int = 5,
    connect: str = "tunnels",
    min_region: int = 12,
    enemy_density: float = 0.02,
    loot_chance: float = 0.3,
    seed: Seed = 0,
) -> Level:
    """A cellular-automaton cave: one walkable region, wall border, spawn and exit.

    Parameters
    ----------
    width, height : int, each in [3, 4096], at most ``MAX_CELLS`` cells
        Size of the grid in cells.
    fill : float, in [0, 1)
        Chance that a cell starts as wall (0.40 to 0.55 makes caves).
    steps : int, in [0, 32]
        Smoothing steps of :func:`automaton` (4 to 6 is usual).
    connect : {'tunnels', 'largest'}
        Join the regions with tunnels (class ``corridor``), or keep only the largest.
    min_region : int, >= 0
        Floor regions with fewer cells are filled in before connecting.
    enemy_density, loot_chance : float, in [0, 1]
        Content (see :func:`~._content.place_markers`, without rooms).
    seed : int or numpy.random.Generator
        The same seed and settings give the same level, byte for byte.

    Returns
    -------
    level : :class:`~._level.Level`
        ``generator="cave"``; ``grid`` holds wall (0), floor (1) and tunnel (corridor, 2)
        cells; no rooms or doors.

    Raises
    ------
    ParameterError
        A setting out of range (:func:`check_settings`), or no region of at least
        ``min_region`` cells left for this seed (lower ``fill`` or ``min_region``, or try
        another seed).

    Examples
    --------
    >>> level = cave(48, 32, seed=7)
    >>> level.grid.shape, level.generator
    ((32, 48), 'cave')
    >>> label_regions(level.walkable)[1]
    1
    """
    settings = check_settings(
        width,
        height,
        fill=fill,
        steps=steps,
        connect=connect,
        min_region=min_region,
        enemy_density=enemy_density,
        loot_chance=loot_chance,
    )
    rng = make_rng(seed)
    grid = cave_grid(width, height, rng=rng, **{k: settings[k] for k in GRID_KEYS})
    if not grid.any():
        raise ParameterError(
            f"no floor region of at least min_region={settings['min_region']} cells is left in this "
            f"{width} x {height} cave (fill={settings['fill']:g}, steps={settings['steps']}, seed={seed}): "
            "lower fill or min_region, or try another seed"
        )
    markers = place_markers(grid, rng=rng, enemy_density=settings["enemy_density"], loot_chance=settings["loot_chance"])
    return Level(
        grid=grid,
        markers=markers,
        seed=0 if isinstance(seed, np.random.Generator) else int(seed),
        generator="cave",
        settings=settings,
    )


def cave_grid(
    width: int, height: int, *, fill: float, steps: int, connect: str, min_region: int, rng: np.random.Generator
) -> npt.NDArray[np.uint8]:
    """The cells of a cave, without markers: steps 1 to 4 of :func:`cave` (settings already checked).

    Returns a (height, width) uint8 grid of wall, floor and corridor (tunnel) cells, all wall when
    no region of at least ``min_region`` cells is left. Draws from ``rng`` (a Generator) the fill
    and then, with more than one region, the tunnels' leg order, nothing else.
    """
    walls = rng.random((height, width), dtype=np.float32) < np.float32(fill)
    _wall_border(walls)
    walls = automaton(walls, steps)
    _wall_border(walls)
    labels, count = label_regions(~walls)
    sizes = np.bincount(labels.ravel() + 1, minlength=count + 1)[1:]
    kept = np.flatnonzero(sizes >= max(min_region, 1))
    if connect == "largest" and kept.size:
        kept = kept[[int(np.argmax(sizes[kept]))]]
    remap = np.full(count + 1, -1, np.int32)
    remap[kept + 1] = np.arange(kept.size, dtype=np.int32)
    labels = remap[labels + 1]
    grid = np.where(labels >= 0, np.uint8(FLOOR), np.uint8(WALL))
    if kept.size > 1:
        grid[connect_regions(labels, int(kept.size), seed=rng)] = CORRIDOR
    return grid


def _wall_border(walls: npt.NDArray[np.bool_]) -> None:
    walls[0, :] = walls[-1, :] = True
    walls[:, 0] = walls[:, -1] = True
