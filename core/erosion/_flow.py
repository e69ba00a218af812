"""Pit filling and flow accumulation on a heightmap, vectorised (numpy only).

The map's edge is the outlet: water that reaches a border cell leaves the map.

Pit filling (:func:`fill_pits`) gives the priority-flood result (Barnes et al. 2014) without a
cell-by-cell queue. Every cell first follows its steepest-descent (D8) neighbour to a terminal
(:func:`receivers`; across a flat, an equal neighbour earlier in raster order): a border cell,
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

Flow accumulation (:func:`flow_accumulation`) routes water D8: each cell passes everything it
holds to its steepest-descent neighbour (drop / distance, diagonals at sqrt 2 cells; ties go to
the first neighbour in the order of :data:`NEIGHBOURS`). A pit's water leaves by a breach
(:func:`flow_receivers`): up its basin's steepest-descent path to the pass it would spill over
when filled (that path reversed), then over the pass; so every drop reaches the edge and no
route climbs above the filled surface, while slopes around a lake keep their own D8 pattern
(no epsilon gradient to spread across the lake). D8 rather than D-infinity or MFD: every
cell's water goes to one cell, so a cell's figure is exactly the area of its catchment
(integral multiples of the cell area, channels one cell wide, as hydrology tools draw them),
and what leaves across the edge is exactly the map's area. The sums are taken by doubling:
``(I + A)(I + A^2)(I + A^4)...`` applied to the cell areas, where ``A`` passes water one step
down and ``A^(2^k)`` is the receiver pointer squared k times, so ~log2(longest path) rounds of
whole-array work instead of one Python step per cell.
"""

import heapq

import numpy as np

from ..errors import ParameterError, short

__all__ = [
    "fill_pits",
    "flow_accumulation",
    "flow_receivers",
    "receivers",
    "drains",
    "pits",
    "DEFAULT_EPSILON",
    "NEIGHBOURS",
]

#: The 8 neighbours (row, column offsets) in the order that breaks ties between equally steep ones.
NEIGHBOURS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
#: Drop is divided by the distance: 1 for the four sides, sqrt 2 for the diagonals (as a factor).
_WEIGHTS = tuple(1.0 if dy == 0 or dx == 0 else 1.0 / np.sqrt(2.0) for dy, dx in NEIGHBOURS)
#: Largest table (entries, float64) of basin pairs used to find each pair's lowest spill without
#: sorting the edges (32 MB; about 2,000 pits, a 1025^2 fBm tile's count); more pits sort.
_DENSE_PAIRS = 1 << 22
#: Cells per block of the whole-map passes (a few float64 arrays of it stay in the cache).
BLOCK = 1 << 16
#: ``fill_pits``' default rise per cell across a filled lake or a flat, in metres.
DEFAULT_EPSILON = 1e-6


def _as_heights(heights, name="heights"):
    h = np.asarray(heights)
    if h.ndim != 2 or h.size == 0:
        raise ParameterError(f"{name} must be a non-empty 2-D array, got shape {h.shape}")
    if not np.issubdtype(h.dtype, np.number) or np.issubdtype(h.dtype, np.complexfloating):
        raise ParameterError(f"{name} must be real numbers, got dtype {h.dtype}")
    h = h.astype(np.float64, copy=False)
    if not np.isfinite(h).all():
        raise ParameterError(f"{name} must be finite, got {int((~np.isfinite(h)).sum())} non-finite values")
    return h


