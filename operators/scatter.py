"""Scatter operators: Scatter Props, Update Scatter (re-scatter in place), Make Real, layer list edits.

The layers come from the Scatter panel through the scatter's adapter (``bridge.sections.ScatterAdapter``;
a recipe in headless runs); the terrain's heights are recomputed from its stored recipe (the same
numbers its mesh was built from), :mod:`core.scatter` places the props, and :mod:`.bridge.scatter`
instances them.  Errors are reports; a failed run leaves the scene as it was.
"""

import bpy

from .bridge import ecosystem as bridge_ecosystem
from .bridge import scatter as bridge_scatter
from .bridge import sections
from .bridge import terrain as bridge_terrain
from .common import FamilyOperator, ModalBuild, Rebuild, Reports, Reseed, new_seed, select_only

SCATTER = sections.adapter("scatter")
#: Make Real of more instances than this runs modally (progress bar, Esc to cancel).
MODAL_INSTANCES = 1_000
#: Make Real of more objects than this asks first (in a window) or needs ``many=True`` (a script).
CONFIRM_OBJECTS = 2_000
#: Seconds Blender took per 1,000 objects made real here (bpy 5.0.1, 2 shared cores: 7,912 objects, the
#: default terrain's first default layer, in 2.7 s; a rough figure for the dialog, not a promise).
SECONDS_PER_1000 = 0.35


def cost_lines(count, instances):
    """What Make Real of ``instances`` instances making ``count`` objects costs, in a few lines."""
    return [
        f"Make Real turns {instances:,} instances into {count:,} objects (a tree is a root with its LODs)",
        f"About {count / 1000 * SECONDS_PER_1000:.0f} s now; then every operator, the viewport and Export",
        "for Unity slow down with the object count (instances cost one object).",
        "Export for Unity writes the instances as they are: Make Real is not needed for it.",
    ]


class WORLDSEED_OT_scatter_add(ModalBuild, FamilyOperator, bpy.types.Operator):
    """Scatter the Scatter panel's prop layers over the active Worldseed terrain"""

    bl_idname = "worldseed.scatter_add"
    bl_label = "Scatter Props"
    bl_options = {"REGISTER", "UNDO"}
    family = "scatter"

    seed: bpy.props.IntProperty(name="Seed", default=0, min=0, max=2**31 - 1)
    new_seed: bpy.props.BoolProperty(name="New Seed", default=False, options={"SKIP_SAVE"})
    from_settings: bpy.props.BoolProperty(default=True, options={"SKIP_SAVE", "HIDDEN"})

    @classmethod
    def poll(cls, context):
        if not len(context.scene.worldseed.scatter.layers):
            cls.poll_message_set("Add a prop layer with + first")
            return False
        return bridge_terrain.terrain_root(context.active_object) is not None

    def invoke(self, context, event):
        return self.guard(context, lambda: self.run(context, modal=True))

    def execute(self, context):
        return self.guard(context, lambda: self.run(context, modal=False))

    def run(self, context, *, modal):
        settings = self.settings(context)
        if self.from_settings:
            self.seed, self.from_settings = settings.seed, False
        if self.new_seed:
            self.seed, self.new_seed = new_seed(), False
        root = bridge_terrain.terrain_root(context.active_object)
        specs, sources, seed = SCATTER.layer_specs(settings), SCATTER.layer_sources(settings), self.seed

        def scatter():
            return bridge_scatter.scatter_onto(
                root,
                specs,
                sources,
                seed=seed,
                collection=context.collection,
                clearing=bridge_ecosystem.trampled_of(root),  # no props on the ecosystem's trails
            )

        steps = bridge_scatter.scatter_steps(root, scatter)
        return self.run_steps(context, steps, "scattering", modal=modal and bridge_scatter.layers_pending(root))

    def finished(self, context, obj):
        select_only(context, obj)
        self.report({"INFO"}, f"Worldseed: scattered {len(obj.data.vertices):,} props on {obj.parent.name!r}")


