"""Scattered props in Blender: one point object per scatter, instanced by Geometry Nodes.

A scatter is a mesh object of loose vertices, one per prop instance, with the
point attributes ``ws_rotation`` (quaternion), ``ws_scale`` and ``ws_prop``
(which prop), parented to its terrain.  A Geometry Nodes modifier puts an
instance of prop ``ws_prop`` on every point, so 100,000 instances share a few
meshes, cost a few megabytes and are written in bulk (``foreach_set``), never
one object at a time.  The props are objects in a hidden "Props" collection
(built-in rocks, grass and trees, or the artist's own), listed in order in the
node tree, so a prop's index never depends on its name.

For the FBX and for "Make Real" the instances become real objects sharing
the props' meshes (:func:`make_real`); a tree prop becomes a root with its
``_LOD0``.. children, so Unity builds an LOD Group per tree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import bpy
import numpy as np
import numpy.typing as npt
from mathutils import Matrix

from ...core import placement as core_placement
from ...core import recipe as core_recipe
from ...core import scatter as core_scatter
from ...core import trees as core_trees
from ...core.errors import ParameterError
from ...core.scatter import props as core_props
from ...core.unity_package import alphamap_side
from . import instancing
from . import terrain as bridge_terrain
from . import terrain_layers as bridge_layers
from .instancing import instancer_tree, read_points, write_points
from .materials import bark_material, leaf_material
from .mesh import bulk, mesh_from_indexed, mesh_of, remove_objects
from .query import KIND_KEY, PROP_KEY, is_kind
from .trees import build_tree

if TYPE_CHECKING:
    from ...core.recipe import Recipe
    from ...core.scatter import LayerSpec, Placement
    from ...core.steps import Steps
    from ...core.terrain import TerrainHeights, TerrainLayers
    from .world import World

T = TypeVar("T")
#: Where a scatter layer's props come from: ``("BUILTIN", None)``, ``("COLLECTION", collection)`` or
#: ``("OBJECT", object)``.
Source = tuple[str, "bpy.types.Collection | bpy.types.Object | None"]
#: A tree prop's LOD object made for an instance: ``(the new child, its top object, the prop's child)``.
Child = tuple["bpy.types.Object", "bpy.types.Object", "bpy.types.Object"]

#: Tags: a scatter (the point object whose instances are the props), an instance made real.
SCATTER_KIND, INSTANCE_KIND = "scatter", "scatter_instance"

ROTATION, SCALE, PROP = instancing.ROTATION, instancing.SCALE, instancing.INDEX
PROPS_KEY = "worldseed_props"  # on the scatter object: prop object names in index order
LAYERS_KEY = "worldseed_scatter_layers"  # on the scatter object: the layers' TOML, for re-scatter and export
SEED_KEY = "worldseed_scatter_seed"
COUNTS_KEY = "worldseed_scatter_counts"  # on the scatter object: props per layer (its props in layer order)
#: On a point object of props that is not a scatter but exports as one (the ecosystem's forest).
PLACED_KEY = "worldseed_placed"
#: Point attribute of such an object: each instance's width (X and Y) scale over its ``ws_scale``
#: times ``ws_scale`` (a tree's canopy radius over its mesh's; the height scale is ``ws_scale``).
WIDTH = "ws_width"
NODE_GROUP = "Worldseed Scatter"


def prop_mesh_object(prop: bpy.types.Object) -> bpy.types.Object:
    """The object whose geometry stands for ``prop`` in the viewport: itself, or a tree root's LOD0."""
    if prop.type == "MESH":
        return prop
    lods = sorted((c for c in prop.children if c.type == "MESH"), key=lambda o: o.name)
    return lods[0] if lods else prop


def _node_group(name: str, props: Sequence[bpy.types.Object]) -> bpy.types.NodeTree:
    """A node tree: Instance on Points, picking prop ``ws_prop`` from the props in order."""
    return instancer_tree(name, [prop_mesh_object(p) for p in props])


