"""Reading an exported terrain and its props back with third-party readers: ufbx (FBX) and pygltflib (glTF).

Shared by the ground tests (test_scatter_ground.py, test_gltf_ground.py, test_unity_ground.py): the
FBX's nodes and terrain faces in Unity's frame (read by ufbx in a Python of its own), the .glb's
accessors and node matrices, the triangles of either, and the height of the triangle under a point.
"""

import json
import subprocess
import sys

import numpy as np

# ufbx's Python objects can crash the garbage collector (ufbx 0.0.5, with bpy in the process):
# read the FBX in a Python of its own that prints plain values and leaves without tearing down
_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1], target_unit_meters=1.0)
out = {"nodes": {}, "terrain": None}
for node in list(scene.nodes):
    name = node.name
    out["nodes"][name] = list(node.node_to_world.c3)
    if name == sys.argv[2]:
        mesh = node.mesh
        g = node.geometry_to_world
        indices = list(mesh.vertex_indices)
        out["terrain"] = {
            "matrix": [list(g.c0), list(g.c1), list(g.c2), list(g.c3)],
            "vertices": [[v.x, v.y, v.z] for v in list(mesh.vertices)],
            "faces": [indices[f.index_begin : f.index_begin + f.num_indices] for f in list(mesh.faces)],
        }
print(json.dumps(out), flush=True)
os._exit(0)
"""

#: Unity's importer turns the file's right-handed Y-up frame into its left-handed one by mirroring X.
UNITY = np.array([-1.0, 1.0, 1.0])


def read_fbx(path, terrain_name):
    """Node origins ``{name: (3,)}`` and the terrain's vertices ``(V, 3)`` and faces (lists of vertex
    indices, as the file has them), in Unity's frame; ``(nodes, None, None)`` without that node."""
    done = subprocess.run(
        [sys.executable, "-c", _READ_FBX, path, terrain_name], capture_output=True, text=True, check=True
    )
    fbx = json.loads(done.stdout)
    nodes = {name: np.array(t) * UNITY for name, t in fbx["nodes"].items()}
    terrain = fbx["terrain"]
    if terrain is None:
        return nodes, None, None
    m = np.array(terrain["matrix"])  # columns c0 c1 c2 c3 of geometry_to_world
    vertices = (np.array(terrain["vertices"]) @ m[:3] + m[3]) * UNITY
    return nodes, vertices, terrain["faces"]


def fbx_triangles(vertices, faces):
    """The faces as triangles ``(T, 3, 3)``; quads cut as ufbx cuts them (the shorter diagonal, the
    first on a tie, unless a cut folds the quad)."""
    tris = []
    quads = np.array([f for f in faces if len(f) == 4], np.int64)
    tris += [vertices[np.array([f for f in faces if len(f) == 3], np.int64).reshape(-1, 3)]]
    if len(quads):
        v0, v1, v2, v3 = (vertices[quads[:, k]] for k in range(4))

        def unit(n):
            return n / np.linalg.norm(n, axis=1, keepdims=True)

        a, b = v2 - v0, v3 - v1
        dot_a = np.einsum("ij,ij->i", unit(np.cross(a, v1 - v0)), unit(np.cross(a, v0 - v3)))
        dot_b = np.einsum("ij,ij->i", unit(np.cross(b, v1 - v0)), unit(np.cross(b, v2 - v1)))
        cut_a = np.einsum("ij,ij->i", a, a) <= np.einsum("ij,ij->i", b, b)
        folded = (dot_a < 0) | (dot_b < 0)
        cut_a = np.where(folded, dot_a >= dot_b, cut_a)
        first = np.where(cut_a[:, None], quads[:, [0, 1, 2]], quads[:, [1, 2, 3]])
        second = np.where(cut_a[:, None], quads[:, [2, 3, 0]], quads[:, [3, 0, 1]])
        tris += [vertices[first], vertices[second]]
    assert all(len(f) in (3, 4) for f in faces)
    return np.concatenate(tris)


