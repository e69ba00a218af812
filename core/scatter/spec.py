"""``[[scatter]]``: one scatter layer as recipes write it, its limits table, and good starting values.

A layer names its props (``prop``: ``"rock"``, ``"grass"`` or a tree
species such as ``"broadleaf"``; in Blender also a collection or an object),
how far apart they stand, the rules that decide where they may stand and how
they are placed.  Layers are scattered in order, each keeping its distance
from the props of the layers before it::

    [[scatter]]
    name = "Oaks"
    prop = "broadleaf"
    variants = 3
    radius = 12.0
    slope_range = [0.0, 25.0]
    unity_tree = true

    [[scatter]]
    name = "Rocks"
    prop = "rock"
    radius = 4.0
    slope_range = [20.0, 90.0]

With the terrain's layers (``[biomes]``, ``[terrain.erosion]``), a layer may also grow only in
some biomes, with weights, and follow the erosion maps::

    [[scatter]]
    name = "Reeds"
    prop = "grass"
    radius = 1.5
    biomes = { grassland = 1.0, forest = 0.3 }
    flow = [5000.0, 1e12]          # upstream area, square metres: along streams

    [[scatter]]
    name = "Scree"
    prop = "rock"
    radius = 2.0
    deposits = [0.2, 100000.0]     # metres of deposited material

The ranges are the engine's own (``core.scatter.SLOPE``, ``SCALE`` ...): a
recipe, the sidebar and a direct call accept the same values.
"""

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .._toml import toml_table
from ..biomes import PER_M2
from ..errors import ParameterError, short
from ..files import parse_toml
from ..spec import custom, did_you_mean, flag, from_table, integer, number, object_name, span, to_table
from ..trees import species_names, species_spec
from ._engine import ALIGN, SCALE, SINK, TILT
from ._rules import DEPOSITS, FLOW, HEIGHT, KEEP_AWAY, PATCH_SCALE, PATCHINESS, SLOPE, check_biomes
from ._sampling import RADIUS, RADIUS_RATIO

__all__ = [
    "LayerSpec",
    "LIMITS",
    "BUILTIN_PROPS",
    "MAX_LAYERS",
    "MAX_PROPS",
    "from_dict",
    "to_dict",
    "dumps_layer",
    "loads_layer",
    "check_prop_count",
    "suggested_layer",
    "SUGGESTED",
]

BUILTIN_PROPS = ("rock", "grass")
MAX_LAYERS = 16
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
#: Most props one scatter may place (a maximal packing holds about 0.7 * area / radius^2 of them).
MAX_PROPS = 2_000_000


def check_prop(value: Any, name: str) -> str:
    """A built-in prop (``rock``, ``grass``) or a shipped tree species."""
    allowed = BUILTIN_PROPS + tuple(species_names())
    if value not in allowed:
        raise ParameterError(
            f"{name} must be one of {', '.join(allowed)}, got {short(value)}{did_you_mean(value, allowed)}"
        )
    return value


