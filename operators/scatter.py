"""Scatter operators: Scatter Props, Update Scatter (re-scatter in place), Make Real, layer list edits.

The layers come from the Scatter panel (or a recipe in headless runs); the
terrain's heights are recomputed from its stored recipe (the same numbers its
mesh was built from), :mod:`core.scatter` places the props, and
:mod:`.scatter_build` instances them.  Errors are reports; a failed run leaves
the scene as it was.
"""
import bpy
import numpy as np

from ..core import scatter as core_scatter
from ..core import scatter_spec
from ..core import terrain as core_terrain
from ..core._checks import ParameterError
from . import build, scatter_build, scatter_props
from .terrain import _reseed, _select_only

#: Most props one scatter may place (a maximal packing holds about 0.7 * area / radius^2 of them).
MAX_PROPS = 2_000_000
LAYERS_KEY = "worldseed_scatter_layers"
SEED_KEY = "worldseed_scatter_seed"


def layer_specs(settings):
    """Validated LayerSpecs from the Scatter panel's layers (sources other than built-ins become
    ``prop = "rock"`` placeholders here; :func:`layer_sources` says what they really are)."""
    specs = []
    for i, layer in enumerate(settings.layers):
        data = {name: getattr(layer, name) for name in scatter_spec.LayerSpec.__dataclass_fields__
                if name not in ("prop",)}
        for name in ("height_range", "slope_range", "scale_range"):
            data[name] = tuple(data[name])
        data["prop"] = layer.builtin if layer.source == "BUILTIN" else "rock"
        specs.append(scatter_spec.layer_spec(data, prefix=f"scatter layer {i + 1} ({layer.name!r}): "))
    if not specs:
        raise ParameterError("the Scatter panel has no layers; add one with +")
    return specs


def layer_sources(settings):
    """Per layer: ("BUILTIN", None) or ("COLLECTION", collection) or ("OBJECT", object)."""
    out = []
    for layer in settings.layers:
        if layer.source == "COLLECTION":
            if layer.collection is None or not [o for o in layer.collection.objects if o.parent is None]:
                raise ParameterError(f"scatter layer {layer.name!r}: choose a collection with objects in it")
            out.append(("COLLECTION", layer.collection))
        elif layer.source == "OBJECT":
            if layer.object is None:
                raise ParameterError(f"scatter layer {layer.name!r}: choose an object to scatter")
            out.append(("OBJECT", layer.object))
        else:
            out.append(("BUILTIN", None))
    return out


def terrain_heights_of(root):
    """(heights in metres (rows, cols), size in metres, sea level in metres) of a Worldseed terrain."""
    recipe = build.stored_recipe(root)
    heights = core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed)
    spec = recipe.terrain
    return heights.metres, spec.size, spec.sea_level * spec.height


def scatter_onto(root, specs, sources, *, seed, collection, replace=None):
    """Scatter ``specs`` (with ``sources``) over the terrain ``root``; returns the scatter object.

    With ``replace`` (an existing scatter object) its points and props are
    replaced in place: same object, name, parent and modifiers.
    """
    size = build.stored_recipe(root).terrain.size
    for spec in specs:
        estimate = 0.7 * size * size / (spec.radius * spec.radius)
        if estimate > MAX_PROPS:
            lowest = (0.7 * size * size / MAX_PROPS) ** 0.5
            raise ParameterError(f"scatter layer {spec.name!r}: radius {spec.radius:g} m would place about "
                                 f"{estimate:,.0f} props on a {size:g} m terrain, more than {MAX_PROPS:,}; "
                                 f"use a radius of at least {lowest:.3g} m")
    heights, size, sea_m = terrain_heights_of(root)
    props_per_layer = scatter_props.layer_props(specs, sources)
    placements = core_scatter.scatter_layers(heights, size=size, seed=seed,
                                             layers=[core_scatter.layer_from_spec(s, sea_level_m=sea_m) for s in specs])
    positions, rotations, scales, which, layer_index = scatter_props.pick_props(
        placements, [len(p) for p in props_per_layer], seed=seed)
    offsets = np.cumsum([0] + [len(p) for p in props_per_layer])[:-1]
    all_props = [p for props in props_per_layer for p in props]
    prop_index = (which + offsets[layer_index]).astype(np.int32)
    obj = replace
    if obj is None:
        obj = scatter_build.scatter_object(f"{root.name}_Scatter", all_props, collection=collection, parent=root)
    else:
        scatter_build.set_props(obj, all_props)
    scatter_build.write_points(obj.data, positions, rotations, scales, prop_index)
    attr = obj.data.attributes.get("ws_layer") or obj.data.attributes.new("ws_layer", "INT", "POINT")
    attr.data.foreach_set("value", layer_index.astype(np.int32))
    obj[LAYERS_KEY] = [scatter_spec.dumps_layer(s) for s in specs]
    obj[SEED_KEY] = seed
    return obj


def scatter_of(obj):
    """The scatter object ``obj`` is (or the first one under the terrain ``obj``), or None."""
    if scatter_build.is_scatter(obj):
        return obj
    root = build.terrain_root(obj)
    if root is None:
        return None
    return next((c for c in root.children if scatter_build.is_scatter(c)), None)


