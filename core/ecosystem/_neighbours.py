"""Overlapping canopies through a uniform grid hash: every pair of discs that overlap, once.

A pair ``(i, j)`` overlaps when ``|p_i - p_j| < r_i + r_j``.  Each pair is found by its larger disc
(``r_j <= r_i``; equal radii: the lower index), which searches ``2 r_i`` around itself: a sapling
searches a few cells, a canopy tree the cells its crown could touch.  The plants are sorted into
square cells once (a counting sort); each plant's candidates are the plants of the
``(2k + 1)^2`` cells around its own, ``k = ceil(2 r_i / cell)``, gathered for all plants of the
same ``k`` at once -- whole arrays, no loop over plants.  The cell side follows the radii
(twice the upper quartile, but no more than four cells a plant on average), so most plants look
at nine cells holding a few plants each.

The pairs are exactly those of the brute-force test (the grid only chooses candidates), so the
result does not depend on the cell side or the order of the plants, only on their positions and
radii.

>>> x = np.array([0.0, 1.5, 10.0]); y = np.zeros(3); r = np.array([1.0, 1.0, 0.5])
>>> overlapping_pairs(x, y, r)
(array([0]), array([1]))
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["overlapping_pairs", "MAX_CANDIDATES"]

#: Most candidate pairs gathered at once (memory: about 40 bytes each).
MAX_CANDIDATES = 1 << 23


def _cell_side(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], r: npt.NDArray[np.float64]) -> float:
    n = len(r)
    width = float(x.max() - x.min()) + 1e-9
    height = float(y.max() - y.min()) + 1e-9
    q = float(np.partition(r, (3 * (n - 1)) // 4)[(3 * (n - 1)) // 4])
    return max(2.0 * q, (width * height / (4.0 * n)) ** 0.5, 1e-6)


def overlapping_pairs(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], r: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``(i, j)`` int64 arrays: every pair of discs with ``|p_i - p_j| < r_i + r_j``, once each, the
    larger disc first (``r_i >= r_j``).  Sorted by ``(i, j)``."""
    n = len(r)
    if n < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    side = _cell_side(x, y, r)
    inv = 1.0 / side
    x0, y0 = float(x.min()), float(y.min())
    cx = np.floor((x - x0) * inv).astype(np.int64)
    cy = np.floor((y - y0) * inv).astype(np.int64)
    reach = np.maximum(np.ceil(2.0 * r * inv).astype(np.int64), 1)
    pad = int(reach.max())
    # a grid padded by the largest reach (empty cells): no bounds tests for the neighbouring cells
    nx = int(cx.max()) + 1 + 2 * pad
    ny = int(cy.max()) + 1 + 2 * pad
    cell = (cy + pad) * nx + (cx + pad)
    order = np.argsort(cell, kind="stable")
    counts = np.bincount(cell, minlength=nx * ny)
    starts = np.cumsum(counts) - counts
    # the plants in cell order from here on (nearby plants close in memory); indices mapped back at the end
    x, y, r, cell, reach = x[order], y[order], r[order], cell[order], reach[order]
    out_i, out_j = [], []
    for k in np.unique(reach).tolist():
        who = np.flatnonzero(reach == k)
        span = np.arange(-k, k + 1)
        offsets = (span[:, None] * nx + span[None, :]).ravel()
        # plants at a time, so the candidates stay within MAX_CANDIDATES
        per_plant = len(offsets) * max(1.0, n / (nx * ny)) * 2.0
        chunk = max(1, int(MAX_CANDIDATES // per_plant))
        for c0 in range(0, len(who), chunk):
            w = who[c0 : c0 + chunk]
            qc = (cell[w][:, None] + offsets).ravel()
            cnt = counts[qc]
            keep = cnt > 0
            qi = np.repeat(w, len(offsets))[keep]
            qc, cnt = qc[keep], cnt[keep]
            total = int(cnt.sum())
            if not total:
                continue
            rep_i = np.repeat(qi, cnt)
            j = np.repeat(starts[qc] - (np.cumsum(cnt) - cnt), cnt) + np.arange(total)
            ri, rj = r[rep_i], r[j]
            take = rj < ri
            tie = np.flatnonzero(rj == ri)
            take[tie] = order[j[tie]] > order[rep_i[tie]]
            rep_i, j = rep_i[take], j[take]
            dx_ = x[rep_i] - x[j]
            dy_ = y[rep_i] - y[j]
            s = r[rep_i] + r[j]
            hit = dx_ * dx_ + dy_ * dy_ < s * s
            out_i.append(rep_i[hit])
            out_j.append(j[hit])
    if not out_i:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    i = order[np.concatenate(out_i)]
    j = order[np.concatenate(out_j)]
    o = np.lexsort((j, i))
    return i[o], j[o]
