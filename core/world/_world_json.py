"""``<name>_world.json``: the tile grid of a world, each tile's neighbours, files and import settings.

What Unity's Terrain Tools need to import the tiles and connect them: every
tile's RAW (``<name>_<x>_<z>.raw``, 16-bit, byte order Windows, not flipped),
its Terrain position ``(x S, 0, z S)`` and its neighbours in the order of
``Terrain.SetNeighbors(left, top, right, bottom)`` (left ``x - 1``, top
``z + 1``, right ``x + 1``, bottom ``z - 1``; null outside the grid).  Each
tile lists its files with their sizes and SHA-256, which is what a resumed run
checks (:func:`verify_tiles`) before it skips the tile; the world's own files
(the prop library, the overview picture, ``recipe.toml``) are listed the same way in the top-level
``files``, so the document lists every file of the world but itself.  ``recipe_sha256``
(:func:`recipe_digest`) ties the files to the recipe that made them: a run of a
different recipe rebuilds every tile.

>>> from core.world._grid import WorldGrid
>>> g = WorldGrid(nx=2, nz=1, resolution=65, size=128.0, height=40.0, halo_cells=8, world_name="Isle")
>>> doc = world_json(g, name="world", seed=3, recipe_sha256="0" * 64)
>>> [(t["name"], t["object"], t["position"], t["neighbours"]["right"]) for t in doc["tiles"]]
[('world_0_0', 'Isle_0_0', [0.0, 0.0, 0.0], 'world_1_0'), ('world_1_0', 'Isle_1_0', [128.0, 0.0, 0.0], None)]
>>> doc["unity_import"]["naming"], doc["alphamap_resolution"]
('world_X_Z', 64)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .. import recipe as core_recipe
from ..files import read_checked
from ..unity import write_bytes_atomic
from ..unity_package import alphamap_side, heightmap_side
from ._grid import WorldGrid, tile_base

if TYPE_CHECKING:
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = [
    "FORMAT",
    "world_json",
    "world_json_path",
    "read_world_json",
    "write_world_json",
    "verify_tiles",
    "verify_world_files",
    "with_records",
    "file_record",
    "recipe_digest",
]

#: ``format`` and ``version`` of the world JSON.
FORMAT = ("worldseed-world", 1)
#: Largest world JSON read (a 64 x 64 grid of tiles with a dozen files each is about 15 MB).
MAX_WORLD_JSON_BYTES = 1 << 28
#: Bytes read at a time while hashing a file.
CHUNK = 1 << 20


def world_json_path(out_dir: str, name: str) -> str:
    """``<out_dir>/<name>_world.json``."""
    return os.path.join(out_dir, f"{name}_world.json")


def recipe_digest(recipe: Recipe) -> str:
    """SHA-256 (hex) of the recipe as :func:`core.recipe.dumps` writes it: the same recipe, the same digest
    (what the world JSON and every cached file of a world are checked against)."""
    return hashlib.sha256(core_recipe.dumps(recipe).encode("utf-8")).hexdigest()


def file_record(path: str) -> dict[str, Any]:
    """``{"name", "bytes", "sha256"}`` of the file at ``path`` (name without its folder)."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return {"name": os.path.basename(path), "bytes": size, "sha256": digest.hexdigest()}


