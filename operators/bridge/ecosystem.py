"""The ecosystem in Blender: a simulated forest on a terrain, its year slider, its chart and its files.

The ecosystem's root is its **forest**: a point object parented to the terrain, one point per living
plant, instanced by Geometry Nodes with the species' trees (the scatter's instancing,
:mod:`.scatter`: built-in props, each species' ``tree`` its trees-family species or prop), each
scaled by its simulated height over its mesh's height; its canopy radius over the mesh's goes to
the ``ws_width`` point attribute (the placement file's ``width_scale`` and Unity Terrain trees'
``widthScale``; the FBX objects get it as their X/Y scale).  It exports as a scatter does (every
instance an object in the FBX, or the prop library and the placement file): the forest is a point
object of props (``PLACED_KEY``).

The simulation (``core.ecosystem.terrain_ecosystem_steps``, on the terrain's layers: moisture,
temperature, water, clearing) is kept in memory, like the terrain's layers: the year slider
(:func:`show_year`) shows the forest at any snapshot year from it, and the files
(:func:`ecosystem_files`) are written from it; when it is not kept (after a reload) the files are
simulated again (the same seed gives the same forest).  The year slider needs no simulation after a
reload: the forest's snapshots are stored in the .blend, on the root (``SNAPSHOTS_KEY``: the bytes of
``core.ecosystem.snapshots_bytes``, compact and compressed: per plant that lived its identity,
species, place, ground height, birth and death years; per snapshot year the plants' 16-bit sizes),
read back when the slider first moves (:func:`stored_snapshots`) and give the very instances the
kept simulation gives.  Trails: the trampled ground (``core.ecosystem.
trail_layers``) becomes part of the terrain's clearing for the scatter (:func:`trampled_of`), the
``trail`` texture rule paints the terrain package's splat maps with the wear, and the terrain mesh
gets the wear as a vertex group (``Worldseed Trails``: a mask to paint or select with).
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, cast

import bpy
import numpy as np
import numpy.typing as npt

from ...core import ecosystem as core_eco
from ...core import recipe as core_recipe
from ...core import scatter as core_scatter
from ...core import terrain as core_terrain
from ...core import trees as core_trees
from ...core.errors import ParameterError
from ...core.steps import Steps, drive
from . import scatter as bridge_scatter
from . import terrain as bridge_terrain
from . import terrain_layers as bridge_layers
from .family import Adapter, Plan, auto_props, settings_class
from .instancing import write_points
from .mesh import bulk, mesh_of
from .properties import Settings, Update, apply_spec, attrs_table, props_from_limits
from .query import KIND_KEY, child_of, is_kind

if TYPE_CHECKING:
    from ...core.ecosystem import Ecosystem, EcosystemSpec, ForestSnapshots, PlantRun
    from ...core.recipe import Recipe
    from ...core.terrain import TerrainLayers
    from .world import World

__all__ = [
    "ECOSYSTEM_KIND",
    "WIDTH",
    "TRAILS_GROUP",
    "CHART_IMAGE",
    "is_ecosystem",
    "ecosystem_root",
    "forest_of",
    "stored_spec",
    "simulate_steps",
    "kept",
    "forget",
    "build_forest",
    "show_year",
    "shown_year",
    "snapshot_years",
    "store_snapshots",
    "stored_snapshots",
    "SNAPSHOTS_KEY",
    "grow_steps",
    "remember",
    "trampled",
    "STORE_BUDGET",
    "chart_image",
    "trampled_of",
    "ecosystem_files",
    "file_roles",
    "ecosystems_among",
    "EcosystemAdapter",
    "tree_items",
    "build_section",
    "forest_steps",
]

#: The tag of an ecosystem's root (its forest).
ECOSYSTEM_KIND = "ecosystem"
#: On the root: the ``[ecosystem]`` table (JSON) it was simulated from, and the year shown.
SPEC_KEY = "worldseed_ecosystem"
YEAR_KEY = "worldseed_ecosystem_year"
#: On the root: the forest's snapshots for the year slider (bytes, ``core.ecosystem.snapshots_bytes``).
SNAPSHOTS_KEY = "worldseed_ecosystem_snapshots"
#: The most bytes of snapshots stored on a forest (:func:`store_snapshots` thins the years beyond).
STORE_BUDGET = 32 * 1024 * 1024
#: Point attribute: each plant's canopy radius over its mesh's (the width scale).
WIDTH = "ws_width"
#: The terrain's vertex group of the trail wear (0 .. 1).
TRAILS_GROUP = "Worldseed Trails"
#: The image of the population chart the panel shows.
CHART_IMAGE = "Worldseed Population"
#: Simulations kept in memory (each holds its plants' life table and snapshots).
KEEP = 2
_KEPT: collections.OrderedDict[tuple[str, str], Ecosystem] = collections.OrderedDict()
#: Stored snapshots read back (by the digest of their bytes), the last few.
_READ: collections.OrderedDict[bytes, ForestSnapshots] = collections.OrderedDict()


def is_ecosystem(obj: bpy.types.Object | None) -> bool:
    """True for an ecosystem's root (its forest)."""
    return is_kind(obj, ECOSYSTEM_KIND)


