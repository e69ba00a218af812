"""The output cells ("nodes") WFC constraints speak about, read from the solver's wave, and the
vectorised labelling of their connected regions (see :mod:`._constraints` for how a bounded
overlapping output's nodes read the last patterns' windows)."""

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from .._union import join_roots
from ..errors import ParameterError, short

#: What a constraint's ``revise`` removes from the wave: the cells changed and their new masks.
Change: TypeAlias = tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]

__all__ = ["Nodes", "components", "check_size", "merge_changes", "WORD_PATTERNS"]

#: Up to this many patterns the wave is read as words of 8 bools, beyond it by matrix products.
WORD_PATTERNS = 64


def components(
    mask: npt.NDArray[np.bool_], a: npt.NDArray[np.int64], b: npt.NDArray[np.int64], *, row: int = 1
) -> npt.NDArray[np.int64]:
    """Connected components of the nodes where ``mask`` holds.

    Nodes ``i`` and ``i + 1`` of one row (rows of ``row`` consecutive nodes) are linked; the
    edges ``a[k] -- b[k]`` add the others (between rows, layers, across periodic edges). Returns
    ``(V,)`` int64 labels, equal for the nodes of one component, -1 off ``mask``.

    Vectorised: the runs of masked nodes along rows are the units; along every edge whose runs'
    roots differ the larger root is hooked on the smaller, then pointers jump to the roots. Every
    tree with an edge out merges each round, so there are about log2(runs) rounds.

    >>> mask = np.array([[1, 1, 0, 1], [0, 1, 0, 1], [1, 0, 0, 1]], bool).ravel()
    >>> a = np.arange(8)  # vertical edges of the 3 x 4 grid
    >>> components(mask, a, a + 4, row=4).reshape(3, 4).tolist()
    [[0, 0, -1, 1], [-1, 0, -1, 1], [4, -1, -1, 1]]
    """
    start = mask.copy()
    start[1:] &= ~mask[:-1]
    start[::row] = mask[::row]
    run = np.cumsum(start) - 1
    keep = mask[a] & mask[b]
    ra, rb = run[a[keep]], run[b[keep]]
    if ra.size:  # neighbouring edges between the same two runs are one
        fresh = np.ones(ra.size, bool)
        fresh[1:] = (ra[1:] != ra[:-1]) | (rb[1:] != rb[:-1])
        ra, rb = ra[fresh], rb[fresh]
    parent = join_roots(np.arange(int(run[-1]) + 1 if run.size else 0, dtype=np.int64), ra, rb)
    return np.where(mask, parent[np.maximum(run, 0)] if parent.size else 0, -1)


