"""Pit filling's machinery: the D8 basins, their priority-flood, and the epsilon relaxation.

Used by ``_flow`` (its ``fill_pits`` and ``flow_receivers``), which holds the D8 receivers and
passes them in, so this module imports nothing of the package but ``errors``.

Pit filling (``fill_pits``) gives the priority-flood result (Barnes et al. 2014) without a
cell-by-cell queue. Every cell first follows its steepest-descent (D8) neighbour to a terminal
(``receivers``; across a flat, an equal neighbour earlier in raster order): a border cell,
or an interior cell with no lower or earlier equal neighbour (a pit). The cells that reach the
same pit form a basin; neighbouring basins meet at spill heights (the lowest ``max(h_a, h_b)``
over the pairs of neighbours they share), and a priority-flood over that small graph of basins
(a few thousand pits on a 1025^2 fBm tile) gives each basin its water level. A cell's filled
height is ``max(h, level of its basin)``: the lowest height from which a non-ascending path
leads to the edge (the minimax height). With ``epsilon > 0`` the filled surface is then made
strictly descending, ``F = max(h, min(F of the 8 neighbours) + epsilon)`` (Planchon and Darboux's
condition, the fixed point priority-flood + epsilon reaches), computed only where the flat
filling breaks it (lakes and flats: a quarter of a 1025^2 fBm tile), by a breadth-first wave from
the outlets; so water finds its way across lakes to their outlets.
"""

import heapq

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError, short

__all__ = ["Basins", "DEFAULT_EPSILON", "NEIGHBOURS", "check_epsilon", "relax", "terminals"]

#: The 8 neighbours (row, column offsets) in the order that breaks ties between equally steep ones.
NEIGHBOURS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
#: ``fill_pits``' default rise per cell across a filled lake or a flat, in metres.
DEFAULT_EPSILON = 1e-6