def ecosystem_root(obj: bpy.types.Object | None) -> bpy.types.Object | None:
    """The ecosystem ``obj`` is, or the one on the terrain ``obj`` belongs to, or None."""
    if is_ecosystem(obj):
        return obj
    return child_of(bridge_terrain.terrain_root(obj), ECOSYSTEM_KIND)


def forest_of(terrain: bpy.types.Object | None) -> bpy.types.Object | None:
    """The ecosystem on the terrain ``terrain``, or None."""
    return child_of(terrain, ECOSYSTEM_KIND)


def stored_spec(root: bpy.types.Object) -> EcosystemSpec:
    """The :class:`core.ecosystem.EcosystemSpec` an ecosystem was simulated from."""
    try:
        table = json.loads(root[SPEC_KEY])
    except (KeyError, ValueError):
        raise ParameterError(f"object {root.name!r} keeps no ecosystem settings") from None
    return core_eco.from_dict(table, prefix=f"object {root.name!r}: ecosystem.")


def _key(recipe: Recipe, spec: EcosystemSpec) -> tuple[str, str]:
    """What a simulation depends on: the terrain's recipe (its heights and layers) and the spec but the
    species' trees (their meshes only: another tree is the same forest, instanced again)."""
    ground = dataclasses.replace(recipe, ecosystem=core_eco.EcosystemSpec(), scatter=(), trees=(), level=())
    table = core_eco.to_dict(spec)
    for species in table["species"]:
        species["tree"] = ""
    return core_recipe.dumps(ground), json.dumps(table, sort_keys=True)


def kept(terrain: bpy.types.Object, spec: EcosystemSpec) -> Ecosystem | None:
    """The simulation of ``spec`` on ``terrain`` kept in memory, or None."""
    return _KEPT.get(_key(bridge_terrain.stored_recipe(terrain), spec))


def forget() -> None:
    """Drop the kept simulations (and the stored snapshots read back)."""
    _KEPT.clear()
    _READ.clear()


def _layers_steps(recipe: Recipe) -> Steps[TerrainLayers]:
    """The terrain's layers (kept, worked out on a worker, or its bare heights)."""
    if bridge_layers.has_layers(recipe):
        if bridge_layers.is_kept(recipe):
            layers = bridge_layers.layers_for(recipe)
            assert layers is not None  # a recipe with layers has them
            return layers
        return (yield from bridge_layers.worker_steps(recipe))
    return core_terrain.TerrainLayers(core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed))


def simulate_steps(
    terrain: bpy.types.Object, spec: EcosystemSpec, *, layers: TerrainLayers | None = None
) -> Steps[Ecosystem]:
    """The ecosystem of ``spec`` on the Worldseed terrain ``terrain`` (its ``layers`` when known), as
    steps ``(done, total, stage)``; returns a ``core.ecosystem.Ecosystem`` (kept: asked again, it
    costs nothing).  Nothing in the scene changes."""
    recipe = bridge_terrain.stored_recipe(terrain)
    if not (spec.species or spec.animals):
        raise ParameterError("the ecosystem has no species and no animals: add one with +")
    key = _key(recipe, spec)
    if key in _KEPT:
        _KEPT.move_to_end(key)
        return _KEPT[key]
    if layers is None:
        layers = yield from _layers_steps(recipe)
    eco = yield from grow_steps(recipe, spec, layers)
    remember(recipe, spec, eco)
    return eco


