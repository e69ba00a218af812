"""Grown trees to Blender objects: an empty ``<Name>`` with ``<Name>_LOD0``, ``_LOD1``... below it.

Unity builds an LOD Group on import from children named ``_LOD0`` (most
detailed) upwards, so the names matter; the billboard, when asked for, is the
last LOD.  Meshes go in through the same bulk path as terrains
(:func:`.mesh.mesh_from_indexed`), with per-triangle material slots (bark,
leaves, billboard) and the mesher's smooth normals as custom normals.
A failed build removes whatever it made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import bpy
import numpy as np

from ...core import trees as core_trees
from ...core.mesh import IndexedMesh
from ...core.trees import Tree, TreeSpec
from .materials import tree_materials
from .mesh import bulk, free_base_name, mesh_from_indexed, remove_objects
from .query import KIND_KEY, is_kind, root_of

if TYPE_CHECKING:
    from ...core.recipe import Recipe
    from .world import World

SPEC_KEY = "worldseed_tree"
#: The tag of a tree's root.
TREE_KIND = "tree"


def is_tree(obj: bpy.types.Object | None) -> bool:
    """True for the root object of a Worldseed tree."""
    return is_kind(obj, TREE_KIND)


def tree_root(obj: bpy.types.Object | None) -> bpy.types.Object | None:
    """The Worldseed tree root of ``obj`` (itself or its parent), or None."""
    return root_of(obj, TREE_KIND)


# --------------------------------------------------------------------------- meshes and objects


def mesh_from_lod(name: str, indexed: IndexedMesh, materials: Sequence[bpy.types.Material]) -> bpy.types.Mesh:
    """A Blender mesh from a tree LOD (an ``IndexedMesh`` with material slots).

    Only the materials the LOD uses become slots (Unity makes one sub-mesh
    per slot), in slot order: a bare tree gets bark only, the billboard only
    its own material.
    """
    me = mesh_from_indexed(name, indexed, normals=True)
    try:
        slots = indexed.materials if indexed.materials is not None else np.zeros(indexed.n_triangles, np.uint8)
        used = np.unique(slots)
        for i in used:
            me.materials.append(materials[int(i)])
        if len(used) > 1:
            attr = me.attributes.new("material_index", "INT", "FACE")
            bulk(attr).foreach_set("value", np.searchsorted(used, slots).astype(np.int32))
    except BaseException:
        bpy.data.meshes.remove(me)
        raise
    return me


def lod_meshes(tree: Tree) -> list[IndexedMesh]:
    """LOD meshes of a grown tree, the billboard last."""
    return list(tree.lods) + ([tree.billboard] if tree.billboard is not None else [])


def tree_objects(
    tree: Tree,
    *,
    collection: bpy.types.Collection,
    location: Sequence[float] = (0.0, 0.0, 0.0),
    name: str | None = None,
) -> bpy.types.Object:
    """Link a grown tree as ``<Name>`` (an empty) with ``<Name>_LOD0..n`` below it; returns the root."""
    meshes_in = lod_meshes(tree)
    base = free_base_name(name or tree.spec.name, len(meshes_in))
    created, meshes = [], []
    try:
        materials = tree_materials(tree.spec)
        for level, indexed in enumerate(meshes_in):
            meshes.append(mesh_from_lod(f"{base}_LOD{level}", indexed, materials))
        root = bpy.data.objects.new(base, None)
        root.empty_display_type = "PLAIN_AXES"
        root.empty_display_size = max(0.5, 0.1 * tree.height)
        created.append(root)
        collection.objects.link(root)
        for level, me in enumerate(meshes):
            child = bpy.data.objects.new(f"{base}_LOD{level}", me)
            created.append(child)
            child.parent = root
            collection.objects.link(child)
            if level:
                child.hide_set(True)  # show LOD0; the others stay exportable
        root[KIND_KEY] = TREE_KIND
        root[SPEC_KEY] = core_trees.dumps_spec(tree.spec)
        root.location = location
    except BaseException:
        remove_objects(created)
        for me in meshes:
            if me.users == 0:
                bpy.data.meshes.remove(me)
        raise
    return root


def build_tree(
    spec: TreeSpec,
    *,
    collection: bpy.types.Collection,
    location: Sequence[float] = (0.0, 0.0, 0.0),
    seed: int | None = None,
    name: str | None = None,
) -> bpy.types.Object:
    """Grow ``spec`` (with ``seed`` if given) and link it; returns the root object."""
    tree = core_trees.grow_tree(spec, seed=seed)
    return tree_objects(tree, collection=collection, location=location, name=name)


def remove_trees(roots: Iterable[bpy.types.Object]) -> None:
    """Remove tree roots with their LOD objects and now unused meshes."""
    objs = []
    for root in roots:
        objs.append(root)
        objs.extend(root.children)
    remove_objects(objs)


#: Metres between neighbouring forest trees, beyond the widest crown.
TREE_GAP = 2.0


def crown_width(root: bpy.types.Object) -> float:
    """Width of a tree's LOD0 seen from above (its largest horizontal extent), metres."""
    lod0 = next((c for c in root.children if c.name.endswith("_LOD0")), None)
    return max(lod0.dimensions.x, lod0.dimensions.y) if lod0 is not None else 0.0


