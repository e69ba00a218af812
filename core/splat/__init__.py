"""Texture layers (``[[splat]]``): how much of each layer covers each cell, and the splat images.

Public names only; the weights engine lives in ``_weights``, the packing into RGBA8 images in
``_pack``, the ranges in ``_limits`` and the recipe section in :mod:`.spec`.  Layers that paint by
biome read the biome map of :mod:`core.biomes`.

Splat images from heights in metres (a layer's ``biomes`` rule reads a biome map and its table,
``biomes=`` and ``table=``):

>>> import numpy as np
>>> h = np.array([[0.0, 0.5, 79.0], [0.0, 0.5, 79.0]], np.float32)   # splat weights need 2 rows at least
>>> layers = [SplatSpec(name="Sand"), SplatSpec(name="Snow", height_range=(40.0, 1e6), height_fade=0.0)]
>>> w = splat_weights(layers, heights=h, cell_size=1.0)
>>> [img[0].tolist() for img in pack_splats(w)]
[[[255, 0, 0, 0], [255, 0, 0, 0], [0, 255, 0, 0]]]
"""

from ._pack import CHANNELS, pack_splats, splat_png_bytes, unpack_splats
from ._weights import box_blur, smooth_ramp, splat_margin, splat_weights
from .spec import LIMITS, MAX_LAYERS, SplatSpec, from_dict, splats_from_list, texture_path, to_dict

__all__ = [
    "SplatSpec",
    "LIMITS",
    "MAX_LAYERS",
    "from_dict",
    "to_dict",
    "splats_from_list",
    "texture_path",
    "splat_weights",
    "splat_margin",
    "smooth_ramp",
    "box_blur",
    "pack_splats",
    "unpack_splats",
    "splat_png_bytes",
    "CHANNELS",
]