def grow_steps(recipe: Recipe, spec: EcosystemSpec, layers: TerrainLayers) -> Steps[Ecosystem]:
    """The ecosystem of ``spec`` on the terrain of ``recipe`` (its ``layers``), as steps; nothing is
    kept and nothing in the scene changes (see :func:`simulate_steps`)."""
    t = recipe.terrain
    sea_level = float(np.float32(t.sea_level) * np.float32(t.height))  # as the terrain's layers' water
    return (yield from core_eco.terrain_ecosystem_steps(spec, layers, sea_level=sea_level, lapse=recipe.biomes.lapse))


def remember(recipe: Recipe, spec: EcosystemSpec, eco: Ecosystem) -> None:
    """Keep ``eco`` as the simulation of ``spec`` on the terrain of ``recipe`` (:func:`kept`)."""
    key = _key(recipe, spec)
    _KEPT[key] = eco
    _KEPT.move_to_end(key)
    while len(_KEPT) > KEEP:
        _KEPT.popitem(last=False)


def trampled(spec: EcosystemSpec, eco: Ecosystem) -> npt.NDArray[np.bool_] | None:
    """The ground the animals of ``eco`` trampled (a bool map of the terrain's vertices), or None."""
    if eco.animals is None:
        return None
    mask = core_eco.trampled_mask(eco.animals, eco.habitat.shape, threshold=spec.trampled)
    return mask if mask.any() else None


# --------------------------------------------------------------------------- the forest


def _species_layers(spec: EcosystemSpec) -> list[core_scatter.LayerSpec]:
    """One scatter layer per species (its name, its tree as the prop, one variant, Unity trees)."""
    return [core_scatter.LayerSpec(name=s.name, prop=s.tree, variants=1, unity_tree=True) for s in spec.species]


def _mesh_sizes(props: Iterable[bpy.types.Object]) -> npt.NDArray[np.float64]:
    """``(S, 2)``: each prop's height and canopy radius at scale 1 (of its LOD0's bounding box)."""
    sizes = []
    for prop in props:
        dims = bridge_scatter.prop_mesh_object(prop).dimensions
        sizes.append((max(float(dims.z), 1e-3), max(0.5 * max(float(dims.x), float(dims.y)), 1e-3)))
    return np.array(sizes, np.float64).reshape(-1, 2)


def store_snapshots(root: bpy.types.Object, eco: Ecosystem) -> int:
    """Store the forest snapshots of ``eco`` on its root (``SNAPSHOTS_KEY``; removed without plants),
    for the year slider after the .blend is saved and opened again; returns the bytes stored.

    At most :data:`STORE_BUDGET` bytes: a longer run keeps every 2nd, 5th, 10th ... snapshot year
    (and the last), the first of those that fits (the slider then shows the stored year at or below
    the one asked for; measured: 150 years of the temperate preset on 512 m, a snapshot every year,
    37,695 plants at the end, 540,000 that lived, is 15.5 MB whole)."""
    if eco.plants is None:
        if root.get(SNAPSHOTS_KEY) is not None:
            del root[SNAPSHOTS_KEY]
        return 0
    for every in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000):
        snap = core_eco.forest_snapshots(eco.plants, eco.habitat, every=every)
        data = core_eco.snapshots_bytes(snap)
        if len(data) <= STORE_BUDGET or every >= eco.plants.years:
            break
    if root.get(SNAPSHOTS_KEY) is not None:  # Blender sets bytes over bytes as a C string (cut at the first NUL byte)
        del root[SNAPSHOTS_KEY]
    root[SNAPSHOTS_KEY] = data
    if root[SNAPSHOTS_KEY] != data:
        raise ParameterError(f"the forest snapshots of {root.name!r} could not be stored whole")
    _remember(data, lambda: snap)
    return len(data)


def _remember(data: bytes, read: Callable[[], ForestSnapshots]) -> ForestSnapshots:
    """The snapshots of ``data``: kept ones (by the bytes' digest), else ``read()`` kept."""
    key = hashlib.blake2b(data, digest_size=16).digest()
    if key in _READ:
        _READ.move_to_end(key)
        return _READ[key]
    snap = _READ[key] = read()
    while len(_READ) > KEEP:
        _READ.popitem(last=False)
    return snap


def stored_snapshots(root: bpy.types.Object) -> ForestSnapshots | None:
    """The forest snapshots stored on the ecosystem ``root`` (read on first use, then kept), or None
    (a forest of an older file, or without plants)."""
    data = root.get(SNAPSHOTS_KEY)
    if not isinstance(data, bytes) or not data:
        return None
    return _remember(data, lambda: core_eco.read_snapshots(data, name=f"the forest snapshots of {root.name!r}"))


