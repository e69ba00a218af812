"""Spawn and exit of a maze: the two ends of a longest path through the open sides of its maze cells."""

import numpy as np
import numpy.typing as npt

__all__ = ["tree_ends", "far_ends", "NORTH", "EAST", "SOUTH", "WEST", "RULER_BITS"]

#: Open sides of a maze cell (:func:`maze_cells`): north (row - 1), east, south, west.
NORTH, EAST, SOUTH, WEST = 1, 2, 4, 8

# _NEXT_SIDE[mask, side]: the next open side of a cell after ``side``, turning N -> E -> S -> W -> N
_NEXT_SIDE = np.array(
    [
        [next((side + k) % 4 for k in (1, 2, 3, 4) if mask >> ((side + k) % 4) & 1) if mask else 0 for side in range(4)]
        for mask in range(16)
    ],
    np.int64,
)


#: At most one arc in ``2 ** RULER_BITS`` is a ruler of the tour's list ranking (:func:`_tour_ranks`).
RULER_BITS = 6


def _tour_ranks(succ: npt.NDArray[np.int32], start: int) -> npt.NDArray[np.int32]:
    """Position of every arc on the cyclic list ``succ`` counted from ``start``: list ranking, vectorised.

    About one arc in ``2 ** bits`` (picked by a multiplicative hash of its index, so that no grid
    stride lines the picks up along a corridor) and ``start`` are rulers. All rulers walk forward
    together, one step per numpy pass, each labelling the arcs it passes with its own index and
    their distance from it, until it reaches the next ruler; then the short chain of rulers is
    ranked in a plain loop. Every arc is touched once: O(m) work in a few hundred passes. ``bits``
    grows with ``m`` up to :data:`RULER_BITS`, balancing the passes (about ``2 ** bits * ln m``)
    against the plain loop over the rulers.
    """
    m = succ.size
    bits = max(1, min(RULER_BITS, (int(m).bit_length() - 1) // 2 - 4))  # floor(log2 m), exactly
    ids = np.arange(m, dtype=np.int64)
    ruler = ((ids * 2654435761) & 0xFFFFFFFF) >> (32 - bits) == 0
    ruler[start] = True
    rulers = np.flatnonzero(ruler).astype(np.int32)
    k = rulers.size
    rid = np.zeros(m, np.int32)
    rid[rulers] = np.arange(k, dtype=np.int32)
    owner = np.empty(m, np.int32)
    offset = np.empty(m, np.int32)
    owner[rulers] = np.arange(k, dtype=np.int32)
    offset[rulers] = 0
    next_ruler = np.empty(k, np.int32)
    gap = np.empty(k, np.int32)
    cur = succ[rulers]
    who = np.arange(k, dtype=np.int32)
    step = 1
    while cur.size:
        hit = ruler[cur]
        if hit.any():
            next_ruler[who[hit]] = rid[cur[hit]]
            gap[who[hit]] = step
            keep = ~hit
            cur, who = cur[keep], who[keep]
        owner[cur] = who
        offset[cur] = step
        cur = succ[cur]
        step += 1
    base = [0] * k
    following, gaps = next_ruler.tolist(), gap.tolist()
    r, at = int(rid[start]), 0
    for _ in range(k):
        base[r] = at
        at += gaps[r]
        r = following[r]
    return np.array(base, np.int32)[owner] + offset


def tree_ends(sides: npt.NDArray[np.uint8]) -> tuple[int, int]:
    """Ends of the diameter of a tree maze: two sweeps of walking distance, exact on a tree.

    Both sweeps read one Euler tour of the tree (every passage walked once each way, turning to
    the next open side: a local rule, so the successor of every arc is one vectorised step; the
    tour's order comes from :func:`_tour_ranks`). Along the tour from maze cell 0, the depth of
    each visited cell is the running sum of +1 (a passage taken the first time) and -1; the first
    end ``a`` is the deepest cell. The distance from ``a`` to the cell at tour position ``p`` is
    ``E[a] + E[p] - 2 min(E between them)`` (the lowest point between two visits is their common
    ancestor), two running minima away from ``a``'s position; the second end is the farthest.
    """
    height, width = sides.shape
    n = width * height
    mask = sides.ravel()
    cells = [np.flatnonzero(mask & (1 << d)) for d in range(4)]
    v = np.concatenate(cells)
    d = np.repeat(np.arange(4), [c.size for c in cells])
    m = v.size
    arc_of = np.full(4 * n, -1, np.int32)
    arc_of[d * n + v] = np.arange(m, dtype=np.int32)
    u = v + np.array([-width, 1, width, -1])[d]
    back = (d + 2) & 3
    succ = arc_of[_NEXT_SIDE[mask[u], back] * n + u]
    rank = _tour_ranks(succ, int(arc_of[_NEXT_SIDE[mask[0], 3] * n]))
    sign = np.empty(m, np.int32)
    sign[rank] = np.where(rank < rank[arc_of[back * n + u]], 1, -1)
    depth = np.zeros(m + 1, np.int32)  # depth[p]: the cell after p steps of the tour (depth[0]: cell 0)
    np.cumsum(sign, out=depth[1:])
    pa = int(np.argmax(depth))
    low = np.empty(m + 1, np.int32)
    low[pa:] = np.minimum.accumulate(depth[pa:])
    low[: pa + 1] = np.minimum.accumulate(depth[pa::-1])[::-1]
    pb = int(np.argmax(depth - 2 * low))

    def cell_at(p: int) -> int:
        return 0 if p == 0 else int(u[np.flatnonzero(rank == p - 1)[0]])

    return cell_at(pa), cell_at(pb)


def far_ends(sides: npt.NDArray[np.uint8]) -> tuple[int, int]:
    """Two sweeps of breadth-first walking distance over the maze cells (any maze, with cycles)."""
    height, width = sides.shape
    n = width * height
    mask = sides.ravel().tolist()
    moves = ((NORTH, -width), (EAST, 1), (SOUTH, width), (WEST, -1))

    def farthest(start: int) -> int:
        seen = bytearray(n)
        seen[start] = 1
        queue = [start]
        for v in queue:
            bits = mask[v]
            for bit, step in moves:
                if bits & bit and not seen[v + step]:
                    seen[v + step] = 1
                    queue.append(v + step)
        return queue[-1]

    first = farthest(0)
    return first, farthest(first)
