"""The Terrain panel's settings: the world name and seed and every terrain field, generated from core's table.

The same definitions (:func:`operators.terrain.terrain_props`) make the Add
Terrain operator's redo panel, so a range is written once, in
``core.terrain.LIMITS``.
"""

import bpy

from ...operators.terrain import terrain_props
from ...operators.terrain_layers import splat_layer_props
from .. import live


class WorldseedSplatLayer(bpy.types.PropertyGroup):
    """One texture layer (``[[splat]]``), fields generated from ``core.splat.LIMITS``."""

    __annotations__ = splat_layer_props(update=live.on_terrain_change)


class WorldseedTerrainSettings(bpy.types.PropertyGroup):
    __annotations__ = {
        **terrain_props(update=live.on_terrain_change),
        "splats": bpy.props.CollectionProperty(type=WorldseedSplatLayer, name="Texture Layers"),
        "active_splat": bpy.props.IntProperty(name="Active Texture Layer", default=0, min=0),
        "height_curve": bpy.props.PointerProperty(
            type=bpy.types.NodeTree, name="Height Curve", description="Node group holding the height curve widget"
        ),
        "auto_update": bpy.props.BoolProperty(
            name="Auto Update",
            default=False,
            description="Rebuild the active Worldseed terrain whenever a setting changes",
        ),
        "preset": bpy.props.StringProperty(name="Preset", default="", description="Last preset applied"),
        "last_error": bpy.props.StringProperty(
            name="Last Error", default="", options={"SKIP_SAVE"}, description="Why the last automatic update failed"
        ),
    }


SETTINGS = WorldseedTerrainSettings
classes = (WorldseedSplatLayer, WorldseedTerrainSettings)
