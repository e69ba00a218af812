"""Tree operators: Add Tree, Grow Forest, Edit Rules, New Seed.

They gather a :class:`core.tree.TreeSpec` and hand it to :mod:`.tree_build`;
rule and parameter errors come back as reports, and nothing is left behind.
"""
import functools

import bpy

from ..addon import tree_properties as props
from ..core import lsystem
from ..core import tree as core_tree
from ..core._checks import ParameterError
from . import tree_build
from .terrain import _reseed, _select_only


def settings_spec(settings):
    """The TreeSpec the sidebar's tree settings describe (rules from the Text datablock if set)."""
    return props.spec_from_props(settings, rules=settings.rules_source(), species=settings.species)


@functools.lru_cache(maxsize=32)
def rule_error(axiom, rules, constants):
    """Why these rules do not parse (a message), or "" when they do; cached, since panels redraw often."""
    try:
        lsystem.parse(axiom, rules, constants=props.constants_from_text(constants))
    except ParameterError as err:
        return str(err)
    return ""


def _rules_for_redo_panel(text):
    """Rules on one line, ``;`` between productions, so the redo panel's text field shows them all."""
    lines = [ln.split("#", 1)[0].strip() for ln in text.splitlines()]
    return "; ".join(ln for ln in lines if ln)


class WORLDSEED_OT_tree_add(bpy.types.Operator):
    """Grow a tree from L-system rules: a parent with Name_LOD0, Name_LOD1, ... for Unity's LOD Group"""
    bl_idname = "worldseed.tree_add"
    bl_label = "Add Tree"
    bl_options = {"REGISTER", "UNDO"}

    __annotations__ = {
        **props.tree_props(),
        "species": bpy.props.EnumProperty(
            name="Species", items=lambda self, context: props.species_items(),
            description="Species whose rules and settings to start from"),
        "loaded_species": bpy.props.StringProperty(options={"HIDDEN", "SKIP_SAVE"}),
        "new_seed": bpy.props.BoolProperty(
            name="New Seed", default=False, options={"SKIP_SAVE"},
            description="Draw a fresh random seed for this tree"),
        "from_settings": bpy.props.BoolProperty(
            name="From Sidebar", default=False, options={"SKIP_SAVE", "HIDDEN"},
            description="Start from the Trees panel's settings (what the sidebar button does)"),
    }

    def _load_settings(self, context):
        settings = context.scene.worldseed.trees
        spec = settings_spec(settings)
        props.apply_spec_to_props(self, spec)
        self.rules = _rules_for_redo_panel(spec.rules)
        self.species = settings.species
        self.loaded_species = settings.species
        self.from_settings = False

    def _load_species(self):
        """Take the chosen species' values: for fields not given by the caller on the first run, for all
        but name and seed when the species is changed in the redo panel."""
        first = not self.loaded_species
        keep = ({n for n in props.TREE_FIELDS if self.properties.is_property_set(n)} if first
                else {"seed"})
        spec = core_tree.species_spec(self.species)
        props.apply_spec_to_props(self, spec, keep=keep)
        if "rules" not in keep:
            self.rules = _rules_for_redo_panel(spec.rules)
        self.loaded_species = self.species

    def execute(self, context):
        try:
            if self.from_settings:
                self._load_settings(context)
            elif self.species != self.loaded_species:
                self._load_species()
            if self.new_seed:
                self.seed = _reseed()
                self.new_seed = False
            spec = props.spec_from_props(self, species=self.species)
            root = tree_build.build_tree(spec, collection=context.collection,
                                         location=tuple(context.scene.cursor.location))
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        _select_only(context, root)
        lods = len(root.children)
        self.report({"INFO"}, f"Worldseed: grew tree {root.name!r} ({lods} LOD{'s' if lods > 1 else ''})")
        return {"FINISHED"}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(self, "species")
        row = layout.row(align=True)
        row.prop(self, "seed")
        row.prop(self, "new_seed", text="", icon="FILE_REFRESH", toggle=True)
        for name in props.TREE_FIELDS:
            if name != "seed":
                layout.prop(self, name)


def _spacing(roots):
    """Distance between forest trees: the widest crown plus a margin."""
    widest = 1.0
    for root in roots:
        lod0 = next((c for c in root.children if c.name.endswith("_LOD0")), None)
        if lod0 is not None:
            dims = lod0.dimensions
            widest = max(widest, dims.x, dims.y)
    return 1.2 * widest


