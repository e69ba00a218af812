"""Pads: the ground levelled under a settlement and blended into its surroundings.

Inside the pad's radius ``R`` the ground is the pad's height ``z`` (the median of the ground
there: as much cut as fill).  Beyond it the ground is held inside the cone
``|h - z| <= (d - R) tan(slope)``: it meets the pad without a step and climbs or falls away from
it no steeper than ``slope`` until it meets the untouched ground (which keeps its own slope).
A road coming in gets a ramp: along the ray from the centre through its entry the bound is
``grade clip(a - R, 0, L - R) + tan(slope) (max(0, a - L) + max(0, |p| - W))`` instead (``a`` the
distance along the ray, ``p`` across it, ``W`` the ramp's half width, ``L`` where it ends), and
the ground takes the lower of the two bounds: a corridor that leaves the pad at the road's grade,
continuous with the cone on both sides (both bounds are continuous, and so is their minimum).
Distances are exact (``sqrt`` of sums of squares), so the cells that change are the same on every
machine.

Water holds its ground: given ``hold`` (metres per cell, :func:`water_hold`), the blend moves a cell
beyond the pad by at most ``hold`` there -- 0 on a river's water and bed, a lake and the ring of cells
round them (the banks), growing at ``tan(slope)`` with the distance beyond --, so a blend never
buries a river nor lifts it out of its bed (the edit stays continuous beyond the pad: a clip of a
continuous edit by a continuous bound).  The settlements choose sites whose cone holds no water
(``_settlements``), so the hold only ever trims the ramps and the roads' cut and fill.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..biomes import bounded_distance

__all__ = ["pad_height", "apply_pad", "water_hold"]

F64 = npt.NDArray[np.float64]


def _window(shape: tuple[int, ...], row: float, col: float, cells: float) -> tuple[slice, slice, F64]:
    """Slices of the cells within ``cells`` of (row, col) and their distances in cells."""
    rows, cols = shape
    r0, r1 = max(0, int(math.floor(row - cells))), min(rows, int(math.ceil(row + cells)) + 1)
    c0, c1 = max(0, int(math.floor(col - cells))), min(cols, int(math.ceil(col + cells)) + 1)
    rr = np.arange(r0, r1, dtype=np.float64)[:, None] - row
    cc = np.arange(c0, c1, dtype=np.float64)[None, :] - col
    return slice(r0, r1), slice(c0, c1), np.sqrt(rr * rr + cc * cc)


def pad_height(heights: F64, *, row: float, col: float, radius: float, cell_size: float) -> float:
    """The median ground (metres) within ``radius`` metres of cell (row, col)."""
    rs, cs, d = _window(heights.shape, row, col, radius / cell_size)
    inside = heights[rs, cs][d * cell_size <= radius]
    return float(np.median(inside)) if inside.size else float(heights[int(row), int(col)])


def apply_pad(
    heights: F64,
    *,
    row: float,
    col: float,
    radius: float,
    z: float,
    tan_slope: float,
    cell_size: float,
    ramp: tuple[float, float, float, float, float] | None = None,
    hold: F64 | None = None,
) -> F64:
    """``heights`` (metres) with the pad of ``radius`` metres at height ``z`` around cell (row, col)
    and its blend: a new array.  ``ramp``: ``(cos, sin, grade, half width m, end m)`` of a road's
    way in (the direction in Blender's x, y; ``end`` from the centre).  ``hold``: (rows, cols) the
    most each cell may move (metres, ``inf``: free; :func:`water_hold`), or None: no limit.

    >>> h = np.zeros((1, 9)); h[0, 6] = -10.0  # a river bed 24 m from the pad's centre
    >>> hold = water_hold(h < -5.0, tan_slope=1.0, cell_size=4.0, reach=40.0)
    >>> apply_pad(h, row=0.0, col=0.0, radius=8.0, z=5.0, tan_slope=1.0, cell_size=4.0, hold=hold).tolist()
    [[5.0, 5.0, 5.0, 1.0, 0.0, 0.0, -10.0, 0.0, 0.0]]
    """
    out = np.array(heights, np.float64, copy=True)
    relief = max(float(out.max()) - z, z - float(out.min()), 0.0)
    gentlest = tan_slope if ramp is None else min(tan_slope, ramp[2])
    reach = radius + relief / gentlest + 2.0 * cell_size
    rs, cs, d = _window(out.shape, row, col, reach / cell_size)
    metres = d * cell_size
    rise = np.maximum(metres - radius, 0.0) * tan_slope
    if ramp is not None:
        co, si, grade, half, end = ramp
        half = min(half, radius)  # wider than the pad, the ramp would start below its edge: a step
        dy = (np.arange(rs.start, rs.stop, dtype=np.float64)[:, None] - row) * cell_size
        dx = (np.arange(cs.start, cs.stop, dtype=np.float64)[None, :] - col) * cell_size
        along = dx * co + dy * si
        across = np.abs(dy * co - dx * si)
        slope = (
            np.clip(along - radius, 0.0, max(end - radius, 0.0)) * grade
            + (np.maximum(along - end, 0.0) + np.maximum(across - half, 0.0)) * tan_slope
        )
        # ahead of the centre only (behind it the cone is the lower bound where they meet: no seam)
        rise = np.where(along > 0.0, np.minimum(rise, slope), rise)
    part = out[rs, cs]
    levelled = np.clip(part, z - rise, z + rise)
    if hold is not None:  # (the pad itself is level whatever: its site holds no water)
        limit = np.where(metres <= radius, np.inf, hold[rs, cs])
        levelled = part + np.clip(levelled - part, -limit, limit)
    out[rs, cs] = levelled
    return out


def water_hold(water: npt.NDArray[np.bool_], *, tan_slope: float, cell_size: float, reach: float) -> F64:
    """How far a pad may move each cell near ``water`` (a river's water and bed cells, a lake: True),
    metres: 0 on the water and the eight cells round each of its cells (the banks a bed lies below),
    then ``tan_slope`` times the distance beyond 1.5 cells; ``inf`` past ``reach`` metres (free).
    Exact (integer squared distances, one ``sqrt``)."""
    dist = bounded_distance(np.asarray(water, bool), reach=reach, cell_size=cell_size)
    out: F64 = np.maximum(dist - 1.5 * cell_size, 0.0) * tan_slope  # the eight cells round the water held
    return out
