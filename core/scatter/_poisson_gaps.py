"""Corners of the gaps left between disks: circle-circle and circle-edge intersection points.

Used by :mod:`._poisson` to find where a packing is not yet maximal.  Let ``U`` be the part of
a rectangle that no (open) disk covers.  If ``U`` has any area, its boundary is made of circle
arcs and rectangle edges and has a corner: a point where two circles cross, where a circle
meets an edge, or a corner of the rectangle, and that corner lies in no other disk.  So
testing those finitely many points finds every gap, however small.

With a varying radius a disk reaches ``max(r_p, r(x))`` and its edge is a curve; the crossings
of two such curves are found by Newton's method (`circle_crossings`), those with grid edges in
closed form (``_poisson_field.Field.edge_crossings``).  Every corner carries its error and the
disks that made it (a corner `table`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from ._poisson_corners import RadiusField

from .. import exact

_SETTLED = 1e-12  # Newton's method stops below this mismatch (relative to the radius)
_NEWTON_STEPS = 12


class DiskHash:
    """Disks bucketed on a square grid (CSR layout) whose side is the largest radius plus the
    largest query radius ``reach`` (default: the largest radius), so that a query disk and a
    disk it overlaps always lie in neighbouring buckets."""

    def __init__(
        self,
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
        rho: npt.NDArray[np.float64],
        reach: float | None = None,
    ) -> None:
        self.x, self.y, self.rho = x, y, rho
        top = float(rho.max()) if rho.size else 0.5
        self.cell = cell = top + (top if reach is None else max(float(reach), 1e-300))
        if not x.size:
            self.ox = self.oy = 0.0
            self.nx = self.ny = 1
            self.order = np.empty(0, np.int64)
            self.starts = np.zeros(2, np.int64)
            return
        self.ox, self.oy = x.min() - cell, y.min() - cell
        cx, cy = self._cells(x, y)
        self.nx, self.ny = int(cx.max()) + 2, int(cy.max()) + 2
        key = cy * self.nx + cx
        self.order = np.argsort(key, kind="stable")
        self.starts = np.searchsorted(key[self.order], np.arange(self.nx * self.ny + 1))

    def _cells(
        self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        return (
            np.floor((x - self.ox) / self.cell).astype(np.int64),
            np.floor((y - self.oy) / self.cell).astype(np.int64),
        )

    def neighbours(self, qx: npt.NDArray[np.float64], qy: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
        """Number of disks in the 3 x 3 buckets around each query (the rows `overlapping` examines)."""
        out = np.zeros(qx.size, np.int64)
        if not qx.size or not self.order.size:
            return out
        cx, cy = self._cells(qx, qy)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                gx, gy = cx + dx, cy + dy
                inside = (gx >= 0) & (gx < self.nx) & (gy >= 0) & (gy < self.ny)
                key = np.where(inside, gy * self.nx + gx, 0)
                out += np.where(inside, self.starts[key + 1] - self.starts[key], 0)
        return out

    def overlapping(
        self, qx: npt.NDArray[np.float64], qy: npt.NDArray[np.float64], qr: npt.NDArray[np.float64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Pairs ``(query index, disk index)`` with ``|q - p| < qr + rho_p`` (``qr`` at most
        the hash's ``reach``)."""
        if not qx.size or not self.order.size:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        cx, cy = self._cells(qx, qy)
        out_q, out_p = [], []
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                gx, gy = cx + dx, cy + dy
                inside = (gx >= 0) & (gx < self.nx) & (gy >= 0) & (gy < self.ny)
                key = np.where(inside, gy * self.nx + gx, 0)
                lo = self.starts[key]
                counts = np.where(inside, self.starts[key + 1] - lo, 0)
                total = int(counts.sum())
                if not total:
                    continue
                q = np.repeat(np.arange(qx.size), counts)
                p = self.order[lo[q] + (np.arange(total) - (np.cumsum(counts) - counts)[q])]
                d2 = (self.x[p] - qx[q]) ** 2 + (self.y[p] - qy[q]) ** 2
                s = self.rho[p] + qr[q]
                keep = d2 < s * s
                out_q.append(q[keep])
                out_p.append(p[keep])
        if not out_q:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        return np.concatenate(out_q), np.concatenate(out_p)


