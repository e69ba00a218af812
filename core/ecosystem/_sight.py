"""What the animals see, through a uniform grid hash: every pair closer than a reach
(:func:`pairs_within`), the nearest of a group (:func:`nearest_of`), each query's nearest target within
its own radius (:func:`nearest_within`) -- whole-array steps, the same pairs in the same order on any
machine (what the animals see)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["pairs_within", "nearest_of", "nearest_within"]


def pairs_within(
    ax: npt.NDArray[np.float64],
    ay: npt.NDArray[np.float64],
    bx: npt.NDArray[np.float64],
    by: npt.NDArray[np.float64],
    reach: float,
    box: tuple[float, float, float, float] | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """``(ia, ib, d2)``: every pair of an ``a`` point and a ``b`` point closer than ``reach`` (and
    perhaps some a little farther: filter ``d2``).  The larger set is sorted into a grid of cells
    of side ``reach / k``, the smaller one scans the ``(2k + 1)^2`` cells around each of its points
    (``k = 2`` where the cells of side ``reach`` would hold many points: fewer candidates).
    ``box``: ``(x0, y0, x1, y1)`` holding every point, when known (saves four passes)."""
    swap = len(ax) > len(bx)
    if swap:
        ax, ay, bx, by = bx, by, ax, ay
    if box is None:
        box = (
            min(float(ax.min()), float(bx.min())),
            min(float(ay.min()), float(by.min())),
            max(float(ax.max()), float(bx.max())),
            max(float(ay.max()), float(by.max())),
        )
    x0, y0, x1, y1 = box
    span = (x1 - x0 + reach) * (y1 - y0 + reach)
    k = 2 if len(bx) * reach * reach > 8.0 * span else 1
    inv = k / reach
    bcx = ((bx - x0) * inv).astype(np.int64)  # points lie in the box: truncation is the floor
    bcy = ((by - y0) * inv).astype(np.int64)
    acx = ((ax - x0) * inv).astype(np.int64)
    acy = ((ay - y0) * inv).astype(np.int64)
    nx = int((x1 - x0) * inv) + 1 + 2 * k
    ny = int((y1 - y0) * inv) + 1 + 2 * k
    cell = (bcy + k) * nx + (bcx + k)
    order = np.argsort(cell, kind="stable")
    counts = np.bincount(cell, minlength=nx * ny)
    starts = np.cumsum(counts) - counts
    around = np.arange(-k, k + 1)
    offsets = (around[:, None] * nx + around[None, :]).ravel()
    qc = (((acy + k) * nx + (acx + k))[:, None] + offsets).ravel()
    cnt = counts[qc]
    keep = np.flatnonzero(cnt)
    qc, cnt = qc[keep], cnt[keep]
    ia = keep // len(offsets)
    total = int(cnt.sum())
    ia = np.repeat(ia, cnt)
    ib = order[np.repeat(starts[qc] - (np.cumsum(cnt) - cnt), cnt) + np.arange(total)]
    dx = bx[ib] - ax[ia]
    dy = by[ib] - ay[ia]
    d2 = dx * dx + dy * dy
    return (ib, ia, d2) if swap else (ia, ib, d2)


def nearest_of(
    group: npt.NDArray[np.int64], other: npt.NDArray[np.int64], d2: npt.NDArray[np.float64], n: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Per group ``0 .. n-1``: the ``other`` of least ``d2`` (ties: the lowest), -1 for none; and
    that ``d2`` (``inf`` for none)."""
    low = np.full(n, np.inf)
    pick = np.full(n, -1, np.int64)
    if not len(group):
        return pick, low
    np.minimum.at(low, group, d2)
    at = d2 == low[group]
    top = np.iinfo(np.int64).max
    best = np.full(n, top, np.int64)
    np.minimum.at(best, group[at], other[at])
    found = best < top
    pick[found] = best[found]
    return pick, low


def nearest_within(
    qx: npt.NDArray[np.float64],
    qy: npt.NDArray[np.float64],
    radius: npt.ArrayLike,
    tx: npt.NDArray[np.float64],
    ty: npt.NDArray[np.float64],
    *,
    box: tuple[float, float, float, float] | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """For each query point, the index of the nearest target within its ``radius`` (-1: none) and
    the distance (``inf``: none); of equally near targets, the lowest index.  ``box``: as
    :func:`pairs_within`.

    >>> best, dist = nearest_within(np.array([0.0, 5.0]), np.zeros(2), 2.0, np.array([1.5, -1.0]), np.zeros(2))
    >>> best.tolist(), dist.tolist()
    ([1, -1], [1.0, inf])
    """
    nq, nt = len(qx), len(tx)
    best = np.full(nq, -1, np.int64)
    dist = np.full(nq, np.inf)
    radius = np.broadcast_to(np.asarray(radius, np.float64), (nq,))
    if not nq or not nt or float(radius.max()) <= 0.0:
        return best, dist
    q, t, d2 = pairs_within(qx, qy, tx, ty, float(radius.max()), box)
    r = radius[q]
    ok = d2 <= r * r
    q, t, d2 = q[ok], t[ok], d2[ok]
    if not len(q):
        return best, dist
    best, low = nearest_of(q, t, d2, nq)
    found = best >= 0
    dist[found] = np.sqrt(low[found])
    return best, dist
