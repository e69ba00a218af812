"""Property groups: the sidebar's settings, convertible to and from a recipe.

Every terrain parameter is declared once, in :func:`terrain_props`, with its
range taken from ``core.recipe.FIELD_LIMITS`` (which takes them from the core
modules), and used twice: by the scene's settings and by the Add Terrain
operator's redo panel.
"""
import dataclasses

import bpy

from ..core import recipe as core_recipe
from .scatter_properties import WorldseedScatterSettings
from .scatter_properties import classes as scatter_classes
from .tree_properties import WorldseedTreeSettings

_TERRAIN_DEFAULTS = core_recipe.TerrainSpec()
_WORLD_DEFAULTS = core_recipe.WorldSpec()
_EXPORT_DEFAULTS = core_recipe.ExportSpec()

#: Label, description and extra keyword arguments for each recipe field.
_UI = {
    "name": ("Name", "Name of the generated objects", {}),
    "seed": ("Seed", "Random seed: the same seed and settings give the same terrain", {}),
    "resolution": ("Resolution", "Vertices per side (Unity terrains use 33, 65, 129, 257, 513, 1025, 2049 or 4097)",
                   {"soft_max": 2049}),
    "size": ("Size", "Side length of the terrain", {"subtype": "DISTANCE", "soft_max": 4096.0}),
    "height": ("Height", "Height of the highest possible point", {"subtype": "DISTANCE", "soft_max": 1000.0}),
    "offset": ("Offset", "Position of this tile in the world; neighbouring tiles join seamlessly",
               {"subtype": "XYZ", "size": 2}),
    "basis": ("Noise", "Gradient noise basis", {}),
    "kind": ("Fractal", "How octaves combine: fBm (smooth hills), ridged (sharp crests), billow (puffy dunes)", {}),
    "scale": ("Feature Size", "Size of the largest features", {"subtype": "DISTANCE", "soft_min": 1.0,
                                                                 "soft_max": 4096.0}),
    "octaves": ("Octaves", "Number of noise layers; more gives finer detail", {}),
    "persistence": ("Roughness", "Amplitude kept from one octave to the next (persistence)", {}),
    "lacunarity": ("Lacunarity", "Frequency multiplier from one octave to the next", {}),
    "warp": ("Warp", "Domain warp strength: bends the features into swirls and flows", {}),
    "normalize": ("Normalize", "Stretch this tile to the full height range, or keep absolute noise values "
                               "(use Fixed for tiles that must join)", {}),
    "falloff": ("Island Falloff", "Lower the edges to make an island", {}),
    "falloff_width": ("Falloff Width", "Fraction of the half-size over which the edges fall", {}),
    "redistribution": ("Redistribution", "Height exponent: above 1 makes valleys wider and peaks sharper", {}),
    "terraces": ("Terraces", "Number of terrace steps (0 for none)", {}),
    "terrace_sharpness": ("Terrace Sharpness", "0 leaves slopes smooth, 1 makes flat steps", {}),
    "sea_level": ("Sea Level", "Heights below this fraction become a flat sea floor", {}),
    "lods": ("LODs", "Number of levels of detail to build (Name_LOD0, Name_LOD1, ...)", {}),
    "material": ("Material", "Give the terrain the height-and-slope material", {}),
    "palette": ("Palette", "Colours of the height-and-slope material and the previews", {}),
    "fbx": ("FBX", "Write an FBX file for Unity", {}),
    "glb": ("glTF Binary", "Also write a .glb file", {}),
    "per_object": ("One File per Object", "Write one file per object instead of one for all", {}),
    "heightmap_raw": ("Unity RAW Heightmap", "Also write a 16-bit RAW heightmap for Unity's Terrain", {}),
    "preview": ("Preview", "Write a shaded-relief map, relief.png", {}),
    "render": ("Render", "Write a 3-D preview render, preview.png (Workbench; needs OpenGL)", {}),
    "placements": ("Placement File", "Write the scattered props' Unity positions, rotations and scales as JSON",
                   {}),
}

_CHOICE_LABELS = {
    "perlin": ("Perlin", "Improved Perlin gradient noise"),
    "simplex": ("Simplex", "OpenSimplex2-style simplex noise: fewer axis-aligned artefacts"),
    "fbm": ("fBm", "Fractal Brownian motion: rolling, natural hills"),
    "ridged": ("Ridged", "Sharp ridges and crests: mountains, canyons"),
    "billow": ("Billow", "Rounded, puffy shapes: dunes, hills"),
    "stretch": ("Stretch", "Use the full height range on this tile"),
    "fixed": ("Fixed", "Absolute noise values: neighbouring tiles join"),
    "none": ("None", "No falloff"),
    "square": ("Square", "Edges fall along a square"),
    "radial": ("Radial", "Edges fall in a circle"),
    "temperate": ("Temperate", "Beach, grass, forest, rock and snow on the high peaks"),
    "desert": ("Desert", "Sand and red rock"),
    "arctic": ("Arctic", "Snow over grey rock"),
}


