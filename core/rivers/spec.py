"""``[rivers]``: the rivers of the terrain, their fields and limits.

::

    [rivers]
    enabled = true
    threshold = 20000.0      # upstream m² from which a cell carries a river
    width_scale = 6.0        # water width (m) where 1 km² drains through
    depth_scale = 1.5        # water depth (m) there
    carve = true             # carve beds and banks into the terrain
    lakes = true             # keep lakes where filled pits hold water

Widths and depths follow hydraulic geometry (width ∝ discharge^0.5, depth ∝ discharge^0.4, the
discharge taken as the upstream area), scaled by the artist's ``width_scale`` and ``depth_scale``.

>>> spec = from_dict({"enabled": True, "threshold": 5000})
>>> spec.enabled, spec.threshold, spec.width_scale
(True, 5000.0, 6.0)
>>> from_dict(to_dict(spec)) == spec
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import exact
from ..spec import check_keys, flag, from_table, number, to_table

__all__ = ["RiversSpec", "LIMITS", "from_dict", "to_dict", "THRESHOLD", "plan_kwargs"]

#: Upstream area (m²) from which a cell is a river; the map's cells bound it from below too
#: (at least 4 cells: :func:`core.rivers.plan_rivers`).
THRESHOLD = (1.0, 1.0e12)

#: Every field of :class:`RiversSpec`: kind, range, label and description, written once.
LIMITS = {
    "enabled": flag("Rivers", "Trace rivers from the water flow, carve them and export them"),
    "threshold": number(
        THRESHOLD,
        "Threshold Area",
        "Upstream area from which a cell carries a river (square metres)",
        soft=(100.0, 1.0e7),
    ),
    "width_scale": number(
        (0.01, 10_000.0), "Width Scale", "Water width where 1 km² drains through", unit="m", soft=(0.5, 100.0)
    ),
    "depth_scale": number(
        (0.0, 1000.0), "Depth Scale", "Water depth where 1 km² drains through", unit="m", soft=(0.0, 20.0)
    ),
    "min_width": number((0.01, 1000.0), "Minimum Width", "Narrowest water", unit="m", soft=(0.1, 20.0)),
    "carve": flag("Carve", "Carve beds and banks into the terrain"),
    "bank_slope": number((1.0, 80.0), "Bank Slope", "Steepness of the carved banks", unit="deg"),
    "bank_width": number(
        (0.0, 1000.0),
        "Bank Width",
        "Width of the bank beyond the water (bank splat, reeds)",
        unit="m",
        soft=(0.0, 50.0),
    ),
    "lakes": flag("Lakes", "Keep lakes (a flat water surface) where filled pits hold water"),
    "lake_min_area": number((0.0, 1.0e12), "Smallest Lake", "Smallest lake kept (square metres)", soft=(0.0, 1.0e6)),
    "lake_min_depth": number(
        (0.0, 10_000.0), "Shallowest Lake", "Least depth of the deepest water of a lake kept", unit="m"
    ),
    "water_reach": number(
        (0.1, 100_000.0), "Water Reach", "Distance the water distance map reaches", unit="m", soft=(1.0, 1000.0)
    ),
}


@dataclass(frozen=True)
class RiversSpec:
    """``[rivers]``: how rivers are traced and carved (off by default). Ranges: :data:`LIMITS`."""

    enabled: bool = False
    threshold: float = 20_000.0
    width_scale: float = 6.0
    depth_scale: float = 1.5
    min_width: float = 1.0
    carve: bool = True
    bank_slope: float = 25.0
    bank_width: float = 4.0
    lakes: bool = True
    lake_min_area: float = 2000.0
    lake_min_depth: float = 0.5
    water_reach: float = 64.0


def plan_kwargs(spec: RiversSpec) -> dict[str, Any]:
    """The keyword arguments of :func:`core.rivers.plan_rivers` this spec sets (all but the terrain's).

    >>> round(plan_kwargs(RiversSpec())["bank_slope"], 4)
    0.4663
    """
    return {
        "threshold": spec.threshold,
        "width_scale": spec.width_scale,
        "depth_scale": spec.depth_scale,
        "min_width": spec.min_width,
        "lakes": spec.lakes,
        "lake_min_area": spec.lake_min_area,
        "lake_min_depth": spec.lake_min_depth,
        "bank_slope": float(exact.tan(spec.bank_slope * (3.141592653589793 / 180.0))),
        "bank_width": spec.bank_width,
        "carve": spec.carve,
        "reach": spec.water_reach,
    }


def from_dict(table: Mapping[str, Any], *, prefix: str = "rivers.") -> RiversSpec:
    """A validated :class:`RiversSpec` from a ``[rivers]`` table (unknown keys refused).

    >>> try:
    ...     from_dict({"threshold": 0})
    ... except ValueError as err:
    ...     print(err)
    rivers.threshold must be a finite number in [1, 1e+12], got 0
    """
    if isinstance(table, dict):
        check_keys(table, list(LIMITS), where=f"[{prefix.rstrip('.')}]")
    return from_table(RiversSpec, LIMITS, table, prefix=prefix)


def to_dict(spec: RiversSpec) -> dict[str, Any]:
    """The spec as a table of plain TOML values (every field)."""
    return to_table(spec)
