"""Rivers (``[rivers]``): channels traced from the water flow, carved into the terrain, and exported.

Public names only; the engine lives in private modules: ``_network`` (flow, channels, segments,
Strahler order, hydraulic geometry, lakes), ``_carve`` (beds, banks and the maps the rest reads),
``_rivers`` (plan + carve), ``_files`` (``<name>_rivers.json``, water meshes), ``_stats`` (Horton's
and Hack's laws); the recipe section in :mod:`.spec`.

A tiled world plans its rivers once over the whole world (:func:`plan_rivers`) and carves each tile
from that plan (:func:`carve_rivers` with the tile's ``offset``): a river crossing a seam has the
same points and heights on both sides.

>>> import numpy as np
>>> y, x = np.mgrid[0:40, 0:40].astype(float)
>>> h = 0.5 * np.abs(x - 20.0) + 0.3 * y          # a valley draining to row 0
>>> r = build_rivers(h, RiversSpec(enabled=True, threshold=400.0), cell_size=2.0)
>>> r.network.segment_count >= 1, r.network.mouth[0], bool(r.maps.water.any())
(True, 'edge', True)
"""

from ._carve import RiverMaps
from ._files import FORMAT, VERSION, rivers_json, rivers_json_bytes, water_mesh
from ._network import DEPTH_EXPONENT, MOUTHS, WIDTH_EXPONENT, Lake, RiverNetwork
from ._rivers import Rivers, build_rivers, carve_rivers, plan_rivers
from ._stats import hack_exponent, horton_ratio, stream_numbers, upstream_length
from .spec import LIMITS, THRESHOLD, RiversSpec, from_dict, plan_kwargs, to_dict

__all__ = [
    "RiversSpec",
    "LIMITS",
    "THRESHOLD",
    "from_dict",
    "to_dict",
    "plan_kwargs",
    "RiverNetwork",
    "Lake",
    "RiverMaps",
    "Rivers",
    "plan_rivers",
    "carve_rivers",
    "build_rivers",
    "rivers_json",
    "rivers_json_bytes",
    "water_mesh",
    "FORMAT",
    "VERSION",
    "MOUTHS",
    "WIDTH_EXPONENT",
    "DEPTH_EXPONENT",
    "stream_numbers",
    "horton_ratio",
    "hack_exponent",
    "upstream_length",
]
