"""The sections a tiled world builds once for the whole world, and the record of their files.

Every recipe section says what a tiled world does with it (``core.recipe.Section.tiled``):
built in every tile (``"per_tile"``: the terrain, its layers, the scatter), refused, or built
once (``"once"``: ``[[trees]]`` and ``[[level]]``), in world coordinates, by the Blender side
(``operators/bridge/world_export.export_once``: the trees in rows in front of the world as
``<name>_trees.fbx``, each level at its ``origin`` as ``<name>_level.fbx`` plus its own files).
The tiles never read them: :func:`run_world <core.world.run_world>` builds the tiles of
:func:`without_once` of the recipe, so changing a level or a tree rebuilds no tile.  The world JSON lists their files
under ``"once"`` (``{key: {"recipe_sha256", "files": [{"name", "bytes", "sha256"}]}}``, the
section keys in ``SECTIONS`` order, ``recipe_sha256`` the whole recipe's), so a resumed run keeps
them when every file is whole and the recipe is the same (:func:`verify_once`).  The run of the
tiles carries the entry over (:func:`carry_once`) until the switch of the run's files lists the new
ones, so the world JSON names them while they are in the folder, even after a kill.

>>> from core import recipe
>>> r = recipe.loads('[world]\\ntiles = [2, 1]\\n[terrain]\\nresolution = 33\\n[[trees]]\\nspecies = "bush"\\n')
>>> [s.key for s in once_sections(r)], without_once(r).trees
(['trees'], ())
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import recipe as core_recipe
from ._world_json import file_record

if TYPE_CHECKING:
    from ..recipe import Recipe, Section

__all__ = ["once_sections", "without_once", "verify_once", "with_once", "once_names", "carry_once"]


def once_sections(recipe: Recipe) -> tuple[Section, ...]:
    """The sections of ``recipe`` that a tiled world builds once (``Section.tiled == "once"``) and
    that hold something, in ``SECTIONS`` order."""
    return tuple(s for s in core_recipe.SECTIONS if s.tiled == "once" and getattr(recipe, s.key) != s.default)


def without_once(recipe: Recipe) -> Recipe:
    """``recipe`` without the sections built once (their defaults instead): what the tiles are made
    from, and what the world JSON's ``recipe_sha256`` is the digest of."""
    return dataclasses.replace(recipe, **{s.key: s.default for s in once_sections(recipe)})


def _records(files: object) -> list[dict[str, Any]] | None:
    if not isinstance(files, list) or not files:
        return None
    out = []
    for f in files:
        if not isinstance(f, dict):
            return None
        name, size, digest = f.get("name"), f.get("bytes"), f.get("sha256")
        if not isinstance(name, str) or os.path.basename(name) != name or name in ("", ".", ".."):
            return None
        if name.startswith(".") or not isinstance(size, int) or not isinstance(digest, str):
            return None
        out.append({"name": name, "bytes": size, "sha256": digest})
    return out


def _entries(document: Mapping[str, Any] | None) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    """``{key: (recipe_sha256, records)}`` of the ``"once"`` entry of a world JSON, well formed only."""
    once = (document or {}).get("once")
    out = {}
    for key, entry in (once if isinstance(once, dict) else {}).items():
        records = _records(entry.get("files")) if isinstance(entry, dict) else None
        if records is not None and isinstance(entry.get("recipe_sha256"), str):
            out[key] = (entry["recipe_sha256"], records)
    return out


def once_names(document: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The file names (in the output folder) the ``"once"`` entry of a world JSON lists, checked
    (bare names, no folders, no hidden files); ``()`` for None or a document without it."""
    return tuple(sorted({f["name"] for _digest, records in _entries(document).values() for f in records}))


def verify_once(
    out_dir: str, document: Mapping[str, Any] | None, *, recipe_sha256: str
) -> dict[str, list[dict[str, Any]]]:
    """``{key: file records}`` of the sections the world JSON ``document`` lists under ``"once"``,
    made from the recipe ``recipe_sha256`` (the whole recipe's digest), whose files are all in
    ``out_dir`` (regular files, never a link) with their size and SHA-256; the others are left out."""
    good = {}
    for key, (digest, records) in _entries(document).items():
        if digest != recipe_sha256:
            continue
        for record in records:
            path = os.path.join(out_dir, record["name"])
            try:
                if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) != record["bytes"]:
                    break
                if file_record(path)["sha256"] != record["sha256"]:
                    break
            except OSError:
                break
        else:
            good[key] = records
    return good


def with_once(
    document: Mapping[str, Any], once: Mapping[str, list[dict[str, Any]]], *, recipe_sha256: str
) -> dict[str, Any]:
    """A copy of the world JSON ``document`` listing ``once`` (``{key: file records}``, made from the
    recipe ``recipe_sha256``) under ``"once"``, keys in ``SECTIONS`` order; without the entry when
    ``once`` lists no file."""
    out = {k: v for k, v in document.items() if k != "once"}
    order = [s.key for s in core_recipe.SECTIONS]
    listed = {
        k: {"recipe_sha256": recipe_sha256, "files": [dict(f) for f in once[k]]}
        for k in sorted(once, key=order.index)
        if once[k]
    }
    if listed:
        out["once"] = listed
    return out


def carry_once(document: dict[str, Any], earlier: Mapping[str, Any] | None) -> dict[str, Any]:
    """``document`` (a world JSON the tiles' run writes) with the well-formed ``"once"`` entries of
    ``earlier`` (the world JSON before the run; each entry keeps its own ``recipe_sha256``): the
    files of the sections built once are in the folder until the switch of the run's files replaces
    them, so the document lists them meanwhile.  ``document`` itself when there is nothing to carry."""
    entries = _entries(earlier)
    keys = [s.key for s in core_recipe.SECTIONS if s.tiled == "once" and s.key in entries]
    if not keys:
        return document
    out = {k: v for k, v in document.items() if k != "once"}
    out["once"] = {k: {"recipe_sha256": entries[k][0], "files": entries[k][1]} for k in keys}
    return out
