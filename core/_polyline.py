"""Polylines on a heightmap grid, shared by the network families (rivers, roads): grid positions to
Blender and Unity metres, clipping to a tile, ribbons and flat patches as meshes, JSON numbers.

Positions are ``(row, col)`` in cells of a planned grid (a terrain, or a tiled world's whole grid);
the grid's cell ``(0, 0)`` sits at Blender ``origin = (x0, y0)`` metres, columns along +X and rows
along +Y, so a point is at ``(x0 + col * cell, y0 + row * cell)``: every tile computes the same
metres for the same cell.  Unity's frame is ``(-x, z, -y)`` (``core.unity.unity_position``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias, cast

import numpy as np
import numpy.typing as npt

from .mesh import IndexedMesh, index_dtype, vertex_normals

__all__ = [
    "grid_origin",
    "to_blender",
    "unity_rows",
    "clip_polyline",
    "owned",
    "ribbon",
    "cell_patches",
    "join_meshes",
    "bilinear",
    "DIGITS",
]

#: Decimals of the metres written to the JSON files (a tenth of a millimetre).
DIGITS = 4
#: A piece of :func:`clip_polyline`: ``(rows, cols, values (m, k), first_index)``.
Piece: TypeAlias = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], int]
#: A piece while it grows: the same as lists of points.
_Growing: TypeAlias = tuple[list[float], list[float], list[npt.NDArray[np.float64]], int]


def grid_origin(
    shape: tuple[int, ...], cell_size: float, centre: tuple[float, float] = (0.0, 0.0)
) -> tuple[float, float]:
    """Blender ``(x0, y0)`` of cell (0, 0) of a grid of ``shape`` centred on ``centre`` (as
    ``core.mesh.grid_mesh`` places a terrain).

    >>> grid_origin((5, 5), 2.0)
    (-4.0, -4.0)
    """
    rows, cols = shape
    return (float(centre[0]) - 0.5 * (cols - 1) * cell_size, float(centre[1]) - 0.5 * (rows - 1) * cell_size)


def to_blender(
    rows: npt.ArrayLike, cols: npt.ArrayLike, *, cell_size: float, origin: tuple[float, float]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Blender ``(x, y)`` float64 arrays of grid positions."""
    x = np.asarray(cols, np.float64) * cell_size + origin[0]
    y = np.asarray(rows, np.float64) * cell_size + origin[1]
    return x, y


def unity_rows(x: npt.ArrayLike, y: npt.ArrayLike, z: npt.ArrayLike) -> list[list[float]]:
    """``[[ux, uy, uz], ...]`` lists of Unity positions ``(-x, z, -y)``, rounded to :data:`DIGITS`
    (no ``-0.0``)."""
    p = np.stack([-np.asarray(x, np.float64), np.asarray(z, np.float64), -np.asarray(y, np.float64)], axis=1)
    return (np.round(p, DIGITS) + 0.0).tolist()


def clip_polyline(
    rows: npt.ArrayLike, cols: npt.ArrayLike, values: npt.ArrayLike, box: tuple[int, int, int, int]
) -> list[Piece]:
    """Pieces of a polyline inside ``box = (row0, col0, row1, col1)`` (closed), with the points
    where it crosses the box's sides added.

    ``values`` (m, k) are interpolated linearly at the crossings (heights, widths ...).  A crossing
    is computed from the two points around it in the polyline's own order, so two tiles sharing a
    side get the very same crossing point (bit for bit).  Returns a list of ``(rows, cols,
    values, first_index)`` with ``first_index`` the index of the first original point in the piece
    (or of the point after a crossing).

    >>> pieces = clip_polyline(np.array([0.0, 0.0, 0.0]), np.array([0.0, 2.0, 4.0]), np.zeros((3, 1)), (0, 0, 1, 3))
    >>> [(p[1].tolist()) for p in pieces]
    [[0.0, 2.0, 3.0]]
    """
    r = np.asarray(rows, np.float64)
    c = np.asarray(cols, np.float64)
    v = np.asarray(values, np.float64).reshape(len(r), -1)
    r0, c0, r1, c1 = (float(b) for b in box)
    inside = (r >= r0) & (r <= r1) & (c >= c0) & (c <= c1)
    pieces: list[_Growing] = []
    cur: _Growing | None = None
    for i in range(len(r)):
        if inside[i]:
            if cur is None:
                cur = ([], [], [], i)
                if i > 0:
                    _cross(cur, r, c, v, i - 1, i, (r0, c0, r1, c1))
            cur[0].append(r[i])
            cur[1].append(c[i])
            cur[2].append(v[i])
        else:
            if cur is not None:
                _cross(cur, r, c, v, i - 1, i, (r0, c0, r1, c1))
                pieces.append(cur)
                cur = None
            elif i > 0:
                # a piece between two outside points that cuts a corner of the box
                tmp: _Growing = ([], [], [], i)
                _cross(tmp, r, c, v, i - 1, i, (r0, c0, r1, c1), both=True)
                if len(tmp[0]) == 2:
                    pieces.append(tmp)
    if cur is not None:
        pieces.append(cur)
    out: list[Piece] = []
    for pr, pc, pv, first in pieces:
        if len(pr) >= 2:
            out.append((np.array(pr), np.array(pc), np.array(pv).reshape(len(pr), -1), first))
    return out


