"""A tiled world's animals: one animal pass over the whole world, each tile cutting its part of the trails.

The animals of ``[[ecosystem.animals]]`` roam the whole world, not a tile: they are simulated once
(``core.ecosystem.animals_steps``, the engine a single terrain runs) on the world's habitat --

- the heights: the world's heights (``_networks.world_heights``: every tile's heights at its place),
  with the world's rivers and roads carved in when ``[rivers]`` / ``[roads]`` are on
  (``core.rivers.carve_rivers``, ``core.roads.carve_roads`` of the world's plan,
  ``_networks.world_networks``: what the tiles carve, part by part);
- the water: the sea (``[terrain] sea_level``) and, with ``[rivers]``, the rivers' and lakes' water of
  the same plan;
- the grass: in a tiled world the plants grow per tile (``_ecosystem``), so the animals do not graze
  the tiles' simulated forest (that would make every tile wait for every other); they graze the grass
  the *habitat* leaves: ``1 - SHADE * cover`` per cell, ``cover`` the best suitability of any
  species there (``core.ecosystem.suitability``: altitude, slope, temperature, sea -- the very fields
  the tiles' plants germinate and grow by), averaged over the cell's four corners.  Without species
  every land cell grows full grass (as on a single terrain).

The pass is a pure function of the recipe; a process works it out once and keeps it
(:func:`world_animals`, by the recipe's digest), so the tiles built in one process share it.  Each
tile then cuts its part (:meth:`WorldAnimals.vertices`): the trail wear at the world's vertices over
the world's most worn cell, so two tiles hold the same values at the samples they share (seamless by
construction, whichever tile is built first).  A tile's trampled ground (wear at least
``[ecosystem] trampled``) joins its clearing (the scatter keeps off it) and a ``trail`` texture rule
paints its splat maps (:func:`tile_trails`), as on a single terrain; the tile writes
``<tile>_trails.png`` (its cells of the world's wear, 16-bit, Unity's orientation).  The world writes
once (:func:`animal_world_files`): ``<name>_spawns.json`` (spawn points, Unity's frame of the whole
world: the tiles' Unity positions), ``<name>_ecosystem.json`` (the animals' history, the world's land
area) and ``<name>_population.png`` (the animals over the steps).

Sizes are refused before any work (``core.ecosystem.estimate_world_animals``, from the recipe check).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import ecosystem as core_eco
from .. import rivers as core_rivers
from .. import roads as core_roads
from ..biomes import temperature as biome_temperature
from ..errors import ParameterError
from ..preview import png_bytes
from ..steps import drive
from ..terrain import TerrainLayers, repaint_splats
from ..unity import write_bytes_atomic
from ..unity_package import unity_image
from ._base import tile_spec
from ._executors import Cancelled
from ._grid import WorldGrid, tile_base
from ._networks import wants_networks, world_heights, world_networks
from ._world_json import recipe_digest

if TYPE_CHECKING:
    from ..ecosystem import AnimalRun, EcosystemSpec, Habitat
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = [
    "WorldAnimals",
    "wants_animals",
    "world_animals",
    "world_forage",
    "tile_trails",
    "tile_trail_files",
    "animal_world_files",
    "animal_world_names",
    "write_animal_world_files",
    "SHADE",
]

#: How much of the grass a full canopy shades out (``core.ecosystem.grass_capacity``'s default).
SHADE = 0.6
_KEPT: dict[str, WorldAnimals] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True, eq=False)
class WorldAnimals:
    """The animals simulated over a whole world: ``run`` (``core.ecosystem.AnimalRun``), ``habitat``
    (the world's ``core.ecosystem.Habitat``, Blender's frame: vertex ``(0, 0)`` at the world grid's
    cell (0, 0)), ``trail`` (``(rows - 1, cols - 1)`` float32 in [0, 1]: the wear per cell over the
    most worn cell's, ``core.ecosystem.trail_map``) and ``wear`` (``(rows, cols)``: at the vertices,
    each the most worn of the cells around it, ``core.ecosystem.trail_vertices``)."""

    run: AnimalRun
    habitat: Habitat
    trail: npt.NDArray[np.float32]
    wear: npt.NDArray[np.float32]

    def vertices(self, grid: WorldGrid, x: int, z: int) -> npt.NDArray[np.float32]:
        """Tile ``(x, z)``'s trail wear at its vertices (``(resolution, resolution)``, a copy)."""
        r0, c0 = grid.origin(x, z)
        n = grid.resolution
        return self.wear[r0 : r0 + n, c0 : c0 + n].copy()

    def cells(self, grid: WorldGrid, x: int, z: int) -> npt.NDArray[np.float32]:
        """Tile ``(x, z)``'s trail wear per heightmap cell (``(resolution - 1,) * 2``): the world's
        ``core.ecosystem.trail_map`` cut at the tile (the world's scale: tiles compare)."""
        r0, c0 = grid.origin(x, z)
        n = grid.resolution - 1
        return self.trail[r0 : r0 + n, c0 : c0 + n].copy()


