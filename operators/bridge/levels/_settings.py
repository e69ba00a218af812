"""The Levels panel's adapter: its settings (the properties of ``core.levels.LIMITS`` and the WFC
generators' own), read into a :class:`core.levels.LevelSpec` and back, and a level rebuilt from them.

One definition makes the Levels panel's property group and the Add Level operator's redo panel.
The WFC generators add what a text field cannot say well: the panel picks the WFC tileset from the
presets or a file, the sample from the presets, a file or an image of the .blend (its pixels become
the sample), the sample values' classes as ``0=wall, 1=floor`` text, the global constraints as text
(``connect_points`` as ``3,4; 20,10``, ``counts`` as ``door=1-4, junction=2-``, painted cells as
``0,0=rock``: :mod:`._text`), and a collection of tile objects named after the tiles (one instance
per WFC cell).  Those are turned into spec values here (:meth:`LevelAdapter.sources`,
:meth:`LevelAdapter.table`) and back (:meth:`LevelAdapter.load`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import bpy

from ....core import levels as core_levels
from ....core.errors import ParameterError
from ....core.levels import LevelSpec
from ..family import Adapter, Plan, auto_props, settings_class
from ..properties import RELATIVE, SHOWN_KINDS, apply_spec, attrs_table, blend_path
from ._build import build_section, build_steps
from ._objects import LEVEL_KIND, level_kit_of, level_map, level_root
from ._store import stored_geometry, stored_source, stored_spec
from ._text import (
    classes_from_text,
    classes_to_text,
    counts_from_text,
    counts_to_text,
    fixed_from_text,
    fixed_to_text,
    points_from_text,
    points_to_text,
)
from ._wfc import naming_image, sample_file, wfc_presets

if TYPE_CHECKING:
    from ....core.recipe import Recipe
    from ..properties import PropertyDef, Settings, Update
    from ..world import World

__all__ = [
    "LevelAdapter",
    "LEVEL_FIELDS",
    "PANEL_FIELDS",
    "TEXT_FIELDS",
    "SHOWN_FIELDS",
    "WFC_TILED",
    "WFC_SAMPLED",
    "GEOMETRY_ITEMS",
    "SAMPLE_SOURCES",
    "LIVE_WFC_CELLS",
    "generator_fields",
    "is_modal_level",
]

#: Every level setting shown as a generic property (``core.levels.LIMITS`` but the tables written as text).
LEVEL_FIELDS = tuple(n for n, limit in core_levels.LIMITS.items() if limit.kind in SHOWN_KINDS)
#: The level settings the Levels panel holds as those properties: its WFC tileset is a choice of the presets
#: and a file (:meth:`LevelAdapter.sources_props`), read by :meth:`LevelAdapter.sources` and written by
#: :meth:`LevelAdapter.load`; the Add Level operator holds it as text, as a recipe does.
PANEL_FIELDS = tuple(n for n in LEVEL_FIELDS if n != "wfc_tileset")
#: The tables the panel writes as text, with their readers and writers.
TEXT_FIELDS: dict[str, tuple[Callable[[str], list[Any]], Callable[[Any], str]]] = {
    "classes": (classes_from_text, classes_to_text),
    "connect_points": (points_from_text, points_to_text),
    "counts": (counts_from_text, counts_to_text),
    "fixed": (fixed_from_text, fixed_to_text),
}
#: Level settings every generator has, as the panels show them (``origin`` is the 3D cursor's).
SHOWN_FIELDS = ("generator", "name", "width", "height", "cell_size", "wall_height", "ceiling", "autotile")
#: Generators that take a WFC tileset (``wfc_tileset``) and a sample (``sample``).
WFC_TILED = ("wfc_tiled", "wfc")
WFC_SAMPLED = ("wfc_overlapping", "wfc")
#: Auto Update rebuilds a WFC level of at most this many cells and without counts or ``connected``
#: (:meth:`LevelAdapter.live`): such a level takes a fraction of a second, a larger or constrained one
#: may search for seconds, so the artist presses Update Level (progress, Esc).
LIVE_WFC_CELLS = 64 * 64

GEOMETRY_ITEMS = (
    ("MESH", "Mesh", "The level mesh: floor, wall and ceiling quads, a material for each"),
    ("KIT", "Kit", "Modules of a kit collection, named by role, instanced on every cell"),
)
SAMPLE_SOURCES = (
    ("PRESET", "Preset", "A sample that ships with Worldseed"),
    ("FILE", "File", "A sample grid (.txt of digits) or picture (.png)"),
    ("IMAGE", "Image", "An image of this .blend: its pixels are the sample"),
)
_FILE = ("FILE", "File", "A tileset file (.toml)")


def generator_fields(generator: str) -> tuple[str, ...]:
    """The settings of level ``generator`` beyond the common ones, in the order of ``core.levels.LIMITS``."""
    own = set(core_levels.GENERATOR_KEYS.get(generator, ()))
    return tuple(n for n in core_levels.LIMITS if n in own)


def is_modal_level(spec: LevelSpec) -> bool:
    """True for a level made modally when its operator is invoked from a window: every WFC level (its
    search may take seconds whatever the grid's size; the other generators take a fraction of one)."""
    return spec.generator in core_levels.WFC_GENERATORS


def _preset_file(value: str, key: str) -> str:
    """A preset the panel does not list (a 3-D tileset, a sample that makes no level by default) as its file;
    a file path as it is."""
    if value in core_levels.preset_names(key):
        return core_levels.resolve_file(value, key=key)[0]
    return value


def _preset_items(stems: Iterable[str], what: str) -> list[tuple[str, str, str]]:
    return [(s, s.replace("_", " ").title(), f"The {s!r} {what} that ships with Worldseed") for s in stems]


def _text_prop(name: str, label: str, description: str, update: Update | None) -> PropertyDef:
    kw: dict[str, Any] = {"update": update} if update is not None else {}
    return bpy.props.StringProperty(name=label, default="", description=description, **kw)


def text_props(update: Update | None = None) -> dict[str, PropertyDef]:
    """The tables written as text: ``classes``, ``connect_points``, ``fixed``, ``counts``."""
    return {
        "classes": _text_prop(
            "classes",
            "Classes",
            "Sample value = level class, comma separated (0=wall, 1=floor, #ff0000=door); empty: the most "
            "common value on the sample's border is wall, every other value floor",
            update,
        ),
        "connect_points": _text_prop(
            "connect_points",
            "Connect Points",
            "Cells x,y (x the column, y the row, row 0 north) that must be walkable and linked, separated by "
            "';' (3,4; 20,10); needs Connected",
            update,
        ),
        "fixed": _text_prop(
            "fixed",
            "Fixed Cells",
            "Painted cells x,y=tile the level must show, separated by ';' (0,0=rock; 5,2=bend 1; 12,8=2): WFC "
            "tiles: a base tile (any turn) or a variant name; WFC sample: a sample value (12, #ff0000)",
            update,
        ),
        "counts": _text_prop(
            "counts",
            "Counts",
            "How many cells may show a tile (WFC tiles: its base name) or a sample value (12, #ff0000): "
            "name=min-max, comma separated (dead end=0-6, junction=2- for at least 2, bridge=3 for exactly 3)",
            update,
        ),
    }


class LevelAdapter(Adapter):
    """``[[level]]``: the Levels panel's level (the common settings and its generator's own, the WFC
    sources and tables as text, how it becomes geometry); the root is the level's object."""

    key = "level"
    family = "levels"
    kind = LEVEL_KIND
    label = "level"
    update_operator = "worldseed.level_update"
    prefix = "level."
    auto_modal = False  # Auto Update rebuilds a quick level at once, and leaves a slow one to Update Level

    def fields(self) -> tuple[str, ...]:
        return LEVEL_FIELDS

    def sources_props(self, update: Update | None = None) -> dict[str, PropertyDef]:
        """The panel's own ways to name ``wfc_tileset`` and ``sample`` (the presets that make levels, files,
        an image of the .blend) and the tile objects."""
        kw: dict[str, Any] = {} if update is None else {"update": update}
        tilesets, samples = wfc_presets()
        return {
            "wfc_tileset": bpy.props.EnumProperty(
                name="WFC Tileset",
                items=[*_preset_items(tilesets, "tileset"), _FILE],
                default=self.defaults().wfc_tileset,
                description="The tileset of WFC (tiles): a preset, or a file",
                **kw,
            ),
            "tileset_file": bpy.props.StringProperty(
                name="Tileset File",
                subtype="FILE_PATH",
                default="",
                description="A WFC tileset (.toml); '//' and a relative path start at the saved .blend's folder",
                **RELATIVE,
                **kw,
            ),
            "sample_source": bpy.props.EnumProperty(
                name="Sample",
                items=SAMPLE_SOURCES,
                default="PRESET",
                description="Where the WFC sample comes from",
                **kw,
            ),
            "sample_preset": bpy.props.EnumProperty(
                name="Sample Preset",
                items=_preset_items(samples, "sample"),
                default=core_levels.DEFAULT_SAMPLE,
                description="A WFC sample preset that makes levels (others: as a file)",
                **kw,
            ),
            "sample_file": bpy.props.StringProperty(
                name="Sample File",
                subtype="FILE_PATH",
                default="",
                description="A sample grid (.txt) or picture (.png); '//' and a relative path start at the saved "
                ".blend's folder",
                **RELATIVE,
                **kw,
            ),
            "sample_image": bpy.props.PointerProperty(
                type=bpy.types.Image, name="Sample Image", description="An image whose pixels are the sample", **kw
            ),
            "tile_objects": bpy.props.PointerProperty(
                type=bpy.types.Collection,
                name="Tile Objects",
                description="WFC (tiles): objects named after the tiles, one instance per cell, turned as its tile",
                **kw,
            ),
        }

    def operator_props(self) -> dict[str, PropertyDef]:
        """What the Add Level operator holds besides :meth:`props`: the geometry, and the kit, the tile
        objects and the sample image by name (an operator holds no pointers)."""
        return {
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
            **text_props(),
        }

    def settings_classes(self, update: Update | None = None) -> tuple[type[bpy.types.PropertyGroup], ...]:
        kw: dict[str, Any] = {} if update is None else {"update": update}
        props = {
            **self.props(update=update),
            **self.sources_props(update=update),  # wfc_tileset: the presets and a file, not text
            **text_props(update=update),
            "geometry": bpy.props.EnumProperty(
                name="Geometry",
                items=GEOMETRY_ITEMS,
                default="MESH",
                description="How the level becomes geometry",
                **kw,
            ),
            "kit": bpy.props.PointerProperty(
                type=bpy.types.Collection,
                name="Kit",
                description="Modules named by role: floor, wall, outer corner, inner corner, wall end, door, pillar",
                **kw,
            ),
            **auto_props(self.label),
        }
        adapter = self
        methods: dict[str, Callable[..., Any]] = {
            **self.methods(),
            "uses_wfc_tileset": lambda s: s.generator in WFC_TILED,
            "uses_sample": lambda s: s.generator in WFC_SAMPLED and s.generator not in WFC_TILED,
            "uses_constraints": lambda s: s.generator in (*WFC_TILED, *WFC_SAMPLED),
            "live_rebuilds": lambda s: adapter.live(s),
            "shown_fields": lambda s: SHOWN_FIELDS,
            "own_fields": lambda s: tuple(
                n
                for n in generator_fields(s.generator)
                if n not in ("wfc_tileset", "sample", "classes", "connect_points", "counts", "fixed")
            ),
            "kit_of": lambda s, obj: level_kit_of(obj),
            "map_of": lambda s, obj: level_map(obj),
        }
        doc = "The Levels panel's settings: a level ([[level]]), its WFC sources, its geometry."
        return (settings_class("WorldseedLevelSettings", doc, props, methods),)

    # ---------------------------------------------------------------- sidebar -> spec

    def wfc_tileset(self, settings: Settings) -> str:
        """The WFC tileset the Levels panel names: a preset name or a file's absolute path ("" for a file
        not chosen yet)."""
        wfc = settings.wfc_tileset
        return wfc if wfc != "FILE" else blend_path(settings.tileset_file)

    def sources(self, settings: Settings) -> tuple[dict[str, str], bpy.types.Image | None]:
        """``({"wfc_tileset": ..., "sample": ...}, image)``: what the panel's own properties stand for (the
        keys the generator takes: a WFC tileset, a sample: a preset name or a file's absolute path), and
        the image whose pixels are the sample (or None; the sample is then a PNG of its pixels,
        :func:`._wfc.sample_file`).  In the panel, ``wfc`` is the tiled model (it names no sample)."""
        generator = settings.generator
        values = {}
        if generator in WFC_TILED:
            values["wfc_tileset"] = self.wfc_tileset(settings)
            if not values["wfc_tileset"]:
                raise ParameterError("level.wfc_tileset: choose the WFC tileset file (or a preset)")
        sample, image = "", None
        if generator in WFC_SAMPLED and generator not in WFC_TILED:
            if settings.sample_source == "PRESET":
                sample = settings.sample_preset
            elif settings.sample_source == "FILE":
                sample = blend_path(settings.sample_file)
            else:
                image = settings.sample_image
                if image is None:
                    raise ParameterError("level.sample: choose the sample image (or a preset or a file)")
                sample = sample_file(image)
            if not sample:
                raise ParameterError("level.sample: choose the sample file (or a preset or an image)")
        if "sample" in core_levels.GENERATOR_KEYS[generator]:
            values["sample"] = sample
        return values, image

    def table(self, props: Settings, **overrides: Any) -> dict[str, Any]:
        """The common settings of ``props`` (settings or operator) and its generator's own (the others are
        not read), the tables from their text, then ``overrides``."""
        own = generator_fields(props.generator)
        names = (*core_levels.COMMON_KEYS, *(n for n in own if n in LEVEL_FIELDS))
        table = attrs_table(core_levels.LIMITS, props, names)
        for name, (read, _write) in TEXT_FIELDS.items():
            if name in own:
                table[name] = read(getattr(props, name))
        return {**table, **overrides}

    def spec(self, props: Settings, **overrides: Any) -> LevelSpec:
        """The validated spec (core's reader also refuses impossible settings: a room larger than its leaf ...)."""
        return self.parse(self.table(props, **overrides))

    def inputs(self, root: bpy.types.Object, scene: bpy.types.Scene) -> tuple[LevelSpec, dict[str, Any]]:
        """``(spec, build keywords)`` of rebuilding ``root`` in place from the Levels panel (its origin stays
        where the level is); raises :class:`ParameterError` for bad settings before anything is built."""
        settings = self.settings(scene)
        values, image = self.sources(settings)
        origin = list(stored_spec(root, files=False).origin)
        with naming_image(image):  # the image's name, not the temporary PNG of its pixels
            spec = self.spec(settings, origin=origin, **values)
        geometry, kit = self.geometry(settings, settings.kit, settings.tile_objects)
        return spec, {
            "collection": scene.collection,
            "replace": root,
            "geometry": geometry,
            "kit": kit,
            "sample_image": image,
        }

    def geometry(
        self, props: Settings, kit: bpy.types.Collection | None, tiles: bpy.types.Collection | None = None
    ) -> tuple[str, bpy.types.Collection | None]:
        """``(geometry, collection)`` of a build: the tile objects for a WFC (tiles) level given them, else
        the mesh or the kit (which must be chosen)."""
        if tiles is not None and props.generator in WFC_TILED:
            return "TILES", tiles
        if props.geometry == "KIT" and kit is None:
            raise ParameterError("kit: choose the collection of the kit's modules (or set Geometry to Mesh)")
        return props.geometry, kit

    def tables(self, scene: bpy.types.Scene) -> dict[str, Any]:
        """The Levels panel's level at the 3D cursor, as Add Level makes it, for a recipe (which builds
        meshes from files: a kit, tile objects or an image of the .blend have no place in it)."""
        settings = self.settings(scene)
        if settings.geometry == "KIT" or (settings.tile_objects is not None and settings.generator in WFC_TILED):
            raise ParameterError(
                "the Levels panel builds the level from objects of this .blend (a kit or tile objects); a recipe's "
                "levels are meshes: set Geometry to Mesh and clear Tile Objects to save it"
            )
        values, image = self.sources(settings)
        if image is not None:
            raise ParameterError(
                f"the Levels panel's sample is the image {image.name!r} of this .blend; a recipe names a file: save "
                "the image as a PNG and choose it as the Sample File"
            )
        return {self.key: [self.table(settings, origin=list(scene.cursor.location.to_tuple()), **values)]}

    # ---------------------------------------------------------------- spec -> sidebar

    def load(
        self, props: Settings, spec: LevelSpec, *, keep: Iterable[str] = (), image: bpy.types.Image | None = None
    ) -> None:
        """``spec`` into the panel: every field, the WFC tileset of a generator that takes one (a preset the
        panel lists, else a file), the sample (a listed preset, a file or ``image``) and the tables as text."""
        apply_spec(props, spec, names=PANEL_FIELDS, keep=keep)
        tilesets, samples = wfc_presets()
        if spec.generator in WFC_TILED:
            if spec.wfc_tileset in tilesets:
                props.wfc_tileset = spec.wfc_tileset
            else:
                props.wfc_tileset = "FILE"
                props.tileset_file = _preset_file(spec.wfc_tileset, "wfc_tileset")
        sample = spec.sample or (core_levels.DEFAULT_SAMPLE if spec.generator == "wfc_overlapping" else "")
        if spec.generator in WFC_SAMPLED and sample:
            if image is not None:
                props.sample_source, props.sample_image = "IMAGE", image
            elif sample in samples:
                props.sample_source, props.sample_preset = "PRESET", sample
            else:
                props.sample_source, props.sample_file = "FILE", _preset_file(sample, "sample")
        for name, (_read, write) in TEXT_FIELDS.items():
            setattr(props, name, write(getattr(spec, name)))

    # ---------------------------------------------------------------- objects

    def stored(self, root: bpy.types.Object) -> LevelSpec:
        return stored_spec(root)

    def load_from(self, root: bpy.types.Object, settings: Settings) -> list[str]:
        """Load Settings of a level: every setting, its sources and geometry; a tileset or sample file gone
        (moved, deleted) is a warning, and every other setting still loads."""
        warnings = []
        try:
            spec = stored_spec(root)
        except ParameterError as err:
            spec = stored_spec(root, files=False)  # raises when the settings themselves are lost
            warnings.append(f"{err}; the other settings are loaded")
        geometry, kit = stored_geometry(root)
        _, image = stored_source(root)
        self.load(settings, spec, image=image)
        if geometry == "TILES":
            settings.tile_objects = kit
        else:
            settings.geometry = geometry
            settings.tile_objects = None
            if kit is not None:
                settings.kit = kit
        return warnings

    def root(self, obj: bpy.types.Object | None) -> bpy.types.Object | None:
        return level_root(obj)

    def rebuild_plan(self, root: bpy.types.Object, scene: bpy.types.Scene) -> Plan:
        spec, build = self.inputs(root, scene)
        return Plan(build_steps(spec, **build), modal=is_modal_level(spec))

    def live(self, settings: Settings) -> bool:
        """Any level but a WFC level of more than :data:`LIVE_WFC_CELLS` cells or with ``connected`` or
        ``counts`` (those may search for seconds: the panel says to press Update Level)."""
        if settings.generator not in core_levels.WFC_GENERATORS:
            return True
        constrained = settings.connected or settings.counts.strip()
        return settings.width * settings.height <= LIVE_WFC_CELLS and not constrained

    def check(self, root: bpy.types.Object, scene: bpy.types.Scene) -> None:
        self.inputs(root, scene)

    def build(
        self,
        recipe: Recipe,
        world: World,
        *,
        scene: bpy.types.Scene,
        progress: Callable[[int, int, str], object] | None = None,
    ) -> None:
        build_section(recipe, world, scene=scene, progress=progress)
