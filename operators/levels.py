"""Level operators: add at the 3D cursor, rebuild in place, new seed, load settings, make the kit real.

Operators only gather a :class:`core.levels.LevelSpec` from the Levels panel (or their redo panel)
through the levels' adapter (``bridge.levels.LevelAdapter``) and hand it to :mod:`.bridge.levels`.
Every setting is a property generated from ``core.levels.LIMITS``, so the redo panel has them all;
it shows the common settings and the chosen generator's own.  Every WFC level Add Level, Update
Level or New Seed makes from a window is made modally, with progress and Esc (a small grid with
tight counts can search for seconds); without a window (background runs, scripts calling ``exec``)
it is made at once.  Auto Update rebuilds a WFC level only while it is quick (the adapter's ``live``).
"""

import bpy

from ..core.errors import ParameterError
from .bridge import levels as bridge_levels
from .bridge import sections
from .common import FamilyOperator, LoadSettings, ModalBuild, Rebuild, Reseed, new_seed, select_only

LEVELS = sections.adapter("level")


def report_warnings(op, root):
    """Tile objects missing, a WFC level in several regions: warnings after a build."""
    missing = list(root.get(bridge_levels.TILES_MISSING_KEY, ()))
    if missing:
        op.report(
            {"WARNING"},
            f"Worldseed: no tile object named {', '.join(map(repr, missing))}: their cells are the level mesh",
        )
    for line in bridge_levels.level_warnings(root):
        op.report({"WARNING"}, f"Worldseed: {line}")


def _collection(name, key):
    found = bpy.data.collections.get(name) if name else None
    if name and found is None:
        raise ParameterError(f"{key}: there is no collection named {name!r}")
    return found


