"""Scatter layers as recipes write them: ``[[scatter]]`` tables, validated into `LayerSpec`.

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
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, fields

from ._checks import ParameterError, check_bool, check_float, check_limited, check_object_name
from .scatter import RADIUS_RATIO  # largest radius_max / radius the sampler takes
from .tree import NAME_PATTERN

__all__ = ["LayerSpec", "LIMITS", "BUILTIN_PROPS", "layer_spec", "layer_spec_dict", "MAX_LAYERS", "dumps_layer", "loads_layer"]

BUILTIN_PROPS = ("rock", "grass")
MAX_LAYERS = 16

LIMITS = {
    "variants": ("int", (1, 16)),
    "radius": ("float", (0.05, 10_000.0)),
    "radius_max": ("float", (0.0, 10_000.0)),
    "patchiness": ("float", (0.0, 1.0)),
    "patch_scale": ("float", (0.5, 100_000.0)),
    "keep_away": ("float", (0.0, 10_000.0)),
    "align": ("float", (0.0, 1.0)),
    "max_tilt": ("float", (0.0, 90.0)),
    "sink": ("float", (0.0, 100.0)),
}
_PAIRS = {"height_range": (-100_000.0, 100_000.0), "slope_range": (0.0, 90.0), "scale_range": (0.01, 100.0)}


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
    layer as Unity Terrain tree instances.
    """
    name: str = "Layer"
    prop: str = "rock"
    variants: int = 3
    radius: float = 4.0
    radius_max: float = 0.0
    height_range: tuple = (-100_000.0, 100_000.0)
    slope_range: tuple = (0.0, 90.0)
    patchiness: float = 0.0
    patch_scale: float = 60.0
    above_sea: bool = True
    keep_away: float = 0.0
    scale_range: tuple = (0.8, 1.2)
    align: float = 0.0
    max_tilt: float = 20.0
    sink: float = 0.0
    unity_tree: bool = False


_FIELDS = tuple(f.name for f in fields(LayerSpec))


def _check(key, value, name):
    if key in LIMITS:
        return check_limited(value, name=name, limit=LIMITS[key])
    if key == "name":
        return check_object_name(value, name=name, pattern=NAME_PATTERN)
    if key == "prop":
        from .tree import species_names
        allowed = BUILTIN_PROPS + tuple(species_names())
        if value not in allowed:
            close = difflib.get_close_matches(str(value), allowed, 1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ParameterError(f"{name} must be one of {', '.join(allowed)}, got {value!r}{hint}")
        return value
    if key in _PAIRS:
        try:
            lo, hi = value
        except (TypeError, ValueError):
            raise ParameterError(f"{name} must be a pair [low, high], got {value!r}") from None
        lo = check_float(lo, name=f"{name}[0]", bounds=_PAIRS[key])
        hi = check_float(hi, name=f"{name}[1]", bounds=_PAIRS[key])
        if hi < lo:
            raise ParameterError(f"{name} must have low <= high, got [{lo:g}, {hi:g}]")
        return (lo, hi)
    return check_bool(value, name=name)


def layer_spec(data, *, prefix="scatter."):
    """A validated :class:`LayerSpec` from a dict (unknown keys refused, with a suggestion)."""
    if not isinstance(data, dict):
        raise ParameterError(f"{prefix.rstrip('.')} must be a table of layer keys, got {data!r}")
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        hints = [f"{b!r} -> {m[0]!r}" for b in unknown for m in [difflib.get_close_matches(b, _FIELDS, 1)] if m]
        hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
        raise ParameterError(f"unknown key(s) {unknown} in {prefix.rstrip('.')}{hint}; allowed: {sorted(_FIELDS)}")
    spec = LayerSpec(**{k: _check(k, v, f"{prefix}{k}") for k, v in data.items()})
    if spec.radius_max and not spec.radius <= spec.radius_max <= RADIUS_RATIO * spec.radius:
        raise ParameterError(f"{prefix}radius_max must be 0 (off) or between radius and {RADIUS_RATIO:g} x radius "
                             f"[{spec.radius:g}, {RADIUS_RATIO * spec.radius:g}], got {spec.radius_max:g}")
    return spec


def layer_spec_dict(spec):
    """The layer as a dict of plain TOML values."""
    return {f.name: (list(v) if isinstance(v := getattr(spec, f.name), tuple) else v) for f in fields(spec)}




def dumps_layer(spec):
    """The layer as TOML text (one ``[[scatter]]`` table's body)."""
    from ._toml import toml_table
    return "\n".join(toml_table(layer_spec_dict(spec))) + "\n"


def loads_layer(text, *, source="scatter layer"):
    """Inverse of :func:`dumps_layer`."""
    import tomllib
    try:
        return layer_spec(tomllib.loads(text), prefix=f"{source}: ")
    except tomllib.TOMLDecodeError as err:
        raise ParameterError(f"{source}: not valid TOML: {err}") from None

