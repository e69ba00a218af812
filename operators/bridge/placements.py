"""Scatters on their way to Unity: the placement file (JSON).

In the FBX every instance is an object sharing its prop's mesh, named
``<Prop>_<index:05d>`` (a tree keeps its ``_LOD0``.. children, so Unity builds an
LOD Group per tree), at the top level of the file beside the terrain; each
record names that object (``object``), so a tool can find it. Exported as a
prop library instead (``<name>_props.fbx``, each prop once), the file is what
places the props, and ``object`` is the name to give each placed copy.
The placement file lists the same instances in Unity's coordinates (see
:mod:`core.placement`), so a prefab placed from the file lands where the FBX
puts the object, plus Unity Terrain tree instances for the layers marked so.
"""

import json
import os
from collections.abc import Iterable
from typing import Any, cast

import bpy
import numpy as np

from ...core import placement as core_placement
from ...core import unity as core_unity
from . import scatter as bridge_scatter
from . import terrain as bridge_terrain
from .mesh import bulk, mesh_of

FORMAT = "worldseed-placements"
VERSION = 1


def placement_data(scatter: bpy.types.Object) -> dict[str, Any]:
    """The placement file's content for one scatter object (a dict of plain JSON values)."""
    root = cast(bpy.types.Object, scatter.parent)  # a scatter stands on its terrain
    recipe = bridge_terrain.stored_recipe(root)
    props = bridge_scatter.scatter_props(scatter)
    pos, rot, scale, which = bridge_scatter.read_points(scatter)
    layer = np.empty(len(pos), np.int32)
    bulk(mesh_of(scatter).attributes["ws_layer"]).foreach_get("value", layer)
    layers = bridge_scatter.stored_layers(scatter)
    mats = bridge_scatter.instance_matrices(scatter)
    width = bridge_scatter.width_scales(scatter)  # a forest's canopies (None: uniform scales)
    unscaled = mats[:, :3, :3] / np.asarray(scale, np.float64)[:, None, None]
    if width is not None:
        unscaled[:, :, :2] /= (width / np.maximum(np.asarray(scale, np.float64), 1e-12))[:, None, None]
    entry = core_placement.scatter_entry(
        mats[:, :3, 3],
        # rotation of each instance in world space, scale removed
        core_placement.matrix_quaternions(unscaled),
        scale,
        which,
        [p.name for p in props],
        layers=layer,
        layer_names=[s.name for s in layers],
        tree_layers=[i for i, s in enumerate(layers) if s.unity_tree],
        # the name the instance's object gets in the FBX
        object_name=lambda prop, index: bridge_scatter.INSTANCE_NAME.format(prop=prop, index=index),
        scatter=scatter.name,
        terrain=root.name,
        blender_centre=root.matrix_world.translation.to_tuple(),
        size=recipe.terrain.size,
        height=recipe.terrain.height,
    )
    if width is not None:  # trees sized by height (scale, height_scale) and canopy (width_scale)
        widths = np.round(width, 4).tolist()
        for rec, w in zip(entry["instances"], widths):
            rec["width_scale"] = w
        trees = [w for w, k in zip(widths, layer.tolist()) if k in set(range(len(layers))) and layers[k].unity_tree]
        for rec, w in zip(entry["terrain_trees"]["instances"], trees):
            rec["width_scale"] = w
    coordinates = "Unity: left-handed, Y up, metres; rotation quaternions as [x, y, z, w]"
    return {"format": FORMAT, "version": VERSION, "coordinates": coordinates, **entry}


def write_placement_file(scatters: Iterable[bpy.types.Object], path: str) -> str:
    """Write the placement file of ``scatters`` (a list, one entry each) to ``path`` atomically."""
    data = {"format": FORMAT, "version": VERSION, "scatters": [placement_data(s) for s in scatters]}
    text = json.dumps(data, separators=(",", ":")) + "\n"
    core_unity.write_bytes_atomic(os.path.abspath(path), text.encode())
    return path
