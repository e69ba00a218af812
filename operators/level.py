"""Level operators: add at the 3D cursor, rebuild in place, new seed, load settings, make the kit real.

Operators only gather a :class:`core.levels.LevelSpec` from the Levels panel
(or their redo panel) and hand it to :mod:`.bridge.level`.  Every setting is a
property generated from ``core.levels.LIMITS``, so the redo panel has them all;
it shows the common settings and the chosen generator's own.
"""

import bpy

from ..core import levels as core_levels
from ..core.errors import ParameterError
from ..core.spec import from_attrs
from .bridge import level as bridge_level
from .bridge.properties import apply_spec, props_from_limits
from .bridge.query import LEVEL_SHOWN_FIELDS, level_generator_fields, level_kit_of, level_root
from .common import new_seed, paused_auto_update, select_only

#: Every level setting shown as a property (all of ``core.levels.LIMITS``).
LEVEL_FIELDS = tuple(core_levels.LIMITS)
#: Settings the panel shows whatever the generator (``origin`` is the 3D cursor's, in the redo panel).
COMMON_FIELDS = tuple(core_levels.COMMON_KEYS)

GEOMETRY_ITEMS = (
    ("MESH", "Mesh", "The level mesh: floor, wall and ceiling quads with three materials"),
    ("KIT", "Kit", "Modules of a kit collection, named by role, instanced on every cell"),
)


def level_props(update=None):
    """``{name: bpy.props...}`` for every level setting, from ``core.levels.LIMITS``."""
    return props_from_limits(core_levels.LIMITS, core_levels.LevelSpec(), names=LEVEL_FIELDS, update=update)


def spec_from_props(props, **overrides):
    """A validated :class:`LevelSpec` from an object holding :func:`level_props` (settings or operator):
    the common settings and the generator's own (the others are not read)."""
    fields = (*COMMON_FIELDS, *level_generator_fields(props.generator))
    spec = from_attrs(core_levels.LevelSpec, core_levels.LIMITS, props, prefix="level.", fields=fields)
    table = {**core_levels.to_dict(spec), **overrides}
    return core_levels.from_dict(table)  # also refuses impossible settings (room larger than its leaf ...)


def _geometry(props, kit):
    if props.geometry == "KIT" and kit is None:
        raise ParameterError("kit: choose the collection of the kit's modules (or set Geometry to Mesh)")
    return props.geometry, kit


def rebuild_from_settings(root, scene):
    """Rebuild the level ``root`` in place from the Levels panel (its origin stays where the level is)."""
    settings = scene.worldseed.level
    spec = spec_from_props(settings, origin=list(bridge_level.stored_spec(root).origin))
    geometry, kit = _geometry(settings, settings.kit)
    return bridge_level.build_level(spec, collection=scene.collection, replace=root, geometry=geometry, kit=kit)


class WORLDSEED_OT_level_add(bpy.types.Operator):
    """Add a grid level at the 3D cursor, built from the Levels panel's settings"""

    bl_idname = "worldseed.level_add"
    bl_label = "Add Level"
    bl_options = {"REGISTER", "UNDO"}

    __annotations__ = {
        **level_props(),
        "geometry": bpy.props.EnumProperty(name="Geometry", items=GEOMETRY_ITEMS, default="MESH"),
        "kit": bpy.props.StringProperty(name="Kit", default="", description="Collection of the kit's modules"),
        "new_seed": bpy.props.BoolProperty(
            name="New Seed", default=False, options={"SKIP_SAVE"}, description="Draw a fresh random seed"
        ),
        "from_settings": bpy.props.BoolProperty(
            name="From Sidebar",
            default=False,
            options={"SKIP_SAVE", "HIDDEN"},
            description="Start from the Levels panel's settings, at the 3D cursor (what the sidebar button does)",
        ),
    }

    def _load_settings(self, context):
        """Copy the sidebar settings (and the 3D cursor as the origin) into this operator, once."""
        settings = context.scene.worldseed.level
        for name in LEVEL_FIELDS:
            setattr(self, name, getattr(settings, name))
        self.geometry = settings.geometry
        self.kit = settings.kit.name if settings.kit is not None else ""
        self.origin = tuple(context.scene.cursor.location)
        self.from_settings = False

    def invoke(self, context, event):
        self._load_settings(context)
        return self.execute(context)

    def execute(self, context):
        if self.from_settings:
            self._load_settings(context)
        if self.new_seed:
            self.seed = new_seed()
            self.new_seed = False
        try:
            spec = spec_from_props(self)
            kit = bpy.data.collections.get(self.kit) if self.kit else None
            if self.kit and kit is None:
                raise ParameterError(f"kit: there is no collection named {self.kit!r}")
            geometry, kit = _geometry(self, kit)
            root = bridge_level.build_level(spec, collection=context.collection, geometry=geometry, kit=kit)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        select_only(context, root)
        self.report({"INFO"}, f"Worldseed: added level {root.name!r}")
        return {"FINISHED"}

    def draw(self, context):
        layout = self.layout
        row = layout.row(align=True)
        row.prop(self, "seed")
        row.prop(self, "new_seed", text="", icon="FILE_REFRESH", toggle=True)
        layout.use_property_split = True
        for name in (*LEVEL_SHOWN_FIELDS, *level_generator_fields(self.generator)):
            layout.prop(self, name)
        layout.prop(self, "origin")
        layout.prop(self, "geometry")
        if self.geometry == "KIT":
            layout.prop(self, "kit")


