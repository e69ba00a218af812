"""A tiled world's un-eroded heights: the terrain's noise and shaping over any window of tiles.

Every sample is a function of its global index alone: the noise is sampled at the tile's offset
(``terrain.offset`` plus the tile's Blender corner, a whole number of cells, so ``offset + j`` is
exact) and the island falloff spans the whole world (``core.heightmap.falloff_window``).  Two
tiles, or two windows, that share a sample compute the same bits there.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .. import heightmap
from ..errors import ParameterError
from ..terrain import TerrainHeights, TerrainSpec, raw_noise, shape_heights
from ._grid import WorldGrid

if TYPE_CHECKING:
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = ["tile_spec", "base_heights", "tile_heights"]


def tile_spec(recipe: Recipe, grid: WorldGrid, x: int, z: int) -> TerrainSpec:
    """The ``[terrain]`` spec of tile ``(x, z)``: the recipe's, offset to the tile's Blender corner.

    Raises ParameterError when the offset is not a whole number of cells (the tiles' shared
    samples would then differ in the last bit).
    """
    spec = recipe.terrain
    cx, cy = grid.blender_corner(x, z)
    offset = (spec.offset[0] + cx, spec.offset[1] + cy)
    cell = spec.cell_size
    for o in offset:
        if not float(o / cell).is_integer():
            raise ParameterError(
                f"terrain.size {spec.size:g} m: tile ({x}, {z})'s offset {o!r} is not a whole number of "
                f"cells ({cell!r} m); choose a size that is a whole number of metres"
            )
    return dataclasses.replace(spec, offset=offset)


def base_heights(recipe: Recipe, grid: WorldGrid, x: int, z: int, margin: int) -> npt.NDArray[np.float32]:
    """Shaped, un-eroded heights in [0, 1] of tile ``(x, z)`` with ``margin`` cells on every side.

    Returns a float32 ``(n + 2 margin, n + 2 margin)`` array, row 0 at Blender's smallest Y.
    """
    spec = tile_spec(recipe, grid, x, z)
    raw = raw_noise(spec, seed=recipe.world.seed, margin=margin)
    mask = None
    if spec.falloff != "none":
        r0, c0 = grid.origin(x, z)
        side = grid.resolution + 2 * margin
        rows = range(r0 - margin, r0 - margin + side)
        cols = range(c0 - margin, c0 - margin + side)
        mask = heightmap.falloff_window(grid.shape, rows, cols, mode=spec.falloff, width=spec.falloff_width)
    out = shape_heights(raw, spec, margin=margin, falloff_mask=mask)
    del raw
    return out


def tile_heights(values_with_ring: npt.NDArray[np.float32], grid: WorldGrid) -> TerrainHeights:
    """A :class:`core.terrain.TerrainHeights` of a tile from its heights with a one-cell ring."""
    ring = np.ascontiguousarray(values_with_ring, dtype=np.float32)
    return TerrainHeights(np.ascontiguousarray(ring[1:-1, 1:-1]), grid.cell_size, grid.height, ring)
