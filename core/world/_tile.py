"""Phase 2 of a tiled world: one tile's heights, layers, props and files.

The tile's heights are its base heights (``_base``) plus the blended erosion windows
(``_stitch``) over the tile and a one-cell ring (the normals' margin); its layers (flow, moisture,
biomes, texture-layer weights) come from ``core.terrain.terrain_layers_steps`` with the blended
erosion and flow given, and the world's rivers and roads (``_networks``: planned once over the whole
world's heights, the eroded ones read from the cache when erosion is on) carved into it, after the
erosion as on one terrain; with ``[settlements]`` its part of the world's settlements (``_settlements``:
planned once on every tile's layers up to its biomes, :func:`world_settlements`) levelled into it; the
world's animals' trails (``_animals``: simulated once over the whole world) worn into it; its props
from ``_scatter``.  The files (``<base>.raw``, the Unity terrain package ``<base>_*``,
``<base>_placements.json``; with ``[ecosystem]`` species the tile's plants, ``_ecosystem``:
``<base>_plants.csv``, ``_ecosystem.json``, ``_population.png`` and the plants in the placement file;
with ``[[ecosystem.animals]]`` ``<base>_trails.png``; with ``[settlements]`` ``<base>_settlements.json``,
the sites whose centre stands in the tile) are written atomically; the result is small.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import heightmap
from .. import unity_package as core_package
from ..rivers import rivers_json_bytes
from ..roads import roads_json_bytes
from ..scatter import Placement
from ..settlements import settlements_json_bytes
from ..steps import drive
from ..terrain import TerrainLayers, terrain_layers_steps
from ..unity import write_bytes_atomic
from ._animals import tile_trail_files, tile_trails
from ._base import base_heights, tile_heights, tile_spec
from ._ecosystem import plant_entry, plant_files, plant_ground, tile_plants
from ._grid import WorldGrid, tile_base
from ._networks import wants_networks, world_networks
from ._scatter import border_points, detail_maps, placement_content, reach, scatter_tile
from ._settlements import WorldSettlements, plan_settlements
from ._stitch import blend_windows
from ._window import load_window, needs_windows, wants_flow, window_path
from ._world_json import recipe_digest

if TYPE_CHECKING:
    from ..ecosystem import Habitat, PlantRun
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = ["run_tile", "tile_layers", "border_path", "load_border", "world_settlements", "planned_roads"]

_KEPT: dict[str, WorldSettlements] = {}
_LOCK = threading.Lock()


def border_path(cache_dir: str, x: int, z: int) -> str:
    """``<cache>/border_<x>_<z>.npz``: a finished tile's border props, for tiles built later."""
    return os.path.join(cache_dir, f"border_{x}_{z}.npz")


def load_border(path: str, digest: str) -> dict[str, npt.NDArray[Any]] | None:
    """A cached border (dict of arrays), or None when missing or of another recipe."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["digest"]) != digest:
                return None
            return {k: data[k] for k in ("xy", "radius", "layer")}
    except (OSError, ValueError, KeyError, EOFError):
        return None


def _loader(
    cache_dir: str, paths: Mapping[tuple[int, ...], str], digest: str
) -> Callable[[int, int, Sequence[str]], Mapping[str, npt.NDArray[Any]] | None]:
    def load(tx: int, tz: int, keys: Sequence[str]) -> Mapping[str, npt.NDArray[Any]] | None:
        path = paths.get((tx, tz)) or window_path(cache_dir, tx, tz)
        return load_window(path, digest, keys)

    return load


def _eroded(base: npt.NDArray[np.float32], delta: npt.NDArray[np.float64], top: float) -> npt.NDArray[np.float64]:
    """``clip(base + delta / top, 0, 1)`` as float32, with the unclipped metres' extremes and counts."""
    metres = base.astype(np.float64)
    metres *= top
    metres += delta
    metres /= top
    return metres