def ground_under(points, tris):
    """Y (Unity's and glTF's up) of the triangles under each point's (x, z): (N,), NaN where none."""
    out = np.full(len(points), np.nan)
    t0, t1, t2 = tris[:, 0], tris[:, 1], tris[:, 2]
    lo = np.minimum(np.minimum(t0, t1), t2) - 1e-6
    hi = np.maximum(np.maximum(t0, t1), t2) + 1e-6
    n = np.cross(t1 - t0, t2 - t0)

    def side(u, v, p):
        return (v[:, 0] - u[:, 0]) * (p[2] - u[:, 2]) - (v[:, 2] - u[:, 2]) * (p[0] - u[:, 0])

    for k, p in enumerate(points):
        near = np.flatnonzero((lo[:, 0] <= p[0]) & (hi[:, 0] >= p[0]) & (lo[:, 2] <= p[2]) & (hi[:, 2] >= p[2]))
        a, b, c = t0[near], t1[near], t2[near]
        s = np.stack([side(a, b, p), side(b, c, p), side(c, a, p)], axis=1)
        inside = (s >= -1e-9).all(axis=1) | (s <= 1e-9).all(axis=1)
        if inside.any():
            i = near[np.flatnonzero(inside)[0]]
            out[k] = t0[i, 1] - (n[i, 0] * (p[0] - t0[i, 0]) + n[i, 2] * (p[2] - t0[i, 2])) / n[i, 1]
    return out


_COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
_DTYPES = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}


def accessor(gltf, blob, index, *, normalized=False):
    """A glTF accessor's values as rows ``(count, width)`` of its own dtype (with ``normalized``:
    float64, normalized integers scaled to [0, 1])."""
    acc = gltf.accessors[index]
    view = gltf.bufferViews[acc.bufferView]
    dtype = np.dtype(_DTYPES[acc.componentType]).newbyteorder("<")
    width = _COMPONENTS[acc.type]
    start = (view.byteOffset or 0) + (acc.byteOffset or 0)
    stride = view.byteStride or dtype.itemsize * width
    raw = np.frombuffer(blob, np.uint8, count=stride * (acc.count - 1) + dtype.itemsize * width, offset=start)
    rows = np.lib.stride_tricks.as_strided(raw, shape=(acc.count, dtype.itemsize * width), strides=(stride, 1))
    values = np.ascontiguousarray(rows).view(dtype).reshape(acc.count, width)
    if not normalized:
        return values
    values = values.astype(np.float64)
    if acc.normalized:
        values /= np.iinfo(dtype).max
    return values


def _local_matrix(node):
    if node.matrix:
        return np.array(node.matrix, np.float64).reshape(4, 4).T  # column-major in the file
    m = np.eye(4)
    x, y, z, w = node.rotation or (0.0, 0.0, 0.0, 1.0)
    r = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    m[:3, :3] = r * np.array(node.scale or (1.0, 1.0, 1.0))[None, :]
    m[:3, 3] = node.translation or (0.0, 0.0, 0.0)
    return m


def world_matrices(gltf):
    """``{node index: 4x4 world matrix}`` of every node of the scene."""
    out = {}

    def walk(i, parent):
        out[i] = parent @ _local_matrix(gltf.nodes[i])
        for c in gltf.nodes[i].children or []:
            walk(c, out[i])

    for i in gltf.scenes[gltf.scene or 0].nodes:
        walk(i, np.eye(4))
    return out


def glb_triangles(gltf, blob, node, matrix):
    """The triangles ``(T, 3, 3)`` of a glTF node's mesh in world space (``matrix``: its world matrix)."""
    tris = []
    for prim in gltf.meshes[gltf.nodes[node].mesh].primitives:
        assert prim.mode in (None, 4)  # triangles
        pos = accessor(gltf, blob, prim.attributes.POSITION).astype(np.float64)
        pos = pos @ matrix[:3, :3].T + matrix[:3, 3]
        tris.append(pos[accessor(gltf, blob, prim.indices).astype(np.int64).reshape(-1, 3)])
    return np.concatenate(tris)