def scatter_object(
    name: str,
    props: Sequence[bpy.types.Object],
    *,
    collection: bpy.types.Collection,
    parent: bpy.types.Object | None = None,
) -> bpy.types.Object:
    """A new, empty scatter object instancing ``props`` (objects, in index order)."""
    me = bpy.data.meshes.new(name)
    obj = bpy.data.objects.new(name, me)
    tree = _node_group(f"{NODE_GROUP} ({name})", props)
    try:
        collection.objects.link(obj)
        mod = cast(bpy.types.NodesModifier, obj.modifiers.new("Worldseed Scatter", "NODES"))
        mod.node_group = tree
        obj[KIND_KEY] = SCATTER_KIND
        obj[PROPS_KEY] = [p.name for p in props]
        if parent is not None:
            obj.parent = parent
            obj.matrix_parent_inverse.identity()
    except BaseException:
        bpy.data.objects.remove(obj, do_unlink=True)
        bpy.data.meshes.remove(me)
        bpy.data.node_groups.remove(tree)
        raise
    return obj


def _nodes_modifier(obj: bpy.types.Object) -> bpy.types.NodesModifier:
    """The scatter's Geometry Nodes modifier (the stubs type a modifier by its base class)."""
    return cast(bpy.types.NodesModifier, obj.modifiers["Worldseed Scatter"])


def set_props(obj: bpy.types.Object, props: Sequence[bpy.types.Object]) -> None:
    """Point the scatter's node tree at new props (in index order)."""
    modifier = _nodes_modifier(obj)
    old = cast(bpy.types.NodeTree, modifier.node_group)  # the scatter's own tree, made with it
    modifier.node_group = _node_group(old.name, props)
    if old.users == 0:
        bpy.data.node_groups.remove(old)
    obj[PROPS_KEY] = [p.name for p in props]


def scatter_props(obj: bpy.types.Object) -> list[bpy.types.Object]:
    """The prop objects of a scatter, in index order."""
    return [bpy.data.objects[n] for n in obj[PROPS_KEY]]


def remove_scatter(obj: bpy.types.Object) -> None:
    me, tree = mesh_of(obj), _nodes_modifier(obj).node_group if obj.modifiers else None
    bpy.data.objects.remove(obj, do_unlink=True)
    if me.users == 0:
        bpy.data.meshes.remove(me)
    if tree is not None and tree.users == 0:
        bpy.data.node_groups.remove(tree)


# --------------------------------------------------------------------------- real objects


def instance_matrices(obj: bpy.types.Object) -> npt.NDArray[np.float64]:
    """World matrices (N, 4, 4) of the instances of a scatter object."""
    pos, rot, scale, _ = read_points(obj)
    local = np.zeros((len(pos), 4, 4))
    local[:, :3, :3] = core_placement.quaternion_matrices(rot) * scale[:, None, None]
    width = width_scales(obj)
    if width is not None:  # X and Y (the canopy) by the width scale, Z (the height) by ws_scale
        local[:, :3, :2] *= (width / np.maximum(scale, 1e-12))[:, None, None]
    local[:, :3, 3] = pos
    local[:, 3, 3] = 1.0
    return np.asarray(obj.matrix_world, np.float64) @ local


def width_scales(obj: bpy.types.Object) -> npt.NDArray[np.float64] | None:
    """The width scale of each instance of a point object with :data:`WIDTH` (None without it)."""
    me = mesh_of(obj)
    attr = me.attributes.get(WIDTH)
    if attr is None:
        return None
    width = np.empty(len(me.vertices), np.float32)
    bulk(attr).foreach_get("value", width)
    return width.astype(np.float64)


#: The name of instance ``index`` of prop ``prop`` as an object (in the FBX, in Make Real, and the
#: ``object`` of its record in the placement file).
INSTANCE_NAME = "{prop}_{index:05d}"

#: Instances made per step of :func:`instance_steps` (one progress update, one chance to cancel).
INSTANCE_CHUNK = 500


