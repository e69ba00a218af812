"""The Levels panel's settings: every level field, generated from ``core.levels.LIMITS``, plus how the
level becomes geometry (its own mesh, or the modules of a kit collection).

The same definitions (:func:`operators.level.level_props`) make the Add Level
operator's redo panel, so a range is written once, in ``core.levels.LIMITS``.
"""

import bpy

from ...operators.level import GEOMETRY_ITEMS, level_props
from .. import live


class WorldseedLevelSettings(bpy.types.PropertyGroup):
    __annotations__ = {
        **level_props(update=live.on_level_change),
        "geometry": bpy.props.EnumProperty(
            name="Geometry",
            items=GEOMETRY_ITEMS,
            default="MESH",
            update=live.on_level_change,
            description="How the level becomes geometry",
        ),
        "kit": bpy.props.PointerProperty(
            type=bpy.types.Collection,
            name="Kit",
            update=live.on_level_change,
            description="Modules named by role: floor, wall, outer corner, inner corner, wall end, door, pillar",
        ),
        "auto_update": bpy.props.BoolProperty(
            name="Auto Update",
            default=False,
            description="Rebuild the active Worldseed level whenever a setting changes",
        ),
        "last_error": bpy.props.StringProperty(
            name="Last Error", default="", options={"SKIP_SAVE"}, description="Why the last automatic update failed"
        ),
    }


SETTINGS = WorldseedLevelSettings
classes = (WorldseedLevelSettings,)
