"""The Blender side of ``core.recipe.SECTIONS``: one adapter per section, and the sidebar as a recipe.

:data:`ADAPTERS` holds one :class:`.family.Adapter` per recipe section, in the order of the registry;
registration makes ``scene.worldseed.<key>`` from each, Auto Update (``addon/live.py``), the object
look-ups, Load Settings, New Seed and Update read them, the headless world build asks each to
build its section, and :func:`recipe_from_sidebar` gathers the whole sidebar into one recipe.

A section that only configures ([world], [export]) is a few lines; a family adds the methods it
does its own way: the terrain (which also holds the world's name and seed, and the terrain's layers:
``[terrain.erosion]``, ``[biomes]``, ``[[splat]]``, edited as prefixed fields and a list of texture
layers), the trees (their species, rules from a Text datablock, constants as text), the scatter (a
list of layers, each from a built-in prop, a collection or an object) and the levels
(:mod:`.levels`: its text fields and WFC sources).  A new family is one more adapter in
:data:`ADAPTERS`, its bridge module and its panel.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast, overload

import bpy

from ...core import biomes as core_biomes
from ...core import erosion as core_erosion
from ...core import mesh as core_mesh
from ...core import recipe as core_recipe
from ...core import scatter as core_scatter
from ...core import trees as core_trees
from ...core import world as core_world
from ...core.errors import ParameterError
from . import curve
from . import ecosystem as bridge_ecosystem
from . import follow as bridge_follow
from . import levels as bridge_levels
from . import networks as bridge_networks
from . import scatter as bridge_scatter
from . import settlements as bridge_settlements
from . import terrain as bridge_terrain
from . import trees as bridge_trees
from .family import SECTION_BY_KEY, Adapter, Plan, auto_props, modal_vertices, settings_class
from .properties import (
    RELATIVE,
    SHOWN_KINDS,
    PropertyDef,
    Settings,
    Update,
    apply_spec,
    attrs_table,
    blend_path,
    prop_for,
    props_from_limits,
    scene_settings,
)
from .query import child_of, is_kind, root_of

if TYPE_CHECKING:
    from ...core.recipe import Recipe
    from ...core.scatter import LayerSpec
    from ...core.spec import Limit
    from ...core.trees import TreeSpec
    from .world import World

__all__ = [
    "ADAPTERS",
    "adapter",
    "families",
    "recipe_from_sidebar",
    "follower_tables",
    "world_recipe",
    "TerrainAdapter",
    "TreesAdapter",
    "ScatterAdapter",
    "weights_text",
    "named_entries",
    "species_items",
    "builtin_items",
    "Prefixed",
]


def weights_text(value: Mapping[str, float] | Iterable[str | tuple[str, float]]) -> str:
    """Biome weights (``{name: weight}``, ``(name, weight)`` pairs or names) as the sidebar's text.

    >>> weights_text({"forest": 1.0, "grassland": 0.25})
    'forest, grassland = 0.25'
    """
    pairs = value.items() if isinstance(value, dict) else [(v, 1.0) if isinstance(v, str) else v for v in value]
    return ", ".join(name if weight == 1.0 else f"{name} = {weight:g}" for name, weight in pairs)


def named_entries(err: ParameterError, key: str, names: Sequence[str], what: str) -> ParameterError:
    """``err`` with the recipe's ``key[i]`` written as the sidebar names entry ``i``: ``what i+1 ('name')``."""
    text = str(err)
    for i in reversed(range(len(names))):  # splat[10] before splat[1]
        text = text.replace(f"{key}[{i}]", f"{what} {i + 1} ({names[i]!r})")
    return type(err)(text)


class Prefixed:
    """The attributes ``<prefix><name>`` of ``obj`` seen as ``<name>``.

    >>> class Settings:
    ...     erosion_droplets = 5
    >>> Prefixed(Settings(), "erosion_").droplets
    5
    """

    def __init__(self, obj: object, prefix: str) -> None:
        self._obj, self._prefix = obj, prefix

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._obj, self._prefix + name)


#: Fields written as text in the sidebar, read by core's own checks: a biome table, biome weights.
TEXT_FIELDS = {"table": "a preset name (whittaker) or a .toml file", "biomes": "written 'forest, grassland = 0.25'"}


def _kw(update: Update | None) -> dict[str, Any]:
    return {"update": update} if update is not None else {}


def _fields(limits: Mapping[str, Limit], *, text: bool = True) -> tuple[str, ...]:
    return tuple(n for n, limit in limits.items() if limit.kind in SHOWN_KINDS or (text and n in TEXT_FIELDS))


