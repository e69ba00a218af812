"""``[biomes]`` and ``[[splat]]``: the biome map and the texture layers, their fields and limits.

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

    [[splat]]                    # layer 0: the ground, everywhere the later layers leave room
    name = "Grass"
    color = [0.10, 0.25, 0.05]

    [[splat]]                    # painted over the layers before it
    name = "Rock"
    color = [0.25, 0.23, 0.21]
    slope_range = [30.0, 90.0]
    slope_fade = 8.0

The ranges are the engines' own (:mod:`._climate`, :mod:`._splats`): a recipe, the sidebar and a
direct call accept the same values.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from .._checks import check_float
from ..errors import ParameterError, short
from ..files import open_regular
from ..spec import colour, custom, flag, from_table, number, object_name, span, text, to_table
from ._climate import FLOW_LINE_AREA, LAPSE, MOISTURE_SCALE, REACH, WEIGHT
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
from ._table import MAX_BIOMES

__all__ = [
    "BiomesSpec",
    "BIOMES_LIMITS",
    "SplatSpec",
    "SPLAT_LIMITS",
    "biomes_from_dict",
    "biomes_to_dict",
    "moisture_kwargs",
    "splat_from_dict",
    "splat_to_dict",
    "splats_from_list",
    "check_biome_weights",
    "check_table_ref",
    "TEXTURE_FORMATS",
    "MAX_TEXTURE_BYTES",
    "texture_format",
    "read_texture",
]

#: The image files a texture layer may name, by their first bytes (file extension: magic bytes):
#: PNG and JPEG, which Blender and Unity both read.
TEXTURE_FORMATS = {"png": b"\x89PNG\r\n\x1a\n", "jpg": b"\xff\xd8\xff"}

#: Largest texture file copied into the Unity package (bytes): an 8K RGBA PNG is ~100 MB at most.
MAX_TEXTURE_BYTES = 256 * 1024 * 1024


def _texture_head(path, name, size, shown=None):
    """The first ``size`` bytes of the regular file ``path`` (``size=None``: all of it, checked
    against :data:`MAX_TEXTURE_BYTES`), and its extension in :data:`TEXTURE_FORMATS`.  Errors
    name ``shown`` (what the user wrote; default ``path``)."""
    allowed = "a PNG or JPEG image file"
    shown = short(str(path) if shown is None else shown, 300)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise ParameterError(f"{name} {shown} is not a file; it must be {allowed}")
        if size is None and info.st_size > MAX_TEXTURE_BYTES:
            raise ParameterError(
                f"{name} {shown} is {info.st_size:,} bytes; a texture may be at most {MAX_TEXTURE_BYTES:,}"
            )
        f = open_regular(path)  # what was opened is checked too: a FIFO put there since cannot hang
        if f is None:
            raise ParameterError(f"{name} {shown} is not a file; it must be {allowed}")
        with f:
            data = f.read(size if size is not None else MAX_TEXTURE_BYTES + 1)
    except OSError as err:
        raise ParameterError(f"{name} {shown} cannot be read ({err.strerror}); it must be {allowed}") from None
    if size is None and len(data) > MAX_TEXTURE_BYTES:
        raise ParameterError(f"{name} {shown} is larger than {MAX_TEXTURE_BYTES:,} bytes, a texture's most")
    for ext, magic in TEXTURE_FORMATS.items():
        if data.startswith(magic):
            return ext, data
    raise ParameterError(f"{name} {shown} is not a PNG or JPEG image (by its first bytes); it must be {allowed}")


def texture_format(path, *, name="texture", shown=None):
    """``"png"`` or ``"jpg"``: the format of the image file ``path`` by its first bytes (not its
    name); a :class:`ParameterError` naming ``name`` and ``shown`` (the value as the user wrote
    it; default ``path``) for anything else (missing, a folder, a text file ...)."""
    return _texture_head(path, name, len(max(TEXTURE_FORMATS.values(), key=len)), shown)[0]


def read_texture(path, *, name="texture"):
    """``(ext, bytes)`` of the texture file ``path`` (checked as :func:`texture_format`; at most
    :data:`MAX_TEXTURE_BYTES`), for a copy in the Unity package."""
    return _texture_head(path, name, None)


def check_table_ref(value, name):
    """A biome table: a preset stem (``"whittaker"``) or a path to a ``.toml`` file (1 to 1024 characters)."""
    if not isinstance(value, str) or not value.strip() or len(value) > 1024:
        raise ParameterError(f"{name} must be a preset name or a .toml path (1 to 1024 characters), got {short(value)}")
    return value


def check_biome_weights(value, name):
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
BIOMES_LIMITS = {
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
    """``[biomes]``: the biome map of the terrain. Ranges: :data:`BIOMES_LIMITS`.

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