def overlapping_pairs(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], rho: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Pairs ``(i, j)``, ``i < j``, of disks that overlap: ``|p_i - p_j| < rho_i + rho_j``."""
    i, j = DiskHash(x, y, rho).overlapping(x, y, rho)
    keep = i < j
    return i[keep], j[keep]


#: Columns of a corner table: the point, its error, and the centres and radii of the (up to
#: two) disks whose edges meet there (radius 0 where there is none).
X, Y, ERR, AX, AY, AR, BX, BY, BR = range(9)
COLUMNS = 9


def table(
    px: npt.NDArray[np.float64],
    py: npt.NDArray[np.float64],
    err: npt.NDArray[np.float64],
    a: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]] | None = None,
    b: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]] | None = None,
) -> npt.NDArray[np.float64]:
    """A corner table ``(N, COLUMNS)`` from points, errors and the defining disks ``(x, y, r)``."""
    t = np.zeros((px.size, COLUMNS))
    t[:, X], t[:, Y], t[:, ERR] = px, py, err
    for disk, col in ((a, AX), (b, BX)):
        if disk is not None:
            t[:, col], t[:, col + 1], t[:, col + 2] = disk
    return t


def circle_crossings(
    xi: npt.NDArray[np.float64],
    yi: npt.NDArray[np.float64],
    ri: npt.NDArray[np.float64],
    xj: npt.NDArray[np.float64],
    yj: npt.NDArray[np.float64],
    rj: npt.NDArray[np.float64],
    grow: RadiusField | None = None,
) -> npt.NDArray[np.float64]:
    """Both crossing points of the circles of each disk pair, as a corner `table`.

    Pairs where one circle lies inside the other (or the centres coincide) give no points.
    ``err`` is 0 for plain circles.  With ``grow`` (a `RadiusField`), each disk reaches
    ``max(r_i, r(x))`` and its edge is a curve: the crossing is found by Newton's method from
    the plain circles' crossing and from circles with the radius at the pair's midpoint (the
    curves may cross more than once), and ``err`` is the remaining mismatch relative to the
    radius.
    """
    out = [np.empty((0, COLUMNS))]
    for side in (-1.0, 1.0):
        px, py = _crossing(xi, yi, ri, xj, yj, rj, side)
        err = np.zeros(px.size)
        if grow is not None and px.size:
            # a plain crossing where r(x) reaches neither radius is already exact
            bent = np.flatnonzero(grow(px, py) > np.fmin(ri, rj))
            sub = (xi[bent], yi[bent], ri[bent], xj[bent], yj[bent], rj[bent])
            px[bent], py[bent], err[bent] = _newton_pair(*sub, px[bent], py[bent], grow)
            # a second start, from the radii at the midpoint, where those differ
            g = grow(0.5 * (xi + xj), 0.5 * (yi + yj))
            mid = np.flatnonzero(g > np.fmin(ri, rj))
            sub = (xi[mid], yi[mid], ri[mid], xj[mid], yj[mid], rj[mid])
            qx, qy = _crossing(*sub[:2], np.fmax(ri[mid], g[mid]), *sub[3:5], np.fmax(rj[mid], g[mid]), side)
            qx, qy, e = _newton_pair(*sub, qx, qy, grow)
            k = np.isfinite(qx) & np.isfinite(qy)
            m = mid[k]
            out.append(table(qx[k], qy[k], e[k], (xi[m], yi[m], ri[m]), (xj[m], yj[m], rj[m])))
        k = np.isfinite(px) & np.isfinite(py)
        out.append(table(px[k], py[k], err[k], (xi[k], yi[k], ri[k]), (xj[k], yj[k], rj[k])))
    return np.concatenate(out)


def _newton_pair(
    xi: npt.NDArray[np.float64],
    yi: npt.NDArray[np.float64],
    ri: npt.NDArray[np.float64],
    xj: npt.NDArray[np.float64],
    yj: npt.NDArray[np.float64],
    rj: npt.NDArray[np.float64],
    px: npt.NDArray[np.float64],
    py: npt.NDArray[np.float64],
    grow: RadiusField,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Newton's method for ``|x - p_k| = max(r_k, r(x))``, k = i, j, from ``(px, py)``."""
    px, py = px.copy(), py.copy()
    scale = np.fmax(ri, rj)
    err = np.full(px.size, np.inf)
    idx = np.flatnonzero(np.isfinite(px))
    for _ in range(_NEWTON_STEPS):
        if not idx.size:
            break
        x, y = px[idx], py[idx]
        r, rx, ry = grow.with_gradient(x, y)
        rows = []
        for cx, cy, rk in ((xi[idx], yi[idx], ri[idx]), (xj[idx], yj[idx], rj[idx])):
            vx, vy = x - cx, y - cy
            d = exact.hypot(vx, vy)
            grown = r > rk
            with np.errstate(invalid="ignore", divide="ignore"):
                rows.append((d - np.where(grown, r, rk), vx / d - grown * rx, vy / d - grown * ry))
        (f0, a, b), (f1, c, e) = rows
        det: npt.NDArray[np.float64] = a * e - b * c
        with np.errstate(invalid="ignore", divide="ignore"):
            dx = (f0 * e - f1 * b) / det
            dy = (a * f1 - c * f0) / det
        err[idx] = np.fmax(np.abs(f0), np.abs(f1)) / scale[idx]
        bad = ~(np.isfinite(dx) & np.isfinite(dy))
        # a step longer than the radius has left the crossing's neighbourhood: clamp it
        cap = scale[idx] / np.fmax(exact.hypot(dx, dy), scale[idx])
        px[idx] = np.where(bad, x, x - dx * cap)
        py[idx] = np.where(bad, y, y - dy * cap)
        idx = idx[~bad & (err[idx] > _SETTLED)]
    return px, py, _residual_pair(xi, yi, ri, xj, yj, rj, px, py, grow)


