"""The Levels settings: the properties (from ``core.levels.LIMITS`` and the WFC generators' own), read into a
:class:`core.levels.LevelSpec` and written back.

One definition makes the Levels panel's property group (``addon/properties/level.py``) and the Add Level
operator's redo panel (:mod:`.level`).  The WFC generators' own ways to name a tileset and a sample
(presets, files, an image of the .blend) and the tables written as text (:mod:`.level_text`) are turned
into spec values here (:func:`wfc_values`, :func:`spec_from_props`) and back (:func:`load_wfc_settings`).
"""

import bpy

from ..core import levels as core_levels
from ..core.errors import ParameterError
from ..core.spec import from_attrs
from .bridge import level_wfc
from .bridge.properties import SHOWN_KINDS, blend_path, props_from_limits
from .bridge.query import level_generator_fields
from .level_text import (
    classes_from_text,
    classes_to_text,
    counts_from_text,
    counts_to_text,
    fixed_from_text,
    fixed_to_text,
    points_from_text,
    points_to_text,
)

__all__ = [
    "LEVEL_FIELDS",
    "PANEL_FIELDS",
    "WFC_TILED",
    "WFC_SAMPLED",
    "COMMON_FIELDS",
    "GEOMETRY_ITEMS",
    "SAMPLE_SOURCES",
    "level_props",
    "wfc_settings_props",
    "classes_prop",
    "constraint_props",
    "wfc_tileset_of",
    "wfc_values",
    "spec_from_props",
    "load_wfc_settings",
]

#: Every level setting shown as a generic property (``core.levels.LIMITS`` but the tables ``classes``,
#: ``connect_points``, ``counts`` and ``fixed``, which the panel writes as text: :func:`classes_from_text`,
#: :func:`points_from_text`, :func:`counts_from_text`, :func:`fixed_from_text`).
LEVEL_FIELDS = tuple(n for n, limit in core_levels.LIMITS.items() if limit.kind in SHOWN_KINDS)
#: The level settings the Levels panel holds as those properties: its WFC tileset is a choice of the presets
#: and a file (:func:`wfc_settings_props`), read by :func:`wfc_values` and written by :func:`load_wfc_settings`.
PANEL_FIELDS = tuple(n for n in LEVEL_FIELDS if n != "wfc_tileset")
#: Generators that take a WFC tileset (``wfc_tileset``) and a sample (``sample``).
WFC_TILED = ("wfc_tiled", "wfc")
WFC_SAMPLED = ("wfc_overlapping", "wfc")
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


#: Blender 4.5 on warns (a RuntimeWarning) when a path property without this option is set to '//...'.
_RELATIVE = {"options": {"PATH_SUPPORTS_BLEND_RELATIVE"}} if bpy.app.version >= (4, 5, 0) else {}


def _preset_items(stems, what):
    return [(s, s.replace("_", " ").title(), f"The {s!r} {what} that ships with Worldseed") for s in stems]


def level_props(update=None):
    """``{name: bpy.props...}`` for every level setting, from ``core.levels.LIMITS``."""
    return props_from_limits(core_levels.LIMITS, core_levels.LevelSpec(), names=LEVEL_FIELDS, update=update)


def wfc_settings_props(update=None):
    """``{name: bpy.props...}`` of the Levels panel's own ways to name ``wfc_tileset`` and ``sample``
    (presets, files, an image of the .blend), ``classes`` as text and the tile objects."""
    kw = {} if update is None else {"update": update}
    tilesets, samples = level_wfc.wfc_presets()
    return {
        "wfc_tileset": bpy.props.EnumProperty(
            name="WFC Tileset",
            items=[*_preset_items(tilesets, "tileset"), _FILE],
            default=core_levels.LevelSpec().wfc_tileset,
            description="The tileset of WFC (tiles): a preset, or a file",
            **kw,
        ),
        "tileset_file": bpy.props.StringProperty(
            name="Tileset File",
            subtype="FILE_PATH",
            default="",
            description="A WFC tileset (.toml); '//' and a relative path start at the saved .blend's folder",
            **_RELATIVE,
            **kw,
        ),
        "sample_source": bpy.props.EnumProperty(
            name="Sample", items=SAMPLE_SOURCES, default="PRESET", description="Where the WFC sample comes from", **kw
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
            **_RELATIVE,
            **kw,
        ),
        "sample_image": bpy.props.PointerProperty(
            type=bpy.types.Image, name="Sample Image", description="An image whose pixels are the sample", **kw
        ),
        "classes": classes_prop(kw),
        **constraint_props(kw),
        "tile_objects": bpy.props.PointerProperty(
            type=bpy.types.Collection,
            name="Tile Objects",
            description="WFC (tiles): objects named after the tiles, one instance per cell, turned as its tile",
            **kw,
        ),
    }


def classes_prop(kw):
    return bpy.props.StringProperty(
        name="Classes",
        default="",
        description="Sample value = level class, comma separated (0=wall, 1=floor, #ff0000=door); empty: the "
        "most common value on the sample's border is wall, every other value floor",
        **kw,
    )


def constraint_props(kw):
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


def wfc_tileset_of(settings):
    """The WFC tileset the Levels panel names: a preset name or a file's absolute path ("" for a file
    not chosen yet)."""
    wfc = settings.wfc_tileset
    return wfc if wfc != "FILE" else blend_path(settings.tileset_file)


def wfc_values(settings):
    """``({"wfc_tileset": ..., "sample": ...}, image)``: what the Levels panel's own properties stand for
    (the keys the generator takes: a WFC tileset, a sample: a preset name or a file's absolute path),
    and the image whose pixels are the sample (or None; the sample is then a PNG of its pixels,
    :func:`.bridge.level_wfc.sample_file`).  In the panel, ``wfc`` is the tiled model (it names no
    sample)."""
    generator = settings.generator
    values = {}
    if generator in WFC_TILED:
        values["wfc_tileset"] = wfc_tileset_of(settings)
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
            sample = level_wfc.sample_file(image)
        if not sample:
            raise ParameterError("level.sample: choose the sample file (or a preset or an image)")
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


def _preset_file(value, key):
    """A preset the panel does not list (a 3-D tileset, a sample that makes no level by default) as its file;
    a file path as it is."""
    if value in core_levels.preset_names(key):
        return core_levels.resolve_file(value, key=key)[0]
    return value


def load_wfc_settings(settings, spec, image=None):
    """The Levels panel's own properties back from a spec: the WFC tileset (a preset, else a file) of a
    generator that takes one, the sample (a preset, a file or ``image``), ``classes``,
    ``connect_points`` and ``counts`` as text."""
    tilesets, samples = level_wfc.wfc_presets()
    if spec.generator in WFC_TILED:
        if spec.wfc_tileset in tilesets:
            settings.wfc_tileset = spec.wfc_tileset
        else:
            settings.wfc_tileset = "FILE"
            settings.tileset_file = _preset_file(spec.wfc_tileset, "wfc_tileset")
    sample = spec.sample or (core_levels.DEFAULT_SAMPLE if spec.generator == "wfc_overlapping" else "")
    if spec.generator in WFC_SAMPLED and sample:
        if image is not None:
            settings.sample_source, settings.sample_image = "IMAGE", image
        elif sample in samples:
            settings.sample_source, settings.sample_preset = "PRESET", sample
        else:
            settings.sample_source, settings.sample_file = "FILE", _preset_file(sample, "sample")
    settings.classes = classes_to_text(spec.classes)
    settings.connect_points = points_to_text(spec.connect_points)
    settings.counts = counts_to_text(spec.counts)
    settings.fixed = fixed_to_text(spec.fixed)
