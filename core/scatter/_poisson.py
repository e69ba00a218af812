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
2. Gap corners (:mod:`._poisson_corners`).  The corners of the gaps left are computed (circle-circle and circle-edge
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

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import exact
from ..errors import ParameterError
from ._poisson_corners import BLOCK, CHUNKS, FAR, CornerFill
from ._poisson_existing import Existing
from ._poisson_field import Field

#: Most background-grid cells one call may use (20 bytes each, 44 with a varying radius).
MAX_GRID_CELLS = 1 << 24

_SQRT2 = math.sqrt(2.0)
_ROUND_FRACTION = 0.25  # darts per round, as a fraction of all cells
_FULL_TOL = 1.0 - 1e-8  # queries shrunk less than this count as covered in a fully covered cell


def grid_cells(width: float, height: float, r_min: float) -> int:
    """Number of background-grid cells a call would use (checked against ``MAX_GRID_CELLS``)."""
    s = r_min / _SQRT2
    return math.ceil(width / s) * math.ceil(height / s)


class Sampler(CornerFill):
    """One sampling run; see the module notes.  Use :func:`sample`."""

    def __init__(
        self,
        width: float,
        height: float,
        *,
        r_min: float,
        r_max: float,
        rng: np.random.Generator,
        k: int,
        misses: int,
        density: npt.NDArray[np.float64] | None = None,
        where: npt.NDArray[np.bool_] | None = None,
        existing: npt.NDArray[np.float64] | None = None,
        existing_radii: npt.NDArray[np.float64] | None = None,
    ) -> None:
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
        self.gx = np.full(size, FAR)
        self.gy = np.full(size, FAR)
        self.gr = np.zeros(size) if self.variable else None
        self.cand = np.full(size, -1, np.int32)  # dart index per cell during a round
        self.accepted: list[npt.NDArray[np.int64]] = []  # flat cells, in acceptance order
        self.n = 0
        self.existing = Existing(existing, existing_radii, self.width, self.height, self.r_max)
        self._full = self._existing_cover()
        self._reach()

    # -- geometry ---------------------------------------------------------------------------

    def _offsets(self) -> None:
        """Neighbour cell offsets sorted by the gap between the cells, up to ``2 r_max``
        (scans for conflicts use the prefix up to ``r_max``, pairs of disks all of it)."""
        m = int(math.ceil(2.0 * self.r_max / self.s)) + 1
        dj, di = np.meshgrid(np.arange(-m, m + 1), np.arange(-m, m + 1))
        gap = self.s * exact.hypot(np.maximum(np.abs(dj) - 1, 0), np.maximum(np.abs(di) - 1, 0))
        keep = gap < 2.0 * self.r_max
        di, dj, gap = di[keep], dj[keep], gap[keep]
        order = np.lexsort((dj, di, gap))
        di, dj, self.off_gap = di[order], dj[order], gap[order]
        self.pad = int(max(np.abs(di).max(), np.abs(dj).max()))
        self.stride = self.nx + 2 * self.pad
        self.off_flat = (di * self.stride + dj).astype(np.intp)

    def _reach(self) -> None:
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
        assert self.field is not None  # variable: there is a density
        dmin = self.field.per_cell(self.field.cell_dmin, self.nx, self.ny, self.s, self.s, np.minimum)
        self.r_hi = r_hi = np.minimum(self.r_max - dmin * (self.r_max - self.r_min), self.r_max)
        near = self._dilate(r_hi, self.r_max)  # bounds both radii of a conflict
        far = self._dilate(r_hi, 2.0 * self.r_max)  # bounds the other disk of a pair
        for name, limit in (("prefix", near), ("prefix2", near + far)):
            prefix = np.searchsorted(self.off_gap, limit.ravel(), side="left")
            full = np.zeros((self.ny + 2 * self.pad, self.stride), np.intp)
            full[self.pad : self.pad + self.ny, self.pad : self.pad + self.nx] = prefix.reshape(self.ny, self.nx)
            setattr(self, name, full.ravel())

    def _dilate(self, grid: npt.NDArray[np.float64], distance: float) -> npt.NDArray[np.float64]:
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

    def _flat(self, row: npt.NDArray[np.int64], col: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        return (row + self.pad) * self.stride + (col + self.pad)

    def _cell_of(self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
        col = np.clip(np.floor(x / self.s).astype(np.int64), 0, self.nx - 1)
        row = np.clip(np.floor(y / self.s).astype(np.int64), 0, self.ny - 1)
        return self._flat(row, col)

    def _radius_at(self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        if not self.variable:
            return np.full(x.shape, self.r_min)
        assert self.field is not None
        return self.r_max - self.field.density_at(x, y) * (self.r_max - self.r_min)

    # -- neighbour scans ----------------------------------------------------------------------

    def _scan(
        self,
        flat: npt.NDArray[np.int64],
        test: Callable[[npt.NDArray[np.int64], npt.NDArray[np.integer[Any]]], npt.NDArray[np.bool_]],
        table: npt.NDArray[np.int32] | None = None,
    ) -> npt.NDArray[np.bool_]:
        """Run ``test(sel, cells)`` over neighbour cells, nearest first, in blocks of queries.

        ``flat`` holds the query cells (sorted, for cache locality).  ``test`` gets the query
        indices ``sel`` and the (m, c) neighbour cells (or the ``table`` entries there) and
        returns a bool (m, c) array of hits; a query stops at its first hit.  Returns the hit
        mask.  Blocks keep the temporaries in cache (a tenfold difference against one pass).
        """
        m = flat.size
        hit = np.zeros(m, bool)
        prefix = None if self.prefix is None else self.prefix[flat]
        for b0 in range(0, m, BLOCK):
            alive = np.arange(b0, min(b0 + BLOCK, m))
            total = self.n_fixed if prefix is None else int(prefix[alive].max(initial=0))
            for start, stop in zip(CHUNKS, CHUNKS[1:]):
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

    def _conflicts(
        self,
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
        r: npt.NDArray[np.float64],
        flat: npt.NDArray[np.int64],
        tol: float | npt.NDArray[np.float64] = 1.0,
    ) -> npt.NDArray[np.bool_]:
        """True where a point with radius ``r`` at ``(x, y)`` in cell ``flat`` is covered.

        ``tol`` (a number or one per point) < 1 shrinks every disk a little, for gap corners,
        which lie on two circles up to rounding.
        """
        gx, gy, gr = self.gx, self.gy, self.gr
        tol = np.broadcast_to(np.asarray(tol, np.float64), x.shape)
        rt2 = r * r * (tol * tol)

        def test(sel: npt.NDArray[np.int64], nb: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.bool_]:
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

    def _valid(
        self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
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

    def _accept(
        self,
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
        r: npt.NDArray[np.float64],
        flat: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.bool_]:
        """Keep valid darts (sorted by cell, at most one per cell) that beat every conflicting
        dart of the same round on a random priority; returns the kept mask."""
        ok = np.ones(x.size, bool)
        if x.size > 1:
            prio = self.rng.random(x.size)
            xs, ys = np.append(x, FAR), np.append(y, FAR)
            rs, prios = np.append(r, 0.0), np.append(prio, -1.0)
            self.cand[flat] = np.arange(x.size, dtype=np.int32)
            variable = self.variable

            def against_darts(sel: npt.NDArray[np.int64], nb: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.bool_]:
                d2 = (xs[nb] - x[sel, None]) ** 2 + (ys[nb] - y[sel, None]) ** 2
                rr = np.maximum(rs[nb], r[sel, None]) if variable else r[sel, None]
                return (d2 < rr * rr) & (prios[nb] > prio[sel, None])

            ok = ~self._scan(flat, against_darts, table=self.cand)
            self.cand[flat] = -1
        cells = flat[ok]
        self.gx[cells], self.gy[cells] = x[ok], y[ok]
        if self.gr is not None:  # variable radii
            self.gr[cells] = r[ok]
        self.accepted.append(cells)
        self.n += cells.size
        return ok

    def _darts(self, cells: npt.NDArray[np.int64]) -> None:
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

    def run(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
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
    width: float,
    height: float,
    *,
    r_min: float,
    r_max: float,
    rng: np.random.Generator,
    k: int,
    misses: int = 2,
    density: npt.NDArray[np.float64] | None = None,
    where: npt.NDArray[np.bool_] | None = None,
    existing: npt.NDArray[np.float64] | None = None,
    existing_radii: npt.NDArray[np.float64] | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
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
