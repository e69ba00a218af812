"""Mazes: recursive backtracker, randomized Prim, Kruskal, Wilson; loops, rooms, spawn and exit.

A maze of ``width`` x ``height`` *maze cells* lives on a ``(2 * height + 1, 2 * width + 1)`` grid of
level cells: maze cell ``(cx, cy)`` is grid cell ``(2 cx + 1, 2 cy + 1)`` (column, row; row 0 is
north), the grid cell between two neighbouring maze cells is floor when the passage between them
is open, and every grid cell with two even coordinates is a wall pillar (except inside rooms).

The steps of :func:`maze`, each from its own stream of ``np.random.default_rng(seed).spawn(3)``:

1. **Perfect maze** (a spanning tree of the maze cells) by ``algorithm``:

   - ``"dfs"``, the recursive backtracker: from a random cell, step to a uniformly random unvisited
     neighbour, back up when there is none (each cell tries its neighbours in one random order drawn
     in bulk: the first unvisited one in a uniform order is a uniform unvisited one). Long winding
     passages, about 10 % dead ends.
   - ``"prim"``, randomized Prim: a uniformly random frontier cell joins the maze through a uniformly
     random neighbour already in it. About 35 % dead ends.
   - ``"kruskal"``, randomized Kruskal: walls in a random order, each removed when its two cells are
     not yet connected. Computed as Boruvka rounds on the same random order (the minimum spanning
     tree of distinct weights is unique, so it is the very tree Kruskal's union-find keeps). About
     31 % dead ends.
   - ``"wilson"``: a uniform spanning tree by loop-erased random walks (every spanning tree equally
     likely). About 29 % dead ends (8 / pi^2 (1 - 2 / pi) = 0.2945 on the plane).

   DFS, Prim and most of Wilson are tight loops over bytearrays with the random numbers drawn in
   bulk; Prim's choice of neighbour, Kruskal, Wilson's long walks and everything after the tree are
   numpy passes. Every algorithm makes 1000 x 1000 maze cells in 0.7 to 1.7 s and 80 x 80 in 3 to
   7 ms on one core (``bench/bench_mazes.py``).

2. **Rooms** (``rooms = n``): the maze is cut into a grid of tiles of at least 3 x 3 maze cells;
   ``n`` random tiles each get a room of 2 to :data:`ROOM_MAX` maze cells a side (at least one maze
   cell of margin to the next tile), with every wall inside it removed. ``Level.rooms`` holds them as
   ``(x, y, w, h)`` in grid cells.
3. **Loops** (``loops = k``): exactly ``k`` more walls between two maze cells, chosen uniformly among
   the walls still closed, are removed: each makes one more cycle. A perfect maze has
   ``(width - 1) * (height - 1)`` closed walls; with rooms, :func:`check_settings` allows only the
   walls left in the worst case (every inner wall of every room, at the largest room size the tiles
   allow, counted as taken), since it runs before the rooms are drawn.
4. **Spawn and exit** at the two ends of a longest path, found by two sweeps of walking distance
   (farthest cell from maze cell (0, 0), then the farthest cell from that one). On a perfect maze
   (a tree) this is exact: the two ends of the tree's diameter. With loops or rooms the level is no
   tree, and two sweeps give a long path, not always a longest one.
"""

import itertools
from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt

from .._checks import Seed, make_rng
from ..errors import ParameterError
from ._fields import GENERATOR_KEYS, LIMITS
from ._level import FLOOR, WALL, Level, Marker
from ._maze_ends import EAST, NORTH, SOUTH, WEST, far_ends, tree_ends
from ._maze_rooms import MIN_SIDE, ROOM_MAX, check_settings, open_loops, open_rooms, place_rooms

__all__ = ["maze", "maze_cells", "check_settings", "ALGORITHMS", "DEFAULTS", "MIN_SIDE", "ROOM_MAX"]

#: The keyword settings of :func:`maze` and their defaults.
DEFAULTS = {"algorithm": "dfs", "loops": 0, "rooms": 0}
#: The maze algorithms, in the order of the recipe's choice.
ALGORITHMS = tuple(LIMITS["algorithm"].bounds)

assert tuple(DEFAULTS) == GENERATOR_KEYS["maze"]


# --- perfect mazes: each returns (horizontal, vertical) open passages ---------------------------------
# horizontal (h, w - 1) bool: between (cx, cy) and (cx + 1, cy); vertical (h - 1, w): (cx, cy) and (cx, cy + 1)


