"""Level operators: add at the 3D cursor, rebuild in place, new seed, load settings, make the kit real.

Operators only gather a :class:`core.levels.LevelSpec` from the Levels panel
(or their redo panel) and hand it to :mod:`.bridge.level`.  Every setting is a
property generated from ``core.levels.LIMITS``, so the redo panel has them all;
it shows the common settings and the chosen generator's own.

The WFC generators add what a text field cannot say well: the panel picks the WFC tileset from the
presets or a file, the sample from the presets, a file or an image of the .blend (its pixels become
the sample), the sample values' classes as ``0=wall, 1=floor`` text, the global constraints as text
(``connect_points`` as ``3,4; 20,10``, ``counts`` as ``door=1-4, junction=2-``), and a collection
of tile objects named after the tiles (one instance per WFC cell).  Large WFC grids (more than
:data:`MODAL_WFC_CELLS` cells) are made modally from the sidebar, with progress and Esc.
"""

import bpy

from ..core import levels as core_levels
from ..core.errors import ParameterError
from ..core.levels import spec as level_spec
from ..core.spec import from_attrs
from .bridge import level as bridge_level
from .bridge import level_wfc
from .bridge.properties import SHOWN_KINDS, apply_spec, prop_for, props_from_limits
from .bridge.query import LEVEL_SHOWN_FIELDS, level_generator_fields, level_kit_of, level_root
from .common import ModalBuild, new_seed, paused_auto_update, select_only

#: Every level setting shown as a generic property (``core.levels.LIMITS`` but the tables ``classes``,
#: ``connect_points``, ``counts`` and ``fixed``, which the panel writes as text: :func:`classes_from_text`,
#: :func:`points_from_text`, :func:`counts_from_text`, :func:`fixed_from_text`).
LEVEL_FIELDS = tuple(n for n, limit in core_levels.LIMITS.items() if limit.kind in SHOWN_KINDS)
#: Generators that take a WFC tileset (``tileset``) and a sample (``sample``).
WFC_TILED = ("wfc_tiled", "wfc")
WFC_SAMPLED = ("wfc_overlapping", "wfc")
#: WFC levels of more cells than this are made modally from the sidebar (progress bar, Esc cancels).
MODAL_WFC_CELLS = 64 * 64
#: Settings the panel shows whatever the generator (``origin`` is the 3D cursor's, in the redo panel).
COMMON_FIELDS = tuple(core_levels.COMMON_KEYS)

GEOMETRY_ITEMS = (
    ("MESH", "Mesh", "The level mesh: floor, wall and ceiling quads with three materials"),
    ("KIT", "Kit", "Modules of a kit collection, named by role, instanced on every cell"),
)
SAMPLE_SOURCES = (
    ("PRESET", "Preset", "A sample that ships with Worldseed"),
    ("FILE", "File", "A sample grid (.txt of digits) or picture (.png)"),
    ("IMAGE", "Image", "An image of this .blend: its pixels are the sample"),
)
_FILE = ("FILE", "File", "A tileset file (.toml)")


def _preset_items(stems, what):
    return [(s, s.replace("_", " ").title(), f"The {s!r} {what} that ships with Worldseed") for s in stems]


def level_props(update=None):
    """``{name: bpy.props...}`` for every level setting, from ``core.levels.LIMITS``."""
    return props_from_limits(core_levels.LIMITS, core_levels.LevelSpec(), names=LEVEL_FIELDS, update=update)


