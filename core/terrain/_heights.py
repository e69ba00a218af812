"""A terrain tile from a :class:`~.spec.TerrainSpec`: noise, then shaping.

The heights are computed in horizontal bands of rows, each an independent
``noise.fbm`` call at its own offset. Because noise is sampled in world
coordinates the bands join exactly, so the banded result equals one big call
while giving callers progress and a chance to cancel between bands. (When the
tile's offset is not a whole number of cells the tile is one band: adding a
fractional offset and a band's first row in another order could change the
last bit.)
"""

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import heightmap, noise
from ..errors import ParameterError
from ..steps import Steps, drive
from .spec import TerrainSpec

__all__ = [
    "grid_normals",
    "TerrainHeights",
    "noise_bands",
    "raw_noise",
    "band_count",
    "shape_heights",
    "heights_steps",
    "terrain_heights",
    "BAND_CELLS",
]

#: Roughly how many cells one band of rows holds (about 1 M: a few tens of ms).
BAND_CELLS = 1 << 20


@dataclass(frozen=True)
class TerrainHeights:
    """Heights in [0, 1] (``values``, float32 (rows, cols)) and how to place them.

    ``margin``, when present, holds the same heights with one more cell on
    every side (float32 (rows + 2, cols + 2)), sampled from the same world
    field: what the tile's neighbours would have there. Normals computed from
    it agree along the shared edges of neighbouring tiles.
    """

    values: npt.NDArray[np.float32]
    cell_size: float
    height: float
    margin: npt.NDArray[np.float32] | None = None

    @property
    def metres(self) -> npt.NDArray[np.float32]:
        """Heights in metres (float32)."""
        return self.values * np.float32(self.height)


def _noise_kwargs(spec: TerrainSpec, seed: int) -> dict[str, Any]:
    cell = spec.cell_size
    return dict(
        scale=spec.scale / cell,
        octaves=spec.octaves,
        persistence=spec.persistence,
        lacunarity=spec.lacunarity,
        seed=seed,
        basis=spec.basis,
        kind=spec.kind,
        warp=spec.warp,
    )


