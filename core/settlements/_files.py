"""``<name>_settlements.json`` (format ``worldseed.settlements``, version 1)::

    {"format": "worldseed.settlements", "version": 1, "name": "Valley", "cell_size": 2.0,
     "sites": [{"name": "WalledTown1", "type": "walled_town", "position": [x, y, z], "radius": 60.0,
                "street_angle": 0.52,
                "pad": {"outline": [[x, y, z], ...], "height": z},
                "streets": [{"outline": [[x, y, z] x 4], "width": 6.0}, ...],
                "lots": [{"outline": [[x, y, z] x 4], "street": 0}, ...],
                "buildings": [{"footprint": [[x, y, z] x 4], "height": 6.0, "roof": "gable",
                               "roof_height": 2.1, "door": [x, y, z], "facing": [x, y, z],
                               "kind": "townhouse", "storeys": 2, "lot": 0, "base": z}, ...],
                "wall": [[[x, y, z], [x, y, z]], ...], "gates": [[x, y, z], ...],
                "entry": [x, y, z] or null, "road_point": 3 or null,
                "level": {"name": "Crypt", "entrance": [x, y, z]} or null}]}

Positions are Unity's frame as every Worldseed file writes them (``core.unity.unity_position``:
``(-x, z, -y)`` of Blender's metres, y up), rounded to 4 decimals.  ``position`` is the pad's
centre at its height; a footprint lies at its house's floor (the foundation goes down to ``base``);
``facing`` is the unit direction the door looks along (to its street); ``road_point`` the site's
index among the road graph's points (``<name>_roads.json``) or null when no road reaches it;
``level`` the level (``[[level]]`` name) entered from the site and its entrance marker.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._polyline import DIGITS, unity_rows
from ._settlements import Settlements

__all__ = ["FORMAT", "VERSION", "settlements_json", "settlements_json_bytes"]

FORMAT = "worldseed.settlements"
VERSION = 1


def _r(value: float) -> float:
    return round(float(value), DIGITS) + 0.0


def settlements_json(
    settlements: Settlements, *, name: str, blender_offset: Sequence[float] = (0.0, 0.0, 0.0)
) -> dict[str, Any]:
    """The ``<name>_settlements.json`` document (a dict).  ``blender_offset`` is added to the sites'
    terrain-local Blender metres: where the terrain object stands (its location), so the file's
    positions are where the objects are, as the placement file's and the heightmap's."""
    ox, oy, oz = (float(v) for v in blender_offset)

    def _rows(xy: npt.ArrayLike, z: float | npt.ArrayLike) -> list[list[float]]:
        p = np.asarray(xy, np.float64).reshape(-1, 2)
        zs = np.broadcast_to(np.asarray(z, np.float64), (p.shape[0],))
        rows: list[list[float]] = unity_rows(p[:, 0] + ox, p[:, 1] + oy, zs + oz)
        return rows

    sites = []
    for site, point in zip(settlements.sites, settlements.road_points):
        z = site.z
        buildings = [
            {
                "footprint": _rows(b.footprint, b.floor),
                "height": _r(b.height),
                "roof": b.roof,
                "roof_height": _r(b.roof_height),
                "door": _rows([b.door[:2]], b.door[2])[0],
                "facing": [_r(-b.facing[0]), 0.0, _r(-b.facing[1])],
                "kind": b.kind,
                "storeys": b.storeys,
                "lot": b.lot,
                "base": _r(b.base + oz),
            }
            for b in site.buildings
        ]
        sites.append(
            {
                "name": site.name,
                "type": site.kind,
                "position": _rows([site.centre], z)[0],
                "radius": _r(site.radius),
                "street_angle": _r(site.angle),
                "pad": {"outline": _rows(site.outline, z), "height": _r(z + oz)},
                "streets": [
                    {"outline": _rows(rect, z), "width": _r(w)} for rect, w in zip(site.streets, site.street_widths)
                ],
                "lots": [{"outline": _rows(rect, z), "street": int(k)} for rect, k in zip(site.lots, site.lot_streets)],
                "buildings": buildings,
                "wall": [_rows(seg, z) for seg in site.wall],
                "gates": _rows(site.gates, z) if len(site.gates) else [],
                "entry": None if site.entry is None else _rows([site.entry], z)[0],
                "road_point": point,
                "level": None
                if site.entrance is None
                else {"name": site.level, "entrance": _rows([site.entrance[:2]], site.entrance[2])[0]},
            }
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": name,
        "cell_size": _r(settlements.cell_size),
        "sites": sites,
    }


def settlements_json_bytes(
    settlements: Settlements, *, name: str, blender_offset: Sequence[float] = (0.0, 0.0, 0.0)
) -> bytes:
    """:func:`settlements_json` as the file's bytes (UTF-8, one line per site, sorted keys)."""
    doc = settlements_json(settlements, name=name, blender_offset=blender_offset)
    head = {k: v for k, v in doc.items() if k != "sites"}
    items = [json.dumps(s, sort_keys=True, separators=(",", ":")) for s in doc["sites"]]
    body = ",\n  ".join(items)
    text = "{" + json.dumps(head, sort_keys=True)[1:-1] + ',\n "sites": [' + ("\n  " + body + "\n " if items else "")
    return (text + "]\n}\n").encode("utf-8")
