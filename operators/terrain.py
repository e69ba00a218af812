"""Terrain operators: add, rebuild in place, new seed, load settings, height curve, presets.

Operators only gather a recipe from the Terrain panel (or their redo panel)
and hand it to :mod:`.bridge.terrain`. Large builds run as a modal operator
with Blender's progress indicator and can be cancelled with Esc; the redo
panel re-runs ``execute`` with the edited properties.
"""

import bpy

from ..core import export as core_export
from ..core import mesh as core_mesh
from ..core import recipe as core_recipe
from ..core import terrain as core_terrain
from ..core import world as core_world
from ..core.errors import ParameterError
from ..core.spec import from_attrs, to_table
from . import terrain_layers
from .bridge import curve, presets
from .bridge import terrain as bridge_terrain
from .bridge.properties import apply_spec, props_from_limits
from .bridge.query import terrain_root
from .common import ModalBuild, modal_vertices, new_seed, paused_auto_update, select_only, window_of

#: Terrain fields shown as properties (the height curve has its own widget; ``enabled`` is for recipes).
TERRAIN_FIELDS = tuple(n for n, limit in core_terrain.LIMITS.items() if limit.kind != "custom" and n != "enabled")
WORLD_FIELDS = ("name", "seed")
EXPORT_FIELDS = tuple(core_export.LIMITS)
#: Settings of the output rather than of the look; applying a preset leaves them alone.
OUTPUT_FIELDS = ("resolution", "lods", "material", "offset")


def terrain_props(update=None):
    """``{name: bpy.props...}`` for the world name, the seed, every shown terrain field and the terrain's
    layers (erosion and biomes, prefixed: :func:`.terrain_layers.layer_props`)."""
    return {
        **props_from_limits(core_world.LIMITS, core_world.WorldSpec(), names=WORLD_FIELDS, update=update),
        **props_from_limits(core_terrain.LIMITS, core_terrain.TerrainSpec(), names=TERRAIN_FIELDS, update=update),
        **terrain_layers.layer_props(update=update),
    }


#: The layer properties (erosion, biomes) that the Add Terrain operator copies from the sidebar.
LAYER_PROPS = tuple(terrain_layers.layer_props())


def recipe_from_props(props, *, curve_points, export=None):
    """A validated recipe from an object holding :func:`terrain_props` (settings or operator)."""
    world = from_attrs(core_world.WorldSpec, core_world.LIMITS, props, prefix="world.", fields=WORLD_FIELDS)
    terrain = from_attrs(
        core_terrain.TerrainSpec,
        core_terrain.LIMITS,
        props,
        prefix="terrain.",
        fields=TERRAIN_FIELDS,
        overrides={"curve": [list(p) for p in curve_points]},
    )
    data = {"world": to_table(world), "terrain": core_terrain.to_dict(terrain)}
    terrain_layers.add_layer_tables(data, props)
    if export is not None:
        data["export"] = to_table(
            from_attrs(core_export.ExportSpec, core_export.LIMITS, export, prefix="export.", fields=EXPORT_FIELDS)
        )
    return core_recipe.from_dict(data, source="settings")


def apply_recipe_to_props(props, recipe, *, world=True, keep=()):
    """Copy a recipe's values into an object holding :func:`terrain_props` (not the curve)."""
    if world:
        apply_spec(props, recipe.world, names=WORLD_FIELDS)
    apply_spec(props, recipe.terrain, names=TERRAIN_FIELDS, keep=keep)
    terrain_layers.apply_layers_to_props(props, recipe)


def settings_recipe(scene):
    """The recipe described by the scene's sidebar settings."""
    settings = scene.worldseed
    return recipe_from_props(
        settings.terrain, curve_points=curve.curve_points(settings.terrain), export=settings.export
    )


def rebuild_from_settings(root, scene):
    """Rebuild the terrain ``root`` in place from the scene's settings."""
    return bridge_terrain.build_terrain(settings_recipe(scene), collection=scene.collection, replace=root)


def _vertex_count(recipe):
    n = recipe.terrain.resolution
    return sum(len(core_mesh.lod_indices(n, 2**k)) ** 2 for k in range(recipe.terrain.lods))