def _shaper(
    recipe: Recipe,
    grid: WorldGrid,
    x: int,
    z: int,
    load: Callable[[int, int, Sequence[str]], Mapping[str, npt.NDArray[Any]] | None] | None,
) -> Callable[[int], tuple[npt.NDArray[np.float32], npt.NDArray[np.float64] | None]]:
    """``shaper(margin)`` for ``terrain_layers_steps``: the world's heights around the tile (the
    windows' erosion blended in as far as they reach) and their flow."""
    top = grid.height

    def shaped(margin: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64] | None]:
        heights = base_heights(recipe, grid, x, z, margin)
        if load is None:
            return heights, None
        acc = blend_windows(grid, x, z, margin, load, ("delta", "flow"))
        if "delta" in acc:
            heights = np.clip(_eroded(heights, acc.pop("delta"), top), 0.0, 1.0).astype(np.float32)
        return heights, acc.get("flow")

    return shaped


def tile_layers(
    recipe: Recipe,
    grid: WorldGrid,
    x: int,
    z: int,
    *,
    cache_dir: str | None = None,
    window_paths: Mapping[tuple[int, ...], str] | None = None,
    settle: bool = True,
    load: Callable[[int, int, Sequence[str]], Mapping[str, npt.NDArray[Any]] | None] | None = None,
) -> TerrainLayers:
    """The ``core.terrain.TerrainLayers`` of tile ``(x, z)``: base heights plus the blended windows
    (read from ``window_paths`` ``{(tx, tz): path}`` or ``<cache_dir>/window_<x>_<z>.npz``, or
    from ``load(tx, tz, keys)`` when given).  ``settle=False``: the layers up to the settlements'
    stage (no settlements, no texture layers): what the world's settlements are planned on
    (``_settlements``)."""
    spec = tile_spec(recipe, grid, x, z)
    top = grid.height
    ring = base_heights(recipe, grid, x, z, 1)
    given: dict[str, Any] = {}
    if not needs_windows(recipe):
        load = None
    else:
        keys = ("delta", "eroded", "deposited", "flow")
        if load is None:
            assert cache_dir is not None, "a world with windows has its cache"
            load = _loader(cache_dir, dict(window_paths or {}), recipe_digest(recipe))
        acc = blend_windows(grid, x, z, 1, load, keys)
        if "delta" in acc:
            metres = _eroded(ring, acc.pop("delta"), top)
            inner = metres[1:-1, 1:-1]
            given["clipped"] = {
                "below": int((inner < 0.0).sum()),
                "above": int((inner > 1.0).sum()),
                "lowest_m": float(inner.min()) * top,
                "highest_m": float(inner.max()) * top,
            }
            ring = np.clip(metres, 0.0, 1.0).astype(np.float32)
            del metres, inner
            given["eroded"] = acc.pop("eroded")[1:-1, 1:-1].astype(np.float32)
            given["deposited"] = acc.pop("deposited")[1:-1, 1:-1].astype(np.float32)
            area = grid.cell_size * grid.cell_size  # the blend of the windows' ledgers: what the tile shows moved
            given["ledger"] = {
                "eroded": float(given["eroded"].sum(dtype=np.float64) * area),
                "deposited": float(given["deposited"].sum(dtype=np.float64) * area),
                "halo_cells": grid.halo_cells,
            }
        if "flow" in acc:
            given["flow"] = np.ascontiguousarray(acc.pop("flow")[1:-1, 1:-1])
    heights = tile_heights(ring, grid)
    slope = None
    if any(tuple(s.slope_range) != (0.0, 90.0) for s in recipe.splat):  # central differences at the edges too
        slope = heightmap.slope_degrees(ring, cell_size=grid.cell_size, height_scale=top)[1:-1, 1:-1]
    del ring
    layers = drive(
        terrain_layers_steps(
            heights,
            terrain_spec=spec,
            biomes_spec=recipe.biomes,
            splats=recipe.splat if settle else (),
            seed=recipe.world.seed,
            flow=wants_flow(recipe) or bool(recipe.settlements.enabled),  # a settled tile works out its flow
            given=given,
            shaper=_shaper(recipe, grid, x, z, load),
            slope=slope,
            rivers_spec=recipe.rivers,
            # the settlements lay the roads: none before their stage
            roads_spec=None if recipe.settlements.enabled and not settle else recipe.roads,
            planned=_planned(recipe, grid, x, z, cache_dir, settle),
            settlements_spec=recipe.settlements if settle else None,
        )
    )
    if not settle:  # the settlements' plan reads the layers before their stage: no trails yet
        return layers
    return tile_trails(recipe, grid, x, z, layers, cache_dir)  # the world's animals' trampled ground and trails


