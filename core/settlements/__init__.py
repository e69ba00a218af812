"""Settlements (``[settlements]``): hamlets, villages and walled towns on the terrain.

Public names only; the engine lives in private modules: ``_types`` (the type table), ``_sites``
(the interest map after Emilien et al. 2012, the spaced choice), ``_pad`` (levelled pads blended
into the ground), ``_layout`` (streets, lots, houses, a town's wall and gates), ``_mesh`` (low-poly
houses, pads, streets, walls), ``_settlements`` (the build, with the roads between the sites),
``_files`` (``<name>_settlements.json``), ``_picture`` (the plan painted on a relief map); the
recipe section in :mod:`.spec`.

>>> import numpy as np
>>> spec = SettlementsSpec(enabled=True, count=1, types="village")
>>> s = build_settlements(np.zeros((90, 90)), spec, cell_size=2.0, origin=(-89.0, -89.0), seed=3)
>>> s.sites[0].name, s.sites[0].kind
('Village1', 'village')
>>> plan = draw_settlements(np.zeros((178, 178, 3), np.uint8), s)
>>> bool((plan == PLAN_COLOURS["pad"]).all(axis=2).any()), bool((plan == PLAN_COLOURS["street"]).all(axis=2).any())
(True, True)
"""

from ._files import FORMAT, VERSION, settlements_json, settlements_json_bytes
from ._layout import GATE_WIDTH, ROOFS, WALL_HEIGHT, WALL_THICKNESS, Building, Site
from ._mesh import MATERIALS, house_mesh, site_meshes
from ._picture import PLAN_COLOURS, draw_settlements
from ._settlements import SALT, TITLES, Settlements, build_settlements, build_settlements_steps, settle_heights
from ._sites import interest_map, window_max
from ._types import TYPE_TABLE, SiteType, allowed_biomes, radius_of
from .spec import LIMITS, MAX_SITES, TYPE_CHOICES, TYPES, SettlementsSpec, from_dict, site_types, to_dict

__all__ = [
    "SettlementsSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "MAX_SITES",
    "TYPES",
    "TYPE_CHOICES",
    "site_types",
    "SiteType",
    "TYPE_TABLE",
    "allowed_biomes",
    "radius_of",
    "interest_map",
    "window_max",
    "Building",
    "Site",
    "ROOFS",
    "WALL_HEIGHT",
    "WALL_THICKNESS",
    "GATE_WIDTH",
    "Settlements",
    "build_settlements",
    "build_settlements_steps",
    "settle_heights",
    "SALT",
    "TITLES",
    "house_mesh",
    "site_meshes",
    "MATERIALS",
    "draw_settlements",
    "PLAN_COLOURS",
    "settlements_json",
    "settlements_json_bytes",
    "FORMAT",
    "VERSION",
]