def runs_modal(context, recipe):
    """Whether a build of ``recipe`` shows progress (and Esc cancels it): many vertices, or erosion."""
    if context.window is None:  # background: no events to drive a modal operator
        return False
    eroding = getattr(getattr(recipe.terrain, "erosion", None), "enabled", False)
    return eroding or _vertex_count(recipe) > modal_vertices(context)


def auto_rebuild(root, scene):
    """Auto Update's rebuild of the terrain ``root`` from ``scene``'s settings.

    A rebuild that runs modal (erosion, or many vertices: :func:`runs_modal`) goes through Update
    Terrain's modal build in a window showing the scene -- progress, Esc, the UI never frozen --
    and returns ``{"RUNNING_MODAL"}``; without such a window (background runs, where Blender has
    no events to drive it) it is built at once and the root returned.  Bad settings raise
    :class:`~core.errors.ParameterError` before anything is built.
    """
    recipe = settings_recipe(scene)
    window = None if bpy.app.background else window_of(scene)
    if window is not None:
        with bpy.context.temp_override(window=window):
            if runs_modal(bpy.context, recipe) and terrain_root(bpy.context.active_object) == root:
                return bpy.ops.worldseed.terrain_update("INVOKE_DEFAULT", auto=True)
    return bridge_terrain.build_terrain(recipe, collection=scene.collection, replace=root)


