"""Biome tables: TOML files of biomes, each a box in (elevation, moisture[, temperature]).

A table lists ``[[biome]]`` tables, looked up in file order (the first biome whose ranges hold a
cell wins; ``fallback`` names the biome of cells no range holds)::

    name = "whittaker"
    fallback = "grassland"

    [[biome]]
    name = "ocean"
    color = [0.16, 0.33, 0.50]
    water = true                  # every cell at or below the sea level

    [[biome]]
    name = "snow"
    color = [0.95, 0.95, 0.97]
    elevation = [0.85, 1.0]       # share of the land's height above the sea: 0 at the sea, 1 at the top
    moisture = [0.4, 1.0]         # moisture in [0, 1] (:func:`core.biomes.moisture`)

Keys of a biome: ``name`` (letters, digits, spaces, ``-`` and ``_``; unique), ``color`` (sRGB in
[0, 1], the biome map preview's colour), ``water`` (true for the one biome of the cells at or below
the sea level; it takes no ranges), ``elevation`` and ``moisture`` (``[low, high]`` within [0, 1],
default the whole axis) and ``temperature`` (``[low, high]`` in degrees C within
:data:`TEMPERATURE`; a table that uses it classifies by a temperature map too). A range holds
``low <= value < high``; a low end of 0 (or of the temperature span) also holds everything below
it, a high end of 1 (or of the span) everything above (see :func:`core.biomes.classify`).
"""

import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt

from .._checks import check_bool, check_float
from ..errors import ParameterError, short
from ..files import content_hidden, parse_toml, read_checked
from ..spec import did_you_mean

__all__ = [
    "BiomeTable",
    "load_table",
    "table_from_dict",
    "table_names",
    "TABLES_DIR",
    "TEMPERATURE",
    "MAX_BIOMES",
    "MAX_TABLE_BYTES",
    "BIOME_NAME",
]

#: Folder of the shipped tables (``<extension root>/presets/biomes``).
TABLES_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "presets", "biomes"
)
#: Temperatures a table's ranges may name, degrees C.
TEMPERATURE = (-100.0, 100.0)
#: Most biomes in one table (ids are uint8; the preview and splat look-ups stay small).
MAX_BIOMES = 64
#: Largest biome table file read, in bytes (a table of 64 biomes is a few kilobytes).
MAX_TABLE_BYTES = 1 << 20
#: A biome's name.
BIOME_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _\-]{0,47}$")
TABLE_KEYS = ("name", "description", "fallback", "biome")
BIOME_KEYS = ("name", "color", "water", "elevation", "moisture", "temperature")


@dataclass(frozen=True, eq=False)
class BiomeTable:
    """A biome table, ready to classify with (see the module docstring for the file format).

    Attributes
    ----------
    name : str
    names : tuple of str
        Biome names; a biome's id is its index here (ids of :func:`core.biomes.classify`).
    colors : (n, 3) float32 ndarray
        sRGB colours in [0, 1] (the biome map preview).
    water : int
        Id of the biome of cells at or below the sea level, or -1 (they are then land at elevation 0).
    elevation, moisture, temperature : (n, 2) float64 ndarray
        ``[low, high)`` per biome (the water biome's rows are unused); ``temperature`` spans
        :data:`TEMPERATURE` where a biome names none.
    uses_temperature : bool
        Whether any biome names a temperature range.
    fallback : int
        Id given to land cells no biome's ranges hold, or -1 when the ranges hold every cell.
    """

    name: str
    names: tuple[str, ...]
    colors: npt.NDArray[np.float32]
    water: int
    elevation: npt.NDArray[np.float64]
    moisture: npt.NDArray[np.float64]
    temperature: npt.NDArray[np.float64]
    uses_temperature: bool
    fallback: int
    description: str = field(default="")

    def index(self, name: str, *, where: str = "biome") -> int:
        """The id of biome ``name``; errors name ``where`` and suggest the closest name."""
        try:
            return self.names.index(name)
        except ValueError:
            raise ParameterError(
                f"{where} {short(name)} is not a biome of table {self.name!r}{did_you_mean(name, self.names)}; "
                f"biomes: {', '.join(self.names)}"
            ) from None

    @property
    def land(self) -> tuple[int, ...]:
        """Ids of the land biomes (every biome but the water one)."""
        return tuple(i for i in range(len(self.names)) if i != self.water)

    @cached_property
    def lookup(self) -> tuple[tuple[npt.NDArray[np.float32], ...], npt.NDArray[np.integer[Any]]]:
        """``(edges, lut)``: per axis the sorted range ends inside (0, 1) (or inside the temperature
        span), and the biome id of every box between them, flattened elevation-major.

        A value's box index on an axis is the number of that axis's edges at or below it, so the
        look-up is exact: every range end is an edge.
        """
        axes = [self.elevation, self.moisture] + ([self.temperature] if self.uses_temperature else [])
        spans = [(0.0, 1.0), (0.0, 1.0)] + ([TEMPERATURE] if self.uses_temperature else [])
        land = [i for i in range(len(self.names)) if i != self.water]
        edges, reps = [], []
        for ranges, (lo, hi) in zip(axes, spans):
            ends = sorted({float(v) for i in land for v in ranges[i] if lo < v < hi})
            # float32 edges: the look-up compares float32 values, and so does the reference.
            e = np.array(ends, dtype=np.float32)
            edges.append(e)
            reps.append(np.concatenate([[lo], e.astype(np.float64)]))
        grids = np.meshgrid(*reps, indexing="ij")
        points = np.stack([g.ravel() for g in grids], axis=1)
        lut = np.full(points.shape[0], -1, dtype=np.int64)
        for i in reversed(land):  # first biome in file order wins: paint in reverse
            inside = np.ones(points.shape[0], dtype=bool)
            for k, ranges in enumerate(axes):
                lo, hi = ranges[i]
                top = spans[k][1]
                v = points[:, k]
                inside &= (v >= np.float32(lo)) & ((v < np.float32(hi)) | (hi >= top))
            lut[inside] = i
        return tuple(edges), lut


