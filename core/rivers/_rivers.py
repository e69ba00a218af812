"""Plan, carve and check a river network in one call (``plan_rivers``), and the spec's door (``build_rivers``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .._checks import check_array, check_float
from ..errors import ParameterError
from ._carve import RiverMaps, carve_network, channel_down
from ._network import RiverNetwork, river_network, tree_minimum
from .spec import plan_kwargs

__all__ = ["Rivers", "plan_rivers", "carve_rivers", "build_rivers"]


@dataclass(frozen=True, eq=False)
class Rivers:
    """A terrain's rivers: the network (``RiverNetwork``) and the carved tile with its maps (``RiverMaps``)."""

    network: RiverNetwork
    maps: RiverMaps


def plan_rivers(heights, *, cell_size, threshold, sea_level=None, reach=64.0, carve=True, **kwargs):
    """The river network of ``heights`` with its final bed heights (see ``core.rivers``)."""
    h = check_array(heights, name="heights", ndim=2).astype(np.float64, copy=False)
    if min(h.shape) < 3:
        raise ParameterError(f"heights must be at least 3 x 3 cells for rivers, got shape {h.shape}")
    cell_size = check_float(cell_size, name="cell_size", bounds=(0.0, None), open_low=True)
    threshold = check_float(threshold, name="threshold", bounds=(0.0, None), open_low=True)
    network = river_network(h, cell_size=cell_size, threshold=threshold, sea_level=sea_level, **kwargs)
    if not carve:
        return network
    first = carve_network(network, h, carve=True, reach=reach, pin=False).heights
    uniq, down = channel_down(network)
    bed = tree_minimum(first.reshape(-1)[uniq], down, sink=uniq.size)
    z = bed[np.searchsorted(uniq, network.cells)]
    return dataclasses.replace(network, z=z)


def carve_rivers(heights, network, *, offset=(0, 0), carve=True, reach=64.0):
    """Carve ``network`` into the tile ``heights`` whose first cell is ``offset`` = ``(row, col)``
    of the network's grid (a tiled world: every tile from the one plan; seams agree)."""
    if not isinstance(network, RiverNetwork):
        raise ParameterError(f"network must be a RiverNetwork, got {type(network).__name__}")
    h = check_array(heights, name="heights", ndim=2).astype(np.float64, copy=False)
    return carve_network(network, h, offset=offset, carve=carve, reach=reach, pin=True)


def build_rivers(heights, spec, *, cell_size, sea_level=None):
    """The rivers of one terrain from its ``[rivers]`` spec: plan, carve, maps (``Rivers``).

    ``heights`` (metres) after erosion; ``sea_level`` (metres) or None for no sea.
    """
    kwargs = plan_kwargs(spec)
    reach, carve = kwargs.pop("reach"), kwargs.pop("carve")
    network = plan_rivers(heights, cell_size=cell_size, sea_level=sea_level, reach=reach, carve=carve, **kwargs)
    return Rivers(network, carve_rivers(heights, network, carve=carve, reach=reach))
