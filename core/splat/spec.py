"""``[[splat]]``: one texture layer of the terrain, its fields and limits.

::

    [[splat]]                    # layer 0: the ground, everywhere the later layers leave room
    name = "Grass"
    color = [0.10, 0.25, 0.05]

    [[splat]]                    # painted over the layers before it
    name = "Rock"
    color = [0.25, 0.23, 0.21]
    slope_range = [30.0, 90.0]
    slope_fade = 8.0

    [[splat]]
    name = "Snow"
    texture = "textures/snow.png"   # a PNG or JPEG inside the recipe's folder
    biomes = ["snow"]               # names of the [biomes] table (see core.biomes)

The ranges are the engine's own (:mod:`._limits`, used by :mod:`._weights`): a recipe, the sidebar
and a direct call accept the same values.
"""

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..biomes import check_biome_weights
from ..errors import ParameterError, short
from ..spec import colour, custom, from_table, number, object_name, span, text, to_table
from ..unity_package import texture_format
from ._limits import (
    DEPOSIT_DEPTH,
    FADE_DEG,
    FADE_M,
    FLOW_AREA,
    HEIGHT,
    MAX_LAYERS,
    NOISE_SCALE,
    RULE_WEIGHT,
    SLOPE,
    TILE_SIZE,
    UNIT,
)

__all__ = [
    "SplatSpec",
    "LIMITS",
    "MAX_LAYERS",
    "from_dict",
    "to_dict",
    "splats_from_list",
    "texture_path",
]


#: Every field of :class:`SplatSpec`.
LIMITS = {
    "name": object_name("Name", "Texture layer name (also in the Unity terrain file)"),
    "color": colour("Color", "Flat colour of the layer (linear RGB) where it has no texture"),
    "texture": text(1024, "Texture", "Image file of the layer (relative to the recipe; empty: the flat colour)"),
    "tile_size": number(TILE_SIZE, "Tile Size", "Size of one repeat of the texture", unit="m", soft=(0.1, 100.0)),
    "height_range": span(HEIGHT, "Height Range", "Heights the layer covers (metres)", soft=(-1000.0, 10_000.0)),
    "height_fade": number(FADE_M, "Height Fade", "Blend width at the height limits", unit="m", soft=(0.0, 100.0)),
    "slope_range": span(SLOPE, "Slope Range", "Slopes the layer covers (degrees)"),
    "slope_fade": number(FADE_DEG, "Slope Fade", "Blend width at the slope limits (degrees)", unit="deg"),
    "biomes": custom(
        check_biome_weights,
        "Biomes",
        "Biomes the layer covers: a list of names, or {name = weight} with weights in [0, 1] (empty: all)",
    ),
    "biome_fade": number(FADE_M, "Biome Fade", "Blend width across biome borders", unit="m", soft=(0.0, 100.0)),
    "deposits": number(
        RULE_WEIGHT, "Deposits", "Follow erosion deposits: 1 only on deposits, -1 never on them, 0 ignore"
    ),
    "deposit_depth": number(
        DEPOSIT_DEPTH, "Deposit Depth", "Deposited depth at which the layer is full", unit="m", soft=(0.001, 10.0)
    ),
    "flow": number(RULE_WEIGHT, "Flow", "Follow water flow: 1 only along flow lines, -1 never on them, 0 ignore"),
    "flow_range": span(
        FLOW_AREA,
        "Flow Range",
        "Upstream areas (square metres) where the flow rule starts and where it is full",
        soft=(1.0, 1.0e7),
    ),
    "river": number(RULE_WEIGHT, "River", "Follow the rivers' water: 1 only in it, -1 never in it, 0 ignore"),
    "bank": number(RULE_WEIGHT, "Bank", "Follow the river banks: 1 only on them, -1 never on them, 0 ignore"),
    "road": number(RULE_WEIGHT, "Road", "Follow the roads: 1 only on them, -1 never on them, 0 ignore"),
    "trail": number(
        RULE_WEIGHT, "Trail", "Follow the game trails (the ecosystem's wear): 1 only on them, -1 never, 0 ignore"
    ),
    "patchiness": number(UNIT, "Patchiness", "Share of the allowed ground left to the layers below by noise"),
    "noise_scale": number(NOISE_SCALE, "Patch Size", "Size of the patches", unit="m", soft=(1.0, 4096.0)),
    "noise_fade": number(UNIT, "Patch Fade", "Blend width at the patch edges (share of the noise range)"),
    "strength": number(UNIT, "Strength", "Opacity of the layer over the layers before it"),
}


