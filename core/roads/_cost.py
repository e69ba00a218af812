"""The cost of every move of a road on a heightmap (Galin et al. 2010's cost, on a 16/32-move grid).

A move from cell ``u`` to cell ``v`` (length ``L`` metres) crosses the cells whose squares its
segment touches (:func:`touched`).  Its cost:

* over land: ``L (1 + grade_weight (g / max_grade)^2 + forest_weight * forest)`` with ``g`` the
  grade ``|h_v - h_u| / L``; ``inf`` when ``g > max_grade`` (the class cannot climb it);
* when it touches water (a river that a bridge spans): ``L * bridge_cost`` (no grade limit: the
  deck spans the banks);
* ``inf`` when it touches a blocked cell (the sea, a lake, a river wider than the longest bridge,
  anything the caller forbids) or leaves the map.

``forest`` is the mean of the two end cells' forest cover in [0, 1].  Existing roads are made
cheaper by the search itself (``_search.search``'s ``road``/``reuse``).
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import check_array, check_float
from ..errors import ParameterError
from ._search import PAD, CostGraph, move_table

__all__ = ["touched", "build_graph", "coarse_graph"]

#: Cells per block of the weights' computation (a block's moves stay in the cache).
_BLOCK = 1 << 14


@functools.cache
def touched(dy: int, dx: int) -> tuple[tuple[int, int], ...]:
    """Cells (row, column offsets, endpoints excluded) whose closed squares the segment from
    (0, 0) to (dy, dx) touches.

    >>> touched(1, 1)
    ((0, 1), (1, 0))
    >>> touched(1, 2)
    ((0, 1), (1, 1))
    """
    out = []
    for i in range(min(0, dy) - 1, max(0, dy) + 2):
        for j in range(min(0, dx) - 1, max(0, dx) + 2):
            if (i, j) in ((0, 0), (dy, dx)):
                continue
            if _segment_meets_square(dy, dx, i, j):
                out.append((i, j))
    return tuple(sorted(out))


def _segment_meets_square(dy: int, dx: int, i: int, j: int) -> bool:
    """Does the segment (0, 0) -> (dy, dx) meet the closed square of side 1 centred on (i, j)?  Exact
    (Liang-Barsky clipping in fractions)."""
    t0, t1 = Fraction(0), Fraction(1)
    half = Fraction(1, 2)
    for d, lo, hi in ((dy, i - half, i + half), (dx, j - half, j + half)):
        if d == 0:
            if not lo <= 0 <= hi:
                return False
            continue
        a, b = lo / d, hi / d
        if a > b:
            a, b = b, a
        t0, t1 = max(t0, a), min(t1, b)
        if t0 > t1:
            return False
    return True


def _padded(a: npt.NDArray[Any], fill: float, dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    rows, cols = a.shape
    out: npt.NDArray[Any] = np.full((rows + 2 * PAD, cols + 2 * PAD), fill, dtype)
    out[PAD:-PAD, PAD:-PAD] = a
    return out.reshape(-1)


def build_graph(
    heights: npt.ArrayLike,
    *,
    cell_size: float,
    max_grade: float,
    directions: int = 16,
    grade_weight: float = 4.0,
    blocked: npt.ArrayLike | None = None,
    water: npt.ArrayLike | None = None,
    bridge_cost: float = 8.0,
    forest: npt.ArrayLike | None = None,
    forest_weight: float = 1.0,
) -> CostGraph:
    """The :class:`~._search.CostGraph` of a road class on ``heights`` (see the module's notes).

    Parameters
    ----------
    heights : (rows, cols) array of float, metres
    cell_size : float, metres
    max_grade : float
        Steepest grade (rise / run) the class climbs.
    directions : {16, 32}
    grade_weight : float >= 0
    blocked, water : (rows, cols) bool or None
    bridge_cost : float >= 1
        Cost of a metre over water, in metres of flat road.
    forest : (rows, cols) float in [0, 1] or None
    forest_weight : float >= 0
    """
    h = check_array(heights, name="heights", ndim=2).astype(np.float64, copy=False)
    rows, cols = h.shape
    cell = check_float(cell_size, name="cell_size", bounds=(0.0, None), open_low=True)
    max_grade = check_float(max_grade, name="max_grade", bounds=(0.0, None), open_low=True)
    if directions not in (16, 32):
        raise ParameterError(f"directions must be 16 or 32, got {directions!r}")
    moves, lengths = move_table(directions)
    width = cols + 2 * PAD
    n = (rows + 2 * PAD) * width
    hp = _padded(h, np.nan, np.float32)
    bp = _padded(
        np.zeros(h.shape, bool)
        if blocked is None
        else check_array(blocked, name="blocked", shape=h.shape, dtype_kind="b"),
        True,
        bool,
    )
    wp = (
        None if water is None else _padded(check_array(water, name="water", shape=h.shape, dtype_kind="b"), False, bool)
    )
    fp = None
    if forest is not None and forest_weight > 0.0:
        fp = _padded(check_array(forest, name="forest", shape=h.shape).astype(np.float32), 0.0, np.float32)
    # the moves out of the map's cells only (every target then lies inside the padded array), in
    # blocks of cells (each block's moves computed side by side, then written cell by cell: the
    # weights are (cells, moves)); float32 throughout (the weights are kept in float32)
    first, last = PAD * width + PAD, (PAD + rows - 1) * width + PAD + cols
    weights = np.empty((n, len(moves)), np.float32)
    weights[:first] = np.inf
    weights[last:] = np.inf
    steps = []
    for k, (dy, dx) in enumerate(moves.tolist()):
        length = float(lengths[k]) * cell
        steps.append(
            (
                dy * width + dx,
                length,
                [ty * width + tx for ty, tx in touched(dy, dx)],
                grade_weight / (max_grade * max_grade * length),
            )
        )
    size = min(_BLOCK, last - first)
    block = np.empty((len(moves), size), np.float32)
    rise = np.empty(size, np.float32)
    bad = np.empty(size, bool)
    for a in range(first, last, size):
        b = min(a + size, last)
        m = b - a
        for k, (off, length, through, scale) in enumerate(steps):
            r, nb, cost = rise[:m], bad[:m], block[k, :m]
            np.subtract(hp[a + off : b + off], hp[a:b], out=r)  # nan off the map
            np.abs(r, out=r)
            # length (1 + w (g / max)^2) = length + rise^2 w / (max^2 length)
            np.multiply(r, r, out=cost)
            cost *= np.float32(scale)
            cost += np.float32(length)
            if fp is not None:
                forest_cost = fp[a:b] + fp[a + off : b + off]
                forest_cost *= np.float32(0.5 * forest_weight * length)
                cost += forest_cost
            np.less_equal(r, np.float32(max_grade * length), out=nb)
            np.logical_not(nb, out=nb)  # too steep, or off the map (nan)
            if wp is not None:
                wet = wp[a:b] | wp[a + off : b + off]
                for o in through:
                    wet |= wp[a + o : b + o]
                if wet.any():
                    cost[wet] = np.float32(length * bridge_cost)
                    nb &= ~wet
                    nb |= np.isnan(r)
            nb |= bp[a:b]
            nb |= bp[a + off : b + off]
            for o in through:
                nb |= bp[a + o : b + o]
            cost[nb] = np.inf
        weights[a:b] = block[:, :m].T
    low = 1.0 if fp is None else 1.0  # flat, forest-free ground: 1 per metre (the heuristic's slope)
    low = min(low, float(bridge_cost)) if wp is not None else low
    return CostGraph((rows, cols), cell, moves, lengths * cell, weights, min_factor=low)


def coarse_graph(
    heights: npt.ArrayLike,
    *,
    factor: int,
    cell_size: float,
    blocked: npt.ArrayLike | None = None,
    water: npt.ArrayLike | None = None,
    forest: npt.ArrayLike | None = None,
    keep: npt.ArrayLike | None = None,
    **kwargs: Any,
) -> CostGraph:
    """:func:`build_graph` on a grid ``factor`` times coarser (block means of the heights and the
    forest; a coarse cell is wet when any of its cells is, blocked when most of them are, and never
    when it holds one of the cells ``keep`` (k, 2) (the points to join)), for planning networks."""
    h = np.asarray(heights, np.float64)
    rows, cols = h.shape
    r2, c2 = -(-rows // factor), -(-cols // factor)

    def pool(a: npt.NDArray[Any], how: str) -> npt.NDArray[Any]:
        pad = np.pad(a, ((0, r2 * factor - rows), (0, c2 * factor - cols)), mode="edge")
        blocks = pad.reshape(r2, factor, c2, factor)
        if how == "mean":
            return blocks.mean(axis=(1, 3))
        if how == "most":
            return blocks.sum(axis=(1, 3)) * 2 > factor * factor
        return blocks.any(axis=(1, 3))

    coarse_blocked = None
    if blocked is not None:
        coarse_blocked = pool(np.asarray(blocked, bool), "most")
        if keep is not None:
            k = np.asarray(keep, np.int64).reshape(-1, 2) // factor
            coarse_blocked[k[:, 0], k[:, 1]] = False
    return build_graph(
        pool(h, "mean"),
        cell_size=cell_size * factor,
        blocked=coarse_blocked,
        water=None if water is None else pool(np.asarray(water, bool), "any"),
        forest=None if forest is None else pool(np.asarray(forest, np.float64), "mean"),
        **kwargs,
    )