def owned(
    rows: npt.ArrayLike, cols: npt.ArrayLike, box: tuple[int, int, int, int], shape: tuple[int, int]
) -> npt.NDArray[np.bool_]:
    """Whether points ``(rows, cols)`` belong to the tile ``box = (row0, col0, row1, col1)`` of a
    grid of ``shape``: its half-open box ``[row0, row1) x [col0, col1)``, closed at the grid's last
    row and column, so a point on a seam belongs to exactly one of the tiles sharing it (the one
    after the seam) and every point of the grid to one tile.

    >>> owned([0.0, 4.0, 4.0, 8.0], [2.0, 2.0, 8.0, 8.0], (0, 0, 4, 4), (9, 9)).tolist()
    [True, False, False, False]
    >>> owned([0.0, 4.0, 4.0, 8.0], [2.0, 2.0, 8.0, 8.0], (4, 4, 8, 8), (9, 9)).tolist()
    [False, False, True, True]
    """
    r = np.asarray(rows, np.float64)
    c = np.asarray(cols, np.float64)
    r0, c0, r1, c1 = box
    in_r = (r >= r0) & ((r < r1) | ((r == r1) & (r1 >= shape[0] - 1)))
    in_c = (c >= c0) & ((c < c1) | ((c == c1) & (c1 >= shape[1] - 1)))
    return np.asarray(in_r & in_c, np.bool_)


def _cross(
    piece: _Growing,
    r: npt.NDArray[np.float64],
    c: npt.NDArray[np.float64],
    v: npt.NDArray[np.float64],
    a: int,
    b: int,
    box: tuple[float, float, float, float],
    both: bool = False,
) -> None:
    """Append (or, ``both``, add both) the crossing(s) of the piece a -> b with the box's sides,
    in order along a -> b; parameters from a's side so both tiles compute the same point."""
    r0, c0, r1, c1 = box
    ts = []
    dr, dc = r[b] - r[a], c[b] - c[a]
    for lo, hi, p, d in ((r0, r1, r[a], dr), (c0, c1, c[a], dc)):
        if d != 0.0:
            for edge in (lo, hi):
                t = (edge - p) / d
                if 0.0 <= t <= 1.0:
                    ts.append(t)
    hits = []
    for t in sorted(set(ts)):
        pr, pc = r[a] + t * dr, c[a] + t * dc
        eps = 1e-9
        if r0 - eps <= pr <= r1 + eps and c0 - eps <= pc <= c1 + eps:
            hits.append((min(max(pr, r0), r1), min(max(pc, c0), c1), v[a] + t * (v[b] - v[a])))
    if not hits:
        return
    if both:
        if len(hits) >= 2:
            for hr, hc, hv in (hits[0], hits[-1]):
                piece[0].append(hr)
                piece[1].append(hc)
                piece[2].append(hv)
        return
    # the part of a -> b inside the (convex) box is one stretch: entering, its start is the first hit
    # (a later one is b itself on a side); leaving, its end is the last (an earlier one is a on a side)
    entering = not piece[0]
    hr, hc, hv = hits[0] if entering else hits[-1]
    if entering:
        if (hr, hc) != (r[b], c[b]):
            piece[0].append(hr)
            piece[1].append(hc)
            piece[2].append(hv)
    else:
        if (hr, hc) != (r[a], c[a]):
            piece[0].append(hr)
            piece[1].append(hc)
            piece[2].append(hv)