@dataclass(frozen=True)
class SplatSpec:
    """``[[splat]]``: one texture layer. Ranges: :data:`LIMITS`.

    Layer 0 is the ground (it takes whatever the later layers leave, its rules are not used);
    every later layer is painted over the ones before it with the product of its rules as
    opacity (see :func:`core.splat.splat_weights`).

    >>> SplatSpec(name="Rock", slope_range=(30.0, 90.0)).slope_fade
    5.0
    """

    name: str = "Layer"
    color: tuple[float, float, float] = (0.5, 0.5, 0.5)
    texture: str = ""
    tile_size: float = 10.0
    height_range: tuple[float, float] = (HEIGHT[0], HEIGHT[1])
    height_fade: float = 2.0
    slope_range: tuple[float, float] = (0.0, 90.0)
    slope_fade: float = 5.0
    biomes: tuple[tuple[str, float], ...] = ()
    biome_fade: float = 8.0
    deposits: float = 0.0
    deposit_depth: float = 0.5
    flow: float = 0.0
    flow_range: tuple[float, float] = (500.0, 50_000.0)
    river: float = 0.0
    bank: float = 0.0
    road: float = 0.0
    trail: float = 0.0
    patchiness: float = 0.0
    noise_scale: float = 32.0
    noise_fade: float = 0.1
    strength: float = 1.0


def from_dict(table: Mapping[str, Any], *, prefix: str = "splat[0].", base: str | None = None) -> SplatSpec:
    """A validated :class:`SplatSpec` from one ``[[splat]]`` table.

    Its ``texture`` is checked (a PNG or JPEG inside the recipe's folder ``base``, see
    :func:`texture_path`) and kept absolute; ``base=None`` (the sidebar, a direct call): the
    current folder.
    """
    spec = from_table(SplatSpec, LIMITS, table, prefix=prefix)
    lo, hi = spec.flow_range
    if not 0.0 < lo < hi:
        raise ParameterError(f"{prefix}flow_range must have 0 < low < high, got [{lo:g}, {hi:g}]")
    if not spec.texture:
        return spec
    return dataclasses.replace(spec, texture=texture_path(spec.texture, base, f"{prefix}texture"))


def to_dict(spec: SplatSpec) -> dict[str, Any]:
    """The spec as a table of plain TOML values (``biomes`` as ``{name = weight}``, or a list of
    names when every weight is 1)."""
    out = to_table(spec)
    if all(w == 1.0 for _, w in spec.biomes):
        out["biomes"] = [n for n, _ in spec.biomes]
    else:
        out["biomes"] = {n: w for n, w in spec.biomes}
    return out


def texture_path(value: str, base: str | None, name: str) -> str:
    """A ``[[splat]]`` texture checked and made absolute: in a recipe file (``base``, its folder) a
    relative path that stays inside that folder once ``..`` and links are resolved (kept as the
    resolved path); without a folder (the sidebar, a direct call) an absolute path as the artist
    picked it, or a relative one inside the current folder (kept as written).  Either way a PNG or
    JPEG file by its first bytes."""
    where = "the recipe's folder" if base is not None else "the current folder"
    inside = f"a PNG or JPEG file given as a relative path inside {where}"
    if "\x00" in value:
        raise ParameterError(f"{name} {short(value)} must be {inside} (no NUL characters)")
    if base is not None and os.path.isabs(value):
        raise ParameterError(f"{name} {short(value)} must be {inside} ({short(base, 200)}), not an absolute path")
    if base is not None or not os.path.isabs(value):
        folder = os.path.realpath(base if base is not None else os.getcwd())
        path = os.path.realpath(os.path.join(folder, value))
        if os.path.commonpath([folder, path]) != folder:
            raise ParameterError(
                f"{name} {short(value)} leads out of its folder ({short(folder, 200)}, through '..' or a link); "
                f"it must be {inside}"
            )
        value = path if base is not None else value
    else:
        path = value
    texture_format(path, name=name, shown=value)
    return value


def splats_from_list(tables: Sequence[Mapping[str, Any]], *, key: str = "splat") -> tuple[SplatSpec, ...]:
    """The ``[[splat]]`` array: at most ``MAX_LAYERS`` layers with different names."""
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ParameterError(f"{key} must be an array of tables ([[{key}]]), got {short(tables)}")
    if len(tables) > MAX_LAYERS:
        raise ParameterError(f"{key} has {len(tables)} layers, at most {MAX_LAYERS} are allowed")
    layers = [from_dict(t, prefix=f"{key}[{i}].") for i, t in enumerate(tables)]
    seen: dict[str, int] = {}
    for i, layer in enumerate(layers):
        if layer.name in seen:
            raise ParameterError(f"{key}[{i}].name {layer.name!r} is used by {key}[{seen[layer.name]}] too")
        seen[layer.name] = i
    return tuple(layers)