def terminals(rec: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Each cell's terminal (where its receiver chain ends; ``n`` for the outside), by pointer doubling."""
    n = rec.size
    p = np.append(rec, n)
    q = np.empty_like(p)
    while True:
        np.take(p, p, out=q)
        if np.array_equal(q, p):
            return p[:n]
        p, q = q, p


def check_epsilon(epsilon: float | None) -> float:
    if epsilon is None:
        return DEFAULT_EPSILON
    try:
        value = float(epsilon)
    except (TypeError, ValueError):
        raise ParameterError(f"epsilon must be a number in [0, 1] (metres), got {short(epsilon)}") from None
    if not (0.0 <= value <= 1.0):
        raise ParameterError(f"epsilon must be a number in [0, 1] (metres), got {short(epsilon)}")
    return value


class Basins:
    """The D8 basins of a map and their priority-flood over the graph of basins.

    ``basin`` (int64 (n,)): 0 for cells that drain to the edge, 1..P for the pits' basins
    (in the order of the pits' flat indices); ``level`` (float64 (P + 1,)): each basin's water
    level (-inf for 0); ``inner``/``outer`` (int64 (P + 1,)): the pair of neighbouring cells
    through which a pit basin spills, the one inside it and the one outside (``-1`` for 0).
    ``dense_pairs``: the largest table of basin pairs that finds each pair's lowest spill without
    sorting the edges (``_flow``'s ``_DENSE_PAIRS``); more pairs sort.
    """

    def __init__(self, h: npt.NDArray[np.float64], rec: npt.NDArray[np.int64], dense_pairs: int) -> None:
        n = h.size
        self.dense_pairs = dense_pairs
        self.rec = rec
        pit_cells = np.flatnonzero(rec == np.arange(n))
        self.pits = pit_cells
        count = pit_cells.size + 1
        self.level = np.full(count, -np.inf)
        self.inner = np.full(count, -1, np.int64)
        self.outer = np.full(count, -1, np.int64)
        if pit_cells.size == 0:
            self.basin: npt.NDArray[np.int64] | None = None
            return
        basin_of_end = np.zeros(n + 1, np.int64)
        basin_of_end[pit_cells] = np.arange(1, count)
        self.basin = basin_of_end[terminals(rec)]
        self._flood(h, count)

    def _flood(self, h: npt.NDArray[np.float64], count: int) -> None:
        assert self.basin is not None, "flooded only when there are pits"
        rows, cols = h.shape
        flat_h = h.reshape(-1)
        a_parts = []
        flat_b = self.basin
        n = flat_b.size
        # each unordered pair of 8-neighbours once: right, down, down-right, down-left, as flat
        # offsets; the pairs that would wrap from one row's end to the next row are dropped
        for o, wrap in ((1, cols - 1), (cols, None), (cols + 1, cols - 1), (cols - 1, 0)):
            cross = flat_b[: n - o] != flat_b[o:]
            if wrap is not None:
                cross[wrap::cols] = False
            a = np.flatnonzero(cross)
            a_parts.append((a, a + o))
        ca = np.concatenate([a for a, _ in a_parts])
        cb = np.concatenate([b for _, b in a_parts])
        ba, bb = self.basin[ca], self.basin[cb]
        swap = ba > bb  # orient every edge from the lower basin id to the higher
        c_lo, c_hi = np.where(swap, cb, ca), np.where(swap, ca, cb)
        key = np.minimum(ba, bb) * count + np.maximum(ba, bb)
        v = np.maximum(flat_h[ca], flat_h[cb])
        # the lowest spill of every pair of basins (ties: lowest cell indices)
        if count * count <= self.dense_pairs:  # a dense table of pairs: no sort of the edges
            low = np.full(count * count, np.inf)
            np.minimum.at(low, key, v)
            win = np.flatnonzero(v == low[key])
        else:
            pair, slot = np.unique(key, return_inverse=True)
            low = np.full(pair.size, np.inf)
            np.minimum.at(low, slot, v)
            win = np.flatnonzero(v == low[slot])
        key, v, c_lo, c_hi = key[win], v[win], c_lo[win], c_hi[win]  # the edges at their pair's lowest
        order = np.lexsort((c_hi, c_lo, v, key))
        key, v, c_lo, c_hi = key[order], v[order], c_lo[order], c_hi[order]
        first = np.ones(key.size, bool)
        first[1:] = key[1:] != key[:-1]
        key, v, c_lo, c_hi = key[first], v[first], c_lo[first], c_hi[first]
        lo, hi = key // count, key % count
        # adjacency (CSR) of the basin graph, both directions: (neighbour, spill, cell here, cell there)
        src = np.concatenate([lo, hi])
        order = np.argsort(src, kind="stable")
        dst = np.concatenate([hi, lo])[order].tolist()
        spill = np.concatenate([v, v])[order].tolist()
        here = np.concatenate([c_lo, c_hi])[order].tolist()
        there = np.concatenate([c_hi, c_lo])[order].tolist()
        start = np.searchsorted(src[order], np.arange(count + 1)).tolist()
        level: list[float | None]
        level, inner, outer = [None] * count, [-1] * count, [-1] * count
        heap = [(-np.inf, 0, -1, -1)]
        while heap:
            value, node, cell_in, cell_out = heapq.heappop(heap)
            if level[node] is not None:
                continue
            level[node], inner[node], outer[node] = value, cell_in, cell_out
            for j in range(start[node], start[node + 1]):
                other = dst[j]
                if level[other] is None:
                    heapq.heappush(heap, (max(spill[j], value), other, there[j], here[j]))
        self.level = np.array(level, np.float64)
        self.inner = np.array(inner, np.int64)
        self.outer = np.array(outer, np.int64)

    def filled(self, h: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """``max(h, level of the cell's basin)``: the priority-flood filling with epsilon 0."""
        if self.basin is None:
            return h.copy()
        return np.maximum(h, self.level[self.basin].reshape(h.shape))

    def routed(self) -> npt.NDArray[np.int64]:
        """Receivers with every pit's water led out: the D8 chain from its spill cell reversed.

        The spill cell's chain runs downhill to the pit; turned around, it carries the pit's
        water (and everything joining the chain) back up to the spill cell, which passes it
        to the neighbour outside the basin: a breach along the steepest path to the pass.
        """
        rec = self.rec.copy()
        if self.basin is None:
            return rec
        old = self.rec
        cur, prev = self.inner[1:].copy(), self.outer[1:].copy()
        while cur.size:
            nxt = old[cur]
            rec[cur] = prev
            going = nxt != cur  # the pit points to itself: the chain ends there
            cur, prev = nxt[going], cur[going]
        return rec


def relax(h: npt.NDArray[np.float64], filled: npt.NDArray[np.float64], eps: float) -> npt.NDArray[np.float64]:
    """The least ``F >= filled`` with ``F = max(h, min(F of the 8 neighbours) + eps)`` on interior cells.

    ``filled`` (the epsilon-0 filling) already meets the condition except on lakes and flats.
    Those cells are settled by a breadth-first wave from the cells around them: a cell takes
    ``max(h, F + eps)`` from its settled neighbours that were not higher in ``filled`` (its
    lake's outlets, not the slopes above the shore). That guess is then corrected where it still
    breaks the condition (rarely: a shore within ``eps`` steps of the water), in rounds that
    recompute only the cells next to one that changed, until nothing changes: the condition's
    only solution, which priority-flood + epsilon also reaches. (Any cell that meets the
    condition has a chain of neighbours each ``eps`` lower down to the edge; so any surface
    that meets it everywhere is >= the least one, and rounds from below that stop changing
    have found it.)
    """
    rows, cols = filled.shape
    if rows < 3 or cols < 3:
        return filled
    pw = cols + 2  # padded: every neighbour of a map cell is a valid index
    X = np.full((rows + 2) * pw, np.inf)
    X.reshape(rows + 2, pw)[1:-1, 1:-1] = filled
    H = np.full(X.size, np.inf)
    H.reshape(rows + 2, pw)[1:-1, 1:-1] = h
    inner = np.zeros(X.size, bool)
    inner.reshape(rows + 2, pw)[2:-2, 2:-2] = True
    offsets = np.array([dy * pw + dx for dy, dx in NEIGHBOURS], np.int64)
    start, stop = 2 * pw, rows * pw  # the rows of interior map cells, as one flat run

    def breaking() -> npt.NDArray[np.int64]:
        low = np.full(stop - start, np.inf)
        for o in offsets:
            np.minimum(low, X[start + o : stop + o], out=low)
        low += eps
        np.maximum(low, H[start:stop], out=low)
        return start + np.flatnonzero((low != X[start:stop]) & inner[start:stop])

    owner = np.empty(X.size, np.int64)

    def distinct(cells: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """``cells`` without repeats (in no particular order), without a sort."""
        slot = np.arange(cells.size)
        owner[cells] = slot  # of repeats, the last write wins
        return cells[owner[cells] == slot]

    level = X.copy()  # the epsilon-0 filling, padded
    cand = breaking()
    settled = np.ones(X.size, bool)
    settled[cand] = False
    while cand.size:
        around = cand[:, None] + offsets
        ok = settled[around] & (level[around] <= level[cand][:, None])
        low = np.where(ok, X[around], np.inf).min(axis=1)
        got = np.flatnonzero(low < np.inf)
        if not got.size:
            break
        new = cand[got]
        X[new] = np.maximum(H[new], low[got] + eps)
        settled[new] = True
        around = (new[:, None] + offsets).reshape(-1)
        cand = distinct(around[~settled[around]])
    # the wave leaves shore cells within eps steps of the water too low: raise them first
    # (raising only: no back-and-forth), then settle whatever still breaks the condition
    for rising in (True, False):
        active = breaking()
        while active.size:
            new = np.maximum(H[active], X[active[:, None] + offsets].min(axis=1) + eps)
            changed = (new > X[active]) if rising else (new != X[active])
            if not changed.any():
                break
            moved = active[changed]
            X[moved] = new[changed]
            around = (moved[:, None] + offsets).reshape(-1)
            active = distinct(around[inner[around]])
    return X.reshape(rows + 2, pw)[1:-1, 1:-1].copy()