def _padded(width: int, height: int) -> npt.NDArray[np.uint8]:
    """A (height + 2, width + 2) uint8 board: 0 on the maze cells, 1 on the ring around them (callers scale it)."""
    board = np.ones((height + 2, width + 2), np.uint8)
    board[1:-1, 1:-1] = 0
    return board


def _passages_from_parents(
    width: int, height: int, child: npt.NDArray[np.int64], parent: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Open passages from tree edges given as padded indices ``child`` -> ``parent`` (int arrays)."""
    pw = width + 2
    lo = np.minimum(child, parent)
    cy, cx = lo // pw - 1, lo % pw - 1
    across = np.abs(parent - child) == 1
    horizontal = np.zeros((height, width - 1), bool)
    vertical = np.zeros((height - 1, width), bool)
    horizontal[cy[across], cx[across]] = True
    vertical[cy[~across], cx[~across]] = True
    return horizontal, vertical


def _dfs(width: int, height: int, rng: np.random.Generator) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Recursive backtracker over a padded bytearray (0 free, 1 visited or border)."""
    pw = width + 2
    taken = bytearray(_padded(width, height).tobytes())
    orders = list(itertools.permutations((-pw, 1, pw, -1)))
    order_of = bytes(rng.integers(0, len(orders), size=len(taken), dtype=np.uint8))
    start = (int(rng.integers(height)) + 1) * pw + int(rng.integers(width)) + 1
    parent = [0] * len(taken)
    taken[start] = 1
    stack = [start]
    push, pop = stack.append, stack.pop
    cell = start
    while True:
        for step in orders[order_of[cell]]:
            nxt = cell + step
            if not taken[nxt]:
                taken[nxt] = 1
                parent[nxt] = cell
                push(nxt)
                cell = nxt
                break
        else:
            pop()
            if not stack:
                break
            cell = stack[-1]
    return _tree_passages(width, height, np.array(parent, np.int64), start)


def _tree_passages(
    width: int, height: int, parent: npt.NDArray[np.int64], root: int
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Passages of a tree given as a padded parent array (0 outside the maze)."""
    pw = width + 2
    inner = (np.arange(1, height + 1)[:, None] * pw + np.arange(1, width + 1)).ravel()
    inner = inner[inner != root]
    return _passages_from_parents(width, height, inner, parent[inner])


def _prim(width: int, height: int, rng: np.random.Generator) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Randomized Prim: a uniformly random frontier cell joins through a uniformly random in-maze neighbour.

    The loop only orders the cells (a uniformly random frontier cell next, swapped out of the
    frontier list; board values: 0 unseen, 1 frontier or in the maze, 2 border). Which neighbour a
    cell joins through is then chosen for all cells at once: the neighbours added before it are
    exactly those in the maze when it joined.
    """
    pw = width + 2
    n = width * height
    seen = bytearray((_padded(width, height) * 2).tobytes())
    pick = rng.random(n).tolist()
    start = (int(rng.integers(height)) + 1) * pw + int(rng.integers(width)) + 1
    seen[start] = 1
    frontier: list[int] = []
    push, pop = frontier.append, frontier.pop
    for a in (start - pw, start + 1, start + pw, start - 1):
        if not seen[a]:
            seen[a] = 1
            push(a)
    order = [start] * n
    for k in range(1, n):
        j = int(pick[k] * len(frontier))
        v = frontier[j]
        last = pop()
        if j < len(frontier):
            frontier[j] = last
        order[k] = v
        a = v - pw
        if not seen[a]:
            seen[a] = 1
            push(a)
        a = v + 1
        if not seen[a]:
            seen[a] = 1
            push(a)
        a = v + pw
        if not seen[a]:
            seen[a] = 1
            push(a)
        a = v - 1
        if not seen[a]:
            seen[a] = 1
            push(a)
    joined = np.full(len(seen), n, np.int64)  # when each cell joined (border: never)
    cells = np.array(order, np.int64)
    joined[cells] = np.arange(n)
    cells = cells[1:]
    around = cells[:, None] + np.array([-pw, 1, pw, -1])
    earlier = joined[around] < joined[cells][:, None]
    choice = (rng.random(n - 1) * earlier.sum(1)).astype(np.int64)  # the choice-th earlier neighbour
    nth = np.cumsum(earlier, axis=1) - 1
    side = np.argmax(earlier & (nth == choice[:, None]), axis=1)
    return _passages_from_parents(width, height, cells, around[np.arange(n - 1), side])


#: Steps drawn at a time for the plain Wilson walks; a walk still going after it drew WALK_CHUNKS times
#: goes on in numpy.
WALK_CHUNK, WALK_CHUNKS = 4096, 3
#: First and largest piece of a long walk taken in one numpy pass.
SEGMENT = (4096, 1 << 16)
_DX = np.array([0, 1, 0, -1], np.int8)  # north, east, south, west
_DY = np.array([-1, 0, 1, 0], np.int8)


def _held(x0: int, step: npt.NDArray[np.int8], top: int) -> npt.NDArray[np.int64]:
    """``x0`` + running sum of ``step`` (-1, 0, 1) with every step that would leave [0, top] not taken.

    A walk held by one wall is the free walk lifted by how far its running minimum went below 0
    (or lowered by how far its running maximum went above ``top``); when a piece reaches both
    walls it is walked step by step.
    """
    s = np.cumsum(step, dtype=np.int64)
    s += x0
    if s.min() >= 0 and s.max() <= top:
        return s
    if s.min() < 0:
        out = s - np.minimum(np.minimum.accumulate(s), 0)
    else:
        out = s - np.maximum(np.maximum.accumulate(s - top), 0)
    if out.min() >= 0 and out.max() <= top:
        return out
    x = x0
    for i, d in enumerate(step.tolist()):
        x = min(max(x + d, 0), top)
        out[i] = x
    return out


class _LongWalks:
    """The numpy side of :func:`_wilson`: a walk in pieces of thousands of steps, one numpy pass each.

    A piece is drawn at once (direction per step), its x and y walks held inside the maze by
    :func:`_held` (a step into the outer wall is not taken: the same loop-erased walk as drawing it
    again), cut at the first cell in the tree. The last exit of every cell is kept with a step
    stamp (``np.maximum.at``: the latest departure wins), so exits of several pieces and of the
    plain part of the walk combine.
    """

    def __init__(self, width: int, height: int, state: bytearray) -> None:
        self.width, self.height, self.pw = width, height, width + 2
        self.tree = np.frombuffer(state, np.uint8)  # a view: sees the plain loop's writes
        self.exits = np.zeros(len(state), np.int64)
        self.stamp = np.full(len(state), -1, np.int64)
        self.clock = 0

    def walk(self, cell: int, rng: np.random.Generator) -> int:
        """Walk on from ``cell`` until the tree; returns the stamp before the first step."""
        pw, begin, piece = self.pw, self.clock, SEGMENT[0]
        x, y = cell % pw - 1, cell // pw - 1
        while True:
            d = rng.integers(0, 4, piece)
            xs = _held(x, _DX[d], self.width - 1)
            ys = _held(y, _DY[d], self.height - 1)
            path = np.empty(piece + 1, np.int64)
            path[0] = (y + 1) * pw + x + 1
            np.multiply(ys + 1, pw, out=path[1:])
            path[1:] += xs + 1
            hits = np.flatnonzero(self.tree[path[1:]] == 1)
            end = int(hits[0]) + 1 if hits.size else piece
            src, dst = path[:end], path[1 : end + 1]
            moved = src != dst
            src, dst = src[moved], dst[moved]
            stamp = np.arange(self.clock, self.clock + src.size)
            self.clock += src.size
            np.maximum.at(self.stamp, src, stamp)
            last = self.stamp[src] == stamp
            self.exits[src[last]] = dst[last]
            if hits.size:
                return begin
            x, y, piece = int(xs[-1]), int(ys[-1]), min(2 * piece, SEGMENT[1])


def _wilson(width: int, height: int, rng: np.random.Generator) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Wilson's algorithm: loop-erased random walks to the tree, each walk keeping the last exit of every cell.

    The root is the middle cell (any root gives the uniform tree; the middle one makes the first
    walks shortest); the walks start from the cells in a random order. A walk runs as a plain loop
    (board values: 0 not in the tree, 1 in the tree, 2 border, where a step is drawn again, so
    every step is uniform among the cell's neighbours), the steps drawn in bulk; the few long
    walks of the start, when the tree is small, go on in numpy pieces (:class:`_LongWalks`).
    """
    pw = width + 2
    state = bytearray((_padded(width, height) * 2).tobytes())
    exit_to = [0] * len(state)
    offsets = np.array((-pw, 1, pw, -1), np.int64)
    inner = (np.arange(1, height + 1)[:, None] * pw + np.arange(1, width + 1)).ravel()
    order = rng.permutation(inner).tolist()
    root = (height // 2 + 1) * pw + width // 2 + 1
    state[root] = 1
    long_walks = _LongWalks(width, height, state)
    steps: Iterator[int] = iter(())  # the draws, shared by consecutive walks
    for start in order:
        if state[start]:
            continue
        cell, refills = start, 0
        while True:
            for nxt in steps:
                nxt += cell
                s = state[nxt]
                if s == 2:
                    continue
                exit_to[cell] = nxt
                if s:
                    break
                cell = nxt
            else:  # out of draws: more, or on in numpy when this walk is long
                if refills < WALK_CHUNKS:
                    refills += 1
                    steps = iter(offsets[rng.integers(0, 4, WALK_CHUNK)].tolist())
                    continue
                begin = long_walks.walk(cell, rng)
                stamp, exits = long_walks.stamp, long_walks.exits
                cell = start
                while not state[cell]:
                    state[cell] = 1
                    if stamp[cell] >= begin:  # left last in the numpy part
                        exit_to[cell] = int(exits[cell])
                    cell = exit_to[cell]
                break
            cell = start
            while not state[cell]:
                state[cell] = 1
                cell = exit_to[cell]
            break
    return _tree_passages(width, height, np.array(exit_to, np.int64), root)


def _kruskal(width: int, height: int, rng: np.random.Generator) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Randomized Kruskal as Boruvka rounds: each component takes its lightest outgoing wall.

    The weights are a random permutation of the walls (all distinct), so the minimum spanning
    tree is unique and equal to the one Kruskal's algorithm builds from that order.
    """
    n = width * height
    idx = np.arange(n, dtype=np.int64).reshape(height, width)
    a = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    b = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    wall = rng.permutation(a.size)  # the walls in increasing weight
    ca, cb = a[wall], b[wall]
    chosen = np.zeros(a.size, bool)
    link = np.arange(n, dtype=np.int64)
    best = np.empty(n, np.int64)
    present = np.zeros(n, bool)
    while True:
        keep = ca != cb
        ca, cb, wall = ca[keep], cb[keep], wall[keep]
        if not ca.size:
            break
        rank = np.arange(ca.size, dtype=np.int64)
        present[:] = False
        present[ca] = True
        present[cb] = True
        comps = np.flatnonzero(present)
        best[comps] = ca.size
        np.minimum.at(best, ca, rank)
        np.minimum.at(best, cb, rank)
        e = best[comps]
        chosen[wall[e]] = True
        other = np.where(ca[e] == comps, cb[e], ca[e])
        link[comps] = other
        mutual = (link[other] == comps) & (comps < other)
        link[comps[mutual]] = comps[mutual]
        while True:  # pointer jumping to the roots of the merged components
            up = link[link[comps]]
            if np.array_equal(up, link[comps]):
                break
            link[comps] = up
        ca, cb = link[ca], link[cb]
    horizontal = chosen[: height * (width - 1)].reshape(height, width - 1)
    vertical = chosen[height * (width - 1) :].reshape(height - 1, width)
    return horizontal, vertical


_ALGORITHM_FUNCTIONS = {"dfs": _dfs, "prim": _prim, "kruskal": _kruskal, "wilson": _wilson}


# --- the grid and the cell sides ---------------------------------------------------------------------


def _grid(
    horizontal: npt.NDArray[np.bool_], vertical: npt.NDArray[np.bool_], rooms: Sequence[tuple[int, int, int, int]]
) -> npt.NDArray[np.uint8]:
    height, width = vertical.shape[0] + 1, horizontal.shape[1] + 1
    grid = np.full((2 * height + 1, 2 * width + 1), WALL, np.uint8)
    grid[1::2, 1::2] = FLOOR
    grid[1::2, 2:-1:2][horizontal] = FLOOR
    grid[2:-1:2, 1::2][vertical] = FLOOR
    for cx, cy, w, h in rooms:
        grid[2 * cy + 1 : 2 * (cy + h), 2 * cx + 1 : 2 * (cx + w)] = FLOOR
    return grid


def _sides(horizontal: npt.NDArray[np.bool_], vertical: npt.NDArray[np.bool_]) -> npt.NDArray[np.uint8]:
    """(h, w) uint8 open sides of every maze cell (NORTH | EAST | SOUTH | WEST)."""
    height, width = vertical.shape[0] + 1, horizontal.shape[1] + 1
    sides = np.zeros((height, width), np.uint8)
    sides[1:, :] |= vertical * np.uint8(NORTH)
    sides[:, :-1] |= horizontal * np.uint8(EAST)
    sides[:-1, :] |= vertical * np.uint8(SOUTH)
    sides[:, 1:] |= horizontal * np.uint8(WEST)
    return sides


def maze_cells(level: Level) -> npt.NDArray[np.uint8]:
    """The cell-grid form of a maze: the open sides of every maze cell.

    Parameters
    ----------
    level : Level
        A maze (:func:`maze`): its grid is ``(2 * height + 1, 2 * width + 1)``.

    Returns
    -------
    sides : (height, width) uint8 ndarray
        Per maze cell, the sum of its open sides: 1 north (row - 1), 2 east, 4 south, 8 west.

    >>> maze_cells(maze(3, 2, seed=1)).shape
    (2, 3)
    """
    grid = np.asarray(level.grid)
    rows, cols = grid.shape
    if rows < 3 or cols < 3 or rows % 2 == 0 or cols % 2 == 0:
        raise ParameterError(f"level.grid must be (2 * height + 1, 2 * width + 1) of a maze, got {rows} x {cols}")
    open_ = grid != level.classes["wall"]
    return _sides(open_[1::2, 2:-1:2], open_[2:-1:2, 1::2])


def maze(width: int, height: int, *, algorithm: str = "dfs", loops: int = 0, rooms: int = 0, seed: Seed = 0) -> Level:
    """A maze of ``width`` x ``height`` maze cells on a ``(2 * height + 1, 2 * width + 1)`` grid.

    Parameters
    ----------
    width, height : int
        Maze cells across and down, at least :data:`MIN_SIDE`; the grid has at most ``MAX_CELLS`` cells.
    algorithm : {'dfs', 'prim', 'kruskal', 'wilson'}
        Recursive backtracker, randomized Prim, randomized Kruskal or Wilson's uniform spanning tree
        (see the module notes for their dead-end fractions).
    loops : int
        Walls removed after the maze is perfect (and its rooms cut): exactly this many more cycles.
    rooms : int
        Open rectangular rooms cut into the maze (up to one per 3 x 3 maze cells).
    seed : int or numpy.random.Generator
        The same seed and settings give the same bytes.

    Returns
    -------
    Level
        ``grid`` of ``wall`` (0) and ``floor`` (1); ``rooms`` ``(x, y, w, h)`` in grid cells; one
        ``spawn`` and one ``exit`` marker (grid cells) at the ends of a longest path; ``generator``
        ``"maze"``; ``settings`` the keyword settings.

    >>> level = maze(10, 8, algorithm="kruskal", seed=3)
    >>> level.grid.shape, int((maze_cells(level) > 0).sum())
    ((17, 21), 80)
    >>> [m.kind for m in level.markers]
    ['spawn', 'exit']
    """
    check_settings(width, height, algorithm=algorithm, loops=loops, rooms=rooms)
    width, height, loops, rooms = int(width), int(height), int(loops), int(rooms)
    tree_rng, room_rng, loop_rng = make_rng(seed).spawn(3)
    horizontal, vertical = _ALGORITHM_FUNCTIONS[algorithm](width, height, tree_rng)
    placed = place_rooms(width, height, rooms, room_rng)
    open_rooms(horizontal, vertical, placed)
    open_loops(horizontal, vertical, loops, loop_rng)
    sides = _sides(horizontal, vertical)
    ends = far_ends(sides) if (loops or rooms) else tree_ends(sides)
    markers = tuple(Marker(kind, 2 * (v % width) + 1, 2 * (v // width) + 1) for kind, v in zip(("spawn", "exit"), ends))
    return Level(
        grid=_grid(horizontal, vertical, placed),
        rooms=tuple((2 * cx + 1, 2 * cy + 1, 2 * w - 1, 2 * h - 1) for cx, cy, w, h in placed),
        markers=markers,
        seed=0 if isinstance(seed, np.random.Generator) else int(seed),
        generator="maze",
        settings={"algorithm": algorithm, "loops": loops, "rooms": rooms},
    )
