"""BSP dungeons: rooms in the leaves of a binary space partition, joined by corridors.

The map's inside (every cell but the one-cell wall border) is cut in two again and again until
no leaf is longer than ``max_leaf``; each leaf gets one room; the two halves of every cut are
joined by one corridor (straight or L-shaped) between their closest rooms along the cut (so the
rooms form a tree), and a fraction of the other neighbouring leaves get an extra corridor (loops).
Doors are the corridor cells that touch a room's floor.  :func:`bsp_layout` is the layout alone
(rooms + caves reuses it).
"""

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .._checks import Seed, make_rng
from ..errors import ParameterError
from ..spec import check_value
from ._content import place_markers
from ._fields import GENERATOR_KEYS, LIMITS, LevelSpec
from ._level import CORRIDOR, DOOR, FLOOR, MAX_CELLS, WALL, Level

__all__ = [
    "bsp_dungeon",
    "check_settings",
    "check_all",
    "bsp_leaves",
    "bsp_layout",
    "Layout",
    "ASPECT",
    "LAYOUT_KEYS",
    "BSP_KEYS",
]

#: A leaf whose one side is longer than ASPECT x the other is always cut across its long side.
ASPECT = 1.25
#: The settings of the layout alone (the content settings go to place_markers).
LAYOUT_KEYS = ("min_leaf", "max_leaf", "room_min", "room_max", "padding", "corridor_width", "loop_fraction")
#: The keyword settings of :func:`bsp_dungeon` (``spec.GENERATOR_KEYS["bsp"]``).
BSP_KEYS = LAYOUT_KEYS + ("enemy_density", "loot_chance")

assert BSP_KEYS == GENERATOR_KEYS["bsp"]


class Layout(NamedTuple):
    """A BSP layout before its content: grid, room and leaf rectangles (x, y, w, h), door cells (x, y),
    and the room index pairs joined by a corridor (tree first, then loops)."""

    grid: npt.NDArray[np.uint8]
    rooms: tuple[tuple[int, int, int, int], ...]
    leaves: npt.NDArray[np.int64]
    doors: tuple[tuple[int, int], ...]
    links: tuple[tuple[int, int], ...]


class _Uniform:
    """Uniform floats in [0, 1) from a Generator, drawn in blocks (one draw per cut costs ~3 us otherwise)."""

    def __init__(self, rng: np.random.Generator, block: int = 512) -> None:
        self.values: list[float]
        self.rng, self.block, self.values, self.i = rng, block, [], 0

    def __call__(self) -> float:
        if self.i == len(self.values):
            self.values, self.i = self.rng.random(self.block).tolist(), 0
        self.i += 1
        return self.values[self.i - 1]


def check_settings(width: int, height: int, **settings: Any) -> None:
    """Refuse impossible BSP settings before any work, naming the setting, its value and what is allowed.

    Every key of ``GENERATOR_KEYS["bsp"]`` may be given (the others take the defaults of
    :class:`~.spec.LevelSpec`; the ranges are those of ``spec.LIMITS``); returns nothing.

    >>> try:
    ...     check_settings(64, 48, room_min=5, room_max=3)
    ... except ParameterError as err:
    ...     print(err)
    room_min must be at most room_max = 3, got 5
    """
    check_all(width, height, settings, BSP_KEYS)


def _value(key: str, value: Any) -> Any:
    return check_value(value, LIMITS[key], name=key)