def grow_forest(
    specs: Sequence[TreeSpec],
    *,
    collection: bpy.types.Collection,
    origin: Sequence[float] = (0.0, 0.0, 0.0),
    seed: int | None = None,
    clearance: float = 0.0,
    progress: Callable[[int, int, str], object] | None = None,
) -> list[bpy.types.Object]:
    """Grow each spec's ``variants`` (seeds ``seed + k``, or the spec's own ``seed + k``) and lay them out.

    Trees are named after their spec (``Name_V01``, ``Name_V02`` ... when a
    spec has more than one variant) and stand in rows, one row per spec and
    one column per variant, the widest crown plus :data:`TREE_GAP` apart;
    the first row is centred on ``origin`` and the rows go towards -Y,
    starting ``clearance`` metres further (e.g. half a terrain's size, to
    stand in front of it).  The sidebar's Grow Forest and the headless run
    both grow forests here.  A failure removes every tree made.
    """
    jobs = [(spec, k) for spec in specs for k in range(spec.variants)]
    roots = []
    try:
        for i, (spec, k) in enumerate(jobs):
            if progress is not None:
                progress(i, len(jobs), "trees")
            name = spec.name if spec.variants == 1 else f"{spec.name}_V{k + 1:02d}"
            first = spec.seed if seed is None else seed
            roots.append(build_tree(spec, collection=collection, seed=(first + k) % 2**31, name=name))
    except BaseException:
        remove_trees(roots)
        raise
    if progress is not None:
        progress(len(jobs), len(jobs), "trees")
    spacing = max((crown_width(r) for r in roots), default=0.0) + TREE_GAP
    columns = max((spec.variants for spec in specs), default=1)
    y0 = origin[1] - (clearance + spacing if clearance else 0.0)
    i = 0
    for row, spec in enumerate(specs):
        for col in range(spec.variants):
            x = origin[0] + (col - (columns - 1) / 2) * spacing
            roots[i].location = (x, y0 - row * spacing, origin[2])
            i += 1
    return roots


def build_section(
    recipe: Recipe, world: World, *, scene: bpy.types.Scene, progress: Callable[[int, int, str], object] | None = None
) -> None:
    """``[[trees]]`` of a world build (see :mod:`.world`): a forest in a "Trees" collection, in front of the
    terrain when there is one (of a tiled world's tiles: ``world.ground``)."""
    if not recipe.trees:
        return
    collection = bpy.data.collections.new("Trees")
    scene.collection.children.link(collection)
    origin, clearance = (0.0, 0.0, 0.0), recipe.terrain.size / 2 if recipe.terrain.enabled else 0.0
    if world.ground is not None:
        origin, clearance = (world.ground[0], world.ground[1], 0.0), world.ground[2]
    world.roots += grow_forest(
        recipe.trees, collection=collection, origin=origin, clearance=clearance, progress=progress
    )


def stored_spec(obj: bpy.types.Object) -> TreeSpec:
    """The :class:`core.tree.TreeSpec` a tree root was grown from."""
    return core_trees.loads_spec(obj[SPEC_KEY], source=f"object {obj.name!r}")


__all__ = [
    "build_tree",
    "grow_forest",
    "build_section",
    "crown_width",
    "TREE_GAP",
    "tree_objects",
    "tree_materials",
    "mesh_from_lod",
    "is_tree",
    "tree_root",
    "TREE_KIND",
    "stored_spec",
    "remove_trees",
]
