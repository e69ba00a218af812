"""The river network of a heightmap: channels from flow accumulation, traced into segments.

:func:`river_network` (the plan; over a whole world once, then :func:`~._carve.carve_rivers`
carves each tile):

1. water is routed D8 with every pit led out over its pass (``core.erosion.flow_receivers``) and
   the upstream area of each cell summed (by pointer doubling, as ``flow_accumulation`` does);
2. lakes (optional): where the priority-flood filling (``core.erosion.fill_pits`` with epsilon 0)
   holds water deeper than ``lake_min_depth`` over at least ``lake_min_area``, a flat surface at
   the spill height;
3. channel cells: upstream area at least ``threshold`` m^2, not sea, not lake.  Since a cell's
   receiver holds more water than the cell, the channels form trees that run down to a mouth: the
   map's edge, the sea, a lake;
4. segments: a segment starts at a source (no channel above it), a confluence (two or more) or
   a lake's outlet, and runs down to the cell before the next such start, or to its mouth; its
   points are its cells and then the cell it flows into (the next segment's first point, or the
   mouth's sea or lake cell), so segments join end to start.  Strahler order: 1 at sources; where
   segments meet (a lake counts as a meeting of all the segments that end in it), the largest
   order, plus one when two or more share it;
5. hydraulic geometry (Leopold & Maddock 1953), discharge taken proportional to the upstream area
   ``A``: width ``width_scale * (A / 1 km^2)^0.5``, depth ``depth_scale * (A / 1 km^2)^0.4``
   (``core.exact.pow``: the same bits on every CPU);
6. beds: the water surface of a channel cell is the lowest original height on its way from the
   source (a running minimum down the tree), the bed that surface minus the depth, so the surface
   and the bed never rise downstream and the water never stands above its own cell's ground.

The carving (``_carve``) then lowers the ground around every point to a parabolic bed across
the water and banks rising at ``bank_slope``; each point's height is the carved ground's, again
made non-increasing down the tree.  Beds follow the cells the water takes (no noise is added to
fake meanders).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .. import erosion, exact
from .._polyline import bilinear
from .._union import join_roots
from ..biomes import sea_mask
from ..errors import ParameterError

__all__ = [
    "RiverNetwork",
    "Lake",
    "river_network",
    "accumulate",
    "tree_minimum",
    "WIDTH_EXPONENT",
    "DEPTH_EXPONENT",
    "MOUTHS",
    "MAX_BANK_CELLS",
    "FREEBOARD",
    "bank_lows",
    "outline",
]

#: Hydraulic geometry's exponents of discharge (Leopold & Maddock 1953): width, depth.
WIDTH_EXPONENT = 0.5
DEPTH_EXPONENT = 0.4
#: What a segment ends in when it flows into no other segment.
MOUTHS = ("edge", "sea", "lake", "sink")
#: Metres the water surface stays under the lower bank beside it.
FREEBOARD = 0.1
#: Most cells the carved banks reach beyond the water.
MAX_BANK_CELLS = 16
#: Neighbour offsets (8-connectivity) for labelling lakes.
_PAIRS = ((0, 1), (1, 0), (1, 1), (1, -1))


@dataclass(frozen=True, eq=False)
class Lake:
    """One lake: its cells (flat indices of the planned grid), its flat water height (metres, the
    spill height) and its outline (a closed loop of cell corners, (m, 2) ``(row, col)`` in cells
    of the planned grid, counter-clockwise seen from above, the first point not repeated)."""

    cells: npt.NDArray[np.int64]
    level: float
    outline: npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class RiverNetwork:
    """The rivers of a heightmap (the plan): segments of points, their hydraulics and the lakes.

    Positions are cells of the planned grid (``shape``; a tiled world's whole grid): flat index
    ``row * cols + col``.  Per point (segments concatenated, ``starts[s]:starts[s + 1]`` is segment
    ``s``, upstream to downstream):

    Attributes
    ----------
    shape : (rows, cols)
    cell_size : float, metres
    cells : (P,) int64
    z : (P,) float64
        Height of the carved ground at the point (the bed), metres; non-increasing along a
        segment and from a segment into the one below.
    surface : (P,) float64
        Water surface, metres (``z`` + the depth where the carving set the bed).
    depth, half_width : (P,) float64
        Water depth and half the water's width at the point, metres.
    reach : (P,) float64
        How far from the point the carving reaches, metres: the water's half width plus the banks
        rising at ``bank_slope`` to a little above the point's original ground.
    starts : (S + 1,) int64
    order : (S,) int64
        Strahler order.
    area : (S,) float64
        Upstream area at the segment's last own cell, m^2.
    width, seg_depth : (S,) float64
        Water width and depth there, metres.
    downstream : (S,) int64
        Segment it flows into, -1 at a mouth.
    mouth : tuple of str
        ``"edge"``, ``"sea"``, ``"lake"`` or ``"sink"`` where ``downstream`` is -1, else ``""``.
    mouth_lake : (S,) int64
        The lake a ``"lake"`` mouth flows into, or -1.
    source_lake : (S,) int64
        The lake a segment flows out of (its first point is the lake's outlet), or -1.
    lakes : tuple of Lake
    carve : dict
        How the carving shapes the banks (``bank_slope``, ``bank_width``, in the units
        ``carve_rivers`` takes), kept so every tile carves alike.
    """

    shape: tuple[int, int]
    cell_size: float
    cells: npt.NDArray[np.int64]
    z: npt.NDArray[np.float64]
    surface: npt.NDArray[np.float64]
    depth: npt.NDArray[np.float64]
    half_width: npt.NDArray[np.float64]
    reach: npt.NDArray[np.float64]
    starts: npt.NDArray[np.int64]
    order: npt.NDArray[np.int64]
    area: npt.NDArray[np.float64]
    width: npt.NDArray[np.float64]
    seg_depth: npt.NDArray[np.float64]
    downstream: npt.NDArray[np.int64]
    mouth: tuple[str, ...]
    mouth_lake: npt.NDArray[np.int64]
    source_lake: npt.NDArray[np.int64]
    lakes: tuple[Lake, ...]
    carve: dict[str, float]

    @property
    def segment_count(self) -> int:
        return len(self.order)

    def next_segments(self) -> npt.NDArray[np.int64]:
        """(S,) int64: the segment each flows into, through a lake to the lake's outlet; -1 for none."""
        out = self.downstream.copy()
        outlet = {int(lk): s for s, lk in enumerate(self.source_lake.tolist()) if lk >= 0}
        for s in np.flatnonzero((out < 0) & (self.mouth_lake >= 0)).tolist():
            out[s] = outlet.get(int(self.mouth_lake[s]), -1)
        return out

    def segment(self, s: int) -> slice:
        """Slice of segment ``s``'s points."""
        return slice(int(self.starts[s]), int(self.starts[s + 1]))

    def rows_cols(self, cells: npt.ArrayLike | None = None) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``(rows, cols)`` float64 of points (all of them by default)."""
        cells = self.cells if cells is None else cells
        r, c = np.divmod(np.asarray(cells, np.int64), self.shape[1])
        return r.astype(np.float64), c.astype(np.float64)


def accumulate(rec: npt.NDArray[np.int64], area: float) -> npt.NDArray[np.float64]:
    """Upstream area of every cell: ``sum_j A^j`` of the cell areas along the receivers ``rec``
    (int64, ``n`` = off the map; every chain ends there), by pointer doubling.

    >>> accumulate(np.array([1, 2, 3]), 2.0).tolist()
    [2.0, 4.0, 6.0]
    """
    n = rec.size
    x = np.full(n + 1, float(area))
    x[n] = 0.0
    p = np.append(np.asarray(rec, np.int64), n)
    p[np.flatnonzero(p[:n] == np.arange(n))] = n  # a cell passing to itself keeps its water
    while True:
        x += np.bincount(p, weights=x, minlength=n + 1)
        x[n] = 0.0
        p = p[p]
        if (p == n).all():
            break
    return x[:n]


def tree_minimum(values: npt.ArrayLike, down: npt.ArrayLike, *, sink: int) -> npt.NDArray[np.float64]:
    """For every node, the least of ``values`` over itself and every node upstream of it.

    ``down`` (int64) gives each node's next node downstream, ``sink`` where there is none.
    Pointer doubling: round ``k`` passes minima ``2^k`` steps down at once.

    >>> tree_minimum(np.array([3.0, 5.0, 4.0, 9.0]), np.array([2, 2, 3, 4]), sink=4).tolist()
    [3.0, 5.0, 3.0, 3.0]
    """
    x = np.append(np.asarray(values, np.float64), np.inf)
    p = np.append(np.asarray(down, np.int64), sink)
    while True:
        live = p != sink
        if not live[:-1].any():
            break
        src = np.flatnonzero(live)
        np.minimum.at(x, p[src], x[src])
        p = p[p]
    return x[:-1]


def _label_lakes(
    h: npt.NDArray[np.float64],
    filled: npt.NDArray[np.float64],
    sea: npt.NDArray[np.bool_],
    cell_size: float,
    min_area: float,
    min_depth: float,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Lakes: 8-connected cells held under water (``filled > h``) at one level, not sea, at least
    ``min_area`` m^2 and ``min_depth`` m deep.  Returns ``(lake id per cell (-1 none), levels)``."""
    rows, cols = h.shape
    n = h.size
    wet = (filled > h) & ~sea
    lake = np.full(n, -1, np.int64)
    if not wet.any():
        return lake, np.empty(0)
    parent = np.arange(n, dtype=np.int64)
    fw, ff = wet.reshape(-1), filled.reshape(-1)
    a_all, b_all = [], []
    for dy, dx in _PAIRS:
        r0, r1 = 0, rows - dy
        c0, c1 = max(0, -dx), cols - max(0, dx)
        rr, cc = np.mgrid[r0:r1, c0:c1]
        a = (rr * cols + cc).reshape(-1)
        b = a + dy * cols + dx
        keep = fw[a] & fw[b] & (ff[a] == ff[b])
        a_all.append(a[keep])
        b_all.append(b[keep])
    parent = join_roots(parent, np.concatenate(a_all), np.concatenate(b_all))
    cells = np.flatnonzero(fw)
    roots, which = np.unique(parent[cells], return_inverse=True)
    count = np.bincount(which)
    deepest = np.zeros(roots.size)
    np.maximum.at(deepest, which, (ff - h.reshape(-1))[cells])
    keep = (count * (cell_size * cell_size) >= min_area) & (deepest >= min_depth)
    new_id = np.full(roots.size, -1, np.int64)
    new_id[keep] = np.arange(int(keep.sum()))
    lake[cells] = new_id[which]
    levels = np.zeros(int(keep.sum()))
    levels[new_id[which][new_id[which] >= 0]] = ff[cells][new_id[which] >= 0]
    return lake, levels


def outline(cells: npt.ArrayLike, shape: tuple[int, int]) -> npt.NDArray[np.float64]:
    """The outer boundary of a set of cells as a closed loop of cell corners ``(row, col)``
    (half-integers), counter-clockwise seen from above (rows along +Y, columns along +X), the
    first point not repeated.  Corners where the set touches itself diagonally are passed by
    turning so the region stays on the left.

    >>> outline(np.array([0, 1]), (1, 2)).tolist()
    [[-0.5, -0.5], [-0.5, 1.5], [0.5, 1.5], [0.5, -0.5]]
    """
    rows, cols = shape
    mask = np.zeros((rows + 2, cols + 2), bool)
    r, c = np.divmod(np.asarray(cells, np.int64), cols)
    mask[r + 1, c + 1] = True
    # directed boundary edges with the region on the left, between corner points (integer
    # corner (i, j) = the corner at row i - 0.5, col j - 0.5 of the unpadded grid + 1)
    edges: dict[tuple[int, int], list[tuple[int, int]]] = {}
    inside = np.argwhere(mask)
    for i, j in inside.tolist():
        if not mask[i - 1, j]:  # below (smaller row = -Y): edge along +col at row i
            edges.setdefault((i, j), []).append((i, j + 1))
        if not mask[i, j + 1]:  # right: edge along +row at col j + 1
            edges.setdefault((i, j + 1), []).append((i + 1, j + 1))
        if not mask[i + 1, j]:  # above: edge along -col at row i + 1
            edges.setdefault((i + 1, j + 1), []).append((i + 1, j))
        if not mask[i, j - 1]:  # left: edge along -row at col j
            edges.setdefault((i + 1, j), []).append((i, j))
    if not edges:
        return np.empty((0, 2))
    loops = []
    while edges:
        start = min(edges)
        loop = [start]
        prev = None
        cur = start
        while True:
            outs = edges[cur]
            if len(outs) == 1 or prev is None:
                nxt = outs[0]
            else:
                # two ways on at a diagonal touch: the sharpest left turn keeps the region on the left
                din = (cur[0] - prev[0], cur[1] - prev[1])
                nxt = max(outs, key=lambda o: _left(din, (o[0] - cur[0], o[1] - cur[1])))
            outs.remove(nxt)
            if not outs:
                del edges[cur]
            prev, cur = cur, nxt
            if cur == start:
                break
            loop.append(cur)
        loops.append(loop)
    # the outer boundary: the loop that encloses the largest signed area
    best = max(loops, key=lambda lp: _area(lp))
    pts = np.array(best, np.float64) - 1.5
    return _drop_straight(pts)


def _left(din: tuple[int, int], dout: tuple[int, int]) -> int:
    """Turn order: left (2) > straight (1) > right (0)."""
    cross = din[1] * dout[0] - din[0] * dout[1]  # (col, row) frame: + is counter-clockwise
    return 2 if cross > 0 else (1 if cross == 0 else 0)


def _area(loop: list[tuple[int, int]]) -> int:
    a = 0
    for (r0, c0), (r1, c1) in zip(loop, loop[1:] + loop[:1]):
        a += c0 * r1 - c1 * r0
    return a


def _drop_straight(pts: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Corners only: points in the middle of a straight run removed."""
    if len(pts) < 3:
        return pts
    prev, nxt = np.roll(pts, 1, axis=0), np.roll(pts, -1, axis=0)
    d1, d2 = pts - prev, nxt - pts
    turn = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
    return pts[turn != 0]


def _bank_low(
    h: npt.NDArray[np.float64],
    rec: npt.NDArray[np.int64],
    cells: npt.NDArray[np.int64],
    starts: npt.NDArray[np.int64],
    width: npt.NDArray[np.float64],
    cell_size: float,
) -> npt.NDArray[np.float64]:
    """Per channel cell (in segment order): the lower of the ground at ``width / 2`` plus a cell to
    either side, across the direction of its segment (central differences along the cells and the
    cell after them)."""
    rows, cols = h.shape
    n = h.size
    out = np.empty(cells.size)
    for s in range(starts.size - 1):
        own = cells[starts[s] : starts[s + 1]]
        nxt = rec[own[-1]]
        line = own if nxt >= n else np.append(own, nxt)
        r, c = np.divmod(line, cols)
        r, c = r.astype(np.float64), c.astype(np.float64)
        if line.size >= 2:
            dr, dc = np.gradient(r), np.gradient(c)
        else:
            dr, dc = np.zeros(1), np.ones(1)
        norm = np.sqrt(dr * dr + dc * dc)  # (np.hypot is the C library's: not the same bits everywhere)
        norm[norm == 0.0] = 1.0
        nr, nc = -dc / norm, dr / norm
        off = (0.5 * width[line] + cell_size) / cell_size
        left = bilinear(h, r + nr * off, c + nc * off)
        right = bilinear(h, r - nr * off, c - nc * off)
        out[starts[s] : starts[s + 1]] = np.minimum(left, right)[: own.size]
    return out


def bank_lows(network: RiverNetwork, ground: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Per point of ``network``: the lower of ``ground`` at half the water's width plus a cell to
    either side, across its segment's direction (central differences along the points); the
    points of a segment of one point get +inf."""
    cell = network.cell_size
    rows, cols = network.rows_cols()
    out = np.full(network.cells.size, np.inf)
    for s in range(network.segment_count):
        sl = network.segment(s)
        r, c = rows[sl], cols[sl]
        if r.size < 2:
            continue
        dr, dc = np.gradient(r), np.gradient(c)
        norm = np.sqrt(dr * dr + dc * dc)  # (np.hypot is the C library's: not the same bits everywhere)
        norm[norm == 0.0] = 1.0
        nr, nc = -dc / norm, dr / norm
        off = (network.half_width[sl] + cell) / cell
        left = bilinear(ground, r + nr * off, c + nc * off)
        right = bilinear(ground, r - nr * off, c - nc * off)
        out[sl] = np.minimum(left, right)
    return out


def _strahler(
    seg_donors: dict[int, list[int]],
    topo: list[int],
    lake_of_outlet: dict[int, int],
    lake_inflows: dict[int, list[int]],
    count: int,
) -> npt.NDArray[np.int64]:
    order = np.zeros(count, np.int64)
    for s in topo:
        donors = list(seg_donors.get(s, ()))
        lake = lake_of_outlet.get(s)
        if lake is not None:
            donors += lake_inflows.get(lake, [])
        if not donors:
            order[s] = 1
            continue
        orders = order[donors]
        top = int(orders.max())
        order[s] = top + 1 if int((orders == top).sum()) >= 2 else top
    return order


def river_network(
    heights: npt.ArrayLike,
    *,
    cell_size: float,
    threshold: float,
    width_scale: float = 6.0,
    depth_scale: float = 1.5,
    min_width: float = 1.0,
    sea_level: float | None = None,
    lakes: bool = True,
    lake_min_area: float = 2000.0,
    lake_min_depth: float = 0.5,
    bank_slope: float = 0.5,
    bank_width: float = 4.0,
    max_cells: int | None = None,
) -> RiverNetwork:
    """Plan the rivers of ``heights`` (see the module's notes).

    Parameters
    ----------
    heights : (rows, cols) array of float, metres
        The terrain after erosion (a tiled world: the whole world's grid).
    cell_size : float, metres
    threshold : float, m^2
        Upstream area from which a cell is a channel; at least 4 cells' area.
    width_scale, depth_scale : float, metres
        Water width and depth where the upstream area is 1 km^2.
    min_width : float, metres
        Narrowest water.
    sea_level : float or None
        The sea's cells (``core.biomes.sea_mask``: at or below it when it is above 0, below it
        otherwise) are mouths; None: no sea.
    lakes : bool
        Keep lakes where filled pits hold water; False: rivers run through pits (breached).
    lake_min_area, lake_min_depth : float
        Smallest lake kept (m^2) and its least deepest water (m).
    bank_slope : float
        Rise of the carved banks per metre across.
    bank_width : float, metres
        Width of the bank beyond the water (the bank masks).
    max_cells : int or None
        Most channel cells (a guard; None: the whole map).

    Returns
    -------
    RiverNetwork (``z`` is the bed before carving; :func:`core.rivers.carve_rivers` sets it to the
    carved ground's, which :func:`core.rivers.rivers` does).
    """
    h = np.asarray(heights, np.float64)
    rows, cols = h.shape
    n = h.size
    cell_area = cell_size * cell_size
    if threshold < 4.0 * cell_area:
        raise ParameterError(
            f"rivers.threshold {threshold:g} m² is less than 4 cells of {cell_size:g} m ({4.0 * cell_area:g} m²): "
            "every slope would be a river"
        )
    rec = erosion.flow_receivers(h)
    area = accumulate(rec, cell_area)
    sea = np.zeros(n, bool) if sea_level is None else sea_mask(h, sea_level=sea_level).reshape(-1)
    if lakes:
        filled = erosion.fill_pits(h, epsilon=0.0)
        lake_id, levels = _label_lakes(h, filled, sea.reshape(h.shape), cell_size, lake_min_area, lake_min_depth)
    else:
        lake_id, levels = np.full(n, -1, np.int64), np.empty(0)
    channel = (area >= threshold) & ~sea & (lake_id < 0)
    chan_cells = np.flatnonzero(channel)
    if max_cells is not None and chan_cells.size > max_cells:
        raise ParameterError(
            f"rivers.threshold {threshold:g} m² makes {chan_cells.size:,} channel cells; at most {max_cells:,} "
            f"(raise the threshold)"
        )
    ext = np.append(channel, False)  # index n: off the map
    rec_c = rec[chan_cells]
    donors = np.bincount(rec_c, minlength=n + 1)[:n]  # channel donors of each cell
    lake_cells = np.flatnonzero(lake_id >= 0)
    lake_in = np.zeros(n + 1, bool)
    lake_in[rec[lake_cells]] = True
    head = channel & ((donors != 1) | lake_in[:n])
    # each channel cell's segment end: down the receivers while the next cell is a channel cell
    # that starts no segment
    nxt = np.arange(n, dtype=np.int64)
    cont = ext[rec_c] & ~np.append(head, False)[rec_c]
    nxt[chan_cells[cont]] = rec_c[cont]
    end = nxt.copy()
    while True:
        moved = end[end]
        if np.array_equal(moved, end):
            break
        end = moved
    seg_end = end[chan_cells]
    ends, seg_of = np.unique(seg_end, return_inverse=True)  # segments ordered by their last cell
    count = ends.size
    order_in = np.lexsort((area[chan_cells], seg_of))
    cells_sorted = chan_cells[order_in]
    seg_sorted = seg_of[order_in]
    own_starts = np.searchsorted(seg_sorted, np.arange(count + 1))
    seg_of_cell = np.full(n + 1, -1, np.int64)
    seg_of_cell[chan_cells] = seg_of
    # where each segment goes
    after = rec[ends]
    downstream = seg_of_cell[after]
    mouth = []
    mouth_lake = np.full(count, -1, np.int64)
    extra = np.full(count, -1, np.int64)  # the mouth cell appended to the points
    for s in range(count):
        a = int(after[s])
        if downstream[s] >= 0:
            mouth.append("")
            extra[s] = a
        elif a == n:
            mouth.append("edge")
        elif sea[a]:
            mouth.append("sea")
            extra[s] = a
        elif lake_id[a] >= 0:
            mouth.append("lake")
            mouth_lake[s] = lake_id[a]
            extra[s] = a
        else:
            mouth.append("sink")
    # hydraulics per cell (of channel cells, and the mouths' cells take their segment's)
    km2 = area / 1.0e6
    width_c = np.maximum(min_width, width_scale * exact.pow(km2, WIDTH_EXPONENT))
    depth_c = depth_scale * exact.pow(km2, DEPTH_EXPONENT)
    # water surface: the lowest original ground on the way down (a running minimum down the tree)
    down = np.where(ext[rec_c], rec_c, n)
    local = np.full(n, n, np.int64)
    local[chan_cells] = np.arange(chan_cells.size)
    down_local = np.where(down < n, local[np.minimum(down, n - 1)], chan_cells.size)
    # ... and below the lower bank beside it (a freeboard under the ground half a water width and
    # a cell to either side across the flow), so the bed lies below both banks
    start = np.minimum(
        h.reshape(-1)[chan_cells],
        _bank_low(h, rec, cells_sorted, own_starts, width_c, cell_size)[np.argsort(order_in)] - FREEBOARD,
    )
    surf_c = tree_minimum(start, down_local, sink=chan_cells.size)
    surface = np.full(n, np.nan)
    surface[chan_cells] = surf_c
    # Strahler order, upstream segments first (a segment's area is below its downstream one's)
    seg_area = area[ends]
    topo = np.argsort(seg_area, kind="stable")
    seg_donors: dict[int, list[int]] = {}
    for s in np.flatnonzero(downstream >= 0).tolist():
        seg_donors.setdefault(int(downstream[s]), []).append(s)
    first_cells = cells_sorted[own_starts[:-1]]
    lake_of_outlet: dict[int, int] = {}
    for s in range(count):
        fc = int(first_cells[s])
        if lake_in[fc]:
            ups = np.flatnonzero(rec[lake_cells] == fc)
            lake_of_outlet[s] = int(lake_id[lake_cells[ups[0]]])
    lake_inflows: dict[int, list[int]] = {}
    for s in np.flatnonzero(mouth_lake >= 0).tolist():
        lake_inflows.setdefault(int(mouth_lake[s]), []).append(s)
    # a lake's inflows are upstream of its outlet: their areas are smaller, so topo has them first
    order = _strahler(seg_donors, topo.tolist(), lake_of_outlet, lake_inflows, count)
    # the points: own cells, then the mouth or junction cell
    pieces: list[npt.NDArray[np.int64]]
    starts: list[int] | npt.NDArray[np.int64]
    pieces, starts = [], [0]
    for s in range(count):
        own = cells_sorted[own_starts[s] : own_starts[s + 1]]
        pts = own if extra[s] < 0 else np.append(own, extra[s])
        pieces.append(pts)
        starts.append(starts[-1] + pts.size)
    cells = np.concatenate(pieces) if pieces else np.empty(0, np.int64)
    starts = np.array(starts, np.int64)
    last_own = np.repeat(ends, np.diff(starts))  # each point's segment's last own cell
    is_extra = ~channel[cells]
    p_depth = np.where(is_extra, depth_c[last_own], depth_c[cells])
    p_width = np.where(is_extra, width_c[last_own], width_c[cells])
    p_surface = surface[cells]
    # a mouth cell (sea, lake): its water at the lower of its ground and the river's surface
    hp = h.reshape(-1)[cells]
    mouth_surface = np.minimum(surface[last_own], hp + p_depth)
    p_surface = np.where(is_extra & ~channel[cells], np.where(np.isnan(p_surface), mouth_surface, p_surface), p_surface)
    p_z = p_surface - p_depth
    # the banks rise at bank_slope from the water's edge to the depth above the point's own ground
    # (at most MAX_BANK_CELLS cells beyond the water)
    rise = np.maximum(hp - p_surface, 0.0) + p_depth
    p_reach = 0.5 * p_width + np.minimum(rise / bank_slope, MAX_BANK_CELLS * cell_size)
    lake_list = []
    for k in range(levels.size):
        lc = np.flatnonzero(lake_id == k)
        lake_list.append(Lake(lc, float(levels[k]), outline(lc, (rows, cols))))
    return RiverNetwork(
        shape=(rows, cols),
        cell_size=float(cell_size),
        cells=cells,
        z=p_z,
        surface=p_surface,
        depth=p_depth,
        half_width=0.5 * p_width,
        reach=p_reach,
        starts=starts,
        order=order,
        area=seg_area,
        width=width_c[ends],
        seg_depth=depth_c[ends],
        downstream=downstream.astype(np.int64),
        mouth=tuple(mouth),
        mouth_lake=mouth_lake,
        source_lake=np.array([lake_of_outlet.get(s, -1) for s in range(count)], np.int64),
        lakes=tuple(lake_list),
        carve={"bank_slope": float(bank_slope), "bank_width": float(bank_width)},
    )