def wants_animals(recipe: Recipe) -> bool:
    """Whether the recipe has ``[[ecosystem.animals]]``."""
    return bool(recipe.ecosystem.animals)


def world_forage(spec: EcosystemSpec, hab: Habitat) -> npt.NDArray[np.float64] | None:
    """The grass each cell of the world's habitat grows at most (``animals_steps(vegetation=...)``):
    ``1 - SHADE * cover``, ``cover`` the best species' suitability, the mean of the cell's four
    corners; None without species (full grass on land)."""
    if not spec.species:
        return None
    best = np.zeros(hab.shape, np.float64)
    for k in range(len(spec.species)):  # one species at a time: (rows, cols) float32 each
        np.maximum(best, core_eco.suitability(spec.species[k : k + 1], hab)[0], out=best)
    cover = 0.25 * (best[:-1, :-1] + best[:-1, 1:] + best[1:, :-1] + best[1:, 1:])
    out: npt.NDArray[np.float64] = 1.0 - SHADE * np.clip(cover, 0.0, 1.0)
    return out


def world_animals(
    recipe: Recipe,
    grid: WorldGrid,
    digest: str,
    cache_dir: str | None = None,
    *,
    progress: Callable[[int, int, str], object] | None = None,
    cancel: threading.Event | None = None,
) -> WorldAnimals:
    """The animals of the whole world (simulated once per process for the recipe of ``digest``; the
    threads of a thread executor wait for the first one's run).  While it simulates, ``progress(0, 1,
    "animals")`` is said once and ``cancel`` (an Event) is checked every step: once set the pass raises
    ``Cancelled`` and nothing is kept.  ``cache_dir``: the world's cache folder, where an eroded world's
    stitched heights are (``_networks.world_heights``)."""
    with _LOCK:
        kept = _KEPT.get(digest)
        if kept is None:
            _KEPT.clear()  # the last world's run only
            kept = _KEPT[digest] = _simulate(recipe, grid, cache_dir, progress, cancel)
        return kept


def _habitat(recipe: Recipe, grid: WorldGrid, cache_dir: str | None) -> Habitat:
    heights = world_heights(recipe, grid, cache_dir)
    sea = float(np.float32(recipe.terrain.sea_level) * np.float32(grid.height))
    water = heights <= sea
    if wants_networks(recipe):  # the world's rivers and roads carved whole, as the tiles carve their parts
        nets = world_networks(recipe, grid, recipe_digest(recipe), cache_dir)
        if nets.rivers is not None:
            spec = recipe.rivers
            maps = core_rivers.carve_rivers(heights, nets.rivers, carve=spec.carve, reach=spec.water_reach)
            heights = maps.heights
            water = water | maps.water
        if nets.roads is not None:
            heights = core_roads.carve_roads(heights, nets.roads).heights
    return core_eco.habitat(
        heights,
        cell_size=grid.cell_size,
        sea_level=sea,
        temperature=biome_temperature(heights, sea_level=sea, lapse=recipe.biomes.lapse),
        water=water,
        origin=(-grid.nx * grid.size, -grid.nz * grid.size),
    )


def _simulate(
    recipe: Recipe,
    grid: WorldGrid,
    cache_dir: str | None,
    progress: Callable[[int, int, str], object] | None,
    cancel: threading.Event | None,
) -> WorldAnimals:
    spec = recipe.ecosystem
    core_eco.estimate_world_animals(spec, grid.shape, cell_size=grid.cell_size)
    if progress is not None:
        progress(0, 1, "animals")  # the run's progress counts tasks: the pass says its stage, not a share

    def step(done: int, total: int, label: str) -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled()

    step(0, 0, "")
    hab = _habitat(recipe, grid, cache_dir)
    run = drive(core_eco.animals_steps(spec, hab, vegetation=world_forage(spec, hab)), step)
    return WorldAnimals(
        run=run, habitat=hab, trail=core_eco.trail_map(run), wear=core_eco.trail_vertices(run, hab.shape)
    )


