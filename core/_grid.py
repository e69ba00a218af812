"""Index maths of a vertex grid: quads, triangles, corner UVs, LOD samples, the index dtype rule.

Vertex ``v = row * cols + col``; rows run along +Y, columns along +X, and faces
are counter-clockwise seen from +Z. Public through :mod:`.mesh`.
"""

from __future__ import annotations

import numpy as np

from ._checks import MAX_CELLS, ParameterError, check_int

#: Most vertices a mesh may have and still use uint16 indices (Unity's 16-bit index format limit).
UINT16_MAX_VERTICES = 65_535
#: Vertices per side of a heightmap grid.
GRID_SIDE = (2, 8193)


def index_dtype(n_vertices):
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


def check_grid_size(rows, cols):
    rows = check_int(rows, name="rows", bounds=GRID_SIDE)
    cols = check_int(cols, name="cols", bounds=GRID_SIDE)
    if rows * cols > MAX_CELLS:
        raise ParameterError(
            f"rows x cols = {rows} x {cols} has {rows * cols:,} vertices, "
            f"more than the {MAX_CELLS:,} allowed (it would exhaust memory)"
        )
    return rows, cols


def _quad_origins(rows, cols, dtype):
    """Lower-left vertex ``row * cols + col`` of every quad, row-major, in ``dtype``."""
    r = np.arange(rows - 1, dtype=dtype) * dtype.type(cols)
    c = np.arange(cols - 1, dtype=dtype)
    return (r[:, None] + c[None, :]).ravel()


def grid_corners(rows, cols, pattern, dtype):
    """``origin + pattern`` for every quad: ``(Q, len(pattern))`` in ``dtype``, one allocation."""
    tile = np.array(pattern, dtype=dtype)
    return _quad_origins(rows, cols, dtype)[:, None] + tile[None, :]


def grid_faces(rows, cols):
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
    return grid_corners(rows, cols, (0, 1, cols + 1, cols), index_dtype(rows * cols))


def grid_corner_uvs(rows, cols):
    """UVs of every quad corner of a ``rows x cols`` grid, in `grid_faces` order.

    The same values as ``grid_mesh``'s vertex UVs gathered by corner
    (``uvs[grid_faces(rows, cols)]``), but written directly: what Blender's
    corner-domain UV map needs, without the gather.

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
    return uv.reshape(-1, 2)


def grid_triangles(rows, cols):
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


def lod_indices(n, stride):
    """Sample indices ``0, s, 2s, ...`` plus the last index ``n - 1`` when the stride skips it,
    so every level of detail keeps the whole extent.

    >>> lod_indices(9, 4).tolist(), lod_indices(8, 4).tolist()
    ([0, 4, 8], [0, 4, 7])
    """
    idx = np.arange(0, n, stride)
    return idx if idx[-1] == n - 1 else np.append(idx, n - 1)