def text_props(
    limits: Mapping[str, Limit], defaults: object, names: Sequence[str], update: Update | None = None
) -> dict[str, PropertyDef]:
    """Properties of ``names``: generated from ``limits``, the text fields (:data:`TEXT_FIELDS`) as
    StringProperties, a ``texture`` as a file path."""
    props = props_from_limits(limits, defaults, names=[n for n in names if n not in TEXT_FIELDS], update=update)
    for name in names:
        if name in TEXT_FIELDS:
            limit, value = limits[name], getattr(defaults, name)
            props[name] = bpy.props.StringProperty(
                name=limit.label,
                description=f"{limit.description}; {TEXT_FIELDS[name]}",
                default=value if isinstance(value, str) else weights_text(value),
                **_kw(update),
            )
    if "texture" in props:  # a file browser for the texture
        limit = limits["texture"]
        props["texture"] = bpy.props.StringProperty(
            name=limit.label, description=limit.description, default="", subtype="FILE_PATH", **RELATIVE, **_kw(update)
        )
    return {name: props[name] for name in names}


def _set_values(props: Settings, prefix: str, names: Iterable[str], spec: object) -> None:
    for name in names:
        value = getattr(spec, name)
        setattr(props, prefix + name, weights_text(value) if name == "biomes" else value)


def _named_path(text: str) -> str:
    """A sidebar text that names a preset or a file: a file (a path or a .toml name,
    ``core.biomes.is_table_path``) as :func:`blend_path` finds it; a preset name stays a name."""
    return blend_path(text) if core_biomes.is_table_path(text) else text


# --------------------------------------------------------------------------- [world], [export]


class WorldAdapter(Adapter):
    """``[world]``: the World panel's grid and halo (a tiled world); the name and seed are the Terrain
    panel's (they name and seed a single terrain too)."""

    key = "world"
    label = "world"
    skip = ("name", "seed", "tiles")

    def settings_props(self, update: Update | None = None) -> dict[str, PropertyDef]:
        tiles, bounds, default = self.section.limits["tiles"], core_world.TILES, self.defaults().tiles

        def tiles_prop(axis: str, value: int) -> PropertyDef:
            return bpy.props.IntProperty(
                name=f"Tiles {axis}",
                description=f"{tiles.description}: tiles along Unity {axis}",
                default=value,
                min=bounds[0],
                max=bounds[1],
            )

        def range_prop(label: str, axis: str) -> PropertyDef:
            which = "from" if label.startswith("First") else "up to and with"
            return bpy.props.IntProperty(
                name=label,
                description=f"Build the tiles {which} this index along Unity {axis} (counted from 0)",
                default=0,
                min=0,
                max=bounds[1] - 1,
            )

        return {
            "tiles_x": tiles_prop("X", default[0]),
            "tiles_z": tiles_prop("Z", default[1]),
            **self.props(),
            "build_all": bpy.props.BoolProperty(
                name="All Tiles", default=True, description="Build every tile of the grid (off: only the range below)"
            ),
            "x0": range_prop("First X", "X"),
            "x1": range_prop("Last X", "X"),
            "z0": range_prop("First Z", "Z"),
            "z1": range_prop("Last Z", "Z"),
            "folder": bpy.props.StringProperty(
                name="World Folder",
                default="//world/",
                subtype="DIR_PATH",
                description="Where the tile files go (RAW heights, splats, placements, FBX, the world JSON); "
                "'//' is the .blend's folder (a temporary folder while the file is unsaved)",
            ),
            "file_name": bpy.props.StringProperty(
                name="File Name",
                default="world",
                maxlen=48,
                description="Base name of the files and of the tiles in the scene: <name>_<x>_<z>.raw ... "
                "and <name>_world.json",
            ),
            "scatter": bpy.props.BoolProperty(
                name="Scatter",
                default=True,
                description="Scatter the Scatter panel's layers (built-in props) over the tiles",
            ),
            "complete_tiles": bpy.props.StringProperty(
                name="Complete Tiles",
                default="",
                options={"HIDDEN"},
                description="The tiles whose files the world folder holds complete, 'x,z;x,z' (noted by Build Tiles)",
            ),
            "last_error": bpy.props.StringProperty(
                name="Last Error", default="", options={"SKIP_SAVE"}, description="Why the last world build failed"
            ),
        }

    def tables(self, scene: bpy.types.Scene) -> dict[str, Any]:
        settings = self.settings(scene)
        return {"world": {**self.table(settings), "tiles": [settings.tiles_x, settings.tiles_z]}}


class ExportAdapter(Adapter):
    """``[export]``: what a world writes besides the .blend."""

    key = "export"
    label = "export"


# --------------------------------------------------------------------------- [terrain] and its layers


