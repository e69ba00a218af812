"""A level as plain data (JSON): grid, rooms, doors and markers in cells and in Unity metres.

Positions use the world frame of :mod:`._mesh` (the level FBX): the centre of cell ``(x, y)`` at floor
level is the Blender point ``(x0 + (x + 0.5) cs, y0 + (H - y - 0.5) cs, z0)``, and its Unity position is
``core.unity.unity_position`` of it, ``(-X, Z, -Y)``, what the FBX export gives.
"""

import json
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import check_float, check_object_name
from ..errors import ParameterError, short
from ..spec import NAME_PATTERN
from ..unity import unity_position
from ._fields import WFC_GENERATORS
from ._level import Level, WfcRecord
from ._mesh import CELL_SIZE, check_level, check_origin
from ._regions import label_regions

__all__ = [
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "level_record",
    "level_json_bytes",
    "cell_centres",
    "unity_points",
    "check_level_name",
    "wfc_record",
    "level_warnings",
    "is_level_record",
]

RECORD_FORMAT = "worldseed.level"
RECORD_VERSION = 1


def is_level_record(record: object) -> bool:
    """Whether ``record`` (a parsed ``<name>_level.json``) is a level record of ours (its ``format``).

    >>> is_level_record({"format": "worldseed.level", "version": 1}), is_level_record({"format": "other"})
    (True, False)
    """
    return isinstance(record, dict) and record.get("format") == RECORD_FORMAT


def check_level_name(name: object) -> str:
    """A level name for files and objects: 1 to 48 letters, digits, spaces, '-' or '_' (no path separators)."""
    return check_object_name(name, name="name", pattern=NAME_PATTERN)


def cell_centres(
    xs: npt.ArrayLike, ys: npt.ArrayLike, *, height: int, cell_size: float, origin: Sequence[float]
) -> npt.NDArray[np.float64]:
    """(n, 3) float64 Blender positions of the centres of cells ``(xs[k], ys[k])`` at floor level.

    >>> cell_centres([0], [0], height=4, cell_size=2.0, origin=(10.0, 0.0, 1.0)).tolist()
    [[11.0, 7.0, 1.0]]
    """
    xs = np.asarray(xs, dtype=np.float64).reshape(-1)
    ys = np.asarray(ys, dtype=np.float64).reshape(-1)
    out = np.empty((len(xs), 3), dtype=np.float64)
    out[:, 0] = origin[0] + (xs + 0.5) * cell_size
    out[:, 1] = origin[1] + (height - ys - 0.5) * cell_size
    out[:, 2] = origin[2]
    return out


