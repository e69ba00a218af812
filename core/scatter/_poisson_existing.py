"""Earlier samples that new ones keep their distance from (the layers of a scatter).

Public through :mod:`.scatter` (``existing=`` of `poisson_disk_variable`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np


class Bucket(NamedTuple):
    """Existing samples of one radius class on a CSR grid of side ``cell`` (two cells of margin)."""

    cell: float
    nx: int
    ny: int
    x: np.ndarray
    y: np.ndarray
    radii: np.ndarray
    starts: np.ndarray


class Existing:
    """Fixed earlier samples with their exclusion radii, bucketed by radius class.

    A new sample ``x`` conflicts with an existing ``p`` when ``|x - p| < max(r(x), e_p)``.  Each
    class holds radii within a factor of two and uses cells of side ``max(class max e, r_max)``,
    so every conflict lies in the 3 x 3 cells around ``x``, and dense small-radius samples do
    not crowd the cells of sparse large-radius ones.
    """

    def __init__(self, points, radii, width, height, r_max):
        self.classes = []
        if points is None or len(points) == 0:
            return
        exps = np.floor(np.log2(np.maximum(radii, 1e-3 * r_max))).astype(np.int64)
        for e in np.unique(exps):
            sel = exps == e
            p, r = points[sel], radii[sel]
            c = max(float(r.max()), r_max)
            near = (p[:, 0] > -c) & (p[:, 0] < width + c) & (p[:, 1] > -c) & (p[:, 1] < height + c)
            p, r = p[near], r[near]
            if not len(p):
                continue
            nx, ny = int(math.ceil(width / c)) + 4, int(math.ceil(height / c)) + 4
            cx = np.floor(p[:, 0] / c).astype(np.int64) + 2
            cy = np.floor(p[:, 1] / c).astype(np.int64) + 2
            key = cy * nx + cx
            order = np.argsort(key, kind="stable")
            starts = np.searchsorted(key[order], np.arange(nx * ny + 1))
            self.classes.append(Bucket(c, nx, ny, p[order, 0].copy(), p[order, 1].copy(), r[order].copy(), starts))

    def all(self):
        """``(x, y, radii)`` of every existing sample that can reach the domain."""
        return tuple(np.concatenate([getattr(b, name) for b in self.classes]) for name in ("x", "y", "radii"))

    def conflicts(self, qx, qy, qr, tol=1.0):
        """True where a query at ``(qx, qy)`` (inside the domain) with radius ``qr`` conflicts
        with an existing sample.  ``tol`` (a number or one per query) < 1 shrinks the disks a
        little (for gap corners)."""
        hit = np.zeros(qx.shape, bool)
        tol = np.broadcast_to(np.asarray(tol, np.float64), qx.shape)
        offsets = np.arange(-1, 2)
        for b in self.classes:
            cx = np.floor(qx / b.cell).astype(np.int64) + 2
            cy = np.floor(qy / b.cell).astype(np.int64) + 2
            key = (
                (cy[:, None, None] + offsets[None, :, None]) * b.nx + (cx[:, None, None] + offsets[None, None, :])
            ).reshape(-1)
            # queries lie in the domain, so their 3 x 3 cells lie inside the padded grid
            lo, hi = b.starts[key], b.starts[key + 1]
            counts = hi - lo
            total = int(counts.sum())
            if not total:
                continue
            rep = np.repeat(np.arange(key.size), counts)
            pi = lo[rep] + (np.arange(total) - (np.cumsum(counts) - counts)[rep])
            qi = rep // 9
            d2 = (b.x[pi] - qx[qi]) ** 2 + (b.y[pi] - qy[qi]) ** 2
            rr = np.maximum(b.radii[pi], qr[qi]) * tol[qi]
            hit[qi[d2 < rr * rr]] = True
        return hit
