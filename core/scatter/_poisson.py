"""Maximal Poisson-disk sampling engine: grid-parallel darts, then darts at the gaps' corners.

Public through :mod:`.scatter` (`poisson_disk`, `poisson_disk_variable`).

Glossary
--------
cell        a square of the background grid, side ``r_min / sqrt(2)``: its diagonal is
            ``r_min``, so it holds at most one sample and a sample inside covers all of it.
covered     a point ``x`` where no new sample may go: some sample ``p`` has
            ``|x - p| < max(r(x), r_p)`` (the larger radius wins), or ``x`` lies outside
            ``where``.
gap         a part of the domain that is not covered: room for another sample.
gap corner  a corner of a gap: a point where two sample circles cross, or a circle meets the
            edge of the domain or of ``where``, or a corner of either, that no disk covers.
            Every gap with any area has one (:mod:`._poisson_gaps`), so when no gap corner
            is left, the packing is maximal.
dart        a uniformly drawn candidate.

Algorithm
---------
1. Darts.  In each round a random quarter of the empty cells throws one dart each.  A dart is
   kept when no sample covers it and no other dart of the round that conflicts with it has
   a higher random priority, so simultaneous darts never conflict, and the outcome depends
   on distances only, not on the grid (bench/bench_scatter.py measures no grid bias in the
   neighbour directions or the spectrum, even with every cell throwing at once; a quarter
   keeps rounds close to sequential dart throwing at no cost in time).  A cell stops after
   ``misses`` failed darts.  This places about four fifths of the samples.
2. Gap corners.  The corners of the gaps left are computed (circle-circle and circle-edge
   crossings tested against the other disks).  In each pass one corner per cell throws up to
   ``k`` darts, a quarter of them in each of four squares centred on it (side ``s``,
   ``s / 2``, ``s / 4``, ``s / 8`` times ``2**-level``; the smaller ones only if the larger
   all missed, and near a corner a gap is a wedge, so small squares still hit it); a corner
   whose darts all miss moves four levels down.  Each corner keeps its first valid dart, one
   per cell and then by priority as above; the new samples' circles add corners and cover old
   ones, and so on until no corner is left.  A corner at ``MAX_LEVEL`` is given up (a gap
   that narrow is ``2**-MAX_LEVEL`` of a cell across).

Existing samples (earlier layers) cover with disks of ``max(e, r_min)`` at least.  A background
cell wholly inside one of them is covered: queries there need no search, and a corner there is
covered, so only the existing disks that reach an uncovered cell (by ``max(e, r)``, ``r`` the
largest radius in that cell) are crossed with each other and with the new samples.  A dense
earlier layer then costs in proportion to its frontier, not to its pairs of disks; all the
searches run in blocks of bounded size.

For a fixed radius the covered set is exactly the union of the disks, so the result is
maximal: every point of the domain (inside ``where``) is closer than ``r`` to a sample.  With a
varying radius a disk reaches ``max(r_p, r(x))`` and its edge is a curve; the corners where two
such curves cross (or one meets an edge) are found by Newton's method
(:mod:`._poisson_gaps`), exact where the radius is smooth; at kinks of the density (its
bilinear cells, or cliffs steeper than the radius changes over a radius) a few corners are
missed and slivers a few percent of a radius wide can stay.
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import ParameterError
from . import _poisson_existing as existing_mod
from . import _poisson_gaps as gaps
from ._poisson_existing import Existing
from ._poisson_field import Field

#: Times a gap corner's dart square may halve before the corner is given up.
MAX_LEVEL = 30
#: Most background-grid cells one call may use (20 bytes each, 44 with a varying radius).
MAX_GRID_CELLS = 1 << 24

_SQRT2 = math.sqrt(2.0)
_FAR = 1e150  # coordinate of an empty cell; its square stays finite
_ROUND_FRACTION = 0.25  # darts per round, as a fraction of all cells
_CHUNKS = (0, 9, 25) + tuple(range(49, 1 << 16, 48))  # neighbour offsets examined per pass
_BLOCK = 4096  # queries per pass (keeps temporaries in cache)
_SPREAD = 4  # a corner's darts use squares of this many sizes at once
_GAP_TOL = 1.0 - 1e-9  # a gap corner counts as covered only if clearly inside a disk
_FULL_TOL = 1.0 - 1e-8  # queries shrunk less than this count as covered in a fully covered cell


def grid_cells(width, height, r_min):
    """Number of background-grid cells a call would use (checked against ``MAX_GRID_CELLS``)."""
    s = r_min / _SQRT2
    return math.ceil(width / s) * math.ceil(height / s)


class RadiusField:
    """The radius ``r(x) = r_max - density(x) (r_max - r_min)`` at points, with its gradient
    (what the gap corners of a varying radius need); NaN at NaN points."""

    def __init__(self, field, r_min, r_max):
        self.field, self.r_max, self.span = field, r_max, r_max - r_min

    def _clean(self, x, y):
        bad = ~(np.isfinite(x) & np.isfinite(y))
        return np.where(bad, 0.0, x), np.where(bad, 0.0, y), bad

    def __call__(self, x, y):
        x, y, bad = self._clean(x, y)
        r = self.r_max - self.field.density_at(x, y) * self.span
        r[bad] = np.nan
        return r

    def with_gradient(self, x, y):
        x, y, bad = self._clean(x, y)
        d, ddx, ddy = self.field.density_gradient_at(x, y)
        r = self.r_max - d * self.span
        r[bad] = np.nan
        return r, -ddx * self.span, -ddy * self.span


class Sampler:
    """One sampling run; see the module notes.  Use :func:`sample`."""

    def __init__(
        self,
        width,
        height,
        *,
        r_min,
        r_max,
        rng,
        k,
        misses,
        density=None,
        where=None,
        existing=None,
        existing_radii=None,
    ):
        self.width, self.height = float(width), float(height)
        self.r_min, self.r_max = float(r_min), float(r_max)
        self.variable = self.r_max > self.r_min and density is not None
        if not self.variable:
            self.r_max, density = self.r_min, None
        self.rng, self.k, self.misses = rng, k, misses
        self.s = self.r_min / _SQRT2
        self.nx, self.ny = math.ceil(self.width / self.s), math.ceil(self.height / self.s)
        if self.nx * self.ny > MAX_GRID_CELLS:
            raise ParameterError(
                f"the domain {self.width:g} x {self.height:g} with a minimum radius of {self.r_min:g} needs "
                f"{self.nx * self.ny:,} grid cells, more than the {MAX_GRID_CELLS:,} allowed "
                "(it would exhaust memory); use a larger radius or a smaller domain"
            )
        self.field = None
        if density is not None or where is not None:
            self.field = Field(density, where, self.width, self.height)
        self._offsets()
        size = (self.ny + 2 * self.pad) * self.stride
        # samples live in their cell: coordinates (FAR when empty) and radius
        self.gx = np.full(size, _FAR)
        self.gy = np.full(size, _FAR)
        self.gr = np.zeros(size) if self.variable else None
        self.cand = np.full(size, -1, np.int32)  # dart index per cell during a round
        self.accepted = []  # flat cells, in acceptance order
        self.n = 0
        self.existing = Existing(existing, existing_radii, self.width, self.height, self.r_max)
        self._full = self._existing_cover()
        self._reach()

    # -- geometry ---------------------------------------------------------------------------

    def _offsets(self):
        """Neighbour cell offsets sorted by the gap between the cells, up to ``2 r_max``
        (scans for conflicts use the prefix up to ``r_max``, pairs of disks all of it)."""
        m = int(math.ceil(2.0 * self.r_max / self.s)) + 1
        dj, di = np.meshgrid(np.arange(-m, m + 1), np.arange(-m, m + 1))
        gap = self.s * np.hypot(np.maximum(np.abs(dj) - 1, 0), np.maximum(np.abs(di) - 1, 0))
        keep = gap < 2.0 * self.r_max
        di, dj, gap = di[keep], dj[keep], gap[keep]
        order = np.lexsort((dj, di, gap))
        di, dj, self.off_gap = di[order], dj[order], gap[order]
        self.pad = int(max(np.abs(di).max(), np.abs(dj).max()))
        self.stride = self.nx + 2 * self.pad
        self.off_flat = (di * self.stride + dj).astype(np.intp)

    def _reach(self):
        """Per cell: how many offsets (a prefix of the sorted table) a query there needs.

        A sample ``p`` conflicts with a query in cell ``c`` only if it is closer than
        ``max(r(x), r_p)``; both radii are bounded by the largest radius that any cell within
        ``r_max`` of ``c`` allows (from the density's minimum over those cells).  Two disks
        overlap only if closer than ``r_i + r_j``: ``r_i`` has that bound, and ``r_j`` the
        largest radius within ``2 r_max`` (``prefix2``, the same from both sides of a pair).
        """
        if not self.variable:
            self.prefix = self.prefix2 = self.r_hi = None
            self.n_fixed = int(np.searchsorted(self.off_gap, self.r_max, side="left"))
            return
        dmin = self.field.per_cell(self.field.cell_dmin, self.nx, self.ny, self.s, self.s, np.minimum)
        self.r_hi = r_hi = np.minimum(self.r_max - dmin * (self.r_max - self.r_min), self.r_max)
        near = self._dilate(r_hi, self.r_max)  # bounds both radii of a conflict
        far = self._dilate(r_hi, 2.0 * self.r_max)  # bounds the other disk of a pair
        for name, limit in (("prefix", near), ("prefix2", near + far)):
            prefix = np.searchsorted(self.off_gap, limit.ravel(), side="left")
            full = np.zeros((self.ny + 2 * self.pad, self.stride), np.intp)
            full[self.pad : self.pad + self.ny, self.pad : self.pad + self.nx] = prefix.reshape(self.ny, self.nx)
            setattr(self, name, full.ravel())

    def _dilate(self, grid, distance):
        """Largest value of ``grid`` within ``distance`` of each cell (a square window)."""
        m = int(math.ceil(distance / self.s)) + 1
        grown = np.pad(grid, m, constant_values=grid.min())
        rows = grown[m:-m].copy()
        for d in range(-m, m + 1):
            np.maximum(rows, grown[m + d : grown.shape[0] - m + d], out=rows)
        out = rows[:, m:-m].copy()
        for d in range(-m, m + 1):
            np.maximum(out, rows[:, m + d : rows.shape[1] - m + d], out=out)
        return out

    def _flat(self, row, col):
        return (row + self.pad) * self.stride + (col + self.pad)

    def _cell_of(self, x, y):
        col = np.clip(np.floor(x / self.s).astype(np.int64), 0, self.nx - 1)
        row = np.clip(np.floor(y / self.s).astype(np.int64), 0, self.ny - 1)
        return self._flat(row, col)

    def _radius_at(self, x, y):
        if not self.variable:
            return np.full(x.shape, self.r_min)
        return self.r_max - self.field.density_at(x, y) * (self.r_max - self.r_min)

    # -- neighbour scans ----------------------------------------------------------------------

    def _scan(self, flat, test, table=None):
        """Run ``test(sel, cells)`` over neighbour cells, nearest first, in blocks of queries.

        ``flat`` holds the query cells (sorted, for cache locality).  ``test`` gets the query
        indices ``sel`` and the (m, c) neighbour cells (or the ``table`` entries there) and
        returns a bool (m, c) array of hits; a query stops at its first hit.  Returns the hit
        mask.  Blocks keep the temporaries in cache (a tenfold difference against one pass).
        """
        m = flat.size
        hit = np.zeros(m, bool)
        prefix = None if self.prefix is None else self.prefix[flat]
        for b0 in range(0, m, _BLOCK):
            alive = np.arange(b0, min(b0 + _BLOCK, m))
            total = self.n_fixed if prefix is None else int(prefix[alive].max(initial=0))
            for start, stop in zip(_CHUNKS, _CHUNKS[1:]):
                if start >= total:
                    break
                if prefix is not None:
                    alive = alive[prefix[alive] > start]
                if not alive.size:
                    break
                stop = min(stop, total)
                nb = flat[alive, None] + self.off_flat[None, start:stop]
                h = test(alive, nb if table is None else table[nb])
                if prefix is not None:
                    h &= np.arange(start, stop)[None, :] < prefix[alive, None]
                got = h.any(axis=1)
                hit[alive[got]] = True
                alive = alive[~got]
        return hit

    def _conflicts(self, x, y, r, flat, tol=1.0):
        """True where a point with radius ``r`` at ``(x, y)`` in cell ``flat`` is covered.

        ``tol`` (a number or one per point) < 1 shrinks every disk a little, for gap corners,
        which lie on two circles up to rounding.
        """
        gx, gy, gr = self.gx, self.gy, self.gr
        tol = np.broadcast_to(np.asarray(tol, np.float64), x.shape)
        rt2 = r * r * (tol * tol)

        def test(sel, nb):
            d2 = (gx[nb] - x[sel, None]) ** 2 + (gy[nb] - y[sel, None]) ** 2
            if gr is None:
                return d2 < rt2[sel, None]
            rr = np.maximum(gr[nb], r[sel, None]) * tol[sel, None]
            return d2 < rr * rr

        hit = np.zeros(x.size, bool)
        if self._full is not None:
            # inside a cell wholly covered by an existing disk (queries shrunk by at most
            # _FULL_TOL's margin): covered, with no search
            hit = self._full[flat] & (tol >= _FULL_TOL)
        if self.n:
            rest = np.flatnonzero(~hit)
            hit[rest] = self._scan(flat[rest], lambda sel, nb: test(rest[sel], nb))
        if self.existing.classes:
            rest = np.flatnonzero(~hit)
            hit[rest] = self.existing.conflicts(x[rest], y[rest], r[rest], tol=tol[rest])
        return hit

    # -- darts -----------------------------------------------------------------------------

    def _valid(self, x, y):
        """Radius at each dart, and whether the dart is in the domain, open and uncovered."""
        ok = (x >= 0) & (x < self.width) & (y >= 0) & (y < self.height)
        if self.field is not None and self.field.cell_open is not None:
            ok &= self.field.open_at(x, y)
        r = self._radius_at(x, y)
        flat = self._cell_of(x, y)
        idx = np.flatnonzero(ok)
        if idx.size:
            ok[idx[self._conflicts(x[idx], y[idx], r[idx], flat[idx])]] = False
        return ok, r, flat

    def _accept(self, x, y, r, flat):
        """Keep valid darts (sorted by cell, at most one per cell) that beat every conflicting
        dart of the same round on a random priority; returns the kept mask."""
        ok = np.ones(x.size, bool)
        if x.size > 1:
            prio = self.rng.random(x.size)
            xs, ys = np.append(x, _FAR), np.append(y, _FAR)
            rs, prios = np.append(r, 0.0), np.append(prio, -1.0)
            self.cand[flat] = np.arange(x.size, dtype=np.int32)
            variable = self.variable

            def against_darts(sel, nb):
                d2 = (xs[nb] - x[sel, None]) ** 2 + (ys[nb] - y[sel, None]) ** 2
                rr = np.maximum(rs[nb], r[sel, None]) if variable else r[sel, None]
                return (d2 < rr * rr) & (prios[nb] > prio[sel, None])

            ok = ~self._scan(flat, against_darts, table=self.cand)
            self.cand[flat] = -1
        cells = flat[ok]
        self.gx[cells], self.gy[cells] = x[ok], y[ok]
        if self.variable:
            self.gr[cells] = r[ok]
        self.accepted.append(cells)
        self.n += cells.size
        return ok

    def _darts(self, cells):
        """Phase 1: darts in random fractions of the (sorted) ``cells``, until each has a sample
        or has missed ``misses`` times."""
        misses = np.zeros(cells.size, np.int32)
        per_round = max(1, int(_ROUND_FRACTION * self.nx * self.ny))
        while cells.size:
            p = min(1.0, per_round / cells.size)
            pick = np.flatnonzero(self.rng.random(cells.size) < p) if p < 1.0 else np.arange(cells.size)
            flat = cells[pick]
            row, col = np.divmod(flat, self.stride)
            u = self.rng.random((2, pick.size))
            x = ((col - self.pad) + u[0]) * self.s
            y = ((row - self.pad) + u[1]) * self.s
            ok, r, _ = self._valid(x, y)
            got = np.zeros(pick.size, bool)
            idx = np.flatnonzero(ok)
            if idx.size:
                got[idx[self._accept(x[idx], y[idx], r[idx], flat[idx])]] = True
            misses[pick[~ok]] += 1
            keep = misses < self.misses
            keep[pick[got]] = False
            cells, misses = cells[keep], misses[keep]
            self.rounds += 1

    # -- gap corners -------------------------------------------------------------------------

    def _uncovered(self, corners):
        """The rows of a corner table that lie in the domain, in an empty cell and in no disk.

        A corner counts as covered only when it lies inside a disk by more than rounding and
        its own error (relative to the radius).
        """
        px, py = corners[:, gaps.X], corners[:, gaps.Y]
        keep = (px >= 0) & (px <= self.width) & (py >= 0) & (py <= self.height)
        keep[keep] = self.gx[self._cell_of(px[keep], py[keep])] == _FAR
        corners = corners[keep]
        # crossings come in blocks of neighbouring owners: close enough to sorted for the cache
        return corners[~self._covered(corners)]

    def _covered(self, corners):
        px, py = corners[:, gaps.X], corners[:, gaps.Y]
        tol = np.maximum(_GAP_TOL - 4.0 * corners[:, gaps.ERR], 0.5)
        return self._conflicts(px, py, self._radius_at(px, py), self._cell_of(px, py), tol=tol)

    def _sample_pairs(self, cells, all_new):
        """Pairs ``(i, j)`` of sample cells whose disks overlap, ``i`` from the (sorted) ``cells``;
        a pair of two of those cells is returned once.  ``all_new``: ``cells`` are all the
        samples, so only the offsets to later cells are needed."""
        mine = np.zeros(self.gx.size, bool)
        mine[cells] = True
        reach = None if self.prefix2 is None else self.prefix2[cells]
        total = self.off_flat.size if reach is None else int(reach.max(initial=0))
        out_i, out_j = [], []
        alive = np.arange(cells.size)
        for start, stop in zip(_CHUNKS, _CHUNKS[1:]):
            if start >= total:
                break
            if reach is not None:
                alive = alive[reach[alive] > start]
            stop = min(stop, total)
            offs, rank = self.off_flat[start:stop], np.arange(start, stop)
            if all_new:
                later = offs > 0
                offs, rank = offs[later], rank[later]
            c = cells[alive]
            nb = c[:, None] + offs[None, :]
            d2 = (self.gx[nb] - self.gx[c][:, None]) ** 2 + (self.gy[nb] - self.gy[c][:, None]) ** 2
            s = 2.0 * self.r_min if self.gr is None else self.gr[c][:, None] + self.gr[nb]
            hit = d2 < s * s
            if reach is not None:
                hit &= rank[None, :] < reach[alive, None]
            if not all_new:
                hit &= (nb != c[:, None]) & (~mine[nb] | (nb > c[:, None]))
            q, o = np.nonzero(hit)
            out_i.append(c[q])
            out_j.append(nb[q, o])
        if not out_i:
            return np.empty(0, np.intp), np.empty(0, np.intp)
        return np.concatenate(out_i), np.concatenate(out_j)

    def _new_corners(self, mark):
        """Uncovered gap corners (a table) on the circles of the samples accepted since batch
        ``mark`` (and, on the first call, of every existing disk, the domain's corners and
        ``where``'s boundary vertices), computed in blocks of samples to bound the memory."""
        fresh = self.accepted[mark:]
        cells = np.sort(np.concatenate(fresh)) if fresh else np.empty(0, np.intp)
        grow = RadiusField(self.field, self.r_min, self.r_max) if self.variable else None
        found = [np.empty((0, gaps.COLUMNS))]
        if self.existing.classes and mark == 0:
            self._ex_disks = self._exposed_existing()
        for b0 in range(0, cells.size, 4 * _BLOCK):
            block = cells[b0 : b0 + 4 * _BLOCK]
            i, j = self._sample_pairs(block, all_new=mark == 0)
            if self.gr is None:
                ri = rj = np.full(i.size, self.r_min)
            else:
                ri, rj = self.gr[i], self.gr[j]
            x, y = self.gx[block], self.gy[block]
            r = np.full(block.size, self.r_min) if self.gr is None else self.gr[block]
            parts = [gaps.circle_crossings(self.gx[i], self.gy[i], ri, self.gx[j], self.gy[j], rj, grow)]
            if self.existing.classes:
                h = self._ex_disks
                q, p = h.overlapping(x, y, r)
                parts.append(gaps.circle_crossings(x[q], y[q], r[q], h.x[p], h.y[p], h.rho[p], grow))
            found.append(self._corner_candidates(parts, x, y, r, grow))
        if mark == 0:
            if self.existing.classes:
                found.extend(self._existing_corners(grow))
            w, h = self.width, self.height
            parts = [gaps.table(np.array([0.0, w, 0.0, w]), np.array([0.0, 0.0, h, h]), np.zeros(4))]
            x = y = r = np.empty(0)
            found.append(self._corner_candidates(parts, x, y, r, grow, first=True))
        return np.concatenate(found)

    def _existing_cover(self):
        """Per padded cell: lies wholly inside one existing disk of radius ``max(e, r_min)``
        (by a margin that covers `_GAP_TOL`), so every query there is covered; None without
        existing samples."""
        if not self.existing.classes:
            return None
        ex, ey, er = self.existing.all()
        full = existing_mod.covered_cells(ex, ey, np.maximum(er, self.r_min), self.s, self.nx, self.ny)
        padded = np.zeros((self.ny + 2 * self.pad, self.stride), bool)
        padded[self.pad : self.pad + self.ny, self.pad : self.pad + self.nx] = full
        return padded.ravel()

    def _exposed_existing(self):
        """The existing disks (radius ``max(e, r_min)``) whose edges can bound a gap, in a `DiskHash`.

        A sampler cell lying wholly inside one existing disk holds no gap corner: a corner there
        lies inside that disk, so it is covered (the corners of the disk's own edge lie outside
        it).  A disk that reaches only such cells, or cells that ``where`` closes, contributes no
        corner at all and is left out (it reaches ``max(e, r)``, the farthest its edge can bend
        out to, with ``r`` the largest radius in each cell).  Earlier dense layers thus cost only
        along their frontier: without this, every pair of overlapping existing disks was crossed
        and tested, which grows with the square of ``r_min`` over their spacing (a 5 m layer
        after a 1.2 m one: tens of millions of rows).
        """
        ex, ey, er = self.existing.all()
        rho = np.maximum(er, self.r_min)
        full = self._full.reshape(-1, self.stride)[self.pad : self.pad + self.ny, self.pad : self.pad + self.nx]
        if self.field is not None and self.field.cell_open is not None:
            full = full | ~self.field.per_cell(self.field.cell_open, self.nx, self.ny, self.s, self.s, np.maximum)
        keep = existing_mod.reaching(ex, ey, rho, ~full, self.s, self.r_hi)
        return gaps.DiskHash(ex[keep], ey[keep], rho[keep], reach=self.r_max)

    def _existing_corners(self, grow):
        """Uncovered gap corners where the exposed existing disks cross each other (and the
        edges), in runs of disks that bound the rows examined at once."""
        h = self._ex_disks
        out = []
        if not h.x.size:
            return out
        for run in existing_mod.runs(h.neighbours(h.x, h.y), existing_mod.ROWS):
            idx = np.arange(run.start, run.stop)
            q, p = h.overlapping(h.x[idx], h.y[idx], h.rho[idx])
            i = idx[q]
            keep = i < p
            i, j = i[keep], p[keep]
            parts = [gaps.circle_crossings(h.x[i], h.y[i], h.rho[i], h.x[j], h.y[j], h.rho[j], grow)]
            out.append(self._corner_candidates(parts, h.x[idx], h.y[idx], h.rho[idx], grow))
        return out

    def _corner_candidates(self, parts, x, y, r, grow, first=False):
        """The uncovered rows of the corner tables ``parts`` (crossings of disk circles) and of
        the crossings of the disks ``(x, y, r)`` with the domain's edges and ``where``'s
        boundary (plus its vertices on the ``first`` call)."""
        masked = self.field is not None and self.field.cell_open is not None
        if self.variable:
            # the domain's edges are grid edges of the density field: crossings there are exact
            parts.append(
                self.field.edge_crossings(
                    x, y, r, radius=(self.r_max, self.r_max - self.r_min), where_edges=False, domain_edges=True
                )
            )
        else:
            parts.append(gaps.edge_crossings(x, y, r, self.width, self.height))
        corners = np.concatenate(parts)
        if masked:
            # corners in closed cells border no room; those on where's boundary come from it
            corners = corners[self.field.open_at(corners[:, gaps.X], corners[:, gaps.Y])]
            radius = (self.r_max, self.r_max - self.r_min) if self.variable else None
            edge = [corners, self.field.edge_crossings(x, y, r, radius=radius)]
            if first:
                bx, by = self.field.boundary_vertices()
                edge.append(gaps.table(bx, by, np.zeros(bx.size)))
            corners = np.concatenate(edge)
        return self._uncovered(corners)

    def _corner_darts(self, corners, level):
        """Up to ``k`` darts per corner in squares centred on it, ``k / 4`` of each side
        ``s / 2**level``, ..., ``s / 2**(level + 3)``: the larger squares first, the smaller
        ones only for corners whose darts all missed.  Returns the hit mask and the first valid
        dart of each corner that hit."""
        n = len(corners)
        per = -(-self.k // _SPREAD)
        hit = np.zeros(n, bool)
        got_x, got_y = np.empty(n), np.empty(n)
        for t in range(_SPREAD):
            rest = np.flatnonzero(~hit)
            if not rest.size:
                break
            c = corners[rest]
            half = np.ldexp(0.5 * self.s, -(level[rest] + t))[:, None]
            u = self.rng.random((2, rest.size, per)) * 2.0 - 1.0
            x = c[:, gaps.X, None] + u[0] * half
            y = c[:, gaps.Y, None] + u[1] * half
            # darts inside either disk that made the corner miss: cheap to rule out first
            near = np.zeros(x.shape, bool)
            for cx, cy, cr in ((gaps.AX, gaps.AY, gaps.AR), (gaps.BX, gaps.BY, gaps.BR)):
                near |= (x - c[:, cx, None]) ** 2 + (y - c[:, cy, None]) ** 2 < c[:, cr, None] ** 2
            ok = ~near
            idx = np.flatnonzero(ok)
            ok.ravel()[idx] = self._valid(x.ravel()[idx], y.ravel()[idx])[0]
            found = ok.any(axis=1)
            first_ok = np.flatnonzero(found) * per + ok[found].argmax(axis=1)
            hit[rest[found]] = True
            got_x[rest[found]], got_y[rest[found]] = x.ravel()[first_ok], y.ravel()[first_ok]
        return hit, got_x[hit], got_y[hit]

    def _corners(self):
        """Phase 2: darts around the gap corners until none is left."""
        corners = self._new_corners(0)
        level = np.zeros(len(corners), np.int64)
        while len(corners):
            mark = len(self.accepted)
            # one corner per cell throws this pass (only one dart per cell can be kept)
            home = self._cell_of(corners[:, gaps.X], corners[:, gaps.Y])
            order = np.lexsort((self.rng.random(home.size), home))
            first = np.ones(order.size, bool)
            first[1:] = home[order[1:]] != home[order[:-1]]
            turn = order[first]
            hit, x, y = self._corner_darts(corners[turn], level[turn])
            # one dart per cell, at random, then by priority against each other
            flat = self._cell_of(x, y)
            order = np.lexsort((self.rng.random(x.size), flat))
            first = np.ones(order.size, bool)
            first[1:] = flat[order[1:]] != flat[order[:-1]]
            pick = order[first]
            self._accept(x[pick], y[pick], self._radius_at(x[pick], y[pick]), flat[pick])
            level[turn[~hit]] += _SPREAD
            self.passes += 1
            self.max_level = max(self.max_level, int(level.max(initial=0)))
            # corners given up, or covered by the new disks, go; the new circles add theirs
            keep = level < MAX_LEVEL
            keep[keep] = self._still_uncovered(corners[keep])
            new = self._new_corners(mark)
            corners = np.concatenate([corners[keep], new])
            level = np.concatenate([level[keep], np.zeros(len(new), np.int64)])

    def _still_uncovered(self, corners):
        """Mask of the corners that no disk covers yet (see `_uncovered`)."""
        flat = self._cell_of(corners[:, gaps.X], corners[:, gaps.Y])
        keep = self.gx[flat] == _FAR
        idx = np.flatnonzero(keep)
        o = idx[np.argsort(flat[idx], kind="stable")]
        keep[o[self._covered(corners[o])]] = False
        return keep

    def run(self):
        """Sample; returns ``(points (N, 2), radii (N,))`` in acceptance order."""
        self.rounds = self.passes = self.max_level = 0
        row, col = np.divmod(np.arange(self.nx * self.ny, dtype=np.int64), self.nx)
        cells = self._flat(row, col)
        if self.field is not None and self.field.cell_open is not None:
            any_open = self.field.per_cell(self.field.cell_open, self.nx, self.ny, self.s, self.s, np.maximum)
            cells = cells[any_open.ravel()]
        self._darts(cells)
        self._corners()
        cells = np.concatenate(self.accepted) if self.accepted else np.empty(0, np.intp)
        pts = np.stack([self.gx[cells], self.gy[cells]], axis=1)
        radii = np.full(cells.size, self.r_min) if self.gr is None else self.gr[cells]
        return pts, radii


def sample(
    width, height, *, r_min, r_max, rng, k, misses=2, density=None, where=None, existing=None, existing_radii=None
):
    """Run the sampler; returns ``(points (N, 2) float64, radii (N,) float64)`` in acceptance order."""
    s = Sampler(
        width,
        height,
        r_min=r_min,
        r_max=r_max,
        rng=rng,
        k=k,
        misses=misses,
        density=density,
        where=where,
        existing=existing,
        existing_radii=existing_radii,
    )
    return s.run()
