"""Phase 1 of a tiled world: a tile's erosion window.

The window is the tile plus ``H = grid.halo_cells`` cells on every side, eroded as one terrain
(droplets for the window's area, its own random stream ``SeedSequence([seed, x, z, TAG])``) and
its water flow accumulated.  What the tiles blend (``_stitch``) is saved to
``<cache>/window_<x>_<z>.npz``: ``delta`` (eroded minus base heights, metres), ``eroded``,
``deposited`` (metres), ``flow`` (square metres), all float32 over the window, with the recipe's
digest so a stale file is never read.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import biomes as core_biomes
from .. import erosion as core_erosion
from ..scatter import LayerSpec
from ..terrain import TerrainHeights, erosion_steps
from ..unity import write_bytes_atomic
from ._base import base_heights, tile_spec
from ._grid import WorldGrid
from ._world_json import recipe_digest

if TYPE_CHECKING:
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = [
    "window_path",
    "run_window",
    "window_arrays",
    "window_loader",
    "load_window",
    "task_seed",
    "wants_flow",
    "needs_windows",
]

#: Tags mixed into the world seed with the tile index: one random stream per job.
TAG_EROSION = 0x45524F44  # "EROD"
TAG_SCATTER = 0x53434154  # "SCAT"


def task_seed(seed: int, x: int, z: int, tag: int) -> int:
    """A seed in [0, 2^63) for tile ``(x, z)``'s job ``tag``, from ``SeedSequence([seed, x, z, tag])``."""
    words = np.random.SeedSequence([int(seed), int(x), int(z), int(tag)]).generate_state(2, np.uint32)
    return (int(words[0]) << 31) ^ int(words[1])


def wants_flow(recipe: Recipe) -> bool:
    """Whether a tile needs the water flow: erosion, a biome flow term, a texture layer or scatter rule on flow."""
    biomes = recipe.biomes
    return bool(
        recipe.terrain.erosion.enabled
        or (biomes.enabled and biomes.flow_weight > 0.0)
        or any(s.flow for s in recipe.splat)
        or any(tuple(s.flow) != tuple(LayerSpec().flow) for s in recipe.scatter)
    )


def needs_windows(recipe: Recipe) -> bool:
    """Whether the world has phase-1 window tasks (erosion on, or the flow needed)."""
    return wants_flow(recipe)


def window_path(cache_dir: str, x: int, z: int) -> str:
    """``<cache>/window_<x>_<z>.npz``."""
    return os.path.join(cache_dir, f"window_{x}_{z}.npz")


def load_window(
    path: str, digest: str | None = None, keys: Sequence[str] | None = None
) -> dict[str, npt.NDArray[Any]] | None:
    """The arrays ``keys`` (default: all) of a window file as a dict (``delta`` may be absent: no
    erosion), or None when the file is missing, unreadable or of another recipe (``digest``)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if digest is not None and str(data["digest"]) != digest:
                return None
            return {k: data[k] for k in data.files if keys is None or k in keys}
    except (OSError, ValueError, KeyError, EOFError):
        return None


def run_window(recipe: Recipe, grid: WorldGrid, x: int, z: int, cache_dir: str) -> tuple[str, dict[str, Any]]:
    """Erode tile ``(x, z)``'s window and save it; returns ``(path, summary)``.

    A window file already in the cache for the same recipe and halo (a resumed run) is kept as it is.
    """
    digest = recipe_digest(recipe)
    path = window_path(cache_dir, x, z)
    h = grid.halo_cells
    kept = load_window(path, digest, keys=("halo", "relief", "ledger"))
    if kept is not None and int(kept["halo"]) == h:
        return path, {"ledger": json.loads(str(kept["ledger"])), "relief": kept["relief"].tolist()}
    arrays, ledger, relief = window_arrays(recipe, grid, x, z)
    buf = io.BytesIO()
    np.savez(
        buf,
        digest=np.array(digest),
        halo=np.array(h),
        relief=relief,
        ledger=np.array(json.dumps(ledger, sort_keys=True)),
        **arrays,
    )
    os.makedirs(cache_dir, exist_ok=True)
    write_bytes_atomic(path, buf.getbuffer())
    return path, {"ledger": ledger, "relief": relief.tolist()}


def window_arrays(
    recipe: Recipe, grid: WorldGrid, x: int, z: int
) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any], npt.NDArray[np.float64]]:
    """Tile ``(x, z)``'s window worked out in memory: ``(arrays, ledger, relief)`` as
    :func:`run_window` saves them (``delta``, ``eroded``, ``deposited`` with erosion, ``flow``
    when the flow is wanted; the erosion's ledger; ``[min_m, max_m]``)."""
    h = grid.halo_cells
    spec = tile_spec(recipe, grid, x, z)
    top, cell = grid.height, grid.cell_size
    base = base_heights(recipe, grid, x, z, h)
    arrays: dict[str, npt.NDArray[Any]] = {}
    ledger: dict[str, Any] = {}
    values = base
    if spec.erosion.enabled:
        heights = TerrainHeights(base, cell, top)
        steps = erosion_steps(heights, terrain_spec=spec, seed=task_seed(recipe.world.seed, x, z, TAG_EROSION))
        while True:
            try:
                next(steps)
            except StopIteration as stop:
                out, _clipped, eroded, deposited, ledger = stop.value
                break
        values = out.values
        delta = values.astype(np.float64)
        delta -= base
        delta *= top
        arrays["delta"] = delta.astype(np.float32)
        del delta
        arrays["eroded"], arrays["deposited"] = eroded, deposited
    if wants_flow(recipe):
        metres = values.astype(np.float64) * top
        flow = np.asarray(core_erosion.flow_accumulation(metres, cell_size=cell), np.float64)
        sea_level_m = float(np.float32(spec.sea_level) * np.float32(top))
        flow[core_biomes.sea_mask(values * np.float32(top), sea_level=sea_level_m)] = 0.0
        arrays["flow"] = flow.astype(np.float32)
        del metres, flow
    relief = np.array([float(values.min()) * top, float(values.max()) * top])
    return arrays, ledger, relief


class WindowLoader:
    """``load(tx, tz, keys)`` of the tiles' windows worked out in memory (:func:`window_arrays`, each
    once): ``load=`` of ``tile_layers`` without a cache (:func:`window_loader`)."""

    def __init__(self, recipe: Recipe, grid: WorldGrid) -> None:
        self.recipe, self.grid = recipe, grid
        self.kept: dict[tuple[int, int], dict[str, npt.NDArray[Any]]] = {}

    def __call__(self, tx: int, tz: int, keys: Sequence[str]) -> Mapping[str, npt.NDArray[Any]] | None:
        if (tx, tz) not in self.kept:
            self.kept[(tx, tz)] = window_arrays(self.recipe, self.grid, tx, tz)[0]
        arrays = self.kept[(tx, tz)]
        return {k: arrays[k] for k in keys if k in arrays}

    def drop_below(self, z: int) -> None:
        """Forget the windows of rows below ``z - 1`` (tiles taken row by row no longer read them)."""
        for key in [k for k in self.kept if k[1] < z - 1]:
            del self.kept[key]


def window_loader(recipe: Recipe, grid: WorldGrid) -> WindowLoader:
    """A :class:`WindowLoader`: ``load(tx, tz, keys)`` of the tiles' windows worked out in memory,
    each once (``load=`` of ``tile_layers`` without a cache; ``load.drop_below(z)`` forgets the
    windows of rows below ``z - 1``)."""
    return WindowLoader(recipe, grid)
