"""The density and ``where`` rasters of the Poisson-disk sampler, looked up per point and per cell.

Public through :mod:`.scatter`.  A field is a ``(rows, cols)`` grid of values over the domain
``[0, width] x [0, height]``: value ``[i, j]`` sits at ``(j * dx, i * dy)`` with
``dx = width / (cols - 1)`` and ``dy = height / (rows - 1)``.  Between the values the density
is bilinear.  A field *cell* (the square between four values) is *open* when ``where`` is
True at all four of its corners; samples go only into open cells.
"""
from __future__ import annotations

import numpy as np

from . import _poisson_gaps as gaps


class Field:
    """Density and ``where`` rasters (either may be None) over ``width x height``."""

    def __init__(self, density, where, width, height):
        rows, cols = (density if density is not None else where).shape
        self.rows, self.cols = rows, cols
        self.dx, self.dy = width / (cols - 1), height / (rows - 1)
        self.density = None if density is None else np.asarray(density, np.float64)
        if density is not None:
            corners = np.stack([density[:-1, :-1], density[:-1, 1:], density[1:, :-1], density[1:, 1:]])
            self.cell_dmin = corners.min(axis=0)
        self.cell_open = None
        self._edges = self._sat = None
        if where is not None:
            self.cell_open = where[:-1, :-1] & where[:-1, 1:] & where[1:, :-1] & where[1:, 1:]

    def cell_of(self, x, y):
        """Field cell ``(i, j)`` of points (clamped to the grid)."""
        j = np.floor(np.clip(np.nan_to_num(x / self.dx), 0, self.cols - 2)).astype(np.intp)
        i = np.floor(np.clip(np.nan_to_num(y / self.dy), 0, self.rows - 2)).astype(np.intp)
        return i, j

    def density_at(self, x, y):
        """Bilinear density at points (float64)."""
        i, j = self.cell_of(x, y)
        t = np.clip(x / self.dx - j, 0.0, 1.0)
        u = np.clip(y / self.dy - i, 0.0, 1.0)
        d = self.density
        bottom = d[i, j] + (d[i, j + 1] - d[i, j]) * t
        top = d[i + 1, j] + (d[i + 1, j + 1] - d[i + 1, j]) * t
        return bottom + (top - bottom) * u

    def density_gradient_at(self, x, y):
        """Bilinear density and its gradient ``(d, dd/dx, dd/dy)`` at points (float64)."""
        i, j = self.cell_of(x, y)
        t = np.clip(x / self.dx - j, 0.0, 1.0)
        u = np.clip(y / self.dy - i, 0.0, 1.0)
        d = self.density
        d00, d01, d10, d11 = d[i, j], d[i, j + 1], d[i + 1, j], d[i + 1, j + 1]
        bottom = d00 + (d01 - d00) * t
        top = d10 + (d11 - d10) * t
        ddx = ((d01 - d00) * (1.0 - u) + (d11 - d10) * u) / self.dx
        ddy = (top - bottom) / self.dy
        return bottom + (top - bottom) * u, ddx, ddy

    def open_at(self, x, y):
        """True where points lie in an open field cell."""
        if self.cell_open is None:
            return np.ones(x.shape, bool)
        i, j = self.cell_of(x, y)
        return self.cell_open[i, j]

    def per_cell(self, values, nx, ny, sx, sy, reduce):
        """Reduce field-cell ``values`` over every sampler cell they touch: ``(ny, nx)``.

        Sampler cell ``(I, J)`` spans ``[J sx, (J + 1) sx] x [I sy, (I + 1) sy]``; ``reduce``
        is ``np.maximum`` or ``np.minimum``.  Field cells that merely touch its edge count too
        (a conservative bound).
        """
        out = values
        for axis, n, s, d, m in ((1, nx, sx, self.dx, self.cols - 1), (0, ny, sy, self.dy, self.rows - 1)):
            lo = np.clip(np.floor(np.arange(n) * s / d).astype(np.intp) - 1, 0, m - 1)
            hi = np.clip(np.floor(np.arange(1, n + 1) * s / d).astype(np.intp), 0, m - 1)
            acc = np.take(out, lo, axis=axis)
            for t in range(1, int((hi - lo).max(initial=0)) + 1):
                acc = reduce(acc, np.take(out, np.minimum(lo + t, hi), axis=axis))
            out = acc
        return out

    def _boundary(self):
        """Field-grid edges between an open and a closed cell, inside the domain:
        ``vert (rows - 1, cols)`` (edge x = j dx from row i to i + 1) and
        ``horz (rows, cols - 1)`` (edge y = i dy from column j to j + 1)."""
        if self._edges is None:
            self._edges = self._find_boundary()
        return self._edges

    def _find_boundary(self):
        op = self.cell_open
        vert = np.zeros((self.rows - 1, self.cols), bool)
        vert[:, 1:-1] = op[:, 1:] != op[:, :-1]
        horz = np.zeros((self.rows, self.cols - 1), bool)
        horz[1:-1, :] = op[1:, :] != op[:-1, :]
        return vert, horz

    def _near_boundary(self, x, y, reach, vert, horz):
        """True for boxes ``[x - reach, x + reach] x [y - reach, y + reach]`` that touch a boundary vertex."""
        if self._sat is None:
            self._sat = np.zeros((self.rows + 1, self.cols + 1), np.int64)
            self._sat[1:, 1:] = self._boundary_vertex_mask(vert, horz).cumsum(0).cumsum(1)
        sat = self._sat
        j0 = np.clip(np.ceil((x - reach) / self.dx).astype(np.int64), 0, self.cols)
        j1 = np.clip(np.floor((x + reach) / self.dx).astype(np.int64) + 1, 0, self.cols)
        i0 = np.clip(np.ceil((y - reach) / self.dy).astype(np.int64), 0, self.rows)
        i1 = np.clip(np.floor((y + reach) / self.dy).astype(np.int64) + 1, 0, self.rows)
        i1, j1 = np.maximum(i1, i0), np.maximum(j1, j0)
        return (sat[i1, j1] - sat[i0, j1] - sat[i1, j0] + sat[i0, j0]) > 0

    def _boundary_vertex_mask(self, vert, horz):
        vtx = np.zeros((self.rows, self.cols), bool)
        vtx[:-1, :] |= vert
        vtx[1:, :] |= vert
        vtx[:, :-1] |= horz
        vtx[:, 1:] |= horz
        return vtx

    def boundary_vertices(self):
        """Field-grid vertices on ``where``'s boundary (the corners a gap may have there)."""
        i, j = np.nonzero(self._boundary_vertex_mask(*self._boundary()))
        return j * self.dx, i * self.dy

    def edge_crossings(self, x, y, rho, grow=None, top=0.0):
        """Points where circles cross ``where``'s boundary (see `_boundary`), as a corner table;
        ``grow`` and ``top`` as in :func:`._poisson_gaps.edge_crossings`."""
        vert, horz = self._boundary()
        out = [np.empty((0, gaps.COLUMNS))]
        reach = np.fmax(rho, top)
        # only disks whose reach box touches a boundary edge
        near = self._near_boundary(x, y, reach, vert, horz)
        x, y, rho, reach = x[near], y[near], rho[near], reach[near]
        for across, along, d_line, d_along, flags, vertical in ((x, y, self.dx, self.dy, vert, True),
                                                               (y, x, self.dy, self.dx, horz.T, False)):
            if not flags.any():
                continue
            n_lines = flags.shape[1]
            # boundary segments along each line, counted, to skip lines with none in reach
            count = np.zeros((flags.shape[0] + 1, n_lines), np.int64)
            count[1:] = np.cumsum(flags, axis=0)
            first = np.maximum(np.ceil((across - reach) / d_line).astype(np.intp), 1)
            last = np.minimum(np.floor((across + reach) / d_line).astype(np.intp), n_lines - 2)
            for t in range(int((last - first).max(initial=-1)) + 1):
                line = first + t
                ok = line <= last
                span = np.sqrt(np.maximum(reach * reach - (line * d_line - across) ** 2, 0.0))
                lo = np.clip(np.floor((along - span) / d_along).astype(np.intp), 0, flags.shape[0])
                hi = np.clip(np.floor((along + span) / d_along).astype(np.intp) + 1, 0, flags.shape[0])
                ok[ok] = count[hi[ok], line[ok]] > count[lo[ok], line[ok]]
                if not ok.any():
                    continue
                k = line[ok]
                cx, cy, src, e = gaps.line_crossings(across[ok], along[ok], rho[ok], k * d_line, grow, vertical)
                k = k[src]
                t_along = cy if vertical else cx
                seg = np.floor(np.clip(np.nan_to_num(t_along / d_along, nan=-1.0), -1, flags.shape[0])).astype(np.intp)
                inside = (seg >= 0) & (seg < flags.shape[0]) & np.isfinite(t_along)
                hit = np.zeros(k.size, bool)
                hit[inside] = flags[seg[inside], k[inside]]
                disk = np.flatnonzero(ok)[src[hit]]
                out.append(gaps.table(cx[hit], cy[hit], e[hit], (x[disk], y[disk], rho[disk])))
        return np.concatenate(out)
