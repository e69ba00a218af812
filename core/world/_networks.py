"""A tiled world's rivers and roads: planned once over the whole world's heights, each tile carving its part.

The world's heights the plan reads (:func:`world_heights`) are what the tiles carve, side by side:

- erosion off: the tiles' un-eroded base heights (``_base``: every sample a function of its global
  index, so the whole world is the tiles side by side);
- erosion on (:func:`stitched_world`): the tiles' ERODED heights, as each tile works them out in
  phase 2 (``_stitch``: its base heights plus the erosion windows covering it, clipped to the
  terrain's range, float32), tile by tile into one world array (:func:`stitch_heights`; the border
  samples two tiles share must come out the same bits from both, checked as they are written).  The
  driver plans one ``world`` task after every window task (``_plan``): it stitches the heights and
  writes them once into the cache folder (``world_heights.npz``, atomically, with the recipe's digest),
  and every tile task depends on it.  A process that needs the plan reads that file, so the plan is
  the same in every process (threads, Dask workers); without the file (a cache folder removed by
  hand) :func:`world_heights` makes the missing windows again and stitches them (the same bytes,
  only slower).  The file stays in the cache folder when the world is complete (the driver removes
  everything else), for what reads the plan after the run (the world's ``<name>_rivers.json`` /
  ``_roads.json``, Blender's tile objects).  Memory: the windows are read one at a time (never all
  held); the world task holds the stitched heights (4 bytes a sample) and the plan its float64 metres
  (8 bytes a sample) with the rivers' and roads' working arrays, at most :data:`MAX_NETWORK_CELLS`
  samples (checked by :func:`check_network_size` when the run is planned, before any work); the
  cache holds every tile's window on disk until the world task has run.

The rivers are traced and the roads laid on those heights once, in that order as on one terrain
(``core.terrain.terrain_layers_steps``: erosion, then rivers, then roads on the carved ground;
``core.rivers.build_rivers``, ``core.roads.build_roads`` on the world grid, whose cell (0, 0) is
Blender ``(-nx size, -nz size)``: tile ``(0, 0)`` covers ``[-size, 0]``), and every tile carves the
plan into its own heights at its place in the grid (``core.rivers.carve_rivers``,
``core.roads.carve_roads`` with the tile's offset): a river or road crossing a seam has the same
heights, maps and file points on both sides.

The plan is a pure function of the recipe; a process works it out once and keeps it
(:func:`world_networks`), so the tiles built in one process share it.
"""

from __future__ import annotations

import io
import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import rivers as core_rivers
from .. import roads as core_roads
from ..errors import ParameterError
from ..unity import write_bytes_atomic
from ._base import base_heights
from ._grid import WorldGrid
from ._stitch import blend_windows
from ._window import load_window, run_window, window_path
from ._world_json import recipe_digest

if TYPE_CHECKING:
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = [
    "WorldNetworks",
    "wants_networks",
    "stitched_world",
    "check_network_size",
    "heights_path",
    "stitch_heights",
    "world_heights",
    "world_networks",
    "MAX_NETWORK_CELLS",
    "HEIGHTS_FILE",
]

#: Most samples of a world whose networks are planned whole (a 4097 x 4097 world: 4 x 4 tiles of 1025).
MAX_NETWORK_CELLS = 4097 * 4097
#: The world's stitched eroded heights in the cache folder (:func:`stitch_heights`).
HEIGHTS_FILE = "world_heights.npz"
_KEPT: dict[str, WorldNetworks] = {}
_LOCK = threading.Lock()
_STITCH_LOCK = threading.Lock()


