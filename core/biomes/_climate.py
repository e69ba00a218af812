"""Moisture and temperature maps: fixed curves of world-coordinate fields, so tiles join.

Moisture is fractal noise sampled in world coordinates (the tile's ``offset``), turned into
[0, 1] by a FIXED logistic curve (not by stretching each map to its own range), then raised near
the sea and along flow lines when asked. Every step is per cell, so two tiles that share an edge
agree on it exactly. Temperature falls with height at a lapse rate.
"""

from __future__ import annotations

import numpy as np

from .._checks import check_array, check_float, check_heights, check_int, check_pair
from ..errors import ParameterError
from ..noise import OFFSET, fbm

__all__ = [
    "moisture",
    "temperature",
    "elevation",
    "noise_uniform",
    "MOISTURE_SCALE",
    "WEIGHT",
    "LAPSE",
    "SEA_TEMPERATURE",
    "SEA_REACH",
    "FLOW_RANGE",
    "MOISTURE_OCTAVES",
    "NOISE_SPREAD",
    "MOISTURE_STREAM",
]

#: Feature size of the moisture noise, metres.
MOISTURE_SCALE = (1.0, 1_000_000.0)
#: Weights of the sea and the flow lines in the moisture, [0, 1].
WEIGHT = (0.0, 1.0)
#: Temperature lapse rate, degrees C per km of height.
LAPSE = (0.0, 100.0)
#: Temperature at the sea level, degrees C.
SEA_TEMPERATURE = (-100.0, 100.0)
#: Height above the sea (metres) over which the sea's wetness halves.
SEA_REACH = (0.001, 100_000.0)
#: Upstream areas (m^2) from which flow starts to wet the ground and at which it is fully wet.
FLOW_RANGE = (0.001, 1.0e12)
#: Octaves of the moisture noise.
MOISTURE_OCTAVES = 4
#: Standard deviation of 4-octave fBm (persistence 0.5) over a large area, measured: the fixed
#: curve divides by it so the moisture spreads over [0, 1] on a typical map.
NOISE_SPREAD = 0.155
#: Logistic slope matching a normal distribution's CDF (1.702 x): the curve is about uniform.
LOGISTIC = 1.702
#: The moisture noise's own random stream (``SeedSequence([seed, MOISTURE_STREAM])``).
MOISTURE_STREAM = 0x4D4F4953  # "MOIS"


def noise_uniform(n, *, spread=NOISE_SPREAD):
    """The fixed curve: fBm values (about normal, deviation ``spread``) to about uniform [0, 1].

    ``1 / (1 + exp(-1.702 n / spread))``, the logistic approximation of the normal CDF; the same
    for every tile, so neighbouring tiles agree.

    >>> noise_uniform(np.array([-1.0, 0.0, 1.0], np.float32)).round(3).tolist()
    [0.0, 0.5, 1.0]
    """
    out = np.asarray(n, dtype=np.float32) * np.float32(-LOGISTIC / spread)
    np.exp(out, out=out)
    out += np.float32(1.0)
    np.reciprocal(out, out=out)
    return out


def _offset_cells(offset, cell_size):
    ox, oy = check_pair(offset, name="offset", bounds=(-1.0e7, 1.0e7))
    return ox / cell_size, oy / cell_size


