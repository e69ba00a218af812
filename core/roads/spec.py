"""``[roads]``: roads between points over the terrain, their fields and limits.

::

    [roads]
    enabled = true
    points = [[-300.0, -200.0], [250.0, -150.0], [0.0, 280.0], [-220.0, 240.0]]   # Blender x, y (m)
    network = true           # spanning tree + shortcuts; false: a chain through the points in order
    road_class = "road"      # highway, road or trail
    shortcuts = 2
    road_max_grade = 0.10    # rise / run

Points are Blender metres in the scene (a terrain is centred on the origin; a tiled world's
tiles lie where ``[world]`` puts them).  Each class has a width and a steepest grade; the costs
follow Galin et al. 2010 (grade, turns, water, forest; existing roads cheaper).

>>> spec = from_dict({"enabled": True, "points": [[0, 0], [10, 20]]})
>>> spec.points, spec.road_class
(((0.0, 0.0), (10.0, 20.0)), 'road')
>>> from_dict(to_dict(spec)) == spec
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._checks import check_float
from ..errors import ParameterError, short
from ..spec import check_keys, choice, custom, flag, from_table, integer, number, to_table
from ._network import CLASS_RANK, RoadClass

__all__ = [
    "RoadsSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "MAX_POINTS",
    "check_points",
    "road_classes",
    "plan_kwargs",
]

#: Most points a network joins (the links between every pair are searched).
MAX_POINTS = 64
#: Grades (rise / run) a class may climb.
GRADE = (0.005, 1.0)
WIDTH = (0.5, 100.0)


def check_points(value: Any, name: str) -> tuple[tuple[float, float], ...]:
    """Points as ``((x, y), ...)`` Blender metres: at most :data:`MAX_POINTS`, each finite.

    >>> check_points([[1, 2], (3.5, -4)], "roads.points")
    ((1.0, 2.0), (3.5, -4.0))
    """
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
        raise ParameterError(f"{name} must be a list of [x, y] points (metres), got {short(value)}")
    if len(value) > MAX_POINTS:
        raise ParameterError(f"{name} has {len(value):,} points; at most {MAX_POINTS} are allowed")
    out = []
    for i, p in enumerate(value):
        try:
            x, y = p
        except (TypeError, ValueError):
            raise ParameterError(f"{name}[{i}] must be a pair [x, y] of metres, got {short(p)}") from None
        out.append(
            (
                check_float(x, name=f"{name}[{i}][0]", bounds=(-1.0e7, 1.0e7)),
                check_float(y, name=f"{name}[{i}][1]", bounds=(-1.0e7, 1.0e7)),
            )
        )
    return tuple(out)


#: Every field of :class:`RoadsSpec`: kind, range, label and description, written once.
LIMITS = {
    "enabled": flag("Roads", "Lay roads between the points, cut and fill the terrain, export the road graph"),
    "points": custom(check_points, "Points", "Points to join: [x, y] in metres (Blender's frame)"),
    "network": flag("Network", "Join every point (spanning tree plus shortcuts); off: a chain in the given order"),
    "road_class": choice(CLASS_RANK, "Class", "Class of the roads between the points"),
    "shortcut_class": choice(CLASS_RANK, "Shortcut Class", "Class of the shortcuts added to the network"),
    "shortcuts": integer((0, 64), "Shortcuts", "Most shortcuts added to the spanning tree"),
    "detour": number(
        (1.0, 100.0), "Detour", "A shortcut is added where going round the network costs this many times more"
    ),
    "highway_width": number(WIDTH, "Highway Width", "Width of a highway", unit="m"),
    "highway_max_grade": number(GRADE, "Highway Grade", "Steepest grade of a highway (rise / run)"),
    "road_width": number(WIDTH, "Road Width", "Width of a road", unit="m"),
    "road_max_grade": number(GRADE, "Road Grade", "Steepest grade of a road (rise / run)"),
    "trail_width": number(WIDTH, "Trail Width", "Width of a trail", unit="m"),
    "trail_max_grade": number(GRADE, "Trail Grade", "Steepest grade of a trail (rise / run)"),
    "directions": choice(("16", "32"), "Directions", "Moves a road may take from a cell (more: smoother, slower)"),
    "grade_weight": number((0.0, 1000.0), "Grade Cost", "How much steeper ground costs", soft=(0.0, 50.0)),
    "curvature": number((0.0, 1000.0), "Turn Cost", "Cost of turning back, in cells of flat road", soft=(0.0, 20.0)),
    "bridge_cost": number(
        (1.0, 10_000.0), "Bridge Cost", "Cost of a metre of bridge, in metres of road", soft=(1.0, 100.0)
    ),
    "max_bridge": number(
        (0.0, 100_000.0), "Longest Bridge", "Widest river a bridge spans", unit="m", soft=(0.0, 500.0)
    ),
    "forest_weight": number((0.0, 1000.0), "Forest Cost", "Extra cost of a metre through forest", soft=(0.0, 20.0)),
    "reuse": number((0.05, 1.0), "Reuse", "Cost of travelling on an existing road, as a share of its own"),
    "margin": number((0.0, 1000.0), "Clearing Margin", "Clearing beyond the road's width (no scatter)", unit="m"),
    "repose": number((5.0, 80.0), "Embankment Angle", "Steepest cut or fill slope (angle of repose)", unit="deg"),
    "embankment": number((0.0, 1000.0), "Embankment Reach", "How far cut and fill reach beyond the road", unit="m"),
    "bridge_height": number(
        (0.5, 10_000.0), "Bridge Height", "Deck height above the ground from which a road bridges", unit="m"
    ),
    "coarse": integer((1, 16), "Coarse Factor", "Coarsening of the grid the network's links are chosen on"),
}


@dataclass(frozen=True)
class RoadsSpec:
    """``[roads]``: roads between points (off by default). Ranges: :data:`LIMITS`."""

    enabled: bool = False
    points: tuple[tuple[float, float], ...] = ()
    network: bool = True
    road_class: str = "road"
    shortcut_class: str = "trail"
    shortcuts: int = 2
    detour: float = 1.5
    highway_width: float = 10.0
    highway_max_grade: float = 0.06
    road_width: float = 6.0
    road_max_grade: float = 0.10
    trail_width: float = 2.5
    trail_max_grade: float = 0.18
    directions: str = "16"
    grade_weight: float = 4.0
    curvature: float = 1.0
    bridge_cost: float = 8.0
    max_bridge: float = 60.0
    forest_weight: float = 1.0
    reuse: float = 0.6
    margin: float = 2.0
    repose: float = 33.0
    embankment: float = 20.0
    bridge_height: float = 6.0
    coarse: int = 4


def road_classes(spec: RoadsSpec) -> tuple[RoadClass, ...]:
    """The three classes of ``spec`` as :class:`~._network.RoadClass` (highway, road, trail)."""
    return tuple(
        RoadClass(name, getattr(spec, f"{name}_width"), getattr(spec, f"{name}_max_grade")) for name in CLASS_RANK
    )


def plan_kwargs(spec: RoadsSpec) -> dict[str, Any]:
    """The keyword arguments of :func:`core.roads.plan_roads` this spec sets (all but the terrain's)."""
    return {
        "classes": road_classes(spec),
        "road_class": spec.road_class,
        "shortcut_class": spec.shortcut_class,
        "network": spec.network,
        "shortcuts": spec.shortcuts,
        "detour": spec.detour,
        "directions": int(spec.directions),
        "grade_weight": spec.grade_weight,
        "curvature": spec.curvature,
        "bridge_cost": spec.bridge_cost,
        "max_bridge": spec.max_bridge,
        "forest_weight": spec.forest_weight,
        "reuse": spec.reuse,
        "coarse": spec.coarse,
        "bridge_height": spec.bridge_height,
        "repose": spec.repose,
        "embankment": spec.embankment,
        "margin": spec.margin,
    }


def from_dict(table: Mapping[str, Any], *, prefix: str = "roads.") -> RoadsSpec:
    """A validated :class:`RoadsSpec` from a ``[roads]`` table (unknown keys refused; ``directions``
    may be written as a number).

    >>> try:
    ...     from_dict({"points": [[0, 0]] * 1_000_000})
    ... except ValueError as err:
    ...     print(err)
    roads.points has 1,000,000 points; at most 64 are allowed
    """
    if isinstance(table, dict):
        table = dict(table)
        check_keys(table, list(LIMITS), where=f"[{prefix.rstrip('.')}]")
        if "directions" in table and isinstance(table["directions"], int) and not isinstance(table["directions"], bool):
            table["directions"] = str(table["directions"])
    spec = from_table(RoadsSpec, LIMITS, table, prefix=prefix)
    if spec.enabled and len(spec.points) < 2 and spec.points:
        raise ParameterError(f"{prefix}points has {len(spec.points)} point; a road needs at least 2")
    return spec


def to_dict(spec: RoadsSpec) -> dict[str, Any]:
    """The spec as a table of plain TOML values (every field; ``points`` as a list of pairs)."""
    return to_table(spec)