def tile_trails(
    recipe: Recipe, grid: WorldGrid, x: int, z: int, layers: TerrainLayers, cache_dir: str | None = None
) -> TerrainLayers:
    """Tile ``(x, z)``'s ``layers`` after the world's animals walked them: its trampled ground (its
    part of the world's wear at least ``[ecosystem] trampled``) added to their ``clearing`` and, with a
    ``trail`` texture rule, the splat weights painted again with the wear; ``layers`` itself without
    animals."""
    if not wants_animals(recipe):
        return layers
    spec = recipe.ecosystem
    wear = world_animals(recipe, grid, recipe_digest(recipe), cache_dir).vertices(grid, x, z)
    if wear.shape != layers.heights.values.shape:
        raise ParameterError(
            f"tile {x},{z}: the trail wear has {wear.shape} samples, the heights {layers.heights.values.shape}"
        )
    out = layers
    if spec.trampled > 0.0 and wear.any():
        trampled = wear >= np.float32(spec.trampled)
        if trampled.any():
            clearing = trampled if layers.clearing is None else layers.clearing | trampled
            out = dataclasses.replace(out, clearing=clearing)
    if any(s.trail != 0.0 for s in recipe.splat):
        out = repaint_splats(
            out,
            terrain_spec=tile_spec(recipe, grid, x, z),
            biomes_spec=recipe.biomes,
            splats=tuple(recipe.splat),
            seed=recipe.world.seed,
            trail=wear,
        )
    return out


def tile_trail_files(
    recipe: Recipe, grid: WorldGrid, x: int, z: int, name: str, cache_dir: str | None = None
) -> dict[str, bytes]:
    """``{<tile>_trails.png: bytes}`` of tile ``(x, z)`` (16-bit grey wear, one texel per heightmap
    cell, Unity's orientation as the splat maps, the world's scale); empty without animals."""
    if not wants_animals(recipe):
        return {}
    cells = world_animals(recipe, grid, recipe_digest(recipe), cache_dir).cells(grid, x, z)
    grey = np.rint(cells.astype(np.float64) * 65535.0).astype(np.uint16)
    return {core_eco.file_names(tile_base(name, x, z))["trails"]: png_bytes(unity_image(grey))}


def animal_world_names(name: str) -> tuple[str, ...]:
    """The world's own animal files: ``<name>_spawns.json``, ``<name>_ecosystem.json``,
    ``<name>_population.png``."""
    names = core_eco.file_names(name)
    return (names["spawns"], names["ecosystem"], names["population"])


def animal_world_files(recipe: Recipe, grid: WorldGrid, name: str, cache_dir: str | None = None) -> dict[str, bytes]:
    """``{file name: bytes}`` of the world's own animal files (:func:`animal_world_names`): the spawn
    points of the whole world in Unity's frame (the tiles' Unity positions), the animals' history with
    the world's land area, and their population chart; empty without animals."""
    if not wants_animals(recipe):
        return {}
    animals = world_animals(recipe, grid, recipe_digest(recipe), cache_dir)
    hab = animals.habitat
    land = float((~core_eco.cell_fields(hab)[1]).sum()) * hab.cell_size * hab.cell_size  # the cells they roam
    spawns, eco, chart = animal_world_names(name)
    return {
        spawns: core_eco.spawns_json_bytes(animals.run, hab, seed=recipe.ecosystem.seed),
        eco: core_eco.ecosystem_json_bytes(None, animals=animals.run, area_m2=land),
        chart: core_eco.population_png_bytes(None, animals=animals.run),
    }


def write_animal_world_files(
    recipe: Recipe,
    grid: WorldGrid,
    out_dir: str,
    name: str,
    kept: list[dict[str, Any]],
    cache_dir: str | None = None,
    *,
    progress: Callable[[int, int, str], object] | None = None,
    cancel: threading.Event | None = None,
) -> list[dict[str, Any]]:
    """The world's own files ``kept`` (records verified in ``out_dir``) with the animal files
    (:func:`animal_world_files`) written into ``out_dir`` (each atomically) and recorded when one of
    them is not among ``kept``; ``kept`` itself without animals or with all of them kept.
    ``progress`` and ``cancel`` as :func:`world_animals` takes them."""
    if not wants_animals(recipe):
        return kept
    have = {f.get("name") for f in kept}
    if all(n in have for n in animal_world_names(name)):
        return kept
    world_animals(recipe, grid, recipe_digest(recipe), cache_dir, progress=progress, cancel=cancel)
    made = animal_world_files(recipe, grid, name, cache_dir)
    records = []
    for file_name, data in made.items():
        write_bytes_atomic(os.path.join(out_dir, file_name), data)
        records.append({"name": file_name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    return [f for f in kept if f.get("name") not in made] + records
