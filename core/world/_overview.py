"""The overview picture of a tiled world: one shaded relief of every tile, from the tiles' own files.

:func:`overview_png` reads each tile's RAW heights (``<base>.raw``) and splat images
(``<base>_splat<k>.png``) as the world run wrote them (numpy only, no Blender), puts them side by
side at a common step (every ``s``-th sample, ``s`` a power of two that keeps the picture within
``max_side`` pixels), blends the texture layers' colours by their weights as Unity does
(``core.preview.splat_colours``; a textured layer shows its flat ``color``) and shades the whole
as the single terrain's ``relief.png`` (``core.preview.shaded_relief``): north at the top, the sea
in the palette's water.  The bytes depend on the files only, so every run of the same world
writes the same picture.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError
from ..files import read_checked
from ..preview import png_bytes, sample_image, shaded_relief, splat_colours, srgb_bytes
from ..unity import read_raw16, unity_heights
from ..unity_package import heightmap_side, unity_image
from ..wfc import read_png
from ._grid import WorldGrid, tile_base

if TYPE_CHECKING:
    from ..recipe import Recipe  # the recipe reads this package's spec
    from ..splat import SplatSpec

__all__ = ["overview_png", "overview_name", "OVERVIEW_SIDE"]

#: Largest side of the overview picture, pixels; a smaller world's picture is magnified to at least half
#: of it.
OVERVIEW_SIDE = 1024


def overview_name(name: str) -> str:
    """``<name>_overview.png``."""
    return f"{name}_overview.png"


def _read(path: str, limit: int) -> bytes:
    """A tile file's bytes (``core.files.read_checked``: a regular file of at most ``limit`` bytes, checked
    before it is read), refused when it is a link (the world run writes none)."""
    if os.path.islink(path):
        raise ParameterError(f"tile file {os.path.basename(path)!r} is a link, not a regular file")
    return read_checked(path, name="tile file", limit=limit, shown=os.path.basename(path))


def _step(grid: WorldGrid, max_side: int) -> int:
    """The sample step of the picture: a power of two dividing a tile's cells, within ``max_side``."""
    n = grid.resolution - 1
    step = 1
    while max(grid.shape) / step > max_side and step < n:
        step *= 2
    return step


def _tile_heights(folder: str, base: str, grid: WorldGrid, step: int) -> npt.NDArray[np.float32]:
    side = heightmap_side(grid.resolution)
    if side != grid.resolution:
        raise ParameterError(f"tile resolution {grid.resolution} is not a Unity heightmap side")
    data = _read(os.path.join(folder, f"{base}.raw"), side * side * 2)
    return unity_heights(read_raw16(data, side=side, byte_order="little"))[::step, ::step]


def _tile_colours(
    folder: str, base: str, grid: WorldGrid, layers: Sequence[SplatSpec], step: int
) -> npt.NDArray[np.float32] | None:
    """The tile's ground colours (linear RGB) at ``n / step`` texels a side, or None without splats."""
    if not layers:
        return None
    n = grid.resolution - 1
    weights = []
    for k in range(-(-len(layers) // 4)):
        data = _read(os.path.join(folder, f"{base}_splat{k}.png"), 64 * n * n + 65536)
        image = unity_image(read_png(data, name=f"{base}_splat{k}.png", max_side=n))  # the file is turned
        if image.shape != (n, n, 4):
            raise ParameterError(f"{base}_splat{k}.png is {image.shape[1]} x {image.shape[0]}, not {n} x {n}")
        weights.append(image.transpose(2, 0, 1))
    w = np.concatenate(weights)[: len(layers)]
    colours = np.asarray([tuple(s.color) for s in layers], np.float32)
    rgb = splat_colours(w, colours)
    m = n // step
    return rgb.reshape(m, step, m, step, 3).mean(axis=(1, 3))


def overview_png(recipe: Recipe, grid: WorldGrid, folder: str, name: str, *, max_side: int = OVERVIEW_SIDE) -> bytes:
    """PNG bytes of the world's overview (see the module's notes) from the files of its tiles in
    ``folder`` (run ``name``); every tile must be there."""
    step = _step(grid, max_side)
    n = grid.resolution - 1
    m = n // step
    rows, cols = grid.nz * m + 1, grid.nx * m + 1
    heights = np.zeros((rows, cols), np.float32)
    layers = tuple(recipe.splat)
    colours = np.zeros((grid.nz * m, grid.nx * m, 3), np.float32) if layers else None
    for x, z in grid.tiles():
        base = tile_base(name, x, z)
        r0, c0 = (grid.nz - 1 - z) * m, (grid.nx - 1 - x) * m  # grid.origin at the picture's step
        heights[r0 : r0 + m + 1, c0 : c0 + m + 1] = _tile_heights(folder, base, grid, step)
        if colours is not None:
            colours[r0 : r0 + m, c0 : c0 + m] = _tile_colours(folder, base, grid, layers, step)
    cell = grid.cell_size * step
    image = shaded_relief(
        heights,
        cell_size=cell,
        height=grid.height,
        sea_level=recipe.terrain.sea_level,
        palette=recipe.terrain.palette,
        max_side=max(rows, cols),
        colours=None if colours is None else srgb_bytes(colours),
    )
    grow = max(1, -(-(max_side // 2) // max(rows, cols)))
    if grow > 1:  # a small world: the picture magnified (bilinear), at least half of max_side
        image = sample_image(image, ((rows - 1) * grow + 1, (cols - 1) * grow + 1))
    return png_bytes(image)
