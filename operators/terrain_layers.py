"""The terrain's layers in the sidebar: erosion (``[terrain.erosion]``), biomes (``[biomes]``) and the
texture layers (``[[splat]]``), as properties generated from core's limits tables.

Erosion's and the biomes' fields sit in the Terrain settings (and the Add
Terrain operator) under the prefixes ``erosion_`` and ``biomes_``, so one
definition (:func:`layer_props`) makes the sidebar and the redo panel, as
:func:`.terrain.terrain_props` does for the terrain's own fields.  The
texture layers are a list (``settings.splats``, one :func:`splat_layer_props`
group each) edited with the operators below; the Add Terrain operator holds
them as JSON text (``splat_json``), copied from the sidebar.
"""

import dataclasses
import json

import bpy

from ..core import biomes as core_biomes
from ..core import erosion as core_erosion
from ..core import splat as core_splat
from ..core.errors import ParameterError
from ..core.spec import from_attrs
from .bridge.properties import SHOWN_KINDS, blend_path, props_from_limits

__all__ = [
    "EROSION_PREFIX",
    "BIOMES_PREFIX",
    "EROSION_FIELDS",
    "BIOMES_FIELDS",
    "SPLAT_FIELDS",
    "layer_props",
    "splat_layer_props",
    "erosion_from_props",
    "biomes_from_props",
    "splat_tables",
    "add_layer_tables",
    "apply_layers_to_props",
    "weights_text",
    "Prefixed",
    "classes",
]

EROSION_PREFIX = "erosion_"
BIOMES_PREFIX = "biomes_"
#: Erosion fields shown as properties, in the order of ``core.erosion.LIMITS``.
EROSION_FIELDS = tuple(n for n, limit in core_erosion.LIMITS.items() if limit.kind in SHOWN_KINDS)
#: Fields given as text in the sidebar (read by core's own checks): a biome table, biome weights.
TEXT_FIELDS = {"table": "a preset name (whittaker) or a .toml file", "biomes": "written 'forest, grassland = 0.25'"}
#: Biome fields shown as properties (the table's name as text).
BIOMES_FIELDS = tuple(n for n, limit in core_biomes.LIMITS.items() if limit.kind in SHOWN_KINDS or n in TEXT_FIELDS)
#: Texture layer fields shown as properties (the biomes as text).
SPLAT_FIELDS = tuple(n for n, limit in core_splat.LIMITS.items() if limit.kind in SHOWN_KINDS or n in TEXT_FIELDS)
#: Most texture layers (Unity's terrain takes any number; each 4 are one splat image).
MAX_SPLATS = 16


class Prefixed:
    """The attributes ``<prefix><name>`` of ``obj`` seen as ``<name>`` (for ``core.spec.from_attrs``).

    >>> class Settings:
    ...     erosion_droplets = 5
    >>> Prefixed(Settings(), "erosion_").droplets
    5
    """

    def __init__(self, obj, prefix):
        self._obj, self._prefix = obj, prefix

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._obj, self._prefix + name)


def weights_text(value):
    """Biome weights (``{name: weight}`` or ``(name, weight)`` pairs or names) as the sidebar's text.

    >>> weights_text({"forest": 1.0, "grassland": 0.25})
    'forest, grassland = 0.25'
    """
    pairs = value.items() if isinstance(value, dict) else [(v, 1.0) if isinstance(v, str) else v for v in value]
    return ", ".join(name if weight == 1.0 else f"{name} = {weight:g}" for name, weight in pairs)


def _props(limits, defaults, names, update):
    """Properties of ``names``: generated from ``limits``, the text fields as StringProperties."""
    props = props_from_limits(limits, defaults, names=[n for n in names if n not in TEXT_FIELDS], update=update)
    for name in names:
        if name in TEXT_FIELDS:
            limit = limits[name]
            value = getattr(defaults, name)
            props[name] = bpy.props.StringProperty(
                name=limit.label,
                description=f"{limit.description}; {TEXT_FIELDS[name]}",
                default=value if isinstance(value, str) else weights_text(value),
                **({"update": update} if update is not None else {}),
            )
    ordered = {name: props[name] for name in names}
    if "texture" in ordered:  # a file browser for the texture
        limit = limits["texture"]
        ordered["texture"] = bpy.props.StringProperty(
            name=limit.label,
            description=limit.description,
            default="",
            subtype="FILE_PATH",
            **({"options": {"PATH_SUPPORTS_BLEND_RELATIVE"}} if bpy.app.version >= (4, 5, 0) else {}),
            **({"update": update} if update is not None else {}),
        )
    return ordered


def _prefixed(props, prefix):
    return {prefix + name: prop for name, prop in props.items()}


def layer_props(update=None):
    """The erosion and biome fields as properties, each under its prefix (``erosion_droplets_per_km2``)."""
    return {
        **_prefixed(_props(core_erosion.LIMITS, core_erosion.ErosionSpec(), EROSION_FIELDS, update), EROSION_PREFIX),
        **_prefixed(_props(core_biomes.LIMITS, core_biomes.BiomesSpec(), BIOMES_FIELDS, update), BIOMES_PREFIX),
    }


def splat_layer_props(update=None):
    """``{name: bpy.props...}`` of one texture layer (:class:`core.splat.SplatSpec`)."""
    return _props(core_splat.LIMITS, core_splat.SplatSpec(), SPLAT_FIELDS, update)


def erosion_from_props(props):
    """A validated :class:`core.erosion.ErosionSpec` from an object holding :func:`layer_props`."""
    return from_attrs(
        core_erosion.ErosionSpec,
        core_erosion.LIMITS,
        Prefixed(props, EROSION_PREFIX),
        prefix="terrain.erosion.",
        fields=EROSION_FIELDS,
    )