#: Every field of :class:`SplatSpec`.
SPLAT_LIMITS = {
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
    "patchiness": number(UNIT, "Patchiness", "Share of the allowed ground left to the layers below by noise"),
    "noise_scale": number(NOISE_SCALE, "Patch Size", "Size of the patches", unit="m", soft=(1.0, 4096.0)),
    "noise_fade": number(UNIT, "Patch Fade", "Blend width at the patch edges (share of the noise range)"),
    "strength": number(UNIT, "Strength", "Opacity of the layer over the layers before it"),
}


@dataclass(frozen=True)
class SplatSpec:
    """``[[splat]]``: one texture layer. Ranges: :data:`SPLAT_LIMITS`.

    Layer 0 is the ground (it takes whatever the later layers leave, its rules are not used);
    every later layer is painted over the ones before it with the product of its rules as
    opacity (see :func:`core.biomes.splat_weights`).

    >>> SplatSpec(name="Rock", slope_range=(30.0, 90.0)).slope_fade
    5.0
    """

    name: str = "Layer"
    color: tuple = (0.5, 0.5, 0.5)
    texture: str = ""
    tile_size: float = 10.0
    height_range: tuple = (HEIGHT[0], HEIGHT[1])
    height_fade: float = 2.0
    slope_range: tuple = (0.0, 90.0)
    slope_fade: float = 5.0
    biomes: tuple = ()
    biome_fade: float = 8.0
    deposits: float = 0.0
    deposit_depth: float = 0.5
    flow: float = 0.0
    flow_range: tuple = (500.0, 50_000.0)
    patchiness: float = 0.0
    noise_scale: float = 32.0
    noise_fade: float = 0.1
    strength: float = 1.0


def biomes_from_dict(table, *, prefix="biomes."):
    """A validated :class:`BiomesSpec` from a ``[biomes]`` table."""
    return from_table(BiomesSpec, BIOMES_LIMITS, table, prefix=prefix)


def moisture_kwargs(spec):
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


def biomes_to_dict(spec):
    """The spec as a table of plain TOML values."""
    return to_table(spec)


def splat_from_dict(table, *, prefix="splat[0]."):
    """A validated :class:`SplatSpec` from one ``[[splat]]`` table."""
    spec = from_table(SplatSpec, SPLAT_LIMITS, table, prefix=prefix)
    lo, hi = spec.flow_range
    if not 0.0 < lo < hi:
        raise ParameterError(f"{prefix}flow_range must have 0 < low < high, got [{lo:g}, {hi:g}]")
    return spec


def splat_to_dict(spec):
    """The spec as a table of plain TOML values (``biomes`` as ``{name = weight}``, or a list of
    names when every weight is 1)."""
    out = to_table(spec)
    if all(w == 1.0 for _, w in spec.biomes):
        out["biomes"] = [n for n, _ in spec.biomes]
    else:
        out["biomes"] = {n: w for n, w in spec.biomes}
    return out


def splats_from_list(tables, *, key="splat"):
    """The ``[[splat]]`` array: at most ``MAX_LAYERS`` layers with different names."""
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ParameterError(f"{key} must be an array of tables ([[{key}]]), got {short(tables)}")
    if len(tables) > MAX_LAYERS:
        raise ParameterError(f"{key} has {len(tables)} layers, at most {MAX_LAYERS} are allowed")
    layers = [splat_from_dict(t, prefix=f"{key}[{i}].") for i, t in enumerate(tables)]
    seen = {}
    for i, layer in enumerate(layers):
        if layer.name in seen:
            raise ParameterError(f"{key}[{i}].name {layer.name!r} is used by {key}[{seen[layer.name]}] too")
        seen[layer.name] = i
    return tuple(layers)