def _prop(name, default, update=None):
    label, description, extra = _UI[name]
    kw = dict(name=label, description=description, **extra)
    if update is not None:
        kw["update"] = update
    kind, limits = core_recipe.FIELD_LIMITS.get(name, (None, None))
    if kind == "int":
        return bpy.props.IntProperty(default=default, min=limits[0], max=limits[1], **kw)
    if kind == "float":
        return bpy.props.FloatProperty(default=default, min=limits[0], max=limits[1], **kw)
    if kind == "choice":
        items = [(c, *_CHOICE_LABELS.get(c, (c.title(), c))) for c in limits]
        return bpy.props.EnumProperty(items=items, default=default, **kw)
    if isinstance(default, bool):
        return bpy.props.BoolProperty(default=default, **kw)
    if isinstance(default, str):
        return bpy.props.StringProperty(default=default, maxlen=48, **kw)
    if name == "offset":
        lo, hi = core_recipe.OFFSET
        return bpy.props.FloatVectorProperty(default=default, min=lo, max=hi, unit="LENGTH", **kw)
    raise TypeError(f"no property for {name}")


#: Terrain fields shown as properties; ``curve`` is edited with a curve widget instead.
TERRAIN_FIELDS = tuple(f.name for f in dataclasses.fields(core_recipe.TerrainSpec) if f.name not in ("curve", "enabled"))
EXPORT_FIELDS = tuple(f.name for f in dataclasses.fields(core_recipe.ExportSpec))


def terrain_props(update=None):
    """``{name: bpy.props...}`` for the world name, the seed and every terrain field."""
    props = {"name": _prop("name", _WORLD_DEFAULTS.name, update),
             "seed": _prop("seed", _WORLD_DEFAULTS.seed, update)}
    for name in TERRAIN_FIELDS:
        props[name] = _prop(name, getattr(_TERRAIN_DEFAULTS, name), update)
    return props


def curve_to_text(points):
    """``((x, y), ...)`` as ``"x,y; x,y"`` (how the redo panel carries the height curve)."""
    return "; ".join(f"{x:.6g},{y:.6g}" for x, y in points)


def curve_from_text(text):
    """Inverse of :func:`curve_to_text`; returns a list of [x, y] (validated by the recipe)."""
    points = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        try:
            x, y = (float(v) for v in part.split(","))
        except ValueError:
            raise core_recipe.RecipeError(
                f"terrain.curve must be 'x,y; x,y; ...' pairs of numbers, got {text!r}") from None
        points.append([x, y])
    return points


def recipe_from_props(props, *, curve, export=None):
    """A validated recipe from an object holding :func:`terrain_props` (settings or operator)."""
    terrain = {name: getattr(props, name) for name in TERRAIN_FIELDS}
    terrain["offset"] = list(terrain["offset"])
    terrain["curve"] = [list(p) for p in curve]
    data = {"world": {"name": props.name, "seed": props.seed}, "terrain": terrain}
    if export is not None:
        data["export"] = {name: getattr(export, name) for name in EXPORT_FIELDS}
    return core_recipe.from_dict(data, source="settings")


#: Settings of the output rather than of the look; applying a preset leaves them alone.
OUTPUT_FIELDS = ("resolution", "lods", "material", "offset")


def apply_recipe_to_props(props, recipe, *, world=True, keep=()):
    """Copy a recipe's values into an object holding :func:`terrain_props` (not the curve).

    ``keep`` names terrain fields to leave as they are.
    """
    if world:
        props.name = recipe.world.name
        props.seed = recipe.world.seed
    for name in TERRAIN_FIELDS:
        if name not in keep:
            setattr(props, name, getattr(recipe.terrain, name))


def _on_terrain_change(self, context):
    from ..operators import live
    live.schedule_update(context)


class WorldseedTerrainSettings(bpy.types.PropertyGroup):
    __annotations__ = {
        **terrain_props(update=_on_terrain_change),
        "height_curve": bpy.props.PointerProperty(
            type=bpy.types.NodeTree, name="Height Curve",
            description="Node group holding the height curve widget"),
        "auto_update": bpy.props.BoolProperty(
            name="Auto Update", default=False,
            description="Rebuild the active Worldseed terrain whenever a setting changes"),
        "preset": bpy.props.StringProperty(name="Preset", default="", description="Last preset applied"),
        "last_error": bpy.props.StringProperty(
            name="Last Error", default="", options={"SKIP_SAVE"},
            description="Why the last automatic update failed"),
    }


class WorldseedExportSettings(bpy.types.PropertyGroup):
    __annotations__ = {name: _prop(name, getattr(_EXPORT_DEFAULTS, name)) for name in EXPORT_FIELDS}


class WorldseedSettings(bpy.types.PropertyGroup):
    terrain: bpy.props.PointerProperty(type=WorldseedTerrainSettings)
    export: bpy.props.PointerProperty(type=WorldseedExportSettings)
    trees: bpy.props.PointerProperty(type=WorldseedTreeSettings)
    scatter: bpy.props.PointerProperty(type=WorldseedScatterSettings)


classes = (WorldseedTerrainSettings, WorldseedExportSettings, WorldseedTreeSettings, *scatter_classes,
           WorldseedSettings)  # children before parents
