"""Scatters on their way to Unity: real objects for the FBX, and the placement file (JSON).

In the FBX every instance is an object sharing its prop's mesh, named
``<Prop>_<index>`` (a tree keeps its ``_LOD0``.. children, so Unity builds an
LOD Group per tree), at the top level of the file beside the terrain.
The placement file lists the same instances in Unity's coordinates (see
:mod:`core.placement`), so a prefab placed from the file lands where the FBX
puts the object, plus Unity Terrain tree instances for the layers marked so.
"""
import contextlib
import json
import os

import bpy
import numpy as np

from ..core import placement as core_placement
from ..core import scatter_spec
from ..core import unity as core_unity
from . import build, scatter_build

FORMAT = "worldseed-placements"
VERSION = 1


@contextlib.contextmanager
def expanded(objects):
    """For the duration, real instance objects for every scatter object among ``objects`` or below them.

    Yields ``(objects, extras)``: ``objects`` without the scatter objects
    (which leave their terrain's hierarchy meanwhile) and ``extras``, for
    each given object, the top-level instance objects that belong with it.
    Instances are top-level objects placed in world space: the FBX
    exporter's baked axis conversion is exact for top-level objects (a
    child's offset would keep Blender's Z-up axes).
    """
    found = [(root, o) for root in objects for o in [root, *root.children_recursive] if scatter_build.is_scatter(o)]
    if not found:
        yield list(objects), {}
        return
    temp = bpy.data.collections.new("Worldseed Export")
    bpy.context.scene.collection.children.link(temp)
    made, moved, extras = [], [], {}
    try:
        for root, obj in found:
            parent, matrix = obj.parent, obj.matrix_world.copy()
            obj.parent = None  # out of the terrain's hierarchy while its instances stand in for it
            obj.matrix_world = matrix
            moved.append((obj, parent, matrix))
            instances = scatter_build.make_real(obj, collection=temp)
            made.extend(o for top in instances for o in [top, *top.children])
            extras.setdefault(root.name, []).extend(instances)
        yield [o for o in objects if not scatter_build.is_scatter(o)], extras
    finally:
        for o in made:
            bpy.data.objects.remove(o, do_unlink=True)
        bpy.data.collections.remove(temp)
        for obj, parent, matrix in moved:
            obj.parent = parent
            obj.matrix_world = matrix


def placement_data(scatter):
    """The placement file's content for one scatter object (a dict of plain JSON values)."""
    root = scatter.parent
    recipe = build.stored_recipe(root)
    props = scatter_build.scatter_props(scatter)
    pos, rot, scale, which = scatter_build.read_points(scatter)
    layer = np.empty(len(pos), np.int32)
    scatter.data.attributes["ws_layer"].data.foreach_get("value", layer)
    layers = [scatter_spec.loads_layer(t) for t in scatter.get("worldseed_scatter_layers", [])]
    mats = scatter_build.instance_matrices(scatter)
    world_pos = mats[:, :3, 3]
    # rotation of each instance in world space, scale removed
    rot_world = core_placement.matrix_quaternions(mats[:, :3, :3] / np.asarray(scale, np.float64)[:, None, None])
    prop_names = [p.name for p in props]
    records = core_placement.placement_records(world_pos, rot_world, scale, which, prop_names, layers=layer,
                                               layer_names=[s.name for s in layers])
    spec = recipe.terrain
    terrain_pos = core_unity.unity_terrain_position(spec.size, blender_centre=tuple(root.matrix_world.translation))
    tree_layers = [i for i, s in enumerate(layers) if s.unity_tree]
    pick = np.isin(layer, tree_layers)
    used = sorted(set(which[pick].tolist()))
    prototype = {k: i for i, k in enumerate(used)}
    trees = core_placement.terrain_tree_instances(
        world_pos[pick], rot_world[pick], scale[pick], [prototype[k] for k in which[pick].tolist()],
        terrain_position=terrain_pos, size=spec.size, height=max(spec.height, 1e-6))
    return {
        "format": FORMAT, "version": VERSION,
        "coordinates": "Unity: left-handed, Y up, metres; rotation quaternions as [x, y, z, w]",
        "scatter": scatter.name,
        "terrain": {"name": root.name, "position": [round(v, 5) for v in terrain_pos.tolist()],
                    "size": [spec.size, spec.height, spec.size]},
        "props": prop_names,
        "layers": [s.name for s in layers],
        "instances": records,
        "terrain_trees": {"prototypes": [prop_names[k] for k in used], "instances": trees},
    }


def write_placement_file(scatters, path):
    """Write the placement file of ``scatters`` (a list, one entry each) to ``path`` atomically."""
    data = {"format": FORMAT, "version": VERSION, "scatters": [placement_data(s) for s in scatters]}
    text = json.dumps(data, separators=(",", ":")) + "\n"
    core_unity.write_bytes_atomic(os.path.abspath(path), text.encode())
    return path