def _fail(source: str, message: str) -> NoReturn:
    raise ParameterError(f"{source}: {message}")


def _range(value: Any, name: str, bounds: tuple[float, float]) -> tuple[float, float]:
    try:
        lo, hi = value
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a pair [low, high], got {short(value)}") from None
    lo = check_float(lo, name=f"{name}[0]", bounds=bounds)
    hi = check_float(hi, name=f"{name}[1]", bounds=bounds)
    if not lo < hi:
        raise ParameterError(f"{name} must have low < high, got [{lo:g}, {hi:g}]")
    return lo, hi


def _colour(value: Any, name: str) -> list[float]:
    try:
        items = [float(check_float(v, name=f"{name}[{k}]", bounds=(0.0, 1.0))) for k, v in enumerate(value)]
    except TypeError:
        items = []
    if len(items) != 3 or isinstance(value, str):
        raise ParameterError(f"{name} must be [r, g, b] with values in [0, 1], got {short(value)}")
    return items


def table_from_dict(doc: object, *, source: str = "biome table") -> BiomeTable:
    """A :class:`BiomeTable` from a parsed TOML document (errors start with ``source``)."""
    if not isinstance(doc, dict):
        _fail(source, f"must be a table of keys, got {short(doc)}")
    for key in doc:
        if key not in TABLE_KEYS:
            _fail(source, f"unknown key {short(key)}{did_you_mean(key, TABLE_KEYS)} (allowed: {', '.join(TABLE_KEYS)})")
    name = doc.get("name", source)
    description = doc.get("description", "")
    if not isinstance(name, str) or not isinstance(description, str):
        _fail(source, "name and description must be strings")
    biomes = doc.get("biome")
    if not isinstance(biomes, list) or not biomes or not all(isinstance(b, dict) for b in biomes):
        _fail(source, "biome must be a non-empty array of tables ([[biome]])")
    if len(biomes) > MAX_BIOMES:
        _fail(source, f"has {len(biomes)} biomes, at most {MAX_BIOMES} are allowed")
    names: list[str]
    colors: list[list[float]]
    names, colors, water = [], [], -1
    ranges: dict[str, list[tuple[float, float]]] = {"elevation": [], "moisture": [], "temperature": []}
    uses_temperature = False
    for i, b in enumerate(biomes):
        where = f"biome[{i}]"
        for key in b:
            if key not in BIOME_KEYS:
                _fail(
                    source,
                    f"{where}: unknown key {short(key)}{did_you_mean(key, BIOME_KEYS)} "
                    f"(allowed: {', '.join(BIOME_KEYS)})",
                )
        bname = b.get("name")
        if not isinstance(bname, str) or not BIOME_NAME.match(bname):
            _fail(source, f"{where}.name must be 1 to 48 letters, digits, spaces, '-' or '_', got {short(bname)}")
        if bname in names:
            _fail(source, f"{where}.name {bname!r} is used twice")
        where = f"biome {bname!r}"
        try:
            colors.append(_colour(b.get("color", (0.5, 0.5, 0.5)), f"{where}.color"))
            is_water = check_bool(b.get("water", False), name=f"{where}.water")
            if is_water:
                if water >= 0:
                    _fail(source, f"{where}: only one biome may be water, {names[water]!r} already is")
                if any(k in b for k in ("elevation", "moisture", "temperature")):
                    _fail(source, f"{where}: a water biome takes no elevation, moisture or temperature range")
                water = i
            ranges["elevation"].append(_range(b.get("elevation", (0.0, 1.0)), f"{where}.elevation", (0.0, 1.0)))
            ranges["moisture"].append(_range(b.get("moisture", (0.0, 1.0)), f"{where}.moisture", (0.0, 1.0)))
            ranges["temperature"].append(_range(b.get("temperature", TEMPERATURE), f"{where}.temperature", TEMPERATURE))
        except ParameterError as err:
            if str(err).startswith(source):
                raise
            _fail(source, str(err))
        uses_temperature |= "temperature" in b
        names.append(bname)
    if len(names) == (1 if water >= 0 else 0):
        _fail(source, "needs at least one land biome (one that is not water)")
    fallback = doc.get("fallback")
    table = BiomeTable(
        name=name,
        names=tuple(names),
        colors=np.array(colors, dtype=np.float32),
        water=water,
        elevation=np.array(ranges["elevation"], dtype=np.float64),
        moisture=np.array(ranges["moisture"], dtype=np.float64),
        temperature=np.array(ranges["temperature"], dtype=np.float64),
        uses_temperature=uses_temperature,
        fallback=-1,
        description=description,
    )
    if fallback is not None:
        fid = table.index(fallback, where=f"{source}: fallback")
        if fid == water:
            _fail(source, f"fallback {fallback!r} must be a land biome, not the water one")
        object.__setattr__(table, "fallback", fid)
    _, lut = table.lookup
    if (lut < 0).any():
        if table.fallback < 0:
            edges, _ = table.lookup
            k = int(np.flatnonzero(lut < 0)[0])
            dims = [len(e) + 1 for e in edges]
            idx = np.unravel_index(k, dims)
            starts = [0.0 if j == 0 else float(e[j - 1]) for e, j in zip(edges, idx)]
            axes = ("elevation", "moisture", "temperature")
            at = ", ".join(f"{a} {s:g}" for a, s in zip(axes, starts))
            _fail(source, f"no biome holds {at} (give every cell a biome, or name a fallback biome)")
        lut = np.where(lut < 0, table.fallback, lut)
    table.__dict__["lookup"] = (table.lookup[0], lut.astype(np.uint8))
    return table


