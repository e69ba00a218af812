"""Level operators: add at the 3D cursor, rebuild in place, new seed, load settings, make the kit real.

Operators only gather a :class:`core.levels.LevelSpec` from the Levels panel
(or their redo panel) and hand it to :mod:`.bridge.level`.  Every setting is a
property generated from ``core.levels.LIMITS``, so the redo panel has them all;
it shows the common settings and the chosen generator's own.

The WFC generators add what a text field cannot say well: the panel picks the WFC tileset from the
presets or a file, the sample from the presets, a file or an image of the .blend (its pixels become
the sample), the sample values' classes as ``0=wall, 1=floor`` text, the global constraints as text
(``connect_points`` as ``3,4; 20,10``, ``counts`` as ``door=1-4, junction=2-``), and a collection
of tile objects named after the tiles (one instance per WFC cell).  Every WFC level Add Level, Update
Level or New Seed makes from a window is made modally, with progress and Esc (a small grid with tight
counts can search for seconds); without a window (background runs, scripts calling ``exec``) it is made
at once.  Auto Update rebuilds a WFC level only while it is quick (:func:`live_rebuilds`).

The settings (properties, reading them into a spec and back) live in :mod:`.level_settings`, the
text settings' parsers in :mod:`.level_text`; their public names are importable from here too.
"""

import bpy

from ..core import levels as core_levels
from ..core.errors import ParameterError
from .bridge import level as bridge_level
from .bridge import level_wfc
from .bridge.properties import apply_spec
from .bridge.query import LEVEL_SHOWN_FIELDS, level_generator_fields, level_kit_of, level_root
from .common import ModalBuild, new_seed, paused_auto_update, select_only
from .level_settings import COMMON_FIELDS as COMMON_FIELDS
from .level_settings import GEOMETRY_ITEMS as GEOMETRY_ITEMS
from .level_settings import (
    LEVEL_FIELDS,
    PANEL_FIELDS,
    WFC_SAMPLED,
    WFC_TILED,
    classes_prop,
    constraint_props,
    level_props,
    load_wfc_settings,
    spec_from_props,
    wfc_tileset_of,
    wfc_values,
)
from .level_settings import SAMPLE_SOURCES as SAMPLE_SOURCES
from .level_settings import wfc_settings_props as wfc_settings_props
from .level_text import classes_from_text as classes_from_text
from .level_text import classes_to_text as classes_to_text
from .level_text import counts_from_text as counts_from_text
from .level_text import counts_to_text as counts_to_text
from .level_text import fixed_from_text as fixed_from_text
from .level_text import fixed_to_text as fixed_to_text
from .level_text import points_from_text as points_from_text
from .level_text import points_to_text as points_to_text

#: Auto Update rebuilds a WFC level of at most this many cells and without counts or ``connected``
#: (:func:`live_rebuilds`): such a level takes a fraction of a second, a larger or constrained one may
#: search for seconds, so the artist presses Update Level (progress, Esc).
LIVE_WFC_CELLS = 64 * 64


def _geometry(props, kit, tiles=None):
    if tiles is not None and props.generator in WFC_TILED:
        return "TILES", tiles
    if props.geometry == "KIT" and kit is None:
        raise ParameterError("kit: choose the collection of the kit's modules (or set Geometry to Mesh)")
    return props.geometry, kit


def _update_inputs(root, scene):
    """``(spec, build keywords)`` of rebuilding ``root`` in place from the Levels panel (its origin stays
    where the level is); raises :class:`ParameterError` for bad settings before anything is built."""
    settings = scene.worldseed.level
    values, image = wfc_values(settings)
    origin = list(bridge_level.stored_spec(root, files=False).origin)
    with level_wfc.naming_image(image):  # the image's name, not the temporary PNG of its pixels
        spec = spec_from_props(settings, origin=origin, **values)
    geometry, kit = _geometry(settings, settings.kit, settings.tile_objects)
    build = {"collection": scene.collection, "replace": root, "geometry": geometry, "kit": kit}
    return spec, {**build, "sample_image": image}


def rebuild_from_settings(root, scene):
    """Rebuild the level ``root`` in place from the Levels panel (its origin stays where the level is)."""
    spec, build = _update_inputs(root, scene)
    return bridge_level.build_level(spec, **build)


def check_update(root, scene):
    """Check the Levels panel's settings for rebuilding ``root`` without building anything (what Auto
    Update does for a level it leaves to Update Level): raises :class:`ParameterError` for bad ones."""
    _update_inputs(root, scene)


def update_steps(root, scene):
    """``(spec, steps)``: :func:`rebuild_from_settings` as the steps of a modal run
    (:func:`.bridge.level.build_steps`: the scene changes at the last step only, closing them early leaves
    it as it was)."""
    spec, build = _update_inputs(root, scene)
    return spec, bridge_level.build_steps(spec, **build)