class TerrainAdapter(Adapter):
    """``[terrain]`` with the world's name and seed and the terrain's layers: ``[terrain.erosion]`` and
    ``[biomes]`` as fields under the prefixes ``erosion_`` and ``biomes_``, ``[[splat]]`` as a list of
    texture layers (``settings.splats``; an Add Terrain operator holds them as JSON text)."""

    key = "terrain"
    kind = bridge_terrain.TERRAIN_KIND
    label = "terrain"
    update_operator = "worldseed.terrain_update"
    prefix = "terrain."
    skip = ("enabled",)  # for recipes: a terrain panel always has a terrain
    #: The world's fields the Terrain panel holds.
    world_fields = ("name", "seed")
    #: Settings of the output rather than of the look; applying a preset leaves them alone.
    output_fields = ("resolution", "lods", "material", "offset")
    erosion_prefix, biomes_prefix = "erosion_", "biomes_"
    #: Most texture layers (Unity's terrain takes any number; each 4 are one splat image).
    max_splats = 16

    @property
    def erosion_fields(self) -> tuple[str, ...]:
        return _fields(core_erosion.LIMITS, text=False)

    @property
    def biomes_fields(self) -> tuple[str, ...]:
        return _fields(SECTION_BY_KEY["biomes"].limits)

    @property
    def splat_fields(self) -> tuple[str, ...]:
        return _fields(SECTION_BY_KEY["splat"].limits)

    def layer_props(self, update: Update | None = None) -> dict[str, PropertyDef]:
        """The erosion and biome fields as properties, each under its prefix (``erosion_droplets_per_km2``)."""
        erosion = text_props(core_erosion.LIMITS, core_erosion.ErosionSpec(), self.erosion_fields, update)
        biomes = SECTION_BY_KEY["biomes"]
        biome_props = text_props(biomes.limits, biomes.spec(), self.biomes_fields, update)
        return {
            **{self.erosion_prefix + n: p for n, p in erosion.items()},
            **{self.biomes_prefix + n: p for n, p in biome_props.items()},
        }

    def splat_props(self, update: Update | None = None) -> dict[str, PropertyDef]:
        """``{name: bpy.props...}`` of one texture layer (``[[splat]]``)."""
        splat = SECTION_BY_KEY["splat"]
        return text_props(splat.limits, splat.spec(), self.splat_fields, update)

    def props(self, update: Update | None = None) -> dict[str, PropertyDef]:
        """The world's name and seed, every shown terrain field and the terrain's layers."""
        world = SECTION_BY_KEY["world"]
        return {
            **props_from_limits(world.limits, world.spec(), names=self.world_fields, update=update),
            **super().props(update=update),
            **self.layer_props(update=update),
        }

    def settings_classes(self, update: Update | None = None) -> tuple[type[bpy.types.PropertyGroup], ...]:
        splat = settings_class(
            "WorldseedSplatLayer", "One texture layer (``[[splat]]``) of the Terrain panel.", self.splat_props(update)
        )
        props = {
            **self.props(update=update),
            "splats": bpy.props.CollectionProperty(type=splat, name="Texture Layers"),
            "active_splat": bpy.props.IntProperty(name="Active Texture Layer", default=0, min=0),
            "height_curve": bpy.props.PointerProperty(
                type=bpy.types.NodeTree, name="Height Curve", description="Node group holding the height curve widget"
            ),
            "preset": bpy.props.StringProperty(name="Preset", default="", description="Last preset applied"),
            **auto_props(self.label),
        }
        doc = "The Terrain panel's settings: the world's name and seed, [terrain] and its layers."
        return splat, settings_class("WorldseedTerrainSettings", doc, props, self.methods())

    # ---------------------------------------------------------------- sidebar -> recipe

    def splat_tables(self, props: Settings) -> list[dict[str, Any]]:
        """The ``[[splat]]`` tables of the texture layers ``props`` hold: the sidebar's list (``splats``) or
        the operator's JSON text (``splat_json``)."""
        limits = SECTION_BY_KEY["splat"].limits
        if hasattr(props, "splats"):
            tables = [attrs_table(limits, layer, self.splat_fields) for layer in props.splats]
            return [{**t, "texture": blend_path(t["texture"])} for t in tables]
        try:
            return json.loads(getattr(props, "splat_json", "") or "[]")
        except ValueError as err:
            raise ParameterError(f"texture layers: not valid JSON ({err})") from None

    def props_tables(self, props: Settings, *, curve_points: Iterable[Iterable[float]]) -> dict[str, Any]:
        """``{"world", "terrain", "biomes", "splat"}`` tables of what ``props`` (settings or operator) hold."""
        limits = SECTION_BY_KEY["world"].limits
        terrain = {**self.table(props), "curve": [list(p) for p in curve_points]}
        terrain["erosion"] = attrs_table(core_erosion.LIMITS, Prefixed(props, self.erosion_prefix), self.erosion_fields)
        biomes = attrs_table(SECTION_BY_KEY["biomes"].limits, Prefixed(props, self.biomes_prefix), self.biomes_fields)
        biomes["table"] = _named_path(biomes["table"])
        tables: dict[str, Any] = {
            "world": attrs_table(limits, props, self.world_fields),
            "terrain": terrain,
            "biomes": biomes,
        }
        splats = self.splat_tables(props)
        if splats:
            tables["splat"] = splats
        return tables

    def tables(self, scene: bpy.types.Scene) -> dict[str, Any]:
        settings = self.settings(scene)
        return self.props_tables(settings, curve_points=curve.curve_points(settings))

    def recipe(
        self,
        props: Settings,
        *,
        curve_points: Iterable[Iterable[float]],
        export: Settings | None = None,
        networks: Mapping[str, Any] | None = None,
        source: str = "Terrain panel",
    ) -> Recipe:
        """The validated recipe ``props`` (settings or operator) describe, with ``export``'s settings and
        the ``networks`` tables (``{"rivers": ..., "roads": ...}``: :func:`follower_tables`);
        an error about a texture layer names it as the panel does (``texture layer 2 ('Rock')``)."""
        data = self.props_tables(props, curve_points=curve_points)
        data.update(networks or {})
        if export is not None:
            data["export"] = ADAPTERS_BY_KEY["export"].table(export)
        names = [layer.name for layer in props.splats] if hasattr(props, "splats") else []
        try:
            return core_recipe.from_dict(data, source=source)
        except ParameterError as err:
            raise named_entries(err, "splat", names, "texture layer") from None

    def scene_recipe(self, scene: bpy.types.Scene) -> Recipe:
        """The recipe the scene's Terrain panel (and Export settings) describe."""
        settings = scene_settings(scene)
        return self.recipe(
            settings.terrain,
            curve_points=curve.curve_points(settings.terrain),
            export=settings.export,
            networks=follower_tables(scene, self.key),
        )

    # ---------------------------------------------------------------- recipe -> sidebar

    def load(self, props: Settings, recipe: Recipe, *, keep: Iterable[str] = (), world: bool = True) -> None:
        """A recipe's world name and seed (with ``world``), terrain and layer fields into ``props``;
        the texture layers only into the sidebar's list, the curve only into its widget."""
        if world:
            apply_spec(props, recipe.world, names=self.world_fields)
        apply_spec(props, recipe.terrain, names=self.fields(), keep=keep)
        _set_values(props, self.erosion_prefix, self.erosion_fields, recipe.terrain.erosion)
        _set_values(props, self.biomes_prefix, self.biomes_fields, recipe.biomes)
        if hasattr(props, "splats"):
            props.splats.clear()
            for spec in recipe.splat:
                _set_values(props.splats.add(), "", self.splat_fields, spec)
            props.active_splat = 0
            curve.set_curve_points(props, recipe.terrain.curve)

    def new_splat(self, settings: Settings) -> Settings:
        """Add a texture layer with the defaults, named Ground (the first) or Layer, Layer 2 ..."""
        taken = {layer.name for layer in settings.splats}
        layer = settings.splats.add()
        _set_values(layer, "", self.splat_fields, SECTION_BY_KEY["splat"].spec())
        base = "Ground" if len(settings.splats) == 1 else "Layer"
        name, k = base, 1
        while name in taken:
            k += 1
            name = f"{base} {k}"
        layer.name = name
        settings.active_splat = len(settings.splats) - 1
        return layer

    # ---------------------------------------------------------------- objects

    def stored(self, root: bpy.types.Object) -> Recipe:
        return bridge_terrain.stored_recipe(root)

    def runs_modal(self, recipe: Recipe) -> bool:
        """Whether a build of ``recipe`` is worth showing progress (and Esc): erosion, rivers or roads, or
        many vertices."""
        n = recipe.terrain.resolution
        vertices = sum(len(core_mesh.lod_indices(n, 2**k)) ** 2 for k in range(recipe.terrain.lods))
        networks = recipe.rivers.enabled or recipe.roads.enabled
        return recipe.terrain.erosion.enabled or networks or vertices > modal_vertices()

    def rebuild_plan(self, root: bpy.types.Object, scene: bpy.types.Scene) -> Plan:
        recipe = self.scene_recipe(scene)
        if bridge_settlements.settlements_of(root) is not None:  # the terrain keeps its settlements: their
            # pads in its heights and their objects rebuilt on the new ground (refused before anything
            # changes when the new ground has no place for them)
            recipe = core_recipe.replace(recipe, settlements=self.stored(root).settlements)
            steps = bridge_settlements.resettle_steps(root, recipe)
            return Plan(steps, modal=True, note=bridge_terrain.erosion_note(recipe))
        steps = bridge_terrain.terrain_steps(
            recipe, collection=scene.collection, replace=root, follow=bridge_follow.follow_steps
        )
        # a forest grows again on the new ground: worth showing progress (and Esc)
        modal = self.runs_modal(recipe) or bridge_ecosystem.forest_of(root) is not None
        return Plan(steps, modal=modal, note=bridge_terrain.erosion_note(recipe))

    def build(
        self,
        recipe: Recipe,
        world: World,
        *,
        scene: bpy.types.Scene,
        progress: Callable[[int, int, str], object] | None = None,
    ) -> None:
        bridge_terrain.build_section(recipe, world, scene=scene, progress=progress)


