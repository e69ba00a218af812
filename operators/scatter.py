"""Scatter operators: Scatter Props, Update Scatter (re-scatter in place), Make Real, layer list edits.

The layers come from the Scatter panel (or a recipe in headless runs); the
terrain's heights are recomputed from its stored recipe (the same numbers its
mesh was built from), :mod:`core.scatter` places the props, and
:mod:`.bridge.scatter` instances them.  Errors are reports; a failed run
leaves the scene as it was.
"""

import bpy

from ..core import scatter as core_scatter
from ..core.errors import ParameterError
from ..core.spec import from_attrs
from .bridge import scatter as bridge_scatter
from .bridge import terrain as bridge_terrain
from .bridge import terrain_layers as bridge_layers
from .bridge.properties import SHOWN_KINDS, props_from_limits
from .bridge.query import scatter_of, terrain_root
from .common import ModalBuild, new_seed, select_only, window_of

#: Make Real of more instances than this runs modally (progress bar, Esc to cancel).
MODAL_INSTANCES = 1_000

#: Layer fields given as text in the sidebar: ``biomes`` ("forest, grassland = 0.25"), read by core.
TEXT_FIELDS = tuple(n for n in ("biomes",) if n in core_scatter.LIMITS)
#: Layer fields shown as properties (``prop`` is picked from the built-in props below).
LAYER_FIELDS = (
    *(n for n, limit in core_scatter.LIMITS.items() if n != "prop" and limit.kind in SHOWN_KINDS),
    *TEXT_FIELDS,
)


def biomes_text(value):
    """A layer's ``biomes`` (``{name: weight}`` or ``(name, weight)`` pairs) as the sidebar's text.

    >>> biomes_text({"forest": 1.0, "grassland": 0.25})
    'forest, grassland = 0.25'
    """
    pairs = value.items() if isinstance(value, dict) else value
    return ", ".join(name if weight == 1.0 else f"{name} = {weight:g}" for name, weight in pairs)


def layer_props(update=None):
    """``{name: bpy.props...}`` for every shown layer field (the biomes as text)."""
    names = [n for n in LAYER_FIELDS if n not in TEXT_FIELDS]
    props = props_from_limits(core_scatter.LIMITS, core_scatter.LayerSpec(), names=names, update=update)
    for name in TEXT_FIELDS:
        limit = core_scatter.LIMITS[name]
        props[name] = bpy.props.StringProperty(
            name=limit.label,
            description=f"{limit.description}; written 'forest, grassland = 0.25'",
            default="",
            **({"update": update} if update is not None else {}),
        )
    return props


def layer_values(spec):
    """``{field: value}`` of a :class:`core.scatter.LayerSpec` as the sidebar's layer holds them."""
    values = core_scatter.to_dict(spec)
    for name in TEXT_FIELDS:
        values[name] = biomes_text(values[name])
    return {name: values[name] for name in LAYER_FIELDS}


def layer_specs(settings):
    """Validated LayerSpecs from the Scatter panel's layers (sources other than built-ins become
    ``prop = "rock"`` placeholders here; :func:`layer_sources` says what they really are)."""
    specs = []
    for i, layer in enumerate(settings.layers):
        prop = layer.builtin if layer.source == "BUILTIN" else "rock"
        spec = from_attrs(
            core_scatter.LayerSpec,
            core_scatter.LIMITS,
            layer,
            fields=LAYER_FIELDS,
            overrides={"prop": prop},
            prefix=f"scatter layer {i + 1} ({layer.name!r}): ",
        )
        specs.append(
            core_scatter.from_dict(core_scatter.to_dict(spec), prefix=f"scatter layer {i + 1} ({layer.name!r}): ")
        )
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


def auto_rescatter(obj, scene):
    """Auto Update's re-scatter of ``obj``: through Update Scatter's modal run in a window showing
    ``scene`` when its terrain's layers must be worked out first (:func:`layers_pending`:
    progress, Esc; returns ``{"RUNNING_MODAL"}``), at once otherwise (and in background runs)."""
    window = None if bpy.app.background else window_of(scene)
    if window is not None and layers_pending(obj.parent):
        layer_specs(scene.worldseed.scatter)  # bad settings: raised here, before anything runs
        with bpy.context.temp_override(window=window):
            if scatter_of(bpy.context.active_object) == obj:
                return bpy.ops.worldseed.scatter_update("INVOKE_DEFAULT", auto=True)
    return rescatter(obj, scene)


def rescatter(obj, scene):
    """Re-scatter the scatter object ``obj`` in place from ``scene``'s Scatter settings."""
    settings = scene.worldseed.scatter
    return bridge_scatter.scatter_onto(
        obj.parent,
        layer_specs(settings),
        layer_sources(settings),
        seed=settings.seed,
        collection=scene.collection,
        replace=obj,
    )


def layers_pending(root):
    """Whether the terrain ``root`` has layers (erosion, biomes ...) its scatter reads that are not
    kept from its build (after a reload, or another terrain built since): working them out takes a
    while, so the scatter operators then run modally (progress, Esc) in a window."""
    recipe = bridge_terrain.stored_recipe(root)
    return bridge_layers.has_layers(recipe) and not bridge_layers.is_kept(recipe)


def scatter_steps(root, scatter):
    """Steps of a scatter on the terrain ``root``: its layers worked out first on a worker (with
    their progress) when not kept, then ``scatter()`` (which finds them kept), whose result is
    returned.  Closed before the end, nothing is scattered."""
    recipe = bridge_terrain.stored_recipe(root)
    if bridge_layers.has_layers(recipe) and not bridge_layers.is_kept(recipe):
        yield from bridge_layers.worker_steps(recipe)
    return scatter()


