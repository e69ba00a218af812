"""Pads: the ground levelled under a settlement and blended into its surroundings.

Inside the pad's radius ``R`` the ground is the pad's height ``z`` (the median of the ground
there: as much cut as fill).  Beyond it the ground is held inside the cone
``|h - z| <= (d - R) tan(slope)``: it meets the pad without a step and climbs or falls away from
it no steeper than ``slope`` until it meets the untouched ground (which keeps its own slope).
Distances are exact (``sqrt`` of sums of squares), so the cells that change are the same on
every machine.
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
    heights: F64, *, row: float, col: float, radius: float, z: float, tan_slope: float, cell_size: float
) -> F64:
    """``heights`` (metres) with the pad of ``radius`` metres at height ``z`` around cell (row, col)
    and its blend: a new array."""
    out = np.array(heights, np.float64, copy=True)
    relief = max(float(out.max()) - z, z - float(out.min()), 0.0)
    reach = radius + relief / tan_slope + 2.0 * cell_size
    rs, cs, d = _window(out.shape, row, col, reach / cell_size)
    metres = d * cell_size
    rise = np.maximum(metres - radius, 0.0) * tan_slope
    part = out[rs, cs]
    out[rs, cs] = np.clip(part, z - rise, z + rise)
    return out
