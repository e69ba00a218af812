"""A tile's props: the scatter with its neighbours' border props, the placement file, the detail layers.

Tiles are coloured ``(x % 2) + 2 (z % 2)``; a tile scatters after its neighbours (8-neighbourhood)
of lower colours and keeps its props clear of theirs near the border (``core.scatter.scatter_layers``'
``existing``).  Its own props near its edges go back in the task's result (``border``), for the
tiles of higher colours.  So props keep their spacing across borders, and what a tile places
depends on the colouring only, never on the order tiles are built in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import heightmap
from .. import placement as core_placement
from .. import scatter as core_scatter
from .. import trees as core_trees
from ..errors import ParameterError
from ..scatter import LayerSpec, Placement
from ..terrain import TerrainLayers
from ..unity_package import alphamap_side
from ._grid import WorldGrid
from ._window import TAG_SCATTER, task_seed

if TYPE_CHECKING:
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = ["scatter_tile", "patches", "border_points", "placement_content", "prop_names", "reach", "FORMAT", "VERSION"]

FORMAT = "worldseed-placements"
VERSION = 1
#: Mixed into the tile's seed for the props' variants.
TAG_VARIANT = 0x5EED
TAG_PATCH = 0x50415443  # "PATC"
#: The name of prop instance ``index`` of a tile: the tile's object name first, unique across the world.
INSTANCE_NAME = "{tile}_{prop}_{index:05d}"


def reach(specs: Iterable[LayerSpec]) -> float:
    """How far (metres) a prop can keep a neighbour's prop away: the largest spacing of any layer."""
    return max([max(s.radius, s.radius_max, s.keep_away) for s in specs] + [0.0])


def prop_names(spec: LayerSpec) -> list[str]:
    """The names of a layer's prop variants, as Blender's built-in props are named."""
    if spec.prop == "rock":
        stem = "Rock"
    elif spec.prop == "grass":
        stem = "Grass"
    else:
        stem = core_trees.species_spec(spec.prop).name
    return [f"{stem}_P{k + 1:02d}" for k in range(spec.variants)]


def _existing(
    neighbours: Sequence[Mapping[str, npt.NDArray[Any]]], centre: Sequence[float]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]] | None:
    """The neighbours' border props (``border`` results) in this tile's centred coordinates."""
    parts = [b for b in neighbours if b is not None and len(b.get("xy", ()))]
    if not parts:
        return None
    xy = np.concatenate([np.asarray(b["xy"], np.float64) for b in parts]) - np.asarray(centre[:2])
    radii = np.concatenate([np.asarray(b["radius"], np.float64) for b in parts])
    layer = np.concatenate([np.asarray(b["layer"], np.int64) for b in parts])
    return xy, radii, layer


def scatter_tile(
    recipe: Recipe,
    grid: WorldGrid,
    x: int,
    z: int,
    layers: TerrainLayers,
    neighbours: Sequence[Mapping[str, npt.NDArray[Any]]],
) -> tuple[Placement, ...]:
    """Scatter ``[[scatter]]`` over tile ``(x, z)`` (``layers``: its ``TerrainLayers``), clear of the
    ``neighbours``' border props; returns the placements (``core.scatter.Placement`` per layer, centred
    on the tile)."""
    specs = list(recipe.scatter)
    core_scatter.check_prop_count(specs, size=grid.size)
    for i, s in enumerate(specs):  # a prop must not reach past the neighbouring tile
        if max(s.radius, s.radius_max, s.keep_away) > grid.size / 2:
            raise ParameterError(
                f"scatter[{i}]: spacing {max(s.radius, s.radius_max, s.keep_away):g} m (radius, radius_max, "
                f"keep_away) must be at most half a tile ({grid.size / 2:g} m) in a tiled world"
            )
    sea_m = recipe.terrain.sea_level * recipe.terrain.height
    centre = grid.blender_centre(x, z)
    return core_scatter.scatter_layers(
        layers.metres,
        size=grid.size,
        seed=np.random.default_rng(task_seed(recipe.world.seed, x, z, TAG_SCATTER)),
        layers=[core_scatter.layer_from_spec(s, sea_level_m=sea_m) for s in specs],
        maps=layers.scatter_maps,
        existing=_existing(neighbours, centre),
        patches=patches(recipe, grid, x, z),
        slope=ring_slope(layers) if any(tuple(s.slope_range) != (0.0, 90.0) for s in specs) else None,
    )


def ring_slope(layers: TerrainLayers) -> npt.NDArray[np.float32] | None:
    """Slope (degrees) of a tile from its heights with their one-cell ring: central differences at
    its edges too, so both tiles of a border see the same slope there."""
    heights = layers.heights
    ring = heights.margin
    if ring is None:
        return None
    return heightmap.slope_degrees(ring, cell_size=heights.cell_size, height_scale=heights.height)[1:-1, 1:-1]


