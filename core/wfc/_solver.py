"""The one WFC solver: a boolean wave, arc-consistent propagation over changed cells, backtracking.

The wave is an ``(cells, P)`` bool array. Propagation keeps a frontier of the cells whose possible
set shrank and, for the four directions at once, asks which patterns the frontier still supports in
its neighbours: one float32 matrix product of the frontier's rows with the compatibility tables
(never a Python loop over cells). Observation collapses the lowest Shannon-entropy cell (weights,
seeded tie-break noise) to a weighted random pattern. Every change is logged as (cells, old rows),
so a failed choice is undone exactly; the pattern is then banned and the search goes on, up to
``backtrack_limit`` backtracks, after which the attempt restarts with the next seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ._contract import Contradiction

__all__ = ["solve", "SolveResult"]

#: Offsets (dx, dy) of the directions 0 east (+x), 1 south (+y, row + 1), 2 west, 3 north.
DX = (1, 0, -1, 0)
DY = (0, 1, 0, -1)


@dataclass(frozen=True)
class SolveResult:
    """A solved grid: ``indices`` (height, width) int32 pattern ids, the attempts made (1 = first
    try) and the backtracks of the successful attempt."""

    indices: np.ndarray
    attempts: int
    backtracks: int


class _Empty(Exception):
    """Propagation emptied a cell (internal)."""

    def __init__(self, cell):
        super().__init__(cell)
        self.cell = int(cell)


def _neighbours(width, height, periodic):
    """(cells + 1, 4) index of each cell's neighbour per direction; off a bounded grid the
    neighbour is the extra row ``cells``, which the wave keeps all-True and never changes."""
    n = width * height
    y, x = np.divmod(np.arange(n), width)
    out = np.full((n + 1, 4), n, np.int64)
    for d in range(4):
        nx, ny = x + DX[d], y + DY[d]
        if periodic:
            out[:n, d] = (ny % height) * width + nx % width
        else:
            inside = (nx >= 0) & (nx < width) & (ny >= 0) & (ny < height)
            out[:n, d] = np.where(inside, ny * width + nx, n)
    return out


def _check(weights, compatible, width, height, attempts, backtrack_limit, fixed, allowed):
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 1 or weights.size == 0:
        raise ParameterError(f"weights must be a non-empty (P,) array, got shape {weights.shape}")
    if not (np.all(np.isfinite(weights)) and np.all(weights > 0)):
        raise ParameterError("weights must be finite and > 0")
    p = weights.size
    compatible = np.asarray(compatible, dtype=bool)
    if compatible.shape != (4, p, p):
        raise ParameterError(f"compatible must have shape (4, {p}, {p}), got {compatible.shape}")
    if not np.array_equal(compatible, compatible[[2, 3, 0, 1]].transpose(0, 2, 1)):
        raise ParameterError("compatible must be symmetric: compatible[d, p, q] == compatible[(d + 2) % 4, q, p]")
    for name, value, low in (("width", width, 1), ("height", height, 1), ("attempts", attempts, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ParameterError(f"{name} must be an integer >= {low}, got {value!r}")
    if isinstance(backtrack_limit, bool) or not isinstance(backtrack_limit, (int, np.integer)) or backtrack_limit < 0:
        raise ParameterError(f"backtrack_limit must be an integer >= 0, got {backtrack_limit!r}")
    if fixed is not None:
        fixed = np.asarray(fixed)
        if fixed.shape != (height, width) or not np.issubdtype(fixed.dtype, np.integer):
            raise ParameterError(f"fixed must be an integer ({height}, {width}) array, got {fixed.dtype} {fixed.shape}")
        if fixed.size and (fixed.min() < -1 or fixed.max() >= p):
            raise ParameterError(f"fixed must hold -1 or pattern ids in [0, {p}), got {fixed.min()}..{fixed.max()}")
    if allowed is not None:
        allowed = np.asarray(allowed)
        if allowed.shape != (height, width, p) or allowed.dtype != bool:
            raise ParameterError(
                f"allowed must be a bool ({height}, {width}, {p}) array, got {allowed.dtype} {allowed.shape}"
            )
    return weights, compatible, fixed, allowed


class _Wave:
    """The wave (cells + 1, P) with its entropy bookkeeping and an undo log; the last row stands
    for "off the grid"."""

    def __init__(self, wave, weights, nbr, compatible, noise):
        self.wave = wave
        self.w = weights
        self.p = weights.size
        self.n = wave.shape[0] - 1
        self.nbr = nbr
        self.noise = noise
        self.wlogw = weights * np.log(weights)
        # (P, 4P): one product gives the support in the four directions
        self.table = np.concatenate(list(compatible), axis=1).astype(np.float32)
        self.log = []
        self.entropy = np.empty(wave.shape[0])
        self._update(np.arange(self.n))
        self.entropy[self.n] = np.inf

    def _update(self, cells):
        """Recompute the entropy of rows; returns the index of an empty one or -1."""
        rows = self.wave[cells]
        count = rows.sum(1)
        sw = np.maximum(rows @ self.w, 1e-300)  # matrix-vector products: no BLAS threads woken
        ent = np.log(sw) - (rows @ self.wlogw) / sw + self.noise[cells]
        ent[count <= 1] = np.inf
        self.entropy[cells] = ent
        empty = count == 0
        return int(np.argmax(empty)) if empty.any() else -1

    def set_rows(self, cells, rows):
        """Replace rows (cells unique), logging the old ones; raises _Empty on an empty row."""
        self.log.append((cells, self.wave[cells]))
        self.wave[cells] = rows
        empty = self._update(cells)
        if empty >= 0:
            raise _Empty(cells[empty])

    def undo(self, mark):
        while len(self.log) > mark:
            cells, rows = self.log.pop()
            self.wave[cells] = rows
            self._update(cells)

    def propagate(self, frontier):
        p, wave, nbr, n = self.p, self.wave, self.nbr, self.n
        while frontier.size:
            support = (wave[frontier].astype(np.float32) @ self.table).reshape(-1, p) > 0  # (4k, P)
            targets = nbr[frontier].ravel()  # cell-major, like support's rows
            order = np.argsort(targets, kind="stable")
            targets = targets[order]
            first = np.empty(targets.size, bool)
            first[:1] = True
            np.not_equal(targets[1:], targets[:-1], out=first[1:])
            starts = np.flatnonzero(first)
            cells = targets[starts]
            merged = np.logical_and.reduceat(support[order], starts, axis=0)
            if cells[-1] == n:  # off the grid
                cells, merged = cells[:-1], merged[:-1]
            old = wave[cells]
            new = old & merged
            changed = (new != old).any(1)
            frontier = cells[changed]
            if frontier.size:
                self.set_rows(frontier, new[changed])


def _cell_xy(cell, width):
    return (int(cell % width), int(cell // width))


def solve(
    weights,
    compatible,
    width,
    height,
    *,
    periodic=False,
    seed=0,
    attempts=10,
    backtrack_limit=1000,
    fixed=None,
    allowed=None,
):
    """Fill a ``height`` x ``width`` grid with patterns so that every neighbouring pair is compatible.

    Parameters
    ----------
    weights : (P,) float
        Relative frequency of each pattern, > 0.
    compatible : (4, P, P) bool
        ``compatible[d, p, q]``: pattern ``q`` may sit next to ``p`` in direction ``d``
        (0 east +x, 1 south +y = row + 1, 2 west, 3 north); symmetric under
        ``compatible[(d + 2) % 4].T``.
    width, height : int
        Grid size in cells.
    periodic : bool
        Wrap around both edges.
    seed : int
        Attempt ``k`` (0-based) uses ``numpy.random.default_rng(seed + k)``.
    attempts : int
        Restarts allowed before giving up.
    backtrack_limit : int
        Backtracks allowed per attempt (0: restart at the first contradiction).
    fixed : (height, width) int, optional
        -1 for a free cell, else the pattern the cell must hold.
    allowed : (height, width, P) bool, optional
        Patterns each cell may hold.

    Returns
    -------
    SolveResult

    Raises
    ------
    Contradiction
        No output within the attempts, or the fixed/allowed cells contradict the rules (at once).

    Examples
    --------
    >>> same = np.ones((4, 2, 2), bool)
    >>> stripes = np.zeros((4, 2, 2), bool)
    >>> stripes[[0, 2]] = np.eye(2, dtype=bool)  # east-west: same pattern
    >>> stripes[[1, 3]] = ~np.eye(2, dtype=bool)  # north-south: the other one
    >>> solve([1.0, 1.0], stripes, 3, 2, fixed=[[0, -1, -1], [-1, -1, -1]]).indices.tolist()
    [[0, 0, 0], [1, 1, 1]]
    """
    weights, compatible, fixed, allowed = _check(
        weights, compatible, width, height, attempts, backtrack_limit, fixed, allowed
    )
    p, n = weights.size, width * height
    nbr = _neighbours(width, height, periodic)
    wave0 = np.ones((n + 1, p), bool)
    if allowed is not None:
        wave0[:n] &= allowed.reshape(n, p)
    if fixed is not None:
        flat = fixed.ravel()
        pinned = np.flatnonzero(flat >= 0)
        hold = wave0[pinned, flat[pinned]]
        wave0[pinned] = False
        wave0[pinned, flat[pinned]] = hold
    start = _Wave(wave0, weights, nbr, compatible, np.zeros(n + 1))
    try:
        empty = np.flatnonzero(~wave0.any(1))
        if empty.size:
            raise _Empty(empty[0])
        start.propagate(np.arange(n))
    except _Empty as e:
        raise Contradiction(
            f"no pattern fits cell {_cell_xy(e.cell, width)} before any choice: the rules"
            " contradict themselves or the fixed/allowed cells",
            cell=_cell_xy(e.cell, width),
            attempts=1,
        ) from None
    wave0 = start.wave
    last = None
    for k in range(attempts):
        rng = np.random.default_rng(seed + k)
        noise = np.append(rng.random(n) * 1e-6, 0.0)  # seeded tie-break among equal entropies
        state = _Wave(wave0.copy(), weights, nbr, compatible, noise)
        outcome = _attempt(state, rng, backtrack_limit)
        if isinstance(outcome, int):
            indices = state.wave[:n].argmax(1).astype(np.int32).reshape(height, width)
            return SolveResult(indices=indices, attempts=k + 1, backtracks=outcome)
        last, exhausted = outcome
        if exhausted:  # the whole search tree failed: more seeds cannot help
            break
    xy = _cell_xy(last, width)
    raise Contradiction(
        f"no pattern fits cell {xy} next to its neighbours after {k + 1} attempt(s)"
        f" with backtrack_limit={backtrack_limit}" + (" (no tiling exists)" if exhausted else ""),
        cell=xy,
        attempts=k + 1,
    )


def _attempt(state, rng, backtrack_limit):
    """Run one attempt: backtracks (int) on success, else (cell, exhausted)."""
    stack = []  # (log mark, cell, pattern)
    backtracks = 0
    while True:
        cell = int(np.argmin(state.entropy))
        if state.entropy[cell] == np.inf:
            return backtracks
        row = state.wave[cell]
        choices = np.flatnonzero(row)
        cum = np.cumsum(state.w[choices])
        pattern = int(choices[min(np.searchsorted(cum, rng.random() * cum[-1], side="right"), choices.size - 1)])
        stack.append((len(state.log), cell, pattern))
        new = np.zeros((1, state.p), bool)
        new[0, pattern] = True
        try:
            state.set_rows(np.array([cell]), new)
            state.propagate(np.array([cell]))
            continue
        except _Empty as e:
            failed = e.cell
        # backtrack: undo the choice, ban it, propagate; on failure go one level up
        while True:
            if not stack:
                return failed, True
            if backtracks >= backtrack_limit:
                return failed, False
            backtracks += 1
            mark, cell, pattern = stack.pop()
            state.undo(mark)
            row = state.wave[cell].copy()
            row[pattern] = False
            try:
                state.set_rows(np.array([cell]), row[None])
                state.propagate(np.array([cell]))
                break
            except _Empty as e:
                failed = e.cell