def _residual_pair(
    xi: npt.NDArray[np.float64],
    yi: npt.NDArray[np.float64],
    ri: npt.NDArray[np.float64],
    xj: npt.NDArray[np.float64],
    yj: npt.NDArray[np.float64],
    rj: npt.NDArray[np.float64],
    px: npt.NDArray[np.float64],
    py: npt.NDArray[np.float64],
    grow: RadiusField,
) -> npt.NDArray[np.float64]:
    r = grow(px, py)
    e = np.fmax(
        np.abs(exact.hypot(px - xi, py - yi) - np.fmax(ri, r)), np.abs(exact.hypot(px - xj, py - yj) - np.fmax(rj, r))
    )
    return e / np.fmax(ri, rj)


def _crossing(
    xi: npt.NDArray[np.float64],
    yi: npt.NDArray[np.float64],
    ri: npt.NDArray[np.float64],
    xj: npt.NDArray[np.float64],
    yj: npt.NDArray[np.float64],
    rj: npt.NDArray[np.float64],
    side: float,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """One crossing point per pair (left of i -> j for ``side`` -1, right for +1), NaN if none."""
    dx, dy = xj - xi, yj - yi
    d2 = dx * dx + dy * dy
    with np.errstate(invalid="ignore", divide="ignore"):
        a = (ri * ri - rj * rj + d2) / (2.0 * d2)  # along the centre line, as a fraction of d
        h2 = ri * ri / d2 - a * a  # across it, squared, as a fraction of d
        h = np.where((d2 > 0) & (h2 >= 0), np.sqrt(np.abs(h2)), np.nan)
    return xi + a * dx + side * h * dy, yi + a * dy - side * h * dx


def edge_crossings(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], rho: npt.NDArray[np.float64], width: float, height: float
) -> npt.NDArray[np.float64]:
    """Points where circles cross the edges of ``[0, width] x [0, height]``, as a corner `table`."""
    out = [np.empty((0, COLUMNS))]
    for across, along, line, vertical, limit in (
        (x, y, 0.0, True, height),
        (x, y, width, True, height),
        (y, x, 0.0, False, width),
        (y, x, height, False, width),
    ):
        near = np.flatnonzero(np.abs(across - line) < rho)
        half = np.sqrt(rho[near] ** 2 - (across[near] - line) ** 2)
        for t in (along[near] - half, along[near] + half):
            keep = (t >= 0.0) & (t <= limit)
            k = near[keep]
            pos = np.full(k.size, line)
            px, py = (pos, t[keep]) if vertical else (t[keep], pos)
            out.append(table(px, py, np.zeros(k.size), (x[k], y[k], rho[k])))
    return np.concatenate(out)