def _planned(
    recipe: Recipe, grid: WorldGrid, x: int, z: int, cache_dir: str | None, settle: bool = True
) -> dict[str, Any] | None:
    """The world's networks as tile ``(x, z)`` carves them and, with ``[settlements]`` (``settle``),
    the world's settlements as it levels them (None without any)."""
    settled = settle and recipe.settlements.enabled
    if not wants_networks(recipe) and not settled:
        return None
    digest = recipe_digest(recipe)
    if wants_networks(recipe):
        out = world_networks(recipe, grid, digest, cache_dir).planned(grid, x, z)
    else:
        out = {"rivers": None, "roads": None, "offset": grid.origin(x, z)}
    if settled:
        out["settlements"] = world_settlements(recipe, grid, digest, cache_dir).planned(grid, x, z)
    return out


def world_settlements(recipe: Recipe, grid: WorldGrid, digest: str, cache_dir: str | None = None) -> WorldSettlements:
    """The settlements of the whole world (``_settlements``: planned on every tile's layers up to its
    settlements' stage), once per process for the recipe of ``digest``; the threads of a thread
    executor wait for the first one's plan.  ``cache_dir``: the world's cache folder (an eroded
    world's stitched heights, which its networks' plan reads)."""
    with _LOCK:
        kept = _KEPT.get(digest)
        if kept is None:
            _KEPT.clear()  # the last world's plan only
            kept = _KEPT[digest] = plan_settlements(recipe, grid, digest, layers=tile_layers, cache_dir=cache_dir)
        return kept


def planned_roads(recipe: Recipe, grid: WorldGrid, digest: str, cache_dir: str | None = None) -> Any:
    """The world's road network (``core.roads.RoadNetwork``) or None: the settlements' when they
    lay the roads, else the networks' plan's."""
    if recipe.settlements.enabled:
        if not recipe.roads.enabled:
            return None
        roads = world_settlements(recipe, grid, digest, cache_dir).settlements.roads
        return None if roads is None else roads.network
    if recipe.roads.enabled:
        return world_networks(recipe, grid, digest, cache_dir).roads
    return None


def _files(
    recipe: Recipe,
    grid: WorldGrid,
    x: int,
    z: int,
    layers: TerrainLayers,
    placements: Sequence[Placement],
    name: str,
    plants: tuple[PlantRun, Habitat] | None = None,
    cache_dir: str | None = None,
) -> dict[str, bytes]:
    base = tile_base(name, x, z)
    placements_name = f"{base}_placements.json" if recipe.scatter or plants is not None else None
    files = core_package.package_files(
        base,
        layers,
        size=grid.size,
        splats=tuple(recipe.splat),
        details=detail_maps(recipe, grid, x, z, layers),
        placements=placements_name,
        blender_centre=grid.blender_centre(x, z),
    )
    raw = files.pop(f"{base}_heightmap.raw")
    content = json.loads(files.pop(f"{base}_terrain.json"))
    content["heightmap"]["file"] = f"{base}.raw"
    out = {f"{base}.raw": raw, **files}
    if placements_name:
        data = placement_content(recipe, grid, x, z, placements, base)
        if not recipe.scatter:
            data["scatters"] = []
        if plants is not None:  # the tile's plants, as one more scatter of its placement file
            data["scatters"].append(plant_entry(recipe, grid, x, z, *plants, tile=grid.object_name(x, z)))
            out.update(plant_files(base, *plants))
        out[placements_name] = (json.dumps(data, separators=(",", ":")) + "\n").encode()
    out[f"{base}_terrain.json"] = core_package.json_bytes(content)
    out.update(tile_trail_files(recipe, grid, x, z, name, cache_dir))  # the tile's part of the world's trails
    if wants_networks(recipe):  # the tile's part of the world's rivers and roads, the world's ids
        digest = recipe_digest(recipe)
        nets = world_networks(recipe, grid, digest, cache_dir)
        box = nets.box(grid, x, z)
        roads = planned_roads(recipe, grid, digest, cache_dir)
        if nets.rivers is not None:
            out[f"{base}_rivers.json"] = rivers_json_bytes(nets.rivers, name=base, origin=nets.origin, box=box)
        if roads is not None:
            out[f"{base}_roads.json"] = roads_json_bytes(roads, name=base, origin=nets.origin, box=box)
    if layers.settlements is not None:  # the sites whose centre stands in the tile, the world's frame
        out[f"{base}_settlements.json"] = settlements_json_bytes(layers.settlements, name=base)
    return out