def _jsonable(value: object, where: str) -> Any:
    """Plain JSON values (dict keys str, tuples as lists, numpy scalars as Python numbers)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        v = float(value)
        if not np.isfinite(v):
            raise ParameterError(f"{where} must be finite to be written as JSON, got {v}")
        return v
    if isinstance(value, dict):
        return {str(k): _jsonable(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [
            _jsonable(v, f"{where}[{k}]")
            for k, v in enumerate(value.tolist() if isinstance(value, np.ndarray) else value)
        ]
    raise ParameterError(f"{where} must be numbers, text, lists or tables to be written as JSON, got {short(value)}")


def unity_points(blender: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """(n, 3) Unity positions of (n, 3) Blender points, with no negative zeros (``-0.0`` becomes ``0.0``).

    >>> unity_points(np.array([[0.0, 2.0, 1.0]])).tolist()
    [[0.0, 1.0, -2.0]]
    """
    out = unity_position(np.asarray(blender, dtype=np.float64).reshape(-1, 3))
    out += 0.0  # -0.0 + 0.0 is +0.0: the JSON and the TMX never show "-0.0"
    return out


def _cells(items: Sequence[Sequence[int]], where: str, size: int) -> npt.NDArray[np.int64]:
    """(n, size) int64 array of cell tuples, each checked to be integers."""
    out = np.zeros((len(items), size), dtype=np.int64)
    for k, item in enumerate(items):
        try:
            values = [int(v) for v in item]
        except (TypeError, ValueError):
            values = None
        if values is None or len(values) != size:
            shape = "(x, y, w, h)" if size == 4 else "(x, y)"
            raise ParameterError(f"{where}[{k}] must be {shape} integers, got {short(item)}")
        out[k] = values
    return out


def level_record(
    level: Level, *, name: str, cell_size: float, origin: Sequence[float] = (0.0, 0.0, 0.0)
) -> dict[str, Any]:
    """Everything about a level as plain JSON-ready data.

    Parameters
    ----------
    level : Level
    name : str
        The level's name (1 to 48 letters, digits, spaces, '-' or '_').
    cell_size : float
        Metres per cell, within ``CELL_SIZE``.
    origin : (3,) sequence of float, optional
        Blender position of the level's south-west floor corner.

    Returns
    -------
    record : dict
        ``format`` ("worldseed.level"), ``version``, ``name``, ``width``, ``height``, ``cell_size``,
        ``origin`` (Blender metres), ``seed``, ``generator``, ``settings``, ``classes`` (name -> id),
        ``grid`` (one string per row, row 0 = north, one digit per cell, the class id; a list of
        integer lists per row instead when a class id is 10 or more), ``rooms`` (``x, y, w, h`` in
        cells, ``blender_center`` and ``unity_center`` of the rectangle at floor level, ``unity_size``
        ``[w cs, 0, h cs]``), ``doors`` and ``markers`` (cells ``x, y``; ``blender`` and ``unity``:
        the cell centre at floor level; markers also ``kind``), ``regions`` (how many 4-connected
        regions the walkable cells form: 1 when every walkable cell can be reached from the spawn; a
        Wave Function Collapse level without ``connected`` may have more, the spawn and exit in the
        largest), and ``frame`` (how to read them).
        A Wave Function Collapse level also has ``wfc`` (:func:`wfc_record`: its tile or sample-value
        ids per cell, their names, the palette, the solver's counters).

    Examples
    --------
    >>> import numpy as np
    >>> from core.levels import Level, Marker
    >>> g = np.array([[0, 0, 0], [0, 1, 0]], np.uint8)
    >>> r = level_record(Level(grid=g, markers=(Marker("spawn", 1, 1),)), name="Crypt", cell_size=2.0)
    >>> r["grid"], r["markers"][0]["unity"]
    (['000', '010'], [-3.0, 0.0, -1.0])
    """
    check_level(level)
    name = check_level_name(name)
    cs = check_float(cell_size, name="cell_size", bounds=CELL_SIZE)
    origin = check_origin(origin)
    grid = level.grid
    height, width = grid.shape
    if grid.size and int(grid.max()) >= 10:
        rows = grid.tolist()
    else:
        rows = [bytes(row).decode("ascii") for row in (grid + ord("0"))]

    room_cells = _cells(level.rooms, "level.rooms", 4)
    x, y, w, h = room_cells.T
    centre = np.stack(
        [origin[0] + (x + w / 2) * cs, origin[1] + (height - y - h / 2) * cs, np.full(len(x), origin[2])], 1
    )
    rooms = [
        {"x": a, "y": b, "w": c, "h": d, "blender_center": p, "unity_center": u, "unity_size": [c * cs, 0.0, d * cs]}
        for (a, b, c, d), p, u in zip(room_cells.tolist(), centre.tolist(), unity_points(centre).tolist())
    ]
    door_cells = _cells(level.doors, "level.doors", 2)
    centre = cell_centres(door_cells[:, 0], door_cells[:, 1], height=height, cell_size=cs, origin=origin)
    doors = [
        {"x": a, "y": b, "blender": p, "unity": u}
        for (a, b), p, u in zip(door_cells.tolist(), centre.tolist(), unity_points(centre).tolist())
    ]
    cells = _cells([(m.x, m.y) for m in level.markers], "level.markers", 2)
    outside = (cells[:, 0] < 0) | (cells[:, 0] >= width) | (cells[:, 1] < 0) | (cells[:, 1] >= height)
    if outside.any():
        m = level.markers[int(np.flatnonzero(outside)[0])]
        raise ParameterError(f"level.markers has {m!r} outside the {width} x {height} grid")
    centre = cell_centres(cells[:, 0], cells[:, 1], height=height, cell_size=cs, origin=origin)
    markers = [
        {"kind": str(m.kind), "x": a, "y": b, "blender": p, "unity": u}
        for m, (a, b), p, u in zip(level.markers, cells.tolist(), centre.tolist(), unity_points(centre).tolist())
    ]

    record = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "name": name,
        "width": width,
        "height": height,
        "cell_size": cs,
        "origin": list(origin),
        "seed": _jsonable(level.seed, "level.seed"),
        "generator": str(level.generator),
        "settings": _jsonable(dict(level.settings), "level.settings"),
        "classes": {str(k): int(v) for k, v in level.classes.items()},
        "grid": rows,
        "rooms": rooms,
        "doors": doors,
        "markers": markers,
        "regions": label_regions(grid != level.classes["wall"])[1],
        "frame": {
            "cells": "x = column (west to east), y = row, row 0 = north (the first grid row)",
            "blender": "metres, Z up; the centre of a cell at floor level (rooms: of the rectangle)",
            "unity": "metres, Y up: Unity (x, y, z) = Blender (-X, Z, -Y), as the level FBX arrives",
        },
    }
    wfc = getattr(level, "wfc", None)
    if wfc is not None:
        record["wfc"] = wfc_record(wfc, level.grid.shape)
    return record


def level_warnings(level: Level, *, name: str) -> list[str]:
    """Lines to show the user about ``level`` (named ``name``): a Wave Function Collapse level whose
    walkable cells form several regions (no other generator makes one) says how many.

    >>> import numpy as np
    >>> from core.levels import Level
    >>> level_warnings(Level(grid=np.array([[1, 0, 1]], np.uint8), generator="wfc_tiled"), name="Keep")
    ["level 'Keep': 2 separate walkable regions; set connected = true for one"]
    """
    if level.generator not in WFC_GENERATORS:
        return []  # every other generator connects its regions: no labelling to do
    count = label_regions(level.walkable)[1]
    return [f"level {name!r}: {count} separate walkable regions; set connected = true for one"] if count > 1 else []


def wfc_record(wfc: WfcRecord, shape: tuple[int, ...]) -> dict[str, Any]:
    """The ``wfc`` entry of a level record: ``model``, ``source``, ``attempts``, ``backtracks``, ``ids``
    (one list of integers per row, row 0 = north), and per id its ``names`` and ``classes`` (level class
    ids); overlapping: the ``palette`` of sample values (integers, or ``[r, g, b]``); tiled: each
    variant's ``base_names``, ``turns`` (quarter turns clockwise on the map) and ``mirrored``."""
    ids = np.asarray(wfc.ids)
    if ids.shape != tuple(shape):
        raise ParameterError(f"level.wfc.ids must be {shape[1]} x {shape[0]} like the grid, got {ids.shape}")
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= len(wfc.names)):
        raise ParameterError(f"level.wfc.ids must index its {len(wfc.names)} names")
    out = {
        "model": str(wfc.model),
        "source": str(wfc.source),
        "attempts": int(wfc.attempts),
        "backtracks": int(wfc.backtracks),
        "names": [str(n) for n in wfc.names],
        "classes": [int(c) for c in wfc.classes],
        "ids": ids.astype(np.int64).tolist(),
    }
    if wfc.model == "overlapping":
        out["palette"] = _jsonable(wfc.palette, "level.wfc.palette")
    else:
        out["base_names"] = [str(n) for n in wfc.base_names]
        out["turns"] = [int(t) for t in wfc.turns]
        out["mirrored"] = [bool(m) for m in wfc.mirrored]
    return out


