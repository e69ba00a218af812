"""The density and ``where`` rasters of the Poisson-disk sampler, looked up per point and per cell.

Public through :mod:`.scatter`.  A field is a ``(rows, cols)`` grid of values over the domain
``[0, width] x [0, height]``: value ``[i, j]`` sits at ``(j * dx, i * dy)`` with
``dx = width / (cols - 1)`` and ``dy = height / (rows - 1)``.  Between the values the density
is bilinear.  A field *cell* (the square between four values) is *open* when ``where`` is
True at all four of its corners; samples go only into open cells.
"""

import numpy as np
import numpy.typing as npt

from .._grid import ScalarT
from . import _poisson_gaps as gaps


class Field:
    """Density and ``where`` rasters (either may be None) over ``width x height``."""

    def __init__(
        self, density: npt.NDArray[np.float64] | None, where: npt.NDArray[np.bool_] | None, width: float, height: float
    ) -> None:
        rows, cols = (density if density is not None else where).shape  # type: ignore[union-attr]  # one is given
        self.rows, self.cols = rows, cols
        self.dx, self.dy = width / (cols - 1), height / (rows - 1)
        self.density = None if density is None else np.asarray(density, np.float64)
        if density is not None:
            corners = np.stack([density[:-1, :-1], density[:-1, 1:], density[1:, :-1], density[1:, 1:]])
            self.cell_dmin = corners.min(axis=0)
        self.cell_open = None
        self._edges: dict[tuple[bool, bool], tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]] = {}
        if where is not None:
            self.cell_open = where[:-1, :-1] & where[:-1, 1:] & where[1:, :-1] & where[1:, 1:]

    def cell_of(
        self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Field cell ``(i, j)`` of points (clamped to the grid)."""
        j = np.floor(np.clip(np.nan_to_num(x / self.dx), 0, self.cols - 2)).astype(np.intp)
        i = np.floor(np.clip(np.nan_to_num(y / self.dy), 0, self.rows - 2)).astype(np.intp)
        return i, j

    def density_at(self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Bilinear density at points (float64)."""
        i, j = self.cell_of(x, y)
        t = np.clip(x / self.dx - j, 0.0, 1.0)
        u = np.clip(y / self.dy - i, 0.0, 1.0)
        d = self.density
        assert d is not None, "a density field"
        bottom = d[i, j] + (d[i, j + 1] - d[i, j]) * t
        top = d[i + 1, j] + (d[i + 1, j + 1] - d[i + 1, j]) * t
        return bottom + (top - bottom) * u

    def density_gradient_at(
        self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Bilinear density and its gradient ``(d, dd/dx, dd/dy)`` at points (float64)."""
        i, j = self.cell_of(x, y)
        t = np.clip(x / self.dx - j, 0.0, 1.0)
        u = np.clip(y / self.dy - i, 0.0, 1.0)
        d = self.density
        assert d is not None, "a density field"
        d00, d01, d10, d11 = d[i, j], d[i, j + 1], d[i + 1, j], d[i + 1, j + 1]
        bottom = d00 + (d01 - d00) * t
        top = d10 + (d11 - d10) * t
        ddx = ((d01 - d00) * (1.0 - u) + (d11 - d10) * u) / self.dx
        ddy = (top - bottom) / self.dy
        return bottom + (top - bottom) * u, ddx, ddy

    def open_at(self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
        """True where points lie in an open field cell."""
        if self.cell_open is None:
            return np.ones(x.shape, bool)
        i, j = self.cell_of(x, y)
        return self.cell_open[i, j]

    def per_cell(
        self, values: npt.NDArray[ScalarT], nx: int, ny: int, sx: float, sy: float, reduce: np.ufunc
    ) -> npt.NDArray[ScalarT]:
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

    def _boundary(
        self, where_edges: bool = True, domain_edges: bool = False
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """Field-grid edges that may bound a gap: ``vert (rows - 1, cols)`` (edge x = j dx from
        row i to i + 1) and ``horz (rows, cols - 1)`` (edge y = i dy from column j to j + 1).

        ``where_edges``: those between an open and a closed cell inside the domain;
        ``domain_edges``: the domain's own edges.
        """
        key = (where_edges, domain_edges)
        if key not in self._edges:
            vert = np.zeros((self.rows - 1, self.cols), bool)
            horz = np.zeros((self.rows, self.cols - 1), bool)
            op = self.cell_open
            if where_edges and op is not None:
                vert[:, 1:-1] = op[:, 1:] != op[:, :-1]
                horz[1:-1, :] = op[1:, :] != op[:-1, :]
            if domain_edges:
                vert[:, [0, -1]] = True
                horz[[0, -1], :] = True
            self._edges[key] = vert, horz
        return self._edges[key]

    def boundary_vertices(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Field-grid vertices on ``where``'s boundary (the corners a gap may have there)."""
        vert, horz = self._boundary()
        vtx = np.zeros((self.rows, self.cols), bool)
        vtx[:-1, :] |= vert
        vtx[1:, :] |= vert
        vtx[:, :-1] |= horz
        vtx[:, 1:] |= horz
        i, j = np.nonzero(vtx)
        return j * self.dx, i * self.dy

    def edge_crossings(
        self,
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
        rho: npt.NDArray[np.float64],
        radius: tuple[float, float] | None = None,
        where_edges: bool = True,
        domain_edges: bool = False,
    ) -> npt.NDArray[np.float64]:
        """Where the edges of disks cross field-grid edges (see `_boundary`), as a corner table.

        A disk reaches ``max(rho, r(x))``; ``radius = (r_max, span)`` gives
        ``r(x) = r_max - density(x) * span`` (None: plain circles of radius ``rho``).  Along a
        grid edge the bilinear density is linear, so on each edge the crossing solves a
        quadratic: exact, no iteration.
        """
        vert, horz = self._boundary(where_edges, domain_edges)
        out = [np.empty((0, gaps.COLUMNS))]
        reach = rho if radius is None else np.fmax(rho, radius[0])
        d = self.density
        for across, along, d_line, d_along, flags, vertical in (
            (x, y, self.dx, self.dy, vert, True),
            (y, x, self.dy, self.dx, horz.T, False),
        ):
            if not flags.any():
                continue
            n_seg, n_lines = flags.shape
            first = np.maximum(np.ceil((across - reach) / d_line).astype(np.intp), 0)
            last = np.minimum(np.floor((across + reach) / d_line).astype(np.intp), n_lines - 1)
            for t in range(int((last - first).max(initial=-1)) + 1):
                line = first + t
                disk = np.flatnonzero(line <= last)
                if not disk.size:
                    continue
                line = line[disk]
                gap = line * d_line - across[disk]
                span = np.sqrt(np.maximum(reach[disk] ** 2 - gap * gap, 0.0))
                lo = np.clip(np.floor((along[disk] - span) / d_along).astype(np.intp), 0, n_seg - 1)
                hi = np.clip(np.floor((along[disk] + span) / d_along).astype(np.intp), 0, n_seg - 1)
                # every (disk, edge) pair within reach, kept where the edge is flagged
                counts = hi - lo + 1
                rep = np.repeat(np.arange(disk.size), counts)
                seg = lo[rep] + (np.arange(rep.size) - (np.cumsum(counts) - counts)[rep])
                keep = flags[seg, line[rep]]
                rep, seg = rep[keep], seg[keep]
                if not rep.size:
                    continue
                k, g, a = disk[rep], gap[rep], along[disk][rep]
                s0 = seg * d_along
                roots = _plain_roots(a, g, rho[k], s0, d_along)
                if radius is not None:
                    assert d is not None, "grown radii come from a density"
                    ln = line[rep]
                    dens = (d[seg, ln], d[seg + 1, ln]) if vertical else (d[ln, seg], d[ln, seg + 1])
                    r0 = radius[0] - dens[0] * radius[1]
                    r1 = radius[0] - dens[1] * radius[1]
                    roots = _grown_roots(a, g, rho[k], s0, d_along, r0, r1, roots)
                for tt in roots:
                    ok = np.isfinite(tt)
                    pos = np.full(ok.sum(), 0.0) + (line[rep][ok] * d_line)
                    px, py = (pos, tt[ok]) if vertical else (tt[ok], pos)
                    kk = k[ok]
                    out.append(gaps.table(px, py, np.zeros(kk.size), (x[kk], y[kk], rho[kk])))
        return np.concatenate(out)


def _plain_roots(
    a: npt.NDArray[np.float64],
    g: npt.NDArray[np.float64],
    rho: npt.NDArray[np.float64],
    s0: npt.NDArray[np.float64],
    length: float,
) -> list[npt.NDArray[np.float64]]:
    """Where the circle of radius ``rho`` (centre ``a`` along the line, ``g`` across) meets the
    segment ``[s0, s0 + length]``: two arrays, NaN where there is no such point."""
    with np.errstate(invalid="ignore"):
        h = np.sqrt(rho * rho - g * g)
    out = []
    for t in (a - h, a + h):
        out.append(np.where((t >= s0) & (t <= s0 + length), t, np.nan))
    return out


def _grown_roots(
    a: npt.NDArray[np.float64],
    g: npt.NDArray[np.float64],
    rho: npt.NDArray[np.float64],
    s0: npt.NDArray[np.float64],
    length: float,
    r0: npt.NDArray[np.float64],
    r1: npt.NDArray[np.float64],
    plain: list[npt.NDArray[np.float64]],
) -> list[npt.NDArray[np.float64]]:
    """The crossings of ``|x - p| = max(rho, r(x))`` with the segment, ``r`` linear along it from
    ``r0`` to ``r1``: the plain roots where ``r <= rho`` there, and the roots of
    ``(t - a)**2 + g**2 = r(t)**2`` where ``r >= rho``.  Four arrays, NaN where none."""
    m = (r1 - r0) / length
    out = []
    for t in plain:
        r = r0 + m * (t - s0)
        out.append(np.where(r <= rho, t, np.nan))
    # u = t - s0:  (1 - m^2) u^2 + 2 ((s0 - a) - m r0) u + ((s0 - a)^2 + g^2 - r0^2) = 0
    c2 = 1.0 - m * m
    c1 = 2.0 * ((s0 - a) - m * r0)
    c0 = (s0 - a) ** 2 + g * g - r0 * r0
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        # the numerically stable form of the roots: q / c2 and c0 / q
        q = -0.5 * (c1 + np.copysign(np.sqrt(c1 * c1 - 4.0 * c2 * c0), c1))
        linear = np.abs(c2) < 1e-12
        for u in (np.where(linear, -c0 / c1, q / c2), np.where(linear, np.nan, c0 / q)):
            r = r0 + m * u
            ok = (u >= 0.0) & (u <= length) & (r >= rho) & (r > 0.0)
            out.append(np.where(ok, s0 + u, np.nan))
    return out
