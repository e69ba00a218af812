"""Random walk (drunkard's walk): walkers start at the centre and dig until a floor fraction is reached.

The walk is vectorised in chunks: the directions of a chunk of steps are drawn at once (with
``bias`` the chance that a step keeps the walker's previous direction: the direction of a step is
the one drawn at the last step that did not keep it), the positions are running sums of the
moves, and a step that would dig into the border is not taken: the walker stays where it is for
that step and turns (one of its three other directions, drawn at random), so that with a strong
bias it does not push against the border for many steps. The walkers step in turn (walker 0, 1,
... at every step), and digging stops at the exact cell that reaches the target, so the level
holds exactly ``ceil(floor_fraction * width * height)`` floor cells.
"""

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import Seed, make_rng
from ..errors import ParameterError
from ..spec import check_keys, check_value
from ._cave import check_size
from ._content import place_markers
from ._fields import GENERATOR_KEYS, LIMITS
from ._level import FLOOR, WALL, Level

__all__ = ["random_walk", "check_settings", "DEFAULTS", "floor_target"]

#: The keyword settings of :func:`random_walk` and their defaults.
DEFAULTS = {"floor_fraction": 0.4, "walkers": 1, "bias": 0.0, "enemy_density": 0.02, "loot_chance": 0.3}
#: Steps of every walker drawn at once, at most (the chunk shrinks near the target).
CHUNK = 4096
#: Steps summed at once within a chunk after a border hit (a hit re-sums from the step after it);
#: doubled after every window without one.
WINDOW = 256
# east, south, west, north as (dx, dy); row 0 is the top, so south is +y
_DX = np.array([1, 0, -1, 0], np.int64)
_DY = np.array([0, 1, 0, -1], np.int64)

assert tuple(DEFAULTS) == GENERATOR_KEYS["walk"]


def floor_target(width: int, height: int, floor_fraction: float) -> int:
    """Floor cells a walk digs: ``ceil(floor_fraction * width * height)``.

    >>> floor_target(80, 80, 0.4)
    2560
    """
    return max(1, math.ceil(floor_fraction * width * height - 1e-9))


def check_settings(width: int, height: int, **settings: Any) -> dict[str, Any]:
    """Refuse impossible walk settings before any work, naming the setting, the value and the range.

    Parameters are those of :func:`random_walk` (without ``seed``); missing ones take their
    defaults. Returns the checked settings, every key filled in.

    >>> try:
    ...     check_settings(8, 8, floor_fraction=0.9)
    ... except ParameterError as err:
    ...     print(err)
    floor_fraction must be at most 0.5625 for the 8 x 8 grid (36 cells inside its wall border), got 0.9
    """
    check_keys(settings, DEFAULTS, where="walk settings")
    width, height = check_size(width, height)
    out = {key: check_value(settings.get(key, default), LIMITS[key], name=key) for key, default in DEFAULTS.items()}
    inside = (width - 2) * (height - 2)
    if floor_target(width, height, out["floor_fraction"]) > inside:
        raise ParameterError(
            f"floor_fraction must be at most {inside / (width * height):.4g} for the {width} x {height} grid "
            f"({inside:,} cells inside its wall border), got {out['floor_fraction']:g}"
        )
    if out["bias"] >= 1.0:
        raise ParameterError(
            f"bias must be below 1 (at 1 a walker never turns and digs only a few straight lines), got {out['bias']:g}"
        )
    return out