def moisture(
    heights,
    *,
    cell_size,
    seed,
    sea_level,
    scale=128.0,
    flow=None,
    sea_weight=0.0,
    flow_weight=0.0,
    offset=(0.0, 0.0),
    sea_reach=8.0,
    flow_range=(500.0, 50_000.0),
):
    """Moisture in [0, 1] per cell: world-coordinate noise, wetter by the sea and along flow lines.

    Parameters
    ----------
    heights : (rows, cols) array_like of float
        Heights in metres (row 0 at the smallest Y, as the terrain).
    cell_size : float
        Metres between neighbouring cells.
    seed : int >= 0
        The moisture noise uses its own stream, ``SeedSequence([seed, MOISTURE_STREAM])``.
    sea_level : float
        The water line in metres.
    scale : float, within ``MOISTURE_SCALE``
        Feature size of the moisture noise, metres.
    flow : (rows, cols) array_like of float or None
        Upstream area per cell in m^2 (:func:`core.erosion.flow_accumulation`); needed when
        ``flow_weight > 0``.
    sea_weight, flow_weight : float, within ``WEIGHT``
        How much the sea and the flow lines wet the ground (0: not at all, 1: fully).
    offset : (float, float)
        The tile's position in metres (``TerrainSpec.offset``): the noise is sampled in world
        coordinates, so tiles join.
    sea_reach : float, within ``SEA_REACH``
        Height above the sea, metres, over which the sea's wetness halves.
    flow_range : (float, float), within ``FLOW_RANGE``
        Upstream areas (m^2) where flow starts to wet the ground and where it is fully wet (a
        logarithmic ramp between them).

    Returns
    -------
    moisture : (rows, cols) float32 ndarray in [0, 1]

    Notes
    -----
    The noise (4-octave fBm) goes through :func:`noise_uniform`, a fixed logistic curve, so the
    moisture is about uniform over a large area and never depends on the tile's own range. The
    sea and the flow add wetness as independent sources,
    ``1 - (1 - noise) (1 - sea_weight * sea) (1 - flow_weight * flow)``, where
    ``sea = 2 ** (-(h - sea_level) / sea_reach)`` (1 at and below the water line) and ``flow``
    is the log ramp of the upstream area. Closeness to the sea is read from the height above it
    (a per-cell quantity, so tiles join; a distance would need the neighbouring tiles). The flow
    term joins across tiles only as far as the flow maps do (a tile's flow accumulation sees only
    its own catchment).

    Examples
    --------
    >>> h = np.zeros((8, 9), np.float32)
    >>> a = moisture(h, cell_size=4.0, seed=3, sea_level=-1.0)
    >>> b = moisture(h[:, 4:], cell_size=4.0, seed=3, sea_level=-1.0, offset=(16.0, 0.0))
    >>> bool((a[:, 4:] == b).all()), a.dtype
    (True, dtype('float32'))
    """
    h = check_heights(heights, name="heights")
    cell_size = check_float(cell_size, name="cell_size", bounds=(0.0, None), open_low=True)
    seed = check_int(seed, name="seed", bounds=(0, 2**63 - 1))
    sea_level = check_float(sea_level, name="sea_level", bounds=(-1.0e7, 1.0e7))
    scale = check_float(scale, name="scale", bounds=MOISTURE_SCALE)
    sea_weight = check_float(sea_weight, name="sea_weight", bounds=WEIGHT)
    flow_weight = check_float(flow_weight, name="flow_weight", bounds=WEIGHT)
    sea_reach = check_float(sea_reach, name="sea_reach", bounds=SEA_REACH)
    lo, hi = check_pair(flow_range, name="flow_range", bounds=FLOW_RANGE)
    if not lo < hi:
        raise ParameterError(f"flow_range must have low < high, got [{lo:g}, {hi:g}]")
    ox, oy = _offset_cells(offset, cell_size)
    if max(abs(ox), abs(oy)) > OFFSET[1]:
        raise ParameterError(f"offset {offset} is more than {OFFSET[1]:g} cells away")
    if flow_weight > 0.0 and flow is None:
        raise ParameterError("flow is needed when flow_weight > 0 (the upstream area per cell, m^2)")
    rng = np.random.default_rng(np.random.SeedSequence([seed, MOISTURE_STREAM]))
    n = fbm(h.shape, scale=min(scale / cell_size, 1.0e6), octaves=MOISTURE_OCTAVES, seed=rng, offset=(ox, oy))
    m = noise_uniform(n)
    if sea_weight > 0.0 or flow_weight > 0.0:
        dry = np.float32(1.0) - m
        if sea_weight > 0.0:
            above = np.maximum(h - np.float32(sea_level), np.float32(0.0)).astype(np.float32, copy=False)
            sea = np.exp2(above * np.float32(-1.0 / sea_reach))
            dry *= np.float32(1.0) - np.float32(sea_weight) * sea
        if flow_weight > 0.0:
            f = check_array(flow, name="flow", shape=h.shape)
            wet = np.log(np.maximum(f, lo).astype(np.float32) * np.float32(1.0 / lo)) * np.float32(
                1.0 / np.log(hi / lo)
            )
            np.clip(wet, 0.0, 1.0, out=wet)
            dry *= np.float32(1.0) - np.float32(flow_weight) * wet
        m = np.float32(1.0) - dry
    np.clip(m, 0.0, 1.0, out=m)
    return m.astype(np.float32, copy=False)


def temperature(heights, *, sea_level, lapse=6.5, sea_temperature=15.0):
    """Temperature in degrees C, falling with the height above the sea by ``lapse`` per km.

    Parameters
    ----------
    heights : (rows, cols) array_like of float
        Heights in metres.
    sea_level : float
        The water line in metres; cells at or below it have ``sea_temperature``.
    lapse : float, within ``LAPSE``
        Degrees C per km of height (6.5 is the standard atmosphere's).
    sea_temperature : float, within ``SEA_TEMPERATURE``

    Returns
    -------
    temperature : (rows, cols) float32 ndarray

    Examples
    --------
    >>> temperature(np.array([[0.0, 1000.0, 2000.0]]), sea_level=0.0).tolist()
    [[15.0, 8.5, 2.0]]
    """
    h = check_heights(heights, name="heights")
    sea_level = check_float(sea_level, name="sea_level", bounds=(-1.0e7, 1.0e7))
    lapse = check_float(lapse, name="lapse", bounds=LAPSE)
    sea_temperature = check_float(sea_temperature, name="sea_temperature", bounds=SEA_TEMPERATURE)
    above = np.maximum(h - np.float32(sea_level), np.float32(0.0)).astype(np.float32, copy=False)
    return (np.float32(sea_temperature) - above * np.float32(lapse / 1000.0)).astype(np.float32)


def elevation(heights, *, sea_level, height):
    """Share of the land's height above the sea: 0 at ``sea_level``, 1 at ``height`` (metres).

    The table's ``elevation`` axis; not clipped (:func:`core.biomes.classify` clips it to [0, 1]).

    >>> elevation(np.array([[10.0, 55.0, 100.0]]), sea_level=10.0, height=100.0).tolist()
    [[0.0, 0.5, 1.0]]
    """
    h = check_heights(heights, name="heights")
    sea_level = check_float(sea_level, name="sea_level", bounds=(-1.0e7, 1.0e7))
    height = check_float(height, name="height", bounds=(-1.0e7, 1.0e7))
    if not height > sea_level:
        raise ParameterError(f"height (the terrain's top, {height:g} m) must be above sea_level ({sea_level:g} m)")
    e = h - np.float32(sea_level)
    e *= np.float32(1.0 / (height - sea_level))
    return e.astype(np.float32, copy=False)
