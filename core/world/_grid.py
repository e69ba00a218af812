"""The tile grid of a tiled world: tiles, their neighbours, places, names and halo.

Tile ``(x, z)`` is Unity's grid index: it covers Unity X in ``[x S, (x + 1) S]`` and Z in
``[z S, (z + 1) S]`` (``S`` the terrain's size).  Blender -> Unity is ``(-x, z, -y)``
(:mod:`core.unity`), so the tile's Blender object is centred at ``(-(x + 0.5) S, -(z + 0.5) S, 0)``
and its heightmap's row 0 / column 0 (Blender's smallest Y / X) lie at the tile's largest Unity Z / X.

Samples are numbered over the whole world in Blender's order: global column
``(nx - 1 - x) (n - 1) + j`` and row ``(nz - 1 - z) (n - 1) + i`` for sample ``(i, j)`` of tile
``(x, z)`` with ``n`` samples a side; neighbouring tiles share their border samples.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ParameterError

if TYPE_CHECKING:
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = ["WorldGrid", "world_grid", "tile_base", "parse_tile_range", "halo_cells", "MIN_HALO_CELLS"]

#: Fewest cells of an automatic halo.
MIN_HALO_CELLS = 8


def halo_cells(recipe: Recipe) -> int:
    """Cells of halo around each tile's erosion window.

    ``[world] halo`` metres rounded up to whole cells; 0 means automatic: the erosion's lifetime
    plus its brush radius (how far a droplet reaches), rounded up, at least ``MIN_HALO_CELLS``.
    Never more than half a tile.

    >>> from core import recipe
    >>> halo_cells(recipe.loads('[terrain]\\nresolution = 65\\nsize = 128.0\\n'))
    8
    """
    spec = recipe.terrain
    cell = spec.cell_size
    if recipe.world.halo > 0.0:
        cells = math.ceil(recipe.world.halo / cell - 1e-9)
    else:
        reach = spec.erosion.lifetime + spec.erosion.radius if spec.erosion.enabled else 0.0
        cells = max(MIN_HALO_CELLS, math.ceil(reach / cell - 1e-9))
    return int(min(cells, (spec.resolution - 1) // 2))


@dataclass(frozen=True)
class WorldGrid:
    """The tile grid of a world (see the module's notes for the geometry).

    Attributes
    ----------
    nx, nz : int
        Tiles along Unity X and Z.
    resolution : int
        Heightmap samples along a tile's side (2^n + 1).
    size, height : float
        A tile's side and the terrain's height, in metres.
    halo_cells : int
        Cells each tile's erosion window reaches beyond the tile on every side.
    world_name : str
        ``[world] name``: tiles' objects are ``<world_name>_<x>_<z>``.

    Examples
    --------
    >>> g = WorldGrid(nx=2, nz=2, resolution=65, size=128.0, height=50.0, halo_cells=8, world_name="W")
    >>> g.tiles()
    [(0, 0), (1, 0), (0, 1), (1, 1)]
    >>> g.neighbours(0, 0)
    {'left': None, 'top': (0, 1), 'right': (1, 0), 'bottom': None}
    >>> g.unity_position(1, 0), g.blender_centre(1, 0), g.object_name(1, 0)
    ((128.0, 0.0, 0.0), (-192.0, -64.0, 0.0), 'W_1_0')
    """

    nx: int
    nz: int
    resolution: int
    size: float
    height: float
    halo_cells: int
    world_name: str

    @property
    def cell_size(self) -> float:
        """Metres between neighbouring samples."""
        return self.size / (self.resolution - 1)

    @property
    def shape(self) -> tuple[int, int]:
        """Samples of the whole world ``(rows, cols)`` (Blender Y, X)."""
        n = self.resolution - 1
        return (self.nz * n + 1, self.nx * n + 1)

    def tiles(self) -> list[tuple[int, int]]:
        """Every tile ``(x, z)``, row-major: z outer, x inner."""
        return [(x, z) for z in range(self.nz) for x in range(self.nx)]

    def contains(self, x: int, z: int) -> bool:
        """Whether ``(x, z)`` is a tile of the grid."""
        return 0 <= x < self.nx and 0 <= z < self.nz

    def neighbours(self, x: int, z: int) -> dict[str, tuple[int, int] | None]:
        """Unity's ``Terrain.SetNeighbors`` order: left (x-1), top (z+1), right (x+1), bottom (z-1)."""
        out = {}
        for side, (dx, dz) in (("left", (-1, 0)), ("top", (0, 1)), ("right", (1, 0)), ("bottom", (0, -1))):
            out[side] = (x + dx, z + dz) if self.contains(x + dx, z + dz) else None
        return out

    def unity_position(self, x: int, z: int) -> tuple[float, float, float]:
        """The Unity Terrain's position ``(x S, 0, z S)``."""
        return (x * self.size, 0.0, z * self.size)

    def blender_centre(self, x: int, z: int) -> tuple[float, float, float]:
        """Where the tile's Blender object is centred."""
        return (-(x + 0.5) * self.size, -(z + 0.5) * self.size, 0.0)

    def blender_corner(self, x: int, z: int) -> tuple[float, float]:
        """The tile's Blender minimum corner (row 0, column 0)."""
        return (-(x + 1) * self.size, -(z + 1) * self.size)

    def object_name(self, x: int, z: int) -> str:
        """``<world_name>_<x>_<z>``."""
        return f"{self.world_name}_{x}_{z}"

    def origin(self, x: int, z: int) -> tuple[int, int]:
        """Global ``(row, col)`` of the tile's sample (0, 0)."""
        n = self.resolution - 1
        return ((self.nz - 1 - z) * n, (self.nx - 1 - x) * n)

    def colour(self, x: int, z: int) -> int:
        """The tile's scatter colour, 0..3: ``(x % 2) + 2 (z % 2)``."""
        return (x % 2) + 2 * (z % 2)


def world_grid(recipe: Recipe) -> WorldGrid:
    """The :class:`WorldGrid` of a recipe (``[world] tiles``, ``halo``, ``[terrain]``).

    >>> from core import recipe
    >>> g = world_grid(recipe.loads('[world]\\ntiles = [3, 2]\\n[terrain]\\nnormalize = "fixed"\\nresolution = 65\\n'))
    >>> (g.nx, g.nz, g.resolution, g.shape)
    (3, 2, 65, (129, 193))
    """
    spec = recipe.terrain
    nx, nz = recipe.world.tiles
    return WorldGrid(
        nx=int(nx),
        nz=int(nz),
        resolution=int(spec.resolution),
        size=float(spec.size),
        height=float(spec.height),
        halo_cells=halo_cells(recipe),
        world_name=recipe.world.name,
    )


def tile_base(name: str, x: int, z: int) -> str:
    """File base of tile ``(x, z)``: ``<name>_<x>_<z>``.

    >>> tile_base("world", 3, 0)
    'world_3_0'
    """
    return f"{name}_{int(x)}_{int(z)}"


_PART = re.compile(r"^\s*(\d+)\s*(?::\s*(\d+)\s*)?$")


def _span(text: str, count: int, axis: str, whole: str) -> range:
    m = _PART.match(text)
    if m is None:
        raise ParameterError(f"--tiles {whole!r}: {axis} range {text!r} must be 'A:B' (half-open) or one index 'A'")
    lo = int(m.group(1))
    hi = int(m.group(2)) if m.group(2) is not None else lo + 1
    if not 0 <= lo < hi <= count:
        raise ParameterError(
            f"--tiles {whole!r}: {axis} range {text!r} must lie within 0:{count} (half-open, not empty)"
        )
    return range(lo, hi)


def parse_tile_range(text: str, grid: WorldGrid) -> tuple[tuple[int, int], ...]:
    """Tiles of ``"X0:X1,Z0:Z1"`` (half-open, like Python slices; ``"3"`` is one index; the Z part
    may be left out: every row), row-major.

    >>> g = WorldGrid(nx=4, nz=4, resolution=33, size=64.0, height=10.0, halo_cells=8, world_name="W")
    >>> parse_tile_range("0:2,1:3", g)
    ((0, 1), (1, 1), (0, 2), (1, 2))
    >>> parse_tile_range("3,0", g)
    ((3, 0),)
    """
    if not isinstance(text, str) or not text.strip():
        raise ParameterError(f"--tiles must be 'X0:X1,Z0:Z1', got {text!r}")
    parts = text.split(",")
    if len(parts) > 2:
        raise ParameterError(f"--tiles {text!r} must be 'X0:X1,Z0:Z1' (two ranges at most)")
    xs = _span(parts[0], grid.nx, "x", text)
    zs = _span(parts[1], grid.nz, "z", text) if len(parts) == 2 else range(grid.nz)
    return tuple((x, z) for z in zs for x in xs)
