"""Carving a river network into a heightmap tile, and the maps the rest reads.

Every point of the network (a cell of the planned grid, with its water surface ``s``, depth ``D``,
half width ``W`` and reach ``R``) shapes the ground within ``R`` of it, at distance ``r``:

* ``s - D (1 - (r / W)^2)`` across the water (a parabolic bed, ``s - D`` at the centre line,
  the surface at the water's edge);
* ``s + (r - W) bank_slope`` beyond it (banks rising to the ground),

and the carved ground is the least of the original height and every point's shape, then no
higher than each point's own ``z`` (the network's bed heights, non-increasing downstream).  Each
cell's value depends only on the points within reach, in the planned grid's coordinates, so a
tile carved from the world's plan agrees with the world carved whole, cell for cell: along a seam
both tiles hold the same heights.  The points go out one offset at a time (a few thousand offsets
within the widest reach; the points reaching that far each time), as whole-array operations.

Maps: ``river`` (water cover in [0, 1]: 1 within the water, 0 half a cell beyond its edge),
``lake`` (bool), ``water_distance`` (metres from the nearest river water or lake, ``inf``
beyond ``reach``; over a margin of ``reach`` so it too joins at seams), ``bank`` (in [0, 1]: 1 at
the water's edge, falling to 0 at ``bank_width`` metres; 0 in the water) and ``exclusion`` (bool:
every cell any water covers at all: no scatter prop or plant stands there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..biomes import bounded_distance

if TYPE_CHECKING:
    from ._network import RiverNetwork

__all__ = ["RiverMaps", "carve_network", "channel_down"]


@dataclass(frozen=True, eq=False)
class RiverMaps:
    """A tile's carved heights and river maps, each (rows, cols) like the tile.

    Attributes
    ----------
    heights : float64, metres
        Carved (the original heights where nothing is carved).
    river : float32 in [0, 1]
        Water cover of the rivers.
    width : float32, metres
        Width of the widest river whose water reaches the cell (0 elsewhere): what a bridge spans.
    bank : float32 in [0, 1]
        Bank preference (reeds): 1 at the water's edge, 0 at ``bank_width`` and in the water.
    lake : bool
    water : bool
        River water (cover at least 1/2) or lake.
    water_distance : float32, metres
        To the nearest water; ``inf`` beyond the reach.
    exclusion : bool
        No scatter here: every cell any water covers at all (river cover above 0, or lake).
    """

    heights: npt.NDArray[np.float64]
    river: npt.NDArray[np.float32]
    width: npt.NDArray[np.float32]
    bank: npt.NDArray[np.float32]
    lake: npt.NDArray[np.bool_]
    water: npt.NDArray[np.bool_]
    water_distance: npt.NDArray[np.float32]
    exclusion: npt.NDArray[np.bool_]

    @property
    def splat_maps(self) -> dict[str, npt.NDArray[np.float32]]:
        """``{"river": ..., "bank": ...}``: the maps of the ``river`` and ``bank`` splat rules."""
        return {"river": self.river, "bank": self.bank}


def channel_down(network: RiverNetwork) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``(cells, down)``: the network's distinct cells (sorted) and, for each, the index of the
    next cell downstream in that list (``len(cells)`` for none: mouths and the map's edge)."""
    cells = network.cells
    uniq = np.unique(cells)
    pos = np.searchsorted(uniq, cells)
    down = np.full(uniq.size, uniq.size, np.int64)
    starts = network.starts
    for s in range(network.segment_count):
        a, b = int(starts[s]), int(starts[s + 1])
        if b - a >= 2:
            down[pos[a : b - 1]] = pos[a + 1 : b]
    return uniq, down


