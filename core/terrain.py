"""A terrain tile from a :class:`~.recipe.TerrainSpec`: noise, then shaping.

The heights are computed in horizontal bands of rows, each an independent
``noise.fbm`` call at its own offset. Because noise is sampled in world
coordinates the bands join exactly, so the banded result equals one big call
while giving callers progress and a chance to cancel between bands. (When the
tile's offset is not a whole number of cells the tile is one band: adding a
fractional offset and a band's first row in another order could change the
last bit.)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import heightmap, noise
from .steps import drive

__all__ = ["TerrainHeights", "noise_bands", "band_count", "shape_heights", "heights_steps", "terrain_heights",
           "BAND_CELLS"]

#: Roughly how many cells one band of rows holds (about 1 M: a few tens of ms).
BAND_CELLS = 1 << 20


@dataclass(frozen=True)
class TerrainHeights:
    """Heights in [0, 1] (``values``, float32 (rows, cols)) and how to place them."""
    values: np.ndarray
    cell_size: float
    height: float

    @property
    def metres(self):
        """Heights in metres (float32)."""
        return self.values * np.float32(self.height)


def _noise_kwargs(spec, seed):
    cell = spec.cell_size
    return dict(scale=spec.scale / cell, octaves=spec.octaves, persistence=spec.persistence,
                lacunarity=spec.lacunarity, seed=seed, basis=spec.basis, kind=spec.kind,
                warp=spec.warp)


def _band_rows(spec, band_cells):
    n = spec.resolution
    if not float(spec.offset[1] / spec.cell_size).is_integer():
        # (oy + row0) + i can differ from oy + (row0 + i) in the last bit; one band keeps the
        # field exactly what a single fbm call gives.
        return n
    return max(1, min(n, band_cells // n))


def band_count(spec, *, band_cells=BAND_CELLS):
    """How many bands :func:`noise_bands` computes the tile in."""
    return -(-spec.resolution // _band_rows(spec, band_cells))


def noise_bands(spec, *, seed, band_cells=BAND_CELLS):
    """Yield ``(rows_done, rows)`` band by band while filling one raw noise grid; return it at the end.

    Use as a generator (``raw = yield from noise_bands(...)``) to report
    progress, or call :func:`terrain_heights` for the whole thing at once.
    """
    n = spec.resolution
    cell = spec.cell_size
    ox, oy = spec.offset[0] / cell, spec.offset[1] / cell
    band = _band_rows(spec, band_cells)
    raw = np.empty((n, n), dtype=np.float32)
    kwargs = _noise_kwargs(spec, seed)
    for row0 in range(0, n, band):
        rows = min(band, n - row0)
        raw[row0:row0 + rows] = noise.fbm((rows, n), offset=(ox, oy + row0), **kwargs)
        yield row0 + rows, n
    return raw


def shape_heights(raw, spec):
    """Apply the spec's shaping steps to raw noise in [-1, 1]; returns float32 in [0, 1]."""
    if spec.normalize == "stretch":
        h = heightmap.normalize(raw)
    else:
        h = heightmap.normalize(raw, low=-1.0, high=1.0)
    if spec.falloff != "none":
        mask = heightmap.island_falloff(h.shape, mode=spec.falloff, width=spec.falloff_width)
        h = heightmap.apply_falloff(h, mask)
    if spec.redistribution != 1.0:
        h = heightmap.redistribute(h, power=spec.redistribution)
    if spec.terraces > 0:
        h = heightmap.terrace(h, steps=spec.terraces, sharpness=spec.terrace_sharpness)
    if tuple(map(tuple, spec.curve)) != ((0.0, 0.0), (1.0, 1.0)):
        h = heightmap.curve_remap(h, points=spec.curve)
    if spec.sea_level > 0.0:
        h = heightmap.sea_level(h, level=spec.sea_level)
    return np.asarray(h, dtype=np.float32)


def heights_steps(spec, *, seed, more_steps=0):
    """Noise band by band, then shaping, as a step generator (see :mod:`.steps`).

    Yields ``(done, total, label)`` with ``total = band_count(spec) + 1 +
    more_steps`` (room for a caller's own later steps) and returns the
    :class:`TerrainHeights`.
    """
    total = band_count(spec) + 1 + more_steps
    bands = noise_bands(spec, seed=seed)
    done = 0
    while True:
        try:
            next(bands)
        except StopIteration as stop:
            raw = stop.value
            break
        done += 1
        yield done, total, "noise"
    heights = TerrainHeights(shape_heights(raw, spec), spec.cell_size, spec.height)
    yield done + 1, total, "shaping"
    return heights


def terrain_heights(spec, *, seed):
    """The whole tile at once: a :class:`TerrainHeights` in [0, 1]."""
    return drive(heights_steps(spec, seed=seed))
