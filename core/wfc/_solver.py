"""The one WFC solver: packed-bitset wave, arc-consistent propagation from changed cells, backtracking.

Every cell's possible patterns are one packed bitset (a Python integer of P bits). Propagation
narrows the neighbours of the cells whose set shrank with the *support* of the set: the
patterns it still allows next to it in each direction, from tables per byte of the set (a set's
support costs one look-up per non-zero byte, cached per 64-pattern block and per set). Only the
cells that change are touched: no Python pass over the whole grid per step. Propagation runs
breadth first, so a cell that changes several times in one round is visited once.

Observation takes the lowest Shannon-entropy cell and collapses it to a weighted random
pattern. Entropies come from exact integer sums (weights to 7 significant digits, ``w log w``
in fixed point), so they do not depend on the order of the sums; the changed cells' entropies
are refreshed in one numpy pass, plus a seeded tie-break noise, then one ``argmin``.

Every change is logged as (cell, old set), so a failed choice is undone exactly; the pattern is
then banned and the search goes on, up to ``backtrack_limit`` backtracks, after which the
attempt restarts with the next seed.

Extra constraints (connectivity, tile counts: :mod:`._constraints`) plug in through
``constraints``: objects with ``revise(wave, final)`` that see the wave as a read-only
``(cells, P)`` bool array and may narrow cells or raise :class:`~._contract.Unsatisfied`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..steps import drive
from ._contract import Contradiction, Unsatisfied

__all__ = ["solve", "solve_steps", "SolveResult", "OPPOSITE", "DX", "DY", "DZ", "MAX_CELLS"]

#: Most cells one solve takes: its wave, neighbours, undo log and entropies take about 1 KB a cell.
MAX_CELLS = 1 << 20

#: Offsets of the directions 0 east (+x), 1 south (+y, row + 1), 2 west, 3 north, 4 up (+z), 5 down.
DX = (1, 0, -1, 0, 0, 0)
DY = (0, 1, 0, -1, 0, 0)
DZ = (0, 0, 0, 0, 1, -1)
#: The direction opposite each direction.
OPPOSITE = (2, 3, 0, 1, 5, 4)


@dataclass(frozen=True)
class SolveResult:
    """A solved grid: ``indices`` (height, width) int32 pattern ids ((depth, height, width) in 3-D),
    the attempts made (1 = first try) and the backtracks of the successful attempt."""

    indices: np.ndarray
    attempts: int
    backtracks: int


def _neighbours(width, height, depth, directions, periodic):
    """Per cell, the tuple of its neighbour per direction (-1 off a bounded grid). ``periodic``
    wraps x and y (never z)."""
    n = width * height * depth
    z, rest = np.divmod(np.arange(n), width * height)
    y, x = np.divmod(rest, width)
    out = np.empty((n, directions), np.int64)
    for d in range(directions):
        nx, ny, nz = x + DX[d], y + DY[d], z + DZ[d]
        if periodic:
            nx, ny = nx % width, ny % height
        inside = (nx >= 0) & (nx < width) & (ny >= 0) & (ny < height) & (nz >= 0) & (nz < depth)
        out[:, d] = np.where(inside, (nz * height + ny) * width + nx, -1)
    return [tuple(row) for row in out.tolist()]


def _is_int(value, low):
    return not isinstance(value, bool) and isinstance(value, (int, np.integer)) and value >= low


def _check(weights, compatible, width, height, depth, seed, attempts, backtrack_limit, fixed, allowed):
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 1 or weights.size == 0:
        raise ParameterError(f"weights must be a non-empty (P,) array, got shape {weights.shape}")
    if not (np.all(np.isfinite(weights)) and np.all(weights > 0)):
        raise ParameterError("weights must be finite and > 0")
    sizes = (("width", width, 1), ("height", height, 1), ("depth", depth, 1), ("attempts", attempts, 1))
    for name, value, low in sizes:
        if not _is_int(value, low):
            raise ParameterError(f"{name} must be an integer >= {low}, got {value!r}")
    cells = width * height * depth
    if cells > MAX_CELLS:
        size = f"{width} x {height}" + (f" x {depth}" if depth > 1 else "")
        raise ParameterError(
            f"width x height{' x depth' if depth > 1 else ''} = {size} = {cells:,} cells, more than the "
            f"{MAX_CELLS:,} the solver takes (about 1 KB of memory a cell): solve a smaller grid"
        )
    if not _is_int(seed, 0) or seed > 2**63 - 1:
        raise ParameterError(f"seed must be an integer in [0, {2**63 - 1}], got {seed!r}")
    if not _is_int(backtrack_limit, 0):
        raise ParameterError(f"backtrack_limit must be an integer >= 0, got {backtrack_limit!r}")
    p = weights.size
    compatible = np.asarray(compatible, dtype=bool)
    shapes = ((4, p, p), (6, p, p)) if depth == 1 else ((6, p, p),)
    if compatible.shape not in shapes:
        wanted = " or ".join(str(s) for s in shapes)
        raise ParameterError(f"compatible must have shape {wanted}, got {compatible.shape}")
    opposite = list(OPPOSITE[: compatible.shape[0]])
    if not np.array_equal(compatible, compatible[opposite].transpose(0, 2, 1)):
        raise ParameterError(
            "compatible must be symmetric: compatible[d, p, q] == compatible[opposite(d), q, p]"
            " (opposites 0-2, 1-3, 4-5)"
        )
    grid = (height, width) if depth == 1 else (depth, height, width)
    if fixed is not None:
        fixed = np.asarray(fixed)
        if fixed.shape != grid or not np.issubdtype(fixed.dtype, np.integer):
            raise ParameterError(f"fixed must be an integer {grid} array, got {fixed.dtype} {fixed.shape}")
        if fixed.size and (fixed.min() < -1 or fixed.max() >= p):
            raise ParameterError(f"fixed must hold -1 or pattern ids in [0, {p}), got {fixed.min()}..{fixed.max()}")
    if allowed is not None:
        allowed = np.asarray(allowed)
        if allowed.shape != (*grid, p) or allowed.dtype != bool:
            raise ParameterError(f"allowed must be a bool {(*grid, p)} array, got {allowed.dtype} {allowed.shape}")
    return weights, compatible, fixed, allowed


def _byte_tables(values, combine, empty):
    """Per byte j of a pattern set, the 256 combinations of ``values[8j .. 8j + 7]``: entry ``b``
    combines the values of the set bits of ``b`` (built from ``b`` without its lowest bit)."""
    tables = []
    for j in range(0, len(values), 8):
        chunk = values[j : j + 8]
        table = [empty] * 256
        for b in range(1, 1 << len(chunk)):
            low = b & -b
            table[b] = combine(table[b ^ low], chunk[low.bit_length() - 1])
        tables.append(table)
    return tables


def _pack(rows):
    """(k, P) bool rows -> k Python integers (bit p = pattern p)."""
    rows = np.asarray(rows, bool)
    packed = np.packbits(rows, axis=1, bitorder="little")
    width = packed.shape[1]
    data = packed.tobytes()
    return [int.from_bytes(data[i * width : (i + 1) * width], "little") for i in range(rows.shape[0])]


#: Patterns per block of the support look-up, and the most pattern sets whose supports are kept.
_ZERO_BLOCK = bytes(8)
_CACHED = 50_000
#: The largest integer weight, and the fixed-point unit of ``w log w``.
_WEIGHT_UNIT = 2**24
_FIXED = 2**16


class _Rules:
    """What a run needs from the weights and compatibility tables, with per-set caches."""

    def __init__(self, weights, compatible):
        p = weights.size
        self.p, self.directions = p, compatible.shape[0]
        self.nbytes = (p + 7) // 8
        self.full = (1 << p) - 1
        # integer weights (7 significant digits) and fixed-point w log w: sums exact in any order
        iw = np.maximum(1, np.rint(weights * (_WEIGHT_UNIT / weights.max()))).astype(np.int64)
        self.weights = iw.tolist()
        wlogw = [round(w * math.log(w) * _FIXED) for w in self.weights]
        bits = (np.arange(256)[:, None] >> np.arange(8)) & 1  # (256, 8)
        per_byte = np.zeros((self.nbytes * 8, 2), np.int64)
        per_byte[:p, 0], per_byte[:p, 1] = iw, wlogw
        per_byte = per_byte.reshape(self.nbytes, 8, 2)
        self._sum_w = per_byte[:, :, 0] @ bits.T  # (nbytes, 256) exact int64
        self._sum_wlogw = per_byte[:, :, 1] @ bits.T
        self._byte_rows = np.arange(self.nbytes)
        self._sum_bytes = [list(zip(a, b)) for a, b in zip(self._sum_w.tolist(), self._sum_wlogw.tolist())]
        self._entropy = {}
        # one integer per pattern: its support in every direction, direction d at bits d*P
        rows = _pack(compatible.transpose(1, 0, 2).reshape(p, self.directions * p))
        self._support_rows = rows
        self._support_bytes = _byte_tables(rows, int.__or__, 0)
        self._support = {}
        self.cached_support = self._support.get  # a set's support if already looked up, else None
        self._block_support = [{} for _ in range((p + 63) // 64)]
        self._block_bytes_total = 8 * len(self._block_support)
        self._rows = {}

    def support(self, m):
        """Per direction, the set of patterns that ``m`` allows next to it."""
        s = self._support.get(m)
        return s if s is not None else self.look_up(m)

    def look_up(self, m):
        """:meth:`support` of a set not in the cache (and cache it)."""
        bits = 0
        if m.bit_count() <= 6:  # a few patterns: their own rows
            rows, rest = self._support_rows, m
            while rest:
                low = rest & -rest
                bits |= rows[low.bit_length() - 1]
                rest ^= low
        else:  # 64-pattern blocks (8 bytes), each looked up once per distinct block
            data = m.to_bytes(self._block_bytes_total, "little")
            tables = self._support_bytes
            for k, cache in enumerate(self._block_support):
                key = data[k << 3 : (k + 1) << 3]
                if key != _ZERO_BLOCK:
                    v = cache.get(key)
                    if v is None:
                        v = 0
                        for j, byte in enumerate(key, start=k << 3):
                            if byte:
                                v |= tables[j][byte]
                        if len(cache) < _CACHED:
                            cache[key] = v
                    bits |= v
        p, full = self.p, self.full
        if self.directions == 4:
            s = (bits & full, (bits >> p) & full, (bits >> 2 * p) & full, bits >> 3 * p)
        else:
            s = tuple((bits >> (d * p)) & full for d in range(self.directions))
        if len(self._support) < _CACHED:
            self._support[m] = s
        return s

    def entropies(self, masks):
        """Shannon entropy of each weighted set of ``masks`` (a list of integers), from exact
        integer sums of the weights and of the fixed-point ``w log w`` per byte."""
        nb = self.nbytes
        data = b"".join([m.to_bytes(nb, "little") for m in masks])
        index = np.frombuffer(data, np.uint8).reshape(len(masks), nb)
        sw = self._sum_w[self._byte_rows, index].sum(1).tolist()
        swl = self._sum_wlogw[self._byte_rows, index].sum(1).tolist()
        log, unit = math.log, _FIXED
        return [log(a) - c / (a * unit) for a, c in zip(sw, swl)]

    def entropy(self, m):
        """:meth:`entropies` of one set (the same value), cached per set."""
        e = self._entropy.get(m)
        if e is None:
            sw = swl = 0
            tables = self._sum_bytes
            for j, b in enumerate(m.to_bytes(self.nbytes, "little")):
                if b:
                    a, c = tables[j][b]
                    sw += a
                    swl += c
            e = math.log(sw) - swl / (sw * _FIXED)
            if len(self._entropy) < _CACHED:
                self._entropy[m] = e
        return e

    def pick(self, m, u):
        """The pattern of ``m`` that a uniform ``u`` in [0, 1) picks, by (integer) weight."""
        w, bits = self.weights, []
        rest = m
        while rest:
            low = rest & -rest
            bits.append(low.bit_length() - 1)
            rest ^= low
        target = u * sum(w[i] for i in bits)
        acc = 0
        for i in bits:
            acc += w[i]
            if acc > target:
                return i
        return bits[-1]

    def row(self, m):
        """``m`` as a read-only (P,) bool row."""
        r = self._rows.get(m)
        if r is None:
            r = np.unpackbits(np.frombuffer(m.to_bytes(self.nbytes, "little"), np.uint8), bitorder="little")
            r = r[: self.p].astype(bool)
            r.flags.writeable = False
            if len(self._rows) < _CACHED:
                self._rows[m] = r
        return r


class _Search:
    """One attempt's state: the wave, its undo log, the entropies and the decided count."""

    def __init__(self, rules, nbrs, wave, noise, constraints):
        self.rules, self.nbrs, self.wave, self.noise = rules, nbrs, wave, noise
        self.n = len(wave)
        self.log = []
        self.constraints = constraints
        self.reason = None
        self.decided = sum(1 for m in wave if not m & (m - 1))
        self.mirror = None
        if constraints:
            self.mirror = np.stack([rules.row(m) for m in wave]) if wave else np.zeros((0, rules.p), bool)
            self.view = self.mirror.view()
            self.view.flags.writeable = False
        self.entropy = np.full(self.n, np.inf)
        self.dirty = list(range(self.n))  # cells whose entropy is out of date

    def narrow(self, c, new):
        """Set cell ``c`` to ``new`` (a proper subset of its set), logged."""
        old = self.wave[c]
        self.log.append((c, old))
        self.wave[c] = new
        self.dirty.append(c)
        if not new & (new - 1):
            self.decided += 1
        if self.mirror is not None:
            self.mirror[c] = self.rules.row(new)

    def propagate(self, cells):
        """Narrow the neighbours of ``cells`` until nothing changes, breadth first (a cell that
        changes several times in one round is visited once): the cell that ran out of
        patterns, or -1."""
        wave, nbrs, log, dirty, mirror = self.wave, self.nbrs, self.log, self.dirty, self.mirror
        rules = self.rules
        cached, support, row = rules.cached_support, rules.look_up, rules.row
        touch = dirty.append
        decided = 0
        level = cells
        try:
            while level:
                changed = []
                append = changed.append
                for c in level:
                    m = wave[c]
                    for t, s in zip(nbrs[c], cached(m) or support(m)):
                        if t < 0:
                            continue
                        old = wave[t]
                        new = old & s
                        if new != old:
                            if not new:
                                return t
                            log.append((t, old))
                            wave[t] = new
                            append(t)
                            touch(t)
                            if not new & (new - 1):
                                decided += 1
                            if mirror is not None:
                                mirror[t] = row(new)
                level = list(dict.fromkeys(changed)) if len(changed) > 1 else changed
        finally:
            self.decided += decided
        return self.revise()

    def revise(self):
        """Let the constraints narrow the wave (propagating what they narrow) until they all
        accept it: the failing cell, or -1."""
        changed = bool(self.constraints)
        while changed:
            changed = False
            for constraint in self.constraints:
                try:
                    out = constraint.revise(self.view, self.decided == self.n)
                except Unsatisfied as failure:
                    self.reason = failure.reason
                    return failure.cell
                if out is None:
                    continue
                cells, rows = out
                stack = []
                for c, r in zip(np.asarray(cells, np.int64).tolist(), _pack(rows)):
                    old = self.wave[c]
                    new = old & r
                    if new != old:
                        if not new:
                            self.reason = f"{type(constraint).__name__} left no pattern"
                            return c
                        self.narrow(c, new)
                        stack.append(c)
                if stack:
                    self.constraints, saved = (), self.constraints  # plain propagation, then revise again
                    try:
                        failed = self.propagate(stack)
                    finally:
                        self.constraints = saved
                    if failed >= 0:
                        return failed
                    changed = True
        return -1

    def undo(self, mark):
        wave, log, touch, rules, mirror = self.wave, self.log, self.dirty.append, self.rules, self.mirror
        while len(log) > mark:
            c, old = log.pop()
            cur = wave[c]
            wave[c] = old
            touch(c)
            if not cur & (cur - 1):
                self.decided -= 1
            if mirror is not None:
                mirror[c] = rules.row(old)

    def lowest(self):
        """The undecided cell of lowest entropy (with its tie-break noise), or -1 when all are decided."""
        if self.decided == self.n:
            return -1
        dirty = self.dirty
        if len(dirty) > 64:  # many: one numpy pass
            wave, noise = self.wave, self.noise
            cells = [c for c in dict.fromkeys(dirty) if wave[c] & (wave[c] - 1)]
            self.entropy[dirty] = math.inf
            if cells:
                values = self.rules.entropies([wave[c] for c in cells])
                self.entropy[cells] = [e + noise[c] for e, c in zip(values, cells)]
        elif dirty:  # a few: one by one, cached per set
            wave, noise, entropy, values = self.wave, self.noise, self.rules.entropy, self.entropy
            for c in dirty:
                m = wave[c]
                values[c] = entropy(m) + noise[c] if m & (m - 1) else math.inf
        dirty.clear()
        return int(self.entropy.argmin())