def table_names() -> tuple[str, ...]:
    """Stems of the shipped tables in :data:`TABLES_DIR`, sorted."""
    try:
        files = os.listdir(TABLES_DIR)
    except OSError:
        return ()
    return tuple(sorted(f[:-5] for f in files if f.endswith(".toml")))


def load_table(name_or_path: str | os.PathLike[str], *, base: str | os.PathLike[str] | None = None) -> BiomeTable:
    """Read a biome table: a shipped preset by stem (``"whittaker"``) or a ``.toml`` file.

    Parameters
    ----------
    name_or_path : str or os.PathLike
        A stem of :func:`table_names`, or a path (relative paths are relative to ``base``,
        e.g. the recipe's folder, or else the current folder).
    base : str or None
        The recipe's folder: an error about the content of a table file outside it quotes nothing
        of the file.

    Returns
    -------
    BiomeTable

    Raises
    ------
    ParameterError
        An unknown preset, a missing file or one that is no regular file of at most
        :data:`MAX_TABLE_BYTES`, or a malformed table (values nested deeper than 32 levels too); one
        line naming the file and the key.

    Examples
    --------
    >>> t = load_table("whittaker")
    >>> t.names[t.water], "snow" in t.names
    ('ocean', True)
    """
    if isinstance(name_or_path, str) and BIOME_NAME.match(name_or_path) and not name_or_path.endswith(".toml"):
        stems = table_names()
        if name_or_path not in stems:
            raise ParameterError(
                f"biome table {name_or_path!r} is not a preset{did_you_mean(name_or_path, stems)} "
                f"(presets: {', '.join(stems)}; or give a path to a .toml file)"
            )
        path = os.path.join(TABLES_DIR, name_or_path + ".toml")
    elif isinstance(name_or_path, (str, os.PathLike)):
        path = os.fspath(name_or_path)
        if base is not None and not os.path.isabs(path):
            path = os.path.join(os.fspath(base), path)
    else:
        raise ParameterError(f"biome table must be a preset name or a path, got {short(name_or_path)}")
    source = os.path.basename(path)
    data = read_checked(path, name="biome table file", limit=MAX_TABLE_BYTES)
    with content_hidden(path, folder=base, what="biome table"):
        doc = parse_toml(data.decode("utf-8", errors="replace"), source=source)
        return table_from_dict(doc, source=source)
