"""The props a scatter instances: built-in rocks, grass and trees, or the artist's own objects.

Built-in props live in a "Worldseed Props" collection that is hidden in
viewports and renders (they are sources, not scenery) and are made once per name
and reused by every scatter: ``Rock_P01``..., ``Grass_P01``...,
``<Tree>_P01``...  A prop's look depends on its variant number only, so a
new scatter seed moves the props without remaking them.
"""
import bpy
import numpy as np

from ..core import props as core_props
from ..core import scatter_spec
from ..core import tree as core_tree
from . import build, tree_build

PROPS_COLLECTION = "Worldseed Props"
PROP_KEY = "worldseed_prop"

#: Good starting values per built-in prop (the Add Layer button uses them).
SUGGESTED = {
    "tree": dict(radius=9.0, slope_range=(0.0, 30.0), scale_range=(0.85, 1.15), align=0.0, max_tilt=5.0,
                 sink=0.1, unity_tree=True, variants=3),
    "rock": dict(radius=5.0, slope_range=(0.0, 90.0), scale_range=(0.6, 1.8), align=1.0, max_tilt=35.0,
                 sink=0.15, patchiness=0.4, variants=4),
    "grass": dict(radius=1.2, slope_range=(0.0, 35.0), scale_range=(0.7, 1.3), align=0.7, max_tilt=20.0,
                  sink=0.02, patchiness=0.5, variants=3),
}


def suggested_layer(kind):
    """A LayerSpec with good starting values for the built-in prop ``kind``."""
    base = SUGGESTED.get(kind, SUGGESTED["tree"])
    scatter_spec.layer_spec({"prop": kind})  # an unknown prop is refused here, naming the allowed ones
    label = {"rock": "Rocks", "grass": "Grass"}.get(kind) or core_tree.species_spec(kind).name + "s"
    return scatter_spec.layer_spec({**base, "name": label[:48], "prop": kind})


def props_collection(scene):
    """The (hidden) collection of built-in props, made on first use."""
    coll = bpy.data.collections.get(PROPS_COLLECTION)
    if coll is None:
        coll = bpy.data.collections.new(PROPS_COLLECTION)
    if coll.name not in scene.collection.children:
        scene.collection.children.link(coll)
    return coll


def _hide(coll):
    """Keep the props out of sight and out of renders (the scatter's instances still show them)."""
    coll.hide_viewport = True
    coll.hide_render = True


def _mesh_prop(name, indexed, material, coll):
    obj = bpy.data.objects.get(name)
    if obj is not None:
        return obj
    me = build.mesh_from_indexed(name, indexed, normals=True)
    me.materials.append(material)
    obj = bpy.data.objects.new(name, me)
    coll.objects.link(obj)
    obj[PROP_KEY] = True
    return obj


def _builtin(kind, k, coll):
    """Prop variant ``k`` of the built-in ``kind`` (made once, then reused)."""
    if kind == "rock":
        mat = tree_build.bark_material("Worldseed_Rock", (0.32, 0.30, 0.28))
        return _mesh_prop(f"Rock_P{k + 1:02d}", core_props.rock_mesh(seed=k), mat, coll)
    if kind == "grass":
        mat = tree_build.leaf_material("Worldseed_Grass", (0.12, 0.32, 0.05))
        return _mesh_prop(f"Grass_P{k + 1:02d}", core_props.grass_mesh(seed=k), mat, coll)
    spec = core_tree.species_spec(kind)
    name = f"{spec.name}_P{k + 1:02d}"
    obj = bpy.data.objects.get(name)
    if obj is None:
        obj = tree_build.build_tree(spec, collection=coll, seed=spec.seed + k, name=name)
        obj[PROP_KEY] = True
    return obj


def layer_props(specs, sources, *, scene=None):
    """Prop objects per layer, in index order."""
    scene = scene or bpy.context.scene
    out, coll = [], None
    for spec, (kind, source) in zip(specs, sources):
        if kind == "COLLECTION":
            out.append(sorted((o for o in source.objects if o.parent is None), key=lambda o: o.name))
        elif kind == "OBJECT":
            out.append([source])
        else:
            if coll is None:
                coll = props_collection(scene)
            out.append([_builtin(spec.prop, k, coll) for k in range(spec.variants)])
    if coll is not None:
        _hide(coll)
    return out



def pick_props(placements, counts, *, seed=0):
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


__all__ = ["layer_props", "pick_props", "suggested_layer", "props_collection"]