def show_year(root: bpy.types.Object, year: int | None = None, *, eco: Ecosystem | None = None) -> int:
    """Show the forest of the ecosystem ``root`` at the end of ``year`` (the nearest snapshot year at
    or below it; None: the last year), from its kept simulation, else from the snapshots stored on it
    (after a reload), else simulated again (a forest of an older file); returns the year shown."""
    spec = stored_spec(root)
    snap = None
    if eco is None:
        if root.parent is None:
            raise ParameterError(f"the ecosystem {root.name!r} stands on no terrain")
        eco = kept(root.parent, spec)
        if eco is None:
            snap = stored_snapshots(root)
            if snap is None:
                eco = drive(simulate_steps(root.parent, spec))
    me = mesh_of(root)
    run = eco.plants if eco is not None else None
    if run is None and snap is None:
        write_points(me, np.zeros((0, 3)), np.zeros((0, 4)), np.zeros(0), np.zeros(0, np.int32))
        _set_width(me, np.zeros(0), np.zeros(0, np.int32))
        root[YEAR_KEY] = 0
        return 0
    years = snap.snapshot_years if snap is not None else cast("PlantRun", run).snapshot_years
    last = snap.years if snap is not None else cast("PlantRun", run).years
    shown = last if year is None else max((y for y in years if y <= year), default=years[0])
    if snap is not None:
        forest = snap.forest(shown, seed=spec.seed)
    else:
        assert eco is not None and run is not None  # no snapshots: the simulation
        forest = core_eco.forest_at(run, eco.habitat, year=shown, seed=spec.seed)
    sizes = _mesh_sizes(bridge_scatter.scatter_props(root))
    kind = forest["kind"]
    scale = forest["height"] / sizes[kind, 0]
    write_points(me, forest["positions"], forest["rotations"], scale, kind.astype(np.int32))
    _set_width(me, forest["radius"] / sizes[kind, 1], kind.astype(np.int32))
    root[YEAR_KEY] = shown
    return shown


def _set_width(me: bpy.types.Mesh, width: npt.NDArray[np.float64], kind: npt.NDArray[np.int32]) -> None:
    """The width scales and the layers (species) of the points, as the scatter's ``ws_layer``."""
    attr = me.attributes.get(WIDTH) or me.attributes.new(WIDTH, "FLOAT", "POINT")
    bulk(attr).foreach_set("value", np.ascontiguousarray(width, np.float32))
    layer = me.attributes.get("ws_layer") or me.attributes.new("ws_layer", "INT", "POINT")
    bulk(layer).foreach_set("value", np.ascontiguousarray(kind, np.int32))


def shown_year(root: bpy.types.Object) -> int:
    """The year the forest ``root`` shows."""
    return int(root.get(YEAR_KEY, 0))


def snapshot_years(root: bpy.types.Object) -> tuple[int, ...]:
    """The years the year slider can show (those of the kept simulation, else of the snapshots stored
    on ``root``; () when neither)."""
    terrain = root.parent
    eco = kept(terrain, stored_spec(root)) if terrain is not None else None
    if eco is not None and eco.plants is not None:
        return tuple(eco.plants.snapshot_years)
    snap = stored_snapshots(root)
    return snap.snapshot_years if snap is not None else ()


def build_forest(
    terrain: bpy.types.Object,
    spec: EcosystemSpec,
    eco: Ecosystem,
    *,
    collection: bpy.types.Collection,
    replace: bpy.types.Object | None = None,
) -> bpy.types.Object:
    """The forest of ``eco`` (simulated from ``spec``) on ``terrain`` at its last year: a new root
    (or ``replace``, an earlier one, in place), the trail wear as the terrain's vertex group and the
    chart image updated.  Returns the root."""
    layers = _species_layers(spec)
    props = [p[0] for p in bridge_scatter.layer_props(layers, [("BUILTIN", None)] * len(layers))]
    obj = replace
    if obj is None:
        obj = bridge_scatter.scatter_object(f"{terrain.name}_Ecosystem", props, collection=collection, parent=terrain)
    else:
        bridge_scatter.set_props(obj, props)
    try:
        _canopy_scale(obj)
        obj[KIND_KEY] = ECOSYSTEM_KIND
        obj[bridge_scatter.PLACED_KEY] = True
        obj[bridge_scatter.LAYERS_KEY] = [core_scatter.dumps_layer(s) for s in layers]
        obj[bridge_scatter.SEED_KEY] = spec.seed
        obj[SPEC_KEY] = json.dumps(core_eco.to_dict(spec))
        show_year(obj, None, eco=eco)
        store_snapshots(obj, eco)
        trails_group(terrain, eco)
        chart_image(eco)
    except BaseException:
        if replace is None:
            bridge_scatter.remove_scatter(obj)
        raise
    return obj


