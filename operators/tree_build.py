"""Grown trees to Blender objects: an empty ``<Name>`` with ``<Name>_LOD0``, ``_LOD1``... below it.

Unity builds an LOD Group on import from children named ``_LOD0`` (most
detailed) upwards, so the names matter; the billboard, when asked for, is the
last LOD.  Meshes go in through the same bulk path as terrains
(:func:`.build.mesh_from_indexed`), with per-triangle material slots (bark,
leaves, billboard) and the mesher's smooth normals as custom normals.
A failed build removes whatever it made.
"""
import bpy
import numpy as np

from ..core import tree as core_tree
from . import build

TREE_KIND = "tree"
SPEC_KEY = "worldseed_tree"


# --------------------------------------------------------------------------- materials

def _rgba(rgb):
    return (*(float(c) for c in rgb), 1.0)


def _new_material(name, rgb, *, roughness, two_sided=False):
    """A Principled material of colour ``rgb`` (also its viewport colour); returns (material, BSDF node)."""
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:  # Blender before 5.0 makes materials without nodes
        mat.use_nodes = True
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    mat.diffuse_color = _rgba(rgb)
    mat.roughness = roughness
    mat.use_backface_culling = not two_sided
    bsdf.inputs["Base Color"].default_value = _rgba(rgb)
    bsdf.inputs["Roughness"].default_value = roughness
    return mat, bsdf


def bark_material(name, rgb):
    """Bark: the colour broken up by stretched noise along the branches (UV v runs along them)."""
    mat = bpy.data.materials.get(name)
    if mat is not None:
        return mat
    mat, bsdf = _new_material(name, rgb, roughness=0.9)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    uv = nodes.new("ShaderNodeTexCoord")
    stretch = nodes.new("ShaderNodeMapping")
    stretch.inputs["Scale"].default_value = (8.0, 1.5, 1.0)
    links.new(uv.outputs["UV"], stretch.inputs["Vector"])
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = 4.0
    noise.inputs["Detail"].default_value = 6.0
    links.new(stretch.outputs["Vector"], noise.inputs["Vector"])
    ramp = nodes.new("ShaderNodeValToRGB")
    dark = tuple(0.45 * c for c in rgb)
    light = tuple(min(1.0, 1.35 * c) for c in rgb)
    ramp.color_ramp.elements[0].position, ramp.color_ramp.elements[0].color = 0.35, _rgba(dark)
    ramp.color_ramp.elements[1].position, ramp.color_ramp.elements[1].color = 0.65, _rgba(light)
    links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    for i, node in enumerate((uv, stretch, noise, ramp)):
        node.location = (-1000 + 220 * i, 300)
    return mat


def leaf_material(name, rgb):
    """Leaves: two-sided and a little translucent."""
    mat = bpy.data.materials.get(name)
    if mat is not None:
        return mat
    mat, bsdf = _new_material(name, rgb, roughness=0.6, two_sided=True)
    for key in ("Transmission Weight", "Transmission"):  # 4.x+ / 3.x name
        if key in bsdf.inputs:
            bsdf.inputs[key].default_value = 0.15
            break
    return mat


def billboard_material(name, rgb):
    """The far-LOD billboard: the leaf colour, two-sided."""
    mat = bpy.data.materials.get(name)
    return mat if mat is not None else _new_material(name, rgb, roughness=0.8, two_sided=True)[0]


def tree_materials(spec):
    """Bark, leaf and billboard materials of a species, shared by all its trees (one per file)."""
    base = spec.name.split(".")[0]
    return (bark_material(f"{base}_Bark", spec.bark_colour),
            leaf_material(f"{base}_Leaves", spec.leaf_colour),
            billboard_material(f"{base}_Billboard", spec.leaf_colour))


# --------------------------------------------------------------------------- meshes and objects

def mesh_from_lod(name, indexed, materials):
    """A Blender mesh from a tree LOD (an ``IndexedMesh`` with material slots).

    Only the materials the LOD uses become slots (Unity makes one sub-mesh
    per slot), in slot order: a bare tree gets bark only, the billboard only
    its own material.
    """
    me = build.mesh_from_indexed(name, indexed, normals=True)
    try:
        slots = indexed.materials if indexed.materials is not None else np.zeros(indexed.n_triangles, np.uint8)
        used = np.unique(slots)
        for i in used:
            me.materials.append(materials[int(i)])
        if len(used) > 1:
            attr = me.attributes.new("material_index", "INT", "FACE")
            attr.data.foreach_set("value", np.searchsorted(used, slots).astype(np.int32))
    except BaseException:
        bpy.data.meshes.remove(me)
        raise
    return me


def lod_meshes(tree):
    """LOD meshes of a grown tree, the billboard last."""
    return list(tree.lods) + ([tree.billboard] if tree.billboard is not None else [])


def tree_objects(tree, *, collection, location=(0.0, 0.0, 0.0), name=None):
    """Link a grown tree as ``<Name>`` (an empty) with ``<Name>_LOD0..n`` below it; returns the root."""
    meshes_in = lod_meshes(tree)
    base = build.free_base_name(name or tree.spec.name, len(meshes_in))
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
        root[build.KIND_KEY] = TREE_KIND
        root[SPEC_KEY] = core_tree.dumps_spec(tree.spec)
        root.location = location
    except BaseException:
        build._remove_objects(created)
        for me in meshes:
            if me.users == 0:
                bpy.data.meshes.remove(me)
        raise
    return root


def build_tree(spec, *, collection, location=(0.0, 0.0, 0.0), seed=None, name=None):
    """Grow ``spec`` (with ``seed`` if given) and link it; returns the root object."""
    tree = core_tree.grow_tree(spec, seed=seed)
    return tree_objects(tree, collection=collection, location=location, name=name)


def remove_trees(roots):
    """Remove tree roots with their LOD objects and now unused meshes."""
    objs = []
    for root in roots:
        objs.append(root)
        objs.extend(root.children)
    build._remove_objects(objs)


def is_tree(obj):
    return obj is not None and obj.get(build.KIND_KEY) == TREE_KIND


def tree_root(obj):
    """The Worldseed tree root of ``obj`` (itself or its parent), or None."""
    while obj is not None:
        if is_tree(obj):
            return obj
        obj = obj.parent
    return None


def stored_spec(obj):
    """The :class:`core.tree.TreeSpec` a tree root was grown from."""
    return core_tree.loads_spec(obj[SPEC_KEY], source=f"object {obj.name!r}")


__all__ = ["build_tree", "tree_objects", "tree_materials", "mesh_from_lod", "is_tree", "tree_root",
           "stored_spec", "remove_trees"]
