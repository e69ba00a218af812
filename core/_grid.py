"""Index maths of a vertex grid: quads, triangles, corner UVs, LOD samples, the index dtype rule,
and which diagonal cuts each quad of a heightmap.

Vertex ``v = row * cols + col``; rows run along +Y, columns along +X, and faces
are counter-clockwise seen from +Z. Public through :mod:`.mesh`.

Every reader cuts a quad into two triangles, and not all along the same diagonal.  ``ufbx``,
and Unity's FBX importer as ufbx aims to match it, cut the shorter 3-D diagonal unless a cut
folds the quad (`quad_split`).  Blender (its viewport, ``mesh.loop_triangles`` and so the glTF
exporter) cuts corner 0 -- corner 2 unless that cut folds the quad, its two triangles' normals
more than 90 degrees apart, and then corner 1 -- corner 3 (``is_quad_flip_v3_first_third_fast``
in Blender's mesh tessellation; checked on Blender 5.0 in ``tests/blender/test_gltf_ground.py``).
Which diagonal Blender cuts thus depends on which corner a quad starts at, and the FBX readers'
does not (but on a tie of lengths, where they take corner 0 -- corner 2).  `grid_turns` says
which quads of a heightmap must start one corner later for Blender to cut the diagonal
`quad_split` picks, and ``turn=`` in `grid_faces`, `grid_corner_uvs` and ``grid_topology`` (or
`turn_quads` on arrays already made) starts them there: then every reader draws the same
triangles, the ones the scatter places props on.
"""

from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ._checks import MAX_CELLS, check_int
from .errors import ParameterError

#: Most vertices a mesh may have and still use uint16 indices (Unity's 16-bit index format limit).
UINT16_MAX_VERTICES = 65_535
#: Vertices per side of a heightmap grid.
GRID_SIDE = (2, 8193)

ScalarT = TypeVar("ScalarT", bound=np.generic)
IntT = TypeVar("IntT", bound=np.integer[Any])


def index_dtype(n_vertices: int) -> np.dtype[np.unsignedinteger[Any]]:
    """Index dtype for a mesh of ``n_vertices``: uint16 up to 65,535 vertices, else uint32.

    Parameters
    ----------
    n_vertices : int
        Vertex count, within ``[0, 2**32]``.

    Returns
    -------
    dtype : numpy.dtype
        ``uint16`` while ``n_vertices <= UINT16_MAX_VERTICES`` (65,535), ``uint32`` beyond.

    Examples
    --------
    >>> index_dtype(65_535), index_dtype(65_536)
    (dtype('uint16'), dtype('uint32'))
    """
    n = check_int(n_vertices, name="n_vertices", bounds=(0, 2**32))
    return np.dtype(np.uint16) if n <= UINT16_MAX_VERTICES else np.dtype(np.uint32)


def check_grid_size(rows: int, cols: int) -> tuple[int, int]:
    rows = check_int(rows, name="rows", bounds=GRID_SIDE)
    cols = check_int(cols, name="cols", bounds=GRID_SIDE)
    if rows * cols > MAX_CELLS:
        raise ParameterError(
            f"rows x cols = {rows} x {cols} has {rows * cols:,} vertices, "
            f"more than the {MAX_CELLS:,} allowed (it would exhaust memory)"
        )
    return rows, cols


def _quad_origins(rows: int, cols: int, dtype: np.dtype[IntT]) -> npt.NDArray[IntT]:
    """Lower-left vertex ``row * cols + col`` of every quad, row-major, in ``dtype``."""
    r = np.arange(rows - 1, dtype=dtype) * dtype.type(cols)
    c = np.arange(cols - 1, dtype=dtype)
    return (r[:, None] + c[None, :]).ravel()


def grid_corners(rows: int, cols: int, pattern: Sequence[int], dtype: np.dtype[IntT]) -> npt.NDArray[IntT]:
    """``origin + pattern`` for every quad: ``(Q, len(pattern))`` in ``dtype``, one allocation."""
    tile = np.array(pattern, dtype=dtype)
    return _quad_origins(rows, cols, dtype)[:, None] + tile[None, :]


