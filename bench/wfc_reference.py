"""A straightforward pure-Python WFC solver: the anchor of bench/bench_wfc.py ("a
straightforward Python implementation of the same algorithm").

The same algorithm as :func:`core.wfc.solve`, written the plain way, with no numpy in the loop:

- the wave is a list of lists of bools (cells x patterns), with each cell's count of possible
  patterns and its sums of ``w`` and ``w log w`` kept up to date on every ban (as the reference
  implementation, mxgmn's ``Model.cs``, keeps them);
- observation scans every cell for the lowest Shannon entropy ``log(sum w) - sum(w log w) / sum w``
  plus the same seeded tie-break noise (``rng.random(cells) * 1e-6``), and picks a pattern by
  weight with the next uniform of the same generator (drawn in batches of ``cells + 64``, as the
  solver draws them) - so the choices are the solver's unless two candidates are within the
  rounding of the solver's integer weights (7 significant digits) of each other;
- propagation is AC-3 in rounds, breadth first as the solver's: a cell whose set shrank gives, per
  direction, the union of the patterns its remaining patterns allow next to it (from adjacency
  lists), and the neighbour loses every pattern outside that union; the neighbours that shrank
  make the next round, each once. (A LIFO stack pushed at every shrink reaches the same result,
  but on the 24 x 24 flowers anchor with 17,016 pops for the solver's 6,484 visits, in 2.8x the
  time: racing that would flatter the solver.)
- backtracking undoes a failed choice from a log of bans, bans the chosen pattern and propagates,
  up to ``backtrack_limit`` backtracks per attempt; attempt ``k`` uses ``default_rng([seed, k])``;
- the start wave is propagated from every cell, unless it is full and every pattern may sit next
  to some pattern in every direction (then that propagation bans nothing: the solver and mxgmn's
  ``Model.cs`` skip it too).

Only the benchmark and the tests use it; it is not part of the extension.
"""

from __future__ import annotations

import math

import numpy as np

#: Offsets of the directions 0 east (+x), 1 south (+y, row + 1), 2 west, 3 north, 4 up (+z), 5 down.
DX = (1, 0, -1, 0, 0, 0)
DY = (0, 1, 0, -1, 0, 0)
DZ = (0, 0, 0, 0, 1, -1)


class ReferenceContradiction(Exception):
    """No output within the attempts: ``cell`` (x, y) (or (x, y, z)) where the last attempt failed."""

    def __init__(self, message, cell, attempts):
        super().__init__(message)
        self.cell = cell
        self.attempts = attempts


class _Empty(Exception):
    def __init__(self, cell):
        super().__init__(cell)
        self.cell = cell


def _neighbours(width, height, depth, directions, periodic):
    out = []
    for z in range(depth):
        for y in range(height):
            for x in range(width):
                row = []
                for d in range(directions):
                    nx, ny, nz = x + DX[d], y + DY[d], z + DZ[d]
                    if periodic:
                        nx, ny = nx % width, ny % height
                    inside = 0 <= nx < width and 0 <= ny < height and 0 <= nz < depth
                    row.append((nz * height + ny) * width + nx if inside else -1)
                out.append(row)
    return out


class _Attempt:
    def __init__(self, weights, adjacency, nbrs, wave):
        self.w = weights
        self.wlogw = [w * math.log(w) for w in weights]
        self.adj = adjacency  # adj[d][p]: the patterns allowed next to p in direction d
        self.nbrs = nbrs
        self.wave = wave
        self.p = len(weights)
        self.count = [sum(row) for row in wave]
        self.sw = [sum(w for w, b in zip(weights, row) if b) for row in wave]
        self.swl = [sum(v for v, b in zip(self.wlogw, row) if b) for row in wave]
        self.log = []  # (cell, pattern) of every ban, for undoing

    def ban(self, c, q):
        self.wave[c][q] = False
        self.count[c] -= 1
        self.sw[c] -= self.w[q]
        self.swl[c] -= self.wlogw[q]
        self.log.append((c, q))
        if self.count[c] == 0:
            raise _Empty(c)

    def undo(self, mark):
        while len(self.log) > mark:
            c, q = self.log.pop()
            self.wave[c][q] = True
            self.count[c] += 1
            self.sw[c] += self.w[q]
            self.swl[c] += self.wlogw[q]

    def propagate(self, cells):
        """Rounds, as the solver's: every cell of a round narrows its neighbours; the neighbours
        that shrank, each once, make the next round."""
        wave, adj, nbrs, p = self.wave, self.adj, self.nbrs, self.p
        level = cells
        while level:
            shrunk = []
            for c in level:
                row = wave[c]
                for d, t in enumerate(nbrs[c]):
                    if t < 0:
                        continue
                    allowed = [False] * p
                    for q in range(p):
                        if row[q]:
                            for r in adj[d][q]:
                                allowed[r] = True
                    target = wave[t]
                    shrank = False
                    for r in range(p):
                        if target[r] and not allowed[r]:
                            self.ban(t, r)
                            shrank = True
                    if shrank:
                        shrunk.append(t)
            level = list(dict.fromkeys(shrunk))

    def lowest(self, noise):
        best, cell = math.inf, -1
        for c in range(len(self.wave)):
            if self.count[c] > 1:
                sw = self.sw[c]
                e = math.log(sw) - self.swl[c] / sw + noise[c]
                if e < best:
                    best, cell = e, c
        return cell

    def pick(self, c, u):
        row, w = self.wave[c], self.w
        target = u * sum(w[q] for q in range(self.p) if row[q])
        acc, last = 0.0, -1
        for q in range(self.p):
            if row[q]:
                last = q
                acc += w[q]
                if acc > target:
                    return q
        return last