def _band_rows(spec: TerrainSpec, band_cells: int, margin: int = 0) -> int:
    n = spec.resolution + 2 * margin
    if not float(spec.offset[1] / spec.cell_size).is_integer():
        # (oy + row0) + i can differ from oy + (row0 + i) in the last bit; one band keeps the
        # field exactly what a single fbm call gives.
        return n
    return max(1, min(n, band_cells // n))


def band_count(spec: TerrainSpec, *, band_cells: int = BAND_CELLS, margin: int = 0) -> int:
    """How many bands :func:`noise_bands` computes the tile in."""
    return -(-(spec.resolution + 2 * margin) // _band_rows(spec, band_cells, margin))


def noise_bands(
    spec: TerrainSpec, *, seed: int, band_cells: int = BAND_CELLS, margin: int = 0
) -> Generator[tuple[int, int], None, npt.NDArray[np.float32]]:
    """Yield ``(rows_done, rows)`` band by band while filling one raw noise grid; return it at the end.

    ``margin`` adds that many cells on every side. Use as a generator
    (``raw = yield from noise_bands(...)``) to report progress, or call
    :func:`terrain_heights` for the whole thing at once.
    """
    n = spec.resolution + 2 * margin
    cell = spec.cell_size
    ox, oy = spec.offset[0] / cell - margin, spec.offset[1] / cell - margin
    band = _band_rows(spec, band_cells, margin)
    raw = np.empty((n, n), dtype=np.float32)
    kwargs = _noise_kwargs(spec, seed)
    for row0 in range(0, n, band):
        rows = min(band, n - row0)
        raw[row0 : row0 + rows] = noise.fbm((rows, n), offset=(ox, oy + row0), **kwargs)
        yield row0 + rows, n
    return raw


def raw_noise(spec: TerrainSpec, *, seed: int, margin: int = 0) -> npt.NDArray[np.float32]:
    """:func:`noise_bands` run to its end: the raw noise grid, ``margin`` cells on every side."""
    bands = noise_bands(spec, seed=seed, margin=margin)
    while True:
        try:
            next(bands)
        except StopIteration as stop:
            return stop.value


def shape_heights(
    raw: npt.NDArray[np.float32],
    spec: TerrainSpec,
    *,
    margin: int = 0,
    falloff_mask: npt.NDArray[np.float32] | None = None,
) -> npt.NDArray[np.float32]:
    """Apply the spec's shaping steps to raw noise in [-1, 1]; returns float32 in [0, 1].

    With a ``margin`` (cells around the tile in ``raw``) the island falloff is
    the tile's own, extended by its edge values; every other step is pointwise.
    A margin needs ``normalize = "fixed"``: stretching depends on the extent.
    ``falloff_mask``, when given (float32 like ``raw``, margin included), is the
    island falloff to apply instead of the tile's own (a tiled world's, over the
    whole world: ``core.heightmap.falloff_window``).
    """
    if margin and spec.normalize != "fixed":
        raise ParameterError("a margin needs terrain.normalize = 'fixed', got 'stretch'")
    if spec.normalize == "stretch":
        h = heightmap.normalize(raw)
    else:
        h = heightmap.normalize(raw, low=-1.0, high=1.0)
    if spec.falloff != "none" and falloff_mask is not None:
        h = heightmap.apply_falloff(h, falloff_mask)
    elif spec.falloff != "none":
        inner = (h.shape[0] - 2 * margin, h.shape[1] - 2 * margin)
        mask = heightmap.island_falloff(inner, mode=spec.falloff, width=spec.falloff_width)
        h = heightmap.apply_falloff(h, np.pad(mask, margin, mode="edge") if margin else mask)
    if spec.redistribution != 1.0:
        h = heightmap.redistribute(h, power=spec.redistribution)
    if spec.terraces > 0:
        h = heightmap.terrace(h, steps=spec.terraces, sharpness=spec.terrace_sharpness)
    if tuple(map(tuple, spec.curve)) != ((0.0, 0.0), (1.0, 1.0)):
        h = heightmap.curve_remap(h, points=spec.curve)
    if spec.sea_level > 0.0:
        h = heightmap.sea_level(h, level=spec.sea_level)
    return np.asarray(h, dtype=np.float32)


def heights_steps(spec: TerrainSpec, *, seed: int, more_steps: int = 0) -> Steps[TerrainHeights]:
    """Noise band by band, then shaping, as a step generator (see :mod:`.steps`).

    Yields ``(done, total, label)`` with ``total = band_count(...) + 1 +
    more_steps`` (room for a caller's own later steps) and returns the
    :class:`TerrainHeights`. Tiles (``normalize = "fixed"``) get a one-cell
    margin, so their normals join their neighbours' (:func:`grid_normals`).
    """
    margin = 1 if spec.normalize == "fixed" else 0
    total = band_count(spec, margin=margin) + 1 + more_steps
    bands = noise_bands(spec, seed=seed, margin=margin)
    done = 0
    while True:
        try:
            next(bands)
        except StopIteration as stop:
            raw = stop.value
            break
        done += 1
        yield done, total, "noise"
    shaped = shape_heights(raw, spec, margin=margin)
    if margin:
        heights = TerrainHeights(np.ascontiguousarray(shaped[1:-1, 1:-1]), spec.cell_size, spec.height, shaped)
    else:
        heights = TerrainHeights(shaped, spec.cell_size, spec.height)
    yield done + 1, total, "shaping"
    return heights


def terrain_heights(spec: TerrainSpec, *, seed: int) -> TerrainHeights:
    """The whole tile at once: a :class:`TerrainHeights` in [0, 1]."""
    return drive(heights_steps(spec, seed=seed))


def grid_normals(heights: TerrainHeights, *, stride: int = 1) -> npt.NDArray[np.float32]:
    """Unit vertex normals (k * k, 3) float32 of the grid samples ``lod_indices(n, stride)``.

    Central differences of the full-resolution heights, so every level of
    detail is lit alike; with a margin the border vertices see past the edge,
    and two tiles that share an edge get the same normals there, bit for bit.
    Without a margin the border uses one-sided differences.
    """
    from ..mesh import lod_indices

    n = heights.values.shape[0]
    idx = lod_indices(n, stride)
    if heights.margin is not None:
        ext, r = heights.margin, idx + 1
        lo, hi = r - 1, r + 1
        span = np.full(len(idx), 2.0, np.float32)
    else:
        ext, r = heights.values, idx
        lo, hi = np.maximum(idx - 1, 0), np.minimum(idx + 1, n - 1)
        span = (hi - lo).astype(np.float32)
    scale = np.float32(heights.height / heights.cell_size)
    dzdx = (ext[np.ix_(r, hi)] - ext[np.ix_(r, lo)]) * (scale / span)[None, :]
    dzdy = (ext[np.ix_(hi, r)] - ext[np.ix_(lo, r)]) * (scale / span)[:, None]
    normals = np.empty(dzdx.shape + (3,), np.float32)
    normals[..., 0] = -dzdx
    normals[..., 1] = -dzdy
    normals[..., 2] = 1.0
    length = np.sqrt(dzdx * dzdx + dzdy * dzdy + np.float32(1.0))
    normals /= length[..., None]
    return normals.reshape(-1, 3)
