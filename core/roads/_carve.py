"""Cutting and filling a tile's ground under a road network, and the road maps.

Every cell finds the nearest point of any road's centre line (the nearest sample, then the pieces
on either side of it projected on), at distance ``d``, with the road's height ``z`` there (linear
between samples), its half width ``w`` and its shoulder ``w + SHOULDER_CELLS`` cells:

* within the shoulder the ground is the road's height (level across the road);
* beyond it, for ``embankment`` metres, it is held within ``z +- s (d - shoulder)``: cut or filled
  no steeper than the angle of repose (``s = sqrt(tan(repose)^2 - grade^2)``, so with the road's
  own grade along it the embankment's slope stays under the angle);
* under a bridge span nothing is changed.

``road`` (cover in [0, 1], 1 within the road's width and 0 half a cell beyond it, not on bridges) is
the ``road`` splat rule's map; ``clearing`` (bool: within the width plus ``margin``) keeps scatter
and plants off the road.  Each cell depends only on the network's samples near it (in the planned
grid's coordinates) and its own ground, so tiles carved from one world plan agree along seams.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ._network import SHOULDER_CELLS, RoadNetwork

__all__ = ["RoadMaps", "carve_network", "samples"]


@dataclass(frozen=True, eq=False)
class RoadMaps:
    """A tile's ground after the roads and their maps, (rows, cols) each.

    Attributes
    ----------
    heights : float64, metres
    road : float32 in [0, 1]
        Road cover (the ``road`` splat rule's map).
    clearing : bool
        No scatter here: the road's width plus the margin (bridges included).
    distance : float32, metres
        To the nearest centre line (``inf`` beyond the roads' reach).
    """

    heights: npt.NDArray[np.float64]
    road: npt.NDArray[np.float32]
    clearing: npt.NDArray[np.bool_]
    distance: npt.NDArray[np.float32]


def samples(network: RoadNetwork) -> dict[str, npt.NDArray[Any]]:
    """Every centre-line sample of the network: dict of (m,) arrays ``rows, cols, z, half, grade,
    bridge, edge, index`` (``index`` along its edge)."""
    parts: dict[str, list[npt.NDArray[Any]]] = {
        k: [] for k in ("rows", "cols", "z", "half", "grade", "bridge", "edge", "index")
    }
    for e, edge in enumerate(network.edges):
        cls = network.classes[edge.road_class]
        m = edge.rows.size
        parts["rows"].append(edge.rows)
        parts["cols"].append(edge.cols)
        parts["z"].append(edge.z)
        parts["half"].append(np.full(m, 0.5 * cls.width))
        parts["grade"].append(np.full(m, cls.max_grade))
        parts["bridge"].append(edge.bridge)
        parts["edge"].append(np.full(m, e, np.int64))
        parts["index"].append(np.arange(m, dtype=np.int64))
    if not network.edges:
        return {k: np.empty(0) for k in parts}
    return {k: np.concatenate(v) for k, v in parts.items()}


def _project(
    pr: npt.NDArray[np.float64],
    pc: npt.NDArray[np.float64],
    ar: npt.NDArray[np.float64],
    ac: npt.NDArray[np.float64],
    br: npt.NDArray[np.float64],
    bc: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Parameter t in [0, 1] of the nearest point to (pr, pc) on segments a -> b, and the squared
    distance in cells."""
    dr, dc = br - ar, bc - ac
    length2 = dr * dr + dc * dc
    safe = np.where(length2 > 0.0, length2, 1.0)
    t = np.clip(((pr - ar) * dr + (pc - ac) * dc) / safe, 0.0, 1.0)
    t = np.where(length2 > 0.0, t, 0.0)
    er, ec = ar + t * dr - pr, ac + t * dc - pc
    return t, er * er + ec * ec


def carve_network(network: RoadNetwork, heights: npt.ArrayLike, *, offset: tuple[int, int] = (0, 0)) -> RoadMaps:
    """Cut and fill the tile ``heights`` (first cell ``offset`` of the planned grid) under
    ``network``; returns :class:`RoadMaps`."""
    if not isinstance(network, RoadNetwork):
        raise TypeError(f"network must be a RoadNetwork, got {type(network).__name__}")
    h = np.asarray(heights, np.float64)
    rows, cols = h.shape
    row0, col0 = int(offset[0]), int(offset[1])
    cell = network.cell_size
    s = samples(network)
    out = h.copy()
    road = np.zeros(h.shape, np.float32)
    clearing = np.zeros(h.shape, bool)
    distance = np.full(h.shape, np.inf, np.float32)
    if not s["rows"].size:
        return RoadMaps(out, road, clearing, distance)
    carve = network.carve
    shoulder = SHOULDER_CELLS * cell
    reach_m = s["half"] + shoulder + max(carve["embankment"], carve["margin"] - shoulder, 0.0)
    reach = reach_m / cell
    max_cells = int(math.ceil(float(reach.max())))
    # the samples near the tile, in tile coordinates
    lr, lc = s["rows"] - row0, s["cols"] - col0
    near = (lr + reach >= 0) & (lr - reach <= rows - 1) & (lc + reach >= 0) & (lc - reach <= cols - 1)
    ids = np.flatnonzero(near)
    best = np.full(rows * cols, np.inf)
    which = np.full(rows * cols, -1, np.int64)
    if ids.size:
        base_r = np.rint(lr[ids]).astype(np.int64)
        base_c = np.rint(lc[ids]).astype(np.int64)
        # groups in which every sample has its own base cell (within one offset the targets differ)
        key = base_r * (cols + 4 * max_cells + 8) + base_c
        order = np.argsort(key, kind="stable")
        sk = key[order]
        first = np.r_[True, sk[1:] != sk[:-1]]
        start = np.maximum.accumulate(np.where(first, np.arange(sk.size), 0))
        rank = np.empty(sk.size, np.int64)
        rank[order] = np.arange(sk.size) - start
        k = max_cells
        dy, dx = np.mgrid[-k : k + 1, -k : k + 1]
        dy, dx = dy.reshape(-1), dx.reshape(-1)
        disc = dy * dy + dx * dx <= (k + 1) * (k + 1)
        dy, dx = dy[disc], dx[disc]
        for g in range(int(rank.max()) + 1):
            grp = ids[rank == g]
            br, bc = base_r[rank == g], base_c[rank == g]
            fr, fc = lr[grp], lc[grp]
            rg = reach[grp]
            for oy, ox in zip(dy.tolist(), dx.tolist()):
                tr, tc = br + oy, bc + ox
                inside = (tr >= 0) & (tr < rows) & (tc >= 0) & (tc < cols)
                if not inside.any():
                    continue
                sel = np.flatnonzero(inside)
                er, ec = tr[sel] - fr[sel], tc[sel] - fc[sel]
                d = np.sqrt(er * er + ec * ec)
                ok = d <= rg[sel]
                if not ok.any():
                    continue
                t = tr[sel][ok] * cols + tc[sel][ok]
                d = d[ok]
                who = grp[sel][ok]
                # the nearest, ties to the lower sample index: the same choice whatever the order
                better = (d < best[t]) | ((d == best[t]) & (who < which[t]))
                t = t[better]
                best[t] = d[better]
                which[t] = who[better]
    cells = np.flatnonzero(which >= 0)
    if not cells.size:
        return RoadMaps(out, road, clearing, distance)
    j = which[cells]
    pr, pc = np.divmod(cells, cols)
    pr = pr.astype(np.float64) + row0
    pc = pc.astype(np.float64) + col0
    # refine on the pieces either side of the nearest sample (same edge)
    total = s["rows"].size
    prev = np.where((j > 0) & (s["edge"][np.maximum(j - 1, 0)] == s["edge"][j]), j - 1, j)
    nxt = np.where((j < total - 1) & (s["edge"][np.minimum(j + 1, total - 1)] == s["edge"][j]), j + 1, j)
    t1, d1 = _project(pr, pc, s["rows"][prev], s["cols"][prev], s["rows"][j], s["cols"][j])
    t2, d2 = _project(pr, pc, s["rows"][j], s["cols"][j], s["rows"][nxt], s["cols"][nxt])
    use2 = d2 < d1
    a = np.where(use2, j, prev)
    b = np.where(use2, nxt, j)
    t = np.where(use2, t2, t1)
    d = np.sqrt(np.where(use2, d2, d1)) * cell
    z = s["z"][a] + t * (s["z"][b] - s["z"][a])
    half = s["half"][j]
    grade = s["grade"][j]
    on_bridge = s["bridge"][a] & s["bridge"][b]
    band = half + shoulder
    lateral = np.sqrt(np.maximum(carve["repose_slope"] * carve["repose_slope"] - grade * grade, 0.0))
    ground = out.reshape(-1)[cells]
    new = np.where(d <= band, z, np.clip(ground, z - lateral * (d - band), z + lateral * (d - band)))
    edit = ~on_bridge & (d <= band + carve["embankment"])
    flat_out = out.reshape(-1)
    flat_out[cells[edit]] = new[edit]
    cover = np.clip((half - d) / cell + 0.5, 0.0, 1.0).astype(np.float32)
    cover[on_bridge] = 0.0
    road.reshape(-1)[cells] = cover
    clearing.reshape(-1)[cells] = d <= half + carve["margin"]
    distance.reshape(-1)[cells] = d.astype(np.float32)
    return RoadMaps(out, road, clearing, distance)
