"""The ground plants germinate on and animals walk over: the terrain's fields on its grid.

A :class:`Habitat` holds the maps the terrain and biome families already compute, on the
heightmap's vertices (row 0 at the smallest Y, column 0 at the smallest X, as every map of
Worldseed): moisture in [0, 1] (``core.biomes.moisture``, the ``moisture`` of
``core.terrain.TerrainLayers``), the height above the sea in metres, the slope in degrees
(``core.heightmap.slope_degrees``), the temperature in degrees C (``core.biomes.temperature``)
and the water (the sea; lakes and rivers once they exist).  Positions are metres in the frame the
grid's ``origin`` (the position of vertex ``[0, 0]``) is given in: terrain-local for one terrain
(centred on the origin), world metres for the tiles of a world.

A species' suitability of a cell (:func:`suitability`) is the product of four bumps
``max(0, 1 - (d / tolerance)^2)`` (moisture, altitude and temperature: ``d`` the distance from the
species' optimum; slope: ``d`` the slope and ``max_slope`` the tolerance), 0 on water: only
``+ - * /``, so the same bits on every CPU.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .._checks import check_array, check_float
from ..biomes import temperature as biome_temperature
from ..errors import ParameterError
from ..heightmap import slope_degrees

if TYPE_CHECKING:
    from ..terrain import TerrainLayers
    from .spec import PlantSpecies

__all__ = ["Habitat", "habitat", "terrain_habitat", "suitability", "cell_index", "MAX_FIELD_CELLS"]

#: Most vertices a habitat's maps may have (the terrain's own bound).
MAX_FIELD_CELLS = 8193 * 8193


@dataclass(frozen=True, eq=False)
class Habitat:
    """The terrain's fields on its grid of vertices (every map ``(rows, cols)``).

    Attributes
    ----------
    moisture : float32 ndarray, in [0, 1]
    altitude : float32 ndarray
        Metres above the sea (negative below it).
    slope : float32 ndarray
        Degrees.
    temperature : float32 ndarray
        Degrees C.
    water : bool ndarray
        Open water: no plant germinates there, animals drink next to it.
    heights : float64 ndarray
        The ground in metres (for the files' heights: the plants stand on it).
    cell_size : float
        Metres between vertices.
    origin : (float, float)
        Position of vertex ``[0, 0]`` (metres, x and y).
    """

    moisture: npt.NDArray[np.float32]
    altitude: npt.NDArray[np.float32]
    slope: npt.NDArray[np.float32]
    temperature: npt.NDArray[np.float32]
    water: npt.NDArray[np.bool_]
    heights: npt.NDArray[np.float64]
    cell_size: float
    origin: tuple[float, float]

    @property
    def shape(self) -> tuple[int, ...]:
        return self.moisture.shape

    @property
    def extent(self) -> tuple[float, float, float, float]:
        """``(x0, y0, x1, y1)``: the grid's vertices span this rectangle."""
        rows, cols = self.shape
        x0, y0 = self.origin
        return (x0, y0, x0 + self.cell_size * (cols - 1), y0 + self.cell_size * (rows - 1))

    @property
    def area_m2(self) -> float:
        x0, y0, x1, y1 = self.extent
        return (x1 - x0) * (y1 - y0)


def habitat(
    heights: npt.ArrayLike,
    *,
    cell_size: float,
    sea_level: float = 0.0,
    moisture: npt.ArrayLike | None = None,
    temperature: npt.ArrayLike | None = None,
    water: npt.ArrayLike | None = None,
    origin: tuple[float, float] | None = None,
) -> Habitat:
    """A :class:`Habitat` from a heightmap in metres and the maps Worldseed computes beside it.

    Parameters
    ----------
    heights : (rows, cols) array_like of float
        Metres, ``rows, cols >= 2``.
    cell_size : float
        Metres between vertices.
    sea_level : float
        The water line in metres: cells at or below it are sea (water), the altitude is measured
        from it, and the temperature falls above it.
    moisture : (rows, cols) array_like of float in [0, 1], optional
        ``core.biomes.moisture`` (or ``TerrainLayers.moisture``); 0.5 everywhere when not given.
    temperature : (rows, cols) array_like of float, optional
        Degrees C; ``core.biomes.temperature(heights, sea_level=...)`` when not given.
    water : (rows, cols) array_like of bool, optional
        Open water; the sea (``heights <= sea_level``) when not given.
    origin : (float, float), optional
        Position of vertex ``[0, 0]``; default: the grid centred on ``(0, 0)`` (one terrain).

    >>> h = habitat(np.zeros((3, 5)) + 10.0, cell_size=2.0)
    >>> h.extent, round(float(h.temperature[0, 0]), 3), bool(h.water.any())
    ((-4.0, -2.0, 4.0, 2.0), 14.935, False)
    """
    h = check_array(heights, name="heights", ndim=2).astype(np.float64)
    rows, cols = h.shape
    if rows < 2 or cols < 2 or rows * cols > MAX_FIELD_CELLS:
        raise ParameterError(f"heights must have 2 .. {MAX_FIELD_CELLS:,} vertices, 2 a side at least, got {h.shape}")
    cell_size = check_float(cell_size, name="cell_size", bounds=(1e-3, 1e5))
    sea_level = check_float(sea_level, name="sea_level", bounds=(-1e7, 1e7))

    def field(
        value: npt.ArrayLike | None,
        name: str,
        default: npt.NDArray[np.float32] | None,
        lo: float | None = None,
        hi: float | None = None,
    ) -> npt.NDArray[np.float32] | None:
        if value is None:
            return default
        a = check_array(value, name=name, ndim=2, shape=h.shape).astype(np.float32)
        if (lo is not None and a.min() < lo) or (hi is not None and a.max() > hi):
            raise ParameterError(f"{name} must lie in [{lo:g}, {hi:g}], got [{a.min():g}, {a.max():g}]")
        return a

    moist = field(moisture, "moisture", np.full(h.shape, 0.5, np.float32), 0.0, 1.0)
    assert moist is not None  # a default is given
    temp = field(temperature, "temperature", None)
    if temp is None:
        temp = biome_temperature(h, sea_level=sea_level)
    if water is None:
        wet = h <= sea_level
    else:
        wet = check_array(water, name="water", ndim=2, shape=h.shape, dtype_kind="b").copy()
    if origin is None:
        origin = (-0.5 * cell_size * (cols - 1), -0.5 * cell_size * (rows - 1))
    origin = (check_float(origin[0], name="origin[0]"), check_float(origin[1], name="origin[1]"))
    return Habitat(
        moisture=moist,
        altitude=(h - sea_level).astype(np.float32),
        slope=slope_degrees(h, cell_size=cell_size),
        temperature=np.asarray(temp, np.float32),
        water=wet,
        heights=h,
        cell_size=cell_size,
        origin=origin,
    )


def _bump(value: npt.NDArray[np.float64], optimum: float, tolerance: float) -> npt.NDArray[np.float64]:
    d = (value - optimum) / tolerance
    return np.maximum(0.0, 1.0 - d * d)


def suitability(species: Sequence[PlantSpecies], hab: Habitat) -> npt.NDArray[np.float32]:
    """``(S, rows, cols)`` float32: how well each species germinates and grows on each vertex, in [0, 1].

    >>> from .spec import PlantSpecies
    >>> hab = habitat(np.zeros((2, 3)) + 5.0, cell_size=1.0, moisture=np.array([[0.0, 0.5, 1.0]] * 2))
    >>> suitability([PlantSpecies(moisture=1.0, moisture_tolerance=1.0)], hab)[0, 0].round(3).tolist()
    [0.0, 0.75, 1.0]
    """
    out = np.empty((len(species), *hab.shape), np.float32)
    moist = hab.moisture.astype(np.float64)
    alt = hab.altitude.astype(np.float64)
    slope = hab.slope.astype(np.float64)
    temp = hab.temperature.astype(np.float64)
    for k, sp in enumerate(species):
        s = _bump(moist, sp.moisture, sp.moisture_tolerance)
        s *= _bump(alt, sp.altitude, sp.altitude_tolerance)
        s *= _bump(temp, sp.temperature, sp.temperature_tolerance)
        s *= _bump(slope, 0.0, sp.max_slope)
        s[hab.water] = 0.0
        out[k] = s
    return out


def cell_index(hab: Habitat, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Flat index of the nearest vertex of each point (points outside take the nearest edge's)."""
    rows, cols = hab.shape
    x0, y0 = hab.origin
    inv = 1.0 / hab.cell_size
    ix = np.floor((x - x0) * inv + 0.5)
    iy = np.floor((y - y0) * inv + 0.5)
    ix = np.clip(ix, 0, cols - 1).astype(np.int64)
    iy = np.clip(iy, 0, rows - 1).astype(np.int64)
    return iy * cols + ix


def terrain_habitat(
    layers: TerrainLayers, *, sea_level: float, lapse: float = 6.5, origin: tuple[float, float] | None = None
) -> Habitat:
    """A :class:`Habitat` of a terrain tile and its layers (``core.terrain.TerrainLayers``).

    ``sea_level`` in metres (the terrain's ``sea_level`` times its ``height``); the moisture is the
    layers' own when the biomes were worked out (0.5 elsewhere), the temperature falls by ``lapse``
    degrees C per km above the sea (the ``[biomes]`` lapse rate).  ``origin``: vertex ``[0, 0]``'s
    position, default the tile centred on ``(0, 0)`` (one terrain in Blender).
    """
    h = layers.metres
    temp = biome_temperature(h, sea_level=sea_level, lapse=lapse)
    return habitat(
        h,
        cell_size=layers.heights.cell_size,
        sea_level=sea_level,
        moisture=layers.moisture,
        temperature=temp,
        origin=origin,
    )