class WORLDSEED_OT_scatter_update(Rebuild, bpy.types.Operator):
    """Re-scatter the active scatter in place with the Scatter panel's layers and seed"""

    bl_idname = "worldseed.scatter_update"
    bl_label = "Update Scatter"
    bl_options = {"REGISTER", "UNDO"}
    family = "scatter"

    def finished(self, context, obj):
        if self.auto:
            self.settings(context).last_error = ""


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


class WORLDSEED_OT_scatter_make_real(ModalBuild, FamilyOperator, bpy.types.Operator):
    """Turn the active scatter's instances into real objects (sharing the props' meshes); above
    2,000 objects a window asks first (a script sets Many Objects)"""

    bl_idname = "worldseed.scatter_make_real"
    bl_label = "Make Real"
    bl_options = {"REGISTER", "UNDO"}
    family = "scatter"

    many: bpy.props.BoolProperty(
        name="Many Objects",
        default=False,
        options={"SKIP_SAVE"},
        description=f"Make more than {CONFIRM_OBJECTS:,} objects (a window asks first; a script must say so)",
    )

    @classmethod
    def poll(cls, context):
        return cls.active_root(context) is not None

    def invoke(self, context, event):
        obj = self.active_root(context)
        self._count, self._instances = bridge_scatter.real_object_count(obj), len(obj.data.vertices)
        self._invoked = True  # from a window: a long run shows progress (also after the dialog's OK)
        if self._count > CONFIRM_OBJECTS and not self.many and context.window is not None:
            self.many = True  # OK in the dialog goes ahead
            return context.window_manager.invoke_props_dialog(
                self, width=420, title="Make Real", confirm_text="Make Real"
            )
        return self.execute(context)

    def draw(self, context):
        for line in cost_lines(self._count, self._instances):
            self.layout.label(text=line)

    def execute(self, context):
        obj = self.active_root(context)
        count = bridge_scatter.real_object_count(obj)
        if count > CONFIRM_OBJECTS and not self.many:
            self.report(
                {"ERROR"}, f"Worldseed: {cost_lines(count, len(obj.data.vertices))[0]}; set many=True to go ahead"
            )
            return {"CANCELLED"}
        steps = make_real_steps(context, obj)
        modal = getattr(self, "_invoked", False) and len(obj.data.vertices) > MODAL_INSTANCES
        return self.run_steps(context, steps, "making the scatter real", modal=modal)

    def finished(self, context, result):
        collection, made = result
        self.report({"INFO"}, f"Worldseed: made {len(made):,} objects in {collection.name!r}")


class WORLDSEED_OT_scatter_layer_add(Reports, bpy.types.Operator):
    """Add a prop layer to the Scatter panel"""

    bl_idname = "worldseed.scatter_layer_add"
    bl_label = "Add Layer"
    bl_options = {"REGISTER", "UNDO"}

    builtin: bpy.props.StringProperty(default="", options={"SKIP_SAVE"})

    def execute(self, context):
        settings = context.scene.worldseed.scatter
        kind = self.builtin or ("broadleaf" if not len(settings.layers) else "rock")

        def work():
            SCATTER.add_layer(settings, kind)
            return {"FINISHED"}

        return self.guard(context, work)

    def message(self, err):
        return f"builtin: {err}"


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


class WORLDSEED_OT_scatter_reseed(Reseed, bpy.types.Operator):
    """Draw a new scatter seed (and re-scatter the active scatter)"""

    bl_idname = "worldseed.scatter_reseed"
    bl_label = "New Scatter Seed"
    bl_options = {"REGISTER", "UNDO"}
    family = "scatter"

    def finished(self, context, obj):
        pass


classes = (
    WORLDSEED_OT_scatter_add,
    WORLDSEED_OT_scatter_update,
    WORLDSEED_OT_scatter_make_real,
    WORLDSEED_OT_scatter_layer_add,
    WORLDSEED_OT_scatter_layer_remove,
    WORLDSEED_OT_scatter_reseed,
)
