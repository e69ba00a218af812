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
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = ["pad_height", "apply_pad"]

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
) -> F64:
    """``heights`` (metres) with the pad of ``radius`` metres at height ``z`` around cell (row, col)
    and its blend: a new array.  ``ramp``: ``(cos, sin, grade, half width m, end m)`` of a road's
    way in (the direction in Blender's x, y; ``end`` from the centre)."""
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
    out[rs, cs] = np.clip(part, z - rise, z + rise)
    return out
