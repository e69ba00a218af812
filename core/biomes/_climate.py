"""Moisture and temperature maps: fixed curves of world-coordinate fields, so tiles join.

Moisture is fractal noise sampled in world coordinates (the tile's ``offset``), turned into
[0, 1] by a FIXED logistic curve (not by stretching each map to its own range), then raised near
the sea and near flow lines when asked, by the Euclidean distance to them in metres with a
bounded reach (:mod:`._distance`). The noise is per cell and the distances see only the cells
within the reach, so a tile given a margin of at least the reach agrees exactly with the big map
it is cut from. Temperature falls with height at a lapse rate.
"""

import numpy as np
import numpy.typing as npt

from .. import exact
from .._checks import check_array, check_float, check_heights, check_int, check_pair
from ..errors import ParameterError
from ..noise import OFFSET, fbm
from ._distance import MAX_REACH_CELLS, reach_cells, squared_distance_cells

__all__ = [
    "moisture",
    "temperature",
    "elevation",
    "noise_uniform",
    "sea_mask",
    "closeness",
    "moisture_margin",
    "MOISTURE_SCALE",
    "WEIGHT",
    "LAPSE",
    "SEA_TEMPERATURE",
    "REACH",
    "FLOW_LINE_AREA",
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
#: Distance (metres) from the sea or a flow line at which its wetness has faded to nothing.
REACH = (0.01, 100_000.0)
#: Upstream area (m^2) from which a cell is a flow line.
FLOW_LINE_AREA = (0.001, 1.0e12)
#: Octaves of the moisture noise.
MOISTURE_OCTAVES = 4
#: Standard deviation of 4-octave fBm (persistence 0.5) over a large area, measured: the fixed
#: curve divides by it so the moisture spreads over [0, 1] on a typical map.
NOISE_SPREAD = 0.155
#: Logistic slope matching a normal distribution's CDF (1.702 x): the curve is about uniform.
LOGISTIC = 1.702
#: The moisture noise's own random stream (``SeedSequence([seed, MOISTURE_STREAM])``).
MOISTURE_STREAM = 0x4D4F4953  # "MOIS"


def noise_uniform(n: npt.NDArray[np.float32], *, spread: float = NOISE_SPREAD) -> npt.NDArray[np.float32]:
    """The fixed curve: fBm values (about normal, deviation ``spread``) to about uniform [0, 1].

    ``1 / (1 + exp(-1.702 n / spread))``, the logistic approximation of the normal CDF; the same
    for every tile, so neighbouring tiles agree.

    >>> noise_uniform(np.array([-1.0, 0.0, 1.0], np.float32)).round(3).tolist()
    [0.0, 0.5, 1.0]
    """
    out = np.asarray(n, dtype=np.float32) * np.float32(-LOGISTIC / spread)
    out = exact.exp(out).astype(np.float32)  # numpy's float32 exp differs between CPUs
    out += np.float32(1.0)
    np.reciprocal(out, out=out)
    return out


def _offset_cells(offset: tuple[float, float], cell_size: float) -> tuple[float, float]:
    ox, oy = check_pair(offset, name="offset", bounds=(-1.0e7, 1.0e7))
    return ox / cell_size, oy / cell_size


def sea_mask(heights: npt.ArrayLike, *, sea_level: float) -> npt.NDArray[np.bool_]:
    """The sea's cells: at or below ``sea_level`` when it is above 0 (as :func:`classify`'s water:
    a flattened sea floor sits exactly at the sea level), strictly below it otherwise (a terrain
    whose floor is at 0 and has no sea has no sea cells).

    >>> sea_mask(np.array([[0.0, 1.0, 2.0]]), sea_level=1.0).tolist()
    [[True, True, False]]
    >>> sea_mask(np.array([[-1.0, 0.0, 2.0]]), sea_level=0.0).tolist()
    [[True, False, False]]
    """
    level = np.asarray(heights).dtype.type(sea_level)
    return heights <= level if sea_level > 0.0 else heights < level


def closeness(mask: npt.NDArray[np.bool_], *, cell_size: float, reach: float) -> npt.NDArray[np.float32]:
    """How close every cell is to the nearest True cell of ``mask``: ``(1 - (d / reach)^2)^2``
    for the Euclidean distance ``d`` (metres, between cell centres) below ``reach``, else 0.

    1 on the marks, falling smoothly (flat at both ends) to 0 at the reach; float32. Only the
    marks within ``reach`` count, so a window with a margin of :func:`moisture_margin` cells
    gives its inner cells the values of any bigger map around it.

    >>> m = np.zeros((1, 5), bool); m[0, 0] = True
    >>> closeness(m, cell_size=1.0, reach=4.0).tolist()
    [[1.0, 0.87890625, 0.5625, 0.19140625, 0.0]]
    """
    cells = min(reach_cells(reach, cell_size), mask.shape[0] + mask.shape[1])  # every distance of the map
    if not mask.any():
        return np.zeros(mask.shape, np.float32)
    t = squared_distance_cells(mask, cells).astype(np.float32)
    ratio = cell_size / reach
    t *= np.float32(ratio * ratio)  # x * x, not x ** 2: a Python float's ** is the C library's pow
    np.minimum(t, np.float32(1.0), out=t)
    np.subtract(np.float32(1.0), t, out=t)
    t *= t
    return t


def moisture_margin(*, cell_size: float, sea_reach: float | None = None, flow_reach: float | None = None) -> int:
    """Cells of margin a tile needs around it for its moisture to join its neighbours' exactly:
    the longer reach in whole cells (0 when neither the sea nor the flow is used).

    >>> moisture_margin(cell_size=2.0, sea_reach=64.0, flow_reach=16.0)
    32
    """
    reaches = [r for r in (sea_reach, flow_reach) if r is not None]
    return max((reach_cells(r, cell_size) for r in reaches), default=0)


def moisture(
    heights: npt.ArrayLike,
    *,
    cell_size: float,
    seed: int,
    sea_level: float,
    scale: float = 128.0,
    flow: npt.ArrayLike | None = None,
    sea_weight: float = 0.0,
    flow_weight: float = 0.0,
    offset: tuple[float, float] = (0.0, 0.0),
    sea_reach: float = 64.0,
    flow_reach: float = 16.0,
    flow_area: float = 20000.0,
    margin: int = 0,
) -> npt.NDArray[np.float32]:
    """Moisture in [0, 1] per cell: world-coordinate noise, wetter near the sea and flow lines.

    Parameters
    ----------
    heights : (rows, cols) array_like of float
        Heights in metres (row 0 at the smallest Y, as the terrain), with ``margin`` cells of the
        neighbouring tiles on every side.
    cell_size : float
        Metres between neighbouring cells.
    seed : int >= 0
        The moisture noise uses its own stream, ``SeedSequence([seed, MOISTURE_STREAM])``.
    sea_level : float
        The water line in metres (the sea's cells: :func:`sea_mask`).
    scale : float, within ``MOISTURE_SCALE``
        Feature size of the moisture noise, metres.
    flow : (rows, cols) array_like of float or None
        Upstream area per cell in m^2 (:func:`core.erosion.flow_accumulation`), the same shape
        as ``heights``; needed when ``flow_weight > 0``.
    sea_weight, flow_weight : float, within ``WEIGHT``
        How much the sea and the flow lines wet the ground (0: not at all, 1: fully).
    offset : (float, float)
        The tile's position in metres (``TerrainSpec.offset``; its first inner cell, not the
        margin's): the noise is sampled in world coordinates, so tiles join.
    sea_reach, flow_reach : float, within ``REACH``
        Distance in metres from the sea and from a flow line at which their wetness has faded to
        nothing.
    flow_area : float, within ``FLOW_LINE_AREA``
        Upstream area (m^2) from which a cell is a flow line.
    margin : int >= 0
        Cells of ``heights`` (and ``flow``) on every side that belong to the neighbouring tiles:
        they count as sea or flow lines near the tile, and are left out of the result. With a
        margin of at least :func:`moisture_margin` cells, the tile's moisture equals the big
        map's on the same cells, bit for bit.

    Returns
    -------
    moisture : (rows - 2 margin, cols - 2 margin) float32 ndarray in [0, 1]

    Notes
    -----
    The noise (4-octave fBm) goes through :func:`noise_uniform`, a fixed logistic curve, so the
    moisture is about uniform over a large area and never depends on the tile's own range. The
    sea and the flow add wetness as independent sources,
    ``noise + (1 - noise) (1 - (1 - sea_weight * sea) (1 - flow_weight * flow))``, where ``sea`` and
    ``flow`` are the :func:`closeness` of the sea's cells and of the flow lines: 1 on them,
    ``(1 - (d / reach)^2)^2`` at a Euclidean distance ``d`` below the reach, 0 beyond. The
    distances are exact (integer arithmetic in cells, :mod:`._distance`); on a 1025^2 map they
    cost about 26 ms of CPU for a reach of 64 cells and 10 ms for 16 (``bench/bench_biomes.py``).

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
    sea_reach = check_float(sea_reach, name="sea_reach", bounds=REACH)
    flow_reach = check_float(flow_reach, name="flow_reach", bounds=REACH)
    flow_area = check_float(flow_area, name="flow_area", bounds=FLOW_LINE_AREA)
    margin = check_int(margin, name="margin", bounds=(0, MAX_REACH_CELLS))
    if 2 * margin >= min(h.shape):
        raise ParameterError(
            f"margin ({margin} cells on every side) must leave a tile inside heights of shape {h.shape}"
        )
    ox, oy = _offset_cells(offset, cell_size)
    if max(abs(ox), abs(oy)) > OFFSET[1]:
        raise ParameterError(f"offset {offset} is more than {OFFSET[1]:g} cells away")
    if flow_weight > 0.0 and flow is None:
        raise ParameterError("flow is needed when flow_weight > 0 (the upstream area per cell, m^2)")
    inner = (slice(margin, h.shape[0] - margin), slice(margin, h.shape[1] - margin))
    shape = (h.shape[0] - 2 * margin, h.shape[1] - 2 * margin)
    rng = np.random.default_rng(np.random.SeedSequence([seed, MOISTURE_STREAM]))
    n = fbm(shape, scale=min(scale / cell_size, 1.0e6), octaves=MOISTURE_OCTAVES, seed=rng, offset=(ox, oy))
    m = noise_uniform(n)
    if sea_weight > 0.0 or flow_weight > 0.0:
        # what stays dry of the rest, (1 - w_sea sea)(1 - w_flow flow): exactly 1 out of reach, so
        # the moisture there is the noise's, bit for bit
        keep = np.ones(shape, np.float32)
        if sea_weight > 0.0:
            sea = closeness(sea_mask(h, sea_level=sea_level), cell_size=cell_size, reach=sea_reach)[inner]
            sea *= np.float32(-sea_weight)
            sea += np.float32(1.0)
            keep *= sea
        if flow_weight > 0.0:
            f = check_array(flow, name="flow", shape=h.shape)
            wet = closeness(f >= flow_area, cell_size=cell_size, reach=flow_reach)[inner]
            wet *= np.float32(-flow_weight)
            wet += np.float32(1.0)
            keep *= wet
        np.subtract(np.float32(1.0), keep, out=keep)  # the share of the dry part made wet
        keep *= np.float32(1.0) - m
        m += keep
    np.clip(m, 0.0, 1.0, out=m)
    return m.astype(np.float32, copy=False)


def temperature(
    heights: npt.ArrayLike, *, sea_level: float, lapse: float = 6.5, sea_temperature: float = 15.0
) -> npt.NDArray[np.float32]:
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


def elevation(heights: npt.ArrayLike, *, sea_level: float, height: float) -> npt.NDArray[np.float32]:
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