#: Every field of :class:`LayerSpec`: kind, range, label and description, written once.
LIMITS = {
    "name": object_name("Name", "Layer name (also in the placement file)"),
    "prop": custom(check_prop, "Prop", "A built-in prop: rock, grass or a tree species"),
    "variants": integer((1, 16), "Variants", "Different built-in props made from consecutive seeds"),
    "radius": number(
        RADIUS, "Spacing", "Smallest distance between two props of this layer", unit="m", soft=(0.05, 1000.0)
    ),
    "radius_max": number(
        (0.0, RADIUS[1]),
        "Sparse Spacing",
        "Spacing where the rules allow only a few props (0: same as Spacing)",
        unit="m",
        soft=(0.0, 1000.0),
    ),
    "height_range": span(HEIGHT, "Height Range", "Props only between these heights (metres)", soft=(-1000.0, 10_000.0)),
    "slope_range": span(SLOPE, "Slope Range", "Props only on slopes between these angles (degrees)"),
    "patchiness": number(PATCHINESS, "Patchiness", "0 covers everything allowed, 1 leaves only scattered patches"),
    "patch_scale": number(PATCH_SCALE, "Patch Size", "Size of the patches", unit="m", soft=(1.0, 10_000.0)),
    "above_sea": flag("Above Sea", "No props at or below the terrain's sea level"),
    "keep_away": number(
        KEEP_AWAY,
        "Keep Away",
        "Distance from the props of the layers above (at least this layer's spacing)",
        unit="m",
        soft=(0.0, 1000.0),
    ),
    "scale_range": span(SCALE, "Scale", "Random uniform scale between these", soft=(0.01, 100.0)),
    "align": number(ALIGN, "Align to Slope", "0 keeps props upright, 1 tilts them with the ground"),
    "max_tilt": number(TILT, "Max Tilt", "Largest tilt from upright (degrees)", unit="deg"),
    "sink": number(SINK, "Sink", "How far props sink into the ground (scaled with them)", unit="m"),
    "unity_tree": flag(
        "Unity Terrain Trees", "Also list this layer as Unity Terrain tree instances in the placement file"
    ),
    "unity_detail": number(
        PER_M2,
        "Unity Detail Density",
        "Also write the layer as a Unity terrain detail layer (grass): instances per square metre where its "
        "rules allow fully (0: no)",
        soft=(0.0, 20.0),
    ),
    "biomes": custom(
        check_biomes,
        "Biomes",
        "Biomes the props grow in: a list of names, or {name = weight} with weights in [0, 1] (empty: everywhere)",
    ),
    "deposits": span(
        DEPOSITS,
        "Deposits",
        "Props only where erosion deposited between these depths of material (metres)",
        soft=(0.0, 100.0),
    ),
    "flow": span(
        FLOW,
        "Water Flow",
        "Props only where the upstream area draining through lies between these (square metres)",
        soft=(0.0, 1.0e7),
    ),
}


@dataclass(frozen=True)
class LayerSpec:
    """One scatter layer (every field optional).

    ``prop``: a built-in prop (``"rock"``, ``"grass"``) or a tree species;
    ``variants``: how many different props of it (consecutive seeds).
    ``radius``: the smallest distance between two props (metres); with
    ``radius_max`` > ``radius`` the spacing varies between the two with the
    rules' density (dense where the rules allow most).  Rules:
    ``height_range`` (metres), ``slope_range`` (degrees), ``patchiness``
    (0..1) with ``patch_scale`` (metres), ``above_sea``, ``keep_away``
    (metres from the props of earlier layers, at least ``radius``).  Placement: ``scale_range``,
    ``align`` (0 upright .. 1 with the ground), ``max_tilt`` (degrees),
    ``sink`` (metres, scaled with the prop).  ``unity_tree``: also list the
    layer as Unity Terrain tree instances; ``unity_detail`` (instances per square metre, 0: no)
    also as a Unity terrain detail layer, counts from the same rules.  Map rules (they need the terrain's layers):
    ``biomes`` (names with weights, ``()`` for everywhere), ``deposits`` (metres of deposited
    material) and ``flow`` (upstream square metres); their defaults leave the rule off.
    Ranges: :data:`LIMITS`.
    """

    name: str = "Layer"
    prop: str = "rock"
    variants: int = 3
    radius: float = 4.0
    radius_max: float = 0.0
    height_range: tuple[float, float] = (-100_000.0, 100_000.0)
    slope_range: tuple[float, float] = (0.0, 90.0)
    patchiness: float = 0.0
    patch_scale: float = 60.0
    above_sea: bool = True
    keep_away: float = 0.0
    scale_range: tuple[float, float] = (0.8, 1.2)
    align: float = 0.0
    max_tilt: float = 20.0
    sink: float = 0.0
    unity_tree: bool = False
    unity_detail: float = 0.0
    biomes: tuple[tuple[str, float], ...] = ()
    deposits: tuple[float, float] = (0.0, DEPOSITS[1])
    flow: tuple[float, float] = (0.0, FLOW[1])


def from_dict(data: Mapping[str, Any], *, prefix: str = "scatter.") -> LayerSpec:
    """A validated :class:`LayerSpec` from a dict (unknown keys refused, with a suggestion).

    >>> from_dict({"prop": "grass", "radius": 1.5}).radius
    1.5
    >>> try:
    ...     from_dict({"prop": "rok"})
    ... except ParameterError as err:
    ...     print(str(err).split(", got ")[1])
    'rok' (did you mean 'rock'?)
    """
    spec = from_table(LayerSpec, LIMITS, data, prefix=prefix)
    if spec.radius_max and not spec.radius <= spec.radius_max <= RADIUS_RATIO * spec.radius:
        raise ParameterError(
            f"{prefix}radius_max must be 0 (off) or between radius and {RADIUS_RATIO:g} x radius "
            f"[{spec.radius:g}, {RADIUS_RATIO * spec.radius:g}], got {spec.radius_max:g}"
        )
    return spec


