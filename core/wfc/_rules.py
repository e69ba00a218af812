"""The rules of one solve as the search uses them: packed pattern sets and their supports, entropies, picks.

A set of patterns is one Python integer of P bits (bit p = pattern p). A set's *support* is, per
direction, the patterns it allows next to it (the union of its patterns' compatibility rows);
the search uses its complement, the set's *kills*: the AND of one table entry per byte of the set
(256 complements of unions per byte), cached per set. Entropies come from exact integer sums
(weights to 7 significant digits, ``w log w`` in fixed point), so they do not depend on the order
of the sums.
"""

from bisect import bisect_right
from collections.abc import Sequence
from functools import reduce
from operator import and_ as _and
from operator import getitem as _item
from operator import or_ as _or
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import exact

__all__ = ["Rules", "pack"]


def _byte_tables(rows: Sequence[int], everything: int) -> list[list[int]]:
    """Per byte j of a pattern set, the 256 complements (in ``everything``, all ones) of the
    unions of ``rows[8j .. 8j + 7]`` (Python integers): entry ``b`` is the AND of the complements
    of the rows of the set bits of ``b`` (built by doubling: the entries with bit k set are those
    without it, ANDed with row k's complement); entry 0 is ``everything``."""
    tables = []
    for j in range(0, len(rows), 8):
        table = [everything]
        for row in rows[j : j + 8]:
            other = everything ^ row
            table += [t & other for t in table]
        tables.append(table + [everything] * (256 - len(table)))
    return tables


def pack(rows: npt.NDArray[np.bool_]) -> list[int]:
    """(k, P) bool rows -> k Python integers (bit p = pattern p)."""
    rows = np.asarray(rows, bool)
    packed = np.packbits(rows, axis=1, bitorder="little")
    width = packed.shape[1]
    data = packed.tobytes()
    return [int.from_bytes(data[i * width : (i + 1) * width], "little") for i in range(rows.shape[0])]


#: The most pattern sets whose supports (entropies, picks, rows) are kept.
_CACHED = 50_000
#: The largest integer weight, and the fixed-point unit of ``w log w``.
_WEIGHT_UNIT = 2**24
_FIXED = 2**16


def _classes(compatible: npt.NDArray[np.bool_]) -> list[tuple[int, ...]] | None:
    """Per pattern, for a 4-way table whose patterns fall into classes per direction (patterns
    with the same neighbours that way; different classes share no neighbour, as with sockets or
    overlaps): (its class's members, its neighbours) per direction as 8 integers; else None.

    Then a set's support that way is the disjoint union of its classes' neighbours, so a set that
    lost a few patterns loses exactly the neighbours of the classes it no longer meets."""
    nbr = [pack(compatible[d]) for d in range(4)]
    members = []
    for rows in nbr:
        groups: dict[int, int] = {}
        for i, row in enumerate(rows):
            groups[row] = groups.get(row, 0) | 1 << i
        if sum(row.bit_count() for row in groups) != reduce(_or, groups).bit_count():
            return None  # two classes share a neighbour
        members.append([groups[row] for row in rows])
    return list(zip(*members, *nbr))


