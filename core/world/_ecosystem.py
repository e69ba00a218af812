"""A tile's plants in a tiled world: ``[ecosystem]``'s species simulated on the tile with a halo
(``core.ecosystem.plants_tile_steps``), owned by the tile their trunk stands in.

The habitat is the world's ground around the tile, in world metres (Blender's frame: the tiles
stand at ``grid.blender_centre``), the same field whichever tile reads it, so two tiles simulate the
plants of the strip they share alike:

- the heights: the world's heights around the tile (``shaper(margin)``: eroded windows blended in);
  with ``[rivers]`` / ``[roads]`` / ``[settlements]``, on the world's samples, its final ground
  (:func:`plant_ground`: the world's heights, ``_networks.world_heights``, with the world's plan
  carved in whole, ``core.rivers.carve_rivers`` / ``core.roads.carve_roads`` of
  ``_networks.world_networks``, or the settlements' plan's ground, ``_settlements``: what every tile
  carves and levels, part by part, so a tile's own samples are its final heights);
- the water and the clearing, where nothing germinates (as on a single terrain,
  ``core.ecosystem.terrain_habitats``): the sea and, from the same world-wide plans, the rivers' and
  lakes' water, the river beds, the roads' width plus their margin, the settlements' pads and, with
  ``[[ecosystem.animals]]``, the trampled ground of the world's animals (``_animals``: wear at least
  ``[ecosystem] trampled``).  A plant never germinates there, so it neither stands there nor shades
  or seeds from there: the competition around a road or a river is that of the open ground it is;
- altitude, slope and the temperature falling with height (the ``[biomes]`` lapse rate) from those
  heights; the moisture is 0.5 everywhere (the biomes' moisture is worked out per tile, not over the
  halo).

The plants' ``z`` (their files, their placement entry) is the tile's own final heights under them
(``TerrainLayers.metres``: the RAW the tile writes).
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import ecosystem as core_eco
from .. import placement as core_placement
from .. import rivers as core_rivers
from .. import roads as core_roads
from ..biomes import temperature as biome_temperature
from ..scatter import LayerSpec
from ..steps import drive
from ..terrain import TerrainLayers
from ._animals import wants_animals, world_animals
from ._grid import WorldGrid
from ._networks import wants_networks, world_heights, world_networks
from ._scatter import prop_names
from ._world_json import recipe_digest

if TYPE_CHECKING:
    from ..ecosystem import Habitat, PlantRun
    from ..recipe import Recipe
    from ._settlements import WorldSettlements

__all__ = ["PlantGround", "plant_ground", "tile_plants", "plant_files", "plant_entry"]

Shaper = Callable[[int], tuple[npt.NDArray[np.float32], npt.NDArray[np.float64] | None]]
_KEPT: dict[str, PlantGround] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True, eq=False)
class PlantGround:
    """The world's ground the tiles' plants grow on, over the world grid (row 0 at Blender's smallest
    Y): ``heights`` (metres, float64, the tiles' final heights side by side: float32 values in [0, 1]
    times the height, as the tiles hold them; None when nothing carves the world: then every tile
    reads ``shaper``'s heights), ``water`` (rivers and lakes; the sea is worked out from the heights)
    and ``clearing`` (river beds, roads plus their margin, settlements' pads, trampled ground)."""

    heights: npt.NDArray[np.float64] | None
    water: npt.NDArray[np.bool_]
    clearing: npt.NDArray[np.bool_]


def _wants_ground(recipe: Recipe) -> bool:
    trampled = wants_animals(recipe) and recipe.ecosystem.trampled > 0.0
    return wants_networks(recipe) or bool(recipe.settlements.enabled) or trampled


def plant_ground(
    recipe: Recipe, grid: WorldGrid, cache_dir: str | None = None, *, settlements: WorldSettlements | None = None
) -> PlantGround | None:
    """The world's :class:`PlantGround` (None without rivers, roads, settlements or trampled ground:
    the plants read the heights alone), worked out once per process for the recipe (the threads of a
    thread executor wait for the first one's).  ``settlements``: the world's settlements' plan (with
    ``[settlements]``, required then); ``cache_dir``: the world's cache folder (an eroded world's
    stitched heights, ``_networks.world_heights``)."""
    if not _wants_ground(recipe):
        return None
    if recipe.settlements.enabled and settlements is None:
        raise ValueError("a world with settlements gives its settlements' plan")
    digest = recipe_digest(recipe)
    with _LOCK:
        kept = _KEPT.get(digest)
        if kept is None:
            _KEPT.clear()  # the last world's only
            kept = _KEPT[digest] = _ground(recipe, grid, digest, cache_dir, settlements)
        return kept


def _ground(
    recipe: Recipe, grid: WorldGrid, digest: str, cache_dir: str | None, settlements: WorldSettlements | None
) -> PlantGround:
    water = np.zeros(grid.shape, bool)
    clearing = np.zeros(grid.shape, bool)
    heights = None
    top = grid.height
    if wants_networks(recipe) or settlements is not None:
        h = world_heights(recipe, grid, cache_dir)
        nets = world_networks(recipe, grid, digest, cache_dir) if wants_networks(recipe) else None
        if nets is not None and nets.rivers is not None:  # as the tiles carve them (core.terrain's network_steps)
            spec = recipe.rivers
            maps = core_rivers.carve_rivers(h, nets.rivers, carve=spec.carve, reach=spec.water_reach)
            h = maps.heights
            water |= maps.water
            clearing |= maps.exclusion
            del maps
        if nets is not None and nets.roads is not None:
            roads = core_roads.carve_roads(h, nets.roads)
            h = roads.heights
            clearing |= roads.clearing
            del roads
        if settlements is not None:  # its ground: the tiles' (rivers carved) with the pads and roads levelled
            h = settlements.settlements.heights
            clearing |= settlements.clearing
        # the tiles' own arithmetic: float32 values in [0, 1], times the height in float64
        heights = np.clip(h / top, 0.0, 1.0).astype(np.float32).astype(np.float64)
        heights *= top
        del h
    if wants_animals(recipe) and recipe.ecosystem.trampled > 0.0:  # as _animals.tile_trails clears them
        wear = world_animals(recipe, grid, digest, cache_dir).wear
        clearing |= wear >= np.float32(recipe.ecosystem.trampled)
    return PlantGround(heights, water, clearing | water)


def tile_plants(
    recipe: Recipe,
    grid: WorldGrid,
    x: int,
    z: int,
    shaper: Shaper,
    *,
    ground: PlantGround | None = None,
    layers: TerrainLayers | None = None,
) -> tuple[PlantRun, Habitat] | None:
    """The plants of tile ``(x, z)`` (None without species): simulated over the tile and a halo of
    twice the species' interaction reach, on the world's heights around the tile (``shaper``) and,
    when given, the world's ``ground`` (:func:`plant_ground`: its final heights, water and clearing
    on the world's samples of the window).  The habitat returned stands on ``layers``' heights (the
    tile's final ones) on the tile's samples, so the plants' ``z`` is the tile's RAW under them."""
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
    water = None
    if ground is not None:  # the world's samples of the window: the world's final ground, water, clearing
        r0, c0 = grid.origin(x, z)
        r0, c0 = r0 - margin, c0 - margin
        rows, cols = heights.shape
        wr0, wc0 = max(r0, 0), max(c0, 0)
        wr1, wc1 = min(r0 + rows, grid.shape[0]), min(c0 + cols, grid.shape[1])
        win = (slice(wr0 - r0, wr1 - r0), slice(wc0 - c0, wc1 - c0))
        world = (slice(wr0, wr1), slice(wc0, wc1))
        if ground.heights is not None:
            heights[win] = ground.heights[world]
        water = heights <= sea  # the sea, as habitat() works it out
        water[win] |= ground.clearing[world]
    hab = core_eco.habitat(
        heights,
        cell_size=cell,
        sea_level=sea,
        temperature=biome_temperature(heights, sea_level=sea, lapse=recipe.biomes.lapse),
        water=water,
        origin=origin,
    )
    tile = (cx - half, cy - half, cx + half, cy + half)
    run = drive(core_eco.plants_tile_steps(spec, hab, tile=tile, halo=halo))
    if layers is not None:  # the plants stand on the tile's final heights (its RAW)
        n = grid.resolution
        final = hab.heights.copy()
        final[margin : margin + n, margin : margin + n] = layers.metres.astype(np.float64)
        hab = dataclasses.replace(hab, heights=final)
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