def check_all(
    width: int, height: int, settings: Mapping[str, Any], keys: Sequence[str]
) -> tuple[int, int, dict[str, Any]]:
    """(width, height, {key: value}) of every key of ``keys``, checked (BSP rules included); defaults from
    :class:`~.spec.LevelSpec`. Unknown keys are refused."""
    for key in settings:
        if key not in keys:
            raise ParameterError(f"{key} is not a setting of this generator; its settings are {', '.join(keys)}")
    width = _value("width", width)
    height = _value("height", height)
    if width * height > MAX_CELLS:
        raise ParameterError(
            f"width x height = {width} x {height} = {width * height:,} cells, more than the {MAX_CELLS:,} allowed"
        )
    s = {k: _value(k, settings.get(k, getattr(LevelSpec, k))) for k in keys}
    min_leaf, max_leaf = s["min_leaf"], s["max_leaf"]
    if s["room_min"] > s["room_max"]:
        raise ParameterError(f"room_min must be at most room_max = {s['room_max']}, got {s['room_min']}")
    if max_leaf < 2 * min_leaf - 1:
        raise ParameterError(
            f"max_leaf must be at least 2 * min_leaf - 1 = {2 * min_leaf - 1} (a leaf longer than max_leaf is cut "
            f"into two leaves of at least min_leaf = {min_leaf}), got {max_leaf}"
        )
    if s["room_min"] + 2 * s["padding"] > min_leaf:
        raise ParameterError(
            f"room_min + 2 * padding = {s['room_min'] + 2 * s['padding']} is more than min_leaf = {min_leaf}: a room "
            f"and its padding must fit in the smallest leaf ("
            + (
                f"room_min at most {min_leaf - 2 * s['padding']} with padding {s['padding']}"
                if min_leaf - 2 * s["padding"] >= 2
                else f"padding at most {(min_leaf - s['room_min']) // 2} with room_min {s['room_min']}"
                if min_leaf >= s["room_min"]
                else f"min_leaf at least {s['room_min'] + 2 * s['padding']}"
            )
            + ")"
        )
    for name, side in (("width", width), ("height", height)):
        if side - 2 < min_leaf:
            raise ParameterError(
                f"{name} must be at least min_leaf + 2 = {min_leaf + 2} (one leaf inside the wall border), got {side}"
            )
    return width, height, s


def bsp_leaves(
    x: int, y: int, width: int, height: int, *, min_leaf: int, max_leaf: int, rng: np.random.Generator
) -> tuple[npt.NDArray[np.int64], list[tuple[int, ...]]]:
    """Leaves of a binary space partition of the rectangle (x, y, width, height).

    A leaf with a side longer than ``max_leaf`` is cut in two, each part at least ``min_leaf``
    long: across its long side when one side is longer than :data:`ASPECT` times the other,
    else across a side drawn at random (a side too short to cut leaves the other); the cut
    falls uniformly in the allowed span.  Needs ``max_leaf >= 2 * min_leaf - 1``.

    Returns
    -------
    leaves : (n, 4) int64 ndarray
        (x, y, w, h) of every leaf, depth first (each subtree is a run of rows).
    nodes : list of (first, middle, end, axis, at)
        Every cut: its first half holds leaves ``first:middle``, its second ``middle:end``; the cut
        line is the column ``x = at`` (``axis`` 0: the halves side by side) or the row ``y = at``
        (``axis`` 1: one above the other), the second half starting there.

    >>> leaves, nodes = bsp_leaves(0, 0, 40, 20, min_leaf=8, max_leaf=20, rng=np.random.default_rng(1))
    >>> int((leaves[:, 2] * leaves[:, 3]).sum()), bool((leaves[:, 2:] <= 20).all()), len(nodes) == len(leaves) - 1
    (800, True, True)
    """
    u = _Uniform(rng)
    leaves: list[tuple[int, int, int, int]]
    nodes: list[list[int]]
    leaves, nodes = [], []
    stack: list[tuple[Any, ...]] = [
        (x, y, width, height, -1)
    ]  # -1: a node to cut; else (index into nodes, slot) bookkeeping
    while stack:
        item = stack.pop()
        if item[0] is None:  # the end marker of a cut: fill in where its halves ended
            _, n, slot = item
            nodes[n][slot] = len(leaves)
            continue
        lx, ly, lw, lh, _ = item
        if lw <= max_leaf and lh <= max_leaf:
            leaves.append((lx, ly, lw, lh))
            continue
        if lw > ASPECT * lh:
            across_x = True
        elif lh > ASPECT * lw:
            across_x = False
        else:
            across_x = u() < 0.5
        if across_x and lw < 2 * min_leaf:
            across_x = False
        elif not across_x and lh < 2 * min_leaf:
            across_x = True
        side = lw if across_x else lh
        cut = min_leaf + int(u() * (side - 2 * min_leaf + 1))
        n = len(nodes)
        nodes.append([len(leaves), 0, 0, 0 if across_x else 1, (lx if across_x else ly) + cut])
        if across_x:
            first, second = (lx, ly, cut, lh, -1), (lx + cut, ly, lw - cut, lh, -1)
        else:
            first, second = (lx, ly, lw, cut, -1), (lx, ly + cut, lw, lh - cut, -1)
        stack += [(None, n, 2), second, (None, n, 1), first]
    return np.array(leaves, np.int64).reshape(-1, 4), [tuple(v) for v in nodes]