# --------------------------------------------------------------------------- [[trees]]

_SPECIES_ITEMS: list[tuple[str, str, str]] = []  # Blender needs enum item strings to stay alive while the enum is shown


def species_items(self: object = None, context: bpy.types.Context | None = None) -> list[tuple[str, str, str]]:
    """Enum items of the shipped species: game species first, then ABOP's plants."""
    if not _SPECIES_ITEMS:
        for name in core_trees.species_names():
            try:
                info = core_trees.species_info(name)
            except ParameterError:
                continue
            _SPECIES_ITEMS.append((name, info["label"], info["description"]))
    return _SPECIES_ITEMS


#: The species the Trees panel shows on a new scene (the README's first), if it ships.
FIRST_SPECIES = "broadleaf"


def first_species_index() -> int:
    """Where :data:`FIRST_SPECIES` stands in :func:`species_items` (a species picker's default), or 0."""
    names = [item[0] for item in species_items()]
    return names.index(FIRST_SPECIES) if FIRST_SPECIES in names else 0


def _first_species_spec() -> TreeSpec:
    names = core_trees.species_names()
    for name in sorted(names, key=lambda n: n != FIRST_SPECIES):
        try:
            return core_trees.species_spec(name)
        except ParameterError:  # a broken species file must not stop the add-on from loading
            continue
    return core_trees.TreeSpec()


