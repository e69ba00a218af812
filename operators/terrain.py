"""Terrain operators: add, rebuild in place, new seed, load settings, height curve, presets, texture layers.

Operators only gather a recipe from the Terrain panel (or their redo panel) through the terrain's
adapter (``bridge.sections.TerrainAdapter``) and hand it to :mod:`.bridge.terrain`. Large builds run
as a modal operator with Blender's progress indicator and can be cancelled with Esc; the redo panel
re-runs ``execute`` with the edited properties.
"""

import json

import bpy

from .bridge import curve, presets, sections
from .bridge import terrain as bridge_terrain
from .common import (
    FamilyOperator,
    LoadSettings,
    ModalBuild,
    Rebuild,
    Reports,
    Reseed,
    new_seed,
    paused_auto_update,
    select_only,
)

TERRAIN = sections.adapter("terrain")
#: The settings the Add Terrain operator copies from the sidebar and shows in its redo panel.
ADD_PROPS = tuple(TERRAIN.props())


class WORLDSEED_OT_terrain_add(ModalBuild, FamilyOperator, bpy.types.Operator):
    """Add a procedural terrain built from the Terrain panel's settings"""

    bl_idname = "worldseed.terrain_add"
    bl_label = "Add Terrain"
    bl_options = {"REGISTER", "UNDO"}
    family = "terrain"

    __annotations__ = {
        **TERRAIN.props(),
        "curve": bpy.props.StringProperty(
            name="Height Curve",
            default=curve.curve_to_text(curve.IDENTITY),
            description="Height curve control points, 'x,y; x,y; ...'",
        ),
        "new_seed": bpy.props.BoolProperty(
            name="New Seed",
            default=False,
            options={"SKIP_SAVE"},
            description="Draw a fresh random seed for this terrain",
        ),
        "splat_json": bpy.props.StringProperty(
            name="Texture Layers",
            default="[]",
            options={"HIDDEN"},
            description="The texture layers ([[splat]] tables) as JSON, copied from the sidebar",
        ),
        "from_settings": bpy.props.BoolProperty(
            name="From Sidebar",
            default=False,
            options={"SKIP_SAVE", "HIDDEN"},
            description="Start from the Terrain panel's settings (what the sidebar button does)",
        ),
    }

    def _recipe(self):
        networks = sections.follower_tables(bpy.context.scene, TERRAIN.key)  # the Networks panel's
        return TERRAIN.recipe(
            self, curve_points=curve.curve_from_text(self.curve), networks=networks, source="Add Terrain"
        )

    def _load_settings(self, context):
        """Copy the sidebar settings into this operator's properties (once; redo keeps the edits)."""
        settings = self.settings(context)
        for name in ADD_PROPS:
            setattr(self, name, getattr(settings, name))
        self.curve = curve.curve_to_text(curve.curve_points(settings))
        self.splat_json = json.dumps(TERRAIN.splat_tables(settings))
        self.from_settings = False

    def _steps(self, context):
        if self.from_settings:
            self._load_settings(context)
        if self.new_seed:
            self.seed, self.new_seed = new_seed(), False
        recipe = self._recipe()
        location = tuple(context.scene.cursor.location)
        return recipe, bridge_terrain.terrain_steps(recipe, collection=context.collection, location=location)

    def invoke(self, context, event):
        self.from_settings = True
        return self.run(context, modal=True)

    def execute(self, context):
        return self.run(context, modal=False)

    def run(self, context, *, modal):
        def work():
            recipe, steps = self._steps(context)
            return self.run_steps(
                context,
                steps,
                "building terrain",
                modal=modal and TERRAIN.runs_modal(recipe),
                note=bridge_terrain.erosion_note(recipe),
            )

        return self.guard(context, work)

    def finished(self, context, root):
        select_only(context, root)
        self.report({"INFO"}, f"Worldseed: added terrain {root.name!r}")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        row = layout.row(align=True)
        row.prop(self, "seed")
        row.prop(self, "new_seed", text="", icon="FILE_REFRESH", toggle=True)
        for name in ADD_PROPS:
            if name != "seed":
                layout.prop(self, name)
        layout.prop(self, "curve")


class WORLDSEED_OT_terrain_update(Rebuild, bpy.types.Operator):
    """Rebuild the active terrain from the Terrain panel's settings, not its own (Load from Active gets those)"""

    bl_idname = "worldseed.terrain_update"
    bl_label = "Update Terrain"
    bl_options = {"REGISTER", "UNDO"}
    family = "terrain"


class WORLDSEED_OT_terrain_reseed(Reseed, bpy.types.Operator):
    """Draw a new random seed; rebuilds the active Worldseed terrain with it"""

    bl_idname = "worldseed.terrain_reseed"
    bl_label = "New Seed"
    bl_options = {"REGISTER", "UNDO"}
    family = "terrain"