def _offsets(max_cells: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Integer offsets within ``max_cells`` (a disc), sorted by distance (then row, column):
    ``(dy, dx, distance in cells)``."""
    k = int(max_cells)
    dy, dx = np.mgrid[-k : k + 1, -k : k + 1]
    d2 = (dy * dy + dx * dx).reshape(-1)
    keep = d2 <= k * k
    dy, dx, d2 = dy.reshape(-1)[keep], dx.reshape(-1)[keep], d2[keep]
    order = np.lexsort((dx, dy, d2))
    return dy[order], dx[order], np.sqrt(d2[order].astype(np.float64))


def carve_network(
    network: RiverNetwork,
    heights: npt.ArrayLike,
    *,
    offset: tuple[int, int] = (0, 0),
    carve: bool = True,
    reach: float = 64.0,
    pin: bool = True,
) -> RiverMaps:
    """Carve ``network`` (planned on a bigger grid or this one) into the tile ``heights`` whose
    first cell is cell ``offset`` = ``(row, col)`` of the planned grid; returns :class:`RiverMaps`.

    ``pin``: also lower each network cell to the network's ``z`` (the final beds); the plan's own
    first pass works without it and then sets ``z`` from the result.
    """
    h = np.asarray(heights, np.float64)
    rows, cols = h.shape
    row0, col0 = int(offset[0]), int(offset[1])
    cell = network.cell_size
    margin = max(1, math.ceil(reach / cell - 1e-9))
    wr, wc = rows + 2 * margin, cols + 2 * margin  # the window: the tile and a margin around it
    w_row0, w_col0 = row0 - margin, col0 - margin
    uniq, first = np.unique(network.cells, return_index=True)
    pr, pc = np.divmod(uniq, network.shape[1])
    s_ = network.surface[first]
    d_ = network.depth[first]
    w_ = network.half_width[first]
    r_ = np.where(carve, network.reach[first], w_ + 0.5 * cell)
    r_cells = r_ / cell
    # the points that reach into the window
    ly, lx = pr - w_row0, pc - w_col0
    near = (ly + r_cells >= 0) & (ly - r_cells <= wr - 1) & (lx + r_cells >= 0) & (lx - r_cells <= wc - 1)
    order = np.argsort(-r_cells[near], kind="stable")
    idx = np.flatnonzero(near)[order]
    ly, lx, s_, d_, w_, r_, r_cells = ly[idx], lx[idx], s_[idx], d_[idx], w_[idx], r_[idx], r_cells[idx]
    slope = network.carve["bank_slope"]
    lowest = np.full(wr * wc, np.inf)
    cover = np.zeros(wr * wc, np.float32)
    widest = np.zeros(wr * wc, np.float32)
    dist: npt.NDArray[np.float64] | npt.NDArray[np.float32]  # the offsets' lengths, then the tile's distances
    if idx.size:
        dy, dx, dist = _offsets(math.floor(r_cells[0]))
        reach_desc = -r_cells  # ascending
        counts = np.searchsorted(reach_desc, -dist, side="right")  # points with r_cells >= dist
        for oy, ox, dc, k in zip(dy.tolist(), dx.tolist(), dist.tolist(), counts.tolist()):
            if k == 0:
                continue
            ty = ly[:k] + oy
            tx = lx[:k] + ox
            inside = (ty >= 0) & (ty < wr) & (tx >= 0) & (tx < wc)
            if not inside.any():
                continue
            sel = np.flatnonzero(inside)
            t = ty[sel] * wc + tx[sel]
            r = dc * cell
            ws, ss, ds = w_[sel], s_[sel], d_[sel]
            wet = r < ws
            shape = np.where(wet, ss - ds * (1.0 - (r / ws) * (r / ws)), ss + (r - ws) * slope)
            np.minimum(lowest[t], shape, out=shape)
            lowest[t] = shape
            c = np.clip((ws - r) / cell + 0.5, 0.0, 1.0).astype(np.float32)
            np.maximum(cover[t], c, out=c)
            cover[t] = c
            wide = np.where(r < ws + 0.5 * cell, 2.0 * ws, 0.0).astype(np.float32)
            np.maximum(widest[t], wide, out=wide)
            widest[t] = wide
    lowest = lowest.reshape(wr, wc)
    cover = cover.reshape(wr, wc)
    widest = widest.reshape(wr, wc)
    lake = np.zeros((wr, wc), bool)
    for lk in network.lakes:
        r, c = np.divmod(lk.cells, network.shape[1])
        r, c = r - w_row0, c - w_col0
        ok = (r >= 0) & (r < wr) & (c >= 0) & (c < wc)
        lake[r[ok], c[ok]] = True
    water_w = (cover >= 0.5) | lake
    inner = (slice(margin, margin + rows), slice(margin, margin + cols))
    out = h.copy()
    if carve:
        np.minimum(out, lowest[inner], out=out)
        if pin:
            ly2, lx2 = pr - row0, pc - col0
            ok = (ly2 >= 0) & (ly2 < rows) & (lx2 >= 0) & (lx2 < cols)
            zc = network.z[first]
            out[ly2[ok], lx2[ok]] = np.minimum(out[ly2[ok], lx2[ok]], zc[ok])
    if water_w.any():
        dist_w = bounded_distance(water_w, reach=reach, cell_size=cell)
    else:
        dist_w = np.full((wr, wc), np.inf)
    water = water_w[inner]
    dist = dist_w[inner].astype(np.float32)
    bank_width = network.carve["bank_width"]
    if bank_width > 0.0:
        bank = np.clip(1.0 - dist / np.float32(bank_width), 0.0, 1.0).astype(np.float32)
    else:
        bank = np.zeros(dist.shape, np.float32)
    bank[water] = 0.0
    exclusion = (cover[inner] > 0.0) | lake[inner]
    return RiverMaps(
        heights=out,
        river=np.ascontiguousarray(cover[inner]),
        width=np.ascontiguousarray(widest[inner]),
        bank=bank,
        lake=np.ascontiguousarray(lake[inner]),
        water=np.ascontiguousarray(water),
        water_distance=dist,
        exclusion=exclusion,
    )
