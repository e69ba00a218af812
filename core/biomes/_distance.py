"""Euclidean distance to the nearest marked cell, exact within a bounded reach, numpy only.

The moisture's sea and flow terms need, per cell, how far the nearest sea cell or flow-line cell
is, but only up to a reach (beyond it the term is 0). The transform is separable, like Felzenszwalb
& Huttenlocher's: a first pass finds each cell's distance to the nearest mark in its own row
(capped just past the reach: the marks grown cell by cell for short reaches, two running
accumulations over the whole map for long ones), a second pass takes, along every column, the
lower envelope ``min_k (g[i + k]^2 + k^2)`` over the offsets ``|k| <= reach`` (a few whole-map
operations per offset on 16-bit integers). Everything is integer arithmetic in cells, so the
result is exact (no rounding anywhere), and it depends only on the marks within the reach: a tile
given a margin of at least the reach in cells agrees bit for bit with the big map it was cut from.

Cost: the first pass plus about ``3 * reach`` integer operations over the map (16-bit while
``reach <= 179`` cells, 32-bit beyond); the offsets stop at the map's own size, so a huge reach
costs no more than the map's side. At 1025^2: about 26 ms of CPU for a reach of 64 cells, 10 ms
for 16 (``bench/bench_biomes.py``, which checks it against scipy's exact transform).
"""

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import check_array, check_float, check_int

__all__ = ["squared_distance_cells", "bounded_distance", "reach_cells", "MAX_REACH_CELLS"]

#: Most cells a reach may span (the offsets stop at the map's side anyway).
MAX_REACH_CELLS = 1 << 20


def reach_cells(reach: float, cell_size: float) -> int:
    """Whole cells a reach in metres spans (rounded up): the margin a tile needs.

    >>> reach_cells(64.0, 2.0), reach_cells(65.0, 2.0), reach_cells(0.5, 2.0)
    (32, 33, 1)
    """
    return max(1, math.ceil(reach / cell_size - 1e-9))


#: Reaches (cells) up to which the first pass grows the marks cell by cell (cheaper than the two
#: running accumulations for short reaches; both give the same distances).
GROW_REACH = 24


def _row_distance(mask: npt.NDArray[np.bool_], far: int) -> npt.NDArray[np.integer[Any]]:
    """Distance (cells, capped at ``far``) to the nearest mark in the same row, int16 or uint8."""
    rows, cols = mask.shape
    if far - 1 <= GROW_REACH:
        # count the k in 0..far-1 with no mark within k cells: min(distance, far)
        near = mask.copy()
        g = np.zeros(mask.shape, np.uint8)
        for k in range(1, far):
            g += ~near
            if k < cols:
                near[:, k:] |= mask[:, :-k]
                near[:, :-k] |= mask[:, k:]
        g += ~near
        return g
    # the last mark at or left of each cell and the first at or right of it
    itype = np.int16 if cols + far < 16_000 else np.int32
    idx = np.arange(cols, dtype=itype)
    big = itype(cols + far + 1)
    left = np.where(mask, idx, -big)
    np.maximum.accumulate(left, axis=1, out=left)
    np.subtract(idx, left, out=left)
    right = np.where(mask[:, ::-1], idx[::-1], big)
    np.minimum.accumulate(right, axis=1, out=right)
    right = right[:, ::-1]
    np.subtract(right, idx, out=right)
    np.minimum(left, right, out=left)
    np.minimum(left, itype(far), out=left)
    return left


def squared_distance_cells(mask: npt.NDArray[np.bool_], reach: int) -> npt.NDArray[np.unsignedinteger[Any]]:
    """Squared distance in cells from every cell to the nearest True cell of ``mask``.

    Parameters
    ----------
    mask : (rows, cols) array_like of bool
    reach : int, >= 1
        In cells. Where the squared distance is at most ``reach ** 2`` it is exact; elsewhere the
        value is ``(reach + 1) ** 2`` (farther than the reach, whatever the true distance). A
        reach beyond ``rows + cols`` holds every distance of the map and counts as ``rows + cols``.

    Returns
    -------
    (rows, cols) uint16 ndarray while ``2 * (reach + 1) ** 2 < 65536``, else uint32 (uint64 for
    maps of more than 20,000 cells a side).

    Examples
    --------
    >>> m = np.zeros((3, 7), bool); m[1, 1] = True
    >>> squared_distance_cells(m, 3).tolist()
    [[2, 1, 2, 5, 16, 16, 16], [1, 0, 1, 4, 9, 16, 16], [2, 1, 2, 5, 16, 16, 16]]
    """
    mask = check_array(mask, name="mask", ndim=2, dtype_kind="b")
    reach = check_int(reach, name="reach", bounds=(1, MAX_REACH_CELLS))
    rows, cols = mask.shape
    reach = min(reach, rows + cols)
    far = reach + 1
    dtype = np.uint16 if 2 * far * far < 1 << 16 else np.uint32 if 2 * far * far < 1 << 32 else np.uint64
    g2: npt.NDArray[Any] = _row_distance(mask, far).astype(dtype)
    g2 *= g2
    # pass 2, along the columns: the lower envelope of the parabolas k^2 + g2[i + k], |k| <= reach
    # (rows are contiguous, so every shifted view is a block of memory)
    out = g2.copy()
    for k in range(1, min(reach, rows - 1) + 1):
        k2 = dtype(k * k)
        if 2 * k < rows:  # the cells with both neighbours k rows away
            pair = np.minimum(g2[2 * k :], g2[: rows - 2 * k])
            pair += k2
            np.minimum(out[k : rows - k], pair, out=out[k : rows - k])
        # the first and last k rows: one neighbour each (all rows when 2k >= rows)
        top = min(k, rows - k)
        np.minimum(out[:top], g2[k : k + top] + k2, out=out[:top])
        low = max(rows - k, k)
        np.minimum(out[low:], g2[low - k : rows - k] + k2, out=out[low:])
    np.minimum(out, dtype(far * far), out=out)
    out[out > reach * reach] = far * far
    return out


def bounded_distance(mask: npt.NDArray[np.bool_], *, reach: float, cell_size: float = 1.0) -> npt.NDArray[np.float64]:
    """Distance in metres to the nearest True cell of ``mask``, or ``inf`` beyond ``reach`` metres.

    Exact (the Euclidean distance between cell centres times ``cell_size``, computed in integers)
    wherever it is at most ``reach``. See :func:`squared_distance_cells`.

    >>> m = np.zeros((1, 6), bool); m[0, 0] = True
    >>> bounded_distance(m, reach=8.0, cell_size=2.0).tolist()
    [[0.0, 2.0, 4.0, 6.0, 8.0, inf]]
    """
    cell_size = check_float(cell_size, name="cell_size", bounds=(0.0, None), open_low=True)
    reach = check_float(reach, name="reach", bounds=(0.0, None), open_low=True)
    mask = check_array(mask, name="mask", ndim=2, dtype_kind="b")
    cells = min(reach_cells(reach, cell_size), sum(mask.shape))  # as squared_distance_cells counts it
    d2 = squared_distance_cells(mask, cells)
    out = np.sqrt(d2.astype(np.float64)) * cell_size
    out[(d2 > cells * cells) | (out > reach)] = np.inf
    return out
