"""Biome ids per cell from elevation and moisture (and temperature), by an exact table look-up."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import check_array, check_float, check_heights
from ..errors import ParameterError
from ._climate import LAPSE
from ._climate import temperature as temperature_map
from ._table import BiomeTable

__all__ = ["classify", "water_mask"]


def water_mask(heights: npt.NDArray[np.floating[Any]], *, sea_level: float) -> npt.NDArray[np.bool_] | None:
    """Cells at or below the sea level, when there is a sea (``sea_level > 0``); else none.

    A flattened sea floor sits exactly at the sea level, so "at" counts as water.
    """
    if sea_level <= 0.0:
        return None
    return heights <= np.float32(sea_level)


def _box_index(
    values: npt.NDArray[np.floating[Any]],
    edges: Sequence[float | np.floating[Any]] | npt.NDArray[np.floating[Any]],
    out: npt.NDArray[Any],
) -> None:
    """``out += number of edges <= value`` per cell (edges sorted)."""
    for e in edges:
        out += values >= e


def classify(
    heights: npt.ArrayLike,
    moisture: npt.ArrayLike,
    *,
    table: BiomeTable | str,
    sea_level: float,
    height: float | None = None,
    temperature: npt.ArrayLike | None = None,
    lapse: float = 6.5,
) -> npt.NDArray[np.integer[Any]]:
    """Biome id per cell: the first biome of ``table`` whose ranges hold the cell.

    Parameters
    ----------
    heights : (rows, cols) array_like of float
        Heights in metres.
    moisture : (rows, cols) array_like of float
        Moisture in [0, 1] (:func:`core.biomes.moisture`); values outside count as the nearest end.
    table : BiomeTable
        :func:`core.biomes.load_table`.
    sea_level : float
        The water line in metres. When above 0, cells at or below it get the table's water
        biome (if it has one).
    height : float
        The terrain's top in metres (``TerrainSpec.height``): the ``elevation`` axis is
        ``(h - sea_level) / (height - sea_level)`` in [0, 1] (see Notes), so a 40 m hill and a 4 km
        range both span the table (the same for every tile of a world, so tiles join).
    temperature : (rows, cols) array_like of float or None
        Degrees C, for tables with temperature ranges; None: :func:`core.biomes.temperature` of
        the heights with ``lapse``. Ignored by tables without temperature ranges.
    lapse : float
        Degrees C per km, for the temperature worked out here.

    Returns
    -------
    ids : (rows, cols) uint8 ndarray
        Indices into ``table.names``.

    Notes
    -----
    The exact rule: an ``elevation`` range ``[lo, hi)`` holds the heights
    ``sea_level + lo * (height - sea_level) <= h < sea_level + hi * (height - sea_level)``, each
    threshold worked out in float64 from the table's float32 ends and rounded to the heights'
    float type; ``moisture`` and ``temperature`` ranges compare the maps with the float32 ends. A
    low end of 0 and a high end of 1 (or of the temperature span) are open, so heights below the
    sea level count as elevation 0 and moisture outside [0, 1] as its nearest end. With
    ``sea_level > 0`` the cells with ``h <= sea_level`` are the water biome.

    Every range end of the table is an edge on its axis, so a cell's box (between edges) is the
    count of edges at or below its value, and ``table.lookup`` holds the biome of every box: the
    look-up is exact (it equals testing each biome's ranges in order) and costs a few
    comparisons per cell whatever the number of biomes; no elevation map is made.

    Examples
    --------
    See the package docstring (:mod:`core.biomes`).
    """
    if not isinstance(table, BiomeTable):
        raise ParameterError(f"table must be a BiomeTable (core.biomes.load_table), got {type(table).__name__}")
    h = check_heights(heights, name="heights")
    m = check_array(moisture, name="moisture", shape=h.shape)
    sea_level = check_float(sea_level, name="sea_level", bounds=(-1.0e7, 1.0e7))
    if height is None:
        raise ParameterError("height (the terrain's top in metres, TerrainSpec.height) is needed to classify")
    height = check_float(height, name="height", bounds=(-1.0e7, 1.0e7))
    if not height > sea_level:
        raise ParameterError(f"height (the terrain's top, {height:g} m) must be above sea_level ({sea_level:g} m)")
    edges, lut = table.lookup
    n_m = len(edges[1]) + 1
    n_t = len(edges[2]) + 1 if table.uses_temperature else 1
    # elevation edges as heights, in the heights' own float type: no elevation map is made
    span = height - sea_level
    thresholds = [h.dtype.type(sea_level + float(e) * span) for e in edges[0]]
    water = sea_level > 0.0 and table.water >= 0
    if water:  # one more box below the others: at or below the sea
        lut = np.concatenate([np.full(n_m * n_t, table.water, dtype=lut.dtype), lut])
    idx: npt.NDArray[Any] = np.zeros(h.shape, dtype=np.uint16 if lut.size > 255 else np.uint8)
    if water:
        idx += h > h.dtype.type(sea_level)
    _box_index(h, thresholds, idx)
    if n_m > 1:
        idx *= idx.dtype.type(n_m)
        _box_index(m, edges[1], idx)
    if table.uses_temperature:
        if temperature is None:
            check_float(lapse, name="lapse", bounds=LAPSE)
            t = temperature_map(h, sea_level=sea_level, lapse=lapse)
        else:
            t = check_array(temperature, name="temperature", shape=h.shape)
        idx = idx.astype(np.int64) * n_t
        _box_index(t, edges[2], idx)
    ids = lut.take(idx)
    return ids