def wfc_settings_props(update=None):
    """``{name: bpy.props...}`` of the Levels panel's own ways to name ``tileset`` and ``sample``
    (presets, files, an image of the .blend), the auto-tile set, ``classes`` as text and the tile objects."""
    kw = {} if update is None else {"update": update}
    tilesets, samples = level_wfc.wfc_presets()
    return {
        "autotile": prop_for(level_spec.AUTOTILE_LIMIT, "blob", update=update),
        "wfc_tileset": bpy.props.EnumProperty(
            name="WFC Tileset",
            items=[*_preset_items(tilesets, "tileset"), _FILE],
            default=0,
            description="The tileset of WFC (tiles): a preset, or a file",
            **kw,
        ),
        "tileset_file": bpy.props.StringProperty(
            name="Tileset File", subtype="FILE_PATH", default="", description="A WFC tileset (.toml)", **kw
        ),
        "sample_source": bpy.props.EnumProperty(
            name="Sample", items=SAMPLE_SOURCES, default="PRESET", description="Where the WFC sample comes from", **kw
        ),
        "sample_preset": bpy.props.EnumProperty(
            name="Sample Preset", items=_preset_items(samples, "sample"), description="A WFC sample preset", **kw
        ),
        "sample_file": bpy.props.StringProperty(
            name="Sample File",
            subtype="FILE_PATH",
            default="",
            description="A sample grid (.txt) or picture (.png)",
            **kw,
        ),
        "sample_image": bpy.props.PointerProperty(
            type=bpy.types.Image, name="Sample Image", description="An image whose pixels are the sample", **kw
        ),
        "classes": _classes_prop(kw),
        **_constraint_props(kw),
        "tile_objects": bpy.props.PointerProperty(
            type=bpy.types.Collection,
            name="Tile Objects",
            description="WFC (tiles): objects named after the tiles, one instance per cell, turned as its tile",
            **kw,
        ),
    }


def _classes_prop(kw):
    return bpy.props.StringProperty(
        name="Classes",
        default="",
        description="Sample value = level class, comma separated (0=wall, 1=floor, #ff0000=door); empty: the "
        "most common value on the sample's border is wall, every other value floor",
        **kw,
    )


def _constraint_props(kw):
    return {
        "connect_points": bpy.props.StringProperty(
            name="Connect Points",
            default="",
            description="Cells x,y (x the column, y the row, row 0 north) that must be walkable and linked, "
            "separated by ';' (3,4; 20,10); needs Connected",
            **kw,
        ),
        "fixed": bpy.props.StringProperty(
            name="Fixed Cells",
            default="",
            description="Painted cells x,y=tile the level must show, separated by ';' (0,0=rock; 5,2=bend 1; "
            "12,8=2): WFC tiles: a base tile (any turn) or a variant name; WFC sample: a sample value (12, #ff0000)",
            **kw,
        ),
        "counts": bpy.props.StringProperty(
            name="Counts",
            default="",
            description="How many cells may show a tile (WFC tiles: its base name) or a sample value (12, #ff0000): "
            "name=min-max, comma separated (door=1-4, junction=2- for at least 2, bridge=3 for exactly 3)",
            **kw,
        ),
    }


def points_from_text(text):
    """``"3,4; 20,10"`` -> ``[[3, 4], [20, 10]]`` (what ``level.connect_points`` takes).

    >>> points_from_text(" 3, 4;20 ,10; ")
    [[3, 4], [20, 10]]
    """
    points = []
    for item in (t.strip() for t in text.split(";")):
        if not item:
            continue
        parts = [p.strip() for p in item.split(",")]
        if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
            raise ParameterError(
                f"level.connect_points: write cells x,y separated by ';' (3,4; 20,10) with x and y integers >= 0, "
                f"got {item!r}"
            )
        points.append([int(parts[0]), int(parts[1])])
    return points


def fixed_from_text(text):
    """``"0,0=rock; 5,2=bend 1"`` -> ``[[0, 0, "rock"], [5, 2, "bend 1"]]`` (what ``level.fixed`` takes).

    >>> fixed_from_text(" 0,0 = rock;5, 2=bend 1; ")
    [[0, 0, 'rock'], [5, 2, 'bend 1']]
    """
    cells = []
    for item in (t.strip() for t in text.split(";")):
        if not item:
            continue
        where, eq, tile = item.partition("=")
        parts = [p.strip() for p in where.split(",")]
        if not eq or not tile.strip() or len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
            raise ParameterError(
                f"level.fixed: write painted cells x,y=tile separated by ';' (0,0=rock; 5,2=bend 1) with x and y "
                f"integers >= 0, got {item!r}"
            )
        cells.append([int(parts[0]), int(parts[1]), tile.strip()])
    return cells


