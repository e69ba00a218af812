"""Maximal Poisson-disk sampling, step 2: darts at the corners of the gaps the grid darts left
(see :mod:`._poisson` for the algorithm).  :class:`CornerFill` is the part of the sampler that
finds the gap corners, throws darts in shrinking squares round them and repeats until no corner
is left; :class:`RadiusField` is the varying radius it grows corners with."""

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from . import _poisson_existing as existing_mod
from . import _poisson_gaps as gaps
from ._poisson_field import Field
from ._poisson_gaps import DiskHash

__all__ = ["CornerFill", "RadiusField", "MAX_LEVEL", "FAR", "CHUNKS", "BLOCK", "SPREAD", "GAP_TOL"]

#: Times a gap corner's dart square may halve before the corner is given up.
MAX_LEVEL = 30
FAR = 1e150  # coordinate of an empty cell; its square stays finite
CHUNKS = (0, 9, 25) + tuple(range(49, 1 << 16, 48))  # neighbour offsets examined per pass
BLOCK = 4096  # queries per pass (keeps temporaries in cache)
SPREAD = 4  # a corner's darts use squares of this many sizes at once
GAP_TOL = 1.0 - 1e-9  # a gap corner counts as covered only if clearly inside a disk


class RadiusField:
    """The radius ``r(x) = r_max - density(x) (r_max - r_min)`` at points, with its gradient
    (what the gap corners of a varying radius need); NaN at NaN points."""

    def __init__(self, field: Field, r_min: float, r_max: float) -> None:
        self.field, self.r_max, self.span = field, r_max, r_max - r_min

    def _clean(
        self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        bad = ~(np.isfinite(x) & np.isfinite(y))
        return np.where(bad, 0.0, x), np.where(bad, 0.0, y), bad

    def __call__(self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        x, y, bad = self._clean(x, y)
        r = self.r_max - self.field.density_at(x, y) * self.span
        r[bad] = np.nan
        return r

    def with_gradient(
        self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        x, y, bad = self._clean(x, y)
        d, ddx, ddy = self.field.density_gradient_at(x, y)
        r = self.r_max - d * self.span
        r[bad] = np.nan
        return r, -ddx * self.span, -ddy * self.span


class CornerFill:
    """The gap-corner step of :class:`._poisson.Sampler` (a mixin: it works on the sampler's grid,
    samples and random stream)."""

    # what the sampler holds (set in ``Sampler.__init__``) and the methods of it these use
    width: float
    height: float
    r_min: float
    r_max: float
    variable: bool
    rng: np.random.Generator
    k: int
    s: float
    nx: int
    ny: int
    pad: int
    stride: int
    field: Field | None
    gx: npt.NDArray[np.float64]
    gy: npt.NDArray[np.float64]
    gr: npt.NDArray[np.float64] | None
    accepted: list[npt.NDArray[np.int64]]
    existing: existing_mod.Existing
    off_flat: npt.NDArray[np.intp]
    prefix2: npt.NDArray[np.float64] | None
    r_hi: npt.NDArray[np.float64] | None
    _full: npt.NDArray[np.bool_] | None
    passes: int
    max_level: int
    _cell_of: Callable[[npt.NDArray[np.float64], npt.NDArray[np.float64]], npt.NDArray[np.int64]]
    _radius_at: Callable[[npt.NDArray[np.float64], npt.NDArray[np.float64]], npt.NDArray[np.float64]]
    _conflicts: Callable[..., npt.NDArray[np.bool_]]
    _valid: Callable[
        [npt.NDArray[np.float64], npt.NDArray[np.float64]],
        tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64], npt.NDArray[np.int64]],
    ]
    _accept: Callable[
        [npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]],
        npt.NDArray[np.bool_],
    ]

    # -- gap corners -------------------------------------------------------------------------

    def _uncovered(self, corners: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The rows of a corner table that lie in the domain, in an empty cell and in no disk.

        A corner counts as covered only when it lies inside a disk by more than rounding and
        its own error (relative to the radius).
        """
        px, py = corners[:, gaps.X], corners[:, gaps.Y]
        keep = (px >= 0) & (px <= self.width) & (py >= 0) & (py <= self.height)
        keep[keep] = self.gx[self._cell_of(px[keep], py[keep])] == FAR
        corners = corners[keep]
        # crossings come in blocks of neighbouring owners: close enough to sorted for the cache
        return corners[~self._covered(corners)]

    def _covered(self, corners: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
        px, py = corners[:, gaps.X], corners[:, gaps.Y]
        tol = np.maximum(GAP_TOL - 4.0 * corners[:, gaps.ERR], 0.5)
        return self._conflicts(px, py, self._radius_at(px, py), self._cell_of(px, py), tol=tol)

    def _sample_pairs(
        self, cells: npt.NDArray[np.int64], all_new: bool
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Pairs ``(i, j)`` of sample cells whose disks overlap, ``i`` from the (sorted) ``cells``;
        a pair of two of those cells is returned once.  ``all_new``: ``cells`` are all the
        samples, so only the offsets to later cells are needed."""
        mine = np.zeros(self.gx.size, bool)
        mine[cells] = True
        reach = None if self.prefix2 is None else self.prefix2[cells]
        total = self.off_flat.size if reach is None else int(reach.max(initial=0))
        out_i, out_j = [], []
        alive = np.arange(cells.size)
        for start, stop in zip(CHUNKS, CHUNKS[1:]):
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

    def _new_corners(self, mark: int) -> npt.NDArray[np.float64]:
        """Uncovered gap corners (a table) on the circles of the samples accepted since batch
        ``mark`` (and, on the first call, of every existing disk, the domain's corners and
        ``where``'s boundary vertices), computed in blocks of samples to bound the memory."""
        fresh = self.accepted[mark:]
        cells = np.sort(np.concatenate(fresh)) if fresh else np.empty(0, np.intp)
        grow = RadiusField(self.field, self.r_min, self.r_max) if self.variable and self.field is not None else None
        found = [np.empty((0, gaps.COLUMNS))]
        if self.existing.classes and mark == 0:
            self._ex_disks = self._exposed_existing()
        for b0 in range(0, cells.size, 4 * BLOCK):
            block = cells[b0 : b0 + 4 * BLOCK]
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
            w, top = self.width, self.height
            parts = [gaps.table(np.array([0.0, w, 0.0, w]), np.array([0.0, 0.0, top, top]), np.zeros(4))]
            x = y = r = np.empty(0)
            found.append(self._corner_candidates(parts, x, y, r, grow, first=True))
        return np.concatenate(found)

    def _existing_cover(self) -> npt.NDArray[np.bool_] | None:
        """Per padded cell: lies wholly inside one existing disk of radius ``max(e, r_min)``
        (by a margin that covers `GAP_TOL`), so every query there is covered; None without
        existing samples."""
        if not self.existing.classes:
            return None
        ex, ey, er = self.existing.all()
        full = existing_mod.covered_cells(ex, ey, np.maximum(er, self.r_min), self.s, self.nx, self.ny)
        padded = np.zeros((self.ny + 2 * self.pad, self.stride), bool)
        padded[self.pad : self.pad + self.ny, self.pad : self.pad + self.nx] = full
        return padded.ravel()

    def _exposed_existing(self) -> DiskHash:
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
        assert self._full is not None, "exposed existing disks are worked out when there are some"
        full = self._full.reshape(-1, self.stride)[self.pad : self.pad + self.ny, self.pad : self.pad + self.nx]
        if self.field is not None and self.field.cell_open is not None:
            full = full | ~self.field.per_cell(self.field.cell_open, self.nx, self.ny, self.s, self.s, np.maximum)
        keep = existing_mod.reaching(ex, ey, rho, ~full, self.s, self.r_hi)
        return gaps.DiskHash(ex[keep], ey[keep], rho[keep], reach=self.r_max)

    def _existing_corners(self, grow: RadiusField | None) -> list[npt.NDArray[np.float64]]:
        """Uncovered gap corners where the exposed existing disks cross each other (and the
        edges), in runs of disks that bound the rows examined at once."""
        h = self._ex_disks
        out: list[npt.NDArray[np.float64]] = []
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

    def _corner_candidates(
        self,
        parts: list[npt.NDArray[np.float64]],
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
        r: npt.NDArray[np.float64],
        grow: RadiusField | None,
        first: bool = False,
    ) -> npt.NDArray[np.float64]:
        """The uncovered rows of the corner tables ``parts`` (crossings of disk circles) and of
        the crossings of the disks ``(x, y, r)`` with the domain's edges and ``where``'s
        boundary (plus its vertices on the ``first`` call)."""
        masked = self.field is not None and self.field.cell_open is not None
        if self.variable:
            assert self.field is not None
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
            assert self.field is not None
            corners = corners[self.field.open_at(corners[:, gaps.X], corners[:, gaps.Y])]
            radius = (self.r_max, self.r_max - self.r_min) if self.variable else None
            edge = [corners, self.field.edge_crossings(x, y, r, radius=radius)]
            if first:
                bx, by = self.field.boundary_vertices()
                edge.append(gaps.table(bx, by, np.zeros(bx.size)))
            corners = np.concatenate(edge)
        return self._uncovered(corners)

    def _corner_darts(
        self, corners: npt.NDArray[np.float64], level: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Up to ``k`` darts per corner in squares centred on it, ``k / 4`` of each side
        ``s / 2**level``, ..., ``s / 2**(level + 3)``: the larger squares first, the smaller
        ones only for corners whose darts all missed.  Returns the hit mask and the first valid
        dart of each corner that hit."""
        n = len(corners)
        per = -(-self.k // SPREAD)
        hit = np.zeros(n, bool)
        got_x, got_y = np.empty(n), np.empty(n)
        for t in range(SPREAD):
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

    def _corners(self) -> None:
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
            level[turn[~hit]] += SPREAD
            self.passes += 1
            self.max_level = max(self.max_level, int(level.max(initial=0)))
            # corners given up, or covered by the new disks, go; the new circles add theirs
            keep = level < MAX_LEVEL
            keep[keep] = self._still_uncovered(corners[keep])
            new = self._new_corners(mark)
            corners = np.concatenate([corners[keep], new])
            level = np.concatenate([level[keep], np.zeros(len(new), np.int64)])

    def _still_uncovered(self, corners: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
        """Mask of the corners that no disk covers yet (see `_uncovered`)."""
        flat = self._cell_of(corners[:, gaps.X], corners[:, gaps.Y])
        keep = self.gx[flat] == FAR
        idx = np.flatnonzero(keep)
        o = idx[np.argsort(flat[idx], kind="stable")]
        keep[o[self._covered(corners[o])]] = False
        return keep
