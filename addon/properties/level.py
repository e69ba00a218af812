"""The Levels panel's settings: every level field, generated from ``core.levels.LIMITS``, plus how the
level becomes geometry (its own mesh, or the modules of a kit collection) and the WFC generators'
own ways to name their tileset and sample (presets, files, an image of the .blend), their tables as
text (classes, connect points, counts) and tile objects.

The same definitions (:func:`operators.level.level_props`) make the Add Level
operator's redo panel, so a range is written once, in ``core.levels.LIMITS``.
"""

import bpy

from ...operators.bridge.query import level_generator_fields
from ...operators.level import GEOMETRY_ITEMS, WFC_SAMPLED, WFC_TILED, level_props, live_rebuilds, wfc_settings_props
from .. import live


class WorldseedLevelSettings(bpy.types.PropertyGroup):
    __annotations__ = {
        **level_props(update=live.on_level_change),
        **wfc_settings_props(update=live.on_level_change),
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

    # read-only look-ups for the panel (which imports no operators)
    def uses_wfc_tileset(self):
        """True when the generator takes a WFC tileset (``wfc_tileset``)."""
        return self.generator in WFC_TILED

    def uses_sample(self):
        """True when the panel's generator takes a sample."""
        return self.generator in WFC_SAMPLED and self.generator not in WFC_TILED

    def uses_constraints(self):
        """True when the generator takes the WFC global constraints (connect points, counts)."""
        return self.generator in (*WFC_TILED, *WFC_SAMPLED)

    def live_rebuilds(self):
        """True when Auto Update rebuilds this level (not a large or constrained WFC level)."""
        return live_rebuilds(self)

    def own_fields(self):
        """The generator's own settings the panel draws as plain properties (the WFC tileset, the sample,
        its classes and the constraints' text have widgets of their own)."""
        own = level_generator_fields(self.generator)
        return tuple(
            n for n in own if n not in ("wfc_tileset", "sample", "classes", "connect_points", "counts", "fixed")
        )


SETTINGS = WorldseedLevelSettings
classes = (WorldseedLevelSettings,)
