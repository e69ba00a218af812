"""The networks of a terrain: its rivers and roads planned on the eroded heights and carved into them
(the stage of :func:`core.terrain.terrain_layers_steps` between the flow and the biomes), and their
files.

The grid the networks are planned on is the terrain's, centred on its ``offset`` as the terrain
object is (:func:`networks_origin`): ``[roads] points`` are scene metres on it.  The files are
``core.rivers.rivers_json_bytes`` and ``core.roads.roads_json_bytes`` of the networks, their points
in Unity's frame around the terrain's centre in the scene (:func:`network_files`).
"""

import dataclasses
from collections.abc import Generator, Mapping, Sequence
from typing import Any

import numpy as np

from .. import biomes as core_biomes
from .. import rivers as core_rivers
from .. import roads as core_roads
from ..rivers import RiversSpec
from ..roads import RoadsSpec
from ._heights import TerrainHeights
from .spec import TerrainSpec

__all__ = ["NETWORK_STEPS", "networks_origin", "network_steps", "network_file_names", "network_files"]

#: Progress units of the rivers and of the roads (``LAYER_STEPS`` of ``terrain_layers_steps``).
NETWORK_STEPS = {"rivers": 10, "roads": 20}


def networks_origin(shape: tuple[int, ...], terrain_spec: TerrainSpec) -> tuple[float, float]:
    """Blender ``(x0, y0)`` metres of cell (0, 0) of a terrain of ``shape`` (rows, cols): the grid the
    rivers and roads are planned on, centred on the terrain's ``offset`` as the terrain object is
    (``[roads] points`` are scene metres on it; their files' points are too).

    >>> networks_origin((5, 5), TerrainSpec(size=8.0, resolution=5))
    (-4.0, -4.0)
    """
    rows, cols = shape[0], shape[1]
    cell = terrain_spec.size / max(terrain_spec.resolution - 1, 1)
    cx, cy = float(terrain_spec.offset[0]), float(terrain_spec.offset[1])
    return (cx - 0.5 * (cols - 1) * cell, cy - 0.5 * (rows - 1) * cell)


def _inner(maps: Any, ring: bool) -> Any:
    """``maps`` (a ``RiverMaps`` / ``RoadMaps`` of the tile with its one-cell ring) without the ring."""
    if not ring:
        return maps
    cut = {f.name: getattr(maps, f.name)[1:-1, 1:-1] for f in dataclasses.fields(maps)}
    return dataclasses.replace(maps, **cut)