def _canopy_scale(obj: bpy.types.Object) -> None:
    """Make the forest's node tree scale each instance by ``(ws_width, ws_width, ws_scale)``: the canopy
    across, the height up (as the FBX and the placement file size it)."""
    modifier = next(m for m in obj.modifiers if m.type == "NODES")
    tree = cast(bpy.types.NodeTree, cast(bpy.types.NodesModifier, modifier).node_group)
    nodes: Any = tree.nodes  # a node's sockets are known by name at run time only
    on_points = next(n for n in nodes if n.bl_idname == "GeometryNodeInstanceOnPoints")
    height = on_points.inputs["Scale"].links[0].from_node  # the named attribute ws_scale
    width = nodes.new("GeometryNodeInputNamedAttribute")
    width.data_type = "FLOAT"
    width.inputs["Name"].default_value = WIDTH
    combine = nodes.new("ShaderNodeCombineXYZ")
    tree.links.new(width.outputs["Attribute"], combine.inputs["X"])
    tree.links.new(width.outputs["Attribute"], combine.inputs["Y"])
    tree.links.new(height.outputs["Attribute"], combine.inputs["Z"])
    tree.links.new(combine.outputs["Vector"], on_points.inputs["Scale"])
    width.location, combine.location = (-450, -400), (-200, -300)


def trails_group(terrain: bpy.types.Object, eco: Ecosystem) -> None:
    """The trail wear (0 .. 1 at the vertices) as the vertex group ``Worldseed Trails`` of the
    terrain's full-detail mesh (none without animals)."""
    target = terrain if terrain.type == "MESH" else next((c for c in terrain.children if c.type == "MESH"), None)
    if target is None:
        return
    old = target.vertex_groups.get(TRAILS_GROUP)
    if old is not None:
        target.vertex_groups.remove(old)
    if eco.animals is None:
        return
    shape = eco.habitat.shape
    wear = core_eco.trail_vertices(eco.animals, shape).ravel()
    if len(cast(bpy.types.Mesh, target.data).vertices) != wear.size:  # another resolution: no mask
        return
    group = target.vertex_groups.new(name=TRAILS_GROUP)
    worn = np.flatnonzero(wear > 0.0)
    for value in np.unique(np.round(wear[worn], 2)):  # one add per weight level: a few hundred calls
        group.add(worn[np.round(wear[worn], 2) == value].tolist(), float(value), "REPLACE")


def chart_image(eco: Ecosystem) -> bpy.types.Image:
    """The population chart as the image ``Worldseed Population`` (made or replaced in place)."""
    rgb = core_eco.chart_image(
        *[
            h
            for h in (
                eco.plants.history["alive"] if eco.plants is not None else None,
                eco.animals.history["population"] if eco.animals is not None else None,
            )
            if h is not None
        ]
    )
    rows, cols = rgb.shape[:2]
    image = bpy.data.images.get(CHART_IMAGE)
    if image is not None and tuple(image.size) != (cols, rows):
        bpy.data.images.remove(image)
        image = None
    if image is None:
        image = bpy.data.images.new(CHART_IMAGE, cols, rows, alpha=False)
    rgba = np.ones((rows, cols, 4), np.float32)
    rgba[..., :3] = rgb[::-1].astype(np.float32) / 255.0  # Blender's rows run bottom to top
    cast(Any, image.pixels).foreach_set(rgba.ravel())  # the stubs type the pixels as a float
    image.update()
    image.preview_ensure()  # the panel shows it as an icon
    return image


def trampled_of(terrain: bpy.types.Object | None) -> npt.NDArray[np.bool_] | None:
    """The trampled ground of the ecosystem on ``terrain`` (a bool map of its vertices) when one is
    kept in memory, else None (the scatter then avoids what the terrain's own clearing says)."""
    root = forest_of(terrain)
    if root is None or terrain is None:
        return None
    spec = stored_spec(root)
    eco = kept(terrain, spec)
    return None if eco is None else trampled(spec, eco)


