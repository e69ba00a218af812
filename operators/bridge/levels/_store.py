"""A level root's stored settings, and the cache of the levels made from them.

The root of a level (:mod:`.level`) carries its settings as JSON (``worldseed_level``), how it became
geometry and, for a WFC level, the folder its tileset or sample path is relative to and the image its
sample was read from.  :func:`stored_spec` and its siblings read them back; :func:`level_for` and
:func:`level_steps` make the :class:`~core.levels.Level` a spec describes, keeping the last few (a
rebuild, an export and a preview of the same settings generate once).
"""

from __future__ import annotations

import json
import os
from typing import Any, cast

import bpy

from ....core import levels as core_levels
from ....core.errors import ParameterError
from ....core.levels import Level, LevelSpec
from ....core.spec import from_table
from ....core.steps import Steps, drive
from ._objects import level_root
from ._wfc import naming_image, sample_file

__all__ = [
    "SPEC_KEY",
    "GEOMETRY_KEY",
    "KIT_KEY",
    "BASE_KEY",
    "SAMPLE_IMAGE_KEY",
    "TILES_MISSING_KEY",
    "level_steps",
    "level_for",
    "spec_json",
    "stored_spec",
    "stored_geometry",
    "stored_source",
    "stored_level",
]

SPEC_KEY = "worldseed_level"  # on the root: the level's settings as JSON (core.levels.to_dict)
GEOMETRY_KEY = "worldseed_level_geometry"  # on the root: "MESH" or "KIT"
KIT_KEY = "worldseed_level_kit"  # on the root: the kit (or WFC tile objects) collection (an ID property)
BASE_KEY = "worldseed_level_base"  # on the root: folder a WFC tileset/sample path is relative to
SAMPLE_IMAGE_KEY = "worldseed_level_sample_image"  # on the root: the image a WFC sample was read from
TILES_MISSING_KEY = "worldseed_level_tiles_missing"  # on the root: base tiles without an object


#: The last few levels made: ``(spec, base) -> Level`` (a rebuild, an export and a preview of the same
#: settings generate once).
_LEVELS: dict[object, Any] = {}
_LEVELS_KEPT = 4


def _files_stamp(spec: LevelSpec, base: str | None) -> tuple[tuple[int, int], ...]:
    """``(mtime, size)`` of the WFC tileset and sample files ``spec`` reads: an edited tileset makes a
    new level on Update, not the cached one."""
    if spec.generator not in core_levels.WFC_GENERATORS:
        return ()
    stamp = []
    for key in ("wfc_tileset", "sample"):
        value = getattr(spec, key)
        if not value or key not in core_levels.GENERATOR_KEYS[spec.generator]:
            continue
        try:
            info = os.stat(core_levels.resolve_file(value, key=key, base=base)[0])
        except (ParameterError, OSError):
            continue  # generating says what is wrong
        stamp.append((info.st_mtime_ns, info.st_size))
    return tuple(stamp)


def level_steps(spec: LevelSpec, *, base: str | None = None) -> Steps[Level]:
    """Steps of making the :class:`Level` ``spec`` describes: yields ``(done, total, label)`` (the WFC
    solver's progress), returns the level.  ``base`` is the folder a relative WFC tileset or sample
    path is found in.  Cached, see :func:`level_for` (a WFC level also by its files' times and sizes)."""
    key = (spec, None if base is None else os.path.abspath(base), _files_stamp(spec, base))
    level = _LEVELS.get(key)
    if level is None:
        level = yield from core_levels.generate_steps(spec, base=base)
        while len(_LEVELS) >= _LEVELS_KEPT:
            _LEVELS.pop(next(iter(_LEVELS)))
        _LEVELS[key] = level
    return level


def level_for(spec: LevelSpec, *, base: str | None = None) -> Level:
    """The :class:`Level` ``spec`` describes (the last few are cached)."""
    return drive(level_steps(spec, base=base))


def spec_json(spec: LevelSpec) -> str:
    """``spec`` as the JSON text stored on a level root."""
    return json.dumps(core_levels.to_dict(spec), sort_keys=True)


def stored_spec(obj: bpy.types.Object, *, files: bool = True) -> LevelSpec:
    """The :class:`LevelSpec` a level (``obj`` or the level it belongs to) was built from.

    ``files=False`` reads the settings, each checked in its range, without looking for the WFC tileset
    or sample files they name (nor checking the settings against them): Load Settings of a level whose
    file is gone still gets every setting back."""
    root = level_root(obj)
    if root is None:
        raise ParameterError(f"object {obj.name!r} is not part of a Worldseed level")
    try:
        data = json.loads(root[SPEC_KEY])
    except (KeyError, ValueError):
        raise ParameterError(f"level {root.name!r} has lost its settings ({SPEC_KEY})") from None
    image = root.get(SAMPLE_IMAGE_KEY)
    if image is not None and data.get("sample"):
        data["sample"] = sample_file(image)  # the image's pixels as the PNG the sample names (made again if gone)
    base = root.get(BASE_KEY)
    prefix = f"object {root.name!r}: level."
    if not files:
        return from_table(core_levels.LevelSpec, core_levels.LIMITS, data, prefix=prefix)
    with naming_image(image):
        return core_levels.from_dict(data, prefix=prefix, base=base)


def stored_geometry(obj: bpy.types.Object) -> tuple[str, bpy.types.Collection | None]:
    """``("MESH", None)``, ``("KIT", collection)`` or ``("TILES", collection)`` of the level ``obj``
    belongs to."""
    root = cast(bpy.types.Object, level_root(obj))  # obj belongs to a level
    return root.get(GEOMETRY_KEY, "MESH"), root.get(KIT_KEY)


def stored_source(obj: bpy.types.Object) -> tuple[str | None, bpy.types.Image | None]:
    """``(base, sample image)`` a WFC level was made with (``(None, None)`` for the others)."""
    root = cast(bpy.types.Object, level_root(obj))  # obj belongs to a level
    return root.get(BASE_KEY), root.get(SAMPLE_IMAGE_KEY)


def stored_level(obj: bpy.types.Object) -> Level:
    """The :class:`Level` the level ``obj`` belongs to was built from (made again, or cached)."""
    return level_for(stored_spec(obj), base=stored_source(obj)[0])