def instance_steps(
    obj: bpy.types.Object,
    made: list[bpy.types.Object],
    children: list[Child],
    *,
    name_format: str = INSTANCE_NAME,
    chunk: int = INSTANCE_CHUNK,
    data: bpy.types.BlendData | None = None,
) -> Steps[list[bpy.types.Object]]:
    """Make an object for every instance of the scatter ``obj``, yielding ``(done, total, "instances")``
    every ``chunk`` instances; returns the top-level objects, in instance order.

    The objects are bare: no transform, no parent, in no collection. Blender removes such an
    object in constant time, but one that was linked, parented or given a transform in time
    proportional to every object in the file, so cleaning up thousands took quadratic time;
    :func:`realize` gives them their places. Every object made is appended to ``made`` at once,
    so the caller can remove them whatever happens, and every tree LOD object to ``children`` as
    ``(child, top, prop_child)``. Instances share the props' meshes.

    ``data`` is the ``BlendData`` to make them in (``bpy.data``, or a ``bpy.data.temp_data()`` for
    objects that only the FBX writer sees: freed all at once, whatever else the file holds).
    """
    props = scatter_props(obj)
    # Object.children scans every object in the file: ask once per prop, not once per instance
    prop_children = {
        p.name: [
            (c.name[len(p.name) :] if c.name.startswith(p.name) else "_" + c.name, c)
            for c in sorted(p.children, key=lambda o: o.name)
        ]
        for p in props
        if p.type == "EMPTY"
    }
    which = read_points(obj)[3]
    total = len(which)
    tops: list[bpy.types.Object | None] = [None] * total
    # Blender keeps objects sorted by name and inserts a new one by walking back from the end:
    # made in name order (prop by prop, index by index) each lands at the end, in constant time.
    order = sorted(range(total), key=lambda i: (props[which[i]].name, i))
    new_object = (data or bpy.data).objects.new
    for done, index in enumerate(order, 1):
        prop = props[which[index]]
        name = name_format.format(prop=prop.name, index=index)
        top = new_object(name, prop.data)
        made.append(top)
        top[KIND_KEY] = INSTANCE_KIND
        tops[index] = top
        if prop.type == "EMPTY":
            for suffix, child in prop_children[prop.name]:
                c = new_object(name + suffix, child.data)
                made.append(c)
                children.append((c, top, child))
        if done % chunk == 0:
            yield done, total, "instances"
    yield total, total, "instances"
    return cast("list[bpy.types.Object]", tops)  # every index is in the order: none is left None


def realize_steps(
    obj: bpy.types.Object, tops: Sequence[bpy.types.Object], children: Sequence[Child], *, chunk: int = INSTANCE_CHUNK
) -> Steps[None]:
    """Give the objects of :func:`instance_steps` their places: each top its instance's world matrix,
    each LOD child its parent and the prop child's transform (copied exactly); yields
    ``(done, total, "placing")``."""
    mats = instance_matrices(obj)
    total = len(tops)
    by_top: dict[str, list[tuple[bpy.types.Object, bpy.types.Object]]] = {}
    for c, top, child in children:
        by_top.setdefault(top.name, []).append((c, child))
    for index, top in enumerate(tops):
        top.matrix_world = Matrix(mats[index].tolist())
        for c, child in by_top.get(top.name, ()):
            c.parent = top
            c.matrix_parent_inverse = child.matrix_parent_inverse
            c.matrix_basis = child.matrix_basis
        if (index + 1) % chunk == 0:
            yield index + 1, total, "placing"
    yield total, total, "placing"


def _rescaled(steps: Steps[T], offset: int, total: int) -> Steps[T]:
    """``steps`` with their progress moved to ``offset`` of ``total``; returns what they return."""
    while True:
        try:
            done, _total, stage = next(steps)
        except StopIteration as stop:
            return stop.value
        yield offset + done, total, stage


