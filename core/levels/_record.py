"""A level as plain data (JSON): grid, rooms, doors and markers in cells and in Unity metres.

Positions use the world frame of :mod:`._mesh` (the level FBX): the centre of cell ``(x, y)`` at floor
level is the Blender point ``(x0 + (x + 0.5) cs, y0 + (H - y - 0.5) cs, z0)``, and its Unity position is
``core.unity.unity_position`` of it, ``(-X, Z, -Y)``, what the FBX export gives.
"""

from __future__ import annotations

import json
import numbers

import numpy as np

from .._checks import check_float, check_object_name
from ..errors import ParameterError, short
from ..spec import NAME_PATTERN
from ..unity import unity_position
from ._mesh import CELL_SIZE, check_level, check_origin

__all__ = ["RECORD_FORMAT", "RECORD_VERSION", "level_record", "level_json_bytes", "cell_centres", "check_level_name"]

RECORD_FORMAT = "worldseed.level"
RECORD_VERSION = 1


def check_level_name(name):
    """A level name for files and objects: 1 to 48 letters, digits, spaces, '-' or '_' (no path separators)."""
    return check_object_name(name, name="name", pattern=NAME_PATTERN)


def cell_centres(xs, ys, *, height, cell_size, origin):
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


def _jsonable(value, where):
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


def _point(blender):
    return [float(v) for v in blender], [float(v) for v in unity_position(blender)]


def level_record(level, *, name, cell_size, origin=(0.0, 0.0, 0.0)):
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
        the cell centre at floor level; markers also ``kind``), and ``frame`` (how to read them).

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

    rooms = []
    for k, room in enumerate(level.rooms):
        try:
            x, y, w, h = (int(v) for v in room)
        except (TypeError, ValueError):
            raise ParameterError(f"level.rooms[{k}] must be (x, y, w, h) integers, got {short(room)}") from None
        centre = (origin[0] + (x + w / 2) * cs, origin[1] + (height - y - h / 2) * cs, origin[2])
        blender, unity = _point(centre)
        rooms.append({"x": x, "y": y, "w": w, "h": h, "blender_center": blender, "unity_center": unity,
                      "unity_size": [w * cs, 0.0, h * cs]})  # fmt: skip
    doors = []
    for k, door in enumerate(level.doors):
        try:
            x, y = (int(v) for v in door)
        except (TypeError, ValueError):
            raise ParameterError(f"level.doors[{k}] must be (x, y) integers, got {short(door)}") from None
        blender, unity = _point(cell_centres([x], [y], height=height, cell_size=cs, origin=origin)[0])
        doors.append({"x": x, "y": y, "blender": blender, "unity": unity})
    markers = []
    for m in level.markers:
        x, y = int(m.x), int(m.y)
        if not (0 <= x < width and 0 <= y < height):
            raise ParameterError(f"level.markers has {m!r} outside the {width} x {height} grid")
        blender, unity = _point(cell_centres([x], [y], height=height, cell_size=cs, origin=origin)[0])
        markers.append({"kind": str(m.kind), "x": x, "y": y, "blender": blender, "unity": unity})

    return {
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
        "frame": {
            "cells": "x = column (west to east), y = row, row 0 = north (the first grid row)",
            "blender": "metres, Z up; the centre of a cell at floor level (rooms: of the rectangle)",
            "unity": "metres, Y up: Unity (x, y, z) = Blender (-X, Z, -Y), as the level FBX arrives",
        },
    }


def level_json_bytes(level, *, name, cell_size, origin=(0.0, 0.0, 0.0)):
    """:func:`level_record` as UTF-8 JSON bytes: sorted keys, two-space indent, a final newline.

    The same level and options give the same bytes.

    >>> import numpy as np
    >>> from core.levels import Level
    >>> data = level_json_bytes(Level(grid=np.ones((1, 1), np.uint8)), name="A", cell_size=1.0)
    >>> json.loads(data)["grid"], data.decode()[-2:] == "}" + chr(10)
    (['1'], True)
    """
    record = level_record(level, name=name, cell_size=cell_size, origin=origin)
    return (json.dumps(record, sort_keys=True, indent=2, ensure_ascii=True, allow_nan=False) + "\n").encode("utf-8")