@dataclass(frozen=True, eq=False)
class WorldNetworks:
    """The networks planned over a whole world: ``rivers`` (``core.rivers.RiverNetwork`` or None),
    ``roads`` (``core.roads.RoadNetwork`` or None: with ``[settlements]`` their plan lays the roads,
    ``core.world._settlements``), and ``origin``, Blender ``(x0, y0)`` metres of the
    world grid's cell (0, 0)."""

    rivers: Any
    roads: Any
    origin: tuple[float, float]

    def planned(self, grid: WorldGrid, x: int, z: int) -> dict[str, Any]:
        """What tile ``(x, z)`` carves (``planned=`` of ``core.terrain.terrain_layers_steps``)."""
        return {"rivers": self.rivers, "roads": self.roads, "offset": grid.origin(x, z)}

    def box(self, grid: WorldGrid, x: int, z: int) -> tuple[int, int, int, int]:
        """Tile ``(x, z)``'s ``(row0, col0, row1, col1)`` in the world grid (its files' ``box``)."""
        r0, c0 = grid.origin(x, z)
        n = grid.resolution - 1
        return (r0, c0, r0 + n, c0 + n)


def wants_networks(recipe: Recipe) -> bool:
    """Whether the recipe's ``[rivers]`` or ``[roads]`` is on."""
    return bool(recipe.rivers.enabled or recipe.roads.enabled)


def stitched_world(recipe: Recipe) -> bool:
    """Whether the world's plan reads its eroded heights, stitched from the windows into the cache
    (``[rivers]`` or ``[roads]`` on or ``[[ecosystem.animals]]``, which roam the whole world, and
    ``[terrain.erosion]``): the run has a ``world`` task."""
    whole = wants_networks(recipe) or bool(recipe.ecosystem.animals)
    return whole and bool(recipe.terrain.erosion.enabled)


def check_network_size(grid: WorldGrid) -> None:
    """Refuse a world whose networks would be planned over more than :data:`MAX_NETWORK_CELLS`
    samples (the plan holds the whole world's heights at once)."""
    rows, cols = grid.shape
    if rows * cols > MAX_NETWORK_CELLS:
        raise ParameterError(
            f"rivers and roads are planned over the whole world: {rows:,} x {cols:,} samples is more than "
            f"{MAX_NETWORK_CELLS:,}; use fewer or smaller tiles"
        )


def heights_path(cache_dir: str) -> str:
    """``<cache>/world_heights.npz``: the world's stitched eroded heights (:func:`stitch_heights`)."""
    return os.path.join(cache_dir, HEIGHTS_FILE)


def stitch_heights(recipe: Recipe, grid: WorldGrid, cache_dir: str) -> npt.NDArray[np.float32]:
    """The whole world's eroded heights in [0, 1] (float32, ``grid.shape``, row 0 at Blender's smallest
    Y), from the erosion windows in ``cache_dir``: every tile's samples as its tile task works them out
    (``clip(base + blended delta, 0, 1)``, float32), side by side.

    The file ``<cache>/world_heights.npz`` of this recipe is read when there; otherwise every window
    missing from the cache is made (``run_window``: the same bytes as the window tasks'), the heights
    are stitched and the file written (atomically).  Raises RuntimeError if two neighbouring tiles
    disagree on a shared border sample (they never should: ``_stitch`` blends them in the same order).
    """
    check_network_size(grid)
    digest = recipe_digest(recipe)
    path = heights_path(cache_dir)
    with _STITCH_LOCK:  # the threads of one process: one stitch, the others read its file
        kept = load_window(path, digest, keys=("values",))
        if kept is not None and kept["values"].shape == grid.shape and kept["values"].dtype == np.float32:
            return np.asarray(kept["values"], np.float32)
        for x, z in grid.tiles():  # a window missing (a cache folder removed by hand): made again
            if load_window(window_path(cache_dir, x, z), digest, keys=("halo",)) is None:
                run_window(recipe, grid, x, z, cache_dir)

        def load(tx: int, tz: int, keys: Any) -> Any:
            return load_window(window_path(cache_dir, tx, tz), digest, keys)

        top, n = grid.height, grid.resolution
        out = np.empty(grid.shape, np.float32)
        written = np.zeros(grid.shape, bool)
        for x, z in grid.tiles():
            metres = base_heights(recipe, grid, x, z, 0).astype(np.float64)
            metres *= top
            acc = blend_windows(grid, x, z, 0, load, ("delta",))
            if "delta" in acc:  # as _tile's _eroded: (base m + delta) / top, clipped, float32
                metres += acc.pop("delta")
            metres /= top
            values = np.clip(metres, 0.0, 1.0).astype(np.float32)
            del metres, acc
            r0, c0 = grid.origin(x, z)
            win = (slice(r0, r0 + n), slice(c0, c0 + n))
            shared = written[win]
            if not np.array_equal(out[win][shared], values[shared]):
                raise RuntimeError(f"tile ({x}, {z})'s eroded heights differ from its neighbours' on their border")
            out[win] = values
            written[win] = True
        buf = io.BytesIO()
        np.savez(buf, digest=np.array(digest), values=out)
        os.makedirs(cache_dir, exist_ok=True)
        write_bytes_atomic(path, buf.getbuffer())
        return out