def fixed_to_text(cells):
    """The inverse of :func:`fixed_from_text` (a spec's painted cells)."""
    return "; ".join(f"{x},{y}={tile}" for x, y, tile in cells)


def points_to_text(points):
    """The inverse of :func:`points_from_text` (a spec's points)."""
    return "; ".join(f"{x},{y}" for x, y in points)


def _count_bound(text, item):
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        raise ParameterError(
            f"level.counts: write name=min-max (door=1-4), name=min- (no maximum) or name=count, with whole "
            f"numbers, got {item!r}"
        )
    return int(text)


def counts_from_text(text):
    """``"door=1-4, junction=2-, 3=5"`` -> ``[["door", 1, 4], ["junction", 2, -1], ["3", 5, 5]]`` (what
    ``level.counts`` takes: ``max`` -1 for no bound; ``-4`` alone means 0 to 4).

    >>> counts_from_text("dead end = 1-4, #FF0000=2-, 3=5, x=-2")
    [['dead end', 1, 4], ['#FF0000', 2, -1], ['3', 5, 5], ['x', 0, 2]]
    """
    out = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        name, eq, bounds = item.partition("=")
        if not eq or not name.strip():
            raise ParameterError(f"level.counts: write name=min-max pairs (door=1-4, junction=2-), got {item!r}")
        low, dash, high = bounds.partition("-")
        low = _count_bound(low, item) if low.strip() or not dash else 0
        high = (_count_bound(high, item) if high.strip() else -1) if dash else low
        out.append([name.strip(), low, high])
    return out


def counts_to_text(counts):
    """The inverse of :func:`counts_from_text` (a spec's sorted ``(name, min, max)``)."""
    return ", ".join(
        f"{name}={low}" if low == high else f"{name}={low}-{high if high >= 0 else ''}" for name, low, high in counts
    )


def classes_from_text(text):
    """``"0=wall, 1=floor"`` -> ``[["0", "wall"], ["1", "floor"]]`` (what ``level.classes`` takes).

    >>> classes_from_text(" 0 = wall, #FF0000=door ")
    [['0', 'wall'], ['#FF0000', 'door']]
    """
    pairs = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        value, eq, cls = item.partition("=")
        if not eq:
            raise ParameterError(f"level.classes: write value=class pairs (0=wall, 1=floor), got {item!r}")
        pairs.append([value.strip(), cls.strip()])
    return pairs


def classes_to_text(classes):
    """The inverse of :func:`classes_from_text` (a spec's sorted pairs)."""
    return ", ".join(f"{value}={cls}" for value, cls in classes)


def wfc_values(settings):
    """``({"tileset": ..., "sample": ...}, image)``: what the Levels panel's own properties stand for
    (a WFC generator's tileset: a preset name or a file's absolute path; others: the auto-tile set),
    and the image whose pixels are the sample (or None; the sample is then a PNG of its pixels,
    :func:`.bridge.level_wfc.sample_file`).  In
    the panel, ``wfc`` is the tiled model (it always names a WFC tileset)."""
    generator = settings.generator
    if generator in WFC_TILED:
        wfc = settings.wfc_tileset
        tileset = wfc if wfc != "FILE" else bpy.path.abspath(settings.tileset_file)
        if not tileset:
            raise ParameterError("level.tileset: choose the WFC tileset file (or a preset)")
    else:
        tileset = settings.autotile
    sample, image = "", None
    if generator in WFC_SAMPLED and generator not in WFC_TILED:
        if settings.sample_source == "PRESET":
            sample = settings.sample_preset
        elif settings.sample_source == "FILE":
            sample = bpy.path.abspath(settings.sample_file)
        else:
            image = settings.sample_image
            if image is None:
                raise ParameterError("level.sample: choose the sample image (or a preset or a file)")
            sample = level_wfc.sample_file(image)
        if not sample:
            raise ParameterError("level.sample: choose the sample file (or a preset or an image)")
    values = {"tileset": tileset}
    if "sample" in core_levels.GENERATOR_KEYS[generator]:
        values["sample"] = sample
    return values, image


