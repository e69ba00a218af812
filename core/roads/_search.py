"""Least-cost paths on a grid graph: a bucketed, vectorised Dijkstra / A* (numpy only).

The graph (:class:`CostGraph`, built by ``_cost``) lives on the heightmap's cells padded by
:data:`PAD` cells of forbidden border, flattened: cell ``u`` reaches ``u + offsets[k]`` at cost
``weights[k, u]`` (``inf``: no such move).  A move set of 16 or 32 directions (:data:`MOVES`)
keeps paths from being 8-direction staircases.

The search is label-correcting with buckets (delta-stepping, Meyer & Sanders 2003) ordered by
``f = g + h`` (A* with a consistent heuristic: the straight-line distance times the cheapest cost
of a metre): every round takes the frontier cells whose ``f`` lies within ``delta`` of the
smallest, and relaxes their moves one direction at a time, as whole-array operations (within one
direction the targets of distinct cells are distinct, so plain fancy assignment is exact).  A cell
improved later goes back into the frontier, so the distances found are the shortest ones whatever
``delta`` is; it ends when the smallest ``f`` left reaches the goal's distance.  Only ``+`` and
comparisons of float64 decide anything: the same bits on every CPU, and ties go to the first
direction and the first cell in frontier order (fixed by the inputs).

An optional turn penalty (``turn[k_in, k_out]``, per move) makes a cell's cost depend on the move
it was reached by; with it the search is a heuristic (a cell keeps one incoming direction), off by
default for exact comparisons with a textbook Dijkstra.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import SupportsIndex

import numpy as np
import numpy.typing as npt

from .. import exact

__all__ = ["CostGraph", "MOVES", "PAD", "NO_MOVE", "search", "trace", "move_table"]

#: Cells of forbidden border around the grid: the longest move's reach (3 cells in the 32-set).
PAD = 3
#: ``move`` entry of a cell no move reached (the source, or unreached).
NO_MOVE = 255


def _moves(n: int) -> tuple[tuple[int, int], ...]:
    base = (
        [(0, 1), (1, 1), (1, 2), (2, 1)]
        if n == 16
        else [(0, 1), (1, 1), (1, 2), (2, 1), (1, 3), (3, 1), (2, 3), (3, 2)]
    )
    out = set()
    for dy, dx in base:
        for sy in (1, -1):
            for sx in (1, -1):
                out.add((sy * dy, sx * dx))
                out.add((sx * dx, sy * dy))
    # ordered by angle (counter-clockwise from +x), so neighbouring codes are neighbouring directions
    # (core.exact's atan2: the order must not depend on the CPU)
    return tuple(sorted(out, key=lambda m: exact.atan2(float(m[0]), float(m[1])) % (2 * math.pi)))


#: The move sets: (row, column) steps, ordered by angle.  16: the 8 neighbours and the 8 knight's
#: moves; 32: also (1, 3) and (2, 3) and their turns.
MOVES = {16: _moves(16), 32: _moves(32)}


def move_table(directions: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """``(moves (K, 2) int64, lengths (K,) float64 in cells)`` of a move set (16 or 32)."""
    moves = np.array(MOVES[directions], np.int64)
    lengths = np.sqrt((moves * moves).sum(axis=1).astype(np.float64))
    return moves, lengths


@dataclass(frozen=True, eq=False)
class CostGraph:
    """A grid graph of moves and their costs (see the module's notes).

    Attributes
    ----------
    shape : (rows, cols)
        The heightmap's.
    cell_size : float
        Metres between neighbouring cells.
    moves : (K, 2) int64
        Row and column step of each move.
    lengths : (K,) float64
        Length of each move in metres.
    weights : ((rows + 2 PAD) (cols + 2 PAD), K) float32
        Cost of each move out of each padded cell (a cell's moves side by side: one gather fetches
        them all); ``inf`` where it is forbidden (too steep, over deep or wide water, off the map).
    min_factor : float
        The smallest cost of a metre anywhere (the A* heuristic's slope).
    """

    shape: tuple[int, int]
    cell_size: float
    moves: npt.NDArray[np.int64]
    lengths: npt.NDArray[np.float64]
    weights: npt.NDArray[np.float32]
    min_factor: float = 1.0

    @property
    def width(self) -> int:
        """Columns of the padded grid."""
        return self.shape[1] + 2 * PAD

    @property
    def offsets(self) -> npt.NDArray[np.int64]:
        """(K,) int64 flat offset of each move in the padded grid."""
        return self.moves[:, 0] * self.width + self.moves[:, 1]

    def index(self, rows: npt.ArrayLike, cols: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Padded flat indices of cells ``(rows, cols)``."""
        return (np.asarray(rows, np.int64) + PAD) * self.width + np.asarray(cols, np.int64) + PAD

    def cell(self, index: npt.ArrayLike) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """``(rows, cols)`` of padded flat indices."""
        r, c = np.divmod(np.asarray(index, np.int64), self.width)
        return r - PAD, c - PAD

    def edges(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Every finite move as ``(u, v, cost)`` arrays over the unpadded cells' flat indices
        (``row * cols + col``): the same graph for any other shortest-path solver."""
        rows, cols = self.shape
        us, vs, ws = [], [], []
        for k, off in enumerate(self.offsets):
            u = np.flatnonzero(np.isfinite(self.weights[:, k]))
            r, c = self.cell(u)
            r2, c2 = self.cell(u + off)
            us.append(r * cols + c)
            vs.append(r2 * cols + c2)
            ws.append(self.weights[u, k])
        return np.concatenate(us), np.concatenate(vs), np.concatenate(ws)


def search(
    graph: CostGraph,
    sources: npt.ArrayLike,
    *,
    goal: SupportsIndex | None = None,
    targets: npt.ArrayLike | None = None,
    delta: float | None = None,
    road: npt.NDArray[np.bool_] | None = None,
    reuse: float = 1.0,
    turn: npt.NDArray[np.float64] | None = None,
    limit: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint8], int]:
    """Shortest distances from ``sources`` (padded flat indices) over ``graph``.

    Parameters
    ----------
    graph : CostGraph
    sources : (s,) int64
        Start cells (distance 0).
    goal : int or None
        One goal cell: A* towards it, stopping once it is settled.
    targets : (t,) int64 or None
        Cells to settle (no heuristic); stops once all are settled.  Neither: every reachable cell.
    delta : float or None
        Bucket width (cost); default 10 cells of flat ground.
    road : (N, K) bool or None
        Moves on existing roads; their cost is multiplied by ``reuse``.
    turn : (K, K) float64 or None
        Extra cost of a move ``k_out`` after a move ``k_in`` (``turn[k_in, k_out]``).
    limit : int or None
        Most relaxation rounds (a guard: a ParameterError-free bound the callers size).

    Returns
    -------
    dist : (N,) float64
        ``inf`` where unreached (or not settled before the stop).
    move : (N,) uint8
        The move each cell was last reached by (:data:`NO_MOVE` for none).
    rounds : int
    """
    weights = graph.weights
    n, k_count = weights.shape
    offsets = graph.offsets.tolist()
    cell = graph.cell_size
    factor = graph.min_factor * (min(reuse, 1.0) if road is not None else 1.0)
    if delta is None:
        delta = 10.0 * cell * max(graph.min_factor, 1e-9)
    dist = np.full(n, np.inf)
    move = np.full(n, NO_MOVE, np.uint8)
    queued = np.zeros(n, bool)
    sources = np.unique(np.asarray(sources, np.int64))
    dist[sources] = 0.0
    queued[sources] = True
    frontier = sources
    heur = None
    if goal is not None:
        gr, gc = divmod(int(goal), graph.width)
        w = graph.width

        def heur(idx: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
            r, c = np.divmod(idx, w)
            dy = (r - gr).astype(np.float64)
            dx = (c - gc).astype(np.float64)
            return np.sqrt(dy * dy + dx * dx) * (cell * factor)

        h_front = heur(frontier)
    watch = None if targets is None else np.unique(np.asarray(targets, np.int64))
    turn_rows = None
    if turn is not None:  # one row per incoming move, and zeros for NO_MOVE (the sources)
        turn_rows = np.zeros((NO_MOVE + 1, k_count))
        turn_rows[:k_count] = turn
    rounds = 0
    while frontier.size:
        d_front = dist[frontier]
        f = d_front + h_front if heur is not None else d_front
        low = f.min()
        if goal is not None and low >= dist[goal]:
            break
        if watch is not None and low >= dist[watch].max():
            break
        take = f < low + delta
        batch = frontier[take]
        keep = ~take
        frontier = frontier[keep]
        if heur is not None:
            h_front = h_front[keep]
        queued[batch] = False
        db = d_front[take]
        wb = weights[batch]  # (b, K): every move of every cell of the batch
        if road is not None:
            on = road[batch]
            if on.any():
                wb = wb.astype(np.float64)
                wb[on] *= reuse
        if turn_rows is not None:
            wb = wb + turn_rows[move[batch]]  # (row NO_MOVE: no turn from the start)
        fresh = []
        for k in range(k_count):
            v = batch + offsets[k]
            nd = db + wb[:, k]
            better = nd < dist[v]
            if not better.any():
                continue
            vb = v[better]
            dist[vb] = nd[better]
            move[vb] = k
            new = vb[~queued[vb]]
            if new.size:
                queued[new] = True
                fresh.append(new)
        if fresh:
            add = np.concatenate(fresh)
            frontier = np.concatenate([frontier, add])
            if heur is not None:
                h_front = np.concatenate([h_front, heur(add)])
        rounds += 1
        if limit is not None and rounds >= limit:
            break
    return dist, move, rounds


def trace(graph: CostGraph, move: npt.NDArray[np.uint8], goal: SupportsIndex) -> npt.NDArray[np.int64]:
    """Padded flat indices of the path ending at ``goal``, from its source (``move`` of :func:`search`)."""
    offsets = graph.offsets
    out = [int(goal)]
    cur = int(goal)
    n = move.size
    while move[cur] != NO_MOVE:
        cur -= int(offsets[move[cur]])
        out.append(cur)
        if len(out) > n:  # a cycle cannot happen with positive costs; a guard all the same
            raise RuntimeError("path tracing looped")
    return np.array(out[::-1], np.int64)