class WORLDSEED_OT_terrain_load_settings(LoadSettings, bpy.types.Operator):
    """Copy the active Worldseed terrain's settings into the Terrain panel"""

    bl_idname = "worldseed.terrain_load_settings"
    bl_label = "Load from Active"
    bl_options = {"REGISTER", "UNDO"}
    family = "terrain"


class WORLDSEED_OT_height_curve_add(bpy.types.Operator):
    """Add a height curve to reshape the terrain's heights"""

    bl_idname = "worldseed.height_curve_add"
    bl_label = "Add Height Curve"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    def execute(self, context):
        curve.ensure_curve(context.scene.worldseed.terrain)
        return {"FINISHED"}


class WORLDSEED_OT_height_curve_reset(bpy.types.Operator):
    """Reset the height curve to a straight line"""

    bl_idname = "worldseed.height_curve_reset"
    bl_label = "Reset Height Curve"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    def execute(self, context):
        curve.set_curve_points(context.scene.worldseed.terrain, curve.IDENTITY)
        return {"FINISHED"}


class WORLDSEED_OT_terrain_preset_apply(FamilyOperator, bpy.types.Operator):
    """Load a terrain preset's look into the Terrain panel (seed, name, resolution, LODs and offset are kept)"""

    bl_idname = "worldseed.terrain_preset_apply"
    bl_label = "Apply Terrain Preset"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}
    family = "terrain"

    preset: bpy.props.StringProperty(name="Preset")

    def execute(self, context):
        settings = self.settings(context)

        def work():
            recipe = presets.load(self.preset)
            with paused_auto_update(settings):  # one rebuild at the end, not one per field
                TERRAIN.load(settings, recipe, world=False, keep=TERRAIN.output_fields)
                settings.preset = self.preset
            if settings.auto_update and self.active_root(context) is not None:
                bpy.ops.worldseed.terrain_update("INVOKE_DEFAULT", auto=True)  # modal with erosion in a window
            return {"FINISHED"}

        return self.guard(context, work)


class WORLDSEED_OT_terrain_preset_save(Reports, bpy.types.Operator):
    """Save the Terrain panel's settings as a user preset"""

    bl_idname = "worldseed.terrain_preset_save"
    bl_label = "Save Terrain Preset"
    bl_options = {"REGISTER", "INTERNAL"}
    errors = (*Reports.errors, OSError)

    preset_name: bpy.props.StringProperty(name="Name", default="My Terrain")

    def message(self, err):
        return f"could not save preset: {err}"

    def invoke(self, context, event):
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        def work():
            path = presets.save(self.preset_name, TERRAIN.scene_recipe(context.scene))
            context.scene.worldseed.terrain.preset = presets.display_name(path)
            self.report({"INFO"}, f"Worldseed: saved preset to {path}")
            return {"FINISHED"}

        return self.guard(context, work)


class WORLDSEED_OT_terrain_preset_remove(Reports, bpy.types.Operator):
    """Remove a user terrain preset"""

    bl_idname = "worldseed.terrain_preset_remove"
    bl_label = "Remove Terrain Preset"
    bl_options = {"REGISTER", "INTERNAL"}
    errors = (*Reports.errors, OSError)

    preset: bpy.props.StringProperty(name="Preset")

    def invoke(self, context, event):
        return context.window_manager.invoke_confirm(self, event)

    def execute(self, context):
        def work():
            presets.remove(self.preset)
            return {"FINISHED"}

        return self.guard(context, work)


class WORLDSEED_OT_splat_layer_add(bpy.types.Operator):
    """Add a texture layer: painted over the layers before it where its rules hold (the first is the ground)"""

    bl_idname = "worldseed.splat_layer_add"
    bl_label = "Add Texture Layer"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return len(context.scene.worldseed.terrain.splats) < TERRAIN.max_splats

    def execute(self, context):
        TERRAIN.new_splat(context.scene.worldseed.terrain)
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


classes = (
    WORLDSEED_OT_terrain_add,
    WORLDSEED_OT_terrain_update,
    WORLDSEED_OT_terrain_reseed,
    WORLDSEED_OT_terrain_load_settings,
    WORLDSEED_OT_height_curve_add,
    WORLDSEED_OT_height_curve_reset,
    WORLDSEED_OT_terrain_preset_apply,
    WORLDSEED_OT_terrain_preset_save,
    WORLDSEED_OT_terrain_preset_remove,
    WORLDSEED_OT_splat_layer_add,
    WORLDSEED_OT_splat_layer_remove,
    WORLDSEED_OT_splat_layer_move,
)
