"""``[biomes]``: the biome map of the terrain, its fields and limits (the texture layers, ``[[splat]]``,
are :mod:`core.splat`).

::

    [biomes]
    enabled = true
    table = "whittaker"          # a preset (presets/biomes) or a .toml path relative to the recipe
    moisture_scale = 128.0       # metres
    sea_weight = 0.3
    sea_reach = 64.0             # metres from the shore where the sea's wetness has faded out
    flow_weight = 0.5
    flow_reach = 16.0            # metres from a flow line where its wetness has faded out
    flow_area = 20000.0          # upstream square metres that make a cell a flow line

The ranges are the engines' own (:mod:`._climate`): a recipe, the sidebar and a direct call accept
the same values.  A ``table`` given as a path is found beside the recipe.
"""

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._checks import check_float
from ..errors import ParameterError, short
from ..spec import custom, flag, from_table, number, to_table
from ._climate import FLOW_LINE_AREA, LAPSE, MOISTURE_SCALE, REACH, WEIGHT
from ._table import MAX_BIOMES, load_table

__all__ = [
    "BiomesSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "moisture_kwargs",
    "check_biome_weights",
    "check_table_ref",
    "is_table_path",
]


def check_table_ref(value: object, name: str) -> str:
    """A biome table: a preset stem (``"whittaker"``) or a path to a ``.toml`` file (1 to 1024 characters)."""
    if not isinstance(value, str) or not value.strip() or len(value) > 1024:
        raise ParameterError(f"{name} must be a preset name or a .toml path (1 to 1024 characters), got {short(value)}")
    return value


def check_biome_weights(value: object, name: str) -> tuple[tuple[str, float], ...]:
    """Biome names with weights: a list of names (weight 1 each), ``{name: weight}`` with weights in
    [0, 1], or the text ``"name, name = weight"``; a tuple of ``(name, weight)`` pairs in the order
    given (``()``: no biome rule). The names are checked against the table when the weights are made.

    >>> check_biome_weights(["forest", "taiga"], "splat[1].biomes")
    (('forest', 1.0), ('taiga', 1.0))
    >>> check_biome_weights({"forest": 1, "grassland": 0.25}, "splat[1].biomes")
    (('forest', 1.0), ('grassland', 0.25))
    >>> check_biome_weights("forest, grassland = 0.25", "splat[1].biomes")
    (('forest', 1.0), ('grassland', 0.25))
    """
    if isinstance(value, str):
        items = []
        for part in (p.strip() for p in value.split(",")):
            if part:
                biome, eq, weight = (t.strip() for t in part.partition("="))
                try:
                    items.append((biome, float(weight) if eq else 1.0))
                except ValueError:
                    raise ParameterError(f"{name}.{biome} must be a number in [0, 1], got {weight!r}") from None
    elif isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, (list, tuple)):
        items = [tuple(v) if isinstance(v, (list, tuple)) else (v, 1.0) for v in value]
    else:
        raise ParameterError(f"{name} must be a list of biome names or a table {{name = weight}}, got {short(value)}")
    if len(items) > MAX_BIOMES:
        raise ParameterError(f"{name} may name at most {MAX_BIOMES} biomes, got {len(items)}")
    out, seen = [], set()
    for i, item in enumerate(items):
        if len(item) != 2 or not isinstance(item[0], str) or not item[0]:
            raise ParameterError(f"{name}[{i}] must be a biome name (with a weight), got {short(item)}")
        if item[0] in seen:
            raise ParameterError(f"{name} names {item[0]!r} twice")
        seen.add(item[0])
        out.append((item[0], check_float(item[1], name=f"{name}.{item[0]}", bounds=(0.0, 1.0))))
    return tuple(out)