def make_real_steps(
    obj: bpy.types.Object,
    *,
    collection: bpy.types.Collection,
    name_format: str = INSTANCE_NAME,
    chunk: int = INSTANCE_CHUNK,
) -> Steps[list[bpy.types.Object]]:
    """:func:`make_real` step by step, yielding ``(done, total, stage)``; returns the top-level objects.

    The objects are linked to ``collection`` in the last step, the LODs hidden in the prop (a
    tree's ``_LOD1``..) to its child collection ``<collection> LODs``, disabled in viewports (one
    switch: ``hide_set`` on each would resync the view layer each time); closing the generator
    earlier (Esc) or an error removes everything made, leaving the scene as it was.
    """
    made: list[bpy.types.Object] = []
    children: list[Child] = []
    n = len(mesh_of(obj).vertices)
    lods = None
    try:
        tops = yield from _rescaled(instance_steps(obj, made, children, name_format=name_format, chunk=chunk), 0, 2 * n)
        yield from _rescaled(realize_steps(obj, tops, children, chunk=chunk), n, 2 * n)
        prop_children = {child.name: child for _c, _t, child in children}.values()
        hidden_in_prop = {child.name for child in prop_children if child.hide_get()}
        hidden = {c.name for c, _t, child in children if child.name in hidden_in_prop}
        if hidden:
            lods = bpy.data.collections.new(f"{collection.name} LODs")
            lods.hide_viewport = True
            collection.children.link(lods)
        for o in made:
            (lods if lods is not None and o.name in hidden else collection).objects.link(o)
    except BaseException:
        remove_objects(made)
        if lods is not None:
            bpy.data.collections.remove(lods)
        raise
    return tops


def real_object_count(obj: bpy.types.Object) -> int:
    """How many objects Make Real of the scatter ``obj`` makes: one per instance, with a tree's LODs."""
    props = scatter_props(obj)
    which = read_points(obj)[3]
    per_prop = np.array([1 + (len(p.children) if p.type == "EMPTY" else 0) for p in props], np.int64)
    return int(per_prop[which].sum()) if len(which) else 0


def make_real(
    obj: bpy.types.Object, *, collection: bpy.types.Collection, name_format: str = INSTANCE_NAME
) -> list[bpy.types.Object]:
    """Real objects for every instance of the scatter ``obj``, sharing the props' meshes; returns the
    top-level objects made (a tree prop gives a root with its LOD children, each sharing the LOD meshes)."""
    steps = make_real_steps(obj, collection=collection, name_format=name_format)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


# --------------------------------------------------------------------------- built-in props

PROPS_COLLECTION = "Worldseed Props"


def props_collection(scene: bpy.types.Scene) -> bpy.types.Collection:
    """The (hidden) collection of built-in props, made on first use."""
    coll = bpy.data.collections.get(PROPS_COLLECTION)
    if coll is None:
        coll = bpy.data.collections.new(PROPS_COLLECTION)
    if coll.name not in scene.collection.children:
        scene.collection.children.link(coll)
    return coll


def _hide(coll: bpy.types.Collection) -> None:
    """Keep the props out of sight and out of renders (the scatter's instances still show them)."""
    coll.hide_viewport = True
    coll.hide_render = True


def _mesh_prop(name, indexed, material, coll):
    obj = bpy.data.objects.get(name)
    if obj is not None:
        return obj
    me = mesh_from_indexed(name, indexed, normals=True)
    me.materials.append(material)
    obj = bpy.data.objects.new(name, me)
    coll.objects.link(obj)
    obj[PROP_KEY] = True
    return obj


def _builtin(kind: str, k: int, coll: bpy.types.Collection) -> bpy.types.Object:
    """Prop variant ``k`` of the built-in ``kind`` (made once, then reused)."""
    if kind == "rock":
        mat = bark_material("Worldseed_Rock", (0.32, 0.30, 0.28))
        return _mesh_prop(f"Rock_P{k + 1:02d}", core_props.rock_mesh(seed=k), mat, coll)
    if kind == "grass":
        mat = leaf_material("Worldseed_Grass", (0.12, 0.32, 0.05))
        return _mesh_prop(f"Grass_P{k + 1:02d}", core_props.grass_mesh(seed=k), mat, coll)
    spec = core_trees.species_spec(kind)
    name = f"{spec.name}_P{k + 1:02d}"
    obj = bpy.data.objects.get(name)
    if obj is None:
        obj = build_tree(spec, collection=coll, seed=spec.seed + k, name=name)
        obj[PROP_KEY] = True
    return obj


