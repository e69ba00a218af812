"""Before a level is made: its grid's shape and about how many markers it will place, from the settings
(the bridge refuses a level whose markers would be too many before it generates anything)."""

from __future__ import annotations

import dataclasses
import math

from ..errors import ParameterError
from ._fields import WFC_GENERATORS, LevelSpec
from ._generate import generate
from .spec import check_spec

__all__ = ["grid_shape", "estimate_markers", "ESTIMATE_CELLS"]

#: Most cells of the small level of the same settings that :func:`estimate_markers` makes.
ESTIMATE_CELLS = 256 * 256


def grid_shape(spec: LevelSpec) -> tuple[int, int]:
    """(rows, columns) of the grid ``generate(spec)`` makes, from the settings alone: a maze of
    ``width`` x ``height`` maze cells lives on ``(2 height + 1, 2 width + 1)`` level cells, every
    other generator on ``(height, width)``.

    >>> grid_shape(LevelSpec(generator="maze", width=4, height=3)), grid_shape(LevelSpec(width=40, height=30))
    ((7, 9), (30, 40))
    """
    if spec.generator == "maze":
        return 2 * spec.height + 1, 2 * spec.width + 1
    return spec.height, spec.width


def estimate_markers(spec: LevelSpec) -> int | None:
    """About how many markers ``generate(spec)`` places, without making the level (milliseconds); None
    when making it costs no more than the estimate (see below).

    WFC levels and mazes get a spawn and an exit: 2.  The others place enemies per floor cell and
    loot per room (or per 64 floor cells), so their markers grow with the cells at a rate set by
    the settings: the estimate makes the level of the same settings and seed on a grid of at most
    :data:`ESTIMATE_CELLS` (the same aspect) and scales its count by the cells.  At the defaults the
    markers per cell of a 128 x 128 and a 2048 x 2048 level differ by less than 6 % (bsp 7.7 / 7.9,
    cave 16.4 / 17.4, walk 10.0 / 9.9, rooms_caves 2.6 / 2.6 per 1,000 cells); an upper bound from
    the settings alone would not do: for a BSP dungeon at the defaults it is 4.6 times the count.
    None for a level of at most twice :data:`ESTIMATE_CELLS` (it is made as fast as the small one)
    and one whose settings need a larger grid than the small one: count its markers once it is made.

    >>> spec = LevelSpec(generator="cave", width=2048, height=2048)
    >>> 0.9 < estimate_markers(spec) / 73_208 < 1.1  # generate(spec) places 73,208
    True
    >>> estimate_markers(LevelSpec(generator="cave", width=300, height=200)) is None
    True
    """
    if spec.generator in WFC_GENERATORS or spec.generator == "maze":
        return 2
    cells = spec.width * spec.height
    scale = math.sqrt(ESTIMATE_CELLS / cells)
    if scale >= 0.5:
        return None
    small = dataclasses.replace(spec, width=max(1, int(spec.width * scale)), height=max(1, int(spec.height * scale)))
    try:
        check_spec(small)
    except ParameterError:  # the settings need more room (large leaves, rooms)
        return None
    count = len(generate(small).markers)
    return max(2, round(count * cells / (small.width * small.height)))
