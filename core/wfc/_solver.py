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
import struct
from bisect import bisect_right
from dataclasses import dataclass
from functools import reduce
from operator import getitem as _item
from operator import or_ as _or

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
    """Per cell, the tuple of its neighbour per direction (``n``, the number of cells, off a
    bounded grid: the search's empty stand-in set). ``periodic`` wraps x and y (never z)."""
    n = width * height * depth
    z, rest = np.divmod(np.arange(n), width * height)
    y, x = np.divmod(rest, width)
    out = np.empty((n, directions), np.int64)
    for d in range(directions):
        nx, ny, nz = x + DX[d], y + DY[d], z + DZ[d]
        if periodic:
            nx, ny = nx % width, ny % height
        inside = (nx >= 0) & (nx < width) & (ny >= 0) & (ny < height) & (nz >= 0) & (nz < depth)
        out[:, d] = np.where(inside, (nz * height + ny) * width + nx, n)
    return list(zip(*out.T.tolist()))


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
_CACHED = 50_000
#: Most patterns a set may have lost since it last narrowed its neighbours for them to be narrowed by
#: its classes (see :func:`_classes`) rather than by its whole support (fewer than 16).
_FEW = 6
#: The largest integer weight, and the fixed-point unit of ``w log w``.
_WEIGHT_UNIT = 2**24
_FIXED = 2**16