def _compact(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(", ", ": "), ensure_ascii=True, allow_nan=False)


def level_json_bytes(level: Level, *, name: str, cell_size: float, origin: Sequence[float] = (0.0, 0.0, 0.0)) -> bytes:
    """:func:`level_record` as UTF-8 JSON bytes: sorted keys, one top-level key a line, and one grid row,
    room, door or marker a line; a final newline.  The same level and options give the same bytes.

    >>> import numpy as np
    >>> from core.levels import Level
    >>> data = level_json_bytes(Level(grid=np.ones((2, 2), np.uint8)), name="A", cell_size=1.0)
    >>> json.loads(data)["grid"], data.decode().splitlines()[7:11]
    (['11', '11'], ['  "grid": [', '    "11",', '    "11"', '  ],'])
    """
    record = level_record(level, name=name, cell_size=cell_size, origin=origin)
    lines = []
    for key in sorted(record):
        value = record[key]
        if key == "wfc":  # one key a line, one row of ids a line
            parts = []
            for sub in sorted(value):
                item = value[sub]
                if sub == "ids" and item:
                    rows = ",\n".join("      " + _compact(row) for row in item)
                    parts.append(f"    {_compact(sub)}: [\n{rows}\n    ]")
                else:
                    parts.append(f"    {_compact(sub)}: {_compact(item)}")
            text = "{\n" + ",\n".join(parts) + "\n  }"
        elif isinstance(value, list) and value and not isinstance(value[0], (int, float)):
            items = ",\n".join("    " + _compact(item) for item in value)
            text = f"[\n{items}\n  ]"
        else:
            text = _compact(value)
        lines.append(f"  {_compact(key)}: {text}")
    return ("{\n" + ",\n".join(lines) + "\n}\n").encode("utf-8")