def network_steps(
    heights: TerrainHeights,
    terrain_spec: TerrainSpec,
    rivers_spec: RiversSpec | None,
    roads_spec: RoadsSpec | None,
    planned: Mapping[str, Any] | None = None,
) -> Generator[tuple[int, str], None, dict[str, Any]]:
    """The rivers, then the roads of ``heights`` (steps yielding ``(units, label)``); returns the
    :class:`TerrainLayers` fields they make: the carved ``heights`` (clipped to the terrain's range
    as the erosion's), ``rivers``, ``roads``, ``water`` (the sea, lakes and river water) and
    ``clearing`` (water, and a road's width plus its margin), and their splat maps under
    ``"splat_maps"`` (``river``, ``bank``, ``road``).

    ``planned``: networks planned elsewhere, ``{"rivers": RiverNetwork or None, "roads": RoadNetwork
    or None, "offset": (row, col)}`` (a tiled world's plan and the tile's first cell in its grid):
    the tile carves its part of them (its one-cell ring too, so its edge normals see the carving its
    neighbours hold) instead of planning its own."""
    cell, top = heights.cell_size, heights.height
    ring = planned is not None and heights.margin is not None
    window = heights.margin if ring and heights.margin is not None else heights.values
    h = window.astype(np.float64) * top
    sea_level_m = float(np.float32(terrain_spec.sea_level) * np.float32(top))
    # the level in ``h``'s own arithmetic (float64 of the float32 values, times the height): the flat
    # sea floor is exactly float32(sea_level) there, and the float32 product above may round below
    # it (0.12 of 160 m does), which would leave the rivers and roads no sea at all
    sea = float(np.float32(terrain_spec.sea_level)) * top if terrain_spec.sea_level > 0.0 else None
    out: dict[str, Any] = {"splat_maps": {}}
    water = core_biomes.sea_mask(heights.metres, sea_level=sea_level_m)
    clearing = np.zeros(water.shape, bool)
    ground = h
    rivers = None
    units = 0
    offset = (0, 0)
    if planned is not None:
        offset = tuple(planned["offset"])
        if ring:
            offset = (offset[0] - 1, offset[1] - 1)
    if rivers_spec is not None and rivers_spec.enabled:
        if planned is not None:
            network = planned["rivers"]
            maps = core_rivers.carve_rivers(
                h, network, offset=offset, carve=rivers_spec.carve, reach=rivers_spec.water_reach
            )
            ground = maps.heights
            rivers = core_rivers.Rivers(network, _inner(maps, ring))
        else:
            rivers = core_rivers.build_rivers(h, rivers_spec, cell_size=cell, sea_level=sea)
            ground = rivers.maps.heights
        water |= rivers.maps.water
        clearing |= rivers.maps.exclusion
        out["rivers"] = rivers
        out["splat_maps"].update(rivers.maps.splat_maps)
        units += NETWORK_STEPS["rivers"]
        yield units, "rivers"
    if roads_spec is not None and roads_spec.enabled:
        if planned is not None:
            road_maps = core_roads.carve_roads(ground, planned["roads"], offset=offset)
            ground = road_maps.heights
            roads = core_roads.Roads(planned["roads"], _inner(road_maps, ring))
        else:
            laying = core_roads.build_roads_steps(
                h,
                roads_spec,
                cell_size=cell,
                origin=networks_origin(h.shape, terrain_spec),
                sea_level=sea,
                rivers=rivers,
            )
            while True:  # a step per route: a build's progress, and Esc between routes
                try:
                    done, whole, _label = next(laying)
                except StopIteration as stop:
                    roads = stop.value
                    break
                if done < whole:
                    yield units + NETWORK_STEPS["roads"] * done // max(whole, 1), "roads"
            ground = roads.maps.heights
        clearing |= roads.maps.clearing
        out["roads"] = roads
        out["splat_maps"]["road"] = roads.maps.road
        units += NETWORK_STEPS["roads"]
        yield units, "roads"
    carved = np.clip(ground / top, 0.0, 1.0).astype(np.float32)
    margin = None
    if ring:
        margin, values = carved, np.ascontiguousarray(carved[1:-1, 1:-1])
    else:
        values = carved
        if heights.margin is not None:
            margin = heights.margin.copy()
            margin[1:-1, 1:-1] = values
    out.update(heights=TerrainHeights(values, cell, top, margin), water=water, clearing=clearing | water)
    return out


def network_file_names(name: str, *, rivers: bool, roads: bool) -> list[str]:
    """The files of a terrain's networks exported as ``name``: ``<name>_rivers.json`` with rivers,
    ``<name>_roads.json`` with roads.

    >>> network_file_names("Vale", rivers=True, roads=False)
    ['Vale_rivers.json']
    """
    return [f"{name}_rivers.json"] * bool(rivers) + [f"{name}_roads.json"] * bool(roads)


def network_files(layers: Any, name: str, *, centre: Sequence[float] = (0.0, 0.0)) -> dict[str, bytes]:
    """``{file name: bytes}`` of the networks of ``layers`` (a :class:`core.terrain.TerrainLayers`):
    ``<name>_rivers.json`` (format ``worldseed.rivers``) and ``<name>_roads.json``
    (``worldseed.roads``), their points in Unity's frame for a terrain centred at Blender ``centre``
    (``(x, y)`` or ``(x, y, z)`` metres: where the terrain object stands, as the placements and the
    heightmap take it); empty without networks."""
    heights = layers.heights
    rows, cols = heights.values.shape
    cell = heights.cell_size
    origin = (float(centre[0]) - 0.5 * (cols - 1) * cell, float(centre[1]) - 0.5 * (rows - 1) * cell)
    lift = float(centre[2]) if len(centre) > 2 else 0.0
    files: dict[str, bytes] = {}
    if layers.rivers is not None:
        files[f"{name}_rivers.json"] = core_rivers.rivers_json_bytes(
            layers.rivers.network, name=name, origin=origin, lift=lift
        )
    if layers.roads is not None:
        files[f"{name}_roads.json"] = core_roads.roads_json_bytes(
            layers.roads.network, name=name, origin=origin, lift=lift
        )
    return files
