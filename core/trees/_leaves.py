"""Foliage: leaf cards (the turtle's ``~``) and polygons (``{ . }``) as flat, single-sided triangles.

A leaf card lies in the plane of its heading H and its across direction
``A = H x U``, facing its up U: a point ``(u, v)`` of the shape's outline
(texture space, ``u`` across with the axis at 0.5, ``v`` from base to tip)
sits at ``position + (u - 0.5) * width * A + v * size * H``.  Since
``A x H = U``, outlines counter-clockwise in ``(u, v)`` face U.

Polygons are fanned from their first vertex (ABOP's leaves are convex or
star-shaped around their base), face their Newell normal and get UVs from
their own plane, fitted into the unit square.  Public through
:mod:`.tree_mesh`.
"""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import exact

#: Outline (u, v) of each leaf shape, counter-clockwise, and its triangles.
SHAPES = {
    # base, right (two points), tip, left (two points)
    "leaf": (
        np.array([[0.5, 0.0], [1.0, 0.3], [0.8, 0.7], [0.5, 1.0], [0.2, 0.7], [0.0, 0.3]]),
        np.array([[0, 1, 5], [1, 4, 5], [1, 2, 4], [2, 3, 4]]),
    ),
    "card": (np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]), np.array([[0, 1, 2], [0, 2, 3]])),
    "diamond": (np.array([[0.5, 0.0], [1.0, 0.5], [0.5, 1.0], [0.0, 0.5]]), np.array([[0, 1, 2], [0, 2, 3]])),
}