def biomes_from_props(props):
    """A validated :class:`core.biomes.BiomesSpec` from an object holding :func:`layer_props`."""
    spec = from_attrs(
        core_biomes.BiomesSpec,
        core_biomes.LIMITS,
        Prefixed(props, BIOMES_PREFIX),
        prefix="biomes.",
        fields=BIOMES_FIELDS,
    )
    return dataclasses.replace(spec, table=blend_path(spec.table)) if core_biomes.is_table_path(spec.table) else spec


def splat_tables(props):
    """The ``[[splat]]`` tables of the texture layers held by ``props``: the sidebar's list
    (``splats``) or the operator's JSON text (``splat_json``); each checked, errors naming the layer."""
    if hasattr(props, "splats"):
        tables = []
        for i, layer in enumerate(props.splats):
            spec = from_attrs(
                core_splat.SplatSpec,
                core_splat.LIMITS,
                layer,
                prefix=f"texture layer {i + 1} ({layer.name!r}): ",
                fields=SPLAT_FIELDS,
            )
            tables.append(core_splat.to_dict(dataclasses.replace(spec, texture=blend_path(spec.texture))))
        return tables
    text = getattr(props, "splat_json", "") or "[]"
    try:
        tables = json.loads(text)
    except ValueError as err:
        raise ParameterError(f"texture layers: not valid JSON ({err})") from None
    return tables


def add_layer_tables(data, props):
    """Put the layers held by ``props`` (settings or operator) into the recipe tables ``data``:
    ``data["terrain"]["erosion"]``, ``data["biomes"]`` and ``data["splat"]`` (each when not the default)."""
    erosion = erosion_from_props(props)
    if erosion != core_erosion.ErosionSpec():  # as core.terrain.to_dict: no table for the default
        data["terrain"]["erosion"] = core_erosion.to_dict(erosion)
    biomes = biomes_from_props(props)
    if biomes != core_biomes.BiomesSpec():
        data["biomes"] = core_biomes.to_dict(biomes)
    tables = splat_tables(props)
    if tables:
        data["splat"] = tables


def _set(props, prefix, names, spec):
    for name in names:
        value = getattr(spec, name)
        setattr(props, prefix + name, weights_text(value) if name == "biomes" else value)


def apply_layers_to_props(props, recipe):
    """Copy a recipe's erosion, biome and texture layer fields into an object holding :func:`layer_props`
    (the texture layers only into the sidebar's list)."""
    erosion = getattr(recipe.terrain, "erosion", None)
    if erosion is not None:
        _set(props, EROSION_PREFIX, EROSION_FIELDS, erosion)
    biomes = getattr(recipe, "biomes", None)
    if biomes is not None:
        _set(props, BIOMES_PREFIX, BIOMES_FIELDS, biomes)
    splats = getattr(recipe, "splat", None)
    if splats is not None and hasattr(props, "splats"):
        props.splats.clear()
        for spec in splats:
            _set(props.splats.add(), "", SPLAT_FIELDS, spec)
        props.active_splat = 0


def splat_json(settings):
    """The sidebar's texture layers as the Add Terrain operator holds them."""
    return json.dumps(splat_tables(settings))


# --------------------------------------------------------------------------- list operators


class WORLDSEED_OT_splat_layer_add(bpy.types.Operator):
    """Add a texture layer: painted over the layers before it where its rules hold (the first is the ground)"""

    bl_idname = "worldseed.splat_layer_add"
    bl_label = "Add Texture Layer"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return len(context.scene.worldseed.terrain.splats) < MAX_SPLATS

    def execute(self, context):
        settings = context.scene.worldseed.terrain
        taken = {layer.name for layer in settings.splats}
        layer = settings.splats.add()
        _set(layer, "", SPLAT_FIELDS, core_splat.SplatSpec())
        base = "Ground" if len(settings.splats) == 1 else "Layer"
        name, k = base, 1
        while name in taken:
            k += 1
            name = f"{base} {k}"
        layer.name = name
        settings.active_splat = len(settings.splats) - 1
        return {"FINISHED"}


class WORLDSEED_OT_splat_layer_remove(bpy.types.Operator):
    """Remove the active texture layer"""

    bl_idname = "worldseed.splat_layer_remove"
    bl_label = "Remove Texture Layer"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return len(context.scene.worldseed.terrain.splats) > 0

    def execute(self, context):
        settings = context.scene.worldseed.terrain
        settings.splats.remove(settings.active_splat)
        settings.active_splat = max(0, min(settings.active_splat, len(settings.splats) - 1))
        return {"FINISHED"}


class WORLDSEED_OT_splat_layer_move(bpy.types.Operator):
    """Move the active texture layer up or down (later layers are painted over earlier ones)"""

    bl_idname = "worldseed.splat_layer_move"
    bl_label = "Move Texture Layer"
    bl_options = {"REGISTER", "UNDO"}

    direction: bpy.props.EnumProperty(items=[("UP", "Up", "Earlier"), ("DOWN", "Down", "Later")], name="Direction")

    @classmethod
    def poll(cls, context):
        return len(context.scene.worldseed.terrain.splats) > 1

    def execute(self, context):
        settings = context.scene.worldseed.terrain
        i = settings.active_splat
        j = i - 1 if self.direction == "UP" else i + 1
        if not 0 <= j < len(settings.splats):
            return {"CANCELLED"}
        settings.splats.move(i, j)
        settings.active_splat = j
        return {"FINISHED"}


classes = (WORLDSEED_OT_splat_layer_add, WORLDSEED_OT_splat_layer_remove, WORLDSEED_OT_splat_layer_move)