def to_dict(spec: LayerSpec) -> dict[str, Any]:
    """The layer as a dict of plain TOML values (``biomes`` as ``{name = weight}``)."""
    table = to_table(spec)
    table["biomes"] = dict(spec.biomes)
    return table


def _quoted(table: Mapping[str, Any]) -> dict[str, Any]:
    """Inline tables' keys that are not bare TOML keys (biome names such as "bare rock") quoted."""
    return {
        key: {k if _BARE_KEY.fullmatch(k) else json.dumps(k, ensure_ascii=False): v for k, v in value.items()}
        if isinstance(value, dict)
        else value
        for key, value in table.items()
    }


def dumps_layer(spec: LayerSpec) -> str:
    """The layer as TOML text (one ``[[scatter]]`` table's body).

    >>> loads_layer(dumps_layer(LayerSpec(biomes=(("bare rock", 0.5),)))).biomes
    (('bare rock', 0.5),)
    """
    return "\n".join(toml_table(_quoted(to_dict(spec)))) + "\n"


def loads_layer(text: str, *, source: str = "scatter layer") -> LayerSpec:
    """Inverse of :func:`dumps_layer`."""
    return from_dict(parse_toml(text, source=source), prefix=f"{source}: ")


def check_prop_count(layers: Iterable[LayerSpec], *, size: float) -> None:
    """Refuse, before any work, a layer whose spacing would place more than :data:`MAX_PROPS` props on a
    square terrain of ``size`` metres, naming the smallest spacing that fits.

    >>> try:
    ...     check_prop_count([LayerSpec(name="Grass", radius=0.05)], size=1024.0)
    ... except ParameterError as err:
    ...     print(err)  # doctest: +NORMALIZE_WHITESPACE
    scatter layer 'Grass': radius 0.05 m would place about 293,601,280 props on a 1024 m terrain,
    more than 2,000,000; use a radius of at least 0.606 m
    """
    for spec in layers:
        estimate = 0.7 * size * size / (spec.radius * spec.radius)
        if estimate > MAX_PROPS:
            lowest = math.sqrt(0.7 * size * size / MAX_PROPS)
            raise ParameterError(
                f"scatter layer {spec.name!r}: radius {spec.radius:g} m would place about "
                f"{estimate:,.0f} props on a {size:g} m terrain, more than {MAX_PROPS:,}; "
                f"use a radius of at least {lowest:.3g} m"
            )


#: Good starting values per built-in prop (the sidebar's Add Layer uses them).
SUGGESTED = {
    "tree": dict(
        radius=9.0,
        slope_range=(0.0, 30.0),
        scale_range=(0.85, 1.15),
        align=0.0,
        max_tilt=5.0,
        sink=0.1,
        unity_tree=True,
        variants=3,
    ),
    "rock": dict(
        radius=5.0,
        slope_range=(0.0, 90.0),
        scale_range=(0.6, 1.8),
        align=1.0,
        max_tilt=35.0,
        sink=0.15,
        patchiness=0.4,
        variants=4,
    ),
    "grass": dict(
        radius=1.2,
        slope_range=(0.0, 35.0),
        scale_range=(0.7, 1.3),
        align=0.7,
        max_tilt=20.0,
        sink=0.02,
        patchiness=0.5,
        variants=3,
    ),
}


def suggested_layer(prop: str, *, prefix: str = "builtin: ") -> LayerSpec:
    """A :class:`LayerSpec` with good starting values for the built-in prop or species ``prop``.

    >>> suggested_layer("grass").radius
    1.2
    """
    check_prop(prop, f"{prefix.rstrip(': ') or 'prop'}")
    base = SUGGESTED.get(prop, SUGGESTED["tree"])
    label = {"rock": "Rocks", "grass": "Grass"}.get(prop) or species_spec(prop).name + "s"
    return from_dict({**base, "name": label[:48], "prop": prop})
