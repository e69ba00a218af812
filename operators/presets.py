"""Preset operators: apply, save and remove terrain presets (recipe files)."""
import bpy

from . import build, curve, live
from ..addon import presets, properties
from ..core._checks import ParameterError
from .terrain import settings_recipe


class WORLDSEED_OT_terrain_preset_apply(bpy.types.Operator):
    """Load a terrain preset's look into the Terrain panel (seed, name, resolution, LODs and offset are kept)"""
    bl_idname = "worldseed.terrain_preset_apply"
    bl_label = "Apply Terrain Preset"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    preset: bpy.props.StringProperty(name="Preset")

    def execute(self, context):
        settings = context.scene.worldseed.terrain
        try:
            recipe = presets.load(self.preset)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        with live.paused(settings):
            properties.apply_recipe_to_props(settings, recipe, world=False, keep=properties.OUTPUT_FIELDS)
            curve.set_curve_points(settings, recipe.terrain.curve)
            settings.preset = self.preset
        if settings.auto_update and build.terrain_root(context.active_object) is not None:
            bpy.ops.worldseed.terrain_update()
        return {"FINISHED"}


class WORLDSEED_OT_terrain_preset_save(bpy.types.Operator):
    """Save the Terrain panel's settings as a user preset"""
    bl_idname = "worldseed.terrain_preset_save"
    bl_label = "Save Terrain Preset"
    bl_options = {"REGISTER", "INTERNAL"}

    preset_name: bpy.props.StringProperty(name="Name", default="My Terrain")

    def invoke(self, context, event):
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        try:
            path = presets.save(self.preset_name, settings_recipe(context.scene))
        except (ParameterError, OSError) as err:
            self.report({"ERROR"}, f"could not save preset: {err}")
            return {"CANCELLED"}
        context.scene.worldseed.terrain.preset = presets.display_name(path)
        self.report({"INFO"}, f"Worldseed: saved preset to {path}")
        return {"FINISHED"}


class WORLDSEED_OT_terrain_preset_remove(bpy.types.Operator):
    """Remove a user terrain preset"""
    bl_idname = "worldseed.terrain_preset_remove"
    bl_label = "Remove Terrain Preset"
    bl_options = {"REGISTER", "INTERNAL"}

    preset: bpy.props.StringProperty(name="Preset")

    def invoke(self, context, event):
        return context.window_manager.invoke_confirm(self, event)

    def execute(self, context):
        try:
            presets.remove(self.preset)
        except (ParameterError, OSError) as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        return {"FINISHED"}


classes = (WORLDSEED_OT_terrain_preset_apply, WORLDSEED_OT_terrain_preset_save,
           WORLDSEED_OT_terrain_preset_remove)
