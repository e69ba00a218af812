"""Tree operators: Add Tree, Grow Forest, Edit Rules, New Seed.

They gather a :class:`core.trees.TreeSpec` through the trees' adapter (``bridge.sections.TreesAdapter``)
and hand it to :mod:`.bridge.trees`; rule and parameter errors come back as reports, and nothing is
left behind.
"""

import dataclasses

import bpy

from ..core import trees as core_trees
from ..core.errors import ParameterError
from .bridge import sections
from .bridge import trees as bridge_trees
from .bridge.properties import prop_for
from .common import FamilyOperator, Reseed, new_seed, select_only

TREES = sections.adapter("trees")
#: The tree's settings the Add Tree operator holds (its redo panel shows them).
TREE_FIELDS = TREES.fields()
#: Most trees one forest grows (the number of ``[[trees]]`` entries a recipe may hold times their variants).
MAX_FOREST_SPECIES = TREES.section.max_entries


def _rules_for_redo_panel(text):
    """Rules on one line, ``;`` between productions, so the redo panel's text field shows them all."""
    lines = [ln.split("#", 1)[0].strip() for ln in text.splitlines()]
    return "; ".join(ln for ln in lines if ln)


class WORLDSEED_OT_tree_add(FamilyOperator, bpy.types.Operator):
    """Grow a tree from L-system rules: a parent with Name_LOD0, Name_LOD1, ... for Unity's LOD Group.

    Fields a call leaves out come from ``species`` (the first species when
    none is given); a call that gives ``axiom`` or ``rules`` but no
    ``species`` grows its own rules and takes the other fields from
    ``TreeSpec``'s defaults, not from a species it did not ask for.
    """

    bl_idname = "worldseed.tree_add"
    bl_label = "Add Tree"
    bl_options = {"REGISTER", "UNDO"}
    family = "trees"

    __annotations__ = {
        **TREES.props(),
        "species": bpy.props.EnumProperty(
            name="Species",
            items=sections.species_items,
            default=sections.first_species_index(),
            description="Species whose rules and settings to start from",
        ),
        "loaded_species": bpy.props.StringProperty(options={"HIDDEN", "SKIP_SAVE"}),
        "own_rules": bpy.props.BoolProperty(default=False, options={"HIDDEN", "SKIP_SAVE"}),
        "new_seed": bpy.props.BoolProperty(
            name="New Seed", default=False, options={"SKIP_SAVE"}, description="Draw a fresh random seed for this tree"
        ),
        "from_settings": bpy.props.BoolProperty(
            name="From Sidebar",
            default=False,
            options={"SKIP_SAVE", "HIDDEN"},
            description="Start from the Trees panel's settings (what the sidebar button does)",
        ),
    }

    def _load_settings(self, context):
        settings = self.settings(context)
        spec = TREES.settings_spec(settings)
        TREES.load(self, spec)
        self.rules = _rules_for_redo_panel(spec.rules)
        self.species = settings.species
        self.loaded_species = settings.species
        self.own_rules = False
        self.from_settings = False

    def _load_defaults(self):
        """A call with its own axiom or rules and no species: the fields it left out from TreeSpec's defaults."""
        keep = {n for n in TREE_FIELDS if self.properties.is_property_set(n)}
        TREES.load(self, core_trees.TreeSpec(), keep=keep)
        self.loaded_species = self.species  # no species to load (until the redo panel picks one)
        self.own_rules = True

    def _load_species(self):
        """Take the chosen species' values: for fields not given by the caller on the first run, for all
        but name and seed when the species is changed in the redo panel."""
        first = not self.loaded_species
        keep = {n for n in TREE_FIELDS if self.properties.is_property_set(n)} if first else {"seed"}
        spec = core_trees.species_spec(self.species)
        TREES.load(self, spec, keep=keep)
        if "rules" not in keep:
            self.rules = _rules_for_redo_panel(spec.rules)
        self.loaded_species = self.species
        self.own_rules = False

    def execute(self, context):
        return self.guard(context, lambda: self._grow(context))

    def _grow(self, context):
        given = self.properties.is_property_set
        if self.from_settings:
            self._load_settings(context)
        elif not self.loaded_species and not given("species") and (given("axiom") or given("rules")):
            self._load_defaults()
        elif self.species != self.loaded_species:
            self._load_species()
        if self.new_seed:
            self.seed, self.new_seed = new_seed(), False
        spec = TREES.spec(self, species="" if self.own_rules else self.species)
        root = bridge_trees.build_tree(
            spec, collection=context.collection, location=tuple(context.scene.cursor.location)
        )
        select_only(context, root)
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
        for name in TREE_FIELDS:
            if name != "seed":
                layout.prop(self, name)


