"""The roads' files and meshes: ``<name>_roads.json``, road ribbons and bridge decks.

``<name>_roads.json`` (format ``worldseed.roads``, version 1)::

    {"format": "worldseed.roads", "version": 1, "name": "Valley", "cell_size": 2.0,
     "classes": {"road": {"width": 6.0, "max_grade": 0.1}, ...},
     "nodes": [{"id": 0, "position": [x, y, z], "kind": "point", "point": 0}, ...],
     "edges": [{"id": 0, "a": 0, "b": 3, "class": "road", "points": [[x, y, z], ...],
                "bridges": [[12, 30]]}, ...]}

Positions are Unity's frame (``(-x, z, -y)`` of Blender's metres), ``z`` the road surface (the
ground after cut and fill, or a bridge deck).  A node's ``kind`` is ``"point"`` (one of the points
joined, ``point`` its index) or ``"junction"`` (where roads meet or part).  An edge's ``points`` run
from node ``a`` to node ``b``; ``bridges`` lists the index ranges (inclusive) of its points that
are bridge spans.  A tiled world's tile file (``box``) holds the parts of the edges inside the tile
(cut at the sides where both tiles compute the same point) with the world's ids, and the nodes
inside it; a cut edge's ``a``/``b`` still name the world's nodes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._polyline import DIGITS, Piece, clip_polyline, join_meshes, owned, ribbon, to_blender, unity_rows
from ..mesh import IndexedMesh, index_dtype, vertex_normals
from ._network import RoadEdge, RoadNetwork

__all__ = [
    "roads_json",
    "roads_json_bytes",
    "road_mesh",
    "road_lines",
    "bridge_spans",
    "bridge_mesh",
    "FORMAT",
    "VERSION",
    "LIFT",
    "DECK",
]

FORMAT = "worldseed.roads"
VERSION = 1
#: Height of the road ribbon above the ground it lies on (metres), against z-fighting.
LIFT = 0.03
#: Thickness of a bridge deck (metres).
DECK = 0.8


def _r(value: float) -> float:
    return round(float(value), DIGITS) + 0.0


def _pieces(
    edge: RoadEdge, box: tuple[int, int, int, int] | None, extra: Sequence[npt.NDArray[np.float64]] = ()
) -> list[Piece]:
    values = np.stack([edge.z, edge.bridge.astype(np.float64), np.arange(edge.rows.size, dtype=np.float64), *extra], 1)
    if box is None:
        return [(edge.rows, edge.cols, values, 0)]
    return clip_polyline(edge.rows, edge.cols, values, box)


def _spans(flags: npt.NDArray[np.bool_]) -> list[list[int]]:
    b = np.concatenate([[False], flags, [False]])
    marks = np.flatnonzero(b[1:] != b[:-1])
    return [[int(s), int(e) - 1] for s, e in zip(marks[0::2], marks[1::2])]


def roads_json(
    network: RoadNetwork,
    *,
    name: str,
    origin: tuple[float, float],
    box: tuple[int, int, int, int] | None = None,
    lift: float = 0.0,
) -> dict[str, Any]:
    """The ``<name>_roads.json`` document (a dict) of ``network``; ``origin``: Blender ``(x0, y0)``
    of the planned grid's cell (0, 0); ``box``: a tile's ``(row0, col0, row1, col1)`` (None: all);
    ``lift``: Blender metres added to every height (where the terrain object stands in z)."""
    if not isinstance(network, RoadNetwork):
        raise TypeError(f"network must be a RoadNetwork, got {type(network).__name__}")
    cell = network.cell_size
    classes = {
        c.name: {"width": _r(c.width), "max_grade": _r(c.max_grade)}
        for c in sorted(network.classes.values(), key=lambda c: c.name)
    }
    nodes = []
    for n, (r, c) in enumerate(network.nodes.tolist()):
        if box is not None and not (box[0] <= r <= box[2] and box[1] <= c <= box[3]):
            continue
        x, y = to_blender(r, c, cell_size=cell, origin=origin)
        record = {
            "id": n,
            "position": unity_rows([x], [y], [network.node_z[n] + lift])[0],
            "kind": network.node_kind[n],
        }
        if network.node_point[n] >= 0:
            record["point"] = int(network.node_point[n])
        nodes.append(record)
    edges = []
    for e, edge in enumerate(network.edges):
        for qr, qc, qv, _ in _pieces(edge, box):
            x, y = to_blender(qr, qc, cell_size=cell, origin=origin)
            # a bridge point of the original is a bridge point here; a cut inside a span is too
            flags = qv[:, 1] > 0.5 if box is None else _bridge_flags(edge, qv[:, 2])
            edges.append(
                {
                    "id": e,
                    "a": int(edge.a),
                    "b": int(edge.b),
                    "class": edge.road_class,
                    "points": unity_rows(x, y, qv[:, 0] + lift),
                    "bridges": _spans(flags),
                }
            )
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": name,
        "cell_size": cell,
        "classes": classes,
        "nodes": nodes,
        "edges": edges,
    }


def _bridge_flags(edge: RoadEdge, index: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """Bridge flag of clipped points (``index``: fractional position along the edge's points): on a
    bridge when both original points around it are."""
    lo = np.floor(index).astype(np.int64)
    hi = np.minimum(lo + 1, edge.rows.size - 1)
    return edge.bridge[lo] & edge.bridge[hi] | ((index == lo) & edge.bridge[lo])


def roads_json_bytes(
    network: RoadNetwork,
    *,
    name: str,
    origin: tuple[float, float],
    box: tuple[int, int, int, int] | None = None,
    lift: float = 0.0,
) -> bytes:
    """:func:`roads_json` as the file's bytes (UTF-8, one line per node and edge, sorted keys)."""
    doc = roads_json(network, name=name, origin=origin, box=box, lift=lift)
    head = {k: v for k, v in doc.items() if k not in ("nodes", "edges")}
    lines = ["{" + json.dumps(head, sort_keys=True)[1:-1] + ","]
    for key in ("nodes", "edges"):
        items = [json.dumps(item, sort_keys=True, separators=(",", ":")) for item in doc[key]]
        body = ",\n  ".join(items)
        lines.append(f' "{key}": [' + ("\n  " + body + "\n " if items else "") + "]" + ("," if key == "nodes" else ""))
    lines.append("}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _class_index(network: RoadNetwork) -> dict[str, int]:
    return {name: i for i, name in enumerate(sorted(network.classes))}


def road_mesh(
    network: RoadNetwork,
    *,
    origin: tuple[float, float],
    mesh_origin: tuple[float, float, float] = (0.0, 0.0, 0.0),
    box: tuple[int, int, int, int] | None = None,
) -> IndexedMesh | None:
    """Road ribbons (every edge, bridges included: the deck's top) as one
    :class:`~core.mesh.IndexedMesh` in Blender metres minus ``mesh_origin``: ``LIFT`` above the
    road surface, UV ``u`` across (0..1) and ``v`` along (in road widths), one material per class
    (classes in name order); None without roads."""
    cell = network.cell_size
    index = _class_index(network)
    meshes = []
    for edge in network.edges:
        half = 0.5 * network.classes[edge.road_class].width
        for qr, qc, qv, _ in _pieces(edge, box):
            if len(qr) < 2:
                continue
            x, y = to_blender(qr, qc, cell_size=cell, origin=origin)
            meshes.append(ribbon(x, y, qv[:, 0] + LIFT, half, material=index[edge.road_class]))
    return join_meshes(meshes, origin=mesh_origin)


def road_lines(
    network: RoadNetwork,
    *,
    origin: tuple[float, float],
    mesh_origin: tuple[float, float, float] = (0.0, 0.0, 0.0),
    box: tuple[int, int, int, int] | None = None,
) -> list[npt.NDArray[np.float64]]:
    """The roads' centre lines: ``(m, 3)`` float64 arrays of Blender ``(x, y, z)`` metres minus
    ``mesh_origin`` at the road surface, one per edge in the edges' order, or (``box``, a tiled
    world's tile ``(row0, col0, row1, col1)`` in the planned grid) one per piece of an edge inside
    the tile, cut where it crosses the tile's sides (``core._polyline.clip_polyline``: the crossing
    point and its height interpolated from the two points around it, so the pieces of two tiles
    sharing a side end at the very same point).

    >>> edge = RoadEdge(a=0, b=1, rows=np.array([2.0, 2.0]), cols=np.array([0.0, 8.0]), z=np.array([1.0, 3.0]),
    ...                 bridge=np.zeros(2, bool), road_class="road")
    >>> net = RoadNetwork(shape=(5, 9), cell_size=2.0, nodes=np.array([[2.0, 0.0], [2.0, 8.0]]),
    ...                   node_z=np.array([1.0, 3.0]), node_kind=("point", "point"), node_point=np.array([0, 1]),
    ...                   edges=(edge,), classes={}, carve={})
    >>> [p.tolist() for p in road_lines(net, origin=(0.0, 0.0), box=(0, 0, 4, 4))]
    [[[0.0, 4.0, 1.0], [8.0, 4.0, 2.0]]]
    >>> [p.tolist() for p in road_lines(net, origin=(0.0, 0.0), box=(0, 4, 4, 8))]
    [[[8.0, 4.0, 2.0], [16.0, 4.0, 3.0]]]
    """
    cell = network.cell_size
    out = []
    for edge in network.edges:
        for qr, qc, qv, _ in _pieces(edge, box):
            x, y = to_blender(qr, qc, cell_size=cell, origin=origin)
            p = np.stack([x, y, qv[:, 0]], 1) - np.asarray(mesh_origin, np.float64)[None, :]
            out.append(p)
    return out


def bridge_spans(network: RoadNetwork, box: tuple[int, int, int, int] | None = None) -> list[tuple[int, int, int]]:
    """``[(edge index, start, end), ...]``: the bridge spans (inclusive index ranges of an edge's
    points, at least two points) of the whole network, or those a tiled world's tile ``box`` owns.

    A deck is whole in one tile, never cut at a seam as the road ribbons are: a bridge is one rigid
    piece (one object and collider in Unity, swapped for a bridge prefab as a whole), and a tile's
    decks then number the bridges it owns, so the tiles together hold each bridge of the plan
    exactly once.  The owner is the tile holding the midpoint of the span's chord (its first and
    last points), seams going to one side only (``core._polyline.owned``); a deck may reach past
    its tile's side by up to half its length, above the neighbour's ribbon (the deck's top)."""
    spans = [(e, a, b) for e, edge in enumerate(network.edges) for a, b in edge.spans() if b > a]
    if box is None or not spans:
        return spans
    edges = network.edges
    mid_r = [0.5 * (edges[e].rows[a] + edges[e].rows[b]) for e, a, b in spans]
    mid_c = [0.5 * (edges[e].cols[a] + edges[e].cols[b]) for e, a, b in spans]
    mine = owned(mid_r, mid_c, box, network.shape)
    return [s for s, keep in zip(spans, mine.tolist()) if keep]


def bridge_mesh(
    network: RoadNetwork,
    *,
    origin: tuple[float, float],
    mesh_origin: tuple[float, float, float] = (0.0, 0.0, 0.0),
    box: tuple[int, int, int, int] | None = None,
) -> IndexedMesh | None:
    """Bridge decks: under every bridge span a slab ``DECK`` metres thick (its sides and its
    underside; the top is the road ribbon), material 0; None without bridges.  ``box`` (a tiled
    world's tile): the decks the tile owns, each whole (:func:`bridge_spans`)."""
    cell = network.cell_size
    meshes = []
    for e, a, b in bridge_spans(network, box):
        edge = network.edges[e]
        half = 0.5 * network.classes[edge.road_class].width + 0.3
        sl = slice(a, b + 1)
        x, y = to_blender(edge.rows[sl], edge.cols[sl], cell_size=cell, origin=origin)
        z = edge.z[sl]
        top = ribbon(x, y, z, half)
        low = ribbon(x, y, z - DECK, half)
        meshes.append(_slab(top, low))
    return join_meshes(meshes, origin=mesh_origin)


def _slab(top: IndexedMesh, low: IndexedMesh) -> IndexedMesh:
    """Sides and underside between two ribbons of the same points (left, right alternating)."""
    m = top.n_vertices // 2
    verts = np.concatenate([top.vertices, low.vertices]).astype(np.float64)
    i = np.arange(m - 1) * 2
    n = top.n_vertices
    tris = []
    # left side (even vertices): top_i, low_i+1, low_i / top_i, top_i+1, low_i+1 (faces outwards)
    tris += [np.stack([i, n + i, n + i + 2], 1), np.stack([i, n + i + 2, i + 2], 1)]
    # right side (odd vertices)
    tris += [np.stack([i + 1, i + 3, n + i + 3], 1), np.stack([i + 1, n + i + 3, n + i + 1], 1)]
    # underside: reversed winding of the low ribbon (faces down)
    tris += [low.indices.astype(np.int64)[:, ::-1] + n]
    tris = np.concatenate(tris)
    uvs = np.concatenate([top.uvs, low.uvs])
    normals = vertex_normals(verts, tris)
    return IndexedMesh(
        verts.astype(np.float32),
        tris.astype(index_dtype(len(verts))),
        uvs.astype(np.float32),
        normals,
        np.zeros(len(tris), np.uint8),
    )