#: Every field of :class:`BiomesSpec`.
LIMITS = {
    "enabled": flag("Biomes", "Work out a biome map from elevation and moisture"),
    "table": custom(
        check_table_ref, "Biome Table", "A preset (whittaker) or a .toml biome table (relative to the recipe)"
    ),
    "moisture_scale": number(
        MOISTURE_SCALE, "Moisture Size", "Feature size of the moisture noise", unit="m", soft=(8.0, 4096.0)
    ),
    "sea_weight": number(WEIGHT, "Sea Moisture", "How much the sea wets the low land near it (0: not at all)"),
    "sea_reach": number(
        REACH,
        "Sea Reach",
        "Distance from the shore at which the sea no longer wets the land",
        unit="m",
        soft=(1.0, 2000.0),
    ),
    "flow_weight": number(WEIGHT, "Flow Moisture", "How much water flow wets the ground along it (0: not at all)"),
    "flow_reach": number(
        REACH,
        "Flow Reach",
        "Distance from a flow line at which it no longer wets the ground",
        unit="m",
        soft=(1.0, 500.0),
    ),
    "flow_area": number(
        FLOW_LINE_AREA,
        "Flow Line Area",
        "Upstream area (square metres) from which water flow counts as a flow line",
        soft=(10.0, 1.0e7),
    ),
    "lapse": number(
        LAPSE, "Lapse Rate", "Temperature fall per km of height, degrees C (tables with temperature ranges)"
    ),
    "preview": flag("Biome Preview", "Write the biome map as a coloured PNG"),
}


@dataclass(frozen=True)
class BiomesSpec:
    """``[biomes]``: the biome map of the terrain. Ranges: :data:`LIMITS`.

    >>> BiomesSpec().table, BiomesSpec().enabled
    ('whittaker', False)
    """

    enabled: bool = False
    table: str = "whittaker"
    moisture_scale: float = 128.0
    sea_weight: float = 0.3
    sea_reach: float = 64.0
    flow_weight: float = 0.5
    flow_reach: float = 16.0
    flow_area: float = 20000.0
    lapse: float = 6.5
    preview: bool = True


def from_dict(table: Mapping[str, Any], *, prefix: str = "biomes.", base: str | None = None) -> BiomesSpec:
    """A validated :class:`BiomesSpec` from a ``[biomes]`` table; a ``table`` given as a path is
    made absolute against the recipe's folder ``base`` (None: kept as written) and, in a recipe file
    (``base``, its folder) with biomes on, read and checked here: errors name ``<prefix>table`` and
    quote nothing of a table file outside the recipe's folder."""
    spec = from_table(BiomesSpec, LIMITS, table, prefix=prefix)
    if is_table_path(spec.table):
        value = spec.table
        spec = dataclasses.replace(spec, table=_beside(value, base))
        if base is not None and spec.enabled:
            try:
                load_table(spec.table, base=base)
            except ParameterError as err:
                raise ParameterError(f"{prefix}table {short(value)}: {err}") from None
    return spec


def is_table_path(value: str) -> bool:
    """Whether a ``table`` value names a file (a ``.toml`` name or a path), not a preset.

    >>> is_table_path("whittaker"), is_table_path("tables/mine.toml"), is_table_path("mine.toml")
    (False, True, True)
    """
    return value.lower().endswith(".toml") or "/" in value or "\\" in value


def _beside(value: str, base: str | None) -> str:
    """A file path of a recipe made absolute against the recipe's folder ``base`` (None: kept)."""
    if base is None or not value or os.path.isabs(value) or "\x00" in value:
        return value
    return os.path.normpath(os.path.join(base, value))


def moisture_kwargs(spec: BiomesSpec) -> dict[str, float]:
    """The keyword arguments of :func:`core.biomes.moisture` that ``[biomes]`` sets.

    >>> sorted(moisture_kwargs(BiomesSpec()))
    ['flow_area', 'flow_reach', 'flow_weight', 'scale', 'sea_reach', 'sea_weight']
    """
    return {
        "scale": spec.moisture_scale,
        "sea_weight": spec.sea_weight,
        "sea_reach": spec.sea_reach,
        "flow_weight": spec.flow_weight,
        "flow_reach": spec.flow_reach,
        "flow_area": spec.flow_area,
    }


def to_dict(spec: BiomesSpec) -> dict[str, Any]:
    """The spec as a table of plain TOML values."""
    return to_table(spec)