def layer_props(
    specs: Sequence[LayerSpec], sources: Sequence[Source], *, scene: bpy.types.Scene | None = None
) -> list[list[bpy.types.Object]]:
    """Prop objects per layer, in index order."""
    scene = scene or cast(bpy.types.Scene, bpy.context.scene)
    out: list[list[bpy.types.Object]] = []
    coll = None
    for spec, (kind, source) in zip(specs, sources):
        if kind == "COLLECTION":
            objects = cast(bpy.types.Collection, source).objects
            out.append(sorted((o for o in objects if o.parent is None), key=lambda o: o.name))
        elif kind == "OBJECT":
            out.append([cast(bpy.types.Object, source)])
        else:
            if coll is None:
                coll = props_collection(scene)
            out.append([_builtin(spec.prop, k, coll) for k in range(spec.variants)])
    if coll is not None:
        _hide(coll)
    return out


def pick_props(
    placements: Sequence[Placement], counts: Sequence[int], *, seed: int = 0
) -> tuple[npt.NDArray[Any], ...]:
    """Concatenate the placements of all layers and pick a prop variant per instance (seeded).

    Returns ``positions, rotations, scales, variant, layer`` arrays.
    """
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5EED]))
    parts = []
    for i, (p, n) in enumerate(zip(placements, counts)):
        m = len(p.positions)
        parts.append((p.positions, p.rotations, p.scales, rng.integers(0, n, m), np.full(m, i)))
    if not parts:
        z = np.zeros
        return z((0, 3)), z((0, 4)), z(0), z(0, np.int64), z(0, np.int64)
    return tuple(np.concatenate([part[j] for part in parts]) for j in range(5))


# --------------------------------------------------------------------------- scattering


def scatter_onto(
    root: bpy.types.Object,
    specs: Sequence[LayerSpec],
    sources: Sequence[Source],
    *,
    seed: int,
    collection: bpy.types.Collection,
    replace: bpy.types.Object | None = None,
    clearing: npt.NDArray[np.bool_] | None = None,
) -> bpy.types.Object:
    """Scatter ``specs`` (with ``sources``) over the terrain ``root``; returns the scatter object.

    With ``replace`` (an existing scatter object) its points and props are
    replaced in place: same object, name, parent and modifiers.  ``clearing`` (a bool map of the
    terrain's vertices: the ecosystem's trampled ground) is kept free of props, with the terrain
    layers' own clearing.
    """
    recipe = bridge_terrain.stored_recipe(root)
    core_scatter.check_prop_count(specs, size=recipe.terrain.size)  # before any prop is made
    core_recipe.check_deposit_rules(recipe.terrain, "scatter layer", specs)
    heights, _size, _sea_m = bridge_terrain.terrain_heights_of(root)
    layers = bridge_terrain.terrain_layers_of(root)  # kept from the build: the maps the rules read
    props_per_layer = layer_props(specs, sources)
    points = scatter_points(
        specs,
        [len(p) for p in props_per_layer],
        recipe=recipe,
        heights_m=heights,
        layers=layers,
        seed=seed,
        clearing=clearing,
    )
    all_props = [p for props in props_per_layer for p in props]
    obj = replace
    if obj is None:
        obj = scatter_object(f"{root.name}_Scatter", all_props, collection=collection, parent=root)
    else:
        set_props(obj, all_props)
    write_scatter(obj, specs, [len(p) for p in props_per_layer], seed=seed, points=points)
    return obj


#: The arrays of a scatter's points: positions, rotations, scales, prop index, layer index.
Points = tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[np.int32], npt.NDArray[np.int32]]


