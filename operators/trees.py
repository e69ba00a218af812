"""Tree operators: Add Tree, Grow Forest, Edit Rules, New Seed.

They gather a :class:`core.trees.TreeSpec` and hand it to
:mod:`.bridge.trees`; rule and parameter errors come back as reports, and
nothing is left behind.
"""

import dataclasses

import bpy

from ..core import recipe as core_recipe
from ..core import trees as core_trees
from ..core.errors import ParameterError
from ..core.spec import from_attrs
from .bridge import trees as bridge_trees
from .bridge.properties import apply_spec, props_from_limits
from .common import new_seed, select_only

#: TreeSpec fields shown as properties (``species`` is the species picker; ``constants`` a text field).
TREE_FIELDS = tuple(n for n, limit in core_trees.LIMITS.items() if limit.kind != "custom" and n != "variants") + (
    "constants",
)
#: Most trees one forest grows (the number of ``[[trees]]`` entries a recipe may hold times their variants).
MAX_FOREST_SPECIES = next(s.max_entries for s in core_recipe.SECTIONS if s.key == "trees")


def _first_species_spec():
    for name in core_trees.species_names():
        try:
            return core_trees.species_spec(name)
        except ParameterError:  # a broken species file must not stop the add-on from loading
            continue
    return core_trees.TreeSpec()


#: The first species (what the species picker shows on a new scene) gives every default.
DEFAULTS = _first_species_spec()


def tree_props(update=None, *, rules_update=None):
    """``{name: bpy.props...}`` for every shown TreeSpec field (constants as 'name=value; ...' text).

    ``rules_update`` is called when the axiom, the rules or the constants change (``update`` for the others).
    """
    names = [n for n in TREE_FIELDS if n not in ("constants", "axiom", "rules")]
    props = props_from_limits(core_trees.LIMITS, DEFAULTS, names=names, update=update)
    props.update(
        props_from_limits(core_trees.LIMITS, DEFAULTS, names=("axiom", "rules"), update=rules_update or update)
    )
    limit = core_trees.LIMITS["constants"]
    update = rules_update or update
    kw = {"update": update} if update is not None else {}
    props["constants"] = bpy.props.StringProperty(
        name=limit.label, description=limit.description, default=core_trees.constants_to_text(DEFAULTS.constants), **kw
    )
    return props


def spec_from_props(props, *, rules=None, species=""):
    """A validated TreeSpec from an object holding :func:`tree_props` (``rules`` overrides its text)."""
    overrides = {"constants": core_trees.constants_from_text(props.constants)}
    if rules is not None:
        overrides["rules"] = rules
    fields = [n for n in TREE_FIELDS if n != "constants"]
    spec = from_attrs(core_trees.TreeSpec, core_trees.LIMITS, props, prefix="tree.", fields=fields, overrides=overrides)
    return dataclasses.replace(spec, species=species) if species else spec


def apply_spec_to_props(props, spec, *, keep=()):
    """Copy a TreeSpec into an object holding :func:`tree_props`, leaving the fields in ``keep``."""
    apply_spec(props, spec, names=[n for n in TREE_FIELDS if n != "constants"], keep=keep)
    if "constants" not in keep:
        props.constants = core_trees.constants_to_text(spec.constants)


def species_items():
    """Enum items of the shipped species: game species first, then ABOP's plants."""
    if not _SPECIES_ITEMS:
        for name in core_trees.species_names():
            try:
                info = core_trees.species_info(name)
            except ParameterError:
                continue
            _SPECIES_ITEMS.append((name, info["label"], info["description"]))
    return _SPECIES_ITEMS


_SPECIES_ITEMS: list[tuple[str, str, str]] = []  # Blender needs enum item strings to stay alive while the enum is shown


def settings_spec(settings):
    """The TreeSpec the sidebar's tree settings describe (rules from the Text datablock if set)."""
    return spec_from_props(settings, rules=settings.rules_source(), species=settings.species)


def _rules_for_redo_panel(text):
    """Rules on one line, ``;`` between productions, so the redo panel's text field shows them all."""
    lines = [ln.split("#", 1)[0].strip() for ln in text.splitlines()]
    return "; ".join(ln for ln in lines if ln)


