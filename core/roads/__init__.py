"""Roads (``[roads]``): least-cost roads over the terrain, cut and filled into it, exported as a graph.

Public names only; the engine lives in private modules: ``_cost`` (the cost of every move, Galin et
al. 2010), ``_search`` (a bucketed, vectorised Dijkstra / A*), ``_network`` (links, routes, the road
graph, level profiles and bridges), ``_carve`` (cut and fill, the road and clearing maps), ``_roads``
(the spec's door), ``_files`` (``<name>_roads.json``, road and bridge meshes); the recipe section in
:mod:`.spec`.

A tiled world plans its roads once over the whole world (:func:`plan_roads`) and cuts and fills each
tile from that plan (:func:`carve_roads` with the tile's ``offset``): a road crossing a seam has the
same points and heights on both sides.

>>> import numpy as np
>>> h = np.zeros((40, 60))
>>> spec = RoadsSpec(enabled=True, points=((-50.0, 0.0), (50.0, 10.0)))
>>> r = build_roads(h, spec, cell_size=2.0, origin=(-59.0, -39.0))
>>> len(r.network.edges), r.network.node_kind
(1, ('point', 'point'))
"""

from ._carve import RoadMaps
from ._cost import build_graph, coarse_graph
from ._files import (
    DECK,
    FORMAT,
    LIFT,
    VERSION,
    bridge_mesh,
    bridge_spans,
    road_lines,
    road_mesh,
    roads_json,
    roads_json_bytes,
)
from ._network import (
    CLASS_RANK,
    DEFAULT_CLASSES,
    PROFILE_GRADE,
    SHOULDER_CELLS,
    RoadClass,
    RoadEdge,
    RoadNetwork,
    plan_roads,
    plan_roads_steps,
)
from ._roads import Roads, build_roads, build_roads_steps, carve_roads, grid_points
from ._search import MOVES, CostGraph, search, trace
from .spec import LIMITS, MAX_POINTS, RoadsSpec, check_points, from_dict, plan_kwargs, road_classes, to_dict

__all__ = [
    "RoadsSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "MAX_POINTS",
    "check_points",
    "road_classes",
    "plan_kwargs",
    "RoadClass",
    "RoadEdge",
    "RoadNetwork",
    "RoadMaps",
    "Roads",
    "DEFAULT_CLASSES",
    "CLASS_RANK",
    "PROFILE_GRADE",
    "SHOULDER_CELLS",
    "plan_roads",
    "plan_roads_steps",
    "carve_roads",
    "build_roads",
    "build_roads_steps",
    "grid_points",
    "CostGraph",
    "MOVES",
    "build_graph",
    "coarse_graph",
    "search",
    "trace",
    "roads_json",
    "roads_json_bytes",
    "road_mesh",
    "road_lines",
    "bridge_spans",
    "bridge_mesh",
    "FORMAT",
    "VERSION",
    "LIFT",
    "DECK",
]
