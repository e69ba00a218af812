"""``[world]``: the world's name, seed and tile grid, its limits and its cross-section checks.

::

    [world]
    name = "Valley"
    seed = 7
    tiles = [4, 4]      # a tiled world: 4 x 4 terrain tiles of [terrain]'s size
    halo = 0.0          # metres each tile erodes beyond its edges (0: automatic)

A tiled world (``tiles`` other than ``[1, 1]``) is checked against ``[terrain]`` and
``[[scatter]]`` by :func:`check_world` once the whole recipe is read (:data:`core.recipe.SECTIONS`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._checks import check_int
from ..errors import ParameterError, short
from ..spec import custom, from_table, integer, number, object_name, to_table

if TYPE_CHECKING:
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = [
    "SEED",
    "TILES",
    "MAX_TILE_COUNT",
    "TILE_RESOLUTIONS",
    "HALO",
    "check_tiles",
    "WorldSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "check_world",
    "tiles_fix_normalize",
]

#: Seeds are stored in Blender IntProperties, which are 32-bit signed.
SEED = (0, 2**31 - 1)

#: Tiles along each side of a tiled world, and in all.
TILES = (1, 64)
MAX_TILE_COUNT = 1024
#: Heightmap resolutions a tile of a tiled world may have: Unity's, 2^n + 1.
TILE_RESOLUTIONS = (33, 65, 129, 257, 513, 1025, 2049, 4097)
#: Halo around each tile's erosion window, in metres (0: automatic); at most half a tile (checked).
HALO = (0.0, 50_000.0)


def check_tiles(value: Any, name: str) -> tuple[int, int]:
    """``[nx, nz]``: two whole numbers, each within ``TILES``, at most ``MAX_TILE_COUNT`` tiles in all.

    >>> check_tiles([4, 2], "world.tiles")
    (4, 2)
    """
    try:
        items = tuple(value)
    except TypeError:
        items = None
    if items is None or isinstance(value, str) or len(items) != 2:
        raise ParameterError(f"{name} must be a pair of whole numbers [nx, nz], got {short(value)}")
    nx, nz = (check_int(v, name=f"{name}[{i}]", bounds=TILES) for i, v in enumerate(items))
    if nx * nz > MAX_TILE_COUNT:
        raise ParameterError(f"{name} {[nx, nz]} makes {nx * nz:,} tiles; at most {MAX_TILE_COUNT:,} in all")
    return (nx, nz)


@dataclass(frozen=True)
class WorldSpec:
    """``[world]``: the name given to generated objects, the master seed and the tile grid.

    ``tiles = [nx, nz]`` terrain tiles of ``[terrain]``'s size side by side (Unity X, Z);
    ``[1, 1]`` is one terrain, as before tiled worlds.  ``halo`` is the margin (metres) each tile
    erodes beyond its edges so that seams match (0: the erosion's lifetime plus its brush radius,
    at least 8 cells).
    """

    name: str = "World"
    seed: int = 0
    tiles: tuple[int, int] = (1, 1)
    halo: float = 0.0


LIMITS = {
    "name": object_name("Name", "Name of the generated objects"),
    "seed": integer(SEED, "Seed", "Random seed: the same seed and settings give the same world"),
    "tiles": custom(check_tiles, "Tiles", "Terrain tiles along Unity X and Z [nx, nz]; [1, 1]: one terrain"),
    "halo": number(HALO, "Halo", "Margin each tile erodes beyond its edges (0: automatic)", unit="m"),
}


def from_dict(table: Mapping[str, Any], *, prefix: str = "world.") -> WorldSpec:
    """A validated :class:`WorldSpec` from a ``[world]`` table.

    >>> from_dict({"name": "Valley", "tiles": [4, 2]}).tiles
    (4, 2)
    """
    return from_table(WorldSpec, LIMITS, table, prefix=prefix)


def to_dict(spec: WorldSpec) -> dict[str, Any]:
    """The spec as a table of plain TOML values."""
    return to_table(spec)


def check_world(recipe: Recipe) -> None:
    """A tiled world (``tiles`` other than ``[1, 1]``) needs the terrain on, ``normalize = "fixed"``
    (the same heights whatever the extent), a Unity resolution (2^n + 1, 33..4097), an offset of
    whole cells, a halo of at most half a tile, and scatter spacings of at most half a tile."""
    world, spec = recipe.world, recipe.terrain
    if tuple(world.tiles) == (1, 1):
        return
    if not spec.enabled:
        raise ParameterError(f"world.tiles {list(world.tiles)} needs [terrain] enabled = true")
    if spec.normalize != "fixed":
        raise ParameterError(
            f"terrain.normalize must be 'fixed' in a tiled world (world.tiles {list(world.tiles)}), "
            f"got {spec.normalize!r}: stretching each tile to its own range breaks the seams"
        )
    if spec.resolution not in TILE_RESOLUTIONS:
        raise ParameterError(
            f"terrain.resolution must be one of Unity's {', '.join(map(str, TILE_RESOLUTIONS))} in a tiled "
            f"world, got {spec.resolution}"
        )
    cell = spec.cell_size
    for i, o in enumerate(spec.offset):
        if not float(o / cell).is_integer():
            raise ParameterError(
                f"terrain.offset[{i}] must be a whole number of cells ({cell:g} m) in a tiled world, got {o:g}"
            )
    if world.halo > spec.size / 2:
        raise ParameterError(
            f"world.halo must be in [0, {spec.size / 2:g}] m (half of terrain.size), got {world.halo:g}"
        )
    for i, layer in enumerate(recipe.scatter):  # props see their neighbouring tiles only
        for key in ("radius", "radius_max", "keep_away"):
            if getattr(layer, key) > spec.size / 2:
                raise ParameterError(
                    f"scatter[{i}].{key} must be at most half a tile ({spec.size / 2:g} m) in a tiled world, "
                    f"got {getattr(layer, key):g}"
                )


def tiles_fix_normalize(recipe: Recipe, data: Mapping[str, Any]) -> Recipe:
    """A tiled world whose ``[terrain]`` does not name ``normalize`` takes ``"fixed"`` (the one
    mode whose tiles join); a ``normalize`` the recipe writes is kept, and checked by ``check_world``."""
    if tuple(recipe.world.tiles) == (1, 1):
        return recipe
    table = data.get("terrain")
    if isinstance(table, dict) and "normalize" in table:
        return recipe
    return dataclasses.replace(recipe, terrain=dataclasses.replace(recipe.terrain, normalize="fixed"))
