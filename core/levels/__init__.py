"""Levels on a grid: BSP dungeons, cellular caves, mazes, random walks, rooms + caves, Wave Function
Collapse (tiles or a sample's style, :mod:`core.wfc`), and their outputs.

Every generator takes the size in cells first and keyword-only settings with ``seed``, and
returns a :class:`Level` (the one data contract: a uint8 grid of cell classes, rooms, doors,
markers).  The ``[[level]]`` recipe table is :class:`LevelSpec` (:mod:`.spec`: ``LIMITS``,
``from_dict``, ``to_dict``); :func:`generate` makes the level a spec describes.  Outputs: the 3-D
mesh (:func:`level_mesh`, :func:`level_quads`), modular-kit placements (:func:`kit_placements`),
the Tiled map (:func:`tiled_files`), the JSON record (:func:`level_record`) and the preview picture
(:func:`level_image`).  The engines (one private module per generator, auto-tiles, regions,
markers, the WFC files) are not part of this face.

>>> level = generate(LevelSpec(generator="cave", width=24, height=16, seed=3))
>>> level.grid.shape, label_regions(level.grid != WALL)[1]   # one walkable region
((16, 24), 1)
"""

from ._bsp import bsp_dungeon
from ._cave import cave
from ._estimate import estimate_markers, grid_shape
from ._generate import generate, generate_steps
from ._kit import KIT_ROLES, KitPlacements, kit_placements
from ._level import CLASSES, CORRIDOR, DOOR, FLOOR, MARKER_KINDS, WALL, Level, Marker, WfcRecord
from ._maze import maze
from ._mesh import MATERIALS, MAX_MESH_CELLS, LevelQuads, level_mesh, level_quads
from ._picture import level_image
from ._record import is_level_record, level_json_bytes, level_record, level_warnings
from ._regions import label_regions
from ._rooms_caves import rooms_caves
from ._tiled import TILESETS, tiled_files
from ._walk import random_walk
from ._wfc_files import DEFAULT_SAMPLE, preset_names, resolve_file
from .spec import (
    AUTOTILE_SETS,
    COMMON_KEYS,
    GENERATOR_KEYS,
    GENERATORS,
    LIMITS,
    WFC_GENERATORS,
    LevelSpec,
    check_spec,
    from_dict,
    to_dict,
)

__all__ = [
    # the generators
    "bsp_dungeon",
    "cave",
    "maze",
    "random_walk",
    "rooms_caves",
    # the [[level]] section and the one dispatch
    "LevelSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "check_spec",
    "generate",
    "generate_steps",
    "GENERATORS",
    "GENERATOR_KEYS",
    "COMMON_KEYS",
    "WFC_GENERATORS",
    "AUTOTILE_SETS",
    "preset_names",
    "resolve_file",
    "DEFAULT_SAMPLE",
    # the level
    "estimate_markers",
    "grid_shape",
    "MAX_MESH_CELLS",
    "Level",
    "Marker",
    "WfcRecord",
    "CLASSES",
    "WALL",
    "FLOOR",
    "CORRIDOR",
    "DOOR",
    "MARKER_KINDS",
    "label_regions",
    # its outputs
    "level_mesh",
    "level_quads",
    "LevelQuads",
    "MATERIALS",
    "kit_placements",
    "KitPlacements",
    "KIT_ROLES",
    "tiled_files",
    "TILESETS",
    "level_record",
    "level_json_bytes",
    "is_level_record",
    "level_warnings",
    "level_image",
]