def world_json(
    grid: WorldGrid,
    *,
    name: str,
    seed: int,
    recipe_sha256: str,
    files: Mapping[tuple[int, ...], Any] | None = None,
    world_files: Iterable[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The world JSON document (a dict) of ``grid``.

    Parameters
    ----------
    grid : WorldGrid
    name : str
        The run's file name: tile ``(x, z)``'s files are ``<name>_<x>_<z>...``.
    seed : int
        ``[world] seed``.
    recipe_sha256 : str
        :func:`recipe_digest` of the recipe the files were made from.
    files : dict, optional
        ``{(x, z): [{"name", "bytes", "sha256"}, ...]}`` of the complete tiles; every other tile is
        listed with ``"complete": false`` and no files.
    world_files : sequence of dict, optional
        ``{"name", "bytes", "sha256"}`` of the world's own files (the prop library
        ``<name>_props.fbx``, ``<name>_overview.png``, ``recipe.toml``): the document's top-level
        ``files``, so that it lists every file of the world but itself.

    Returns
    -------
    document : dict
        Plain JSON values, tiles row-major (z outer, x inner).
    """
    files = files or {}
    tiles = []
    for x, z in grid.tiles():
        sides = grid.neighbours(x, z)
        done = (x, z) in files
        tiles.append(
            {
                "x": x,
                "z": z,
                "name": tile_base(name, x, z),
                "object": grid.object_name(x, z),
                "position": [float(v) for v in grid.unity_position(x, z)],
                "neighbours": {
                    side: None if tile is None else tile_base(name, *tile)
                    for side, tile in sides.items()  # left, top, right, bottom
                },
                "complete": done,
                "files": [dict(f) for f in files[(x, z)]] if done else [],
            }
        )
    return {
        "format": FORMAT[0],
        "version": FORMAT[1],
        "name": name,
        "world_name": grid.world_name,
        "seed": int(seed),
        "recipe_sha256": recipe_sha256,
        "grid": [grid.nx, grid.nz],
        "tile_size_m": float(grid.size),
        "height_m": float(grid.height),
        "heightmap_resolution": heightmap_side(grid.resolution),
        "alphamap_resolution": alphamap_side(grid.resolution),
        "unity_import": {"depth": 16, "byte_order": "Windows", "flip_vertically": False, "naming": f"{name}_X_Z"},
        "files": [dict(f) for f in world_files],
        "tiles": tiles,
    }


def write_world_json(path: str, document: Mapping[str, Any]) -> int:
    """Write ``document`` to ``path`` atomically (the old file stays whole until the new one is in place)."""
    return write_bytes_atomic(path, (json.dumps(document, indent=1) + "\n").encode("utf-8"))


def read_world_json(path: str) -> dict[str, Any] | None:
    """The world JSON at ``path``, or None when it is missing, unreadable, no regular file (a FIFO
    there must not hang the run), larger than :data:`MAX_WORLD_JSON_BYTES` or not a world JSON."""
    try:
        document = json.loads(read_checked(path, name="world JSON", limit=MAX_WORLD_JSON_BYTES).decode("utf-8"))
    except ValueError:  # ParameterError (missing, no regular file, too large) or no JSON
        return None
    if not isinstance(document, dict) or (document.get("format"), document.get("version")) != FORMAT:
        return None
    if not isinstance(document.get("tiles"), list):
        return None
    return document


def _tile_files(entry: Mapping[str, Any]) -> list[tuple[str, int, str]] | None:
    files = entry.get("files")
    if not isinstance(files, list) or not files:
        return None
    out = []
    for f in files:
        if not isinstance(f, dict):
            return None
        name, size, digest = f.get("name"), f.get("bytes"), f.get("sha256")
        if not isinstance(name, str) or os.path.basename(name) != name or name in ("", ".", ".."):
            return None
        if not isinstance(size, int) or not isinstance(digest, str):
            return None
        out.append((name, size, digest))
    return out


def _verified(out_dir: str, files: Iterable[tuple[str, int, str]]) -> bool:
    """Whether every ``(name, bytes, sha256)`` of ``files`` is a regular file in ``out_dir`` with that
    size and SHA-256 (the size first: a truncated file costs no hashing)."""
    for name, size, digest in files:
        path = os.path.join(out_dir, name)
        try:
            if not os.path.isfile(path) or os.path.getsize(path) != size or file_record(path)["sha256"] != digest:
                return False
        except OSError:
            return False
    return True


def verify_world_files(
    out_dir: str, document: Mapping[str, Any] | None, *, recipe_sha256: str | None = None
) -> list[dict[str, Any]]:
    """The records of ``document``'s top-level ``files`` (the world's own files) that are in ``out_dir``
    with the listed size and SHA-256, for the same ``recipe_sha256`` when given (else none)."""
    if document is None or (recipe_sha256 is not None and document.get("recipe_sha256") != recipe_sha256):
        return []
    files = _tile_files({"files": document.get("files")}) or []
    return [{"name": n, "bytes": s, "sha256": d} for n, s, d in files if _verified(out_dir, [(n, s, d)])]


def with_records(
    document: Mapping[str, Any], *, tiles: Mapping[tuple[int, ...], str] | None = None, files: Iterable[str] = ()
) -> dict[str, Any]:
    """A copy of the world JSON ``document`` with the records (:func:`file_record`) of more files: ``tiles``
    ``{(x, z): path}`` added to (or replacing the same name in) a tile's files (its FBX), ``files``
    (paths) to the top-level ``files`` (the prop library, the overview, recipe.toml).  The paths may be staged
    files: a record names the file without its folder."""
    doc = json.loads(json.dumps(document))
    for entry in doc["tiles"]:
        path = (tiles or {}).get((entry["x"], entry["z"]))
        if path is not None:
            record = file_record(path)
            entry["files"] = [f for f in entry.get("files", []) if f.get("name") != record["name"]] + [record]
    records = [file_record(p) for p in files]
    names = {r["name"] for r in records}
    doc["files"] = [f for f in doc.get("files", []) if f.get("name") not in names] + records
    return doc


def verify_tiles(
    out_dir: str, document: Mapping[str, Any] | None, *, recipe_sha256: str | None = None
) -> dict[tuple[int, ...], Any]:
    """The tiles of ``document`` whose files are all in ``out_dir`` with the listed size and SHA-256.

    Only tiles marked complete count.  With ``recipe_sha256`` given, a document
    of another recipe verifies nothing.  The size is checked before the file is
    read, so a truncated file costs no hashing.

    Returns
    -------
    tiles : dict
        ``{(x, z): [file records]}`` of the verified tiles.
    """
    if document is None or (recipe_sha256 is not None and document.get("recipe_sha256") != recipe_sha256):
        return {}
    good: dict[tuple[int, ...], Any] = {}
    for entry in document.get("tiles", ()):
        if not isinstance(entry, dict) or entry.get("complete") is not True:
            continue
        files = _tile_files(entry)
        if files is None:
            continue
        if _verified(out_dir, files):
            good[(int(entry["x"]), int(entry["z"]))] = [{"name": n, "bytes": s, "sha256": d} for n, s, d in files]
    return good