def receivers(heights):
    """Flat index (int64 (h * w,)) of each cell's steepest-descent (D8) neighbour.

    Border cells get ``h * w`` (the outside: their water leaves the map). An interior cell with
    no strictly lower neighbour passes to the first neighbour of equal height among the four
    before it in raster order (up-left, up, up-right, left: flats drain in chains that never
    come back, so a flat sea is one basin, not thousands of pits); without one (a pit) it gets
    its own index.

    >>> receivers(np.array([[5.0, 5, 5], [5, 4, 5], [5, 3, 5]])).reshape(3, 3).tolist()
    [[9, 9, 9], [9, 7, 9], [9, 9, 9]]
    """
    h = _as_heights(heights)
    rows, cols = h.shape
    n = rows * cols
    rec = np.full(n, n, np.int64)
    if rows < 3 or cols < 3:
        return rec
    # interior rows as one flat run (from row 1, column 1 to row rows - 2, column cols - 2):
    # contiguous slices are much faster than 2-D views; the border columns inside the run
    # get a (wrapped) answer that is thrown away
    start, stop = cols + 1, n - cols - 1
    code = _steepest(h.reshape(-1), start, stop, cols)
    offsets = np.array([0] + [dy * cols + dx for dy, dx in NEIGHBOURS], np.int64)
    run = rec[start:stop]
    np.take(offsets, code, out=run)
    run += np.arange(start, stop, dtype=np.int64)
    rec.reshape(rows, cols)[:, 0] = n
    rec.reshape(rows, cols)[:, -1] = n
    return rec


def _steepest(flat, start, stop, cols):
    """uint8 (stop - start,): 1 + the position in NEIGHBOURS of the receiver (see :func:`receivers`), 0 for none.

    Block by block (:data:`BLOCK` cells), so the 8 directions' operations work in the cache.
    """
    centre = flat[start:stop]
    code = np.zeros(centre.shape, np.uint8)
    size = min(BLOCK, centre.size)
    best_buf, slope_buf, better_buf = np.empty(size), np.empty(size), np.empty(size, bool)
    for s in range(start, stop, size):
        e = min(s + size, stop)
        m = e - s
        best, slope, better, out = best_buf[:m], slope_buf[:m], better_buf[:m], code[s - start : e - start]
        best.fill(0.0)
        for k, ((dy, dx), w) in enumerate(zip(NEIGHBOURS, _WEIGHTS, strict=True)):
            o = dy * cols + dx
            np.subtract(flat[s:e], flat[s + o : e + o], out=slope)
            if w != 1.0:
                slope *= w
            np.greater(slope, best, out=better)
            np.maximum(best, slope, out=best)
            # k only grows, so "the last neighbour that was steeper" is the largest code
            mark = better.view(np.uint8)
            mark *= k + 1
            np.maximum(out, mark, out=out)
    # no lower neighbour: the first equal one of the four before it in raster order (a flat
    # drains in chains that only go back, so without cycles; a flat sea is then one basin)
    level = np.flatnonzero(code == 0)
    if level.size:
        here = centre[level]
        for k in (3, 2, 1, 0):  # the first in NEIGHBOURS order written last
            dy, dx = NEIGHBOURS[k]
            o = dy * cols + dx
            same = np.flatnonzero(flat[start + o + level] == here)
            code[level[same]] = k + 1
    return code


def _terminals(rec):
    """Each cell's terminal (where its receiver chain ends; ``n`` for the outside), by pointer doubling."""
    n = rec.size
    p = np.append(rec, n)
    q = np.empty_like(p)
    while True:
        np.take(p, p, out=q)
        if np.array_equal(q, p):
            return p[:n]
        p, q = q, p


def drains(heights):
    """bool (h, w): cells whose steepest-descent path (see :func:`receivers`) reaches the map's edge.

    Border cells drain; after :func:`fill_pits` with ``epsilon > 0`` every cell does.

    >>> drains(np.array([[5.0, 5, 5, 5], [5, 1, 2, 5], [5, 5, 5, 5]])).astype(int)
    array([[1, 1, 1, 1],
           [1, 0, 0, 1],
           [1, 1, 1, 1]])
    """
    h = _as_heights(heights)
    return (_terminals(receivers(h)) == h.size).reshape(h.shape)