def rescatter(obj, scene):
    """Re-scatter the scatter object ``obj`` in place from ``scene``'s Scatter settings."""
    settings = scene.worldseed.scatter
    return scatter_onto(obj.parent, layer_specs(settings), layer_sources(settings), seed=settings.seed,
                        collection=scene.collection, replace=obj)


class WORLDSEED_OT_scatter_add(bpy.types.Operator):
    """Scatter the Scatter panel's prop layers over the active Worldseed terrain"""
    bl_idname = "worldseed.scatter_add"
    bl_label = "Scatter Props"
    bl_options = {"REGISTER", "UNDO"}

    seed: bpy.props.IntProperty(name="Seed", default=0, min=0, max=2**31 - 1)
    new_seed: bpy.props.BoolProperty(name="New Seed", default=False, options={"SKIP_SAVE"})
    from_settings: bpy.props.BoolProperty(default=True, options={"SKIP_SAVE", "HIDDEN"})

    @classmethod
    def poll(cls, context):
        return build.terrain_root(context.active_object) is not None

    def execute(self, context):
        settings = context.scene.worldseed.scatter
        if self.from_settings:
            self.seed = settings.seed
            self.from_settings = False
        if self.new_seed:
            self.seed = _reseed()
            self.new_seed = False
        root = build.terrain_root(context.active_object)
        try:
            obj = scatter_onto(root, layer_specs(settings), layer_sources(settings), seed=self.seed,
                               collection=context.collection)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        _select_only(context, obj)
        self.report({"INFO"}, f"Worldseed: scattered {len(obj.data.vertices):,} props on {root.name!r}")
        return {"FINISHED"}


class WORLDSEED_OT_scatter_update(bpy.types.Operator):
    """Re-scatter the active scatter in place with the Scatter panel's layers and seed"""
    bl_idname = "worldseed.scatter_update"
    bl_label = "Update Scatter"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return scatter_of(context.active_object) is not None

    def execute(self, context):
        obj = scatter_of(context.active_object)
        try:
            rescatter(obj, context.scene)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        return {"FINISHED"}


class WORLDSEED_OT_scatter_make_real(bpy.types.Operator):
    """Turn the active scatter's instances into real objects (sharing the props' meshes)"""
    bl_idname = "worldseed.scatter_make_real"
    bl_label = "Make Real"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return scatter_of(context.active_object) is not None

    def execute(self, context):
        obj = scatter_of(context.active_object)
        collection = bpy.data.collections.new(f"{obj.name} Objects")
        context.scene.collection.children.link(collection)
        made = scatter_build.make_real(obj, collection=collection)
        scatter_build.remove_scatter(obj)
        self.report({"INFO"}, f"Worldseed: made {len(made):,} objects in {collection.name!r}")
        return {"FINISHED"}


class WORLDSEED_OT_scatter_layer_add(bpy.types.Operator):
    """Add a prop layer to the Scatter panel"""
    bl_idname = "worldseed.scatter_layer_add"
    bl_label = "Add Layer"
    bl_options = {"REGISTER", "UNDO"}

    builtin: bpy.props.StringProperty(default="", options={"SKIP_SAVE"})

    def execute(self, context):
        settings = context.scene.worldseed.scatter
        kind = self.builtin or ("broadleaf" if not len(settings.layers) else "rock")
        try:
            defaults = scatter_props.suggested_layer(kind)
        except ParameterError as err:
            self.report({"ERROR"}, f"builtin: {err}")
            return {"CANCELLED"}
        layer = settings.layers.add()
        for name, value in scatter_spec.layer_spec_dict(defaults).items():
            if name != "prop":
                setattr(layer, name, value)
        layer.builtin = kind
        settings.active_layer = len(settings.layers) - 1
        return {"FINISHED"}


class WORLDSEED_OT_scatter_layer_remove(bpy.types.Operator):
    """Remove the active prop layer"""
    bl_idname = "worldseed.scatter_layer_remove"
    bl_label = "Remove Layer"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return len(context.scene.worldseed.scatter.layers) > 0

    def execute(self, context):
        settings = context.scene.worldseed.scatter
        settings.layers.remove(settings.active_layer)
        settings.active_layer = max(0, min(settings.active_layer, len(settings.layers) - 1))
        return {"FINISHED"}


class WORLDSEED_OT_scatter_reseed(bpy.types.Operator):
    """Draw a new scatter seed (and re-scatter the active scatter)"""
    bl_idname = "worldseed.scatter_reseed"
    bl_label = "New Scatter Seed"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        context.scene.worldseed.scatter.seed = _reseed()
        if scatter_of(context.active_object) is not None:
            return bpy.ops.worldseed.scatter_update()
        return {"FINISHED"}


classes = (WORLDSEED_OT_scatter_add, WORLDSEED_OT_scatter_update, WORLDSEED_OT_scatter_make_real,
           WORLDSEED_OT_scatter_layer_add, WORLDSEED_OT_scatter_layer_remove, WORLDSEED_OT_scatter_reseed)
