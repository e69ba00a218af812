"""Scatter: maximal Poisson-disk sampling, rule masks, layers of props and their placements.

The layer spec as recipes write it (:class:`LayerSpec`, its limits table)
is in :mod:`.spec`; the sampler in the private ``_sampling`` (front) and
``_poisson*`` (engine), the rule masks in ``_rules``, the layers in ``_engine``; the built-in props (rocks,
grass) in :mod:`.props`.
"""

from ._engine import (
    ALIGN,
    SCALE,
    SINK,
    TILT,
    Layer,
    Placement,
    layer_from_spec,
    sample_heights,
    scatter_layers,
    terrain_normals_at,
    unity_transforms,
)
from ._rules import FADE, HEIGHT, KEEP_AWAY, PATCH_SCALE, PATCHINESS, SLOPE, ScatterRules, rule_mask
from ._sampling import DOMAIN, MAX_GRID_CELLS, RADIUS, RADIUS_RATIO, K, poisson_disk, poisson_disk_variable
from .spec import (
    BUILTIN_PROPS,
    LIMITS,
    MAX_LAYERS,
    MAX_PROPS,
    SUGGESTED,
    LayerSpec,
    check_prop_count,
    dumps_layer,
    from_dict,
    loads_layer,
    suggested_layer,
    to_dict,
)

__all__ = [
    "RADIUS",
    "RADIUS_RATIO",
    "DOMAIN",
    "K",
    "SLOPE",
    "HEIGHT",
    "PATCHINESS",
    "PATCH_SCALE",
    "FADE",
    "KEEP_AWAY",
    "SCALE",
    "ALIGN",
    "TILT",
    "SINK",
    "MAX_GRID_CELLS",
    "poisson_disk",
    "poisson_disk_variable",
    "ScatterRules",
    "rule_mask",
    "Layer",
    "Placement",
    "scatter_layers",
    "layer_from_spec",
    "sample_heights",
    "terrain_normals_at",
    "unity_transforms",
    "LayerSpec",
    "LIMITS",
    "BUILTIN_PROPS",
    "MAX_LAYERS",
    "MAX_PROPS",
    "SUGGESTED",
    "from_dict",
    "to_dict",
    "dumps_layer",
    "loads_layer",
    "check_prop_count",
    "suggested_layer",
]