def _place_rooms(
    leaves: npt.NDArray[np.int64], rng: np.random.Generator, *, room_min: int, room_max: int, padding: int
) -> npt.NDArray[np.int64]:
    """One room per leaf: each side drawn in [room_min, min(room_max, leaf side - 2 padding)], placed at random."""
    u = rng.random((len(leaves), 4))
    rooms = np.empty_like(leaves)
    for axis in (0, 1):
        avail = leaves[:, 2 + axis] - 2 * padding
        top = np.minimum(room_max, avail)
        size = room_min + (u[:, axis] * (top - room_min + 1)).astype(np.int64)
        rooms[:, 2 + axis] = size
        rooms[:, axis] = leaves[:, axis] + padding + (u[:, 2 + axis] * (avail - size + 1)).astype(np.int64)
    return rooms


def _closest_pairs(
    leaves: npt.NDArray[np.int64], rooms: npt.NDArray[np.int64], nodes: Sequence[tuple[int, ...]]
) -> list[tuple[int, int]]:
    """For every cut, the (first-half room, second-half room) with the smallest Manhattan gap, among the
    leaves along the cut line only (the first such pair in leaf order on a tie); all cuts at once.

    The leaves of a half that touch the cut are a run of the leaves sorted by (edge on the cut, index),
    found by a binary search per cut; every cut's candidate pairs are then listed and measured together.
    """
    n = len(leaves)
    cuts = np.array(nodes, np.int64).reshape(-1, 5)
    first, middle, end, axis, at = cuts.T
    ends = leaves[:, :2] + leaves[:, 2:]
    idx = np.arange(n, dtype=np.int64)
    runs = []
    for edge, lo_i, hi_i in ((ends, first, middle), (leaves[:, :2], middle, end)):
        keys = [edge[:, a] * n + idx for a in (0, 1)]  # (edge on axis a, index), per axis
        order = [np.argsort(k, kind="stable") for k in keys]
        sorted_keys = [k[o] for k, o in zip(keys, order, strict=True)]
        lo, hi, leaf_of = np.empty_like(first), np.empty_like(first), []
        for a in (0, 1):
            m = axis == a
            lo[m] = np.searchsorted(sorted_keys[a], at[m] * n + lo_i[m]) + a * n
            hi[m] = np.searchsorted(sorted_keys[a], at[m] * n + hi_i[m]) + a * n
            leaf_of.append(order[a])
        runs.append((lo, hi, np.concatenate(leaf_of)))
    (alo, ahi, aleaf), (blo, bhi, bleaf) = runs
    na, nb = ahi - alo, bhi - blo
    count = na * nb
    cut_of = np.repeat(np.arange(len(cuts)), count)
    p = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)  # pair number within its cut
    a = aleaf[alo[cut_of] + p // nb[cut_of]]
    b = bleaf[blo[cut_of] + p % nb[cut_of]]
    ra, rb = rooms[a], rooms[b]
    dx = np.maximum(0, np.maximum(rb[:, 0] - (ra[:, 0] + ra[:, 2]), ra[:, 0] - (rb[:, 0] + rb[:, 2])))
    dy = np.maximum(0, np.maximum(rb[:, 1] - (ra[:, 1] + ra[:, 3]), ra[:, 1] - (rb[:, 1] + rb[:, 3])))
    gap = dx + dy
    starts = np.cumsum(count) - count
    best = np.minimum.reduceat(gap, starts) if len(cuts) else gap[:0]
    hit = np.flatnonzero(gap == best[cut_of])
    _, first_hit = np.unique(cut_of[hit], return_index=True)
    pick = hit[first_hit]
    return list(zip(a[pick].tolist(), b[pick].tolist(), strict=True))


def _cover(
    shape: tuple[int, ...],
    x0: npt.NDArray[np.int64],
    x1: npt.NDArray[np.int64],
    y0: npt.NDArray[np.int64],
    y1: npt.NDArray[np.int64],
    weight: npt.NDArray[np.int64] | None = None,
) -> npt.NDArray[Any]:
    """(h, w) sum of ``weight`` (int64; default 1, int32) over the rectangles columns x0..x1, rows y0..y1 (inclusive;
    empty ones skipped), by a 2-D difference array: one pass however many rectangles."""
    h, w = shape
    keep = (x0 <= x1) & (y0 <= y1)
    x0, x1, y0, y1 = x0[keep], x1[keep] + 1, y0[keep], y1[keep] + 1
    wt = np.ones(x0.size, np.int32) if weight is None else weight[keep]  # counts fit int32; ids sums need int64
    diff = np.zeros((h + 1, w + 1), wt.dtype)
    for ys, xs, sign in ((y0, x0, 1), (y0, x1, -1), (y1, x0, -1), (y1, x1, 1)):
        np.add.at(diff, (ys, xs), sign * wt)
    np.cumsum(diff, axis=0, out=diff)  # in place: one array however large the map
    np.cumsum(diff, axis=1, out=diff)
    return diff[:h, :w]


def _corridors(
    grid: npt.NDArray[np.uint8],
    rooms: npt.NDArray[np.int64],
    links: Sequence[tuple[int, int]],
    k: int,
    rng: np.random.Generator,
) -> None:
    """Join the rooms of every link by a corridor k cells wide (walls become corridor; floor stays): straight
    where the two face each other over at least k cells, else L-shaped, the horizontal or the vertical leg
    first at random, between random cells of the rooms.  All links at once; one uniform draw per straight
    corridor and five per L (its cells in a, in b, the order), in link order.
    """
    h, w = grid.shape
    if not len(links):
        return
    pair = np.array(links, np.int64)
    ax, ay, aw, ah = rooms[pair[:, 0]].T
    bx, by, bw, bh = rooms[pair[:, 1]].T
    vlo, vhi = np.maximum(ax, bx), np.minimum(ax + aw, bx + bw) - k  # columns where a vertical corridor fits
    hlo, hhi = np.maximum(ay, by), np.minimum(ay + ah, by + bh) - k  # rows where a horizontal one fits
    vertical = vhi >= vlo
    horizontal = ~vertical & (hhi >= hlo)
    bent = ~vertical & ~horizontal
    draws = np.where(bent, 5, 1)
    u = rng.random(int(draws.sum()))
    at = np.cumsum(draws) - draws
    ui = lambda j: u[np.minimum(at + j, u.size - 1)]  # noqa: E731  the j-th draw of every link
    rects = []
    x = vlo + (ui(0) * (vhi - vlo + 1)).astype(np.int64)
    rects.append((vertical, x, x + k - 1, np.minimum(ay + ah - 1, by + bh - 1), np.maximum(ay, by)))
    y = hlo + (ui(0) * (hhi - hlo + 1)).astype(np.int64)
    rects.append((horizontal, np.minimum(ax + aw - 1, bx + bw - 1), np.maximum(ax, bx), y, y + k - 1))
    # a room narrower than k: the k x k squares shift to stay inside the border
    px = np.minimum(ax + (ui(0) * (np.maximum(aw - k, 0) + 1)).astype(np.int64), w - 1 - k)
    py = np.minimum(ay + (ui(1) * (np.maximum(ah - k, 0) + 1)).astype(np.int64), h - 1 - k)
    qx = np.minimum(bx + (ui(2) * (np.maximum(bw - k, 0) + 1)).astype(np.int64), w - 1 - k)
    qy = np.minimum(by + (ui(3) * (np.maximum(bh - k, 0) + 1)).astype(np.int64), h - 1 - k)
    across_first = bent & (ui(4) < 0.5)  # horizontal leg from a, then vertical into b
    down_first = bent & ~across_first  # vertical leg from a, then horizontal into b
    xs0, xs1 = np.minimum(px, qx), np.maximum(px, qx) + k - 1
    ys0, ys1 = np.minimum(py, qy), np.maximum(py, qy) + k - 1
    rects += [
        (across_first, xs0, xs1, py, py + k - 1),
        (across_first, qx, qx + k - 1, ys0, ys1),
        (down_first, px, px + k - 1, ys0, ys1),
        (down_first, xs0, xs1, qy, qy + k - 1),
    ]
    x0, x1, y0, y1 = (np.concatenate([r[i][r[0]] for r in rects]) for i in range(1, 5))
    x0, x1 = np.maximum(x0, 1), np.minimum(x1, w - 2)  # clipped inside the border
    y0, y1 = np.maximum(y0, 1), np.minimum(y1, h - 2)
    dug = _cover(grid.shape, x0, x1, y0, y1) > 0
    grid[dug & (grid == WALL)] = CORRIDOR


def _neighbour_pairs(leaves: npt.NDArray[np.int64], shape: tuple[int, ...]) -> npt.NDArray[np.int64]:
    """Sorted codes ``i * n + j`` (i < j, n leaves) of the leaves sharing an edge (read off an image of leaf ids)."""
    x, y = leaves[:, 0], leaves[:, 1]
    weight = np.arange(1, len(leaves) + 1, dtype=np.int64)  # the leaves are disjoint: the sum is one id + 1
    ids = (_cover(shape, x, x + leaves[:, 2] - 1, y, y + leaves[:, 3] - 1, weight) - 1).astype(np.int32)
    found = []
    for a, b in ((ids[:, :-1], ids[:, 1:]), (ids[:-1, :], ids[1:, :])):
        cut = (a != b) & (a >= 0) & (b >= 0)
        a, b = a[cut].astype(np.int64), b[cut].astype(np.int64)
        found.append(np.minimum(a, b) * len(leaves) + np.maximum(a, b))
    return np.unique(np.concatenate(found))


def doors_of(grid: npt.NDArray[np.uint8]) -> tuple[tuple[int, int], ...]:
    """Mark the corridor cells that touch a floor cell (4-neighbours) as doors; return their (x, y), raster order."""
    floor = grid == FLOOR
    touch = np.zeros_like(floor)
    touch[1:, :] |= floor[:-1, :]
    touch[:-1, :] |= floor[1:, :]
    touch[:, 1:] |= floor[:, :-1]
    touch[:, :-1] |= floor[:, 1:]
    door = (grid == CORRIDOR) & touch
    grid[door] = DOOR
    ys, xs = np.nonzero(door)
    return tuple(zip(xs.tolist(), ys.tolist(), strict=True))


def bsp_layout(
    width: int,
    height: int,
    rng: np.random.Generator,
    *,
    min_leaf: int,
    max_leaf: int,
    room_min: int,
    room_max: int,
    padding: int,
    corridor_width: int,
    loop_fraction: float,
) -> Layout:
    """The :class:`Layout` of a BSP dungeon (settings already checked): leaves, rooms, corridors, doors."""
    cut_rng, room_rng, corridor_rng = rng.spawn(3)
    leaves, nodes = bsp_leaves(1, 1, width - 2, height - 2, min_leaf=min_leaf, max_leaf=max_leaf, rng=cut_rng)
    rooms = _place_rooms(leaves, room_rng, room_min=room_min, room_max=room_max, padding=padding)
    x0, y0 = rooms[:, 0], rooms[:, 1]
    grid = (_cover((height, width), x0, x0 + rooms[:, 2] - 1, y0, y0 + rooms[:, 3] - 1) > 0).astype(np.uint8)
    grid *= FLOOR
    links = _closest_pairs(leaves, rooms, nodes)  # the closest rooms of the two halves of every cut
    n = len(leaves)
    pairs = _neighbour_pairs(leaves, grid.shape)
    tree = np.array([min(i, j) * n + max(i, j) for i, j in links], np.int64)
    spare = pairs[~np.isin(pairs, tree)]
    extra = int(np.floor(loop_fraction * spare.size + 0.5))
    if extra:
        chosen = np.sort(corridor_rng.choice(spare, size=extra, replace=False))
        links += [(int(c // n), int(c % n)) for c in chosen]
    _corridors(grid, rooms, links, corridor_width, corridor_rng)
    doors = doors_of(grid)
    return Layout(grid, tuple(tuple(r) for r in rooms.tolist()), leaves, doors, tuple(links))


def bsp_dungeon(
    width: int,
    height: int,
    *,
    min_leaf: int = 8,
    max_leaf: int = 20,
    room_min: int = 4,
    room_max: int = 12,
    padding: int = 1,
    corridor_width: int = 1,
    loop_fraction: float = 0.1,
    enemy_density: float = 0.02,
    loot_chance: float = 0.3,
    seed: Seed = 0,
) -> Level:
    """A BSP dungeon: rectangular rooms joined by corridors, with doors and markers.

    Parameters
    ----------
    width, height : int
        Cells along X (columns) and Y (rows), each at least ``min_leaf + 2`` (a leaf inside the
        one-cell wall border), at most :data:`~._level.MAX_CELLS` cells in all.
    min_leaf, max_leaf : int
        Shortest side of a leaf, and the longest a leaf may keep (longer ones are cut;
        ``max_leaf >= 2 * min_leaf - 1``). The cut is across the long side when one side is more
        than :data:`ASPECT` (1.25) times the other, else across a side drawn at random.
    room_min, room_max : int
        Room sides: each drawn in ``[room_min, min(room_max, leaf side - 2 * padding)]``;
        ``room_min + 2 * padding <= min_leaf``.
    padding : int
        Cells kept between a room and its leaf's edges.
    corridor_width : int, in [1, 3]
        Width of every corridor in cells.
    loop_fraction : float, in [0, 1]
        The fraction (rounded half up) of the neighbouring leaves not yet joined that get an extra
        corridor between their rooms (0: the rooms form a tree; 1: every neighbour pair is joined).
    enemy_density, loot_chance : float, in [0, 1]
        Room content: see :func:`~._content.place_markers`.
    seed : int or numpy.random.Generator
        The same seed and settings give the same level.

    Returns
    -------
    level : :class:`~._level.Level`
        ``generator="bsp"``; ``rooms`` in leaf order (depth first); ``doors`` in raster order; the
        grid: ``floor`` in rooms, ``corridor`` and ``door`` between them, ``wall`` elsewhere
        (always the border). Every walkable cell is reachable from the spawn.

    Notes
    -----
    The rooms of the two halves of every cut that are closest (Manhattan gap; among the leaves
    along the cut line) are joined: straight when they face each other over at least
    ``corridor_width`` cells, else by an L whose legs start and end at random cells of the rooms.
    Corridors pass through rooms they meet (the room stays floor). A door is a corridor cell with
    a room floor cell beside it, so a corridor ``k`` wide enters through ``k`` doors, and one that
    runs along a room's side is a row of doors there (about one door group in eight at the defaults).
    A room narrower than the corridor (``room_min < corridor_width``) gets a corridor end wider
    than itself. Markers: rooms of side 1 or 2 may leave no cell away from the doors; then
    :func:`~._content.place_markers` falls back to any floor cell.

    Examples
    --------
    >>> level = bsp_dungeon(64, 48, seed=7)
    >>> level.grid.shape, level.generator, len(level.rooms) >= 6, level.spawn.kind
    ((48, 64), 'bsp', True, 'spawn')
    """
    settings: dict[str, Any] = dict(
        min_leaf=min_leaf,
        max_leaf=max_leaf,
        room_min=room_min,
        room_max=room_max,
        padding=padding,
        corridor_width=corridor_width,
        loop_fraction=loop_fraction,
        enemy_density=enemy_density,
        loot_chance=loot_chance,
    )
    width, height, settings = check_all(width, height, settings, BSP_KEYS)
    layout_rng, marker_rng = make_rng(seed).spawn(2)
    layout = bsp_layout(width, height, layout_rng, **{k: settings[k] for k in LAYOUT_KEYS})
    markers = place_markers(
        layout.grid,
        rooms=layout.rooms,
        doors=layout.doors,
        rng=marker_rng,
        enemy_density=settings["enemy_density"],
        loot_chance=settings["loot_chance"],
    )
    return Level(
        layout.grid,
        rooms=layout.rooms,
        doors=layout.doors,
        markers=markers,
        seed=int(seed) if isinstance(seed, (int, np.integer)) else 0,
        generator="bsp",
        settings=settings,
    )