class TreesAdapter(Adapter):
    """``[[trees]]``: the Trees panel's tree (its species, rules from the field or a Text datablock,
    constants as ``name=value; ...`` text), and the species of its forest."""

    key = "trees"
    kind = bridge_trees.TREE_KIND
    label = "tree"
    prefix = "tree."
    skip = ("variants",)  # the forest's (a field of its own), not the tree's

    def __init__(self) -> None:
        self._defaults: TreeSpec | None = None

    def defaults(self) -> TreeSpec:
        """The first species (what the species picker shows on a new scene) gives every default."""
        if self._defaults is None:
            self._defaults = _first_species_spec()
        return self._defaults

    def fields(self) -> tuple[str, ...]:
        return (*super().fields(), "constants")

    def props(self, update: Update | None = None, *, rules_update: Update | None = None) -> dict[str, PropertyDef]:
        """Every shown field (constants as text); ``rules_update`` is called when the axiom, the rules or the
        constants change (``update`` for the others)."""
        limits, defaults = self.section.limits, self.defaults()
        rules_update = rules_update or update
        names = [n for n in super().fields() if n not in ("axiom", "rules")]
        props = props_from_limits(limits, defaults, names=names, update=update)
        props.update(props_from_limits(limits, defaults, names=("axiom", "rules"), update=rules_update))
        limit = limits["constants"]
        props["constants"] = bpy.props.StringProperty(
            name=limit.label,
            description=limit.description,
            default=core_trees.constants_to_text(defaults.constants),
            **_kw(rules_update),
        )
        return props

    def settings_classes(self, update: Update | None = None) -> tuple[type[bpy.types.PropertyGroup], ...]:
        adapter = self

        def on_rules(settings: Settings, context: bpy.types.Context) -> None:
            adapter.refresh_rule_error(settings)

        def on_species(settings: Settings, context: bpy.types.Context) -> None:
            if settings.species:
                adapter.load(settings, core_trees.species_spec(settings.species), keep=("seed",))
                settings.rules_text = None
            adapter.refresh_rule_error(settings)

        props = {
            **self.props(rules_update=on_rules),
            "species": bpy.props.EnumProperty(
                name="Species",
                items=species_items,
                default=first_species_index(),
                update=on_species,
                description="A tree species or one of ABOP's plants; choosing one loads its rules and settings",
            ),
            "rules_text": bpy.props.PointerProperty(
                type=bpy.types.Text,
                name="Rules Text",
                update=on_rules,
                description="A text (Text Editor) holding the rules; when set it is used instead of the Rules field",
            ),
            "variants": prop_for(self.section.limits["variants"], self.defaults().variants),
            "forest_species": bpy.props.StringProperty(
                name="Forest Species",
                default="",
                description="Species of the forest, separated by commas; empty for the species above",
            ),
            "rule_error": bpy.props.StringProperty(
                name="Rule Error", default="", description="Why the rules do not parse (empty when they do)"
            ),
        }
        methods = {**self.methods(), "rules_source": rules_source}
        doc = "The Trees panel's settings: a tree ([[trees]]) and the species of its forest."
        return (settings_class("WorldseedTreeSettings", doc, props, methods),)

    def table(self, props: Settings, *, rules: str | None = None) -> dict[str, Any]:
        table = attrs_table(self.section.limits, props, super().fields())
        table["constants"] = core_trees.constants_from_text(props.constants)
        if rules is not None:
            table["rules"] = rules
        return table

    def spec(self, props: Settings, *, rules: str | None = None, species: str = "", **overrides: Any) -> TreeSpec:
        """The validated TreeSpec of ``props`` (``rules`` replaces their text); ``species`` names it."""
        spec = self.parse({**self.table(props, rules=rules), **overrides})
        return dataclasses.replace(spec, species=species) if species else spec

    def settings_spec(self, settings: Settings) -> TreeSpec:
        """The TreeSpec of the Trees panel (rules from its Text datablock when one is set)."""
        return self.spec(settings, rules=settings.rules_source(), species=settings.species)

    def load(self, props: Settings, spec: TreeSpec, *, keep: Iterable[str] = ()) -> None:
        super().load(props, spec, keep=(*keep, "constants"))
        if "constants" not in keep:
            props.constants = core_trees.constants_to_text(spec.constants)

    def tables(self, scene: bpy.types.Scene) -> dict[str, Any]:
        """The Trees panel's tree with its forest's variants and seed, then each other species of its
        forest (Grow Forest's trees)."""
        settings = self.settings(scene)
        tree = {**self.table(settings, rules=settings.rules_source()), "variants": settings.variants}
        if settings.species:
            tree["species"] = settings.species
        entries = [tree]
        for name in (n.strip() for n in settings.forest_species.split(",")):
            if name and name != settings.species:
                entries.append({"species": name, "variants": settings.variants, "seed": settings.seed})
        return {self.key: entries}

    def refresh_rule_error(self, settings: Settings) -> None:
        """Check the rules and keep why they do not parse in ``rule_error`` ("" when they do)."""
        error = core_trees.rule_error(settings.axiom, settings.rules_source(), settings.constants)
        if settings.rule_error != error:
            settings.rule_error = error

    def watch(self, settings: Settings) -> None:
        """Rules kept in a Text datablock change without a callback: look at them."""
        if settings.rules_text is not None:
            self.refresh_rule_error(settings)

    def stored(self, root: bpy.types.Object) -> TreeSpec:
        return bridge_trees.stored_spec(root)

    def build(
        self,
        recipe: Recipe,
        world: World,
        *,
        scene: bpy.types.Scene,
        progress: Callable[[int, int, str], object] | None = None,
    ) -> None:
        bridge_trees.build_section(recipe, world, scene=scene, progress=progress)


