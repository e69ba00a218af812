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

from collections.abc import Sequence
from typing import Any, Literal, cast

import bpy
import numpy as np
import numpy.typing as npt

from .mesh import bulk, mesh_of

__all__ = ["ROTATION", "SCALE", "INDEX", "instancer_tree", "write_points", "read_points", "yaw_quaternions"]

ROTATION, SCALE, INDEX = "ws_rotation", "ws_scale", "ws_prop"


def instancer_tree(name: str, objects: Sequence[bpy.types.Object]) -> bpy.types.NodeTree:
    """A new node tree: Instance on Points, picking object ``ws_prop`` from ``objects`` in order."""
    tree = bpy.data.node_groups.new(name, "GeometryNodeTree")
    interface = cast("bpy.types.NodeTreeInterface", tree.interface)  # a node group's: never None
    interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    # a node's sockets are known by name at run time only: the stubs type nodes by their base class
    nodes: Any = tree.nodes
    links = tree.links
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


def write_points(
    me: bpy.types.Mesh,
    positions: npt.NDArray[Any],
    rotations: npt.ArrayLike,
    scales: npt.ArrayLike,
    indices: npt.ArrayLike,
) -> None:
    """Replace the points of the mesh ``me`` (all arrays of one row per instance)."""
    n = len(positions)
    me.clear_geometry()
    me.vertices.add(n)
    bulk(me.attributes["position"]).foreach_set("vector", np.ascontiguousarray(positions, np.float32).ravel())
    columns: tuple[tuple[str, Literal["QUATERNION", "FLOAT", "INT"], npt.NDArray[Any]], ...] = (
        (ROTATION, "QUATERNION", np.asarray(rotations, np.float32)),
        (SCALE, "FLOAT", np.asarray(scales, np.float32)),
        (INDEX, "INT", np.asarray(indices, np.int32)),
    )
    for name, kind, values in columns:
        attr = me.attributes.get(name) or me.attributes.new(name, kind, "POINT")
        bulk(attr).foreach_set("value", np.ascontiguousarray(values).ravel())
    me.update()


def read_points(
    obj: bpy.types.Object,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.int32]]:
    """``(positions, rotations (w, x, y, z), scales, indices)`` of a point object, local to it."""
    me = mesh_of(obj)
    n = len(me.vertices)
    pos = np.empty(n * 3, np.float32)
    bulk(me.attributes["position"]).foreach_get("vector", pos)
    rot = np.empty(n * 4, np.float32)
    bulk(me.attributes[ROTATION]).foreach_get("value", rot)
    scale = np.empty(n, np.float32)
    bulk(me.attributes[SCALE]).foreach_get("value", scale)
    index = np.empty(n, np.int32)
    bulk(me.attributes[INDEX]).foreach_get("value", index)
    return pos.reshape(n, 3), rot.reshape(n, 4), scale, index


def yaw_quaternions(yaw: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """(N, 4) float32 quaternions ``w, x, y, z`` of turns by ``yaw`` radians about +Z."""
    half = np.asarray(yaw, np.float64) * 0.5
    q = np.zeros((len(half), 4), np.float32)
    q[:, 0] = np.cos(half)
    q[:, 3] = np.sin(half)
    return q
