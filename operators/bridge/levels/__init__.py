"""Levels in Blender: a core :class:`~core.levels.Level` built as objects, stored, rebuilt, exported.

The family's one face: everything outside this package imports from here.  The work is split by job
into private modules:

``_build``     a level as objects (mesh or kit, markers, map image), built or rebuilt in place, and
               the ``[[level]]`` section of a world build
``_settings``  the Levels panel's adapter: settings <-> :class:`~core.levels.LevelSpec`, a rebuild
``_text``      the panel's text fields (connect points, painted cells, counts, classes)
``_store``     the settings stored on a level root, the cache of levels made from them
``_pieces``    materials, the level mesh, marker names and places, the map image
``_kit``       modular kits: modules instanced by role, made real, shown to exporters
``_wfc``       WFC levels: a sample from an image of the .blend, tile objects on the WFC cells
``_files``     a level's exported files: names, earlier ones in a folder, checks
``_objects``   the tags of a level's objects and the look-ups from any of them
"""

from ._build import (
    GEOMETRIES,
    MARKER_KEY,
    MAX_MARKERS,
    build_level,
    build_section,
    build_steps,
    free_level_name,
    level_files,
    level_warnings,
)
from ._files import (
    check_level_transforms,
    earlier_level_files,
    level_file_names,
    level_kits_as_objects,
    level_stems,
)
from ._kit import KIT_MODULES_KEY, KIT_ROLES, KIT_ROLES_KEY, make_kit_real, remove_kit
from ._objects import (
    LEVEL_KIND,
    LEVEL_KIT_KIND,
    LEVEL_MAP_KEY,
    LEVEL_MARKER_KIND,
    LEVEL_MODULE_KIND,
    is_level,
    level_kit_of,
    level_map,
    level_root,
)
from ._pieces import MATERIAL_NAMES, map_pixels, marker_names, marker_positions
from ._settings import (
    GEOMETRY_ITEMS,
    LEVEL_FIELDS,
    LIVE_WFC_CELLS,
    PANEL_FIELDS,
    SHOWN_FIELDS,
    WFC_SAMPLED,
    WFC_TILED,
    LevelAdapter,
    generator_fields,
    is_modal_level,
)
from ._store import (
    SAMPLE_IMAGE_KEY,
    SPEC_KEY,
    TILES_MISSING_KEY,
    level_for,
    stored_geometry,
    stored_level,
    stored_source,
    stored_spec,
)
from ._text import (
    classes_from_text,
    classes_to_text,
    counts_from_text,
    counts_to_text,
    fixed_from_text,
    fixed_to_text,
    points_from_text,
    points_to_text,
)
from ._wfc import SAMPLES_FOLDER, image_named, image_sample, naming_image, sample_file, wfc_presets

__all__ = [
    # objects
    "build_level",
    "build_steps",
    "build_section",
    "free_level_name",
    "level_warnings",
    "GEOMETRIES",
    "MARKER_KEY",
    "MAX_MARKERS",
    "MATERIAL_NAMES",
    "marker_names",
    "marker_positions",
    "map_pixels",
    # tags and look-ups
    "LEVEL_KIND",
    "LEVEL_KIT_KIND",
    "LEVEL_MARKER_KIND",
    "LEVEL_MODULE_KIND",
    "LEVEL_MAP_KEY",
    "is_level",
    "level_root",
    "level_kit_of",
    "level_map",
    # stored settings
    "SPEC_KEY",
    "SAMPLE_IMAGE_KEY",
    "TILES_MISSING_KEY",
    "stored_spec",
    "stored_level",
    "stored_geometry",
    "stored_source",
    "level_for",
    # the panel
    "LevelAdapter",
    "LEVEL_FIELDS",
    "PANEL_FIELDS",
    "SHOWN_FIELDS",
    "GEOMETRY_ITEMS",
    "WFC_TILED",
    "WFC_SAMPLED",
    "LIVE_WFC_CELLS",
    "generator_fields",
    "is_modal_level",
    "points_from_text",
    "points_to_text",
    "fixed_from_text",
    "fixed_to_text",
    "counts_from_text",
    "counts_to_text",
    "classes_from_text",
    "classes_to_text",
    # kits and WFC sources
    "KIT_ROLES",
    "KIT_ROLES_KEY",
    "KIT_MODULES_KEY",
    "make_kit_real",
    "remove_kit",
    "SAMPLES_FOLDER",
    "image_sample",
    "image_named",
    "naming_image",
    "sample_file",
    "wfc_presets",
    # files
    "level_files",
    "level_stems",
    "level_file_names",
    "earlier_level_files",
    "check_level_transforms",
    "level_kits_as_objects",
]