def _unit(a: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    n = np.sqrt(exact.dot_rows(a, a))
    return a / np.maximum(n, 1e-300)[:, None], n


def kept(keys: npt.NDArray[np.float64], keep: float) -> npt.NDArray[np.intp]:
    """Indices (ascending) of the ``round(keep * n)`` smallest ``keys``.

    With the same keys, a smaller ``keep`` keeps a subset of what a larger one
    keeps, so LODs thin the same foliage rather than picking new leaves.
    """
    n = keys.shape[0]
    k = min(n, int(math.floor(keep * n + 0.5)))
    if k == n:
        return np.arange(n)
    return np.sort(np.argsort(keys, kind="stable")[:k])


def card_frames(
    headings: npt.NDArray[np.float64],
    ups: npt.NDArray[np.float64],
    sizes: npt.NDArray[np.float64],
    *,
    leaf_width: float,
    tiny: float,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Unit H, U (made orthogonal to H) and A = H x U of each card, and which cards are drawable."""
    h, hn = _unit(headings)
    up = ups - exact.dot_rows(ups, h)[:, None] * h
    up, un = _unit(up)
    ok = (hn > 1e-9) & (un > 1e-9) & (sizes * min(1.0, leaf_width) > tiny)
    return h, up, np.cross(h, up), ok


def card_counts(n: int, shape: str) -> tuple[int, int]:
    """``(vertices, triangles)`` of ``n`` cards of ``shape``."""
    outline, tris = SHAPES[shape]
    return n * outline.shape[0], n * tris.shape[0]


def card_arrays(
    positions: npt.NDArray[np.float64],
    h: npt.NDArray[np.float64],
    up: npt.NDArray[np.float64],
    across: npt.NDArray[np.float64],
    sizes: npt.NDArray[np.float64],
    *,
    shape: str,
    leaf_width: float,
    out: tuple[
        npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.unsignedinteger[Any]]
    ],
    offset: int = 0,
) -> None:
    """Write the vertices, normals, UVs and triangles of cards (frames from `card_frames`).

    ``out`` holds (vertices, normals, uvs, triangles) arrays of exactly
    `card_counts` rows; triangle indices get ``offset`` added.
    """
    vertices, normals, uvs, triangles = out
    outline, tris = SHAPES[shape]
    n, k = positions.shape[0], outline.shape[0]
    x = (outline[:, 0] - 0.5) * leaf_width
    y = outline[:, 1]
    vertices.reshape(n, k, 3)[...] = positions[:, None, :] + sizes[:, None, None] * (
        x[None, :, None] * across[:, None, :] + y[None, :, None] * h[:, None, :]
    )  # float64, rounded once
    normals.reshape(n, k, 3)[...] = up[:, None, :]
    uvs.reshape(n, k, 2)[...] = outline[None]
    np.add(
        (np.arange(n) * k + offset)[:, None, None],
        tris[None],
        casting="unsafe",
        out=triangles.reshape(n, tris.shape[0], 3),
    )


@dataclass(frozen=True, slots=True, eq=False)
class PolygonPlan:
    """Triangulated polygons of a skeleton, before the ``keep_leaves`` subset.

    vertices, normals : (V, 3) float64; uvs : (V, 2) float64;
    triangles : (T, 3) int64 into vertices; vertex_polygon : (V,) int64 and
    triangle_polygon : (T,) int64, the polygon (index into the skeleton's
    tuple) of each; base : (P, 3) float64, each polygon's first vertex (the
    centre of ``keep_leaves`` scaling); triangle_count : (P,) int64, 0 for a
    dropped polygon; vertex_count : (P,) int64, likewise.
    """

    vertices: npt.NDArray[np.float64]
    normals: npt.NDArray[np.float64]
    uvs: npt.NDArray[np.float64]
    triangles: npt.NDArray[np.int64]
    vertex_polygon: npt.NDArray[np.int64]
    triangle_polygon: npt.NDArray[np.int64]
    base: npt.NDArray[np.float64]
    triangle_count: npt.NDArray[np.int64]
    vertex_count: npt.NDArray[np.int64]


def _no_polygons(n_poly: int) -> PolygonPlan:
    z3, zi = np.zeros((0, 3)), np.zeros(0, np.int64)
    return PolygonPlan(
        z3,
        z3,
        np.zeros((0, 2)),
        np.zeros((0, 3), np.int64),
        zi,
        zi,
        np.zeros((n_poly, 3)),
        np.zeros(n_poly, np.int64),
        np.zeros(n_poly, np.int64),
    )


def polygon_plan(
    vertices: npt.NDArray[np.float64], counts: npt.NDArray[np.integer[Any]], *, tiny: float
) -> PolygonPlan:
    """Fan-triangulate polygons: (sum(counts), 3) float64 ``vertices``, ``counts[i]`` of them for polygon ``i``.

    Repeated consecutive vertices (closer than ``tiny``) and a last vertex
    equal to the first are dropped, then polygons with fewer than 3 vertices
    or a vector area below ``tiny**2``, and fan triangles with an area below
    ``tiny**2`` (collinear vertices).
    """
    n_poly = counts.shape[0]
    if vertices.shape[0] == 0:
        return _no_polygons(n_poly)
    v = vertices
    pid = np.repeat(np.arange(n_poly), counts)
    first = np.r_[True, pid[1:] != pid[:-1]]
    last = np.r_[first[1:], True]
    step = np.full(v.shape[0], np.inf)
    step[1:] = np.linalg.norm(v[1:] - v[:-1], axis=1)
    step[first] = np.inf
    start_of = np.flatnonzero(first)[np.cumsum(first) - 1]
    closing = np.linalg.norm(v - v[start_of], axis=1)
    keep = (step > tiny) & ~(last & ~first & (closing <= tiny))
    counts = np.bincount(pid[keep], minlength=n_poly)
    keep &= counts[pid] >= 3
    v, pid = v[keep], pid[keep]
    counts = np.bincount(pid, minlength=n_poly)
    poly = np.flatnonzero(counts >= 3)  # polygons left, ascending
    if poly.size == 0:
        return _no_polygons(n_poly)
    k = counts[poly]
    start = np.r_[0, np.cumsum(k)[:-1]]
    local = np.repeat(np.arange(poly.size), k)  # compact polygon of each vertex
    nxt = np.arange(v.shape[0]) + 1
    nxt[start + k - 1] = start
    rel = v - v[start][local]
    area = np.add.reduceat(np.cross(rel, rel[nxt]), start) / 2
    normal, size = _unit(area)

    # fan (start, start + i, start + i + 1), i = 1 .. k - 2
    nt = k - 2
    tri_local = np.repeat(np.arange(poly.size), nt)
    i = np.arange(nt.sum()) - np.repeat(np.cumsum(nt) - nt, nt) + 1
    s0 = start[tri_local]
    tris = np.stack([s0, s0 + i, s0 + i + 1], axis=1)
    c = np.cross(v[tris[:, 1]] - v[tris[:, 0]], v[tris[:, 2]] - v[tris[:, 0]])
    good = (np.linalg.norm(c, axis=1) / 2 > tiny * tiny) & (size[tri_local] > tiny * tiny)
    tris, tri_local = tris[good], tri_local[good]

    # UVs in the polygon's plane: v from the base toward the centroid, u across; fitted into [0, 1]^2
    centroid = np.add.reduceat(rel, start) / k[:, None]
    along = centroid - exact.dot_rows(centroid, normal)[:, None] * normal
    along, length = _unit(along)
    weak = length <= tiny
    if weak.any():
        e = rel[start + 1][weak]
        e -= exact.dot_rows(e, normal[weak])[:, None] * normal[weak]
        along[weak] = _unit(e)[0]
    across = np.cross(along, normal)  # across x along = normal: not mirrored from the front
    x = exact.dot_rows(rel, across[local])
    y = exact.dot_rows(rel, along[local])
    lo = np.column_stack([np.minimum.reduceat(x, start), np.minimum.reduceat(y, start)])
    hi = np.column_stack([np.maximum.reduceat(x, start), np.maximum.reduceat(y, start)])
    extent = hi - lo
    scale = np.maximum(extent.max(axis=1), 1e-300)
    pad = (1.0 - extent / scale[:, None]) / 2
    uvs = (np.column_stack([x, y]) - lo[local]) / scale[local][:, None] + pad[local]
    uvs = np.clip(uvs, 0.0, 1.0)

    # drop vertices no triangle uses
    used = np.zeros(v.shape[0], bool)
    used[tris.ravel()] = True
    remap = np.cumsum(used) - 1
    triangle_count = np.zeros(n_poly, np.int64)
    triangle_count[poly] = np.bincount(tri_local, minlength=poly.size)
    base = np.zeros((n_poly, 3))
    base[poly] = v[start]
    vertex_polygon = poly[local][used]
    return PolygonPlan(
        vertices=v[used],
        normals=normal[local][used],
        uvs=uvs[used],
        triangles=remap[tris],
        vertex_polygon=vertex_polygon,
        triangle_polygon=poly[tri_local],
        base=base,
        triangle_count=triangle_count,
        vertex_count=np.bincount(vertex_polygon, minlength=n_poly),
    )


def polygon_counts(plan: PolygonPlan, chosen: npt.NDArray[np.integer[Any]]) -> tuple[int, int]:
    """``(vertices, triangles)`` of the ``chosen`` polygons (indices)."""
    return int(plan.vertex_count[chosen].sum()), int(plan.triangle_count[chosen].sum())


def polygon_arrays(
    plan: PolygonPlan,
    chosen: npt.NDArray[np.integer[Any]],
    scale: float,
    *,
    out: tuple[
        npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.unsignedinteger[Any]]
    ],
    offset: int = 0,
) -> None:
    """Write the ``chosen`` polygons (indices), scaled about their bases, into ``out`` (as `card_arrays`)."""
    vertices, normals, uvs, triangles = out
    take = np.zeros(plan.base.shape[0], bool)
    take[chosen] = True
    vsel = take[plan.vertex_polygon]
    remap = np.cumsum(vsel) - 1 + offset
    points = plan.vertices[vsel]
    if scale != 1.0:
        base = plan.base[plan.vertex_polygon[vsel]]
        points = base + (points - base) * scale
    vertices[...] = points
    normals[...] = plan.normals[vsel]
    uvs[...] = plan.uvs[vsel]
    triangles[...] = remap[plan.triangles[take[plan.triangle_polygon]]]
