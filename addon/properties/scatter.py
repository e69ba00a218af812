"""The Scatter panel's settings: a list of prop layers, each generated from ``core.scatter.LIMITS``.

Each layer's fields mirror one ``[[scatter]]`` entry of a recipe, with the
same ranges, so the sidebar, the operator and a headless run scatter the
same props.  Blender adds the artist's own props: a collection or an object.
"""

import bpy

from ...core import scatter as core_scatter
from ...operators.scatter import layer_props
from ...operators.trees import species_items
from .. import live

_BUILTIN_ITEMS: list[tuple[str, str, str]] = []


def builtin_items(self=None, context=None):
    """Enum items of the built-in props: rock, grass and every tree species (kept alive for Blender)."""
    if not _BUILTIN_ITEMS:
        _BUILTIN_ITEMS.extend(
            [("rock", "Rock", "Noise-displaced rocks"), ("grass", "Grass", "Clumps of crossed grass cards")]
        )
        _BUILTIN_ITEMS.extend((name, f"Tree: {label}", desc) for name, label, desc in species_items())
    return _BUILTIN_ITEMS


assert tuple(i[0] for i in builtin_items()[:2]) == core_scatter.BUILTIN_PROPS


class WorldseedScatterLayer(bpy.types.PropertyGroup):
    __annotations__ = {
        **layer_props(update=live.on_scatter_change),
        "source": bpy.props.EnumProperty(
            name="Props",
            default="BUILTIN",
            description="Where the layer's props come from",
            items=[
                ("BUILTIN", "Built-in", "Rocks, grass or trees made by Worldseed"),
                ("COLLECTION", "Collection", "Every object of a collection, picked at random"),
                ("OBJECT", "Object", "One object"),
            ],
            update=live.on_scatter_change,
        ),
        "builtin": bpy.props.EnumProperty(
            name="Built-in", items=builtin_items, update=live.on_scatter_change, description="Which built-in prop"
        ),
        "collection": bpy.props.PointerProperty(
            type=bpy.types.Collection, name="Collection", description="Props to scatter (each instance picks one)"
        ),
        "object": bpy.props.PointerProperty(type=bpy.types.Object, name="Object", description="Prop to scatter"),
    }


class WorldseedScatterSettings(bpy.types.PropertyGroup):
    layers: bpy.props.CollectionProperty(type=WorldseedScatterLayer)
    active_layer: bpy.props.IntProperty(name="Active Layer", default=0, min=0)
    seed: bpy.props.IntProperty(
        name="Seed",
        default=0,
        min=0,
        max=2**31 - 1,
        update=live.on_scatter_change,
        description="Random seed of the scatter: positions, variants, yaw, scale",
    )
    auto_update: bpy.props.BoolProperty(
        name="Auto Update", default=False, description="Re-scatter the active scatter whenever a layer setting changes"
    )
    last_error: bpy.props.StringProperty(
        name="Last Error", default="", options={"SKIP_SAVE"}, description="Why the last automatic re-scatter failed"
    )


SETTINGS = WorldseedScatterSettings
classes = (WorldseedScatterLayer, WorldseedScatterSettings)
