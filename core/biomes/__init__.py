"""Biomes: moisture, temperature, biome tables, classification, the biome preview and Unity detail counts.

Public names only; the engines live in private modules (``_climate``, ``_table``, ``_classify``,
``_details``, ``_preview``) and the ``[biomes]`` section in :mod:`.spec` (the texture layers that
paint by biome, ``[[splat]]``, are :mod:`core.splat`).

A biome map from heights in metres:

>>> import numpy as np
>>> table = load_table("whittaker")
>>> h = np.array([[0.0, 0.5, 79.0]], np.float32)
>>> ids = classify(h, np.array([[0.5, 0.5, 0.9]]), table=table, sea_level=0.2, height=80.0)
>>> [table.names[i] for i in ids[0]]
['ocean', 'beach', 'snow']
"""

from ._classify import classify, water_mask
from ._climate import closeness, elevation, moisture, moisture_margin, noise_uniform, sea_mask, temperature
from ._details import DETAIL_RESOLUTION, MAX_PER_CELL, PER_M2, detail_counts
from ._distance import bounded_distance
from ._preview import biome_colours, biome_png_bytes, biome_preview
from ._table import BiomeTable, load_table, table_from_dict, table_names
from .spec import LIMITS, BiomesSpec, check_biome_weights, from_dict, is_table_path, moisture_kwargs, to_dict

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
    "detail_counts",
    "DETAIL_RESOLUTION",
    "PER_M2",
    "MAX_PER_CELL",
    "biome_colours",
    "biome_preview",
    "biome_png_bytes",
    "BiomesSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "check_biome_weights",
    "moisture_kwargs",
    "is_table_path",
]
