"""Earlier samples that new ones keep their distance from (the layers of a scatter).

Public through :mod:`.scatter` (``existing=`` of `poisson_disk_variable`).
"""

import math
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import numpy.typing as npt


class Bucket(NamedTuple):
    """Existing samples of one radius class on a CSR grid of side ``cell`` (two cells of margin)."""

    cell: float
    nx: int
    ny: int
    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    radii: npt.NDArray[np.float64]
    starts: npt.NDArray[np.int64]


class Existing:
    """Fixed earlier samples with their exclusion radii, bucketed by radius class.

    A new sample ``x`` conflicts with an existing ``p`` when ``|x - p| < max(r(x), e_p)``.  Each
    class holds radii within a factor of two and uses cells of side ``max(class max e, r_max)``,
    so every conflict lies in the 3 x 3 cells around ``x``, and dense small-radius samples do
    not crowd the cells of sparse large-radius ones.
    """

    def __init__(
        self,
        points: npt.NDArray[np.float64] | None,
        radii: npt.NDArray[np.float64] | None,
        width: float,
        height: float,
        r_max: float,
    ) -> None:
        self.classes: list[Bucket] = []
        if points is None or len(points) == 0:
            return
        assert radii is not None, "existing points come with their radii"
        # floor(log2(r)) exactly, from the binary exponent (numpy's log2 differs between CPUs)
        exps = np.frexp(np.maximum(radii, 1e-3 * r_max))[1].astype(np.int64) - 1
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

    def all(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``(x, y, radii)`` of every existing sample that can reach the domain."""
        return tuple(np.concatenate([getattr(b, name) for b in self.classes]) for name in ("x", "y", "radii"))

    def conflicts(
        self,
        qx: npt.NDArray[np.float64],
        qy: npt.NDArray[np.float64],
        qr: npt.NDArray[np.float64],
        tol: float | npt.NDArray[np.float64] = 1.0,
    ) -> npt.NDArray[np.bool_]:
        """True where a query at ``(qx, qy)`` (inside the domain) with radius ``qr`` conflicts
        with an existing sample.  ``tol`` (a number or one per query) < 1 shrinks the disks a
        little (for gap corners).  Queries go in runs of at most about ``ROWS`` candidate pairs,
        so the memory stays bounded however dense the existing samples are."""
        hit = np.zeros(qx.shape, bool)
        tol = np.broadcast_to(np.asarray(tol, np.float64), qx.shape)
        offsets = np.arange(-1, 2)
        for b in self.classes:
            cx = np.floor(qx / b.cell).astype(np.int64) + 2
            cy = np.floor(qy / b.cell).astype(np.int64) + 2
            key = (
                (cy[:, None, None] + offsets[None, :, None]) * b.nx + (cx[:, None, None] + offsets[None, None, :])
            ).reshape(qx.size, 9)
            # queries lie in the domain, so their 3 x 3 cells lie inside the padded grid
            counts = b.starts[key + 1] - b.starts[key]
            for run in runs(counts.sum(axis=1), ROWS):
                q = np.flatnonzero(~hit[run]) + run.start
                k = key[q].reshape(-1)
                lo, n = b.starts[k], counts[q].reshape(-1)
                total = int(n.sum())
                if not total:
                    continue
                rep = np.repeat(np.arange(k.size), n)
                pi = lo[rep] + (np.arange(total) - (np.cumsum(n) - n)[rep])
                qi = q[rep // 9]
                d2 = (b.x[pi] - qx[qi]) ** 2 + (b.y[pi] - qy[qi]) ** 2
                rr = np.maximum(b.radii[pi], qr[qi]) * tol[qi]
                hit[qi[d2 < rr * rr]] = True
        return hit


#: Candidate pairs examined at once (about 40 bytes each in temporaries).
ROWS = 1 << 20


def runs(counts: npt.NDArray[np.int64], budget: int) -> list[slice]:
    """Consecutive slices of ``counts`` (one per query) summing to at most ``budget`` each, or one
    query when a single one exceeds it."""
    ends = np.cumsum(counts)
    out, start = [], 0
    while start < counts.size:
        base = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, base + budget, side="right")), start + 1)
        out.append(slice(start, stop))
        start = stop
    return out


def _windows(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], m_all: npt.NDArray[np.int64], s: float, nx: int, ny: int
) -> Iterator[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]]:
    """Yield ``(disk, col, row)`` index arrays: each disk with the sampler cells (side ``s``,
    ``nx x ny`` of them) up to ``m_all`` (one per disk) columns and rows from its own, in
    bounded runs."""
    for m in np.unique(m_all):
        d = np.arange(-m, m + 1)
        dj, di = (a.ravel() for a in np.meshgrid(d, d))
        group = np.flatnonzero(m_all == m)
        step = max(1, ROWS // dj.size)
        for b0 in range(0, group.size, step):
            disk = np.repeat(group[b0 : b0 + step], dj.size)
            col = (np.floor(x / s).astype(np.int64)[disk]) + np.tile(dj, disk.size // dj.size)
            row = (np.floor(y / s).astype(np.int64)[disk]) + np.tile(di, disk.size // di.size)
            inside = (col >= 0) & (col < nx) & (row >= 0) & (row < ny)
            yield disk[inside], col[inside], row[inside]


def covered_cells(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], rho: npt.NDArray[np.float64], s: float, nx: int, ny: int
) -> npt.NDArray[np.bool_]:
    """``(ny, nx)`` bool: sampler cells (squares of side ``s``, cell ``(I, J)`` spanning
    ``[J s, (J + 1) s] x [I s, (I + 1) s]``) that lie wholly inside one open disk ``(x, y, rho)``
    (its farthest corner closer than ``rho (1 - 1e-8)``, a margin for rounding)."""
    full = np.zeros((ny, nx), bool)
    # a cell d columns away has its far side at least |d| s away
    for disk, col, row in _windows(x, y, np.ceil(rho / s).astype(np.int64) - 1, s, nx, ny):
        fx = np.maximum(np.abs(x[disk] - col * s), np.abs(x[disk] - (col + 1) * s))
        fy = np.maximum(np.abs(y[disk] - row * s), np.abs(y[disk] - (row + 1) * s))
        r = rho[disk] * (1.0 - 1e-8)
        inside = fx * fx + fy * fy < r * r
        full[row[inside], col[inside]] = True
    return full


def reaching(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    rho: npt.NDArray[np.float64],
    free: npt.NDArray[np.bool_],
    s: float,
    cell_radius: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.bool_]:
    """Mask of the disks that meet at least one sampler cell (side ``s``) where ``free``
    (``(ny, nx)`` bool) is True: within ``rho`` of it, or with ``cell_radius`` (``(ny, nx)``,
    the largest radius any point of the cell has) within ``max(rho, cell_radius)``, the farthest
    the edge of a disk whose radius grows with the field can reach into that cell."""
    ny, nx = free.shape
    out = np.zeros(x.size, bool)
    outer = rho if cell_radius is None else np.maximum(rho, cell_radius.max(initial=0.0))
    # a cell d columns away has its near side at least (|d| - 1) s away
    for disk, col, row in _windows(x, y, np.floor(outer / s).astype(np.int64) + 1, s, nx, ny):
        gx = np.maximum(np.maximum(col * s - x[disk], x[disk] - (col + 1) * s), 0.0)
        gy = np.maximum(np.maximum(row * s - y[disk], y[disk] - (row + 1) * s), 0.0)
        limit = rho[disk] if cell_radius is None else np.maximum(rho[disk], cell_radius[row, col])
        meets = (gx * gx + gy * gy <= limit * limit) & free[row, col]
        out[disk[meets]] = True
    return out