def _normals_2d(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Unit left normals (m, 2) of a polyline, averaged at its inner points."""
    dx, dy = np.diff(x), np.diff(y)
    length = np.sqrt(dx * dx + dy * dy)
    length[length == 0.0] = 1.0
    tx, ty = dx / length, dy / length
    ax = np.concatenate([tx[:1], tx[:-1] + tx[1:], tx[-1:]])
    ay = np.concatenate([ty[:1], ty[:-1] + ty[1:], ty[-1:]])
    n = np.sqrt(ax * ax + ay * ay)
    n[n == 0.0] = 1.0
    return -ay / n, ax / n


def ribbon(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    z: npt.NDArray[np.float64],
    half_width: npt.ArrayLike,
    *,
    material: int = 0,
    uv_scale: float | None = None,
) -> IndexedMesh:
    """A strip of quads along a polyline: vertices on both sides at ``half_width`` (per point), at
    heights ``z``; UVs ``u`` 0 (left) .. 1 (right), ``v`` the distance along / (2 half width) (a
    square texture repeats once per road width), or / ``uv_scale`` metres.  Returns an
    :class:`~core.mesh.IndexedMesh` (faces up, counter-clockwise from above) in Blender metres.

    >>> m = ribbon(np.array([0.0, 10.0]), np.array([0.0, 0.0]), np.zeros(2), np.full(2, 1.0))
    >>> m.vertices.tolist(), m.uvs[:, 1].tolist()
    ([[0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [10.0, 1.0, 0.0], [10.0, -1.0, 0.0]], [0.0, 0.0, 5.0, 5.0])
    """
    x, y, z = (np.asarray(a, np.float64) for a in (x, y, z))
    hw = np.broadcast_to(np.asarray(half_width, np.float64), x.shape)
    m = x.size
    nx, ny = _normals_2d(x, y)
    verts = np.empty((2 * m, 3))
    verts[0::2, 0], verts[0::2, 1] = x + nx * hw, y + ny * hw
    verts[1::2, 0], verts[1::2, 1] = x - nx * hw, y - ny * hw
    verts[0::2, 2] = verts[1::2, 2] = z
    dx, dy = np.diff(x), np.diff(y)
    seg = np.sqrt(dx * dx + dy * dy)
    along = np.concatenate([[0.0], np.cumsum(seg)])
    scale = uv_scale if uv_scale is not None else 2.0 * float(np.mean(hw)) if m else 1.0
    uvs = np.empty((2 * m, 2))
    uvs[0::2, 0], uvs[1::2, 0] = 0.0, 1.0
    uvs[0::2, 1] = uvs[1::2, 1] = along / max(scale, 1e-9)
    i = np.arange(m - 1) * 2
    # left_i, right_i, right_i+1 and left_i, right_i+1, left_i+1: counter-clockwise seen from above
    tris = np.concatenate([np.stack([i, i + 1, i + 3], 1), np.stack([i, i + 3, i + 2], 1)])
    tris = tris.reshape(2, -1, 3).transpose(1, 0, 2).reshape(-1, 3)
    return _mesh(verts, tris, uvs, material)


def cell_patches(
    rows: npt.ArrayLike,
    cols: npt.ArrayLike,
    z: npt.ArrayLike,
    *,
    cell_size: float,
    origin: tuple[float, float],
    material: int = 0,
) -> IndexedMesh:
    """Flat squares (two triangles each) of side ``cell_size`` centred on grid cells at heights
    ``z`` (a lake's surface), UVs in metres / 10; shared corners are merged per height."""
    r = np.asarray(rows, np.float64)
    c = np.asarray(cols, np.float64)
    z = np.broadcast_to(np.asarray(z, np.float64), r.shape)
    corners = np.array([[-0.5, -0.5], [-0.5, 0.5], [0.5, 0.5], [0.5, -0.5]])
    pr = (r[:, None] + corners[None, :, 0]).reshape(-1)
    pc = (c[:, None] + corners[None, :, 1]).reshape(-1)
    pz = np.repeat(z, 4)
    key = np.stack([pr, pc, pz], 1)
    uniq, inverse = np.unique(key, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    x, y = to_blender(uniq[:, 0], uniq[:, 1], cell_size=cell_size, origin=origin)
    verts = np.stack([x, y, uniq[:, 2]], 1)
    q = inverse.reshape(-1, 4)  # (r-, c-), (r-, c+), (r+, c+), (r+, c-): counter-clockwise from above
    tris = np.concatenate([q[:, [0, 1, 2]], q[:, [0, 2, 3]]]).reshape(2, -1, 3).transpose(1, 0, 2).reshape(-1, 3)
    uvs = np.stack([x, y], 1) / 10.0
    return _mesh(verts, tris, uvs, material)


def _mesh(verts: npt.ArrayLike, tris: npt.ArrayLike, uvs: npt.ArrayLike, material: int) -> IndexedMesh:
    verts = np.asarray(verts, np.float32).reshape(-1, 3)
    tris = np.asarray(tris, np.int64).reshape(-1, 3)
    normals = vertex_normals(verts, tris) if len(tris) else np.tile(np.float32([0, 0, 1]), (len(verts), 1))  # type: ignore[arg-type]  # np.float32 of a list is an array (the stubs take scalars)
    return IndexedMesh(
        verts,
        tris.astype(index_dtype(len(verts))),
        np.asarray(uvs, np.float32).reshape(-1, 2),
        np.asarray(normals, np.float32),
        np.full(len(tris), material, np.uint8),
    )


def join_meshes(meshes: Iterable[IndexedMesh | None], *, origin: npt.ArrayLike = (0.0, 0.0, 0.0)) -> IndexedMesh | None:
    """One :class:`~core.mesh.IndexedMesh` of several (materials kept), vertices minus ``origin``;
    None when there is nothing."""
    meshes = [m for m in meshes if m is not None and m.n_triangles]
    if not meshes:
        return None
    verts, tris, uvs, normals, mats = [], [], [], [], []
    base = 0
    for m in cast("list[IndexedMesh]", meshes):  # None left out above
        verts.append(m.vertices.astype(np.float64) - np.asarray(origin, np.float64))
        tris.append(m.indices.astype(np.int64) + base)
        uvs.append(m.uvs)
        normals.append(m.normals)
        mats.append(m.materials if m.materials is not None else np.zeros(m.n_triangles, np.uint8))
        base += m.n_vertices
    v = np.concatenate(verts).astype(np.float32)
    return IndexedMesh(
        v,
        np.concatenate(tris).astype(index_dtype(len(v))),
        np.concatenate(uvs).astype(np.float32),
        np.concatenate(normals).astype(np.float32),
        np.concatenate(mats).astype(np.uint8),
    )


def bilinear(heights: npt.ArrayLike, rows: npt.ArrayLike, cols: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Heights at fractional cells (bilinear; positions clamped to the grid)."""
    h = np.asarray(heights, np.float64)
    nr, nc = h.shape
    r = np.clip(np.asarray(rows, np.float64), 0.0, nr - 1.0)
    c = np.clip(np.asarray(cols, np.float64), 0.0, nc - 1.0)
    r0 = np.minimum(np.floor(r).astype(np.int64), nr - 2) if nr > 1 else np.zeros(r.shape, np.int64)
    c0 = np.minimum(np.floor(c).astype(np.int64), nc - 2) if nc > 1 else np.zeros(c.shape, np.int64)
    fr, fc = r - r0, c - c0
    r1, c1 = np.minimum(r0 + 1, nr - 1), np.minimum(c0 + 1, nc - 1)
    top = h[r0, c0] * (1.0 - fc) + h[r0, c1] * fc
    bottom = h[r1, c0] * (1.0 - fc) + h[r1, c1] * fc
    return top * (1.0 - fr) + bottom * fr