def forest_steps(
    terrain: bpy.types.Object,
    spec: EcosystemSpec,
    *,
    collection: bpy.types.Collection,
    replace: bpy.types.Object | None = None,
) -> Steps[bpy.types.Object]:
    """Simulate (with progress) then build the forest: the scene changes only at the last step."""
    eco = yield from simulate_steps(terrain, spec)
    return build_forest(terrain, spec, eco, collection=collection, replace=replace)


# --------------------------------------------------------------------------- files


def ecosystems_among(objects: Iterable[bpy.types.Object]) -> list[bpy.types.Object]:
    """The ecosystem roots among ``objects`` or on the terrains among them."""
    out: list[bpy.types.Object] = []
    for obj in objects:
        root = obj if is_ecosystem(obj) else forest_of(obj) if bridge_terrain.is_terrain(obj) else None
        if root is not None and root not in out:
            out.append(root)
    return out


def file_roles(spec: EcosystemSpec) -> tuple[str, ...]:
    """The roles (``core.ecosystem.file_names``' keys) of the files an ecosystem of ``spec`` writes:
    the plants CSV with species, the JSON and the chart always, trails and spawns with animals; none
    when it has neither."""
    if not (spec.species or spec.animals):
        return ()
    return (
        *(("plants",) if spec.species else ()),
        "ecosystem",
        "population",
        *(("trails", "spawns") if spec.animals else ()),
    )


def ecosystem_files(root: bpy.types.Object, name: str) -> dict[str, bytes]:
    """``{file name: bytes}`` of the ecosystem ``root`` for the output name ``name`` (the plants CSV,
    the ecosystem JSON, the population chart, the trails PNG and the spawns JSON: as
    ``core.ecosystem.ecosystem_files``), in Unity's frame with the terrain where it stands."""
    terrain = root.parent
    if terrain is None:
        raise ParameterError(f"the ecosystem {root.name!r} stands on no terrain")
    spec = stored_spec(root)
    eco = drive(simulate_steps(terrain, spec))
    return core_eco.ecosystem_files(name, eco, blender_offset=_offset(terrain), seed=spec.seed)


def _offset(obj: bpy.types.Object) -> tuple[float, float, float]:
    """Where ``obj`` stands in the scene (Blender's frame)."""
    t = obj.matrix_world.translation
    return (float(t.x), float(t.y), float(t.z))


# --------------------------------------------------------------------------- the headless build


def build_section(
    recipe: Recipe, world: World, *, scene: bpy.types.Scene, progress: Callable[[int, int, str], object] | None = None
) -> None:
    """``[ecosystem]`` of a world build (see :mod:`.world`): simulated on the terrain built before it
    (its layers: moisture, temperature, water, clearing), the forest on it; the trampled ground
    joins the terrain's clearing (``world.clearing``, and its layers' ``clearing``) before the
    scatter, and a ``trail`` texture rule paints the terrain's splat maps with the wear."""
    spec = recipe.ecosystem
    terrain = world.terrain
    if terrain is None or not (spec.species or spec.animals):
        return
    layers = world.layers.get(terrain.name)
    bare = layers is None
    if layers is None:
        layers = core_terrain.TerrainLayers(world.heights[terrain.name])
    eco = drive(simulate_steps(terrain, spec, layers=layers), progress)
    root = build_forest(terrain, spec, eco, collection=scene.collection)
    after = core_eco.trail_layers(
        layers,
        eco,
        spec=spec,
        terrain_spec=recipe.terrain,
        biomes_spec=recipe.biomes,
        splats=tuple(recipe.splat),
        seed=recipe.world.seed,
    )
    if after.clearing is not None:
        world.clearing[terrain.name] = after.clearing
    if not bare and after is not layers:
        world.layers[terrain.name] = after
        bridge_layers.keep(bridge_terrain.stored_recipe(terrain), after)
    assert root.parent is terrain  # exported with the terrain (a world root) as its child


# --------------------------------------------------------------------------- the sidebar's adapter

_TREE_ITEMS: list[tuple[str, str, str]] = []