def live_rebuilds(settings):
    """True when Auto Update rebuilds the level the Levels panel's ``settings`` describe: any level but a
    WFC level of more than :data:`LIVE_WFC_CELLS` cells or with ``connected`` or ``counts`` (those may
    search for seconds: the panel says to press Update Level, which shows progress and takes Esc)."""
    if settings.generator not in core_levels.WFC_GENERATORS:
        return True
    constrained = settings.connected or settings.counts.strip()
    return settings.width * settings.height <= LIVE_WFC_CELLS and not constrained


def _report_missing_tiles(op, root):
    missing = list(root.get(bridge_level.TILES_MISSING_KEY, ()))
    if missing:
        op.report(
            {"WARNING"},
            f"Worldseed: no tile object named {', '.join(map(repr, missing))}: their cells are the level mesh",
        )


def _report_warnings(op, root):
    for line in bridge_level.level_warnings(root):
        op.report({"WARNING"}, f"Worldseed: {line}")


class WORLDSEED_OT_level_add(ModalBuild, bpy.types.Operator):
    """Add a grid level at the 3D cursor, built from the Levels panel's settings"""

    bl_idname = "worldseed.level_add"
    bl_label = "Add Level"
    bl_options = {"REGISTER", "UNDO"}

    __annotations__ = {
        **level_props(),
        "geometry": bpy.props.EnumProperty(name="Geometry", items=GEOMETRY_ITEMS, default="MESH"),
        "kit": bpy.props.StringProperty(name="Kit", default="", description="Collection of the kit's modules"),
        "tile_objects": bpy.props.StringProperty(
            name="Tile Objects",
            default="",
            description="WFC (tiles): collection of objects named after the tiles, one instance per cell",
        ),
        "sample_image": bpy.props.StringProperty(
            name="Sample Image",
            default="",
            description="WFC (sample): an image of this .blend whose pixels are the sample (instead of Sample)",
        ),
        "classes": classes_prop({}),
        **constraint_props({}),
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
        for name in PANEL_FIELDS:
            setattr(self, name, getattr(settings, name))
        values, image = wfc_values(settings)
        self.wfc_tileset, self.sample = wfc_tileset_of(settings), values.get("sample", "")
        self.sample_image = image.name if image is not None else ""
        self.classes = settings.classes
        self.connect_points, self.counts = settings.connect_points, settings.counts
        self.fixed = settings.fixed
        self.geometry = settings.geometry
        self.kit = settings.kit.name if settings.kit is not None else ""
        tiles = settings.tile_objects
        self.tile_objects = tiles.name if tiles is not None and settings.generator in WFC_TILED else ""
        self.origin = tuple(context.scene.cursor.location)
        self.from_settings = False

    def _inputs(self):
        """``(spec, build keywords)`` from this operator's properties."""
        kit = bpy.data.collections.get(self.kit) if self.kit else None
        if self.kit and kit is None:
            raise ParameterError(f"kit: there is no collection named {self.kit!r}")
        tiles = bpy.data.collections.get(self.tile_objects) if self.tile_objects else None
        if self.tile_objects and tiles is None:
            raise ParameterError(f"tile_objects: there is no collection named {self.tile_objects!r}")
        image = None
        if self.sample_image and self.generator in WFC_SAMPLED:
            image = bpy.data.images.get(self.sample_image)
            if image is None:
                raise ParameterError(f"level.sample_image: there is no image named {self.sample_image!r}")
            self.sample = level_wfc.sample_file(image)
        with level_wfc.naming_image(image):  # the image's name, not the temporary PNG of its pixels
            spec = spec_from_props(self)
        geometry, kit = _geometry(self, kit, tiles)
        return spec, {"geometry": geometry, "kit": kit, "sample_image": image}

    def invoke(self, context, event):
        try:
            self._load_settings(context)
            spec, build = self._inputs()
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        if context.window is not None and is_modal_level(spec):  # Esc, progress: the search may be long
            steps = bridge_level.build_steps(spec, collection=context.collection, **build)
            return self.start_modal(context, steps, f"level {spec.name}")
        return self.execute(context)

    def execute(self, context):
        if self.from_settings:
            try:
                self._load_settings(context)
            except ParameterError as err:
                self.report({"ERROR"}, str(err))
                return {"CANCELLED"}
        if self.new_seed:
            self.seed = new_seed()
            self.new_seed = False
        try:
            spec, build = self._inputs()
            root = bridge_level.build_level(spec, collection=context.collection, **build)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        self.finished(context, root)
        return {"FINISHED"}

    def finished(self, context, root):
        select_only(context, root)
        self.report({"INFO"}, f"Worldseed: added level {root.name!r}")
        _report_missing_tiles(self, root)
        _report_warnings(self, root)

    def draw(self, context):
        layout = self.layout
        row = layout.row(align=True)
        row.prop(self, "seed")
        row.prop(self, "new_seed", text="", icon="FILE_REFRESH", toggle=True)
        layout.use_property_split = True
        for name in (*LEVEL_SHOWN_FIELDS, *level_generator_fields(self.generator)):
            if name in LEVEL_FIELDS:
                layout.prop(self, name)
        if self.generator in WFC_SAMPLED:
            layout.prop(self, "sample_image")
            layout.prop(self, "classes")
        if self.generator in core_levels.WFC_GENERATORS:
            layout.prop(self, "connect_points")
            layout.prop(self, "counts")
            layout.prop(self, "fixed")
        layout.prop(self, "origin")
        if self.generator in WFC_TILED:
            layout.prop(self, "tile_objects")
        if not (self.tile_objects and self.generator in WFC_TILED):
            layout.prop(self, "geometry")
            if self.geometry == "KIT":
                layout.prop(self, "kit")


def is_modal_level(spec):
    """True for a level made modally when its operator is invoked from a window: every WFC level (its
    search may take seconds whatever the grid's size; the other generators take a fraction of one)."""
    return spec.generator in core_levels.WFC_GENERATORS


class _ModalUpdate(ModalBuild):
    """Rebuild the active level from the Levels panel, modally (progress, Esc) for a WFC level invoked
    from a window (:func:`is_modal_level`), at once otherwise."""

    def invoke(self, context, event):
        root = level_root(context.active_object)
        if context.window is None or root is None:
            return self.execute(context)
        self.prepare(context)
        try:
            spec, steps = update_steps(root, context.scene)
        except ParameterError as err:
            self.failed(context, err)
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        if not is_modal_level(spec):
            steps.close()
            return self.rebuild(context)
        return self.start_modal(context, steps, f"level {root.name}")

    def prepare(self, context):
        """What the operator changes before the rebuild (New Seed: the seed)."""

    def failed(self, context, err):
        """Undo :meth:`prepare` after an error (the scene is as it was)."""

    def cancelled(self, context):
        """Esc: undo :meth:`prepare` as after an error."""
        self.failed(context, None)

    def rebuild(self, context):
        root = level_root(context.active_object)
        if root is not None:
            try:
                root = rebuild_from_settings(root, context.scene)
            except ParameterError as err:
                self.failed(context, err)
                self.report({"ERROR"}, str(err))
                return {"CANCELLED"}
            self.finished(context, root)
        return {"FINISHED"}

    def finished(self, context, root):
        select_only(context, root)
        _report_missing_tiles(self, root)
        _report_warnings(self, root)


class WORLDSEED_OT_level_update(_ModalUpdate, bpy.types.Operator):
    """Rebuild the active level in place from the Levels panel's settings (Load from Active gets its own)"""

    bl_idname = "worldseed.level_update"
    bl_label = "Update Level"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return level_root(context.active_object) is not None

    def execute(self, context):
        return self.rebuild(context)


class WORLDSEED_OT_level_reseed(_ModalUpdate, bpy.types.Operator):
    """Draw a new random seed; rebuilds the active Worldseed level with it"""

    bl_idname = "worldseed.level_reseed"
    bl_label = "New Seed"
    bl_options = {"REGISTER", "UNDO"}

    def prepare(self, context):
        settings = context.scene.worldseed.level
        self._old_seed = settings.seed
        with paused_auto_update(settings):  # one rebuild, not one from the update callback
            settings.seed = new_seed()

    def failed(self, context, err):
        """Esc (or a failed search) gives the panel its seed back: the seed shown is the level's."""
        with paused_auto_update(context.scene.worldseed.level) as settings:
            settings.seed = self._old_seed

    def execute(self, context):
        self.prepare(context)
        return self.rebuild(context)


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
            try:  # a tileset or sample file gone (moved, deleted): every other setting still loads
                spec = bridge_level.stored_spec(root, files=False)
            except ParameterError:
                self.report({"ERROR"}, str(err))
                return {"CANCELLED"}
            self.report({"WARNING"}, f"Worldseed: {err}; the other settings are loaded")
        settings = context.scene.worldseed.level
        geometry, kit = bridge_level.stored_geometry(root)
        _, image = bridge_level.stored_source(root)
        with paused_auto_update(settings):
            apply_spec(settings, spec, names=PANEL_FIELDS)
            load_wfc_settings(settings, spec, image)
            if geometry == "TILES":
                settings.tile_objects = kit
            else:
                settings.geometry = geometry
                settings.tile_objects = None
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