def check_size(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ParameterError(f"{name} must be an integer >= 1, got {short(value)}")
    return int(value)


class Nodes:
    """The output cells a constraint speaks about, and how they read the wave.

    ``table`` is the per-pattern value array, ``(P,)`` (one node per solver cell) or ``(P, n, n)``
    (a bounded overlapping output of ``(height + n - 1) x (width + n - 1)`` nodes). Nodes are
    numbered ``(z * node_height + y) * node_width + x``.
    """

    def __init__(self, table: npt.NDArray[Any], width: int, height: int, depth: int, periodic: bool, what: str) -> None:
        self.width = check_size(width, "width")
        self.height = check_size(height, "height")
        self.depth = check_size(depth, "depth")
        table = np.asarray(table)
        self.cells = self.width * self.height * self.depth
        if table.ndim == 1:
            n = 1
        elif table.ndim == 3 and table.shape[1] == table.shape[2] >= 1:
            n = table.shape[1]
            if n > 1 and (periodic or self.depth > 1):
                raise ParameterError(
                    f"{what} as (P, n, n) windows is for a bounded 2-D output, got periodic={periodic}, depth={depth}"
                )
        else:
            raise ParameterError(f"{what} must be a (P,) or (P, n, n) array, got shape {table.shape}")
        self.patterns = table.shape[0]
        self.n = n
        self.plain = n == 1
        self.node_width, self.node_height = self.width + n - 1, self.height + n - 1
        self.size = self.node_width * self.node_height * self.depth
        if self.plain:
            self.node_cell = np.arange(self.cells)
            self.node_kind = np.zeros(self.cells, np.int64)
            self.kinds: list[tuple[Any, Any]] = [(slice(None), slice(None))]
            self.values = table.reshape(1, -1)  # (K, P)
        else:
            oy, ox = np.divmod(np.arange(self.size), self.node_width)
            cx, cy = np.minimum(ox, self.width - 1), np.minimum(oy, self.height - 1)
            self.node_cell = cy * self.width + cx
            self.node_kind = (oy - cy) * n + (ox - cx)
            self.kinds = []
            for k in np.unique(self.node_kind):
                nodes = np.flatnonzero(self.node_kind == k)
                self.kinds.append((nodes, self.node_cell[nodes]))
            self.values = table.reshape(self.patterns, n * n).T  # (K, P): offset dy * n + dx
        self.a, self.b = self._edges(periodic and self.plain)
        self.nbr = self._neighbours(periodic and self.plain)
        self.periodic = periodic and self.plain
        self.shape = (self.depth, self.node_height, self.node_width)
        self._buffer: npt.NDArray[np.bool_] | None = None
        self._local: dict[tuple[int, ...], tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = {}

    def _edges(self, periodic: bool) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Node pairs ``(a, b)`` of the 4-neighbourhood (6 with depth) but the links along rows,
        which :func:`components` makes itself; periodic wraps x and y."""
        idx = np.arange(self.size).reshape(self.depth, self.node_height, self.node_width)
        pairs = [(idx[:, :-1], idx[:, 1:]), (idx[:-1], idx[1:])]
        if periodic:
            pairs += [(idx[:, :, -1], idx[:, :, 0]), (idx[:, -1], idx[:, 0])]
        a = np.concatenate([p.ravel() for p, _ in pairs])
        b = np.concatenate([q.ravel() for _, q in pairs])
        return a, b

    def _neighbours(self, periodic: bool) -> npt.NDArray[np.int64]:
        """(size, 4 or 6) neighbour of each node per direction (the node itself off the grid)."""
        shape = (self.depth, self.node_height, self.node_width)
        idx = np.arange(self.size).reshape(shape)
        out = []
        for axis in (2, 1, 0)[: 3 if self.depth > 1 else 2]:
            for step in (1, -1):
                moved = np.roll(idx, -step, axis=axis)
                if not (periodic and axis > 0):
                    edge: list[slice | int] = [slice(None)] * 3
                    edge[axis] = -1 if step == 1 else 0
                    moved[tuple(edge)] = idx[tuple(edge)]
                out.append(moved.ravel())
        return np.stack(out, axis=1)

    def xy(self, node: int | np.integer[Any]) -> tuple[int, ...]:
        """(x, y) or (x, y, z) of a node, for messages."""
        z, rest = divmod(int(node), self.node_width * self.node_height)
        y, x = divmod(rest, self.node_width)
        return (x, y) if self.depth == 1 else (x, y, z)

    def node(self, point: Sequence[int], name: str) -> int:
        """Node index of an (x, y) or (x, y, z) point; refuses points off the output."""
        try:
            coords = [int(v) for v in point]
            if len(coords) == 2:
                coords.append(0)
            if len(coords) != 3 or any(int(v) != v for v in point):
                raise ValueError
        except (TypeError, ValueError):
            raise ParameterError(f"{name} must hold (x, y) pairs of integers, got {short(point)}") from None
        x, y, z = coords
        if not (0 <= x < self.node_width and 0 <= y < self.node_height and 0 <= z < self.depth):
            raise ParameterError(
                f"{name} must be cells of the {self.node_width} x {self.node_height} output"
                f" (0 <= x < {self.node_width}, 0 <= y < {self.node_height}), got {short(tuple(point))}"
            )
        return (z * self.node_height + y) * self.node_width + x

    def read(self, wave: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.uint64] | None]:
        """The wave ready for :meth:`hits`: with up to ``WORD_PATTERNS`` patterns also its rows as
        (cells, W) uint64 words of 8 bools each (padded with False)."""
        p = wave.shape[1]
        if p > WORD_PATTERNS:
            return wave, None
        if p % 8 == 0 and wave.flags.c_contiguous:
            return wave, wave.view(np.uint64)
        if self._buffer is None or self._buffer.shape[0] != wave.shape[0]:
            self._buffer = np.zeros((wave.shape[0], -(-p // 8) * 8), bool)
        self._buffer[:, :p] = wave
        return wave, self._buffer.view(np.uint64)

    @staticmethod
    def masks(masks: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.uint64]]:
        """(K, P) bool masks with their (K, W) uint64 words, for :meth:`hits`."""
        k, p = masks.shape
        padded = np.zeros((k, -(-p // 8) * 8), bool)
        padded[:, :p] = masks
        return masks, padded.view(np.uint64)

    def hits(
        self,
        read: tuple[npt.NDArray[np.bool_], npt.NDArray[np.uint64] | None],
        masks: tuple[npt.NDArray[np.bool_], npt.NDArray[np.uint64]],
    ) -> npt.NDArray[np.bool_]:
        """(size,) bool: the node's cell still holds a pattern of its kind's mask (``read`` from
        :meth:`read`, ``masks`` from :meth:`masks`). Few patterns: AND the words and OR them one
        column at a time (numpy's reductions along a short last axis are slow); many: a boolean
        matrix-vector product."""
        if self.plain:
            return self._hits(read[0], read[1], masks[0][0], masks[1][0])
        out = np.empty(self.size, bool)
        for k, (nodes, cells) in enumerate(self.kinds):
            words = None if read[1] is None else read[1][cells]
            out[nodes] = self._hits(read[0][cells], words, masks[0][k], masks[1][k])
        return out

    @staticmethod
    def _hits(
        wave: npt.NDArray[np.bool_],
        words: npt.NDArray[np.uint64] | None,
        mask: npt.NDArray[np.bool_],
        mask_words: npt.NDArray[np.uint64],
    ) -> npt.NDArray[np.bool_]:
        if words is None:
            return np.dot(wave, mask)
        acc = None
        for j in np.flatnonzero(mask_words):
            part = words[:, j] & mask_words[j]
            acc = part if acc is None else np.bitwise_or(acc, part, out=acc)
        return np.zeros(words.shape[0], bool) if acc is None else acc != 0

    def box(self, nodes: npt.NDArray[np.int64], margin: int) -> tuple[tuple[slice, ...], bool]:
        """Slices (z, y, x) of the bounding box of ``nodes`` (indices) grown by ``margin``, clipped
        to the node grid, and whether it reaches the grid's edge."""
        z, rest = np.divmod(nodes, self.node_width * self.node_height)
        y, x = np.divmod(rest, self.node_width)
        box, edge = [], False
        for values, size in ((z, self.depth), (y, self.node_height), (x, self.node_width)):
            low, high = int(values.min()) - margin, int(values.max()) + margin + 1
            edge |= (low <= 0 or high >= size) and size > 1
            box.append(slice(max(low, 0), min(high, size)))
        return tuple(box), edge

    def local_edges(self, shape: tuple[int, ...]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Edges ``(a, b)`` between rows and layers of a (depth, height, width) crop (as :attr:`a`, :attr:`b`)."""
        found = self._local.get(shape)
        if found is None:
            idx = np.arange(int(np.prod(shape))).reshape(shape)
            a = np.concatenate([idx[:, :-1].ravel(), idx[:-1].ravel()])
            b = np.concatenate([idx[:, 1:].ravel(), idx[1:].ravel()])
            found = self._local[shape] = (a, b)
        return found

    @staticmethod
    def grow(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """A (depth, height, width) mask grown one step along the axes (nothing comes in from outside)."""
        out = mask.copy()
        for axis in range(3):
            if mask.shape[axis] > 1:
                low = [slice(None)] * 3
                high = [slice(None)] * 3
                low[axis], high[axis] = slice(None, -1), slice(1, None)
                out[tuple(low)] |= mask[tuple(high)]
                out[tuple(high)] |= mask[tuple(low)]
        return out

    def dilate(self, mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """``mask`` grown by one step along the edges."""
        out = mask.copy()
        for column in self.nbr.T:
            out |= mask[column]
        return out

    def restrict(
        self, wave: npt.NDArray[np.bool_], nodes: npt.NDArray[np.int64], keep: npt.NDArray[np.bool_]
    ) -> Change | None:
        """``(cells, rows)`` of the cells whose row changes when node ``nodes[i]`` keeps only the
        patterns ``keep[i]`` (several nodes of one cell: the rows meet); None when nothing changes."""
        if nodes.size == 0:
            return None
        cells = self.node_cell[nodes]
        rows = wave[cells] & keep
        if not self.plain:
            order = np.argsort(cells, kind="stable")
            cells, rows = cells[order], rows[order]
            first = np.ones(cells.size, bool)
            first[1:] = cells[1:] != cells[:-1]
            starts = np.flatnonzero(first)
            cells, rows = cells[starts], np.logical_and.reduceat(rows, starts, axis=0)
        changed = (rows != wave[cells]).any(1)
        if not changed.any():
            return None
        return cells[changed], rows[changed]


def merge_changes(*changes: Change | None) -> Change | None:
    """One ``(cells, rows)`` from several (rows of one cell meet), or None."""
    present = [c for c in changes if c is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    cells = np.concatenate([c for c, _ in present])
    rows = np.concatenate([r for _, r in present])
    order = np.argsort(cells, kind="stable")
    cells, rows = cells[order], rows[order]
    first = np.ones(cells.size, bool)
    first[1:] = cells[1:] != cells[:-1]
    starts = np.flatnonzero(first)
    return cells[starts], np.logical_and.reduceat(rows, starts, axis=0)