def _xy(cell, width, height, depth):
    z, rest = divmod(cell, width * height)
    y, x = divmod(rest, width)
    return (x, y) if depth == 1 else (x, y, z)


def reference_solve(
    weights,
    compatible,
    width,
    height,
    *,
    depth=1,
    periodic=False,
    seed=0,
    attempts=10,
    backtrack_limit=1000,
    fixed=None,
    allowed=None,
):
    """Solve as :func:`core.wfc.solve` does, the plain way; returns (indices, attempts, backtracks)
    with ``indices`` a nested list [y][x] (or [z][y][x] when ``depth > 1``) of pattern ids.

    ``compatible`` (D, P, P) bool as the solver's (D = 4, or 6 with ``depth``); ``fixed`` nested
    lists or an array of pattern ids (-1 free), ``allowed`` of bools (..., P). Raises
    :class:`ReferenceContradiction` naming the cell.
    """
    weights = [float(w) for w in weights]
    compatible = np.asarray(compatible, bool)
    p, directions = len(weights), compatible.shape[0]
    adjacency = [[np.flatnonzero(compatible[d, q]).tolist() for q in range(p)] for d in range(directions)]
    n = width * height * depth
    nbrs = _neighbours(width, height, depth, directions, periodic)
    wave0 = [[True] * p for _ in range(n)]
    if allowed is not None:
        flat = np.asarray(allowed, bool).reshape(n, p).tolist()
        wave0 = [[a and b for a, b in zip(r, m)] for r, m in zip(wave0, flat)]
    if fixed is not None:
        for c, f in enumerate(np.asarray(fixed).ravel().tolist()):
            if f >= 0:
                wave0[c] = [q == f and wave0[c][q] for q in range(p)]
    start = _Attempt(weights, adjacency, nbrs, wave0)
    # a full start wave where every pattern may sit next to some pattern every way bans nothing:
    # not propagated (as the reference implementation starts, and as the solver does)
    covered = all(len({r for q in range(p) for r in adjacency[d][q]}) == p for d in range(directions))
    try:
        empty = next((c for c in range(n) if start.count[c] == 0), -1)
        if empty >= 0:
            raise _Empty(empty)
        if not (allowed is None and fixed is None and covered):
            start.propagate(list(range(n)))
    except _Empty as e:
        xy = _xy(e.cell, width, height, depth)
        raise ReferenceContradiction(f"no pattern fits cell {xy} before any choice", xy, 1) from None
    for k in range(attempts):
        rng = np.random.default_rng([seed, k])  # attempt k of seed s: its own stream, never seed s + 1's
        noise = (rng.random(n) * 1e-6).tolist()
        state = _Attempt(weights, adjacency, nbrs, [list(row) for row in start.wave])
        outcome = _run(state, rng, noise, backtrack_limit)
        if isinstance(outcome, int):
            flat = [row.index(True) for row in state.wave]
            grid = [flat[r * width : (r + 1) * width] for r in range(height * depth)]
            if depth > 1:
                grid = [grid[z * height : (z + 1) * height] for z in range(depth)]
            return grid, k + 1, outcome
        last, exhausted = outcome
        if exhausted:
            break
    xy = _xy(last, width, height, depth)
    raise ReferenceContradiction(f"no pattern fits cell {xy} after {k + 1} attempt(s)", xy, k + 1)


def _run(state, rng, noise, backtrack_limit):
    """One attempt: the backtracks on success, else (failed cell, whole tree exhausted)."""
    stack = []  # (log mark, cell, pattern)
    backtracks = 0
    randoms, used = rng.random(len(state.wave) + 64).tolist(), 0
    while True:
        cell = state.lowest(noise)
        if cell < 0:
            return backtracks
        if used == len(randoms):
            randoms, used = rng.random(len(state.wave) + 64).tolist(), 0
        pattern = state.pick(cell, randoms[used])
        used += 1
        stack.append((len(state.log), cell, pattern))
        try:
            for q in range(state.p):
                if q != pattern and state.wave[cell][q]:
                    state.ban(cell, q)
            state.propagate([cell])
            continue
        except _Empty as e:
            failed = e.cell
        while True:  # backtrack: undo the choice, ban it, propagate; on failure one level up
            if not stack:
                return failed, True
            if backtracks >= backtrack_limit:
                return failed, False
            backtracks += 1
            mark, cell, pattern = stack.pop()
            state.undo(mark)
            try:
                state.ban(cell, pattern)
                state.propagate([cell])
                break
            except _Empty as e:
                failed = e.cell