def pits(heights):
    """bool (h, w): interior cells strictly lower than all 8 neighbours (strict local minima).

    >>> np.argwhere(pits(np.array([[3.0, 3, 3, 3], [3, 1, 2, 3], [3, 3, 3, 3]])))
    array([[1, 1]])
    """
    h = _as_heights(heights)
    rows, cols = h.shape
    out = np.zeros(h.shape, bool)
    if rows < 3 or cols < 3:
        return out
    centre = h[1:-1, 1:-1]
    inner = np.ones(centre.shape, bool)
    for dy, dx in NEIGHBOURS:
        inner &= centre < h[1 + dy : rows - 1 + dy, 1 + dx : cols - 1 + dx]
    out[1:-1, 1:-1] = inner
    return out


def _check_epsilon(epsilon):
    if epsilon is None:
        return DEFAULT_EPSILON
    try:
        value = float(epsilon)
    except (TypeError, ValueError):
        raise ParameterError(f"epsilon must be a number in [0, 1] (metres), got {short(epsilon)}") from None
    if not (0.0 <= value <= 1.0):
        raise ParameterError(f"epsilon must be a number in [0, 1] (metres), got {short(epsilon)}")
    return value


def fill_pits(heights, *, epsilon=None):
    """Raise every pit to its spill height so that water from every cell reaches the map's edge.

    Parameters
    ----------
    heights : (H, W) array of float, metres
    epsilon : float in [0, 1], optional
        Rise per cell (metres) given to filled lakes and flats so that every cell has a
        strictly lower neighbour; default :data:`DEFAULT_EPSILON` (1e-6 m). With 0, lakes are
        filled flat at their spill height (every cell then has a non-ascending path to the
        edge, the classic depression filling).

    Returns
    -------
    (H, W) float64 array, metres, ``>= heights``: the cells that need no raise keep their
    heights bit for bit. With ``epsilon > 0`` every cell's steepest-descent path reaches the
    edge (:func:`drains` is all True).

    >>> fill_pits(np.array([[5.0, 5, 5, 5], [5, 1, 2, 5], [5, 4, 5, 5], [5, 5, 3, 5]]), epsilon=0)
    array([[5., 5., 5., 5.],
           [5., 4., 4., 5.],
           [5., 4., 5., 5.],
           [5., 5., 3., 5.]])
    """
    h = _as_heights(heights)
    eps = _check_epsilon(epsilon)
    filled = _fill_flat(h)
    if eps > 0.0:
        filled = _relax(h, filled, eps)
    return filled


class _Basins:
    """The D8 basins of a map and their priority-flood over the graph of basins.

    ``basin`` (int64 (n,)): 0 for cells that drain to the edge, 1..P for the pits' basins
    (in the order of the pits' flat indices); ``level`` (float64 (P + 1,)): each basin's water
    level (-inf for 0); ``inner``/``outer`` (int64 (P + 1,)): the pair of neighbouring cells
    through which a pit basin spills, the one inside it and the one outside (``-1`` for 0).
    """

    def __init__(self, h, rec):
        n = h.size
        self.rec = rec
        pit_cells = np.flatnonzero(rec == np.arange(n))
        self.pits = pit_cells
        count = pit_cells.size + 1
        self.level = np.full(count, -np.inf)
        self.inner = np.full(count, -1, np.int64)
        self.outer = np.full(count, -1, np.int64)
        if pit_cells.size == 0:
            self.basin = None
            return
        basin_of_end = np.zeros(n + 1, np.int64)
        basin_of_end[pit_cells] = np.arange(1, count)
        self.basin = basin_of_end[_terminals(rec)]
        self._flood(h, count)

    def _flood(self, h, count):
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
        if count * count <= _DENSE_PAIRS:  # a dense table of pairs: no sort of the edges
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

    def filled(self, h):
        """``max(h, level of the cell's basin)``: the priority-flood filling with epsilon 0."""
        if self.basin is None:
            return h.copy()
        return np.maximum(h, self.level[self.basin].reshape(h.shape))

    def routed(self):
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


def _fill_flat(h):
    """The minimax (priority-flood, epsilon 0) filling of ``h`` via the graph of D8 basins."""
    rows, cols = h.shape
    if rows < 3 or cols < 3:
        return h.copy()
    return _Basins(h, receivers(h)).filled(h)