def patches(recipe: Recipe, grid: WorldGrid, x: int, z: int) -> tuple[tuple[float, float], int]:
    """The world's scatter patches at tile ``(x, z)``: its first vertex in cells and the world's
    patch seed (``core.scatter.scatter_layers``' ``patches``)."""
    cell = grid.cell_size
    ox = recipe.terrain.offset[0] + grid.blender_corner(x, z)[0]
    oy = recipe.terrain.offset[1] + grid.blender_corner(x, z)[1]
    return ((ox / cell, oy / cell), task_seed(recipe.world.seed, 0, 0, TAG_PATCH) % (1 << 32))


def border_points(
    placements: Sequence[Placement], grid: WorldGrid, x: int, z: int, distance: float
) -> dict[str, npt.NDArray[Any]]:
    """The tile's props within ``distance`` of its edges: ``{"xy" (k, 2) Blender world metres,
    "radius" (k,), "layer" (k,) int16}``."""
    half = grid.size / 2.0
    cx, cy, _ = grid.blender_centre(x, z)
    xy, radius, layer = [np.empty((0, 2))], [np.empty(0)], [np.empty(0, np.int16)]
    for i, p in enumerate(placements):
        pos = p.positions[:, :2]
        near = (np.abs(pos) >= half - distance).any(axis=1)
        xy.append(pos[near] + np.array([cx, cy]))
        radius.append(np.asarray(p.radii, np.float64)[near])
        layer.append(np.full(int(near.sum()), i, np.int16))
    return {"xy": np.concatenate(xy), "radius": np.concatenate(radius), "layer": np.concatenate(layer)}


def placement_content(
    recipe: Recipe, grid: WorldGrid, x: int, z: int, placements: Sequence[Placement], base: str
) -> dict[str, Any]:
    """The tile's placement file (as ``world_placements.json``: one scatter, Unity coordinates)."""
    specs = list(recipe.scatter)
    rng = np.random.default_rng(np.random.SeedSequence([recipe.world.seed, x, z, TAG_VARIANT]))
    names: list[str]
    offsets: list[int]
    names, offsets = [], []
    for spec in specs:
        offsets.append(len(names))
        names += prop_names(spec)
    cx, cy, cz = grid.blender_centre(x, z)
    pos, rot, scale, which, layer = [np.empty((0, 3))], [np.empty((0, 4))], [np.empty(0)], [], []
    for i, (p, spec) in enumerate(zip(placements, specs)):
        m = len(p.positions)
        pos.append(p.positions + np.array([cx, cy, cz]))
        rot.append(p.rotations)
        scale.append(p.scales)
        which.append(rng.integers(0, spec.variants, m) + offsets[i])
        layer.append(np.full(m, i))
    pos, rot, scale = np.concatenate(pos), np.concatenate(rot), np.concatenate(scale)  # type: ignore[assignment]
    which = np.concatenate(which) if which else np.empty(0, np.int64)  # type: ignore[assignment]
    layer = np.concatenate(layer) if layer else np.empty(0, np.int64)  # type: ignore[assignment]
    tile = grid.object_name(x, z)
    scatter = core_placement.scatter_entry(
        pos,
        rot,
        scale,
        which,
        names,
        layers=layer,
        layer_names=[s.name for s in specs],
        tree_layers=[i for i, s in enumerate(specs) if s.unity_tree],
        object_name=lambda prop, index: INSTANCE_NAME.format(tile=tile, prop=prop, index=index),
        scatter=f"{tile}_Scatter",
        terrain=tile,
        blender_centre=(cx, cy, cz),
        size=recipe.terrain.size,
        height=recipe.terrain.height,
    )
    return {"format": FORMAT, "version": VERSION, "tile": [x, z], "name": base, "scatters": [scatter]}


def detail_maps(
    recipe: Recipe, grid: WorldGrid, x: int, z: int, layers: TerrainLayers
) -> tuple[tuple[str, npt.NDArray[np.uint16]], ...]:
    """The tile's Unity detail layers ``((name, counts), ...)`` (layers with ``unity_detail > 0``)."""
    specs = [s for s in recipe.scatter if s.unity_detail > 0]
    if not specs:
        return ()
    base = alphamap_side(grid.resolution)
    resolution = max(core_scatter.detail_side(base, size=grid.size, per_m2=s.unity_detail) for s in specs)
    return tuple(
        core_scatter.detail_layers(
            layers.metres,
            size=grid.size,
            specs=list(recipe.scatter),
            sea_level_m=recipe.terrain.sea_level * recipe.terrain.height,
            resolution=resolution,
            seed=task_seed(recipe.world.seed, x, z, TAG_SCATTER),  # the scatter's, as on one terrain
            maps=layers.scatter_maps,
            patches=patches(recipe, grid, x, z),
        )
    )