def world_heights(recipe: Recipe, grid: WorldGrid, cache_dir: str | None = None) -> npt.NDArray[np.float64]:
    """The whole world's heights in metres that its networks are planned on, ``grid.shape``, row 0 at
    Blender's smallest Y: the tiles' heights side by side before any carving (neighbours share their
    border samples, bit for bit).  Un-eroded (every tile's base heights at its place) unless
    :func:`stitched_world`: then the tiles' eroded heights, :func:`stitch_heights` from the windows in
    ``cache_dir`` (required then)."""
    check_network_size(grid)
    if stitched_world(recipe):
        if cache_dir is None:
            raise ParameterError(
                "an eroded tiled world's heights are stitched from its erosion windows: give its cache folder"
            )
        out = stitch_heights(recipe, grid, cache_dir).astype(np.float64)
        out *= grid.height
        return out
    rows, cols = grid.shape
    out = np.empty((rows, cols), np.float64)
    n = grid.resolution
    for x, z in grid.tiles():
        r0, c0 = grid.origin(x, z)
        out[r0 : r0 + n, c0 : c0 + n] = base_heights(recipe, grid, x, z, 0)
    out *= grid.height
    return out


def _sea_level(recipe: Recipe) -> float | None:
    spec = recipe.terrain
    # in the world heights' own arithmetic (float64 of the float32 values, times the height), where a
    # flat sea floor is exactly at this level (core.terrain's network_steps says why not float32's)
    return float(np.float32(spec.sea_level)) * float(spec.height) if spec.sea_level > 0.0 else None


def world_networks(recipe: Recipe, grid: WorldGrid, digest: str, cache_dir: str | None = None) -> WorldNetworks:
    """The networks of the whole world (planned once per process for the recipe of ``digest``; the
    threads of a thread executor wait for the first one's plan).  ``cache_dir``: the world's cache
    folder, where an eroded world's stitched heights are (:func:`world_heights`)."""
    with _LOCK:
        kept = _KEPT.get(digest)
        if kept is None:
            kept = _KEPT[digest] = _plan(recipe, grid, cache_dir)
        return kept


def _plan(recipe: Recipe, grid: WorldGrid, cache_dir: str | None = None) -> WorldNetworks:
    _KEPT.clear()  # the last world's plan only
    h = world_heights(recipe, grid, cache_dir)
    origin = (-grid.nx * grid.size, -grid.nz * grid.size)
    sea = _sea_level(recipe)
    rivers = roads = None
    if recipe.rivers.enabled:
        rivers = core_rivers.build_rivers(h, recipe.rivers, cell_size=grid.cell_size, sea_level=sea)
    if recipe.roads.enabled and not recipe.settlements.enabled:  # with settlements, their plan lays the roads
        roads = core_roads.build_roads(
            h, recipe.roads, cell_size=grid.cell_size, origin=origin, sea_level=sea, rivers=rivers
        ).network
    return WorldNetworks(rivers.network if rivers is not None else None, roads, origin)