class WORLDSEED_OT_level_add(ModalBuild, FamilyOperator, bpy.types.Operator):
    """Add a grid level at the 3D cursor, built from the Levels panel's settings"""

    bl_idname = "worldseed.level_add"
    bl_label = "Add Level"
    bl_options = {"REGISTER", "UNDO"}
    family = "level"

    __annotations__ = {
        **LEVELS.props(),
        **LEVELS.operator_props(),
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
        settings = self.settings(context)
        for name in bridge_levels.PANEL_FIELDS:
            setattr(self, name, getattr(settings, name))
        values, image = LEVELS.sources(settings)
        self.wfc_tileset, self.sample = LEVELS.wfc_tileset(settings), values.get("sample", "")
        self.sample_image = image.name if image is not None else ""
        for name in ("classes", "connect_points", "counts", "fixed", "geometry"):
            setattr(self, name, getattr(settings, name))
        self.kit = settings.kit.name if settings.kit is not None else ""
        tiles = settings.tile_objects
        self.tile_objects = tiles.name if tiles is not None and settings.generator in bridge_levels.WFC_TILED else ""
        self.origin = tuple(context.scene.cursor.location)
        self.from_settings = False

    def _inputs(self):
        """``(spec, build keywords)`` from this operator's properties."""
        kit, tiles = _collection(self.kit, "kit"), _collection(self.tile_objects, "tile_objects")
        image = None
        if self.sample_image and self.generator in bridge_levels.WFC_SAMPLED:
            image = bpy.data.images.get(self.sample_image)
            if image is None:
                raise ParameterError(f"level.sample_image: there is no image named {self.sample_image!r}")
            self.sample = bridge_levels.sample_file(image)
        with bridge_levels.naming_image(image):  # the image's name, not the temporary PNG of its pixels
            spec = LEVELS.spec(self)
        geometry, kit = LEVELS.geometry(self, kit, tiles)
        return spec, {"geometry": geometry, "kit": kit, "sample_image": image}

    def invoke(self, context, event):
        self.from_settings = True
        return self.guard(context, lambda: self.run(context, modal=True))

    def execute(self, context):
        return self.guard(context, lambda: self.run(context, modal=False))

    def run(self, context, *, modal):
        if self.from_settings:
            self._load_settings(context)
        if self.new_seed:
            self.seed, self.new_seed = new_seed(), False
        spec, build = self._inputs()
        steps = bridge_levels.build_steps(spec, collection=context.collection, **build)
        modal = modal and bridge_levels.is_modal_level(spec)  # Esc, progress: the search may be long
        return self.run_steps(context, steps, f"level {spec.name}", modal=modal)

    def finished(self, context, root):
        select_only(context, root)
        self.report({"INFO"}, f"Worldseed: added level {root.name!r}")
        report_warnings(self, root)

    def draw(self, context):
        layout = self.layout
        row = layout.row(align=True)
        row.prop(self, "seed")
        row.prop(self, "new_seed", text="", icon="FILE_REFRESH", toggle=True)
        layout.use_property_split = True
        for name in (*bridge_levels.SHOWN_FIELDS, *bridge_levels.generator_fields(self.generator)):
            if name in bridge_levels.LEVEL_FIELDS:
                layout.prop(self, name)
        if self.generator in bridge_levels.WFC_SAMPLED:
            layout.prop(self, "sample_image")
            layout.prop(self, "classes")
        if bridge_levels.is_modal_level(self):
            layout.prop(self, "connect_points")
            layout.prop(self, "counts")
            layout.prop(self, "fixed")
        layout.prop(self, "origin")
        if self.generator in bridge_levels.WFC_TILED:
            layout.prop(self, "tile_objects")
        if not (self.tile_objects and self.generator in bridge_levels.WFC_TILED):
            layout.prop(self, "geometry")
            if self.geometry == "KIT":
                layout.prop(self, "kit")


class WORLDSEED_OT_level_update(Rebuild, bpy.types.Operator):
    """Rebuild the active level in place from the Levels panel's settings (Load from Active gets its own)"""

    bl_idname = "worldseed.level_update"
    bl_label = "Update Level"
    bl_options = {"REGISTER", "UNDO"}
    family = "level"

    def finished(self, context, root):
        super().finished(context, root)
        report_warnings(self, root)


class WORLDSEED_OT_level_reseed(Reseed, bpy.types.Operator):
    """Draw a new random seed; rebuilds the active Worldseed level with it"""

    bl_idname = "worldseed.level_reseed"
    bl_label = "New Seed"
    bl_options = {"REGISTER", "UNDO"}
    family = "level"

    def finished(self, context, root):
        super().finished(context, root)
        report_warnings(self, root)


class WORLDSEED_OT_level_load_settings(LoadSettings, bpy.types.Operator):
    """Copy the active Worldseed level's settings into the Levels panel"""

    bl_idname = "worldseed.level_load_settings"
    bl_label = "Load from Active"
    bl_options = {"REGISTER", "UNDO"}
    family = "level"


class WORLDSEED_OT_level_make_real(FamilyOperator, bpy.types.Operator):
    """Turn the active level's kit instances into real objects (sharing the modules' meshes)"""

    bl_idname = "worldseed.level_make_real"
    bl_label = "Make Real"
    bl_options = {"REGISTER", "UNDO"}
    family = "level"

    @classmethod
    def poll(cls, context):
        return bridge_levels.level_kit_of(context.active_object) is not None

    def execute(self, context):
        kit = bridge_levels.level_kit_of(context.active_object)
        root = kit.parent
        collection = root.users_collection[0] if root.users_collection else context.scene.collection

        def work():
            made = bridge_levels.make_kit_real(kit, collection=collection)
            bridge_levels.remove_kit(kit)
            # bring the view layer's bases up to date before walking them: without it the walk in
            # select_only crashed Blender 5.0 about one run in ten (kit object removed, modules linked)
            context.view_layer.update()
            select_only(context, root)
            self.report({"INFO"}, f"Worldseed: {len(made):,} kit modules are objects now")
            return {"FINISHED"}

        return self.guard(context, work)


classes = (
    WORLDSEED_OT_level_add,
    WORLDSEED_OT_level_update,
    WORLDSEED_OT_level_reseed,
    WORLDSEED_OT_level_load_settings,
    WORLDSEED_OT_level_make_real,
)
