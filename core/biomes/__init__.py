"""Biomes and texture layers: moisture, temperature, biome tables, classification, splat maps.

Public names only; the engines live in private modules (``_climate``, ``_table``, ``_classify``,
``_splats``, ``_pack``, ``_details``, ``_preview``) and the recipe sections in :mod:`.spec`.

A biome map and splat images from heights in metres:

>>> import numpy as np
>>> table = load_table("whittaker")
>>> h = np.array([[0.0, 0.5, 79.0]], np.float32)
>>> ids = classify(h, np.array([[0.5, 0.5, 0.9]]), table=table, sea_level=0.2, height=80.0)
>>> [table.names[i] for i in ids[0]]
['ocean', 'beach', 'snow']
>>> layers = [SplatSpec(name="Sand"), SplatSpec(name="Snow", biomes=(("snow", 1.0),), biome_fade=0.0)]
>>> two = np.repeat(h, 2, axis=0)                  # splat weights need 2 rows at least
>>> w = splat_weights(layers, heights=two, cell_size=1.0, biomes=np.repeat(ids, 2, axis=0), table=table)
>>> [img[0].tolist() for img in pack_splats(w)]
[[[255, 0, 0, 0], [255, 0, 0, 0], [0, 255, 0, 0]]]
"""

from ._classify import classify, water_mask
from ._climate import closeness, elevation, moisture, moisture_margin, noise_uniform, sea_mask, temperature
from ._details import DETAIL_RESOLUTION, MAX_PER_CELL, PER_M2, detail_counts
from ._distance import bounded_distance
from ._pack import CHANNELS, pack_splats, splat_png_bytes, unpack_splats
from ._preview import biome_colours, biome_png_bytes, biome_preview
from ._splats import box_blur, smooth_ramp, splat_margin, splat_weights
from ._table import BiomeTable, load_table, table_from_dict, table_names
from .spec import (
    BIOMES_LIMITS,
    SPLAT_LIMITS,
    BiomesSpec,
    SplatSpec,
    biomes_from_dict,
    biomes_to_dict,
    check_biome_weights,
    moisture_kwargs,
    splat_from_dict,
    splat_to_dict,
    splats_from_list,
)

__all__ = [
    "moisture",
    "temperature",
    "elevation",
    "noise_uniform",
    "moisture_margin",
    "closeness",
    "sea_mask",
    "bounded_distance",
    "classify",
    "water_mask",
    "BiomeTable",
    "load_table",
    "table_from_dict",
    "table_names",
    "splat_weights",
    "splat_margin",
    "smooth_ramp",
    "box_blur",
    "pack_splats",
    "unpack_splats",
    "splat_png_bytes",
    "CHANNELS",
    "detail_counts",
    "DETAIL_RESOLUTION",
    "PER_M2",
    "MAX_PER_CELL",
    "biome_colours",
    "biome_preview",
    "biome_png_bytes",
    "BiomesSpec",
    "SplatSpec",
    "BIOMES_LIMITS",
    "SPLAT_LIMITS",
    "biomes_from_dict",
    "biomes_to_dict",
    "splat_from_dict",
    "splat_to_dict",
    "splats_from_list",
    "check_biome_weights",
    "moisture_kwargs",
]
