"""A tiled world's rivers and roads: planned once over the whole world's heights, each tile carving its part.

The world's heights are its tiles' un-eroded base heights (``_base``: every sample a function of its
global index, so the whole world is the tiles side by side); the rivers are traced and the roads laid
on them once (``core.rivers.build_rivers``, ``core.roads.build_roads`` on the world grid, whose cell
(0, 0) is Blender ``(-nx size, -nz size)``: tile ``(0, 0)`` covers ``[-size, 0]``), and every tile
carves the plan into its own heights at its place in the grid (``core.rivers.carve_rivers``,
``core.roads.carve_roads`` with the tile's offset): a river or road crossing a seam has the same
heights, maps and file points on both sides.  A tiled world with networks has no erosion (checked with
the recipe): the plan reads the very heights the tiles carve.

The plan is a pure function of the recipe; a process works it out once and keeps it
(:func:`world_networks`), so the tiles built in one process share it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import rivers as core_rivers
from .. import roads as core_roads
from ..errors import ParameterError
from ._base import base_heights
from ._grid import WorldGrid

if TYPE_CHECKING:
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = ["WorldNetworks", "wants_networks", "world_heights", "world_networks", "MAX_NETWORK_CELLS"]

#: Most samples of a world whose networks are planned whole (a 4097 x 4097 world: 4 x 4 tiles of 1025).
MAX_NETWORK_CELLS = 4097 * 4097
_KEPT: dict[str, WorldNetworks] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True, eq=False)
class WorldNetworks:
    """The networks planned over a whole world: ``rivers`` (``core.rivers.RiverNetwork`` or None),
    ``roads`` (``core.roads.RoadNetwork`` or None: with ``[settlements]`` their plan lays the roads,
    ``core.world._settlements``), and ``origin``, Blender ``(x0, y0)`` metres of the
    world grid's cell (0, 0)."""

    rivers: Any
    roads: Any
    origin: tuple[float, float]

    def planned(self, grid: WorldGrid, x: int, z: int) -> dict[str, Any]:
        """What tile ``(x, z)`` carves (``planned=`` of ``core.terrain.terrain_layers_steps``)."""
        return {"rivers": self.rivers, "roads": self.roads, "offset": grid.origin(x, z)}

    def box(self, grid: WorldGrid, x: int, z: int) -> tuple[int, int, int, int]:
        """Tile ``(x, z)``'s ``(row0, col0, row1, col1)`` in the world grid (its files' ``box``)."""
        r0, c0 = grid.origin(x, z)
        n = grid.resolution - 1
        return (r0, c0, r0 + n, c0 + n)


def wants_networks(recipe: Recipe) -> bool:
    """Whether the recipe's ``[rivers]`` or ``[roads]`` is on."""
    return bool(recipe.rivers.enabled or recipe.roads.enabled)


def world_heights(recipe: Recipe, grid: WorldGrid) -> npt.NDArray[np.float64]:
    """The whole world's un-eroded heights in metres, ``grid.shape``, row 0 at Blender's smallest Y
    (every tile's base heights at its place; neighbours share their border samples, bit for bit)."""
    rows, cols = grid.shape
    if rows * cols > MAX_NETWORK_CELLS:
        raise ParameterError(
            f"rivers and roads are planned over the whole world: {rows:,} x {cols:,} samples is more than "
            f"{MAX_NETWORK_CELLS:,}; use fewer or smaller tiles"
        )
    out = np.empty((rows, cols), np.float64)
    n = grid.resolution
    for x, z in grid.tiles():
        r0, c0 = grid.origin(x, z)
        out[r0 : r0 + n, c0 : c0 + n] = base_heights(recipe, grid, x, z, 0)
    out *= grid.height
    return out


def _sea_level(recipe: Recipe) -> float | None:
    spec = recipe.terrain
    return float(np.float32(spec.sea_level) * np.float32(spec.height)) if spec.sea_level > 0.0 else None


def world_networks(recipe: Recipe, grid: WorldGrid, digest: str) -> WorldNetworks:
    """The networks of the whole world (planned once per process for the recipe of ``digest``; the
    threads of a thread executor wait for the first one's plan)."""
    with _LOCK:
        kept = _KEPT.get(digest)
        if kept is None:
            kept = _KEPT[digest] = _plan(recipe, grid)
        return kept


def _plan(recipe: Recipe, grid: WorldGrid) -> WorldNetworks:
    _KEPT.clear()  # the last world's plan only
    h = world_heights(recipe, grid)
    origin = (-grid.nx * grid.size, -grid.nz * grid.size)
    sea = _sea_level(recipe)
    rivers = roads = None
    if recipe.rivers.enabled:
        rivers = core_rivers.build_rivers(h, recipe.rivers, cell_size=grid.cell_size, sea_level=sea)
    if recipe.roads.enabled and not recipe.settlements.enabled:  # with settlements, their plan lays the roads
        roads = core_roads.build_roads(
            h, recipe.roads, cell_size=grid.cell_size, origin=origin, sea_level=sea, rivers=rivers
        ).network
    return WorldNetworks(rivers.network if rivers is not None else None, roads, origin)