class WORLDSEED_OT_level_update(bpy.types.Operator):
    """Rebuild the active level in place from the Levels panel's settings (Load from Active gets its own)"""

    bl_idname = "worldseed.level_update"
    bl_label = "Update Level"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return level_root(context.active_object) is not None

    def execute(self, context):
        try:
            root = rebuild_from_settings(level_root(context.active_object), context.scene)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        select_only(context, root)
        return {"FINISHED"}


class WORLDSEED_OT_level_reseed(bpy.types.Operator):
    """Draw a new random seed; rebuilds the active Worldseed level with it"""

    bl_idname = "worldseed.level_reseed"
    bl_label = "New Seed"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        settings = context.scene.worldseed.level
        with paused_auto_update(settings):  # one rebuild below, not one from the update callback
            settings.seed = new_seed()
        root = level_root(context.active_object)
        if root is not None:
            try:
                select_only(context, rebuild_from_settings(root, context.scene))
            except ParameterError as err:
                self.report({"ERROR"}, str(err))
                return {"CANCELLED"}
        return {"FINISHED"}


class WORLDSEED_OT_level_load_settings(bpy.types.Operator):
    """Copy the active Worldseed level's settings into the Levels panel"""

    bl_idname = "worldseed.level_load_settings"
    bl_label = "Load from Active"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return level_root(context.active_object) is not None

    def execute(self, context):
        root = level_root(context.active_object)
        try:
            spec = bridge_level.stored_spec(root)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        settings = context.scene.worldseed.level
        geometry, kit = bridge_level.stored_geometry(root)
        with paused_auto_update(settings):
            apply_spec(settings, spec, names=LEVEL_FIELDS)
            settings.geometry = geometry
            if kit is not None:
                settings.kit = kit
        return {"FINISHED"}


class WORLDSEED_OT_level_make_real(bpy.types.Operator):
    """Turn the active level's kit instances into real objects (sharing the modules' meshes)"""

    bl_idname = "worldseed.level_make_real"
    bl_label = "Make Real"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return level_kit_of(context.active_object) is not None

    def execute(self, context):
        kit = level_kit_of(context.active_object)
        root = kit.parent
        collection = root.users_collection[0] if root.users_collection else context.scene.collection
        try:
            made = bridge_level.make_kit_real(kit, collection=collection)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        bridge_level.remove_kit(kit)
        # bring the view layer's bases up to date before walking them: without it the walk in
        # select_only crashed Blender 5.0 about one run in ten (kit object removed, modules linked)
        context.view_layer.update()
        select_only(context, root)
        self.report({"INFO"}, f"Worldseed: {len(made):,} kit modules are objects now")
        return {"FINISHED"}


classes = (
    WORLDSEED_OT_level_add,
    WORLDSEED_OT_level_update,
    WORLDSEED_OT_level_reseed,
    WORLDSEED_OT_level_load_settings,
    WORLDSEED_OT_level_make_real,
)
