"""Terrain operators: add, rebuild in place, new seed, load settings from a terrain.

Operators only gather a recipe and hand it to :mod:`.build`. Large builds run
as a modal operator with Blender's progress indicator and can be cancelled
with Esc; the redo panel re-runs ``execute`` with the edited properties.
"""
import os

import bpy

from . import build, curve, live
from ..addon import properties
from ..core import mesh as core_mesh
from ..core._checks import ParameterError

#: Builds with more vertices than this run modally, with progress and Esc to cancel
#: (the add-on preferences can change it).
MODAL_VERTICES = 600_000


def _modal_vertices(context):
    addon = context.preferences.addons.get(__package__.rpartition(".")[0])
    return addon.preferences.modal_vertices if addon is not None and addon.preferences else MODAL_VERTICES


def settings_recipe(scene):
    """The recipe described by the scene's sidebar settings."""
    settings = scene.worldseed
    return properties.recipe_from_props(settings.terrain, curve=curve.curve_points(settings.terrain),
                                        export=settings.export)


def rebuild_from_settings(root, scene):
    """Rebuild the terrain ``root`` in place from the scene's settings."""
    return build.build_terrain(settings_recipe(scene), collection=scene.collection, replace=root)


def _select_only(context, obj):
    for o in context.view_layer.objects:
        if o.select_get():
            o.select_set(False)
    obj.select_set(True)
    context.view_layer.objects.active = obj


def _vertex_count(recipe):
    n = recipe.terrain.resolution
    return sum(len(core_mesh.lod_indices(n, 2 ** k)) ** 2 for k in range(recipe.terrain.lods))


class _ModalBuild:
    """Run a build generator on a timer with progress; Esc cancels and removes what was made."""

    def _start_modal(self, context, steps, label, *, handler=True):
        """Start feeding ``steps`` from timer events; ``handler=False`` leaves the events to the
        caller (the tests, since background Blender delivers none)."""
        self._steps = steps
        self._label = label
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.001, window=context.window)
        wm.progress_begin(0, 1000)
        if handler:
            wm.modal_handler_add(self)
        context.workspace.status_text_set(f"Worldseed: {label}... (Esc to cancel)")
        return {"RUNNING_MODAL"}

    def _end_modal(self, context):
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        wm.progress_end()
        context.workspace.status_text_set(None)

    def modal(self, context, event):
        if event.type in {"ESC", "RIGHTMOUSE"} and event.value == "PRESS":
            self._steps.close()
            self._end_modal(context)
            self.report({"WARNING"}, f"Worldseed: {self._label} cancelled")
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"RUNNING_MODAL"}
        try:
            done, total, stage = next(self._steps)
        except StopIteration as stop:
            self._end_modal(context)
            self._finished(context, stop.value)
            return {"FINISHED"}
        except ParameterError as err:
            self._end_modal(context)
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        except BaseException:
            self._end_modal(context)
            raise
        context.window_manager.progress_update(int(1000 * done / max(total, 1)))
        context.workspace.status_text_set(f"Worldseed: {self._label}: {stage} ({done}/{total}) (Esc to cancel)")
        return {"RUNNING_MODAL"}


def _reseed():
    return int.from_bytes(os.urandom(4), "little") & 0x7FFFFFFF