class WORLDSEED_OT_tree_add(bpy.types.Operator):
    """Grow a tree from L-system rules: a parent with Name_LOD0, Name_LOD1, ... for Unity's LOD Group.

    Fields a call leaves out come from ``species`` (the first species when
    none is given); a call that gives ``axiom`` or ``rules`` but no
    ``species`` grows its own rules and takes the other fields from
    ``TreeSpec``'s defaults, not from a species it did not ask for.
    """

    bl_idname = "worldseed.tree_add"
    bl_label = "Add Tree"
    bl_options = {"REGISTER", "UNDO"}

    __annotations__ = {
        **tree_props(),
        "species": bpy.props.EnumProperty(
            name="Species",
            items=lambda self, context: species_items(),
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
        settings = context.scene.worldseed.trees
        spec = settings_spec(settings)
        apply_spec_to_props(self, spec)
        self.rules = _rules_for_redo_panel(spec.rules)
        self.species = settings.species
        self.loaded_species = settings.species
        self.own_rules = False
        self.from_settings = False

    def _load_defaults(self):
        """A call with its own axiom or rules and no species: the fields it left out from TreeSpec's defaults."""
        keep = {n for n in TREE_FIELDS if self.properties.is_property_set(n)}
        apply_spec_to_props(self, core_trees.TreeSpec(), keep=keep)
        self.loaded_species = self.species  # no species to load (until the redo panel picks one)
        self.own_rules = True

    def _load_species(self):
        """Take the chosen species' values: for fields not given by the caller on the first run, for all
        but name and seed when the species is changed in the redo panel."""
        first = not self.loaded_species
        keep = {n for n in TREE_FIELDS if self.properties.is_property_set(n)} if first else {"seed"}
        spec = core_trees.species_spec(self.species)
        apply_spec_to_props(self, spec, keep=keep)
        if "rules" not in keep:
            self.rules = _rules_for_redo_panel(spec.rules)
        self.loaded_species = self.species
        self.own_rules = False

    def execute(self, context):
        try:
            given = self.properties.is_property_set
            if self.from_settings:
                self._load_settings(context)
            elif not self.loaded_species and not given("species") and (given("axiom") or given("rules")):
                self._load_defaults()
            elif self.species != self.loaded_species:
                self._load_species()
            if self.new_seed:
                self.seed = new_seed()
                self.new_seed = False
            spec = spec_from_props(self, species="" if self.own_rules else self.species)
            root = bridge_trees.build_tree(
                spec, collection=context.collection, location=tuple(context.scene.cursor.location)
            )
        except ParameterError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
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


VARIANTS_PROP = props_from_limits(core_trees.LIMITS, core_trees.TreeSpec(), names=["variants"])["variants"]


class WORLDSEED_OT_forest_add(bpy.types.Operator):
    """Grow several variants of each species from consecutive seeds into a new collection, as scatter props"""

    bl_idname = "worldseed.forest_add"
    bl_label = "Grow Forest"
    bl_options = {"REGISTER", "UNDO"}

    variants: VARIANTS_PROP
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
        settings = context.scene.worldseed.trees
        names = [n.strip() for n in self.species.split(",") if n.strip()]
        if not names:
            return [settings_spec(settings)]
        return [settings_spec(settings) if n == settings.species else core_trees.species_spec(n) for n in names]

    def execute(self, context):
        settings = context.scene.worldseed.trees
        if self.from_settings:
            self.variants, self.seed = settings.variants, settings.seed
            self.species = settings.forest_species
            self.from_settings = False
        wm = context.window_manager
        collection = None
        try:
            specs = [dataclasses.replace(spec, variants=self.variants) for spec in self._specs(context)]
            if len(specs) > MAX_FOREST_SPECIES:
                raise ParameterError(f"species: at most {MAX_FOREST_SPECIES} species in one forest, got {len(specs)}")
            collection = bpy.data.collections.new(self.collection_name or "Forest")
            context.scene.collection.children.link(collection)
            wm.progress_begin(0, sum(s.variants for s in specs))
            roots = bridge_trees.grow_forest(
                specs,
                collection=collection,
                seed=self.seed,
                origin=tuple(context.scene.cursor.location),
                progress=lambda done, total, stage: wm.progress_update(done),
            )
        except ParameterError as err:
            if collection is not None:
                bpy.data.collections.remove(collection)
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        except BaseException:
            if collection is not None:
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


class WORLDSEED_OT_tree_reseed(bpy.types.Operator):
    """Draw a new random seed for the Trees panel"""

    bl_idname = "worldseed.tree_reseed"
    bl_label = "New Tree Seed"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        context.scene.worldseed.trees.seed = new_seed()
        return {"FINISHED"}


classes = (
    WORLDSEED_OT_tree_add,
    WORLDSEED_OT_forest_add,
    WORLDSEED_OT_tree_edit_rules,
    WORLDSEED_OT_tree_rules_detach,
    WORLDSEED_OT_tree_reseed,
)

__all__ = [
    "classes",
    "settings_spec",
    "tree_props",
    "spec_from_props",
    "apply_spec_to_props",
    "species_items",
    "TREE_FIELDS",
]
