"""A level's exported files: their names, the earlier ones in a folder, and the checks and kits the FBX needs."""

import contextlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from typing import cast

import bpy

from ....core import levels as core_levels
from ..export import ExportError
from ._kit import kits_as_objects
from ._objects import is_level, level_kit_of

__all__ = [
    "level_stems",
    "level_file_names",
    "earlier_level_files",
    "check_level_transforms",
    "level_kits_as_objects",
]


def level_stems(levels: Iterable[bpy.types.Object]) -> list[str]:
    """The file stem of each level root: its object's name (what the user sees, and the FBX object's
    name), with any character a level name may not hold (``.`` of ``Level.001``) as ``_``; where two
    would still be one file (case aside), the later gets ``_2``, ``_3`` ...

    >>> class O:
    ...     def __init__(self, name): self.name = name
    >>> level_stems([O("Level"), O("Level.001"), O("Dungeon 2"), O("level")])
    ['Level', 'Level_001', 'Dungeon 2', 'level_2']
    """
    stems, seen = [], set()
    for root in levels:
        base = re.sub(r"[^A-Za-z0-9_\- ]", "_", root.name)[:48].strip() or "Level"
        stem, n = base, 1
        while stem.casefold() in seen:
            n += 1
            stem = f"{base[: 48 - 1 - len(str(n))]}_{n}"
        seen.add(stem.casefold())
        stems.append(stem)
    return stems


def level_file_names(stem: str, tileset: str = "blob", wfc: bool | None = None) -> list[str]:
    """The files a level with file stem ``stem`` writes: the Tiled map with its two tilesets (classes
    and the auto-tiles of ``tileset``, each a .tsx and its image), for a WFC level (``wfc``; None:
    when ``tileset`` names a WFC tileset rather than an auto-tile set) the WFC tiles' tileset, the
    JSON record and the PNG map.

    >>> level_file_names("Crypt")  # doctest: +NORMALIZE_WHITESPACE
    ['Crypt.tmx', 'Crypt_classes.tsx', 'Crypt_classes.png', 'Crypt.tsx', 'Crypt_blob.png',
     'Crypt_level.json', 'Crypt_level.png']
    >>> level_file_names("Keep", "dungeon")[4:7]
    ['Keep_blob.png', 'Keep_wfc.tsx', 'Keep_wfc.png']
    """
    autotile = tileset if tileset in core_levels.AUTOTILE_SETS else "blob"
    if wfc is None:
        wfc = tileset not in core_levels.AUTOTILE_SETS
    tiled = [
        f"{stem}.tmx",
        f"{stem}_classes.tsx",
        f"{stem}_classes.png",
        f"{stem}.tsx",
        f"{stem}_{autotile}.png",
    ]
    if wfc:
        tiled += [f"{stem}_wfc.tsx", f"{stem}_wfc.png"]
    return [*tiled, f"{stem}_level.json", f"{stem}_level.png"]


#: Largest ``_level.json`` :func:`earlier_level_files` reads (a 4096^2 level's record is far smaller).
LEVEL_RECORD_MAX_BYTES = 1 << 28


def earlier_level_files(folder: str) -> set[str]:
    """Paths of every level file Worldseed may have written in ``folder``: for each regular
    ``<stem>_level.json`` (never through a link) whose "format" is the level record's, the files of
    :func:`level_file_names` of that stem with every tileset.  What a headless run removes of them
    when it does not write them itself (``addon/batch.build_world``, in its switch of files)."""
    found: set[str] = set()
    with os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.endswith("_level.json") or entry.is_symlink() or not entry.is_file(follow_symlinks=False):
                continue
            try:
                if entry.stat(follow_symlinks=False).st_size > LEVEL_RECORD_MAX_BYTES:
                    continue
                with open(entry.path, "rb") as f:
                    record = json.load(f)
            except (OSError, ValueError):
                continue  # not a level record of ours
            if not core_levels.is_level_record(record):
                continue
            stem = entry.name[: -len("_level.json")]
            for tileset in core_levels.TILESETS:
                found.update(os.path.join(folder, n) for n in level_file_names(stem, tileset, wfc=True))
    return found


def check_level_transforms(objects: Iterable[bpy.types.Object]) -> None:
    """Refuse (an :class:`ExportError`) a level among ``objects`` that is rotated or scaled in Blender
    (itself or through its parent): its Tiled map and JSON are in the level's own cells, placed by the
    root's world position only, so they would disagree with the FBX.  Moving it is fine."""
    for root in objects:
        if not is_level(root):
            continue
        m = root.matrix_world
        turn = [[m[r][c] for c in range(3)] for r in range(3)]
        if any(abs(turn[r][c] - (r == c)) > 1e-5 for r in range(3) for c in range(3)):
            raise ExportError(
                f"level {root.name!r} is rotated or scaled (itself or its parent); its .tmx and .json are "
                "in the level's own cells: clear its rotation and scale (Alt+R / Alt+S) and export again"
            )


@contextlib.contextmanager
def level_kits_as_objects(objects: Iterable[bpy.types.Object]) -> Iterator[None]:
    """For the duration, the kits of the levels among ``objects`` as real objects (children of their
    level, in a collection of their own), so the FBX and glTF writers write every module; removed
    after, leaving the scene as it was."""
    levels = [o for o in objects if is_level(o)]
    check_level_transforms(levels)  # before the FBX is written
    if not any(level_kit_of(root) is not None for root in levels):
        yield
        return
    collection = bpy.data.collections.new("Worldseed Export Kits")
    cast(bpy.types.Scene, bpy.context.scene).collection.children.link(collection)
    try:
        with kits_as_objects(levels, collection):
            yield
    finally:
        bpy.data.collections.remove(collection)
