"""The rivers' files and meshes: ``<name>_rivers.json`` and the water surfaces.

``<name>_rivers.json`` (format ``worldseed.rivers``, version 1)::

    {"format": "worldseed.rivers", "version": 1, "name": "Valley", "cell_size": 2.0,
     "segments": [{"id": 0, "points": [[x, y, z], ...], "order": 1, "area_m2": 52000.0,
                   "width": 1.37, "depth": 0.46, "downstream": 3, "mouth": null}, ...],
     "lakes": [{"id": 0, "outline": [[x, y, z], ...], "water_height": 31.2, "area_m2": 8400.0}]}

Points are Unity's frame (``(-x, z, -y)`` of Blender's metres, :mod:`core.unity`), upstream to
downstream, on the carved heightmap (``z`` the carved bed); ``area_m2`` is the upstream area at
the segment's last own point, ``width``/``depth`` the water's there; ``downstream`` the ``id`` of
the segment it flows into (its first point is this one's last), or null at a mouth, and then
``mouth`` says which: ``"edge"`` (leaves the map), ``"sea"``, ``"lake"`` (with ``"lake"``: the
lake's id) or ``"sink"``.  A lake's outline runs counter-clockwise (seen from above) around its
cells at its ``water_height``.

A tiled world writes one file per tile from the world's one plan (``box``): the parts of the
segments inside the tile, cut where they cross its sides at points both tiles compute alike;
the ids are the world's, so a segment cut in two tiles has the same id in both.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from .._polyline import DIGITS, cell_patches, clip_polyline, join_meshes, ribbon, to_blender, unity_rows
from ..mesh import IndexedMesh
from ._network import RiverNetwork

__all__ = ["rivers_json", "rivers_json_bytes", "water_mesh", "FORMAT", "VERSION"]

FORMAT = "worldseed.rivers"
VERSION = 1


def _r(value: float) -> float:
    return round(float(value), DIGITS) + 0.0


def rivers_json(
    network: RiverNetwork,
    *,
    name: str,
    origin: tuple[float, float],
    box: tuple[int, int, int, int] | None = None,
    lift: float = 0.0,
) -> dict[str, Any]:
    """The ``<name>_rivers.json`` document (a dict) of ``network`` (see the module's notes).

    ``origin``: Blender ``(x0, y0)`` of the planned grid's cell (0, 0); ``box``: ``(row0, col0,
    row1, col1)`` of a tile in the planned grid (None: everything); ``lift``: Blender metres added to
    every height (where the terrain object stands in z; 0 leaves the bytes as they were)."""
    if not isinstance(network, RiverNetwork):
        raise TypeError(f"network must be a RiverNetwork, got {type(network).__name__}")
    cell = network.cell_size
    rows, cols = network.rows_cols()
    segments = []
    for s in range(network.segment_count):
        sl = network.segment(s)
        pr, pc, pz = rows[sl], cols[sl], network.z[sl]
        pieces = [(pr, pc, pz[:, None], 0)] if box is None else clip_polyline(pr, pc, pz[:, None], box)
        for qr, qc, qv, _ in pieces:
            x, y = to_blender(qr, qc, cell_size=cell, origin=origin)
            down = int(network.downstream[s])
            record = {
                "id": s,
                "points": unity_rows(x, y, qv[:, 0] + lift),
                "order": int(network.order[s]),
                "area_m2": _r(network.area[s]),
                "width": _r(network.width[s]),
                "depth": _r(network.seg_depth[s]),
                "downstream": down if down >= 0 else None,
                "mouth": network.mouth[s] or None,
            }
            if network.mouth_lake[s] >= 0:
                record["lake"] = int(network.mouth_lake[s])
            segments.append(record)
    lakes = []
    for k, lake in enumerate(network.lakes):
        if box is not None:
            r, c = np.divmod(lake.cells, network.shape[1])
            r0, c0, r1, c1 = box
            if not ((r >= r0) & (r <= r1) & (c >= c0) & (c <= c1)).any():
                continue
        x, y = to_blender(lake.outline[:, 0], lake.outline[:, 1], cell_size=cell, origin=origin)
        lakes.append(
            {
                "id": k,
                "outline": unity_rows(x, y, np.full(x.size, lake.level + lift)),
                "water_height": _r(lake.level + lift),
                "area_m2": _r(lake.cells.size * cell * cell),
            }
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": name,
        "cell_size": cell,
        "segments": segments,
        "lakes": lakes,
    }


def rivers_json_bytes(
    network: RiverNetwork,
    *,
    name: str,
    origin: tuple[float, float],
    box: tuple[int, int, int, int] | None = None,
    lift: float = 0.0,
) -> bytes:
    """:func:`rivers_json` as the file's bytes (UTF-8, one line per segment and lake, sorted keys)."""
    doc = rivers_json(network, name=name, origin=origin, box=box, lift=lift)
    head = {k: v for k, v in doc.items() if k not in ("segments", "lakes")}
    lines = ["{" + json.dumps(head, sort_keys=True)[1:-1] + ","]
    for key in ("segments", "lakes"):
        items = [json.dumps(item, sort_keys=True, separators=(",", ":")) for item in doc[key]]
        body = ",\n  ".join(items)
        lines.append(
            f' "{key}": [' + ("\n  " + body + "\n " if items else "") + "]" + ("," if key == "segments" else "")
        )
    lines.append("}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def water_mesh(
    network: RiverNetwork,
    *,
    origin: tuple[float, float],
    mesh_origin: tuple[float, float, float] = (0.0, 0.0, 0.0),
    box: tuple[int, int, int, int] | None = None,
) -> IndexedMesh | None:
    """The water surfaces as one :class:`~core.mesh.IndexedMesh` (Blender metres minus ``mesh_origin``):
    a ribbon along every segment at its water surface (material 0; UV ``v`` along the flow, in
    water widths) and a flat patch over every lake cell at its level (material 1); None if there
    is no water.  ``box`` as in :func:`rivers_json` (a tile's part)."""
    cell = network.cell_size
    rows, cols = network.rows_cols()
    meshes = []
    for s in range(network.segment_count):
        sl = network.segment(s)
        values = np.stack([network.surface[sl], network.half_width[sl]], 1)
        pieces = [(rows[sl], cols[sl], values, 0)] if box is None else clip_polyline(rows[sl], cols[sl], values, box)
        for qr, qc, qv, _ in pieces:
            if len(qr) < 2:
                continue
            x, y = to_blender(qr, qc, cell_size=cell, origin=origin)
            meshes.append(ribbon(x, y, qv[:, 0], qv[:, 1], material=0))
    for lake in network.lakes:
        r, c = np.divmod(lake.cells, network.shape[1])
        if box is not None:
            r0, c0, r1, c1 = box
            ok = (r >= r0) & (r <= r1) & (c >= c0) & (c <= c1)
            r, c = r[ok], c[ok]
        if r.size:
            meshes.append(cell_patches(r, c, lake.level, cell_size=cell, origin=origin, material=1))
    return join_meshes(meshes, origin=mesh_origin)
