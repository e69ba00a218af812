"""Statistics of a river network: Horton's bifurcation ratio and Hack's exponent.

* Horton's law of stream numbers: ``N_k``, the number of Strahler streams of order ``k`` (a
  stream: the run of segments of one order, from where that order starts down to where it
  rises), falls geometrically, ``N_k / N_(k+1) = R_b``; natural networks have ``R_b`` in 3..5.
  :func:`horton_ratio` fits ``log N_k`` against ``k`` by least squares over the basins whose
  outlet reaches at least ``min_order`` (smaller basins only add first-order streams).
* Hack's law: the length ``L`` of the longest flow path from a point up to the divide grows as
  ``A^h`` of the point's upstream area, ``h`` about 0.5..0.7 in nature.  :func:`hack_exponent`
  fits ``log L`` against ``log A`` over every channel cell; ``L`` follows the D8 receivers (each
  step the distance between cell centres), computed in waves from the ridges down (a cell is
  done once all the cells draining into it are).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .. import erosion
from ._network import RiverNetwork, accumulate

__all__ = ["stream_numbers", "horton_ratio", "hack_exponent", "upstream_length"]


def stream_numbers(network: RiverNetwork, *, min_order: int = 3) -> dict[int, int]:
    """``{order: N_k}`` over the basins whose outlet segment has at least ``min_order``."""
    count = network.segment_count
    order = network.order
    down = network.next_segments()  # through lakes to their outlets
    # each segment's outlet segment, by pointer doubling down the segments
    outlet = np.where(down >= 0, down, np.arange(count))
    while True:
        nxt = outlet[outlet]
        if np.array_equal(nxt, outlet):
            break
        outlet = nxt
    keep = order[outlet] >= min_order
    # a stream starts at a segment none of whose donors has its order
    same_above = np.zeros(count, bool)
    for s in np.flatnonzero(down >= 0).tolist():
        if order[s] == order[down[s]]:
            same_above[down[s]] = True
    starts = keep & ~same_above
    orders, numbers = np.unique(order[starts], return_counts=True)
    return dict(zip(orders.tolist(), numbers.tolist()))


def horton_ratio(network: RiverNetwork, *, min_order: int = 3) -> float:
    """Bifurcation ratio ``R_b``: ``exp(-slope)`` of the least-squares line through ``(k, log N_k)``
    (nan with fewer than two orders)."""
    numbers = stream_numbers(network, min_order=min_order)
    if len(numbers) < 2:
        return float("nan")
    k = np.array(list(numbers), np.float64)
    logn = np.log(np.array(list(numbers.values()), np.float64))
    slope = np.polyfit(k, logn, 1)[0]
    return float(np.exp(-slope))


def upstream_length(
    heights: npt.ArrayLike, *, cell_size: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Length (metres) of the longest D8 flow path from every cell up to the divide, and the
    upstream area (m^2): ``(length, area)``, both (rows, cols) float64."""
    h = np.asarray(heights, np.float64)
    rows, cols = h.shape
    n = h.size
    rec = erosion.flow_receivers(h)
    area = accumulate(rec, cell_size * cell_size)
    ext = np.append(rec, n)
    ext[np.flatnonzero(ext[:n] == np.arange(n))] = n
    r0, c0 = np.divmod(np.arange(n), cols)
    r1, c1 = np.divmod(np.minimum(ext[:n], n - 1), cols)
    step = np.where((r0 != r1) & (c0 != c1), np.sqrt(2.0), 1.0) * cell_size
    length = np.zeros(n + 1)
    indegree = np.bincount(ext[:n], minlength=n + 1)
    front = np.flatnonzero(indegree[:n] == 0)
    while front.size:
        to = ext[front]
        np.maximum.at(length, to, length[front] + step[front])
        np.subtract.at(indegree, to, 1)
        to = np.unique(to[to < n])
        front = to[indegree[to] == 0]
    return length[:n].reshape(h.shape), area.reshape(h.shape)


def hack_exponent(network: RiverNetwork, heights: npt.NDArray[np.float64]) -> float:
    """Hack's exponent ``h`` of ``L ~ A^h`` over the network's channel cells (see the module's notes)."""
    length, area = upstream_length(heights, cell_size=network.cell_size)
    cells = np.unique(network.cells)
    lf, af = length.reshape(-1)[cells], area.reshape(-1)[cells]
    ok = (lf > 0) & (af > 0)
    return float(np.polyfit(np.log(af[ok]), np.log(lf[ok]), 1)[0])
