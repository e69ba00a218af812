"""Roads of a terrain from its ``[roads]`` spec (``build_roads``), and a tile's cut and fill (``carve_roads``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .._checks import check_array, check_float
from ..biomes import sea_mask
from ..errors import ParameterError
from ..steps import Steps, drive
from ._carve import RoadMaps, carve_network
from ._network import RoadNetwork, plan_roads_steps
from .spec import RoadsSpec, plan_kwargs

if TYPE_CHECKING:
    from ..rivers import Rivers

__all__ = ["Roads", "carve_roads", "build_roads", "grid_points"]


@dataclass(frozen=True, eq=False)
class Roads:
    """A terrain's roads: the network (``RoadNetwork``) and the tile after cut and fill (``RoadMaps``)."""

    network: RoadNetwork
    maps: RoadMaps


def carve_roads(heights: npt.ArrayLike, network: RoadNetwork, *, offset: tuple[int, int] = (0, 0)) -> RoadMaps:
    """Cut and fill the tile ``heights`` (metres; after the rivers) whose first cell is ``offset`` =
    ``(row, col)`` of the network's grid: every tile of a world from the one plan, seams agree."""
    if not isinstance(network, RoadNetwork):
        raise ParameterError(f"network must be a RoadNetwork, got {type(network).__name__}")
    h = check_array(heights, name="heights", ndim=2).astype(np.float64, copy=False)
    return carve_network(network, h, offset=offset)


def grid_points(
    points: Sequence[tuple[float, float]],
    *,
    shape: tuple[int, ...],
    cell_size: float,
    origin: tuple[float, float],
    name: str = "roads.points",
) -> npt.NDArray[np.float64]:
    """Blender ``(x, y)`` metres -> ``(row, col)`` cells of a grid whose cell (0, 0) is at ``origin``;
    a point off the grid is refused, naming it and the grid's extent."""
    rows, cols = shape
    x0, y0 = origin
    x1, y1 = x0 + (cols - 1) * cell_size, y0 + (rows - 1) * cell_size
    out = []
    for i, (x, y) in enumerate(points):
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            raise ParameterError(
                f"{name}[{i}] ({x:g}, {y:g}) lies outside the terrain (x in [{x0:g}, {x1:g}], y in [{y0:g}, {y1:g}] m)"
            )
        out.append(((y - y0) / cell_size, (x - x0) / cell_size))
    return np.array(out, np.float64).reshape(-1, 2)


def build_roads(
    heights: npt.ArrayLike,
    spec: RoadsSpec,
    *,
    cell_size: float,
    origin: tuple[float, float],
    sea_level: float | None = None,
    rivers: Rivers | None = None,
    forest: npt.ArrayLike | None = None,
) -> Roads:
    """:func:`build_roads_steps` run to the end: the :class:`Roads` (same arguments)."""
    return drive(
        build_roads_steps(
            heights, spec, cell_size=cell_size, origin=origin, sea_level=sea_level, rivers=rivers, forest=forest
        )
    )


def build_roads_steps(
    heights: npt.ArrayLike,
    spec: RoadsSpec,
    *,
    cell_size: float,
    origin: tuple[float, float],
    sea_level: float | None = None,
    rivers: Rivers | None = None,
    forest: npt.ArrayLike | None = None,
) -> Steps[Roads]:
    """The roads of one terrain (or a world's whole grid) from its ``[roads]`` spec, as a step
    generator (:mod:`core.steps`): it yields ``(done, total, "roads")`` as
    :func:`plan_roads_steps` plans the routes (a build's progress and Esc between them) and returns
    the :class:`Roads`.

    Parameters
    ----------
    heights : (rows, cols) array, metres
        The ground before the rivers are carved (the costs read it).
    spec : RoadsSpec
    cell_size : float, metres
    origin : (x0, y0)
        Blender metres of cell (0, 0) (``core.rivers``' files take the same).
    sea_level : float or None
        Metres; the sea (``core.biomes.sea_mask``: at or below it when it is above 0, below it
        otherwise) is no place for a road.
    rivers : core.rivers.Rivers or None
        Its carved ground is what the roads are laid on; its water is bridged (rivers wider than
        ``max_bridge`` and lakes are not).
    forest : (rows, cols) float in [0, 1] or None
        Forest cover (costs ``forest_weight`` more a metre).
    """
    h = check_array(heights, name="heights", ndim=2).astype(np.float64, copy=False)
    cell_size = check_float(cell_size, name="cell_size", bounds=(0.0, None), open_low=True)
    if len(spec.points) < 2:
        raise ParameterError(f"roads.points has {len(spec.points)} point(s); a road needs at least 2")
    pts = grid_points(spec.points, shape=h.shape, cell_size=cell_size, origin=origin)
    blocked = np.zeros(h.shape, bool)
    sea = np.zeros(h.shape, bool) if sea_level is None else sea_mask(h, sea_level=sea_level)
    blocked |= sea
    water = width = None
    ground = h
    if rivers is not None:
        blocked |= rivers.maps.lake
        water, width = rivers.maps.water & ~rivers.maps.lake, rivers.maps.width
        ground = rivers.maps.heights
    cells = np.rint(pts).astype(np.int64)
    for i, (r, c) in enumerate(cells.tolist()):
        x, y = spec.points[i]
        if sea[r, c]:
            raise ParameterError(
                f"roads.points[{i}] ({x:g}, {y:g}) lies in the sea (ground {h[r, c]:.2f} m, sea level {sea_level:g} m)"
            )
        if blocked[r, c]:
            raise ParameterError(f"roads.points[{i}] ({x:g}, {y:g}) lies in a lake")
    network = yield from plan_roads_steps(
        h,
        pts,
        cell_size=cell_size,
        water=water,
        water_width=width,
        blocked=blocked,
        ground=ground,
        forest=forest,
        **plan_kwargs(spec),
    )
    return Roads(network, carve_network(network, ground))
