"""Scatter settings: a list of prop layers, each with its prop source, spacing, rules and placement.

Each layer's fields mirror one ``[[scatter]]`` entry of a recipe
(:mod:`core.scatter_spec`), so the sidebar, the operator and a headless run
scatter the same props.
"""
import bpy

from ..core import scatter_spec
from . import tree_properties

_D = scatter_spec.LayerSpec()


def _species_and_builtins(self, context):
    return scatter_spec_items()


_ITEMS = []


def scatter_spec_items():
    """Enum items of the built-in props: rock, grass and every tree species."""
    if not _ITEMS:
        _ITEMS.extend([("rock", "Rock", "Noise-displaced rocks"), ("grass", "Grass", "Clumps of crossed grass cards")])
        _ITEMS.extend((name, f"Tree: {label}", desc) for name, label, desc in tree_properties.species_items())
    return _ITEMS


def _on_change(self, context):
    from ..operators import live
    live.schedule_scatter_update(context)


def _pair(name, label, description, default, lo, hi, **kw):
    return bpy.props.FloatVectorProperty(name=label, description=description, size=2, default=default,
                                         min=lo, max=hi, update=_on_change, **kw)


def _float(label, description, default, bounds, **kw):
    return bpy.props.FloatProperty(name=label, description=description, default=default, min=bounds[0],
                                   max=bounds[1], update=_on_change, **kw)


L = {name: bounds for name, (_kind, bounds) in scatter_spec.LIMITS.items()}


class WorldseedScatterLayer(bpy.types.PropertyGroup):
    __annotations__ = {
        "name": bpy.props.StringProperty(name="Name", default=_D.name, maxlen=48,
                                         description="Layer name (also in the placement file)"),
        "source": bpy.props.EnumProperty(
            name="Props", default="BUILTIN", description="Where the layer's props come from",
            items=[("BUILTIN", "Built-in", "Rocks, grass or trees made by Worldseed"),
                   ("COLLECTION", "Collection", "Every object of a collection, picked at random"),
                   ("OBJECT", "Object", "One object")]),
        "builtin": bpy.props.EnumProperty(name="Built-in", items=_species_and_builtins, update=_on_change,
                                          description="Which built-in prop"),
        "collection": bpy.props.PointerProperty(type=bpy.types.Collection, name="Collection",
                                                description="Props to scatter (each instance picks one)"),
        "object": bpy.props.PointerProperty(type=bpy.types.Object, name="Object", description="Prop to scatter"),
        "variants": bpy.props.IntProperty(name="Variants", default=_D.variants, min=L["variants"][0], update=_on_change,
                                          max=L["variants"][1],
                                          description="Different built-in props made from consecutive seeds"),
        "radius": _float("Spacing", "Smallest distance between two props of this layer", _D.radius,
                         L["radius"], subtype="DISTANCE"),
        "radius_max": _float("Sparse Spacing", "Spacing where the rules allow only a few props (0: same as "
                             "Spacing)", _D.radius_max, (0.0, L["radius"][1]), subtype="DISTANCE"),
        "height_range": _pair("height_range", "Height Range", "Props only between these heights (metres)",
                              _D.height_range, -1e5, 1e5, subtype="NONE"),
        "slope_range": _pair("slope_range", "Slope Range", "Props only on slopes between these angles (degrees)",
                             _D.slope_range, 0.0, 90.0),
        "patchiness": _float("Patchiness", "0 covers everything allowed, 1 leaves only scattered patches",
                             _D.patchiness, (0.0, 1.0)),
        "patch_scale": _float("Patch Size", "Size of the patches", _D.patch_scale, L["patch_scale"],
                              subtype="DISTANCE"),
        "above_sea": bpy.props.BoolProperty(name="Above Sea", default=_D.above_sea, update=_on_change,
                                            description="No props at or below the terrain's sea level"),
        "keep_away": _float("Keep Away", "Distance from the props of the layers above (at least this layer's "
                            "spacing)", _D.keep_away,
                            (0.0, 1e4), subtype="DISTANCE"),
        "scale_range": _pair("scale_range", "Scale", "Random uniform scale between these", _D.scale_range,
                             0.01, 100.0),
        "align": _float("Align to Slope", "0 keeps props upright, 1 tilts them with the ground", _D.align,
                        (0.0, 1.0)),
        "max_tilt": _float("Max Tilt", "Largest tilt from upright (degrees)", _D.max_tilt, (0.0, 90.0)),
        "sink": _float("Sink", "How far props sink into the ground (scaled with them)", _D.sink, (0.0, 100.0),
                       subtype="DISTANCE"),
        "unity_tree": bpy.props.BoolProperty(
            name="Unity Terrain Trees", default=_D.unity_tree,
            description="Also list this layer as Unity Terrain tree instances in the placement file"),
    }


class WorldseedScatterSettings(bpy.types.PropertyGroup):
    layers: bpy.props.CollectionProperty(type=WorldseedScatterLayer)
    active_layer: bpy.props.IntProperty(name="Active Layer", default=0, min=0)
    seed: bpy.props.IntProperty(name="Seed", default=0, min=0, max=2**31 - 1, update=_on_change,
                                description="Random seed of the scatter: positions, variants, yaw, scale")
    auto_update: bpy.props.BoolProperty(
        name="Auto Update", default=False,
        description="Re-scatter the active scatter whenever a layer setting changes")
    last_error: bpy.props.StringProperty(name="Last Error", default="", options={"SKIP_SAVE"},
                                         description="Why the last automatic re-scatter failed")


classes = (WorldseedScatterLayer, WorldseedScatterSettings)