class WORLDSEED_OT_forest_add(FamilyOperator, bpy.types.Operator):
    """Grow several variants of each species from consecutive seeds into a new collection, as scatter props"""

    bl_idname = "worldseed.forest_add"
    bl_label = "Grow Forest"
    bl_options = {"REGISTER", "UNDO"}
    family = "trees"

    variants: prop_for(TREES.section.limits["variants"], core_trees.TreeSpec().variants)
    species: bpy.props.StringProperty(
        name="Species",
        default="",
        description="Species separated by commas (empty: the Trees panel's species with its current settings)",
    )
    seed: bpy.props.IntProperty(
        name="Seed",
        default=0,
        min=0,
        max=2**31 - 1,
        description="Seed of the first variant; the others use the next seeds",
    )
    collection_name: bpy.props.StringProperty(name="Collection", default="Forest", maxlen=48)
    from_settings: bpy.props.BoolProperty(default=False, options={"SKIP_SAVE", "HIDDEN"})

    def _specs(self, context):
        settings = self.settings(context)
        names = [n.strip() for n in self.species.split(",") if n.strip()]
        here = TREES.settings_spec(settings)
        return [here if n == settings.species else core_trees.species_spec(n) for n in names] or [here]

    def execute(self, context):
        settings = self.settings(context)
        if self.from_settings:
            self.variants, self.seed = settings.variants, settings.seed
            self.species = settings.forest_species
            self.from_settings = False
        self._collection = None
        return self.guard(context, lambda: self._grow(context))

    def failed(self, context, err):
        if self._collection is not None:
            bpy.data.collections.remove(self._collection)

    def _grow(self, context):
        specs = [dataclasses.replace(spec, variants=self.variants) for spec in self._specs(context)]
        if len(specs) > MAX_FOREST_SPECIES:
            raise ParameterError(f"species: at most {MAX_FOREST_SPECIES} species in one forest, got {len(specs)}")
        wm = context.window_manager
        self._collection = collection = bpy.data.collections.new(self.collection_name or "Forest")
        context.scene.collection.children.link(collection)
        wm.progress_begin(0, sum(s.variants for s in specs))
        try:
            roots = bridge_trees.grow_forest(
                specs,
                collection=collection,
                seed=self.seed,
                origin=tuple(context.scene.cursor.location),
                progress=lambda done, total, stage: wm.progress_update(done),
            )
        except BaseException as err:
            if not isinstance(err, self.errors):  # a report removes it in failed(); anything else here
                bpy.data.collections.remove(collection)
            raise
        finally:
            wm.progress_end()
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
        for area in context.screen.areas if context.screen else ():
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


class WORLDSEED_OT_tree_reseed(Reseed, bpy.types.Operator):
    """Draw a new random seed for the Trees panel"""

    bl_idname = "worldseed.tree_reseed"
    bl_label = "New Tree Seed"
    bl_options = {"REGISTER", "UNDO"}
    family = "trees"


classes = (
    WORLDSEED_OT_tree_add,
    WORLDSEED_OT_forest_add,
    WORLDSEED_OT_tree_edit_rules,
    WORLDSEED_OT_tree_rules_detach,
    WORLDSEED_OT_tree_reseed,
)
