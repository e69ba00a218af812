"""Pit filling and flow accumulation on a heightmap, vectorised (numpy only).

The map's edge is the outlet: water that reaches a border cell leaves the map.

Pit filling (:func:`fill_pits`): the priority-flood result (Barnes et al. 2014) over the graph of
D8 basins, then an epsilon rise across lakes and flats; its machinery and notes are in ``_pits``.

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

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError, short
from ._pits import DEFAULT_EPSILON, NEIGHBOURS, Basins, check_epsilon, relax, terminals

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

#: Drop is divided by the distance: 1 for the four sides, sqrt 2 for the diagonals (as a factor).
_WEIGHTS = tuple(1.0 if dy == 0 or dx == 0 else 1.0 / np.sqrt(2.0) for dy, dx in NEIGHBOURS)
#: Largest table (entries, float64) of basin pairs used to find each pair's lowest spill without
#: sorting the edges (32 MB; about 2,000 pits, a 1025^2 fBm tile's count); more pits sort.
_DENSE_PAIRS = 1 << 22
#: Cells per block of the whole-map passes (a few float64 arrays of it stay in the cache).
BLOCK = 1 << 16


def _as_heights(heights: npt.ArrayLike, name: str = "heights") -> npt.NDArray[np.float64]:
    h = np.asarray(heights)
    if h.ndim != 2 or h.size == 0:
        raise ParameterError(f"{name} must be a non-empty 2-D array, got shape {h.shape}")
    if not np.issubdtype(h.dtype, np.number) or np.issubdtype(h.dtype, np.complexfloating):
        raise ParameterError(f"{name} must be real numbers, got dtype {h.dtype}")
    h = h.astype(np.float64, copy=False)
    if not np.isfinite(h).all():
        raise ParameterError(f"{name} must be finite, got {int((~np.isfinite(h)).sum())} non-finite values")
    return h


def receivers(heights: npt.ArrayLike) -> npt.NDArray[np.int64]:
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


def _steepest(flat: npt.NDArray[np.float64], start: int, stop: int, cols: int) -> npt.NDArray[np.uint8]:
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


def drains(heights: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """bool (h, w): cells whose steepest-descent path (see :func:`receivers`) reaches the map's edge.

    Border cells drain; after :func:`fill_pits` with ``epsilon > 0`` every cell does.

    >>> drains(np.array([[5.0, 5, 5, 5], [5, 1, 2, 5], [5, 5, 5, 5]])).astype(int)
    array([[1, 1, 1, 1],
           [1, 0, 0, 1],
           [1, 1, 1, 1]])
    """
    h = _as_heights(heights)
    return (terminals(receivers(h)) == h.size).reshape(h.shape)


def pits(heights: npt.ArrayLike) -> npt.NDArray[np.bool_]:
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


def fill_pits(heights: npt.ArrayLike, *, epsilon: float | None = None) -> npt.NDArray[np.float64]:
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
    eps = check_epsilon(epsilon)
    rows, cols = h.shape
    # the minimax (priority-flood, epsilon 0) filling via the graph of D8 basins
    filled = h.copy() if rows < 3 or cols < 3 else Basins(h, receivers(h), _DENSE_PAIRS).filled(h)
    if eps > 0.0:
        filled = relax(h, filled, eps)
    return filled


def flow_receivers(heights: npt.ArrayLike) -> npt.NDArray[np.int64]:
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
    return Basins(h, rec, _DENSE_PAIRS).routed()


def _check_cell_size(cell_size: float) -> float:
    try:
        value = float(cell_size)
    except (TypeError, ValueError):
        raise ParameterError(f"cell_size must be a positive number of metres, got {short(cell_size)}") from None
    if not (np.isfinite(value) and value > 0.0):
        raise ParameterError(f"cell_size must be a positive number of metres, got {short(cell_size)}")
    return value


def flow_accumulation(heights: npt.ArrayLike, *, cell_size: float) -> npt.NDArray[np.float64]:
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
    side = _check_cell_size(cell_size)
    area = side * side  # not ** 2: a Python float's ** is the C library's pow
    return _accumulate(flow_receivers(h), area).reshape(h.shape)


def _accumulate(rec: npt.NDArray[np.int64], area: float) -> npt.NDArray[np.float64]:
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
