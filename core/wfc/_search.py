"""One attempt's search state: the wave, arc-consistent propagation from changed cells, the undo log, entropies.

Propagation drops from the neighbours of the cells whose set shrank what the set rules out: its
*kills* (:class:`~._rules.Rules`), or, when it lost only a few patterns since it last narrowed
them, the neighbours of the classes it no longer meets. Only the cells that change are touched:
no Python pass over the whole grid per step. Propagation runs breadth first, so a cell that
changes several times in one round is visited once. Every change is logged (the cell, then its
old set), so a failed choice is undone exactly. The changed cells' entropies are refreshed in one
numpy pass (or one by one when few), plus a seeded tie-break noise, then one ``argmin`` (on a
large grid: over the minima of blocks of cells, each re-read only when one of its cells changed).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._contract import Unsatisfied
from ._rules import Rules, pack

if TYPE_CHECKING:
    from ._constraints import Constraint

__all__ = ["Search"]

#: Bytes of a pattern set per pattern it may have lost since it last narrowed its neighbours for
#: them to be narrowed by its classes (see ``Rules.classes``; a few operations per lost pattern)
#: rather than by its whole support (a look-up per byte): 0 lost for up to 55 patterns, 1 for
#: ~100 (flowers), 7 for 419 (town) - the fewest instructions (cachegrind) on those samples.
_BYTES_PER_LOST = 7
#: At most that many lost patterns (fewer than the 16 extra bits of a wave not yet propagated).
_FEW = 10
#: Sets of at most this many bytes (128 patterns) refresh their entropies one by one, however many
#: changed: their few distinct sets hit the per-set cache (dots 48^2 21 -> 15 ms, flowers 128^2
#: 727 -> 592 ms); larger ones take one numpy pass from 25 changed cells (rooms, 142 patterns:
#: 94 -> 78 ms at 48^2; town 684 -> 448 ms).
_CACHED_ENTROPY_BYTES = 16
#: Cells per block of the lowest-entropy search on large grids (a power of two): each block keeps
#: its least entropy, so finding the lowest cell reads the blocks' minima and one block, and a
#: change re-reads only its block (one ``argmin`` over a million cells per choice made a 1024^2
#: solve quadratic in its cells).
_BLOCK_BITS = 9
#: Grids of more cells than this search by blocks; smaller ones take one ``argmin``.
_BLOCKS_FROM = 8 << _BLOCK_BITS


class Search:
    """One attempt's state: the wave, its undo log, the entropies and the decided count.

    ``wave`` holds one more set than there are cells: an empty set standing for "no neighbour"
    (the neighbour lists point off a bounded grid to it), which no support can narrow.
    ``entropy`` (an array, for ``argmin``) holds each cell's entropy plus its noise (inf when
    decided); cells whose set changed wait in ``dirty`` until :meth:`refresh`."""

    def __init__(
        self,
        rules: Rules,
        nbrs: Sequence[tuple[int, ...]],
        wave: list[int],
        noise: Sequence[float],
        constraints: Sequence[Constraint],
        consistent: bool = True,
    ) -> None:
        self.rules, self.nbrs, self.noise = rules, nbrs, noise
        self.n = len(wave)
        self.wave = wave + [0]
        # each cell's set when its neighbours were last narrowed by it; a wave not yet propagated
        # gets sets with 16 extra bits (never "a few patterns lost")
        self.seen = list(self.wave) if consistent else [rules.full | 0xFFFF << rules.p] * len(self.wave)
        self.log: list[Any] = []
        self.constraints = constraints
        self.reason: str | None = None
        self.mirror = None
        if constraints:
            self.mirror = np.stack([rules.row(m) for m in wave]) if wave else np.zeros((0, rules.p), bool)
            self.view = self.mirror.view()
            self.view.flags.writeable = False
        self.noise_array = np.array(noise, np.float64)
        self.entropy = np.full(self.n, np.inf)  # for argmin
        # large grids: the least entropy of each block of 2**_BLOCK_BITS cells, and the blocks whose
        # cells changed since (None: small grids, one argmin over all)
        self.blocks: set[int] | None = None
        if self.n > _BLOCKS_FROM:
            count = -(-self.n // (1 << _BLOCK_BITS))
            padded = np.full(count << _BLOCK_BITS, np.inf)
            self.entropy = padded[: self.n]
            self.by_block = padded.reshape(count, 1 << _BLOCK_BITS)
            self.block_min = np.full(count, np.inf)
            self.blocks = set()
        self.decided = self.n  # every cell counts as decided until refresh() sees its set
        self.dirty = list(range(self.n))  # cells whose entropy is out of date
        # more changed cells than this take the numpy pass in refresh()
        self.many = 24 if rules.nbytes > _CACHED_ENTROPY_BYTES else math.inf
        # what propagate() reads, in one tuple (it runs once per choice: small grids feel its set-up)
        few = min(_FEW, rules.nbytes // _BYTES_PER_LOST)
        self._kit = (self.wave, nbrs, self.dirty, self.mirror, rules, self.log.append, self.seen, rules.classes, few)

    def narrow(self, c: int, new: int) -> None:
        """Set cell ``c`` to ``new`` (a proper subset of its set), logged."""
        self.log += (c, self.wave[c])
        self.wave[c] = new
        self.dirty.append(c)
        if self.mirror is not None:
            self.mirror[c] = self.rules.row(new)

    def propagate(self, cells: list[int]) -> int:
        """Narrow the neighbours of ``cells`` until nothing changes, breadth first (a cell that
        changes several times in one round is visited once): the cell that ran out of
        patterns, or -1."""
        wave, nbrs, dirty, mirror, rules, logged, seen, classes, few = self._kit
        cached, kills = rules.cached_kills, rules.kills
        four = rules.directions == 4
        level = cells
        while level:
            changed: list[int] = []
            append = changed.append
            for c in level:
                m = wave[c]
                if four:  # unrolled: the grid's four neighbours
                    k = cached(m)
                    if k is None:
                        lost = seen[c] & ~m
                        if classes is not None and lost.bit_count() <= few:
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
                        else:
                            k0, k1, k2, k3 = kills(m)
                    else:
                        k0, k1, k2, k3 = k
                    seen[c] = m
                    t0, t1, t2, t3 = nbrs[c]
                    if k0:
                        old = wave[t0]
                        drop = old & k0
                        if drop:
                            if drop == old:
                                dirty += changed
                                return t0
                            logged(t0)
                            logged(old)
                            wave[t0] = old ^ drop
                            append(t0)
                    if k1:
                        old = wave[t1]
                        drop = old & k1
                        if drop:
                            if drop == old:
                                dirty += changed
                                return t1
                            logged(t1)
                            logged(old)
                            wave[t1] = old ^ drop
                            append(t1)
                    if k2:
                        old = wave[t2]
                        drop = old & k2
                        if drop:
                            if drop == old:
                                dirty += changed
                                return t2
                            logged(t2)
                            logged(old)
                            wave[t2] = old ^ drop
                            append(t2)
                    if k3:
                        old = wave[t3]
                        drop = old & k3
                        if drop:
                            if drop == old:
                                dirty += changed
                                return t3
                            logged(t3)
                            logged(old)
                            wave[t3] = old ^ drop
                            append(t3)
                else:
                    for t, kill in zip(nbrs[c], cached(m) or kills(m)):
                        old = wave[t]
                        drop = old & kill
                        if drop:
                            if drop == old:
                                dirty += changed
                                return t
                            logged(t)
                            logged(old)
                            wave[t] = old ^ drop
                            append(t)
            level = list(dict.fromkeys(changed)) if len(changed) > 1 else changed
            dirty += level
            if mirror is not None:
                row = rules.row
                for t in level:
                    mirror[t] = row(wave[t])
        return self.revise() if self.constraints else -1

    def revise(self) -> int:
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
                for c, r in zip(np.asarray(cells, np.int64).tolist(), pack(rows)):
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

    def undo(self, mark: int) -> None:
        """Restore every set changed since the log held ``mark`` entries (cell, old set, cell, ...:
        flat, so no tuple per change for the garbage collector to track)."""
        wave, log, rules, mirror = self.wave, self.log, self.rules, self.mirror
        undone = list(zip(log[mark::2], log[mark + 1 :: 2]))
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

    def refresh(self) -> None:
        """Bring the entropies (and the decided count) of the changed cells up to date."""
        dirty, wave, array = self.dirty, self.wave, self.entropy
        if len(dirty) > self.many:  # many (of large sets): one numpy pass
            cells = np.fromiter(dict.fromkeys(dirty), np.int64)
            values = np.asarray(self.rules.entropies([wave[c] for c in cells.tolist()]), np.float64)
            values += self.noise_array[cells]  # inf stays inf
            # (finite before) - (finite now): cells newly decided, less cells undone
            self.decided += int(np.isfinite(array[cells]).sum() - np.isfinite(values).sum())
            array[cells] = values
            if self.blocks is not None:
                self.blocks.update(np.unique(cells >> _BLOCK_BITS).tolist())
        elif dirty:  # a few: one by one, cached per set
            entropy, noise, inf = self.rules.entropy, self.noise, math.inf
            decided = self.decided
            for c in dirty:
                m = wave[c]
                if m & (m - 1):
                    e = entropy(m) + noise[c]
                    if array[c] == inf:
                        decided -= 1
                    array[c] = e
                elif array[c] != inf:
                    array[c] = inf
                    decided += 1
            self.decided = decided
            if self.blocks is not None:
                self.blocks.update([c >> _BLOCK_BITS for c in dirty])
        dirty.clear()

    def lowest(self) -> int:
        """The undecided cell of lowest entropy (with its tie-break noise), or -1 when all are decided."""
        if self.dirty:
            self.refresh()
        if self.decided == self.n:
            return -1
        if self.blocks is None:
            return int(self.entropy.argmin())
        # the first block holding the least entropy, then its first cell holding it: argmin's cell
        by_block, block_min = self.by_block, self.block_min
        if self.blocks:
            changed = np.fromiter(self.blocks, np.int64, len(self.blocks))
            block_min[changed] = by_block[changed].min(1)
            self.blocks.clear()
        b = int(block_min.argmin())
        return (b << _BLOCK_BITS) + int(by_block[b].argmin())