class WORLDSEED_OT_scatter_add(ModalBuild, bpy.types.Operator):
    """Scatter the Scatter panel's prop layers over the active Worldseed terrain"""

    bl_idname = "worldseed.scatter_add"
    bl_label = "Scatter Props"
    bl_options = {"REGISTER", "UNDO"}

    seed: bpy.props.IntProperty(name="Seed", default=0, min=0, max=2**31 - 1)
    new_seed: bpy.props.BoolProperty(name="New Seed", default=False, options={"SKIP_SAVE"})
    from_settings: bpy.props.BoolProperty(default=True, options={"SKIP_SAVE", "HIDDEN"})

    @classmethod
    def poll(cls, context):
        return terrain_root(context.active_object) is not None

    def _scatter(self, context):
        """A function making the scatter (the panel's layers read and checked now)."""
        settings = context.scene.worldseed.scatter
        if self.from_settings:
            self.seed = settings.seed
            self.from_settings = False
        if self.new_seed:
            self.seed = new_seed()
            self.new_seed = False
        root = terrain_root(context.active_object)
        specs, sources, seed = layer_specs(settings), layer_sources(settings), self.seed
        return lambda: bridge_scatter.scatter_onto(root, specs, sources, seed=seed, collection=context.collection)

    def invoke(self, context, event):
        root = terrain_root(context.active_object)
        if context.window is None or not layers_pending(root):
            return self.execute(context)
        try:
            scatter = self._scatter(context)
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        return self.start_modal(context, scatter_steps(root, scatter), "scattering")

    def execute(self, context):
        try:
            obj = self._scatter(context)()
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        self.finished(context, obj)
        return {"FINISHED"}

    def finished(self, context, obj):
        select_only(context, obj)
        self.report({"INFO"}, f"Worldseed: scattered {len(obj.data.vertices):,} props on {obj.parent.name!r}")


class WORLDSEED_OT_scatter_update(ModalBuild, bpy.types.Operator):
    """Re-scatter the active scatter in place with the Scatter panel's layers and seed"""

    bl_idname = "worldseed.scatter_update"
    bl_label = "Update Scatter"
    bl_options = {"REGISTER", "UNDO"}

    auto: bpy.props.BoolProperty(
        name="Auto Update",
        default=False,
        options={"SKIP_SAVE", "HIDDEN"},
        description="Started by Auto Update: an error goes to the Scatter panel's last error",
    )

    @classmethod
    def poll(cls, context):
        return scatter_of(context.active_object) is not None

    def invoke(self, context, event):
        obj = scatter_of(context.active_object)
        if context.window is None or not layers_pending(obj.parent):
            return self.execute(context)
        scene = context.scene
        return self.start_modal(context, scatter_steps(obj.parent, lambda: rescatter(obj, scene)), "re-scattering")

    def execute(self, context):
        obj = scatter_of(context.active_object)
        try:
            rescatter(obj, context.scene)
        except ParameterError as err:
            self.failed(context, err)
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        self.finished(context, obj)
        return {"FINISHED"}

    def failed(self, context, err):
        if self.auto:
            context.scene.worldseed.scatter.last_error = str(err)

    def finished(self, context, obj):
        if self.auto:
            context.scene.worldseed.scatter.last_error = ""


def make_real_steps(context, obj):
    """Make Real step by step (see :func:`.bridge.scatter.make_real_steps`): the objects go to a new
    collection ``<scatter> Objects`` and the scatter is removed at the end; returns
    ``(collection, top-level objects)``. Closing the generator early leaves the scene as it was."""
    collection = bpy.data.collections.new(f"{obj.name} Objects")
    try:
        made = yield from bridge_scatter.make_real_steps(obj, collection=collection)
    except BaseException:
        bpy.data.collections.remove(collection)
        raise
    context.scene.collection.children.link(collection)
    bridge_scatter.remove_scatter(obj)
    return collection, made


class WORLDSEED_OT_scatter_make_real(ModalBuild, bpy.types.Operator):
    """Turn the active scatter's instances into real objects (sharing the props' meshes)"""

    bl_idname = "worldseed.scatter_make_real"
    bl_label = "Make Real"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return scatter_of(context.active_object) is not None

    def invoke(self, context, event):
        obj = scatter_of(context.active_object)
        if context.window is None or len(obj.data.vertices) <= MODAL_INSTANCES:
            return self.execute(context)
        return self.start_modal(context, make_real_steps(context, obj), "making the scatter real")

    def execute(self, context):
        steps = make_real_steps(context, scatter_of(context.active_object))
        while True:
            try:
                next(steps)
            except StopIteration as stop:
                self.finished(context, stop.value)
                return {"FINISHED"}

    def finished(self, context, result):
        collection, made = result
        self.report({"INFO"}, f"Worldseed: made {len(made):,} objects in {collection.name!r}")


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
            defaults = core_scatter.suggested_layer(kind)
        except ParameterError as err:
            self.report({"ERROR"}, f"builtin: {err}")
            return {"CANCELLED"}
        layer = settings.layers.add()
        for name, value in layer_values(defaults).items():
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
        context.scene.worldseed.scatter.seed = new_seed()
        if scatter_of(context.active_object) is not None:
            return bpy.ops.worldseed.scatter_update("INVOKE_DEFAULT")  # modal when the terrain erodes first
        return {"FINISHED"}


classes = (
    WORLDSEED_OT_scatter_add,
    WORLDSEED_OT_scatter_update,
    WORLDSEED_OT_scatter_make_real,
    WORLDSEED_OT_scatter_layer_add,
    WORLDSEED_OT_scatter_layer_remove,
    WORLDSEED_OT_scatter_reseed,
)
