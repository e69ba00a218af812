"""The terrain's layers in the sidebar: erosion (``[terrain.erosion]``), biomes (``[biomes]``) and the
texture layers (``[[splat]]``), as properties generated from core's limits tables.

Erosion's and the biomes' fields sit in the Terrain settings (and the Add
Terrain operator) under the prefixes ``erosion_`` and ``biomes_``, so one
definition (:func:`layer_props`) makes the sidebar and the redo panel, as
:func:`.terrain.terrain_props` does for the terrain's own fields.  The
texture layers are a list (``settings.splats``) edited with the operators
below.
"""

from ..core import erosion as core_erosion
from ..core import terrain as core_terrain
from ..core.spec import from_attrs
from .bridge.properties import SHOWN_KINDS, props_from_limits

__all__ = [
    "EROSION_PREFIX",
    "EROSION_FIELDS",
    "layer_props",
    "erosion_from_props",
    "add_layer_tables",
    "apply_layers_to_props",
    "Prefixed",
    "classes",
]

EROSION_PREFIX = "erosion_"
#: Erosion fields shown as properties, in the order of ``core.erosion.EROSION_LIMITS``.
EROSION_FIELDS = tuple(n for n, limit in core_erosion.EROSION_LIMITS.items() if limit.kind in SHOWN_KINDS)


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


def _prefixed(props, prefix):
    return {prefix + name: prop for name, prop in props.items()}


def erosion_props(update=None):
    """``{"erosion_<field>": bpy.props...}`` for every shown field of ``core.erosion.EROSION_LIMITS``."""
    props = props_from_limits(
        core_erosion.EROSION_LIMITS, core_erosion.ErosionSpec(), names=EROSION_FIELDS, update=update
    )
    return _prefixed(props, EROSION_PREFIX)


def layer_props(update=None):
    """The erosion and biome fields as properties, each under its prefix (``erosion_droplets_per_km2``)."""
    return {**erosion_props(update=update)}


def erosion_from_props(props):
    """A validated :class:`core.erosion.ErosionSpec` from an object holding :func:`layer_props`."""
    return from_attrs(
        core_erosion.ErosionSpec,
        core_erosion.EROSION_LIMITS,
        Prefixed(props, EROSION_PREFIX),
        prefix="terrain.erosion.",
        fields=EROSION_FIELDS,
    )


def add_layer_tables(data, props):
    """Put the layers held by ``props`` (settings or operator) into the recipe tables ``data``:
    ``data["terrain"]["erosion"]`` (when the terrain has erosion), ``data["biomes"]``, ``data["splat"]``."""
    if "erosion" in core_terrain.LIMITS:
        erosion = erosion_from_props(props)
        if erosion != core_erosion.ErosionSpec():  # as core.terrain.to_dict: no table for the default
            data["terrain"]["erosion"] = core_erosion.erosion_to_dict(erosion)


def apply_layers_to_props(props, recipe):
    """Copy a recipe's erosion (and biome) fields into an object holding :func:`layer_props`."""
    erosion = getattr(recipe.terrain, "erosion", None)
    if erosion is not None:
        for name in EROSION_FIELDS:
            setattr(props, EROSION_PREFIX + name, getattr(erosion, name))


classes = ()