class WORLDSEED_OT_terrain_add(ModalBuild, bpy.types.Operator):
    """Add a procedural terrain built from the Terrain panel's settings"""

    bl_idname = "worldseed.terrain_add"
    bl_label = "Add Terrain"
    bl_options = {"REGISTER", "UNDO"}

    __annotations__ = {
        **terrain_props(),
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
        return recipe_from_props(self, curve_points=curve.curve_from_text(self.curve))

    def _load_settings(self, context):
        """Copy the sidebar settings into this operator's properties (once; redo keeps the edits)."""
        settings = context.scene.worldseed.terrain
        for name in ("name", "seed", *TERRAIN_FIELDS, *LAYER_PROPS):
            setattr(self, name, getattr(settings, name))
        self.curve = curve.curve_to_text(curve.curve_points(settings))
        self.splat_json = terrain_layers.splat_json(settings)
        self.from_settings = False

    def invoke(self, context, event):
        try:
            self._load_settings(context)
            recipe = self._recipe()
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        if not runs_modal(context, recipe):
            return self.execute(context)
        steps = bridge_terrain.terrain_steps(
            recipe, collection=context.collection, location=tuple(context.scene.cursor.location)
        )
        return self.start_modal(context, steps, "building terrain")

    def finished(self, context, root):
        select_only(context, root)
        self.report({"INFO"}, f"Worldseed: added terrain {root.name!r}")

    def execute(self, context):
        try:
            if self.from_settings:
                self._load_settings(context)
            if self.new_seed:
                self.seed = new_seed()
                self.new_seed = False
            recipe = self._recipe()
            root = bridge_terrain.build_terrain(
                recipe, collection=context.collection, location=tuple(context.scene.cursor.location)
            )
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        self.finished(context, root)
        return {"FINISHED"}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        row = layout.row(align=True)
        row.prop(self, "seed")
        row.prop(self, "new_seed", text="", icon="FILE_REFRESH", toggle=True)
        for name in ("name", *TERRAIN_FIELDS):
            layout.prop(self, name)
        layout.prop(self, "curve")
        for name in LAYER_PROPS:
            layout.prop(self, name)


class WORLDSEED_OT_terrain_update(ModalBuild, bpy.types.Operator):
    """Rebuild the active terrain from the Terrain panel's settings, not its own (Load from Active gets those)"""

    bl_idname = "worldseed.terrain_update"
    bl_label = "Update Terrain"
    bl_options = {"REGISTER", "UNDO"}

    auto: bpy.props.BoolProperty(
        name="Auto Update",
        default=False,
        options={"SKIP_SAVE", "HIDDEN"},
        description="Started by Auto Update: an error goes to the Terrain panel's last error",
    )

    @classmethod
    def poll(cls, context):
        return terrain_root(context.active_object) is not None

    def invoke(self, context, event):
        root = terrain_root(context.active_object)
        try:
            recipe = settings_recipe(context.scene)
        except ParameterError as err:
            self.failed(context, err)
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        if not runs_modal(context, recipe):
            return self.execute(context)
        steps = bridge_terrain.terrain_steps(recipe, collection=context.collection, replace=root)
        return self.start_modal(context, steps, "updating terrain")

    def failed(self, context, err):
        if self.auto:
            context.scene.worldseed.terrain.last_error = str(err)

    def finished(self, context, root):
        context.view_layer.update()  # a rebuild with fewer LODs removed objects the view layer still lists
        select_only(context, root)
        if self.auto:
            context.scene.worldseed.terrain.last_error = ""

    def execute(self, context):
        root = terrain_root(context.active_object)
        try:
            root = rebuild_from_settings(root, context.scene)
        except ParameterError as err:
            self.failed(context, err)
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        self.finished(context, root)
        return {"FINISHED"}


class WORLDSEED_OT_terrain_reseed(ModalBuild, bpy.types.Operator):
    """Draw a new random seed; rebuilds the active Worldseed terrain with it"""

    bl_idname = "worldseed.terrain_reseed"
    bl_label = "New Seed"
    bl_options = {"REGISTER", "UNDO"}

    def _reseed(self, context, *, modal):
        settings = context.scene.worldseed.terrain
        self._old_seed = settings.seed
        with paused_auto_update(settings):  # one rebuild below, not one from the update callback
            settings.seed = new_seed()
        root = terrain_root(context.active_object)
        if root is None:
            return {"FINISHED"}
        try:
            recipe = settings_recipe(context.scene)
            if modal and runs_modal(context, recipe):  # erosion or a large grid: progress and Esc
                steps = bridge_terrain.terrain_steps(recipe, collection=context.collection, replace=root)
                return self.start_modal(context, steps, "new seed")
            root = bridge_terrain.build_terrain(recipe, collection=context.collection, replace=root)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        self.finished(context, root)
        return {"FINISHED"}

    def invoke(self, context, event):
        return self._reseed(context, modal=True)

    def execute(self, context):
        return self._reseed(context, modal=False)

    def finished(self, context, root):
        context.view_layer.update()
        select_only(context, root)

    def cancelled(self, context):
        """Esc: the terrain is as it was, and so is the seed in the panel."""
        settings = context.scene.worldseed.terrain
        with paused_auto_update(settings):
            settings.seed = self._old_seed


class WORLDSEED_OT_terrain_load_settings(bpy.types.Operator):
    """Copy the active Worldseed terrain's settings into the Terrain panel"""

    bl_idname = "worldseed.terrain_load_settings"
    bl_label = "Load from Active"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return terrain_root(context.active_object) is not None

    def execute(self, context):
        root = terrain_root(context.active_object)
        try:
            recipe = bridge_terrain.stored_recipe(root)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        settings = context.scene.worldseed.terrain
        with paused_auto_update(settings):
            apply_recipe_to_props(settings, recipe)
            curve.set_curve_points(settings, recipe.terrain.curve)
        return {"FINISHED"}


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
        with paused_auto_update(settings):  # one rebuild at the end, not one per field
            apply_recipe_to_props(settings, recipe, world=False, keep=OUTPUT_FIELDS)
            curve.set_curve_points(settings, recipe.terrain.curve)
            settings.preset = self.preset
        if settings.auto_update and terrain_root(context.active_object) is not None:
            bpy.ops.worldseed.terrain_update("INVOKE_DEFAULT", auto=True)  # modal with erosion in a window
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


classes = (
    *terrain_layers.classes,
    WORLDSEED_OT_terrain_add,
    WORLDSEED_OT_terrain_update,
    WORLDSEED_OT_terrain_reseed,
    WORLDSEED_OT_terrain_load_settings,
    WORLDSEED_OT_height_curve_add,
    WORLDSEED_OT_height_curve_reset,
    WORLDSEED_OT_terrain_preset_apply,
    WORLDSEED_OT_terrain_preset_save,
    WORLDSEED_OT_terrain_preset_remove,
)
