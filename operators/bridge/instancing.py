"""Instances through Geometry Nodes: one point object, one Instance on Points, shared meshes.

A point object (a mesh of loose vertices) carries per point the attributes
:data:`ROTATION` (quaternion ``w, x, y, z``), :data:`SCALE` (uniform) and
:data:`INDEX` (which of the instanced objects); a Geometry Nodes modifier puts
an instance of object ``INDEX`` on every point.  The objects are listed in
order in the node tree, so an index never depends on a name.  The scatter
(props on a terrain) and the level kit (modules on a grid) both instance this
way: 100,000 instances cost a few megabytes and are written in bulk
(``foreach_set``), never one object at a time.
"""

import bpy
import numpy as np

__all__ = ["ROTATION", "SCALE", "INDEX", "instancer_tree", "write_points", "read_points", "yaw_quaternions"]

ROTATION, SCALE, INDEX = "ws_rotation", "ws_scale", "ws_prop"


def instancer_tree(name, objects):
    """A new node tree: Instance on Points, picking object ``ws_prop`` from ``objects`` in order."""
    tree = bpy.data.node_groups.new(name, "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    nodes, links = tree.nodes, tree.links
    group_in, group_out = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    to_instance = nodes.new("GeometryNodeGeometryToInstance")
    infos = []
    for i, obj in enumerate(objects):
        info = nodes.new("GeometryNodeObjectInfo")
        info.transform_space = "ORIGINAL"
        info.inputs["Object"].default_value = obj
        info.inputs["As Instance"].default_value = True
        info.location = (-600, -160 * i)
        infos.append(info)
    # a multi-input socket lists its links newest first: link the last object first so index k is object k
    for info in reversed(infos):
        links.new(info.outputs["Geometry"], to_instance.inputs["Geometry"])
    on_points = nodes.new("GeometryNodeInstanceOnPoints")
    on_points.inputs["Pick Instance"].default_value = True
    links.new(group_in.outputs[0], on_points.inputs["Points"])
    links.new(to_instance.outputs[0], on_points.inputs["Instance"])
    for attr, kind, socket in (
        (INDEX, "INT", "Instance Index"),
        (ROTATION, "QUATERNION", "Rotation"),
        (SCALE, "FLOAT", "Scale"),
    ):
        named = nodes.new("GeometryNodeInputNamedAttribute")
        named.data_type = kind
        named.inputs["Name"].default_value = attr
        links.new(named.outputs["Attribute"], on_points.inputs[socket])
    links.new(on_points.outputs[0], group_out.inputs[0])
    group_in.location, to_instance.location, on_points.location, group_out.location = (
        (-600, 200),
        (-300, 0),
        (0, 0),
        (250, 0),
    )
    return tree


def write_points(me, positions, rotations, scales, indices):
    """Replace the points of the mesh ``me`` (all arrays of one row per instance)."""
    n = len(positions)
    me.clear_geometry()
    me.vertices.add(n)
    me.attributes["position"].data.foreach_set("vector", np.ascontiguousarray(positions, np.float32).ravel())
    for name, kind, values in (
        (ROTATION, "QUATERNION", np.asarray(rotations, np.float32)),
        (SCALE, "FLOAT", np.asarray(scales, np.float32)),
        (INDEX, "INT", np.asarray(indices, np.int32)),
    ):
        attr = me.attributes.get(name) or me.attributes.new(name, kind, "POINT")
        attr.data.foreach_set("value", np.ascontiguousarray(values).ravel())
    me.update()


def read_points(obj):
    """``(positions, rotations (w, x, y, z), scales, indices)`` of a point object, local to it."""
    me = obj.data
    n = len(me.vertices)
    pos = np.empty(n * 3, np.float32)
    me.attributes["position"].data.foreach_get("vector", pos)
    rot = np.empty(n * 4, np.float32)
    me.attributes[ROTATION].data.foreach_get("value", rot)
    scale = np.empty(n, np.float32)
    me.attributes[SCALE].data.foreach_get("value", scale)
    index = np.empty(n, np.int32)
    me.attributes[INDEX].data.foreach_get("value", index)
    return pos.reshape(n, 3), rot.reshape(n, 4), scale, index


def yaw_quaternions(yaw):
    """(N, 4) float32 quaternions ``w, x, y, z`` of turns by ``yaw`` radians about +Z."""
    half = np.asarray(yaw, np.float64) * 0.5
    q = np.zeros((len(half), 4), np.float32)
    q[:, 0] = np.cos(half)
    q[:, 3] = np.sin(half)
    return q