def rules_source(settings: Settings) -> str:
    """The rules as they will be used: from the Text datablock when one is set."""
    return settings.rules_text.as_string() if settings.rules_text is not None else settings.rules


# --------------------------------------------------------------------------- [[scatter]]

_BUILTIN_ITEMS: list[tuple[str, str, str]] = []


def builtin_items(self: object = None, context: bpy.types.Context | None = None) -> list[tuple[str, str, str]]:
    """Enum items of the built-in props: rock, grass and every tree species (kept alive for Blender)."""
    if not _BUILTIN_ITEMS:
        _BUILTIN_ITEMS.extend(
            [("rock", "Rock", "Noise-displaced rocks"), ("grass", "Grass", "Clumps of crossed grass cards")]
        )
        _BUILTIN_ITEMS.extend((name, f"Tree: {label}", desc) for name, label, desc in species_items())
    return _BUILTIN_ITEMS


assert tuple(i[0] for i in builtin_items()[:2]) == core_scatter.BUILTIN_PROPS

SOURCES = (
    ("BUILTIN", "Built-in", "Rocks, grass or trees made by Worldseed"),
    ("COLLECTION", "Collection", "Every object of a collection, picked at random"),
    ("OBJECT", "Object", "One object"),
)


class ScatterAdapter(Adapter):
    """``[[scatter]]``: the Scatter panel's list of prop layers (each from a built-in prop, a collection
    or an object of the .blend) and its seed; the root is the scatter object on a terrain."""

    key = "scatter"
    kind = bridge_scatter.SCATTER_KIND
    label = "scatter"
    update_operator = "worldseed.scatter_update"
    skip = ("prop",)  # picked from the built-in props (or the artist's own)

    def fields(self) -> tuple[str, ...]:
        return _fields(self.section.limits, text=True)

    def layer_props(self, update: Update | None = None) -> dict[str, PropertyDef]:
        """``{name: bpy.props...}`` of one layer (the biomes as text)."""
        return text_props(self.section.limits, self.defaults(), self.fields(), update)

    def settings_classes(self, update: Update | None = None) -> tuple[type[bpy.types.PropertyGroup], ...]:
        layer = settings_class(
            "WorldseedScatterLayer",
            "One prop layer (``[[scatter]]``) of the Scatter panel.",
            {
                **self.layer_props(update),
                "source": bpy.props.EnumProperty(
                    name="Props",
                    default="BUILTIN",
                    items=SOURCES,
                    update=update,
                    description="Where the props come from",
                ),
                "builtin": bpy.props.EnumProperty(
                    name="Built-in", items=builtin_items, update=update, description="Which built-in prop"
                ),
                "collection": bpy.props.PointerProperty(
                    type=bpy.types.Collection,
                    name="Collection",
                    description="Props to scatter (each instance picks one)",
                ),
                "object": bpy.props.PointerProperty(
                    type=bpy.types.Object, name="Object", description="Prop to scatter"
                ),
            },
        )
        props = {
            "layers": bpy.props.CollectionProperty(type=layer),
            "active_layer": bpy.props.IntProperty(name="Active Layer", default=0, min=0),
            "seed": bpy.props.IntProperty(
                name="Seed",
                default=0,
                min=0,
                max=2**31 - 1,
                update=update,
                description="Random seed of the scatter: positions, variants, yaw, scale",
            ),
            **auto_props(self.label),
        }
        doc = "The Scatter panel's settings: a list of prop layers ([[scatter]]) and a seed."
        return layer, settings_class("WorldseedScatterSettings", doc, props, self.methods())

    def layer_table(self, layer: Settings) -> dict[str, Any]:
        return {**self.table(layer), "prop": layer.builtin if layer.source == "BUILTIN" else "rock"}

    def layer_specs(self, settings: Settings) -> list[LayerSpec]:
        """Validated LayerSpecs of the Scatter panel's layers (a layer of the artist's own props is a
        ``prop = "rock"`` placeholder here; :meth:`layer_sources` says what it really is)."""
        specs = [
            self.parse(self.layer_table(layer), prefix=f"scatter layer {i + 1} ({layer.name!r}): ")
            for i, layer in enumerate(settings.layers)
        ]
        if not specs:
            raise ParameterError("the Scatter panel has no layers; add one with +")
        return specs

    def layer_sources(self, settings: Settings) -> list[tuple[str, bpy.types.Collection | bpy.types.Object | None]]:
        """Per layer: ("BUILTIN", None), ("COLLECTION", collection) or ("OBJECT", object)."""
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

    def tables(self, scene: bpy.types.Scene, *, what: str = "a recipe") -> dict[str, Any]:
        """The layers as ``[[scatter]]`` tables: built-in props only (a recipe names no object of a .blend)."""
        settings = self.settings(scene)
        custom = [layer.name for layer in settings.layers if layer.source != "BUILTIN"]
        if custom:
            raise ParameterError(
                f"scatter layers {custom} use the artist's own props; {what} scatters built-in props only "
                "(pick built-in props)"
            )
        return {self.key: [self.layer_table(layer) for layer in settings.layers]}

    def notes(self, scene: bpy.types.Scene) -> list[str]:
        settings, seed = self.settings(scene), scene_settings(scene).terrain.seed
        if len(settings.layers) and settings.seed != seed:
            return [
                f"the Scatter panel's seed ({settings.seed}) is not the world's ({seed}): a recipe scatters with "
                "the world's seed, so its props stand elsewhere (give both one seed for the same props)"
            ]
        return []

    def layer_values(self, spec: LayerSpec) -> dict[str, Any]:
        """``{field: value}`` of a LayerSpec as a sidebar layer holds them."""
        values = core_scatter.to_dict(spec)
        values["biomes"] = weights_text(values["biomes"])
        return {name: values[name] for name in self.fields()}

    def add_layer(self, settings: Settings, kind: str) -> Settings:
        """A new layer with the suggested settings of the built-in prop ``kind``."""
        defaults = core_scatter.suggested_layer(kind)
        layer = settings.layers.add()
        for name, value in self.layer_values(defaults).items():
            setattr(layer, name, value)
        layer.builtin = kind
        settings.active_layer = len(settings.layers) - 1
        return layer

    def root(self, obj: bpy.types.Object | None) -> bpy.types.Object | None:
        """The scatter ``obj`` is, or the first one on the terrain ``obj`` belongs to, or None."""
        if is_kind(obj, self.kind):
            return obj
        return child_of(root_of(obj, TerrainAdapter.kind), self.kind)

    def stored(self, root: bpy.types.Object) -> list[LayerSpec]:
        return bridge_scatter.stored_layers(root)

    def rescatter(self, obj: bpy.types.Object, scene: bpy.types.Scene) -> bpy.types.Object:
        """Re-scatter ``obj`` in place from the scene's Scatter settings, at once."""
        settings = self.settings(scene)
        return bridge_scatter.scatter_onto(
            cast(bpy.types.Object, obj.parent),  # a scatter stands on its terrain
            self.layer_specs(settings),
            self.layer_sources(settings),
            seed=settings.seed,
            collection=scene.collection,
            replace=obj,
            clearing=bridge_ecosystem.trampled_of(obj.parent),  # no props on the trails
        )

    def rebuild_plan(self, root: bpy.types.Object, scene: bpy.types.Scene) -> Plan:
        self.layer_specs(self.settings(scene))  # bad settings: raised now, before anything runs
        terrain = cast(bpy.types.Object, root.parent)  # a scatter stands on its terrain
        return Plan(
            bridge_scatter.scatter_steps(terrain, lambda: self.rescatter(root, scene)),
            modal=bridge_scatter.layers_pending(terrain),
        )

    def build(
        self,
        recipe: Recipe,
        world: World,
        *,
        scene: bpy.types.Scene,
        progress: Callable[[int, int, str], object] | None = None,
    ) -> None:
        bridge_scatter.build_section(recipe, world, scene=scene, progress=progress)


