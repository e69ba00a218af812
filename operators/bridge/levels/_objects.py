"""What a level's objects are tagged with, and how to find a level's root, kit and map from any of them.

A level is a root object (tag ``level``: its mesh, or an empty above its kit) with child markers (tag
``level_marker``) and, built from a kit or from WFC tile objects, a kit object (tag ``level_kit``)
instancing the modules; made real, the modules are tagged ``level_kit_module``.  The root holds its
2-D map as an image in ``worldseed_level_map``.
"""

from typing import Any

import bpy

from ..query import KIND_KEY, child_of, is_kind, root_of

__all__ = [
    "KIND_KEY",
    "LEVEL_KIND",
    "LEVEL_KIT_KIND",
    "LEVEL_MODULE_KIND",
    "LEVEL_MARKER_KIND",
    "LEVEL_MAP_KEY",
    "is_level",
    "level_root",
    "level_kit_of",
    "level_map",
]

LEVEL_KIND, LEVEL_KIT_KIND, LEVEL_MARKER_KIND = "level", "level_kit", "level_marker"
#: A kit module made real (Make Real): Update refuses to delete them.
LEVEL_MODULE_KIND = LEVEL_KIT_KIND + "_module"
#: On a level root: the image of its 2-D map (an ID property, so the image follows renames).
LEVEL_MAP_KEY = "worldseed_level_map"


def is_level(obj: bpy.types.Object | None) -> bool:
    """True for the root object of a Worldseed level (its mesh, or the empty above its kit)."""
    return is_kind(obj, LEVEL_KIND)


def level_root(obj: bpy.types.Object | None) -> bpy.types.Object | None:
    """The Worldseed level root of ``obj`` (itself, or the level above its kit or marker), or None."""
    return root_of(obj, LEVEL_KIND)


def level_kit_of(obj: bpy.types.Object | None) -> bpy.types.Object | None:
    """The kit object of the level ``obj`` belongs to (None for a level built as a mesh)."""
    if is_kind(obj, LEVEL_KIT_KIND):
        return obj
    return child_of(level_root(obj), LEVEL_KIT_KIND)


def level_map(obj: bpy.types.Object | None) -> Any:
    """The 2-D map image of the level ``obj`` belongs to, or None."""
    root = level_root(obj)
    return root.get(LEVEL_MAP_KEY) if root is not None else None