class WORLDSEED_OT_terrain_add(_ModalBuild, bpy.types.Operator):
    """Add a procedural terrain built from the Terrain panel's settings"""
    bl_idname = "worldseed.terrain_add"
    bl_label = "Add Terrain"
    bl_options = {"REGISTER", "UNDO"}

    __annotations__ = {
        **properties.terrain_props(),
        "curve": bpy.props.StringProperty(
            name="Height Curve", default=properties.curve_to_text(curve.IDENTITY),
            description="Height curve control points, 'x,y; x,y; ...'"),
        "new_seed": bpy.props.BoolProperty(
            name="New Seed", default=False, options={"SKIP_SAVE"},
            description="Draw a fresh random seed for this terrain"),
        "from_settings": bpy.props.BoolProperty(
            name="From Sidebar", default=False, options={"SKIP_SAVE", "HIDDEN"},
            description="Start from the Terrain panel's settings (what the sidebar button does)"),
    }

    def _recipe(self):
        return properties.recipe_from_props(self, curve=properties.curve_from_text(self.curve))

    def _load_settings(self, context):
        """Copy the sidebar settings into this operator's properties (once; redo keeps the edits)."""
        settings = context.scene.worldseed.terrain
        for name in ("name", "seed", *properties.TERRAIN_FIELDS):
            setattr(self, name, getattr(settings, name))
        self.curve = properties.curve_to_text(curve.curve_points(settings))
        self.from_settings = False

    def invoke(self, context, event):
        self._load_settings(context)
        try:
            recipe = self._recipe()
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        if _vertex_count(recipe) <= _modal_vertices(context) or context.window is None:
            return self.execute(context)
        steps = build.terrain_steps(recipe, collection=context.collection,
                                    location=tuple(context.scene.cursor.location))
        return self._start_modal(context, steps, "building terrain")

    def _finished(self, context, root):
        _select_only(context, root)
        self.report({"INFO"}, f"Worldseed: added terrain {root.name!r}")

    def execute(self, context):
        if self.from_settings:
            self._load_settings(context)
        if self.new_seed:
            self.seed = _reseed()
            self.new_seed = False
        try:
            recipe = self._recipe()
            root = build.build_terrain(recipe, collection=context.collection,
                                       location=tuple(context.scene.cursor.location))
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        self._finished(context, root)
        return {"FINISHED"}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        row = layout.row(align=True)
        row.prop(self, "seed")
        row.prop(self, "new_seed", text="", icon="FILE_REFRESH", toggle=True)
        for name in ("name", *properties.TERRAIN_FIELDS):
            layout.prop(self, name)
        layout.prop(self, "curve")


class WORLDSEED_OT_terrain_update(_ModalBuild, bpy.types.Operator):
    """Rebuild the active Worldseed terrain in place from the Terrain panel's settings"""
    bl_idname = "worldseed.terrain_update"
    bl_label = "Update Terrain"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return build.terrain_root(context.active_object) is not None

    def invoke(self, context, event):
        root = build.terrain_root(context.active_object)
        try:
            recipe = settings_recipe(context.scene)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        if _vertex_count(recipe) <= _modal_vertices(context) or context.window is None:
            return self.execute(context)
        steps = build.terrain_steps(recipe, collection=context.collection, replace=root)
        return self._start_modal(context, steps, "updating terrain")

    def _finished(self, context, root):
        _select_only(context, root)

    def execute(self, context):
        root = build.terrain_root(context.active_object)
        try:
            root = rebuild_from_settings(root, context.scene)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        self._finished(context, root)
        return {"FINISHED"}


class WORLDSEED_OT_terrain_reseed(bpy.types.Operator):
    """Draw a new random seed; rebuilds the active Worldseed terrain with it"""
    bl_idname = "worldseed.terrain_reseed"
    bl_label = "New Seed"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        settings = context.scene.worldseed.terrain
        with live.paused(settings):  # one rebuild below, not one from the update callback
            settings.seed = _reseed()
        root = build.terrain_root(context.active_object)
        if root is not None:
            try:
                rebuild_from_settings(root, context.scene)
            except ParameterError as err:
                self.report({"ERROR"}, str(err))
                return {"CANCELLED"}
        return {"FINISHED"}


class WORLDSEED_OT_terrain_load_settings(bpy.types.Operator):
    """Copy the active Worldseed terrain's settings into the Terrain panel"""
    bl_idname = "worldseed.terrain_load_settings"
    bl_label = "Load from Active"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return build.terrain_root(context.active_object) is not None

    def execute(self, context):
        root = build.terrain_root(context.active_object)
        try:
            recipe = build.stored_recipe(root)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        with live.paused(context.scene.worldseed.terrain) as settings:
            properties.apply_recipe_to_props(settings, recipe)
            curve.set_curve_points(settings, recipe.terrain.curve)
        return {"FINISHED"}


classes = (WORLDSEED_OT_terrain_add, WORLDSEED_OT_terrain_update, WORLDSEED_OT_terrain_reseed,
           WORLDSEED_OT_terrain_load_settings)