def scatter_points(
    specs: Sequence[LayerSpec],
    counts: Sequence[int],
    *,
    recipe: Recipe,
    heights_m: npt.NDArray[np.floating[Any]],
    layers: TerrainLayers | None,
    seed: int,
    clearing: npt.NDArray[np.bool_] | None = None,
) -> Points:
    """The points of a scatter of ``specs`` (``counts`` props per layer) on the terrain of ``recipe``
    (its heights in metres ``heights_m`` and ``layers``, None without): nothing in the scene changes.
    Bad layers for this terrain (too many props, deposit rules without erosion) raise here."""
    spec = recipe.terrain
    core_scatter.check_prop_count(specs, size=spec.size)
    core_recipe.check_deposit_rules(spec, "scatter layer", specs)
    placements = core_scatter.scatter_layers(
        heights_m,
        size=spec.size,
        seed=seed,
        layers=[core_scatter.layer_from_spec(s, sea_level_m=spec.sea_level * spec.height) for s in specs],
        maps=_with_clearing(None if layers is None else layers.scatter_maps, clearing),
    )
    positions, rotations, scales, which, layer_index = pick_props(placements, list(counts), seed=seed)
    offsets = np.cumsum([0, *counts])[:-1]
    prop_index = (which + offsets[layer_index]).astype(np.int32)
    return positions, rotations, scales, prop_index, layer_index.astype(np.int32)


def write_scatter(
    obj: bpy.types.Object, specs: Sequence[LayerSpec], counts: Sequence[int], *, seed: int, points: Points
) -> None:
    """Write ``points`` (:func:`scatter_points`) into the scatter ``obj`` with what it was made from."""
    positions, rotations, scales, prop_index, layer_index = points
    me = mesh_of(obj)
    write_points(me, positions, rotations, scales, prop_index)
    attr = me.attributes.get("ws_layer") or me.attributes.new("ws_layer", "INT", "POINT")
    bulk(attr).foreach_set("value", layer_index)
    obj[LAYERS_KEY] = [core_scatter.dumps_layer(s) for s in specs]
    obj[COUNTS_KEY] = [int(n) for n in counts]
    obj[SEED_KEY] = seed


def stored_counts(obj: bpy.types.Object, n_layers: int) -> list[int]:
    """The props per layer of the scatter ``obj`` (stored; for a scatter of an older file, read from
    its points: a layer's props are the run of indices its points use)."""
    stored = obj.get(COUNTS_KEY)
    if stored is not None and len(stored) == n_layers:
        return [int(n) for n in stored]
    total = len(obj.get(PROPS_KEY, []))
    if n_layers == 1:
        return [total]
    specs = stored_layers(obj)
    if sum(s.variants for s in specs) == total:  # built-in props: one per variant
        return [s.variants for s in specs]
    me = mesh_of(obj)
    n = len(me.vertices)
    index, layer = np.empty(n, np.int32), np.full(n, -1, np.int32)
    if n and me.attributes.get("ws_layer") is not None:
        bulk(me.attributes[instancing.INDEX]).foreach_get("value", index)
        bulk(me.attributes["ws_layer"]).foreach_get("value", layer)
    if not all((layer == k).any() for k in range(n_layers)):
        raise ParameterError(f"scatter {obj.name!r} keeps no props per layer: scatter it again from the Scatter panel")
    starts = [int(index[layer == k].min()) for k in range(n_layers)]
    counts = [e - b for b, e in zip(starts, [*starts[1:], total])]
    return counts


def _with_clearing(maps: dict[str, Any] | None, clearing: npt.NDArray[np.bool_] | None) -> dict[str, Any] | None:
    """The scatter's maps with ``clearing`` joined to theirs."""
    if clearing is None:
        return maps
    out = dict(maps or {})
    out["clearing"] = clearing if out.get("clearing") is None else out["clearing"] | clearing
    return out


def stored_layers(obj: bpy.types.Object) -> list[LayerSpec]:
    """The :class:`core.scatter.LayerSpec` list a scatter was made from."""
    return [core_scatter.loads_layer(t, source=f"object {obj.name!r}") for t in obj.get(LAYERS_KEY, [])]