class WORLDSEED_OT_forest_add(bpy.types.Operator):
    """Grow several variants of each species from consecutive seeds into a new collection, as scatter props"""
    bl_idname = "worldseed.forest_add"
    bl_label = "Grow Forest"
    bl_options = {"REGISTER", "UNDO"}

    variants: props._prop("variants", 4)
    species: bpy.props.StringProperty(
        name="Species", default="",
        description="Species separated by commas (empty: the Trees panel's species with its current settings)")
    seed: bpy.props.IntProperty(name="Seed", default=0, min=0, max=2**31 - 1,
                                description="Seed of the first variant; the others use the next seeds")
    collection_name: bpy.props.StringProperty(name="Collection", default="Forest", maxlen=48)
    from_settings: bpy.props.BoolProperty(default=False, options={"SKIP_SAVE", "HIDDEN"})

    def _specs(self, context):
        settings = context.scene.worldseed.trees
        names = [n.strip() for n in self.species.split(",") if n.strip()]
        if not names:
            return [settings_spec(settings)]
        return [settings_spec(settings) if n == settings.species else core_tree.species_spec(n) for n in names]

    def execute(self, context):
        settings = context.scene.worldseed.trees
        if self.from_settings:
            self.variants, self.seed = settings.variants, settings.seed
            self.species = settings.forest_species
            self.from_settings = False
        collection = bpy.data.collections.new(self.collection_name or "Forest")
        context.scene.collection.children.link(collection)
        roots = []
        wm = context.window_manager
        try:
            specs = self._specs(context)
            wm.progress_begin(0, len(specs) * self.variants)
            for spec in specs:
                for k in range(self.variants):
                    seed = (self.seed + k) % 2**31
                    roots.append(tree_build.build_tree(spec, collection=collection, seed=seed,
                                                       name=f"{spec.name}_V{k + 1:02d}"))
                    wm.progress_update(len(roots))
        except BaseException as err:
            tree_build.remove_trees(roots)
            bpy.data.collections.remove(collection)
            if not isinstance(err, ParameterError):
                raise
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        finally:
            wm.progress_end()
        spacing = _spacing(roots)
        origin = context.scene.cursor.location
        for i, root in enumerate(roots):
            row, col = divmod(i, self.variants)
            root.location = (origin.x + col * spacing, origin.y + row * spacing, origin.z)
        self.report({"INFO"}, f"Worldseed: grew {len(roots)} trees into collection {collection.name!r}")
        return {"FINISHED"}


class WORLDSEED_OT_tree_edit_rules(bpy.types.Operator):
    """Put the rules into a text you can edit in Blender's Text Editor; the Trees panel then uses that text"""
    bl_idname = "worldseed.tree_edit_rules"
    bl_label = "Edit Rules in Text Editor"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        settings = context.scene.worldseed.trees
        if settings.rules_text is None:
            text = bpy.data.texts.new(f"{settings.name} Rules")
            body = settings.rules if "\n" in settings.rules else settings.rules.replace(";", "\n")
            text.from_string(body.strip() + "\n")
            settings.rules_text = text
        text = settings.rules_text
        shown = False
        for area in (context.screen.areas if context.screen else ()):
            if area.type == "TEXT_EDITOR":
                area.spaces.active.text = text
                shown = True
        if not shown:
            self.report({"INFO"}, f"Worldseed: rules are in the text {text.name!r}; open it in a Text Editor")
        return {"FINISHED"}


class WORLDSEED_OT_tree_rules_detach(bpy.types.Operator):
    """Copy the text's rules back into the Rules field and stop using the text"""
    bl_idname = "worldseed.tree_rules_detach"
    bl_label = "Use Rules Field"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        settings = context.scene.worldseed.trees
        if settings.rules_text is not None:
            settings.rules = settings.rules_text.as_string().strip()
            settings.rules_text = None
        return {"FINISHED"}


class WORLDSEED_OT_tree_reseed(bpy.types.Operator):
    """Draw a new random seed for the Trees panel"""
    bl_idname = "worldseed.tree_reseed"
    bl_label = "New Tree Seed"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        context.scene.worldseed.trees.seed = _reseed()
        return {"FINISHED"}


classes = (WORLDSEED_OT_tree_add, WORLDSEED_OT_forest_add, WORLDSEED_OT_tree_edit_rules,
           WORLDSEED_OT_tree_rules_detach, WORLDSEED_OT_tree_reseed)

__all__ = ["classes", "settings_spec", "rule_error"]