def tree_items(self: object = None, context: bpy.types.Context | None = None) -> list[tuple[str, str, str]]:
    """Enum items of a species' ``tree``: the trees-family species and the built-in props (kept alive)."""
    if not _TREE_ITEMS:
        for name in core_trees.species_names():
            try:
                info = core_trees.species_info(name)
            except ParameterError:
                continue
            _TREE_ITEMS.append((name, info["label"], info["description"]))
        _TREE_ITEMS.extend([("grass", "Grass", "Clumps of crossed grass cards"), ("rock", "Rock", "Rocks")])
    return _TREE_ITEMS


def _eats_text(value: object) -> str:
    """``eats`` as the sidebar writes it: ``plants`` or prey names separated by commas."""
    return value if isinstance(value, str) else ", ".join(str(v) for v in value)  # type: ignore[attr-defined]


def _eats_value(text: str) -> str | list[str]:
    text = text.strip()
    if text == "plants" or not text:
        return "plants"
    return [n.strip() for n in text.split(",") if n.strip()]


#: The presets the picker offers (the shipped ones) and "none" (the panel's own).
def preset_items(self: object = None, context: bpy.types.Context | None = None) -> list[tuple[str, str, str]]:
    if not _PRESET_ITEMS:
        _PRESET_ITEMS.extend(
            (name, name.title(), f"The shipped {name} ecosystem (presets/ecosystem/{name}.toml)")
            for name in core_eco.preset_names()
        )
    return _PRESET_ITEMS


_PRESET_ITEMS: list[tuple[str, str, str]] = []