def run_tile(
    recipe: Recipe,
    grid: WorldGrid,
    x: int,
    z: int,
    *,
    out_dir: str,
    name: str,
    cache_dir: str,
    deps: Mapping[str, dict[str, Any]],
    write: bool = True,
) -> dict[str, Any]:
    """Build tile ``(x, z)``; returns the parts of its task result (``files``, ``border``, ``ledger``,
    ``relief``)."""
    digest = recipe_digest(recipe)
    if not write and cache_dir:
        cached = load_border(border_path(cache_dir, x, z), digest)
        if cached is not None:
            return {"files": [], "border": cached, "ledger": {}, "relief": None}
    window_paths: dict[tuple[int, ...], str] = {}
    neighbours: list[Any] = []
    for dep in deps.values():
        if dep.get("kind") == "window":
            window_paths[tuple(dep["tile"])] = dep["path"]
        elif dep.get("kind") == "tile":
            neighbours.append(dep.get("border"))
    layers = tile_layers(recipe, grid, x, z, cache_dir=cache_dir, window_paths=window_paths)
    placements = scatter_tile(recipe, grid, x, z, layers, neighbours) if recipe.scatter else ()
    plants = None
    if write and recipe.ecosystem.species:  # the tile's plants, simulated with a halo (tiles agree)
        load = _loader(cache_dir, window_paths, recipe_digest(recipe)) if needs_windows(recipe) else None
        settled = world_settlements(recipe, grid, digest, cache_dir) if recipe.settlements.enabled else None
        ground = plant_ground(recipe, grid, cache_dir, settlements=settled)  # the world's: tiles agree
        plants = tile_plants(recipe, grid, x, z, _shaper(recipe, grid, x, z, load), ground=ground, layers=layers)
    border = border_points(placements, grid, x, z, reach(recipe.scatter))
    metres = layers.heights.values
    relief = [float(metres.min()) * grid.height, float(metres.max()) * grid.height]
    ledger = {}
    if layers.ledger is not None:
        ledger = {
            "eroded_m3": layers.ledger["eroded"],
            "deposited_m3": layers.ledger["deposited"],
            "clipped": dict(layers.clipped),
        }
    files = []
    if write:
        os.makedirs(out_dir, exist_ok=True)
        made = _files(recipe, grid, x, z, layers, placements, name, plants, cache_dir)
        for file_name, data in made.items():
            write_bytes_atomic(os.path.join(out_dir, file_name), data)
            files.append({"name": file_name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})
        for kind in ("rivers.json", "roads.json", "settlements.json", "trails.png"):  # an earlier build's
            path = os.path.join(out_dir, f"{tile_base(name, x, z)}_{kind}")
            if os.path.basename(path) not in made and os.path.isfile(path) and not os.path.islink(path):
                os.remove(path)
    if cache_dir:
        buf = io.BytesIO()
        np.savez(buf, digest=np.array(digest), **border)
        os.makedirs(cache_dir, exist_ok=True)
        write_bytes_atomic(border_path(cache_dir, x, z), buf.getbuffer())
    return {"files": files, "border": border, "ledger": ledger, "relief": relief}
