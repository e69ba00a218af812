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
import bpy
import numpy as np
from mathutils import Matrix

from ..core import placement as core_placement
from . import build

SCATTER_KIND = "scatter"
INSTANCE_KIND = "scatter_instance"   # a real object made from a scatter instance (Make Real)
ROTATION, SCALE, PROP = "ws_rotation", "ws_scale", "ws_prop"
PROPS_KEY = "worldseed_props"          # on the scatter object: prop object names in index order
LAYERS_KEY = "worldseed_layers"        # on the scatter object: the layers' TOML, for re-scatter and export
NODE_GROUP = "Worldseed Scatter"


def is_scatter(obj):
    return obj is not None and obj.get(build.KIND_KEY) == SCATTER_KIND


def prop_mesh_object(prop):
    """The object whose geometry stands for ``prop`` in the viewport: itself, or a tree root's LOD0."""
    if prop.type == "MESH":
        return prop
    lods = sorted((c for c in prop.children if c.type == "MESH"), key=lambda o: o.name)
    return lods[0] if lods else prop


def _node_group(name, props):
    """A node tree: Instance on Points, picking prop ``ws_prop`` from the props in order."""
    tree = bpy.data.node_groups.new(name, "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    nodes, links = tree.nodes, tree.links
    group_in, group_out = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    to_instance = nodes.new("GeometryNodeGeometryToInstance")
    infos = []
    for i, prop in enumerate(props):
        info = nodes.new("GeometryNodeObjectInfo")
        info.transform_space = "ORIGINAL"
        info.inputs["Object"].default_value = prop_mesh_object(prop)
        info.inputs["As Instance"].default_value = True
        info.location = (-600, -160 * i)
        infos.append(info)
    # a multi-input socket lists its links newest first: link the last prop first so index k is prop k
    for info in reversed(infos):
        links.new(info.outputs["Geometry"], to_instance.inputs["Geometry"])
    on_points = nodes.new("GeometryNodeInstanceOnPoints")
    on_points.inputs["Pick Instance"].default_value = True
    links.new(group_in.outputs[0], on_points.inputs["Points"])
    links.new(to_instance.outputs[0], on_points.inputs["Instance"])
    for attr, kind, socket in ((PROP, "INT", "Instance Index"), (ROTATION, "QUATERNION", "Rotation"),
                               (SCALE, "FLOAT", "Scale")):
        named = nodes.new("GeometryNodeInputNamedAttribute")
        named.data_type = kind
        named.inputs["Name"].default_value = attr
        links.new(named.outputs["Attribute"], on_points.inputs[socket])
    links.new(on_points.outputs[0], group_out.inputs[0])
    group_in.location, to_instance.location, on_points.location, group_out.location = \
        (-600, 200), (-300, 0), (0, 0), (250, 0)
    return tree


def write_points(me, positions, rotations, scales, props):
    """Replace the points of the scatter mesh ``me`` (all arrays of one row per instance)."""
    n = len(positions)
    me.clear_geometry()
    me.vertices.add(n)
    me.attributes["position"].data.foreach_set("vector", np.ascontiguousarray(positions, np.float32).ravel())
    for name, kind, values in ((ROTATION, "QUATERNION", np.asarray(rotations, np.float32)),
                               (SCALE, "FLOAT", np.asarray(scales, np.float32)),
                               (PROP, "INT", np.asarray(props, np.int32))):
        attr = me.attributes.get(name) or me.attributes.new(name, kind, "POINT")
        attr.data.foreach_set("value", np.ascontiguousarray(values).ravel())
    me.update()


def read_points(obj):
    """``(positions, rotations (w, x, y, z), scales, props)`` of a scatter object, local to it."""
    me = obj.data
    n = len(me.vertices)
    pos = np.empty(n * 3, np.float32)
    me.attributes["position"].data.foreach_get("vector", pos)
    rot = np.empty(n * 4, np.float32)
    me.attributes[ROTATION].data.foreach_get("value", rot)
    scale = np.empty(n, np.float32)
    me.attributes[SCALE].data.foreach_get("value", scale)
    prop = np.empty(n, np.int32)
    me.attributes[PROP].data.foreach_get("value", prop)
    return pos.reshape(n, 3), rot.reshape(n, 4), scale, prop


def scatter_object(name, props, *, collection, parent=None):
    """A new, empty scatter object instancing ``props`` (objects, in index order)."""
    me = bpy.data.meshes.new(name)
    obj = bpy.data.objects.new(name, me)
    tree = _node_group(f"{NODE_GROUP} ({name})", props)
    try:
        collection.objects.link(obj)
        mod = obj.modifiers.new("Worldseed Scatter", "NODES")
        mod.node_group = tree
        obj[build.KIND_KEY] = SCATTER_KIND
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


def set_props(obj, props):
    """Point the scatter's node tree at new props (in index order)."""
    old = obj.modifiers["Worldseed Scatter"].node_group
    obj.modifiers["Worldseed Scatter"].node_group = _node_group(old.name, props)
    if old.users == 0:
        bpy.data.node_groups.remove(old)
    obj[PROPS_KEY] = [p.name for p in props]


def scatter_props(obj):
    """The prop objects of a scatter, in index order."""
    return [bpy.data.objects[n] for n in obj[PROPS_KEY]]


def remove_scatter(obj):
    me, tree = obj.data, obj.modifiers["Worldseed Scatter"].node_group if obj.modifiers else None
    bpy.data.objects.remove(obj, do_unlink=True)
    if me.users == 0:
        bpy.data.meshes.remove(me)
    if tree is not None and tree.users == 0:
        bpy.data.node_groups.remove(tree)


# --------------------------------------------------------------------------- real objects

def instance_matrices(obj):
    """World matrices (N, 4, 4) of the instances of a scatter object."""
    pos, rot, scale, _ = read_points(obj)
    local = np.zeros((len(pos), 4, 4))
    local[:, :3, :3] = core_placement.quaternion_matrices(rot) * scale[:, None, None]
    local[:, :3, 3] = pos
    local[:, 3, 3] = 1.0
    return np.asarray(obj.matrix_world, np.float64) @ local


def make_real(obj, *, collection, name_format="{prop}_{index:05d}"):
    """Real objects for every instance of the scatter ``obj``, sharing the props' meshes; returns the
    top-level objects made (a tree prop gives a root with its LOD children, each sharing the LOD meshes)."""
    props = scatter_props(obj)
    # Object.children scans every object in the file: ask once per prop, not once per instance
    prop_children = {p.name: sorted(p.children, key=lambda o: o.name) for p in props if p.type == "EMPTY"}
    mats = instance_matrices(obj)
    _, _, _, which = read_points(obj)
    made = []
    try:
        for index, (m, k) in enumerate(zip(mats, which)):
            prop = props[int(k)]
            name = name_format.format(prop=prop.name, index=index)
            top = bpy.data.objects.new(name, prop.data)
            made.append(top)
            collection.objects.link(top)
            top.matrix_world = Matrix(m.tolist())
            top[build.KIND_KEY] = INSTANCE_KIND
            if prop.type == "EMPTY":
                top.empty_display_type = prop.empty_display_type
                for child in prop_children[prop.name]:
                    suffix = child.name[len(prop.name):] if child.name.startswith(prop.name) else "_" + child.name
                    c = bpy.data.objects.new(name + suffix, child.data)
                    made.append(c)
                    collection.objects.link(c)
                    c.parent = top
                    c.matrix_parent_inverse = child.matrix_parent_inverse.copy()
                    c.matrix_basis = child.matrix_basis.copy()
                    c.hide_set(child.hide_get())
    except BaseException:
        for o in made:
            bpy.data.objects.remove(o, do_unlink=True)
        raise
    return [o for o in made if o.parent is None or o.parent not in made]
