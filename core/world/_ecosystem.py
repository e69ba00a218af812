"""A tile's plants in a tiled world: ``[ecosystem]``'s species simulated on the tile with a halo
(``core.ecosystem.plants_tile_steps``), owned by the tile their trunk stands in.

The habitat is the world's heights around the tile (``shaper(margin)``: the same field every tile
reads, eroded windows blended in), in world metres (Blender's frame: the tiles stand at
``grid.blender_centre``), so two tiles simulate the plants of the strip they share alike.  In a
tiled world the plants read the heights alone: altitude, slope, the temperature falling with height
(the ``[biomes]`` lapse rate) and the sea; the moisture is 0.5 everywhere (the biomes' moisture is
worked out per tile, not over the halo).  Animals are not simulated across tiles (the recipe check
refuses them in a tiled world).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import ecosystem as core_eco
from .. import placement as core_placement
from ..biomes import temperature as biome_temperature
from ..scatter import LayerSpec
from ..steps import drive
from ._grid import WorldGrid
from ._scatter import prop_names

if TYPE_CHECKING:
    from ..ecosystem import Habitat, PlantRun
    from ..recipe import Recipe

__all__ = ["tile_plants", "plant_files", "plant_entry"]

Shaper = Callable[[int], tuple[npt.NDArray[np.float32], npt.NDArray[np.float64] | None]]


def tile_plants(recipe: Recipe, grid: WorldGrid, x: int, z: int, shaper: Shaper) -> tuple[PlantRun, Habitat] | None:
    """The plants of tile ``(x, z)`` (None without species): simulated over the tile and a halo of
    twice the species' interaction reach, on the world's heights around the tile (``shaper``)."""
    spec = recipe.ecosystem
    if not spec.species:
        return None
    cell = grid.cell_size
    halo = 2.0 * core_eco.interaction_reach(spec.species)
    margin = max(1, math.ceil(halo / cell))
    heights = shaper(margin)[0].astype(np.float64) * grid.height
    sea = float(np.float32(recipe.terrain.sea_level) * np.float32(grid.height))
    cx, cy, _ = grid.blender_centre(x, z)
    half = 0.5 * grid.size
    origin = (cx - half - margin * cell, cy - half - margin * cell)
    hab = core_eco.habitat(
        heights,
        cell_size=cell,
        sea_level=sea,
        temperature=biome_temperature(heights, sea_level=sea, lapse=recipe.biomes.lapse),
        origin=origin,
    )
    tile = (cx - half, cy - half, cx + half, cy + half)
    run = drive(core_eco.plants_tile_steps(spec, hab, tile=tile, halo=halo))
    return run, hab


def plant_files(base: str, run: PlantRun, hab: Habitat) -> dict[str, bytes]:
    """The tile's ecosystem files: ``<base>_plants.csv``, ``<base>_ecosystem.json`` and
    ``<base>_population.png`` (the tile's own plants: its history, its living plants in Unity's
    frame of the world)."""
    names = core_eco.file_names(base)
    return {
        names["plants"]: core_eco.plants_csv_bytes(run, hab),
        names["ecosystem"]: core_eco.ecosystem_json_bytes(run),
        names["population"]: core_eco.population_png_bytes(run),
    }


def plant_entry(
    recipe: Recipe, grid: WorldGrid, x: int, z: int, run: PlantRun, hab: Habitat, *, tile: str
) -> dict[str, Any]:
    """The tile's plants as a scatter entry of its placement file (``<tile>_Ecosystem``): each plant
    the prop of its species' tree (the world's prop library's name for it), scaled by its height over
    the species' maximum (``scale`` and ``height_scale``: a full-grown plant is the prop at scale 1)
    and by its canopy over the species' maximum radius (``width_scale``); Unity Terrain trees."""
    spec = recipe.ecosystem
    forest = core_eco.forest_at(run, hab, seed=spec.seed)
    kind = forest["kind"]
    max_height = np.array([s.max_height for s in spec.species])
    max_radius = np.array([s.max_radius for s in spec.species])
    names = [prop_names(LayerSpec(name=s.name, prop=s.tree, variants=1))[0] for s in spec.species]
    entry = core_placement.scatter_entry(
        forest["positions"],
        forest["rotations"],
        forest["height"] / max_height[kind],
        kind,
        names,
        layers=kind,
        layer_names=[s.name for s in spec.species],
        tree_layers=list(range(len(spec.species))),
        object_name=lambda prop, index: f"{tile}_{prop}_{index:05d}",
        scatter=f"{tile}_Ecosystem",
        terrain=tile,
        blender_centre=grid.blender_centre(x, z),
        size=recipe.terrain.size,
        height=recipe.terrain.height,
    )
    widths = (np.round(forest["radius"] / max_radius[kind], 4) + 0.0).tolist()
    for rec, w in zip(entry["instances"], widths):
        rec["width_scale"] = w
    for rec, w in zip(entry["terrain_trees"]["instances"], widths):
        rec["width_scale"] = w
    return entry
