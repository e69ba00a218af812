"""A tiled world's settlements: planned once over the whole world, each tile levelling its part.

The sites are chosen, their pads levelled, the roads joining them laid and their streets, lots and
houses planned once (``core.settlements.build_settlements_steps`` on the world grid, whose cell
(0, 0) is Blender ``(-nx size, -nz size)``), on what the tiles themselves see just before their
settlements' stage: every tile's layers up to its biomes (its heights with the world's rivers
carved in, its open water, flow and biome map, ``tile_layers(..., settle=False)``) laid side by
side.  Each tile then takes the plan's ground on the cells the plan changed (the pads, their ramps
and the roads' cut and fill) and keeps its own elsewhere (:func:`tile_settlements` in
``core.terrain.terrain_layers_steps``' settlements stage): a pad or a road crossing a seam has the
same heights on both sides, and the sites stand in the biomes the tiles show.

A site belongs to the one tile its centre stands in (a centre on a seam: the tile of the smaller index
``x`` / ``z``, whose cells have the larger row and column of the world grid, :meth:`WorldSettlements.owner`);
the tile's ``<name>_<x>_<z>_settlements.json`` lists its own sites, their positions in the world's
Unity frame (as the tiles' rivers and roads files), and its Blender tile holds their objects.

The plan is a pure function of the recipe; a process works it out once and keeps it
(``core.world.world_settlements``), as the networks' plan.  It builds every tile's layers (without the
texture layers) once more, and their erosion windows in memory when the world has them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError
from ..rivers import RiverMaps, Rivers
from ..settlements import Settlements, build_settlements_steps
from ..steps import drive
from ..terrain import STREAM_AREA
from ._grid import WorldGrid
from ._networks import MAX_NETWORK_CELLS, world_networks
from ._window import needs_windows, window_loader

if TYPE_CHECKING:
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = ["WorldSettlements", "plan_settlements", "TileLayers"]

#: The river maps the settlements read (``build_settlements_steps``: water, lakes, bridge widths).
RIVER_MAPS = ("water", "lake", "width")
#: ``tile_layers`` of ``core.world``: ``layers(recipe, grid, x, z, settle=False, load=...)``.
TileLayers: TypeAlias = Callable[..., Any]


@dataclass(frozen=True, eq=False)
class WorldSettlements:
    """The settlements planned over a whole world.

    Attributes
    ----------
    settlements : core.settlements.Settlements
        The plan on the world grid: ``heights`` the world's ground after the pads and the roads
        (metres), ``roads`` the roads joining the sites (or None), ``sites`` in the world's Blender
        frame.
    settled : (rows, cols) bool ndarray
        Cells the plan changed (pads, ramps, the roads' cut and fill): a tile takes the plan's
        ground there.
    clearing : (rows, cols) bool ndarray
        Cells kept free of props and plants: every pad and the roads' clearing.
    owners : tuple of (x, z)
        The tile each site belongs to.
    origin : (float, float)
        Blender ``(x0, y0)`` metres of the world grid's cell (0, 0).
    """

    settlements: Settlements
    settled: npt.NDArray[np.bool_]
    clearing: npt.NDArray[np.bool_]
    owners: tuple[tuple[int, int], ...]
    origin: tuple[float, float]

    def planned(self, grid: WorldGrid, x: int, z: int) -> dict[str, Any]:
        """What tile ``(x, z)``'s settlements' stage takes (``planned["settlements"]`` of
        ``core.terrain.terrain_layers_steps``): ``ground``, ``settled``, ``clearing`` (world arrays),
        ``roads`` (the world's, or None), ``sites`` (the tile's own, a ``Settlements``) and
        ``offset`` (the tile's first cell in the world grid)."""
        return {
            "ground": self.settlements.heights,
            "settled": self.settled,
            "clearing": self.clearing,
            "roads": self.settlements.roads,
            "sites": self.tile_sites(grid, x, z),
            "offset": grid.origin(x, z),
        }

    def tile_sites(self, grid: WorldGrid, x: int, z: int) -> Settlements:
        """The sites tile ``(x, z)`` owns, as a ``Settlements`` (world positions; its ``heights`` and
        roads the world's: the files and objects read only the sites)."""
        keep = [i for i, owner in enumerate(self.owners) if owner == (x, z)]
        s = self.settlements
        return dataclasses.replace(
            s,
            sites=tuple(s.sites[i] for i in keep),
            road_points=tuple(s.road_points[i] for i in keep),
            asked=0,
        )

    @staticmethod
    def owner(grid: WorldGrid, row: int, col: int) -> tuple[int, int]:
        """The tile ``(x, z)`` a world cell ``(row, col)`` belongs to (a seam's cell: the tile of the
        smaller index, whose cells have the larger rows and columns).

        >>> from core.world import WorldGrid
        >>> g = WorldGrid(nx=2, nz=2, resolution=5, size=8.0, height=1.0, halo_cells=0, world_name="W")
        >>> WorldSettlements.owner(g, 0, 0), WorldSettlements.owner(g, 4, 4), WorldSettlements.owner(g, 8, 3)
        ((1, 1), (0, 0), (1, 0))
        """
        n = grid.resolution - 1
        kr = min(int(row) // n, grid.nz - 1)
        kc = min(int(col) // n, grid.nx - 1)
        return (grid.nx - 1 - kc, grid.nz - 1 - kr)


def plan_settlements(
    recipe: Recipe, grid: WorldGrid, digest: str, *, layers: TileLayers, cache_dir: str | None = None
) -> WorldSettlements:
    """The world's settlements planned on ``layers(recipe, grid, x, z, settle=False, load=...)``
    (``tile_layers``: every tile's layers up to its settlements' stage); see the module's notes.
    ``core.world.world_settlements`` keeps the plan of a process.  ``cache_dir``: the world's cache
    folder (an eroded world's stitched heights, which its networks' plan reads)."""
    rows, cols = grid.shape
    if rows * cols > MAX_NETWORK_CELLS:
        raise ParameterError(
            f"settlements are planned over the whole world: {rows:,} x {cols:,} samples is more than "
            f"{MAX_NETWORK_CELLS:,}; use fewer or smaller tiles"
        )
    top = grid.height
    n = grid.resolution
    heights = np.empty((rows, cols), np.float64)
    wet: npt.NDArray[np.bool_] | None = None  # what the settlements' stage of each tile calls water
    biomes: npt.NDArray[Any] | None = None
    names: tuple[str, ...] = ()
    river_maps: dict[str, npt.NDArray[Any]] = {}
    rivers_network = world_networks(recipe, grid, digest, cache_dir).rivers if recipe.rivers.enabled else None
    load = window_loader(recipe, grid) if needs_windows(recipe) else None
    for x, z in sorted(grid.tiles(), key=lambda t: (t[1], t[0])):
        if load is not None:
            load.drop_below(z)
        tile = layers(recipe, grid, x, z, settle=False, load=load, cache_dir=cache_dir)
        r0, c0 = grid.origin(x, z)
        box = (slice(r0, r0 + n), slice(c0, c0 + n))
        heights[box] = tile.heights.values.astype(np.float64) * top
        # as a single terrain's stage: the rivers' and the sea's water, else the streams of the flow
        here = tile.water if tile.water is not None else tile.flow >= STREAM_AREA if tile.flow is not None else None
        if here is not None:
            if wet is None:
                wet = np.zeros((rows, cols), bool)
            wet[box] = here
        if tile.biomes is not None:
            if biomes is None:
                biomes = np.zeros((rows, cols), tile.biomes.dtype)
            biomes[box] = tile.biomes
            names = tile.biome_names
        if tile.rivers is not None:
            for key in RIVER_MAPS:
                part = getattr(tile.rivers.maps, key)
                if key not in river_maps:
                    river_maps[key] = np.zeros((rows, cols), part.dtype)
                river_maps[key][box] = part
        del tile, here
    rivers = None
    if rivers_network is not None and river_maps:
        # the maps the settlements read (their water, lakes and widths); the others zeros, no memory
        for f in dataclasses.fields(RiverMaps):
            if f.name not in river_maps:
                river_maps[f.name] = np.broadcast_to(np.zeros((), np.float32), (rows, cols))
        rivers = Rivers(rivers_network, RiverMaps(**river_maps))
    origin = (-grid.nx * grid.size, -grid.nz * grid.size)
    spec = recipe.terrain
    sea = float(np.float32(spec.sea_level) * np.float32(top))
    built = drive(
        build_settlements_steps(
            heights,
            recipe.settlements,
            cell_size=grid.cell_size,
            origin=origin,
            seed=recipe.world.seed,
            sea_level=sea,
            water=wet,
            biomes=biomes,
            biome_names=names,
            roads=None,
            roads_spec=recipe.roads if recipe.roads.enabled else None,
            rivers=rivers,
        )
    )
    settled = built.heights != heights
    owners = tuple(
        WorldSettlements.owner(
            grid,
            int(round((s.centre[1] - origin[1]) / grid.cell_size)),
            int(round((s.centre[0] - origin[0]) / grid.cell_size)),
        )
        for s in built.sites
    )
    return WorldSettlements(built, settled, built.clearing(), owners, origin)
