"""Terrain: a heightmap tile from a :class:`TerrainSpec` -- noise, then shaping.

The spec and its limits table are in :mod:`.spec`; the engine (noise in
bands of rows, shaping, seam-exact normals) in the private ``_heights``; the
terrain's layers (erosion, flow, biomes, texture-layer weights:
:func:`terrain_layers_steps`) in ``_layers``.
"""

from ._heights import (
    BAND_CELLS,
    TerrainHeights,
    band_count,
    grid_normals,
    heights_steps,
    noise_bands,
    raw_noise,
    shape_heights,
    terrain_heights,
)
from ._layers import (
    LAYER_STEPS,
    STREAM_AREA,
    TerrainLayers,
    erosion_droplets,
    erosion_steps,
    repaint_splats,
    terrain_layers,
    terrain_layers_steps,
)
from ._networks import NETWORK_STEPS, network_file_names, network_files, networks_origin
from .spec import LIMITS, TerrainSpec, check_spec, from_dict, to_dict

__all__ = [
    "TerrainSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "check_spec",
    "TerrainHeights",
    "terrain_heights",
    "heights_steps",
    "noise_bands",
    "raw_noise",
    "band_count",
    "shape_heights",
    "grid_normals",
    "BAND_CELLS",
    "TerrainLayers",
    "terrain_layers_steps",
    "terrain_layers",
    "erosion_droplets",
    "erosion_steps",
    "LAYER_STEPS",
    "STREAM_AREA",
    "repaint_splats",
    "networks_origin",
    "network_files",
    "network_file_names",
    "NETWORK_STEPS",
]