def _cell_xy(cell, width, height, depth):
    z, rest = divmod(int(cell), width * height)
    y, x = divmod(rest, width)
    return (x, y) if depth == 1 else (x, y, z)


def solve(
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
    constraints=(),
    progress=None,
):
    """Fill a ``height`` x ``width`` grid (``depth`` layers of it in 3-D) with patterns so that
    every neighbouring pair is compatible.

    Parameters
    ----------
    weights : (P,) float
        Relative frequency of each pattern, > 0.
    compatible : (4, P, P) or (6, P, P) bool
        ``compatible[d, p, q]``: pattern ``q`` may sit next to ``p`` in direction ``d``
        (0 east +x, 1 south +y = row + 1, 2 west, 3 north, 4 up +z, 5 down); symmetric under
        ``compatible[OPPOSITE[d]].T``. Six directions are needed when ``depth > 1``.
    width, height, depth : int
        Grid size in cells.
    periodic : bool
        Wrap around the x and y edges (never z).
    seed : int
        Attempt ``k`` (0-based) uses ``numpy.random.default_rng(seed + k)``.
    attempts : int
        Restarts allowed before giving up.
    backtrack_limit : int
        Backtracks allowed per attempt (0: restart at the first contradiction).
    fixed : (height, width) int, optional
        -1 for a free cell, else the pattern the cell must hold ((depth, height, width) in 3-D).
    allowed : (height, width, P) bool, optional
        Patterns each cell may hold ((depth, height, width, P) in 3-D).
    constraints : sequence
        Objects with ``revise(wave, final)`` (see the module docstring).
    progress : callable, optional
        ``progress(decided_cells, cells, label)`` now and then.

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
    steps = solve_steps(
        weights,
        compatible,
        width,
        height,
        depth=depth,
        periodic=periodic,
        seed=seed,
        attempts=attempts,
        backtrack_limit=backtrack_limit,
        fixed=fixed,
        allowed=allowed,
        constraints=constraints,
    )
    return drive(steps, progress)


def solve_steps(
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
    constraints=(),
):
    """:func:`solve` as a step generator (:mod:`core.steps`): the arguments are checked at the call;
    it yields ``(decided_cells, cells, label)`` about a hundred times per attempt and returns the
    :class:`SolveResult`.

    >>> from core.steps import drive
    >>> drive(solve_steps([1.0], np.ones((4, 1, 1), bool), 2, 2)).indices.tolist()
    [[0, 0], [0, 0]]
    """
    weights, compatible, fixed, allowed = _check(
        weights, compatible, width, height, depth, seed, attempts, backtrack_limit, fixed, allowed
    )
    return _solve(
        weights,
        compatible,
        width,
        height,
        depth,
        periodic,
        seed,
        attempts,
        backtrack_limit,
        fixed,
        allowed,
        tuple(constraints),
    )


def _solve(
    weights, compatible, width, height, depth, periodic, seed, attempts, backtrack_limit, fixed, allowed, constraints
):
    """The body of :func:`solve_steps` (a generator), its arguments checked."""
    p, n = weights.size, width * height * depth
    rules = _Rules(weights, compatible)
    nbrs = _neighbours(width, height, depth, compatible.shape[0], periodic)
    if allowed is not None or fixed is not None:
        start = np.ones((n, p), bool)
        if allowed is not None:
            start &= allowed.reshape(n, p)
        if fixed is not None:
            flat = fixed.ravel()
            pinned = np.flatnonzero(flat >= 0)
            hold = start[pinned, flat[pinned]]
            start[pinned] = False
            start[pinned, flat[pinned]] = hold
        wave0 = _pack(start)
    else:
        wave0 = [rules.full] * n
    state = _Search(rules, nbrs, wave0, [0.0] * n, constraints)
    empty = next((c for c, m in enumerate(wave0) if not m), -1)
    failed = empty if empty >= 0 else state.propagate(list(range(n)))
    if failed >= 0:
        xy = _cell_xy(failed, width, height, depth)
        raise Contradiction(
            f"cell {xy} fails before any choice: {state.reason}"
            if state.reason
            else f"no pattern fits cell {xy} before any choice: the rules contradict themselves"
            " or the fixed/allowed cells",
            cell=_cell_xy(failed, width, height, depth),
            attempts=1,
        )
    wave0 = state.wave
    every = max(1, n // 100)
    for k in range(attempts):
        rng = np.random.default_rng(seed + k)
        noise = (rng.random(n) * 1e-6).tolist()  # seeded tie-break among equal entropies
        state = _Search(rules, nbrs, list(wave0), noise, constraints)
        outcome = yield from _attempt(state, rng, backtrack_limit, every, f"attempt {k + 1}")
        if isinstance(outcome, int):
            indices = np.array([m.bit_length() - 1 for m in state.wave], np.int32)
            shape = (height, width) if depth == 1 else (depth, height, width)
            return SolveResult(indices=indices.reshape(shape), attempts=k + 1, backtracks=outcome)
        last, exhausted = outcome
        if exhausted:  # the whole search tree failed: more seeds cannot help
            break
    xy = _cell_xy(last, width, height, depth)
    why = f": {state.reason}" if state.reason else " next to its neighbours"
    held = f"; constraints: {'; '.join(str(c) for c in constraints)}" if constraints else ""
    raise Contradiction(
        f"no pattern fits cell {xy}{why} after {k + 1} attempt(s)"
        f" with backtrack_limit={backtrack_limit}" + (" (no tiling exists)" if exhausted else "") + held,
        cell=xy,
        attempts=k + 1,
    )


def _attempt(state, rng, backtrack_limit, every, label):
    """Run one attempt (a step generator): backtracks (int) on success, else (cell, exhausted)."""
    rules = state.rules
    stack = []  # (log mark, cell, pattern)
    backtracks = observed = 0
    randoms, used = rng.random(state.n + 64).tolist(), 0
    while True:
        cell = state.lowest()
        if cell < 0:
            return backtracks
        observed += 1
        if observed % every == 0:
            yield state.decided, state.n, label
        if used == len(randoms):
            randoms, used = rng.random(state.n + 64).tolist(), 0
        pattern = rules.pick(state.wave[cell], randoms[used])
        used += 1
        stack.append((len(state.log), cell, pattern))
        state.reason = None
        state.narrow(cell, 1 << pattern)
        failed = state.propagate([cell])
        if failed < 0:
            continue
        # backtrack: undo the choice, ban it, propagate; on failure go one level up
        while True:
            if not stack:
                return failed, True
            if backtracks >= backtrack_limit:
                return failed, False
            backtracks += 1
            mark, cell, pattern = stack.pop()
            state.undo(mark)
            state.reason = None
            banned = state.wave[cell] & ~(1 << pattern)
            if not banned:
                failed = cell
                continue
            state.narrow(cell, banned)
            failed = state.propagate([cell])
            if failed < 0:
                break
