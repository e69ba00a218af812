"""Erosion: heightmap -> heightmap stages of the terrain recipe (``[terrain.erosion]``).

Hydraulic (droplets, with an exact mass ledger), thermal (talus), pit filling and flow
accumulation; pure numpy, deterministic for a seed.
"""

from ._flow import drains, fill_pits, flow_accumulation, flow_receivers, pits
from ._hydraulic import HydraulicResult, hydraulic, hydraulic_steps
from ._thermal import thermal
from .spec import LIMITS, ErosionSpec, erosion_seconds, from_dict, to_dict

__all__ = [
    "hydraulic",
    "hydraulic_steps",
    "HydraulicResult",
    "thermal",
    "fill_pits",
    "flow_accumulation",
    "flow_receivers",
    "drains",
    "pits",
    "ErosionSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "erosion_seconds",
]
