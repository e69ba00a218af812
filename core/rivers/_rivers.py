"""Plan, carve and check a river network in one call (``plan_rivers``), and the spec's door (``build_rivers``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import check_array, check_float
from ..errors import ParameterError
from ._carve import RiverMaps, carve_network, channel_down
from ._network import FREEBOARD, MAX_BANK_CELLS, RiverNetwork, bank_lows, river_network, tree_minimum
from .spec import RiversSpec, plan_kwargs

__all__ = ["Rivers", "plan_rivers", "carve_rivers", "build_rivers", "MAX_BANK_ROUNDS"]

#: Rounds of lowering a river's water under banks that nearby rivers carved lower.
MAX_BANK_ROUNDS = 1


@dataclass(frozen=True, eq=False)
class Rivers:
    """A terrain's rivers: the network (``RiverNetwork``) and the carved tile with its maps (``RiverMaps``)."""

    network: RiverNetwork
    maps: RiverMaps


def plan_rivers(
    heights: npt.ArrayLike,
    *,
    cell_size: float,
    threshold: float,
    sea_level: float | None = None,
    reach: float = 64.0,
    carve: bool = True,
    **kwargs: Any,
) -> RiverNetwork:
    """The river network of ``heights`` with its final bed heights (see ``core.rivers``)."""
    h = check_array(heights, name="heights", ndim=2).astype(np.float64, copy=False)
    if min(h.shape) < 3:
        raise ParameterError(f"heights must be at least 3 x 3 cells for rivers, got shape {h.shape}")
    cell_size = check_float(cell_size, name="cell_size", bounds=(0.0, None), open_low=True)
    threshold = check_float(threshold, name="threshold", bounds=(0.0, None), open_low=True)
    network = river_network(h, cell_size=cell_size, threshold=threshold, sea_level=sea_level, **kwargs)
    if not carve:
        return network
    uniq, down = channel_down(network)
    where = np.searchsorted(uniq, network.cells)
    own = np.ones(network.cells.size, bool)
    # a segment's last point is the next segment's first (a junction) or the sea's or a lake's
    # cell, except where it leaves the map
    own[network.starts[1:] - 1] = [m in ("edge", "sink") for m in network.mouth]
    for _ in range(MAX_BANK_ROUNDS):
        first = carve_network(network, h, carve=True, reach=reach, pin=False).heights
        # keep the water under the lower carved bank beside it (a deeper river's bank nearby can
        # carve below a stream's bed): lower the surface there, and everything downstream
        low = bank_lows(network, first) - FREEBOARD
        low[~own] = np.inf
        start = np.full(uniq.size, np.inf)
        np.minimum.at(start, where, np.minimum(network.surface, low))
        if not (start[where] < network.surface).any():
            break
        surface = tree_minimum(start, down, sink=uniq.size)[where]
        network = _with_surface(network, h, surface)
    first = carve_network(network, h, carve=True, reach=reach, pin=False).heights
    bed = tree_minimum(first.reshape(-1)[uniq], down, sink=uniq.size)
    return dataclasses.replace(network, z=bed[where])


def _with_surface(network: RiverNetwork, h: npt.NDArray[np.float64], surface: npt.NDArray[np.float64]) -> RiverNetwork:
    """``network`` with new water surfaces (beds and reaches follow)."""
    ground = h.reshape(-1)[network.cells]
    rise = np.maximum(ground - surface, 0.0) + network.depth
    reach = network.half_width + np.minimum(rise / network.carve["bank_slope"], MAX_BANK_CELLS * network.cell_size)
    return dataclasses.replace(network, surface=surface, z=surface - network.depth, reach=reach)


def carve_rivers(
    heights: npt.ArrayLike,
    network: RiverNetwork,
    *,
    offset: tuple[int, int] = (0, 0),
    carve: bool = True,
    reach: float = 64.0,
) -> RiverMaps:
    """Carve ``network`` into the tile ``heights`` whose first cell is ``offset`` = ``(row, col)``
    of the network's grid (a tiled world: every tile from the one plan; seams agree)."""
    if not isinstance(network, RiverNetwork):
        raise ParameterError(f"network must be a RiverNetwork, got {type(network).__name__}")
    h = check_array(heights, name="heights", ndim=2).astype(np.float64, copy=False)
    return carve_network(network, h, offset=offset, carve=carve, reach=reach, pin=True)


def build_rivers(
    heights: npt.ArrayLike, spec: RiversSpec, *, cell_size: float, sea_level: float | None = None
) -> Rivers:
    """The rivers of one terrain from its ``[rivers]`` spec: plan, carve, maps (``Rivers``).

    ``heights`` (metres) after erosion; ``sea_level`` (metres) or None for no sea.
    """
    kwargs = plan_kwargs(spec)
    reach, carve = kwargs.pop("reach"), kwargs.pop("carve")
    network = plan_rivers(heights, cell_size=cell_size, sea_level=sea_level, reach=reach, carve=carve, **kwargs)
    return Rivers(network, carve_rivers(heights, network, carve=carve, reach=reach))