class Rules:
    """What a run needs from the weights and compatibility tables, with per-set caches."""

    def __init__(self, weights: npt.NDArray[np.float64], compatible: npt.NDArray[np.bool_]) -> None:
        p = weights.size
        self.p, self.directions = p, compatible.shape[0]
        self.nbytes = (p + 7) // 8
        self.full = (1 << p) - 1
        # integer weights (7 significant digits) and fixed-point w log w: sums exact in any order
        iw = np.maximum(1, np.rint(weights * (_WEIGHT_UNIT / weights.max()))).astype(np.int64)
        self.weights = iw.tolist()
        wlogw = [round(w * exact.log(float(w)) * _FIXED) for w in self.weights]
        bits = (np.arange(256)[:, None] >> np.arange(8)) & 1  # (256, 8)
        per_byte = np.zeros((self.nbytes * 8, 2), np.int64)
        per_byte[:p, 0], per_byte[:p, 1] = iw, wlogw
        per_byte = per_byte.reshape(self.nbytes, 8, 2)
        # per byte of a set and value of the byte: the sums of w and of w log w of its patterns (exact)
        sums = np.stack([per_byte[:, :, 0] @ bits.T, per_byte[:, :, 1] @ bits.T])  # (2, nbytes, 256) int64
        self._w_bytes, self._wlogw_bytes = sums.tolist()  # as Python integers, for entropy()
        # flat, for entropies(): entry 256 j + b; the weights' one with the pattern count in its low bits
        counts = np.broadcast_to(bits.sum(1), (self.nbytes, 256))
        self._count_bits = p.bit_length()  # a set's pattern count fits below them
        self._flat_wc = ((sums[0] << self._count_bits) + counts).ravel()
        self._flat_wlogw = sums[1].ravel()
        self._byte_offsets = np.arange(self.nbytes, dtype=np.intp) * 256
        self._entropy: dict[int, float] = {}
        self._picks: dict[int, Any] = {}
        # one integer per pattern: its support in every direction, direction d at bits d*P
        rows = pack(compatible.transpose(1, 0, 2).reshape(p, self.directions * p))
        self.support_rows = rows
        self.classes = _classes(compatible) if self.directions == 4 else None
        self._tables: list[list[int]] | None = (
            None  # per byte of a set, the supports of its 256 values (built when first needed)
        )
        self._kills: dict[int, tuple[int, ...]] = {}
        self.cached_kills = self._kills.get  # a set's kills() if already made, else None
        self._rows: dict[int, npt.NDArray[np.bool_]] = {}

    def support(self, m: int) -> tuple[int, ...]:
        """Per direction, the set of patterns that ``m`` allows next to it."""
        return tuple(k & self.full ^ self.full for k in self._kills.get(m) or self.kills(m))

    def kills(self, m: int) -> tuple[int, ...]:
        """Per direction, the patterns that ``m`` rules out next to it (the complement of its
        support; ANDed with a set, the set's patterns to drop), each direction's with the bits of
        the later directions above it (a set below ``2**P`` ANDed with it drops them), cached per
        set: the AND of the complements of the supports of the set's bytes, one table look-up per
        byte (the tables built at the first call)."""
        tables = self._tables
        if tables is None:
            everything = (1 << self.p * self.directions) - 1
            tables = self._tables = _byte_tables(self.support_rows, everything)
        bits = reduce(_and, map(_item, tables, m.to_bytes(self.nbytes, "little")))
        p = self.p  # direction d at bits d*P
        k: tuple[int, ...]
        if self.directions == 4:
            k = (bits, bits >> p, bits >> 2 * p, bits >> 3 * p)
        else:
            k = tuple(bits >> (d * p) for d in range(self.directions))
        if len(self._kills) < _CACHED:
            self._kills[m] = k
        return k

    def entropies(self, masks: Sequence[int]) -> npt.NDArray[np.float64]:
        """Shannon entropy of each weighted set of ``masks`` (a list of non-empty integers) as a
        float64 array, inf for a set of one pattern: exact integer sums of the weights and of the
        fixed-point ``w log w`` per byte, gathered in one numpy pass; then the log of the weight
        sum (core.exact's: neither numpy's nor the C library's log gives the same digits on every
        machine) less the quotient of the sums as floats, the same operations as :meth:`entropy`,
        so the same values."""
        nb = self.nbytes
        data = b"".join([m.to_bytes(nb, "little") for m in masks])
        index = np.frombuffer(data, np.uint8).reshape(len(masks), nb) + self._byte_offsets
        counted = self._flat_wc[index].sum(1)  # the sum of w, shifted, and the pattern count
        sw = counted >> self._count_bits
        logs = exact.log(sw.astype(np.float64))  # weight sums below 2**53: exact as floats
        out = logs - self._flat_wlogw[index].sum(1).astype(np.float64) / (sw * _FIXED).astype(np.float64)
        out[counted & ((1 << self._count_bits) - 1) == 1] = np.inf
        return out

    def entropy(self, m: int) -> float:
        """:meth:`entropies` of one set (the same value), cached per set."""
        e = self._entropy.get(m)
        if e is None:
            data = m.to_bytes(self.nbytes, "little")
            sw = sum(map(_item, self._w_bytes, data))
            swl = sum(map(_item, self._wlogw_bytes, data))
            e = exact.log(float(sw)) - float(swl) / float(sw * _FIXED)
            if len(self._entropy) < _CACHED:
                self._entropy[m] = e
        return e

    def pick(self, m: int, u: float) -> int:
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

    def row(self, m: int) -> npt.NDArray[np.bool_]:
        """``m`` as a read-only (P,) bool row."""
        r: npt.NDArray[Any] | None = self._rows.get(m)
        if r is None:
            r = np.unpackbits(np.frombuffer(m.to_bytes(self.nbytes, "little"), np.uint8), bitorder="little")
            r = r[: self.p].astype(bool)
            r.flags.writeable = False
            if len(self._rows) < _CACHED:
                self._rows[m] = r
        return r