def terrain_detail_layers(
    root: bpy.types.Object, *, heights: TerrainHeights | None = None, layers: TerrainLayers | None = None
) -> tuple[tuple[str, npt.NDArray[np.uint16]], ...]:
    """Unity detail layers ``((name, counts), ...)`` of the scatters on the terrain ``root``:
    :func:`core.scatter.detail_layers` of each scatter's layers with ``unity_detail > 0`` (scatters
    in name order, layers in order), with the scatter's own seed, over the heights and maps the
    scatter read.  One detail resolution for them all (Unity's terrain has one): the largest any
    layer asks for.  ``heights`` (a ``core.terrain.TerrainHeights``) and ``layers`` (its
    ``TerrainLayers`` or None) when already known."""
    scatters = sorted((o for o in root.children_recursive if is_scatter(o)), key=lambda o: o.name)
    entries = [(stored_layers(o), int(o.get(SEED_KEY, 0))) for o in scatters]
    entries = [(specs, seed) for specs, seed in entries if any(s.unity_detail > 0 for s in specs)]
    if not entries:
        return ()
    spec = bridge_terrain.stored_recipe(root).terrain
    if heights is None:
        heights_m = bridge_terrain.terrain_heights_of(root)[0]
        layers = bridge_terrain.terrain_layers_of(root)
    else:
        heights_m = heights.metres
    base = alphamap_side(heights_m.shape[0])
    resolution = max(
        core_scatter.detail_side(base, size=spec.size, per_m2=s.unity_detail)
        for specs, _ in entries
        for s in specs
        if s.unity_detail > 0
    )
    out: list[tuple[str, npt.NDArray[np.uint16]]] = []
    for specs, seed in entries:
        out += core_scatter.detail_layers(
            heights_m,
            size=spec.size,
            specs=specs,
            sea_level_m=spec.sea_level * spec.height,
            resolution=resolution,
            seed=seed,
            maps=None if layers is None else layers.scatter_maps,
        )
    return tuple(out)


def is_scatter(obj: bpy.types.Object | None) -> bool:
    """True for a Worldseed scatter (the point object whose instances are the props), or a point
    object of props that exports as one (:data:`PLACED_KEY`: the ecosystem's forest)."""
    return is_kind(obj, SCATTER_KIND) or bool(obj is not None and obj.get(PLACED_KEY))


def layers_pending(root: bpy.types.Object) -> bool:
    """Whether the terrain ``root`` has layers (erosion, biomes ...) its scatter reads that are not
    kept from its build (after a reload, or another terrain built since): working them out takes a
    while, so a scatter from a window then shows progress (and Esc)."""
    recipe = bridge_terrain.stored_recipe(root)
    return bridge_layers.has_layers(recipe) and not bridge_layers.is_kept(recipe)


def scatter_steps(root: bpy.types.Object, scatter: Callable[[], T]) -> Steps[T]:
    """Steps of a scatter on the terrain ``root``: its layers worked out first on a worker (with
    their progress) when not kept, then ``scatter()`` (which finds them kept), whose result is
    returned.  Closed before the end, nothing is scattered."""
    recipe = bridge_terrain.stored_recipe(root)
    if bridge_layers.has_layers(recipe) and not bridge_layers.is_kept(recipe):
        yield from bridge_layers.worker_steps(recipe)
    return scatter()


def build_section(
    recipe: Recipe, world: World, *, scene: bpy.types.Scene, progress: Callable[[int, int, str], object] | None = None
) -> None:
    """``[[scatter]]`` of a world build (see :mod:`.world`): the layers on the terrain built before them,
    off the ground earlier sections cleared (``world.clearing``: the ecosystem's trampled trails)."""
    terrain = world.terrain
    if terrain is None or not recipe.scatter:
        return
    if progress is not None:
        progress(0, 1, "scatter")
    world.scatters.append(
        scatter_onto(
            terrain,
            list(recipe.scatter),
            [("BUILTIN", None)] * len(recipe.scatter),
            seed=recipe.world.seed,
            collection=scene.collection,
            clearing=world.clearing.get(terrain.name),
        )
    )
    if progress is not None:
        progress(1, 1, "scatter")