# --------------------------------------------------------------------------- the registry

#: One adapter per recipe section, in the order of ``core.recipe.SECTIONS`` ([biomes] and [[splat]]
#: are the terrain's layers: its adapter holds them).
ADAPTERS = (
    WorldAdapter(),
    TerrainAdapter(),
    bridge_networks.RiversAdapter(),
    bridge_networks.RoadsAdapter(),
    bridge_settlements.SettlementsAdapter(),
    TreesAdapter(),
    bridge_ecosystem.EcosystemAdapter(),
    ScatterAdapter(),
    bridge_levels.LevelAdapter(),
    ExportAdapter(),
)
ADAPTERS_BY_KEY = {a.key: a for a in ADAPTERS}
#: Sections another adapter holds (the terrain's layers).
HELD = {"biomes": "terrain", "splat": "terrain"}


@overload
def adapter(key: Literal["terrain"]) -> TerrainAdapter: ...
@overload
def adapter(key: Literal["trees"]) -> TreesAdapter: ...
@overload
def adapter(key: Literal["scatter"]) -> ScatterAdapter: ...
@overload
def adapter(key: Literal["level"]) -> bridge_levels.LevelAdapter: ...
@overload
def adapter(key: Literal["ecosystem"]) -> bridge_ecosystem.EcosystemAdapter: ...
@overload
def adapter(key: str) -> Adapter: ...
def adapter(key: str) -> Adapter:
    """The adapter of section ``key``."""
    return ADAPTERS_BY_KEY[key]