class EcosystemAdapter(Adapter):
    """``[ecosystem]``: the Ecosystem panel's settings, its list of plant species (each with its tree
    and traits) and its list of animals; the root is the forest on a terrain."""

    key = "ecosystem"
    kind = ECOSYSTEM_KIND
    label = "ecosystem"
    update_operator = "worldseed.ecosystem_update"
    prefix = "ecosystem."
    auto_modal = True

    def species_fields(self) -> tuple[str, ...]:
        return tuple(n for n, limit in core_eco.SPECIES_LIMITS.items() if n != "tree")

    def animal_fields(self) -> tuple[str, ...]:
        return tuple(n for n, limit in core_eco.ANIMAL_LIMITS.items() if n != "eats")

    def settings_classes(self, update: Update | None = None) -> tuple[type[bpy.types.PropertyGroup], ...]:
        species = settings_class(
            "WorldseedEcosystemSpecies",
            "One plant species ([[ecosystem.species]]) of the Ecosystem panel.",
            {
                **props_from_limits(
                    core_eco.SPECIES_LIMITS, core_eco.PlantSpecies(), names=self.species_fields(), update=update
                ),
                "tree": bpy.props.EnumProperty(
                    name="Tree",
                    items=tree_items,
                    update=update,
                    description=core_eco.SPECIES_LIMITS["tree"].description,
                ),
            },
        )
        animal = settings_class(
            "WorldseedEcosystemAnimal",
            "One animal ([[ecosystem.animals]]) of the Ecosystem panel.",
            {
                **props_from_limits(
                    core_eco.ANIMAL_LIMITS, core_eco.AnimalSpecies(), names=self.animal_fields(), update=update
                ),
                "eats": bpy.props.StringProperty(
                    name="Eats",
                    default="plants",
                    update=update,
                    description="'plants' (grazes the vegetation) or the animals it hunts, separated by commas",
                ),
            },
        )

        def on_year(settings: Settings, context: bpy.types.Context) -> None:
            root = ecosystem_root(context.active_object) if context.active_object is not None else None
            if root is None or root.parent is None:
                return
            try:
                if snapshot_years(root):  # kept or stored
                    show_year(root, settings.year)
            except ParameterError as err:  # stored bytes that are no snapshots: said in the panel
                settings.last_error = str(err)

        props = {
            **self.props(update=update),
            "species": bpy.props.CollectionProperty(type=species),
            "active_species": bpy.props.IntProperty(name="Active Species", default=0, min=0),
            "animals": bpy.props.CollectionProperty(type=animal),
            "active_animal": bpy.props.IntProperty(name="Active Animal", default=0, min=0),
            "preset": bpy.props.EnumProperty(
                name="Preset", items=preset_items, description="A shipped ecosystem to load into the panel"
            ),
            "year": bpy.props.IntProperty(
                name="Year",
                default=0,
                min=0,
                max=core_eco.LIMITS["years"].bounds[1],
                update=on_year,
                options={"SKIP_SAVE"},
                description="Show the forest at the end of this year (from the snapshots of the last Simulate, "
                "kept in the .blend)",
            ),
            **auto_props(self.label),
        }
        doc = "The Ecosystem panel's settings ([ecosystem]): its species and animals lists."
        return species, animal, settings_class("WorldseedEcosystemSettings", doc, props, self.methods())

    # ---------------------------------------------------------------- sidebar -> spec -> sidebar

    def species_table(self, item: Settings) -> dict[str, Any]:
        return {**attrs_table(core_eco.SPECIES_LIMITS, item, self.species_fields()), "tree": item.tree}

    def animal_table(self, item: Settings) -> dict[str, Any]:
        return {**attrs_table(core_eco.ANIMAL_LIMITS, item, self.animal_fields()), "eats": _eats_value(item.eats)}

    def full_table(self, settings: Settings) -> dict[str, Any]:
        """The panel as one ``[ecosystem]`` table (not yet checked)."""
        return {
            **self.table(settings),
            "species": [self.species_table(s) for s in settings.species],
            "animals": [self.animal_table(a) for a in settings.animals],
        }

    def spec_with_seed(self, settings: Settings, seed: int) -> EcosystemSpec:
        """The panel's spec with ``seed`` (Simulate's own)."""
        return self.parse({**self.full_table(settings), "seed": seed})

    def load_preset(self, settings: Settings) -> None:
        """The preset the panel's picker names into the panel."""
        self.load(settings, core_eco.load_preset(settings.preset))

    def settings_spec(self, settings: Settings) -> EcosystemSpec:
        """The validated spec of the panel; an error names the species or animal as the list shows it."""
        return self.parse(self.full_table(settings))

    def tables(self, scene: bpy.types.Scene) -> dict[str, Any]:
        return {self.key: self.full_table(self.settings(scene))}

    def load(self, props: Settings, spec: EcosystemSpec, *, keep: Iterable[str] = ()) -> None:
        super().load(props, spec, keep=keep)
        if not hasattr(props, "species"):
            return
        props.species.clear()
        for s in spec.species:
            item = props.species.add()
            apply_spec(item, s, names=self.species_fields())
            item.tree = s.tree if s.tree in {i[0] for i in tree_items()} else tree_items()[0][0]
        props.animals.clear()
        for a in spec.animals:
            item = props.animals.add()
            apply_spec(item, a, names=self.animal_fields())
            item.eats = _eats_text(a.eats)
        props.active_species = props.active_animal = 0

    def add_species(self, settings: Settings) -> Settings:
        """A new species with the defaults, named Species, Species 2 ..."""
        item = settings.species.add()
        apply_spec(item, core_eco.PlantSpecies(), names=self.species_fields())
        item.tree = core_eco.PlantSpecies().tree
        item.name = _free_name("Species", {s.name for s in settings.species if s != item})
        settings.active_species = len(settings.species) - 1
        return item

    def add_animal(self, settings: Settings) -> Settings:
        """A new animal with the defaults (a grazer), named Animal, Animal 2 ..."""
        item = settings.animals.add()
        apply_spec(item, core_eco.AnimalSpecies(), names=self.animal_fields())
        item.eats = "plants"
        item.name = _free_name("Animal", {a.name for a in settings.animals if a != item})
        settings.active_animal = len(settings.animals) - 1
        return item

    # ---------------------------------------------------------------- objects

    def root(self, obj: bpy.types.Object | None) -> bpy.types.Object | None:
        return ecosystem_root(obj)

    def stored(self, root: bpy.types.Object) -> EcosystemSpec:
        return stored_spec(root)

    def rebuild_plan(self, root: bpy.types.Object, scene: bpy.types.Scene) -> Plan:
        spec = self.settings_spec(self.settings(scene))
        terrain = root.parent
        if terrain is None:
            raise ParameterError(f"the ecosystem {root.name!r} stands on no terrain")
        collection = root.users_collection[0] if root.users_collection else scene.collection
        return Plan(forest_steps(terrain, spec, collection=collection, replace=root), modal=True)

    def build(
        self,
        recipe: Recipe,
        world: World,
        *,
        scene: bpy.types.Scene,
        progress: Callable[[int, int, str], object] | None = None,
    ) -> None:
        build_section(recipe, world, scene=scene, progress=progress)


def _free_name(base: str, taken: set[str]) -> str:
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base} {k}"
    return name