def flow_receivers(heights):
    """Flat index (int64 (h * w,)) of the cell each cell passes its water to; ``h * w`` is off the map.

    D8 steepest descent (:func:`receivers`), except along the breach of every pit: from the
    pit up its spill cell's steepest-descent chain (reversed) to the spill cell, which passes
    to the neighbour over the pass, the lowest one priority-flood filling spills over. Every
    chain of receivers ends off the map, and along it no cell is higher than where it started's
    filled height (``fill_pits(heights, epsilon=0)``).

    >>> flow_receivers(np.array([[9.0, 9, 9, 9], [9, 1, 2, 9], [9, 9, 9, 3.0]])).reshape(3, 4)[1]
    array([12,  6, 11, 12])
    """
    h = _as_heights(heights)
    rows, cols = h.shape
    rec = receivers(h)
    if rows < 3 or cols < 3:
        return rec
    return _Basins(h, rec).routed()


def _relax(h, filled, eps):
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

    def breaking():
        low = np.full(stop - start, np.inf)
        for o in offsets:
            np.minimum(low, X[start + o : stop + o], out=low)
        low += eps
        np.maximum(low, H[start:stop], out=low)
        return start + np.flatnonzero((low != X[start:stop]) & inner[start:stop])

    owner = np.empty(X.size, np.int64)

    def distinct(cells):
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


def _check_cell_size(cell_size):
    try:
        value = float(cell_size)
    except (TypeError, ValueError):
        raise ParameterError(f"cell_size must be a positive number of metres, got {short(cell_size)}") from None
    if not (np.isfinite(value) and value > 0.0):
        raise ParameterError(f"cell_size must be a positive number of metres, got {short(cell_size)}")
    return value


def flow_accumulation(heights, *, cell_size):
    """Upstream area (m^2) draining through every cell, pits filled first so all water reaches the edge.

    Every cell contributes ``cell_size ** 2``; water follows :func:`flow_receivers` (D8
    steepest descent, pits breached over the pass priority-flood filling spills them over),
    so each cell holds the area of its catchment, itself included, and the cells of the edge
    pass the map's whole area out.

    Parameters
    ----------
    heights : (H, W) array of float, metres
    cell_size : float, metres

    Returns
    -------
    (H, W) float64 array, m^2.

    >>> flow_accumulation(np.array([[5.0, 5, 5, 5], [5, 3, 4, 5], [5, 2, 5, 5], [5, 1, 5, 5]]), cell_size=2.0)
    array([[ 4.,  4.,  4.,  4.],
           [ 4.,  4.,  4.,  4.],
           [ 4., 16.,  4.,  4.],
           [ 4., 20.,  4.,  4.]])
    """
    h = _as_heights(heights)
    area = _check_cell_size(cell_size) ** 2
    return _accumulate(flow_receivers(h), area).reshape(h.shape)


def _accumulate(rec, area):
    """``sum_j A^j`` of the cell areas, ``A`` one step down ``rec`` (every chain ends outside, at ``n``).

    Round k applies ``I + A^(2^k)`` (a weighted bincount along the pointers squared k times),
    on whole arrays while most chains are still running (contiguous passes), then only on the
    cells whose chains have not yet left the map.
    """
    n = rec.size
    x = np.full(n + 1, area)
    x[n] = 0.0
    p = np.append(rec, n)
    p[np.flatnonzero(p[:n] == np.arange(n))] = n  # a pit left (epsilon below the heights' precision): water stops
    live = None
    q = np.empty_like(p)
    while True:
        if live is None:
            x += np.bincount(p, weights=x, minlength=n + 1)
            x[n] = 0.0
            np.take(p, p, out=q)
            p, q = q, p
            running = n + 1 - np.count_nonzero(p == n)
            if running == 0:
                break
            if running < n // 4:
                live = np.flatnonzero(p != n)
        else:
            q = p[live]
            x += np.bincount(q, weights=x[live], minlength=n + 1)
            x[n] = 0.0
            q = p[q]
            p[live] = q
            live = live[q != n]
            if not live.size:
                break
    return x[:n]