def _classes(compatible):
    """Per pattern, for a 4-way table whose patterns fall into classes per direction (patterns
    with the same neighbours that way; different classes share no neighbour, as with sockets or
    overlaps): (its class's members, its neighbours) per direction as 8 integers; else None.

    Then a set's support that way is the disjoint union of its classes' neighbours, so a set that
    lost a few patterns loses exactly the neighbours of the classes it no longer meets."""
    nbr = [_pack(compatible[d]) for d in range(4)]
    members = []
    for rows in nbr:
        groups = {}
        for i, row in enumerate(rows):
            groups[row] = groups.get(row, 0) | 1 << i
        if sum(row.bit_count() for row in groups) != reduce(_or, groups).bit_count():
            return None  # two classes share a neighbour
        members.append([groups[row] for row in rows])
    return list(zip(*members, *nbr))


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
        self._w_bytes = self._sum_w.tolist()  # the same sums as Python integers, per byte
        self._wlogw_bytes = self._sum_wlogw.tolist()
        self._entropy = {}
        self._picks = {}
        # one integer per pattern: its support in every direction, direction d at bits d*P
        rows = _pack(compatible.transpose(1, 0, 2).reshape(p, self.directions * p))
        self.support_rows = rows
        self.classes = _classes(compatible) if self.directions == 4 else None
        blocks = (p + 63) // 64
        self._half_tables = [None] * (2 * blocks)  # per half-block, its 4 byte tables (built when first needed)
        self._half_support = [{} for _ in range(2 * blocks)]
        self._support = {}
        self.cached_support = self._support.get  # a set's look_up() if already made, else None
        self._block_support = [{0: 0} for _ in range(blocks)]
        self._block_bytes_total = 8 * blocks
        self._unpack = struct.Struct(f"<{blocks}Q").unpack
        self._rows = {}

    def support(self, m):
        """Per direction, the set of patterns that ``m`` allows next to it."""
        s = self._support.get(m) or self.look_up(m)
        return tuple(d & self.full for d in s)

    def look_up(self, m):
        """:meth:`support` of a set not in the cache (and cache it), each direction's set with
        the bits of the later directions above it (ANDed with a set they drop): the union of the
        supports of its 64-pattern blocks, each looked up once per distinct block."""
        caches = self._block_support
        keys = self._unpack(m.to_bytes(self._block_bytes_total, "little"))
        values = list(map(dict.get, caches, keys))
        if None in values:
            for k, v in enumerate(values):
                if v is None:
                    key = keys[k]
                    v = self._block(k, key)
                    if len(caches[k]) < _CACHED:
                        caches[k][key] = v
                    values[k] = v
        bits = reduce(_or, values) if len(values) > 1 else values[0]
        # direction d at bits d*P and up (the bits above stay: a set ANDed with it drops them)
        p = self.p
        if self.directions == 4:
            s = (bits, bits >> p, bits >> 2 * p, bits >> 3 * p)
        else:
            s = tuple(bits >> (d * p) for d in range(self.directions))
        if len(self._support) < _CACHED:
            self._support[m] = s
        return s

    def _block(self, k, key):
        """The support of the patterns ``key`` (a 64-bit integer) of block ``k``: the union of its
        two 32-pattern halves, each cached too (sets that differ in one half share the other)."""
        halves = self._half_support
        lo, hi = key & 0xFFFFFFFF, key >> 32
        v = halves[2 * k].get(lo) if lo else 0
        if v is None:
            v = self._half(2 * k, lo)
        if hi:
            w = halves[2 * k + 1].get(hi)
            v |= self._half(2 * k + 1, hi) if w is None else w
        return v

    def _half(self, h, key):
        """The support of the patterns ``key`` of half-block ``h`` (patterns 32h .. 32h + 31), cached."""
        if key.bit_count() <= 6:  # a few patterns: their own rows
            rows, v, rest, base = self.support_rows, 0, key, (h << 5) - 1
            while rest:
                low = rest & -rest
                v |= rows[base + low.bit_length()]
                rest ^= low
        else:
            tables = self._half_tables[h]
            if tables is None:  # the half's byte tables (none past P: empty tables)
                tables = _byte_tables(self.support_rows[32 * h : 32 * h + 32], int.__or__, 0)
                tables += [[0] * 256 for _ in range(4 - len(tables))]
                self._half_tables[h] = tables
            v = reduce(_or, map(_item, tables, key.to_bytes(4, "little")))
        cache = self._half_support[h]
        if len(cache) < _CACHED:
            cache[key] = v
        return v

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
            data = m.to_bytes(self.nbytes, "little")
            sw = sum(map(_item, self._w_bytes, data))
            swl = sum(map(_item, self._wlogw_bytes, data))
            e = math.log(sw) - swl / (sw * _FIXED)
            if len(self._entropy) < _CACHED:
                self._entropy[m] = e
        return e

    def pick(self, m, u):
        """The pattern of ``m`` that a uniform ``u`` in [0, 1) picks, by (integer) weight: the
        first whose running sum of weights (in pattern order) exceeds ``u`` times their total."""
        got = self._picks.get(m)
        if got is None:
            w, ids, sums, acc = self.weights, [], [], 0
            rest = m
            while rest:
                low = rest & -rest
                i = low.bit_length() - 1
                ids.append(i)
                acc += w[i]
                sums.append(acc)
                rest ^= low
            got = (ids, sums)
            if len(self._picks) < _CACHED:
                self._picks[m] = got
        ids, sums = got
        k = bisect_right(sums, u * sums[-1])
        return ids[k] if k < len(ids) else ids[-1]

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
    """One attempt's state: the wave, its undo log, the entropies and the decided count.

    ``wave`` holds one more set than there are cells: an empty set standing for "no neighbour"
    (the neighbour lists point off a bounded grid to it), which no support can narrow.
    ``current`` (a list) and ``entropy`` (an array, for ``argmin``) hold each cell's entropy plus
    its noise (inf when decided); cells whose set changed wait in ``dirty`` until :meth:`refresh`."""

    def __init__(self, rules, nbrs, wave, noise, constraints, consistent=True):
        self.rules, self.nbrs, self.noise = rules, nbrs, noise
        self.n = len(wave)
        self.wave = wave + [0]
        # each cell's set when its neighbours were last narrowed by it; a wave not yet propagated
        # gets sets with 16 extra bits (never "a few patterns lost")
        self.seen = list(self.wave) if consistent else [rules.full | 0xFFFF << rules.p] * len(self.wave)
        self.log = []
        self.constraints = constraints
        self.reason = None
        self.mirror = None
        if constraints:
            self.mirror = np.stack([rules.row(m) for m in wave]) if wave else np.zeros((0, rules.p), bool)
            self.view = self.mirror.view()
            self.view.flags.writeable = False
        self.current = [math.inf] * self.n
        self.entropy = np.full(self.n, np.inf)  # the same values, for argmin
        self.decided = self.n  # every cell counts as decided until refresh() sees its set
        self.dirty = list(range(self.n))  # cells whose entropy is out of date

    def narrow(self, c, new):
        """Set cell ``c`` to ``new`` (a proper subset of its set), logged."""
        self.log.append((c, self.wave[c]))
        self.wave[c] = new
        self.dirty.append(c)
        if self.mirror is not None:
            self.mirror[c] = self.rules.row(new)

    def propagate(self, cells):
        """Narrow the neighbours of ``cells`` until nothing changes, breadth first (a cell that
        changes several times in one round is visited once): the cell that ran out of
        patterns, or -1."""
        wave, nbrs, dirty, mirror = self.wave, self.nbrs, self.dirty, self.mirror
        rules = self.rules
        cached, support = rules.cached_support, rules.look_up
        logged = self.log.append
        level = cells
        four, seen, classes = rules.directions == 4, self.seen, rules.classes
        while level:
            changed = []
            append = changed.append
            for c in level:
                m = wave[c]
                if four:  # unrolled: the grid's four neighbours
                    s = cached(m)
                    if s is None:
                        lost = seen[c] & ~m
                        if classes is not None and lost.bit_count() <= _FEW:
                            # a few patterns gone: the neighbours of the classes m no longer meets
                            k0 = k1 = k2 = k3 = 0
                            while lost:
                                low = lost & -lost
                                lost ^= low
                                a0, a1, a2, a3, b0, b1, b2, b3 = classes[low.bit_length() - 1]
                                if not m & a0:
                                    k0 |= b0
                                if not m & a1:
                                    k1 |= b1
                                if not m & a2:
                                    k2 |= b2
                                if not m & a3:
                                    k3 |= b3
                            s = (~k0, ~k1, ~k2, ~k3)
                        else:
                            s = support(m)
                    seen[c] = m
                    s0, s1, s2, s3 = s
                    t0, t1, t2, t3 = nbrs[c]
                    old = wave[t0]
                    new = old & s0
                    if new != old:
                        if not new:
                            dirty += changed
                            return t0
                        logged((t0, old))
                        wave[t0] = new
                        append(t0)
                    old = wave[t1]
                    new = old & s1
                    if new != old:
                        if not new:
                            dirty += changed
                            return t1
                        logged((t1, old))
                        wave[t1] = new
                        append(t1)
                    old = wave[t2]
                    new = old & s2
                    if new != old:
                        if not new:
                            dirty += changed
                            return t2
                        logged((t2, old))
                        wave[t2] = new
                        append(t2)
                    old = wave[t3]
                    new = old & s3
                    if new != old:
                        if not new:
                            dirty += changed
                            return t3
                        logged((t3, old))
                        wave[t3] = new
                        append(t3)
                else:
                    for t, s in zip(nbrs[c], cached(m) or support(m)):
                        old = wave[t]
                        new = old & s
                        if new != old:
                            if not new:
                                dirty += changed
                                return t
                            logged((t, old))
                            wave[t] = new
                            append(t)
            level = list(dict.fromkeys(changed)) if len(changed) > 1 else changed
            dirty += level
            if mirror is not None:
                row = rules.row
                for t in level:
                    mirror[t] = row(wave[t])
        return self.revise() if self.constraints else -1

    def revise(self):
        """Let the constraints narrow the wave (propagating what they narrow) until they all
        accept it: the failing cell, or -1."""
        changed = bool(self.constraints)
        while changed:
            changed = False
            for constraint in self.constraints:
                if self.dirty:
                    self.refresh()
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
        """Restore every set changed since the log held ``mark`` entries."""
        wave, log, rules, mirror = self.wave, self.log, self.rules, self.mirror
        undone = log[mark:]
        del log[mark:]
        for c, old in reversed(undone):
            wave[c] = old
        cells = [c for c, _ in undone]
        self.dirty += cells
        seen = self.seen  # the state at the mark was consistent: every neighbour fits every set
        for c in cells:
            seen[c] = wave[c]
        if mirror is not None:
            for c in cells:
                mirror[c] = rules.row(wave[c])

    def refresh(self):
        """Bring the entropies (and the decided count) of the changed cells up to date."""
        dirty, wave, noise, current = self.dirty, self.wave, self.noise, self.current
        inf = math.inf
        decided = self.decided
        if len(dirty) > 24:  # many: one numpy pass
            cells = list(dict.fromkeys(dirty))
            undecided = [c for c in cells if wave[c] & (wave[c] - 1)]
            for c in cells:
                if current[c] != inf:
                    decided += 1
                    current[c] = inf
            values = self.rules.entropies([wave[c] for c in undecided]) if undecided else []
            for e, c in zip(values, undecided):
                current[c] = e + noise[c]
            decided -= len(undecided)
            self.entropy[cells] = [current[c] for c in cells]
        elif dirty:  # a few: one by one, cached per set
            entropy, array = self.rules.entropy, self.entropy
            for c in dirty:
                m = wave[c]
                if m & (m - 1):
                    e = entropy(m) + noise[c]
                    was = current[c]
                    if e != was:
                        if was == inf:
                            decided -= 1
                        current[c] = array[c] = e
                elif current[c] != inf:
                    current[c] = array[c] = inf
                    decided += 1
        dirty.clear()
        self.decided = decided

    def lowest(self):
        """The undecided cell of lowest entropy (with its tie-break noise), or -1 when all are decided."""
        if self.dirty:
            self.refresh()
        if self.decided == self.n:
            return -1
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
    state = _Search(rules, nbrs, wave0, [0.0] * n, constraints, consistent=False)
    uniform = allowed is None and fixed is None
    empty = -1 if uniform else next((c for c, m in enumerate(wave0) if not m), -1)
    if empty >= 0:
        failed = empty
    elif uniform and not constraints and reduce(_or, rules.support_rows) == (1 << p * rules.directions) - 1:
        failed = -1  # every pattern has a neighbour every way: the full start wave is already consistent
    else:
        failed = state.propagate(list(range(n)))
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
    wave0 = state.wave[:n]
    every = max(1, n // 100)
    for k in range(attempts):
        rng = np.random.default_rng(seed + k)
        noise = (rng.random(n) * 1e-6).tolist()  # seeded tie-break among equal entropies
        state = _Search(rules, nbrs, list(wave0), noise, constraints)
        outcome = yield from _attempt(state, rng, backtrack_limit, every, f"attempt {k + 1}")
        if isinstance(outcome, int):
            indices = np.array([m.bit_length() - 1 for m in state.wave[:n]], np.int32)
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
    pick, lowest, narrow, propagate = state.rules.pick, state.lowest, state.narrow, state.propagate
    wave, log = state.wave, state.log
    stack = []  # (log mark, cell, pattern)
    backtracks = observed = 0
    randoms, used = rng.random(state.n + 64).tolist(), 0
    while True:
        cell = lowest()
        if cell < 0:
            return backtracks
        observed += 1
        if observed % every == 0:
            yield state.decided, state.n, label
        if used == len(randoms):
            randoms, used = rng.random(state.n + 64).tolist(), 0
        pattern = pick(wave[cell], randoms[used])
        used += 1
        stack.append((len(log), cell, pattern))
        state.reason = None
        narrow(cell, 1 << pattern)
        failed = propagate([cell])
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