def quad_split(
    z0: npt.ArrayLike,
    z1: npt.ArrayLike,
    z2: npt.ArrayLike,
    z3: npt.ArrayLike,
    cell: npt.ArrayLike,
    *,
    cell_y: npt.ArrayLike | None = None,
) -> npt.NDArray[np.bool_]:
    """Which diagonal cuts heightmap quads, from their corner heights: True for ``v0 -- v2``.

    Parameters
    ----------
    z0, z1, z2, z3 : array_like of float
        Heights of the corners ``v0 v1 v2 v3`` of each quad: vertices ``[i, j], [i, j + 1],
        [i + 1, j + 1], [i + 1, j]`` of cell ``(i, j)`` (`grid_faces`' order, counter-clockwise
        seen from +Z).  Any shapes that broadcast together.
    cell : float or array_like of float
        The quads' side along X (``v0 -> v1``), positive; broadcasts to the heights' shape.
    cell_y : float or array_like of float, optional
        Their side along Y (``v1 -> v2``); ``cell`` when not given (square cells).

    Returns
    -------
    split : ndarray of bool
        The broadcast shape of the inputs: True where the cut is ``v0 -- v2``, False where it
        is ``v1 -- v3``.

    Notes
    -----
    The rule of ``ufbx_triangulate_face`` for quads (ufbx aims to cut as Autodesk's FBX SDK,
    and so Unity's importer, does)::

        v3 ---- v2      the shorter 3-D diagonal, v0 -- v2 on a tie; but if either cut
        |        |      folds the quad (the normals of its two triangles more than 90
        |        |      degrees apart), the cut whose triangles' normals agree more
        v0 ---- v1

    Both diagonals span the same ``(cell, cell_y)`` across, so their lengths compare as the
    squared rises ``(z2 - z0)**2 <= (z3 - z1)**2``.  With the edges' rises ``b = z1 - z0``,
    ``t = z2 - z3`` (along X) and ``l = z3 - z0``, ``r = z2 - z1`` (along Y), each triangle's
    upward normal is ``(-dz/dx, -dz/dy, 1)`` of its two edges, and the dot product of the two
    normals of either cut is the same, ``1 + b t / cell**2 + l r / cell_y**2``: both cuts fold
    or neither does.  Where they fold, the cut with the larger cosine is the one with the
    larger product of normal lengths, which works out as ``(b**2 - t**2) (l**2 - r**2) >= 0``
    for ``v0 -- v2``.  No square root, no division: a few float64 operations per quad.  Lengths
    and angles do not change under the exporters' axis conversions, so the choice is the same
    in Unity's frame.

    Examples
    --------
    >>> quad_split([0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 0.0], 1.0).tolist()  # v2, then v1 raised
    [False, True]
    """
    return _cut_and_fold(z0, z1, z2, z3, cell, cell_y)[0]


