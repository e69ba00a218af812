"""Read-only look-ups of Worldseed objects: what a panel may ask without changing anything.

Worldseed tags what it builds with a custom property ``worldseed_kind``: each family's adapter
(:mod:`.sections`) names the tag of its roots (``"terrain"``, ``"tree"``, ``"scatter"``, ``"level"``)
and its bridge module the tags of the parts below them; built-in props carry ``worldseed_prop``.
Nothing here knows a family: a look-up takes the tag it looks for, so a new family needs no line
here (its adapter's ``root`` and ``is_root`` call these).
"""

from typing import Any

import bpy

KIND_KEY = "worldseed_kind"
PROP_KEY = "worldseed_prop"

__all__ = ["KIND_KEY", "PROP_KEY", "kind_of", "is_kind", "root_of", "child_of", "worldseed_roots"]


def kind_of(obj: bpy.types.Object | None) -> Any:
    """The Worldseed tag of ``obj`` (None for an object Worldseed did not build, or None)."""
    return obj.get(KIND_KEY) if obj is not None else None


def is_kind(obj: bpy.types.Object | None, kind: str) -> bool:
    """True when ``obj`` carries the tag ``kind``."""
    return kind_of(obj) == kind


def root_of(obj: bpy.types.Object | None, kind: str) -> bpy.types.Object | None:
    """``obj`` or its nearest ancestor tagged ``kind`` (a terrain root above its LODs, a level above its
    kit or markers), or None."""
    while obj is not None:
        if is_kind(obj, kind):
            return obj
        obj = obj.parent
    return None


def child_of(obj: bpy.types.Object | None, kind: str) -> bpy.types.Object | None:
    """The first child of ``obj`` tagged ``kind``, or None."""
    return next((c for c in obj.children if is_kind(c, kind)), None) if obj is not None else None


def worldseed_roots(scene: bpy.types.Scene) -> list[bpy.types.Object]:
    """Top-level Worldseed objects of ``scene`` (anything a Worldseed build tagged, built-in props aside)."""
    return [
        o
        for o in scene.objects
        if o.get(KIND_KEY) and not o.get(PROP_KEY) and (o.parent is None or not o.parent.get(KIND_KEY))
    ]