def families() -> list[Adapter]:
    """The adapters of the sections that build objects (terrain, trees, scatter, levels ...)."""
    return [a for a in ADAPTERS if a.kind]


def follower_tables(scene: bpy.types.Scene, key: str) -> dict[str, Any]:
    """The recipe tables of the sections built with family ``key`` (their adapters' ``follows``: the
    networks with the terrain), as the sidebar holds them."""
    data: dict[str, Any] = {}
    for item in ADAPTERS:
        if item.follows == key:
            _merge(data, item.tables(scene))
    return data


def _merge(data: dict[str, Any], tables: Mapping[str, Any]) -> None:
    for key, value in tables.items():
        if isinstance(value, list):
            data.setdefault(key, []).extend(value)
        else:
            data.setdefault(key, {}).update(value)


def recipe_from_sidebar(
    scene: bpy.types.Scene, *, sections: Container[str] | None = None, source: str = "sidebar"
) -> Recipe:
    """The recipe the sidebar describes: every adapter's tables (or those of the families ``sections``,
    keys; [world] and [export] always, a terrain left out as ``enabled = false``), read once by
    ``core.recipe.from_dict``."""
    data: dict[str, Any] = {}
    for item in ADAPTERS:
        key = item.follows or item.key
        if sections is None or key in sections or not (item.kind or item.follows):
            _merge(data, item.tables(scene))
        elif item.key == "terrain":  # the world's name and seed are the Terrain panel's
            _merge(data, {"world": item.tables(scene)["world"], "terrain": {"enabled": False}})
    return core_recipe.from_dict({k: v for k, v in data.items() if v != []}, source=source)


def world_recipe(scene: bpy.types.Scene, *, scatter: bool = True, name: str | None = None) -> Recipe:
    """The tiled world the sidebar describes for Build Tiles: the Terrain panel's recipe with the World
    panel's grid and halo and, with ``scatter``, the Scatter panel's layers (built-in props only: core
    scatters tiles without Blender).  ``normalize`` at the panel's default is ``fixed``, as in a tiled
    recipe that does not name it (the one mode whose tiles join; Build Tiles makes tiles even of a
    1 x 1 grid, with their halo).  ``name`` (the World panel's File Name) names the world, so its tiles
    are ``<name>_<x>_<z>`` in the scene as in the files.  The Networks panel's rivers and roads and the
    Ecosystem panel's species and animals go with it (each tile carves its part of the world's plan and
    grows its plants; a tiled world refuses what it does not build, in one line), and the Settlements
    panel's settings while the scene has settlements (the panel's recipe holds them on then)."""
    data: dict[str, Any] = {}
    for key in ("world", "terrain", "export"):
        _merge(data, adapter(key).tables(scene))
    _merge(data, follower_tables(scene, "terrain"))  # the Networks panel's rivers and roads
    eco = adapter("ecosystem").tables(scene)
    if any(eco.get("ecosystem", {}).get(k) for k in ("species", "animals")):  # the Ecosystem panel's
        _merge(data, eco)
    settle = adapter("settlements").tables(scene)
    if settle["settlements"]["enabled"]:  # the scene has settlements: the world's tiles get theirs
        _merge(data, settle)
    if name is not None:
        data["world"]["name"] = name
    if data["terrain"].get("normalize") == SECTION_BY_KEY["terrain"].spec().normalize:
        data["terrain"]["normalize"] = "fixed"  # what a tiled recipe that does not name it gets
    if scatter and len(adapter("scatter").settings(scene).layers):
        _merge(data, adapter("scatter").tables(scene, what="a tiled world"))
    return core_recipe.from_dict(data, source="World panel")
