"""``[settlements]``: hamlets, villages and walled towns on the terrain, their fields and limits.

::

    [settlements]
    enabled = true
    count = 3                # sites (or density > 0: sites per square kilometre)
    types = "mixed"          # the best site a walled town, the next two villages, the rest hamlets
    spacing = 150.0          # metres between two sites' centres, at least
    max_slope = 15.0         # steepest ground a site takes (degrees, over its pad)

One table, not a list of them: the sites are chosen together on one interest map (after Emilien et
al. 2012: flat, near water and roads, sunny, above the floods, in the biomes a type allows), each
away from the others, and one road network joins them all (``[roads]`` on); ``types`` says which
kind each site becomes by its rank.

>>> spec = from_dict({"enabled": True, "count": 2, "types": "village"})
>>> spec.count, spec.types, spec.spacing
(2, 'village', 150.0)
>>> from_dict(to_dict(spec)) == spec
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError
from ..spec import Limit, check_keys, choice, flag, from_table, integer, number, text, to_table

__all__ = ["SettlementsSpec", "LIMITS", "from_dict", "to_dict", "MAX_SITES", "TYPES", "TYPE_CHOICES", "site_types"]

#: Most sites a terrain holds.
MAX_SITES = 64
#: The settlement types, smallest first.
TYPES = ("hamlet", "village", "walled_town")
#: What ``types`` may say: one type for every site, or ``mixed`` by rank.
TYPE_CHOICES = (
    ("mixed", "Mixed", "The best site a walled town, the next two villages, the others hamlets"),
    ("hamlet", "Hamlets", "Every site a hamlet: a few houses along one lane"),
    ("village", "Villages", "Every site a village: a main street and a cross street"),
    ("walled_town", "Walled Towns", "Every site a walled town: a street grid inside a wall with gates"),
)

#: Every field of :class:`SettlementsSpec`: kind, range, label and description, written once.
LIMITS: dict[str, Limit] = {
    "enabled": flag("Settlements", "Place settlements on the terrain: pads, streets, lots and houses"),
    "count": integer((0, MAX_SITES), "Count", "How many sites (when Density is 0)"),
    "density": number(
        (0.0, 100.0), "Density", "Sites per square kilometre of terrain (0: use Count)", soft=(0.0, 10.0)
    ),
    "types": choice(TYPE_CHOICES, "Types", "Which kind of settlement each site becomes"),
    "spacing": number((10.0, 100_000.0), "Spacing", "Least distance between two sites' centres", unit="m"),
    "scale": number((0.5, 3.0), "Scale", "Size of every settlement (its pad's radius) against the type's own"),
    "max_slope": number((0.5, 45.0), "Steepest Site", "Steepest mean ground a site's pad takes", unit="deg"),
    "pad_slope": number((5.0, 60.0), "Pad Blend Slope", "Steepest slope the ground takes around a pad", unit="deg"),
    "flood_height": number(
        (0.0, 1000.0), "Flood Height", "Height a site keeps above the water beside its pad", unit="m", soft=(0.0, 20.0)
    ),
    "water_reach": number((1.0, 100_000.0), "Water Reach", "Distance within which water draws a site", unit="m"),
    "road_reach": number((1.0, 100_000.0), "Road Reach", "Distance within which a road draws a site", unit="m"),
    "water_weight": number((0.0, 10.0), "Water Weight", "How much nearby water counts"),
    "road_weight": number((0.0, 10.0), "Road Weight", "How much a nearby road counts"),
    "sun_weight": number((0.0, 10.0), "Sun Weight", "How much a sunny (south-facing) slope counts"),
    "street_width": number((1.0, 20.0), "Street Width", "Width of the streets inside a settlement", unit="m"),
    "storey_height": number((2.0, 6.0), "Storey Height", "Height of a storey of a house", unit="m"),
    "roofs": choice(
        (
            ("mixed", "Mixed", "Gable and hip roofs by house"),
            ("gable", "Gable", "Every roof a gable roof"),
            ("hip", "Hip", "Every roof a hip roof"),
        ),
        "Roofs",
        "Roof shape of the houses",
    ),
    "level": text(
        48, "Level", "Name of a level (dungeon, cave) entered from the best site: its entrance marker at the pad's edge"
    ),
}


@dataclass(frozen=True)
class SettlementsSpec:
    """``[settlements]``: sites, pads, streets, lots and houses (off by default). Ranges: :data:`LIMITS`."""

    enabled: bool = False
    count: int = 3
    density: float = 0.0
    types: str = "mixed"
    spacing: float = 150.0
    scale: float = 1.0
    max_slope: float = 15.0
    pad_slope: float = 25.0
    flood_height: float = 2.0
    water_reach: float = 200.0
    road_reach: float = 200.0
    water_weight: float = 1.0
    road_weight: float = 0.5
    sun_weight: float = 0.5
    street_width: float = 4.0
    storey_height: float = 3.0
    roofs: str = "mixed"
    level: str = ""


def site_types(spec: SettlementsSpec, count: int) -> tuple[str, ...]:
    """The type of each of ``count`` sites, best site first.

    >>> site_types(SettlementsSpec(), 5)
    ('walled_town', 'village', 'village', 'hamlet', 'hamlet')
    """
    if spec.types != "mixed":
        return (spec.types,) * count
    return tuple("walled_town" if i == 0 else "village" if i < 3 else "hamlet" for i in range(count))


def from_dict(table: Any, *, prefix: str = "settlements.") -> SettlementsSpec:
    """A validated :class:`SettlementsSpec` from a ``[settlements]`` table (unknown keys refused).

    >>> try:
    ...     from_dict({"count": 500})
    ... except ValueError as err:
    ...     print(err)
    settlements.count must be an integer in [0, 64], got 500
    """
    if isinstance(table, dict):
        check_keys(table, list(LIMITS), where=f"[{prefix.rstrip('.')}]")
    spec = from_table(SettlementsSpec, LIMITS, table, prefix=prefix)
    if spec.enabled and spec.count == 0 and spec.density == 0.0:
        raise ParameterError(f"{prefix}count is 0 and {prefix}density is 0: there would be no site; set one of them")
    return spec


def to_dict(spec: SettlementsSpec) -> dict[str, Any]:
    """The spec as a table of plain TOML values (every field)."""
    return to_table(spec)