def _cut_and_fold(
    z0: npt.ArrayLike,
    z1: npt.ArrayLike,
    z2: npt.ArrayLike,
    z3: npt.ArrayLike,
    cell: npt.ArrayLike,
    cell_y: npt.ArrayLike | None,
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """`quad_split`, and where its cuts fold the quad (both do, or neither)."""
    z0, z1, z2, z3 = np.broadcast_arrays(*(np.asarray(z, dtype=np.float64) for z in (z0, z1, z2, z3)))
    return _cut_and_fold_edges(z1 - z0, z2 - z3, z3 - z0, z2 - z1, cell, cell_y)


def _cut_and_fold_edges(
    bottom: npt.NDArray[np.float64],
    top: npt.NDArray[np.float64],
    left: npt.NDArray[np.float64],
    right: npt.NDArray[np.float64],
    cell: npt.ArrayLike,
    cell_y: npt.ArrayLike | None,
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """`_cut_and_fold` from the rises of the quads' edges: ``bottom = z1 - z0``, ``top = z2 - z3``
    (along X), ``left = z3 - z0``, ``right = z2 - z1`` (along Y), float64 of one shape.

    Both paths to it (corner heights, or a grid's edge rises) give the same float64 values, so
    a prop (`quad_split`) and the mesh (`grid_turns`) always see the same cut.
    """
    p = bottom + right  # z2 - z0
    p *= p
    w = left - bottom  # z3 - z1
    w *= w
    split = np.asarray(p <= w)
    del p, w
    cx2 = np.square(np.asarray(cell, dtype=np.float64))
    if cell_y is None and cx2.ndim == 0:  # square cells: b t + l r < -cell**2
        dot = bottom * top
        dot += left * right
        folds = dot < -cx2
    else:  # the dot of the normals times cell**2 * cell_y**2
        cy2 = cx2 if cell_y is None else np.square(np.asarray(cell_y, dtype=np.float64))
        folds = bottom * top * cy2 + left * right * cx2 + cx2 * cy2 < 0.0
    folds = np.broadcast_to(folds, split.shape)
    if folds.any():
        b, t, lf, r = (a[folds] for a in (bottom, top, left, right))
        split[folds] = (b * b - t * t) * (lf * lf - r * r) >= 0.0
    return split, folds


def grid_turns(heights: npt.ArrayLike, *, cell_size: float = 1.0, stride: int = 1) -> npt.NDArray[np.bool_]:
    """Quads whose first corner must move one on, so that Blender cuts the diagonal `quad_split` picks.

    Parameters
    ----------
    heights : (rows, cols) array_like of float
        Heights in the units of ``cell_size`` (metres, say), row 0 at the smallest Y.
    cell_size : float, optional
        Distance between neighbouring samples of ``heights``, positive.
    stride : int, optional
        The level of detail: the grid of every ``stride``-th row and column plus the last
        (`lod_indices`), whose cells at the far edges may be narrower.

    Returns
    -------
    turn : (Q,) bool ndarray
        One per quad of that grid, row-major (`grid_faces`' order).  Pass it as ``turn=`` to
        `grid_faces`, `grid_corner_uvs` and ``grid_topology``, or to `turn_quads`.

    Notes
    -----
    Blender keeps a quad's corner 0 -- corner 2 cut unless it folds the quad.  Where
    `quad_split`'s cut does not fold, it must be corner 0 -- corner 2: the quad turns where
    that cut is ``v1 -- v3``.  Where it folds, so does the other cut (`quad_split` then takes
    the one that folds less), and the other cut must be corner 0 -- corner 2 for Blender to
    move off it onto ours: the quad turns where our cut is ``v0 -- v2``.  The FBX readers'
    choice does not depend on the start, except on ties (equal lengths, or equal fold angles
    where both cuts fold: the latter, which no start can settle for both Blender and ufbx,
    needs exactly mirrored slopes).  Computed in float64 from the heights.

    Examples
    --------
    >>> grid_turns([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).tolist()  # v2 of quad 0 (its v3 in quad 1) raised
    [True, False]
    """
    h = np.asarray(heights)
    if h.ndim != 2 or min(h.shape) < 2:
        raise ParameterError(f"heights must be a 2-dimensional array of at least 2 x 2, got shape {h.shape}")
    if not cell_size > 0:
        raise ParameterError(f"cell_size must be > 0, got {cell_size!r}")
    stride = check_int(stride, name="stride", bounds=(1, 2**31))
    cx: npt.NDArray[np.float64] | float
    cy: npt.NDArray[np.float64] | float
    if stride > 1:
        ri, ci = lod_indices(h.shape[0], stride), lod_indices(h.shape[1], stride)
        h = h[np.ix_(ri, ci)]
        cx = (np.diff(ci) * cell_size)[None, :]
        cy = (np.diff(ri) * cell_size)[:, None]
    else:
        cx = cy = cell_size
    h = h.astype(np.float64, copy=False)
    across, up = np.diff(h, axis=1), np.diff(h, axis=0)  # rises of every edge along X and along Y
    split, folds = _cut_and_fold_edges(across[:-1], across[1:], up[:, :-1], up[:, 1:], cx, cy)
    return (split == folds).ravel()


def turn_quads(
    corners: npt.NDArray[ScalarT], turn: npt.ArrayLike, *, out: npt.NDArray[ScalarT] | None = None
) -> npt.NDArray[ScalarT]:
    """Per-corner values of quads, with the quads flagged in ``turn`` starting one corner later.

    Parameters
    ----------
    corners : (4 * Q, ...) ndarray
        Values of every corner, four per quad in order (``.corner_vert``, ``.corner_edge``,
        corner UVs ...).
    turn : (Q,) array_like of bool
        The quads to turn (`grid_turns`).
    out : ndarray, optional
        Where to write the result (``corners`` itself turns them in place); a new array
        when not given.

    Returns
    -------
    turned : (4 * Q, ...) ndarray
        Quad ``(c0, c1, c2, c3)`` becomes ``(c1, c2, c3, c0)`` where ``turn``: the same face with
        the same winding and edges, its corner 0 -- corner 2 diagonal now the other one.

    Examples
    --------
    >>> turn_quads(grid_faces(2, 3).ravel(), [False, True]).reshape(-1, 4).tolist()
    [[0, 1, 4, 3], [2, 5, 4, 1]]
    """
    turn = np.asarray(turn, dtype=bool)
    if turn.ndim != 1 or len(corners) != 4 * len(turn):
        raise ParameterError(
            f"turn must have one entry per quad ({len(corners) // 4:,} for {len(corners):,} corners), "
            f"got shape {turn.shape}"
        )
    src = np.ascontiguousarray(corners)
    n = len(src)
    if n == 0:
        return src.copy() if out is None else out
    # each corner's bytes as one unsigned integer when they fit, so the shift is a flat copy
    width = src.itemsize * (src.size // n)
    uint = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}.get(width)

    def corner_items(a: npt.NDArray[ScalarT]) -> npt.NDArray[Any]:
        return a.reshape(n, -1).view(uint).reshape(n) if uint is not None else a.reshape(n, -1)

    flat = corner_items(src)
    direct = (
        out is not None
        and out.dtype == src.dtype
        and out.shape == src.shape
        and out.flags.c_contiguous
        and not np.may_share_memory(out, src)
    )
    turned = corner_items(out) if direct and out is not None else np.empty_like(flat)
    turned[:-1] = flat[1:]  # every corner from the next one of its quad (the last from the first) ...
    turned[3::4] = flat[0::4]
    keep = np.repeat(~turn, 4)  # ... where the quad turns
    np.copyto(turned, flat, where=keep if turned.ndim == 1 else keep[:, None])
    if direct and out is not None:
        return out
    turned = turned.view(src.dtype).reshape(src.shape)
    if out is None:
        return turned
    out[...] = turned
    return out


def grid_faces(rows: int, cols: int, *, turn: npt.ArrayLike | None = None) -> npt.NDArray[np.unsignedinteger[Any]]:
    """Quads of a ``rows x cols`` vertex grid, counter-clockwise seen from +Z.

    Vertex ``v = row * cols + col``; columns run along +X, rows along +Y::

        +Y
        ^   v+cols ---- v+cols+1        quad = (v, v+1, v+cols+1, v+cols)
        |     |            |
        |     |            |            corner 0 -> 1 runs along +X,
        |     v -------- v+1            corner 1 -> 2 along +Y: counter-clockwise
        +----------------------> +X     seen from above, so the normal is +Z.

    Parameters
    ----------
    rows, cols : int
        Vertices per column and per row, each within ``GRID_SIDE`` = (2, 8193).
    turn : (Q,) array_like of bool, optional
        Quads that start at their second corner (`grid_turns`, `turn_quads`).

    Returns
    -------
    quads : ((rows - 1) * (cols - 1), 4) ndarray
        Row-major (quads of row 0 first), dtype ``index_dtype(rows * cols)``.

    Examples
    --------
    >>> grid_faces(2, 3).tolist()
    [[0, 1, 4, 3], [1, 2, 5, 4]]
    """
    rows, cols = check_grid_size(rows, cols)
    quads = grid_corners(rows, cols, (0, 1, cols + 1, cols), index_dtype(rows * cols))
    if turn is not None:
        flat = quads.reshape(-1)
        turn_quads(flat, turn, out=flat)
    return quads


def grid_corner_uvs(rows: int, cols: int, *, turn: npt.ArrayLike | None = None) -> npt.NDArray[np.float32]:
    """UVs of every quad corner of a ``rows x cols`` grid, in `grid_faces` order.

    The same values as ``grid_mesh``'s vertex UVs gathered by corner
    (``uvs[grid_faces(rows, cols)]``), but written directly: what Blender's
    corner-domain UV map needs, without the gather.  ``turn`` as for `grid_faces`.

    Returns
    -------
    uvs : (4 * (rows - 1) * (cols - 1), 2) float32 ndarray

    >>> grid_corner_uvs(2, 3).tolist()[:4]
    [[0.0, 0.0], [0.5, 0.0], [0.5, 1.0], [0.0, 1.0]]
    """
    rows, cols = check_grid_size(rows, cols)
    u = (np.arange(cols) / (cols - 1)).astype(np.float32)
    v = (np.arange(rows) / (rows - 1)).astype(np.float32)
    uv = np.empty((rows - 1, cols - 1, 4, 2), dtype=np.float32)
    uv[:, :, 0, 0] = u[None, :-1]
    uv[:, :, 1, 0] = u[None, 1:]
    uv[:, :, 2, 0] = u[None, 1:]
    uv[:, :, 3, 0] = u[None, :-1]
    uv[:, :, 0, 1] = v[:-1, None]
    uv[:, :, 1, 1] = v[:-1, None]
    uv[:, :, 2, 1] = v[1:, None]
    uv[:, :, 3, 1] = v[1:, None]
    uv = uv.reshape(-1, 2)
    return uv if turn is None else turn_quads(uv, turn, out=uv)


def grid_triangles(rows: int, cols: int) -> npt.NDArray[np.unsignedinteger[Any]]:
    """Triangles of a ``rows x cols`` vertex grid, two per quad, counter-clockwise seen from +Z.

    Each quad ``(v, v+1, v+cols+1, v+cols)`` of `grid_faces` is cut along its
    diagonal ``v -- v+cols+1``::

        v+cols ---- v+cols+1        triangle 2q   = (v, v+1, v+cols+1)
          |       /    |            triangle 2q+1 = (v, v+cols+1, v+cols)
          |    /       |
          v -------- v+1            both keep the quad's winding, so both face +Z.

    Parameters
    ----------
    rows, cols : int
        Vertices per column and per row, each within ``GRID_SIDE``.

    Returns
    -------
    triangles : (2 * (rows - 1) * (cols - 1), 3) ndarray
        dtype ``index_dtype(rows * cols)``.

    Examples
    --------
    >>> grid_triangles(2, 2).tolist()
    [[0, 1, 3], [0, 3, 2]]
    """
    rows, cols = check_grid_size(rows, cols)
    six = grid_corners(rows, cols, (0, 1, cols + 1, 0, cols + 1, cols), index_dtype(rows * cols))
    return six.reshape(-1, 3)


def lod_indices(n: int, stride: int) -> npt.NDArray[np.int_]:
    """Sample indices ``0, s, 2s, ...`` plus the last index ``n - 1`` when the stride skips it,
    so every level of detail keeps the whole extent.

    >>> lod_indices(9, 4).tolist(), lod_indices(8, 4).tolist()
    ([0, 4, 8], [0, 4, 7])
    """
    idx = np.arange(0, n, stride)
    return idx if idx[-1] == n - 1 else np.append(idx, n - 1)