def spec_from_props(props, **overrides):
    """A validated :class:`LevelSpec` from an object holding :func:`level_props` (settings or operator):
    the common settings and the generator's own (the others are not read); ``classes``,
    ``connect_points`` and ``counts`` from their text properties when the generator has them."""
    own = level_generator_fields(props.generator)
    fields = (*COMMON_FIELDS, *(n for n in own if n in LEVEL_FIELDS))
    spec = from_attrs(core_levels.LevelSpec, core_levels.LIMITS, props, prefix="level.", fields=fields)
    table = {**core_levels.to_dict(spec), **overrides}
    for name, parse in (
        ("classes", classes_from_text),
        ("connect_points", points_from_text),
        ("counts", counts_from_text),
        ("fixed", fixed_from_text),
    ):
        if name in own and name not in overrides:
            table[name] = parse(getattr(props, name))
    return core_levels.from_dict(table)  # also refuses impossible settings (room larger than its leaf ...)


def _geometry(props, kit, tiles=None):
    if tiles is not None and props.generator in WFC_TILED:
        return "TILES", tiles
    if props.geometry == "KIT" and kit is None:
        raise ParameterError("kit: choose the collection of the kit's modules (or set Geometry to Mesh)")
    return props.geometry, kit


def rebuild_from_settings(root, scene):
    """Rebuild the level ``root`` in place from the Levels panel (its origin stays where the level is)."""
    settings = scene.worldseed.level
    values, image = wfc_values(settings)
    spec = spec_from_props(settings, origin=list(bridge_level.stored_spec(root).origin), **values)
    geometry, kit = _geometry(settings, settings.kit, settings.tile_objects)
    return bridge_level.build_level(
        spec,
        collection=scene.collection,
        replace=root,
        geometry=geometry,
        kit=kit,
        sample_image=image,
    )


def _report_missing_tiles(op, root):
    missing = list(root.get(bridge_level.TILES_MISSING_KEY, ()))
    if missing:
        op.report(
            {"WARNING"},
            f"Worldseed: no tile object named {', '.join(map(repr, missing))}: their cells are the level mesh",
        )


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
        "classes": _classes_prop({}),
        **_constraint_props({}),
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
        values, image = wfc_values(settings)
        self.tileset, self.sample = values["tileset"], values.get("sample", "")
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
        if context.window is not None and is_modal_level(spec):
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
        if self.generator in level_spec.WFC_GENERATORS:
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
    """True for a level made modally from the sidebar: a WFC level of more than :data:`MODAL_WFC_CELLS` cells."""
    return spec.generator in level_spec.WFC_GENERATORS and spec.width * spec.height > MODAL_WFC_CELLS


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
        _report_missing_tiles(self, root)
        return {"FINISHED"}


def load_wfc_settings(settings, spec, image=None):
    """The Levels panel's own properties back from a spec: the auto-tile set or the WFC tileset
    (a preset, else a file), the sample (a preset, a file or ``image``), ``classes``,
    ``connect_points`` and ``counts`` as text."""
    tilesets, samples = level_wfc.wfc_presets()
    if spec.tileset in level_spec.AUTOTILE_SETS:
        settings.autotile = spec.tileset
    elif spec.tileset in tilesets:
        settings.wfc_tileset = spec.tileset
    else:
        settings.wfc_tileset = "FILE"
        settings.tileset_file = spec.tileset
    if spec.generator in WFC_SAMPLED and spec.sample:
        if image is not None:
            settings.sample_source, settings.sample_image = "IMAGE", image
        elif spec.sample in samples:
            settings.sample_source, settings.sample_preset = "PRESET", spec.sample
        else:
            settings.sample_source, settings.sample_file = "FILE", spec.sample
    settings.classes = classes_to_text(spec.classes)
    settings.connect_points = points_to_text(spec.connect_points)
    settings.counts = counts_to_text(spec.counts)
    settings.fixed = fixed_to_text(spec.fixed)


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
                root = rebuild_from_settings(root, context.scene)
                select_only(context, root)
                _report_missing_tiles(self, root)
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
        _, image = bridge_level.stored_source(root)
        with paused_auto_update(settings):
            apply_spec(settings, spec, names=LEVEL_FIELDS)
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
