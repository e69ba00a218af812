"""Levels on a grid: BSP dungeons, cellular caves, mazes, random walks, rooms + caves, Wave Function
Collapse (tiles or a sample's style, :mod:`core.wfc`), and their outputs.

Every generator takes the size in cells first and keyword-only settings with ``seed``, and
returns a :class:`Level` (the one data contract: a uint8 grid of cell classes, rooms, doors,
markers).  The ``[[level]]`` recipe table is :class:`LevelSpec` (:mod:`.spec`);
:func:`generate` makes the level a spec describes.  Outputs: the 3-D mesh
(:func:`level_mesh`, :func:`level_quads`), modular-kit placements (:func:`kit_placements`),
auto-tile masks, the Tiled map (:func:`tiled_files`), the JSON record (:func:`level_record`)
and the preview picture (:func:`level_image`).
"""

from ._autotile import (
    BLOB_INDEX,
    BLOB_MASKS,
    blob_canonical,
    blob_masks,
    blob_tiles,
    wang16_masks,
)
from ._bsp import bsp_dungeon
from ._cave import automaton, cave
from ._content import marker_cells, place_markers
from ._generate import (
    ESTIMATE_CELLS,
    GENERATOR_FUNCTIONS,
    check_spec,
    estimate_markers,
    from_dict,
    generate,
    generate_steps,
    grid_shape,
)
from ._kit import KIT_ROLES, KitPlacements, kit_placements, kit_role_table
from ._level import CLASSES, CORRIDOR, DOOR, FLOOR, MARKER_KINDS, MAX_CELLS, WALL, Level, Marker, WfcRecord
from ._maze import maze, maze_cells
from ._mesh import MATERIALS, MAX_MESH_CELLS, LevelQuads, level_mesh, level_quads
from ._picture import level_image
from ._record import RECORD_FORMAT, cell_centres, level_json_bytes, level_record, level_warnings
from ._regions import connect_regions, label_regions, nearest_sources, walk_distances
from ._rooms_caves import rooms_caves
from ._tiled import TILESETS, tiled_files
from ._walk import random_walk
from ._wfc import MAX_WAVE_BYTES, palette_names
from ._wfc_files import PRESETS, SAMPLE_PRESETS, preset_names, resolve_file, wfc_model
from .spec import (
    AUTOTILE_LIMIT,
    AUTOTILE_SETS,
    COMMON_KEYS,
    GENERATOR_KEYS,
    GENERATORS,
    LIMITS,
    WFC_GENERATORS,
    LevelSpec,
    autotile_set,
    generator_settings,
    to_dict,
)

__all__ = [
    "bsp_dungeon",
    "cave",
    "maze",
    "maze_cells",
    "random_walk",
    "rooms_caves",
    "generate",
    "generate_steps",
    "check_spec",
    "grid_shape",
    "estimate_markers",
    "ESTIMATE_CELLS",
    "GENERATOR_FUNCTIONS",
    "Level",
    "WfcRecord",
    "Marker",
    "CLASSES",
    "WALL",
    "FLOOR",
    "CORRIDOR",
    "DOOR",
    "MARKER_KINDS",
    "MAX_CELLS",
    "automaton",
    "place_markers",
    "marker_cells",
    "label_regions",
    "walk_distances",
    "connect_regions",
    "nearest_sources",
    "level_mesh",
    "level_quads",
    "LevelQuads",
    "MATERIALS",
    "MAX_MESH_CELLS",
    "kit_placements",
    "KitPlacements",
    "KIT_ROLES",
    "kit_role_table",
    "BLOB_MASKS",
    "BLOB_INDEX",
    "blob_canonical",
    "blob_masks",
    "blob_tiles",
    "wang16_masks",
    "tiled_files",
    "TILESETS",
    "level_record",
    "RECORD_FORMAT",
    "level_json_bytes",
    "level_warnings",
    "cell_centres",
    "level_image",
    "LevelSpec",
    "LIMITS",
    "GENERATORS",
    "GENERATOR_KEYS",
    "COMMON_KEYS",
    "from_dict",
    "to_dict",
    "generator_settings",
    "WFC_GENERATORS",
    "AUTOTILE_SETS",
    "AUTOTILE_LIMIT",
    "autotile_set",
    "wfc_model",
    "resolve_file",
    "preset_names",
    "palette_names",
    "PRESETS",
    "SAMPLE_PRESETS",
    "MAX_WAVE_BYTES",
]