def random_walk(
    width: int,
    height: int,
    *,
    floor_fraction: float = 0.4,
    walkers: int = 1,
    bias: float = 0.0,
    enemy_density: float = 0.02,
    loot_chance: float = 0.3,
    seed: Seed = 0,
) -> Level:
    """A drunkard's-walk level: one connected area dug by walkers from the centre.

    Parameters
    ----------
    width, height : int, each in [3, 4096], at most ``MAX_CELLS`` cells
    floor_fraction : float, in [0.01, 0.95]
        Digging stops when ``ceil(floor_fraction * width * height)`` cells are floor; at most the
        cells inside the wall border.
    walkers : int, in [1, 256]
        Walkers digging at once, all starting at the centre cell ``(width // 2, height // 2)``.
    bias : float, in [0, 1)
        Chance that a step keeps the walker's previous direction (0: a pure drunkard's walk;
        near 1: long straight corridors).
    enemy_density, loot_chance : float, in [0, 1]
        Content (see :func:`~._content.place_markers`, without rooms).
    seed : int or numpy.random.Generator
        The same seed and settings give the same level, byte for byte.

    Returns
    -------
    level : :class:`~._level.Level`
        ``generator="walk"``; wall (0) and floor (1) cells, the border all wall.

    Examples
    --------
    >>> level = random_walk(40, 30, floor_fraction=0.3, seed=3)
    >>> int((level.grid == 1).sum()) == floor_target(40, 30, 0.3)
    True
    """
    settings = check_settings(
        width,
        height,
        floor_fraction=floor_fraction,
        walkers=walkers,
        bias=bias,
        enemy_density=enemy_density,
        loot_chance=loot_chance,
    )
    rng = make_rng(seed)
    floor, _ = _dig(
        width,
        height,
        floor_target(width, height, settings["floor_fraction"]),
        settings["walkers"],
        settings["bias"],
        rng,
    )
    grid = np.where(floor.reshape(height, width), np.uint8(FLOOR), np.uint8(WALL))
    markers = place_markers(grid, rng=rng, enemy_density=settings["enemy_density"], loot_chance=settings["loot_chance"])
    return Level(
        grid=grid,
        markers=markers,
        seed=0 if isinstance(seed, np.random.Generator) else int(seed),
        generator="walk",
        settings=settings,
    )


def _dig(
    width: int, height: int, target: int, walkers: int, bias: float, rng: np.random.Generator
) -> tuple[npt.NDArray[np.bool_], int]:
    """``(floor, steps)``: flat (height * width) bool, the cells dug by ``walkers`` walks from the centre
    until ``target`` are dug, and the steps each walker took (the last one partly).

    Positions are flat cell indices (a step east is +1, south +width): from a cell inside the border
    one step always lands on a cell of the grid, so the first step of a window that leaves the
    inside is exact, whatever the later (clipped) ones do.
    """
    floor = np.zeros(height * width, bool)
    border = np.ones((height, width), bool)
    border[1:-1, 1:-1] = False
    border = border.ravel()
    move = _DX + width * _DY
    steps = 0
    p = np.full(walkers, (height // 2) * width + width // 2, np.int64)
    floor[p[0]] = True
    dug = 1
    heading = rng.integers(0, 4, walkers)
    while dug < target:
        k = int(min(CHUNK, max(64, 2 * (target - dug) // walkers)))
        keep = rng.random((k, walkers)) < bias
        drawn = rng.integers(0, 4, (k, walkers))
        # the direction of a step: the one drawn at the last step (of this chunk) that did not keep its
        # direction, or the walker's heading when every step so far kept it
        last = np.where(keep, -1, np.arange(k)[:, None])
        np.maximum.accumulate(last, axis=0, out=last)
        direction = np.where(last >= 0, drawn[np.maximum(last, 0), np.arange(walkers)], heading)
        d = move[direction]
        cells = np.empty((k, walkers), np.int64)
        t, window = 0, WINDOW
        while t < k:  # running sums over a window, up to the first step that would dig into the border
            end = min(k, t + window)
            pp = p + np.cumsum(d[t:end], axis=0)
            out = border.take(pp, mode="clip")
            first = int(out.argmax())  # step by step, walker by walker: the first step onto the border
            if not out.flat[first]:
                cells[t:end] = pp
                p = pp[-1]
                t = end
                window *= 2  # no hit: sum further at once
                continue
            n = first // walkers
            cells[t : t + n] = pp[:n]
            if n:
                p = pp[n - 1]
            stay = out[n]
            p = np.where(stay, p, pp[n])
            cells[t + n] = p
            for j in np.flatnonzero(stay).tolist():  # a blocked walker turns: one of its other three directions
                turn = (direction[t + n, j] + 1 + rng.integers(3)) % 4
                carried = last[t + n + 1 :, j] == last[t + n, j]  # the later steps that keep the blocked direction
                direction[t + n + 1 :, j][carried] = turn
                d[t + n + 1 :, j][carried] = move[turn]
            t += n + 1
            window = WINDOW
        heading = direction[-1]
        cells = cells.ravel()  # step by step, walker by walker
        fresh = np.flatnonzero(~floor[cells])
        _, first = np.unique(cells[fresh], return_index=True)
        new = fresh[np.sort(first)]  # the cells dug in this chunk, in the order they were dug
        new = new[: target - dug]
        floor[cells[new]] = True
        dug += new.size
        steps += k if dug < target else int(new[-1]) // walkers + 1
    return floor, steps
