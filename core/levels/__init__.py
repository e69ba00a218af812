"""Levels on a grid: BSP dungeons, cellular caves, mazes, random walks, rooms + caves.

Every generator takes the size in cells first and keyword-only settings with ``seed``, and
returns a :class:`Level` (the one data contract: a uint8 grid of cell classes, rooms, doors,
markers).  The ``[[level]]`` recipe table is :class:`LevelSpec` (:mod:`.spec`);
:func:`generate` makes the level a spec describes.
"""

from ._bsp import bsp_dungeon
from ._cave import cave
from ._generate import GENERATOR_FUNCTIONS, check_spec, generate
from ._level import CLASSES, CORRIDOR, DOOR, FLOOR, MARKER_KINDS, MAX_CELLS, WALL, Level, Marker
from ._maze import maze
from ._regions import label_regions, walk_distances
from ._rooms_caves import rooms_caves
from ._walk import random_walk
from .spec import COMMON_KEYS, GENERATOR_KEYS, GENERATORS, LIMITS, LevelSpec, from_dict, generator_settings, to_dict

__all__ = [
    "bsp_dungeon",
    "cave",
    "maze",
    "random_walk",
    "rooms_caves",
    "generate",
    "check_spec",
    "GENERATOR_FUNCTIONS",
    "Level",
    "Marker",
    "CLASSES",
    "WALL",
    "FLOOR",
    "CORRIDOR",
    "DOOR",
    "MARKER_KINDS",
    "MAX_CELLS",
    "label_regions",
    "walk_distances",
    "LevelSpec",
    "LIMITS",
    "GENERATORS",
    "GENERATOR_KEYS",
    "COMMON_KEYS",
    "from_dict",
    "to_dict",
    "generator_settings",
]
