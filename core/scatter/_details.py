"""Unity detail layers (grass) from scatter layers: instance counts per detail cell from the same rules.

A scatter layer with ``unity_detail`` above 0 (instances per square metre where its rules allow
fully) is also written as one of Unity's terrain detail layers: its rule mask (the very density
its props were scattered with, patches and all) goes through :func:`core.biomes.detail_counts`.
Public through :mod:`core.scatter`.
"""

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import Seed
from ..biomes import MAX_PER_CELL, detail_counts
from ..heightmap import slope_degrees
from ..unity_package import alphamap_side
from . import _terrain_sample as ts
from ._engine import layer_from_spec, layer_patches, layer_streams
from ._rules import Patches, check_maps, density_mask
from .spec import LayerSpec

__all__ = ["detail_layers", "detail_side"]

#: Detail resolutions offered: powers of two up to Unity's limit of 4048 cells a side.
DETAIL_SIDES = tuple(2**k for k in range(4, 12))


def detail_side(base: int, *, size: float, per_m2: float) -> int:
    """The detail resolution for a terrain of ``size`` metres: the smallest of :data:`DETAIL_SIDES`
    at least ``base`` (the alphamap's) whose cells hold at most 255 instances at ``per_m2``; the
    largest when none does (then :func:`core.biomes.detail_counts` refuses, naming the limit).

    >>> detail_side(256, size=512.0, per_m2=2.0), detail_side(64, size=512.0, per_m2=20.0)
    (256, 256)
    """
    for side in DETAIL_SIDES:
        cell = size / side
        if side >= base and per_m2 * (cell * cell) <= MAX_PER_CELL:
            return side
    return DETAIL_SIDES[-1]


def detail_layers(
    heights: npt.ArrayLike,
    *,
    size: float,
    specs: Iterable[LayerSpec],
    sea_level_m: float,
    resolution: int | None = None,
    seed: Seed = 0,
    maps: Mapping[str, Any] | None = None,
    patches: Patches | None = None,
) -> tuple[tuple[str, npt.NDArray[np.uint16]], ...]:
    """``((name, counts), ...)`` for the layers of ``specs`` (``core.scatter.LayerSpec``, the recipe's
    ``[[scatter]]`` in order) with ``unity_detail > 0``.

    ``heights`` are metres (rows, cols) over ``size`` metres, ``resolution`` the detail cells a side
    (None: the largest :func:`detail_side` of the detail layers, from the alphamap's resolution:
    Unity has one detail resolution a terrain), ``seed`` the scatter's seed (the same as
    ``scatter_layers``'), ``maps`` the terrain's layers, ``patches`` a tiled world's patches (as
    ``scatter_layers``').
    ``counts`` are (resolution, resolution) uint16 in our layout (row 0 at Blender -Y):
    ``core.unity_package.detail_raw16`` turns them for Unity.
    """
    h, size, cell = ts.check_terrain(heights, size)
    specs = tuple(specs)
    layers = [layer_from_spec(s, sea_level_m=sea_level_m) for s in specs]
    detail = [layer.rules for spec, layer in zip(specs, layers) if spec.unity_detail > 0]
    maps = check_maps(maps, h.shape, detail, heights=h, cell=cell)
    if resolution is None:
        base = alphamap_side(h.shape[0])
        resolution = max((detail_side(base, size=size, per_m2=s.unity_detail) for s in specs), default=base)
    streams = layer_streams(seed, len(specs))
    slope = None
    out = []
    for index, (spec, layer, (mask_ss, *_, count_ss)) in enumerate(zip(specs, layers, streams)):
        if spec.unity_detail <= 0:
            continue
        if slope is None and layer.rules.slope_range != (0.0, 90.0):
            slope = slope_degrees(h, cell_size=cell)
        mask = density_mask(
            h, cell, layer.rules, np.random.default_rng(mask_ss), slope, maps, layer_patches(patches, index)
        )
        count_seed = int(count_ss.generate_state(1, np.uint64)[0]) >> 1
        counts = detail_counts(
            mask, cell_size=cell, per_m2=spec.unity_detail, detail_resolution=resolution, seed=count_seed
        )
        out.append((spec.name, counts))
    return tuple(out)
