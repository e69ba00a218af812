"""Meshes as numpy arrays: heightmap grids, LODs, smooth normals and Blender-ready topology.

Conventions (Blender's): Z up, X to the right, Y forward.  A heightmap
``(rows, cols)`` becomes a grid whose columns run along +X and whose rows run
along +Y (row 0 at the smallest Y).  Vertex ``v = row * cols + col``.  Faces are
counter-clockwise seen from +Z, so their normals point up.

Two result types:

* `IndexedMesh` -- vertices, triangle indices, UVs and normals, the form game
  engines take (indices are uint16 up to 65,535 vertices, uint32 beyond, like
  Unity's "Index Format: Auto").
* `PolygonTopology` -- the arrays Blender's mesh API loads in bulk
  (``loop_start``, ``.corner_vert``, ``.edge_verts``, ``.corner_edge``), so
  Blender never has to recompute edges.  All int32, as ``foreach_set`` wants.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import MAX_CELLS, ParameterError, check_array, check_choice, check_float, check_int
from .heightmap import CELL_SIZE, HEIGHT_SCALE, gradient

__all__ = [
    "UINT16_MAX_VERTICES",
    "GRID_SIDE",
    "MAX_GRID_VERTICES",
    "ORIGINS",
    "LOD_STRIDE",
    "CELL_SIZE",
    "HEIGHT_SCALE",
    "IndexedMesh",
    "PolygonTopology",
    "index_dtype",
    "grid_faces",
    "grid_triangles",
    "grid_mesh",
    "grid_lods",
    "lod_indices",
    "grid_corner_uvs",
    "vertex_normals",
    "grid_topology",
    "polygon_topology",
    "triangle_topology",
]

#: Most vertices a mesh may have and still use uint16 indices (Unity's 16-bit index format limit).
UINT16_MAX_VERTICES = 65_535
#: Vertices per side of a heightmap grid.
GRID_SIDE = (2, 8193)
#: Most vertices `grid_mesh` builds in one mesh (a 4097 x 4097 grid, about 1 GB of arrays).
MAX_GRID_VERTICES = 4097 * 4097
#: Where the grid sits: centred on the origin in X/Y, or with vertex 0 at the origin.
ORIGINS = ("center", "corner")
#: Allowed LOD strides (take every n-th row and column).
LOD_STRIDE = (1, 256)

_INT32_MAX = np.iinfo(np.int32).max


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


def _field(value, name, dtype, width):
    if not isinstance(value, np.ndarray):
        raise ParameterError(f"{name} must be a numpy array, got {type(value).__name__}")
    if value.dtype != dtype:
        raise ParameterError(f"{name} must have dtype {np.dtype(dtype)}, got {value.dtype}")
    if value.ndim != 2 or value.shape[1] != width:
        raise ParameterError(f"{name} must have shape (n, {width}), got {value.shape}")


@dataclass(frozen=True, slots=True, eq=False)
class IndexedMesh:
    """A triangle mesh: vertices, indices, UVs and smooth normals.

    Attributes
    ----------
    vertices : (V, 3) float32 ndarray
        Positions, Z up.
    indices : (F, 3) uint16 or uint32 ndarray
        Triangles, counter-clockwise seen from their front.  uint16 when
        ``V <= 65_535`` and uint32 otherwise (see `index_dtype`); every index
        is in ``[0, V)``.
    uvs : (V, 2) float32 ndarray
        Texture coordinates; the grids built here keep them in [0, 1].
    normals : (V, 3) float32 ndarray
        Unit vertex normals.

    Notes
    -----
    ``__post_init__`` checks shapes, dtypes, the index dtype rule and the index
    range, and raises `ParameterError` (a ``ValueError``) naming the field.
    The arrays are not copied, and unit length of the normals is not
    re-checked (too costly on every construction).  Comparison is by
    identity (``eq=False``): element-wise ``==`` on arrays has no single truth
    value.

    Examples
    --------
    >>> m = grid_mesh(np.zeros((2, 3), np.float32))
    >>> m.n_vertices, m.n_triangles, m.indices.dtype
    (6, 4, dtype('uint16'))
    """

    vertices: np.ndarray
    indices: np.ndarray
    uvs: np.ndarray
    normals: np.ndarray

    def __post_init__(self):
        _field(self.vertices, "vertices", np.float32, 3)
        n = self.vertices.shape[0]
        want = index_dtype(n)
        if not isinstance(self.indices, np.ndarray) or self.indices.dtype != want:
            got = self.indices.dtype if isinstance(self.indices, np.ndarray) else type(self.indices).__name__
            raise ParameterError(f"indices must have dtype {want} for {n:,} vertices "
                                 f"(uint16 up to {UINT16_MAX_VERTICES:,}), got {got}")
        _field(self.indices, "indices", want, 3)
        _field(self.uvs, "uvs", np.float32, 2)
        _field(self.normals, "normals", np.float32, 3)
        for name in ("uvs", "normals"):
            if getattr(self, name).shape[0] != n:
                raise ParameterError(f"{name} must have one row per vertex ({n:,}), "
                                     f"got {getattr(self, name).shape[0]:,}")
        if self.indices.size and int(self.indices.max()) >= n:
            raise ParameterError(f"indices must be in [0, {n}) for {n:,} vertices, "
                                 f"got a maximum of {int(self.indices.max())}")

    @property
    def n_vertices(self):
        """Number of vertices ``V``."""
        return self.vertices.shape[0]

    @property
    def n_triangles(self):
        """Number of triangles ``F``."""
        return self.indices.shape[0]


@dataclass(frozen=True, slots=True, eq=False)
class PolygonTopology:
    """Polygons, corners and edges as Blender stores them, ready for ``foreach_set``.

    Attributes
    ----------
    loop_starts : (P,) int32 ndarray
        First corner of each polygon (``polygons.foreach_set("loop_start", ...)``).
    corner_verts : (C,) int32 ndarray
        Vertex of each corner (the ``.corner_vert`` attribute), ``C = P * k``.
    edges : (E, 2) int32 ndarray
        Each undirected edge once, as ``(low, high)`` vertex pairs (``.edge_verts``).
    corner_edges : (C,) int32 ndarray
        Edge from corner ``i`` to corner ``i + 1`` of the same polygon
        (the last corner wraps to the first), as Blender's ``.corner_edge``.

    Notes
    -----
    Every polygon has the same size ``k`` (3 or 4), so ``loop_starts`` is
    ``arange(0, C, k)``.  ``__post_init__`` checks dtypes, shapes and index
    ranges and raises `ParameterError` naming the field.

    Examples
    --------
    >>> t = grid_topology(2, 2)
    >>> t.polygon_size, t.corner_verts.tolist(), t.edges.tolist()
    (4, [0, 1, 3, 2], [[0, 1], [2, 3], [0, 2], [1, 3]])
    """

    loop_starts: np.ndarray
    corner_verts: np.ndarray
    edges: np.ndarray
    corner_edges: np.ndarray

    def __post_init__(self):
        for name in ("loop_starts", "corner_verts", "edges", "corner_edges"):
            value = getattr(self, name)
            if not isinstance(value, np.ndarray) or value.dtype != np.int32:
                got = value.dtype if isinstance(value, np.ndarray) else type(value).__name__
                raise ParameterError(f"{name} must be an int32 numpy array, got {got}")
        for name in ("loop_starts", "corner_verts", "corner_edges"):
            if getattr(self, name).ndim != 1:
                raise ParameterError(f"{name} must be 1-dimensional, got shape {getattr(self, name).shape}")
        if self.edges.ndim != 2 or self.edges.shape[1] != 2:
            raise ParameterError(f"edges must have shape (n, 2), got {self.edges.shape}")
        p, c = len(self.loop_starts), len(self.corner_verts)
        if len(self.corner_edges) != c:
            raise ParameterError(f"corner_edges must have one entry per corner ({c:,}), "
                                 f"got {len(self.corner_edges):,}")
        if (p == 0) != (c == 0) or (p and c not in (3 * p, 4 * p)):
            raise ParameterError(f"corner_verts must hold 3 or 4 corners per polygon, "
                                 f"got {c:,} corners for {p:,} polygons")
        if c and (self.corner_edges.min() < 0 or self.corner_edges.max() >= len(self.edges)):
            raise ParameterError(f"corner_edges must be in [0, {len(self.edges)}), got values in "
                                 f"[{self.corner_edges.min()}, {self.corner_edges.max()}]")
        if c and self.corner_verts.min() < 0:
            raise ParameterError(f"corner_verts must be >= 0, got {self.corner_verts.min()}")

    @property
    def polygon_size(self):
        """Corners per polygon: 3 (triangles) or 4 (quads); 0 for an empty topology."""
        return len(self.corner_verts) // len(self.loop_starts) if len(self.loop_starts) else 0

    @property
    def n_polygons(self):
        """Number of polygons ``P``."""
        return len(self.loop_starts)

    @property
    def n_edges(self):
        """Number of unique edges ``E``."""
        return len(self.edges)


# --- grids -------------------------------------------------------------------------------------

def _check_grid_size(rows, cols):
    rows = check_int(rows, name="rows", bounds=GRID_SIDE)
    cols = check_int(cols, name="cols", bounds=GRID_SIDE)
    if rows * cols > MAX_CELLS:
        raise ParameterError(f"rows x cols = {rows} x {cols} has {rows * cols:,} vertices, "
                             f"more than the {MAX_CELLS:,} allowed (it would exhaust memory)")
    return rows, cols


def _quad_origins(rows, cols, dtype):
    """Lower-left vertex ``row * cols + col`` of every quad, row-major, in ``dtype``."""
    r = np.arange(rows - 1, dtype=dtype) * dtype.type(cols)
    c = np.arange(cols - 1, dtype=dtype)
    return (r[:, None] + c[None, :]).ravel()


def _grid_corners(rows, cols, pattern, dtype):
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
    rows, cols = _check_grid_size(rows, cols)
    return _grid_corners(rows, cols, (0, 1, cols + 1, cols), index_dtype(rows * cols))


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
    rows, cols = _check_grid_size(rows, cols)
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
    rows, cols = _check_grid_size(rows, cols)
    six = _grid_corners(rows, cols, (0, 1, cols + 1, 0, cols + 1, cols), index_dtype(rows * cols))
    return six.reshape(-1, 3)


def _check_heights(heights):
    h = check_array(heights, name="heights", ndim=2)
    rows, cols = h.shape
    for name, n in (("rows", rows), ("cols", cols)):
        if not GRID_SIDE[0] <= n <= GRID_SIDE[1]:
            raise ParameterError(f"heights must have {name} in [{GRID_SIDE[0]}, {GRID_SIDE[1]}], "
                                 f"got shape {h.shape}")
    return h


def lod_indices(n, stride):
    """Sample indices ``0, s, 2s, ...`` plus the last index ``n - 1`` when the stride skips it,
    so every level of detail keeps the whole extent.

    >>> lod_indices(9, 4).tolist(), lod_indices(8, 4).tolist()
    ([0, 4, 8], [0, 4, 7])
    """
    idx = np.arange(0, n, stride)
    return idx if idx[-1] == n - 1 else np.append(idx, n - 1)


def _take(a, ri, ci):
    full = len(ri) == a.shape[0] and len(ci) == a.shape[1]
    return a if full else a[np.ix_(ri, ci)]


def _build_grid(h, dzdx, dzdy, ri, ci, *, cell_size, height_scale, origin):
    """IndexedMesh of the sub-grid ``h[ri][:, ci]`` placed by its full-grid indices."""
    rows, cols = h.shape
    nr, nc = len(ri), len(ci)
    x = ci * cell_size
    y = ri * cell_size
    if origin == "center":
        x = x - (cols - 1) * cell_size / 2
        y = y - (rows - 1) * cell_size / 2

    vertices = np.empty((nr, nc, 3), dtype=np.float32)
    vertices[..., 0] = x[None, :]
    vertices[..., 1] = y[:, None]
    np.multiply(_take(h, ri, ci), np.float32(height_scale), out=vertices[..., 2], casting="same_kind")

    uvs = np.empty((nr, nc, 2), dtype=np.float32)
    uvs[..., 0] = (ci / (cols - 1))[None, :]          # c / (cols - 1) is exactly 1.0 at the last column
    uvs[..., 1] = (ri / (rows - 1))[:, None]

    # n = (-dz/dx, -dz/dy, 1) / sqrt(1 + dz/dx^2 + dz/dy^2), all in float32
    gx = _take(dzdx, ri, ci)
    gy = _take(dzdy, ri, ci)
    inv = gx * gx
    inv += gy * gy
    inv += 1
    np.sqrt(inv, out=inv)
    np.reciprocal(inv, out=inv)
    normals = np.empty((nr, nc, 3), dtype=np.float32)
    np.multiply(gx, inv, out=normals[..., 0])
    np.multiply(gy, inv, out=normals[..., 1])
    np.subtract(0, normals[..., :2], out=normals[..., :2])   # 0 - x, not -x: no -0.0 on flat ground
    normals[..., 2] = inv
    del gx, gy, inv

    n = nr * nc
    return IndexedMesh(vertices.reshape(n, 3), grid_triangles(nr, nc),
                       uvs.reshape(n, 2), normals.reshape(n, 3))


def _grid_options(cell_size, height_scale, origin):
    cell_size = check_float(cell_size, name="cell_size", bounds=CELL_SIZE)
    height_scale = check_float(height_scale, name="height_scale", bounds=HEIGHT_SCALE)
    check_choice(origin, name="origin", choices=ORIGINS)
    return cell_size, height_scale, origin


def grid_mesh(heights, *, cell_size=1.0, height_scale=1.0, origin="center"):
    """Triangle mesh of a heightmap, with UVs and analytic smooth normals.

    Parameters
    ----------
    heights : (rows, cols) array_like of float
        Heights, each side within ``GRID_SIDE`` = (2, 8193) and at most
        ``MAX_GRID_VERTICES`` (4097 x 4097) samples in all.  Row 0 is the
        smallest Y, column 0 the smallest X.
    cell_size : float, optional
        Distance between neighbouring vertices in X and Y, within ``CELL_SIZE``.
    height_scale : float, optional
        Vertex ``z = heights * height_scale``, within ``HEIGHT_SCALE``.
    origin : {'center', 'corner'}, optional
        ``'center'`` centres the grid on (0, 0) in X/Y; ``'corner'`` puts
        vertex 0 (row 0, column 0) at the origin and the grid in +X/+Y.

    Returns
    -------
    mesh : IndexedMesh
        ``rows * cols`` vertices (``v = row * cols + col``) and
        ``2 * (rows - 1) * (cols - 1)`` triangles from `grid_triangles`.
        ``u = col / (cols - 1)`` and ``v = row / (rows - 1)``, exactly 0 and 1
        on the borders.  Normals are ``(-dz/dx, -dz/dy, 1)`` normalised, with
        the gradient from central differences (one-sided on the edges), so a
        flat grid gives +Z and a plane its exact normal.

    Notes
    -----
    Memory: the result takes 56 bytes per vertex (12 position, 12 normal,
    8 UV, 24 for two uint32 triangles), 940 MB for 4097 x 4097.  Everything
    is computed in float32 and written straight into the result arrays; the
    measured peak is 68 bytes per vertex, 1.14 GB for 4097 x 4097 (the
    result plus the two gradient grids and one more float32 grid), plus a
    float32 copy of ``heights`` when it is given as float64.  About 1.3 s on
    one core for 4097 x 4097.

    Examples
    --------
    >>> m = grid_mesh(np.zeros((3, 3), np.float32), cell_size=2.0)
    >>> m.vertices[[0, 8]].tolist()
    [[-2.0, -2.0, 0.0], [2.0, 2.0, 0.0]]
    >>> m.normals[4].tolist(), m.uvs[8].tolist()
    ([0.0, 0.0, 1.0], [1.0, 1.0])
    """
    h = _check_heights(heights)
    if h.size > MAX_GRID_VERTICES:
        raise ParameterError(f"heights has {h.size:,} samples, more than the {MAX_GRID_VERTICES:,} "
                             f"(4097 x 4097) a single mesh may have; use grid_lods with a stride")
    cell_size, height_scale, origin = _grid_options(cell_size, height_scale, origin)
    h = h.astype(np.float32, copy=False)
    dzdx, dzdy = gradient(h, cell_size=cell_size, height_scale=height_scale)
    rows, cols = h.shape
    return _build_grid(h, dzdx, dzdy, np.arange(rows), np.arange(cols),
                       cell_size=cell_size, height_scale=height_scale, origin=origin)


def grid_lods(heights, *, strides=(1, 2, 4), cell_size=1.0, height_scale=1.0, origin="center"):
    """Levels of detail of a heightmap mesh, one per stride.

    Parameters
    ----------
    heights : (rows, cols) array_like of float
        Heights, each side within ``GRID_SIDE``.
    strides : sequence of int, optional
        Take every ``stride``-th row and column (each within ``LOD_STRIDE``),
        one mesh per entry, in the given order.  The last row and column are
        always kept, so the outline is the same at every level; a ``2**n + 1``
        grid halves cleanly with strides 1, 2, 4, ...  A stride that does not
        divide ``side - 1`` gives one narrower strip of cells at the far edge.
        Each level must have at most ``MAX_GRID_VERTICES`` vertices.
    cell_size, height_scale, origin
        As for `grid_mesh`; every level covers the same area.

    Returns
    -------
    meshes : list of IndexedMesh
        ``len(range(0, rows, s)) (+1 if s does not divide rows - 1)`` rows of
        vertices per level, likewise for columns.

    Notes
    -----
    Positions, UVs and normals of a kept vertex are the same at every level:
    normals come from the full-resolution gradient, so lighting does not jump
    between LODs.

    Examples
    --------
    >>> lods = grid_lods(np.zeros((9, 9), np.float32), strides=(1, 2, 4, 3))
    >>> [m.n_vertices for m in lods]
    [81, 25, 9, 16]
    """
    h = _check_heights(heights)
    try:
        strides = tuple(strides)
    except TypeError:
        raise ParameterError(f"strides must be a sequence of integers, got {strides!r}") from None
    if not strides:
        raise ParameterError("strides must hold at least one stride, got an empty sequence")
    strides = tuple(check_int(s, name="strides", bounds=LOD_STRIDE) for s in strides)
    cell_size, height_scale, origin = _grid_options(cell_size, height_scale, origin)
    rows, cols = h.shape
    index = {s: (lod_indices(rows, s), lod_indices(cols, s)) for s in strides}
    for s, (ri, ci) in index.items():
        if len(ri) * len(ci) > MAX_GRID_VERTICES:
            raise ParameterError(f"strides entry {s} gives {len(ri)} x {len(ci)} vertices, more than the "
                                 f"{MAX_GRID_VERTICES:,} (4097 x 4097) a single mesh may have")
    h = h.astype(np.float32, copy=False)
    dzdx, dzdy = gradient(h, cell_size=cell_size, height_scale=height_scale)
    return [_build_grid(h, dzdx, dzdy, *index[s], cell_size=cell_size, height_scale=height_scale,
                        origin=origin) for s in strides]


# --- arbitrary triangle meshes -----------------------------------------------------------------

def _check_indices(indices, n_vertices, *, name="indices", width=3):
    f = check_array(indices, name=name, ndim=2, dtype_kind="iu")
    if f.shape[1] != width:
        raise ParameterError(f"{name} must have shape (n, {width}), got {f.shape}")
    if f.size and (f.min() < 0 or f.max() >= n_vertices):
        raise ParameterError(f"{name} must be in [0, {n_vertices}), got values in [{f.min()}, {f.max()}]")
    return f


def vertex_normals(vertices, indices):
    """Area-weighted smooth vertex normals of a triangle mesh.

    Parameters
    ----------
    vertices : (V, 3) array_like of float
        Positions.
    indices : (F, 3) array_like of int
        Triangles, counter-clockwise seen from their front, in ``[0, V)``.

    Returns
    -------
    normals : (V, 3) float32 ndarray
        Unit vectors.  Each vertex sums the cross products of its triangles
        (whose length is twice the area, hence area weighting) and normalises.
        Vertices that no triangle uses, or whose triangles are all degenerate
        or cancel out, get +Z, so the result never contains NaN.

    Notes
    -----
    Computed in float64 (``np.bincount`` per component) and returned as float32.

    Examples
    --------
    >>> vertex_normals([[0, 0, 0], [1, 0, 0], [0, 1, 0], [5, 5, 5]], [[0, 1, 2]]).tolist()
    [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
    """
    v = check_array(vertices, name="vertices", ndim=2, shape=(None, 3))
    f = _check_indices(indices, len(v))
    v = v.astype(np.float64, copy=False)
    a = v[f[:, 0]]
    e1 = v[f[:, 1]] - a
    e2 = v[f[:, 2]] - a
    del a
    face = np.cross(e1, e2)
    del e1, e2
    corners = f.ravel().astype(np.intp, copy=False)
    acc = np.empty((len(v), 3), dtype=np.float64)
    for k in range(3):
        acc[:, k] = np.bincount(corners, weights=np.repeat(face[:, k], 3), minlength=len(v))
    length = np.sqrt(np.einsum("ij,ij->i", acc, acc))
    good = length > 0
    out = np.zeros((len(v), 3), dtype=np.float32)
    out[:, 2] = 1
    out[good] = acc[good] / length[good, None]
    return out


# --- Blender topology --------------------------------------------------------------------------

def grid_topology(rows, cols):
    """Blender topology (quads, corners, edges) of a ``rows x cols`` vertex grid, without sorting.

    Parameters
    ----------
    rows, cols : int
        Vertices per column and per row, each within ``GRID_SIDE``.

    Returns
    -------
    topology : PolygonTopology
        The quads of `grid_faces` (same order and winding) as int32 corners,
        and ``rows * (cols - 1) + (rows - 1) * cols`` edges.

    Notes
    -----
    Edges are numbered analytically.  With ``H = rows * (cols - 1)``::

        edge r*(cols-1) + c       = (v, v+1)       horizontal, v = r*cols + c   (c < cols-1)
        edge H + r*cols + c       = (v, v+cols)    vertical                     (r < rows-1)

        quad q = r*(cols-1) + c:      v+cols --[q+cols-1]-- v+cols+1
                                        |                      |
                                   [H+q+r]                [H+q+r+1]
                                        |                      |
                                        v -------[q]-------- v+1

    so corner 0 (v -> v+1) uses ``q``, corner 1 (v+1 -> v+cols+1) ``H+q+r+1``,
    corner 2 (v+cols+1 -> v+cols) ``q+cols-1`` and corner 3 (v+cols -> v)
    ``H+q+r``.  Everything is int32 and O(rows * cols): about 48 bytes per
    vertex (805 MB for 4097 x 4097, peak 1.0 GB, 0.7 s).

    Examples
    --------
    >>> t = grid_topology(2, 3)
    >>> t.corner_edges.tolist()
    [0, 5, 2, 4, 1, 6, 3, 5]
    """
    rows, cols = _check_grid_size(rows, cols)
    dt = np.dtype(np.int32)
    quads = _grid_corners(rows, cols, (0, 1, cols + 1, cols), dt)
    n_quads = len(quads)
    n_horizontal = rows * (cols - 1)

    v = np.arange(rows * cols, dtype=dt).reshape(rows, cols)
    horizontal = np.stack([v[:, :-1].ravel(), v[:, 1:].ravel()], axis=1)
    vertical = np.stack([v[:-1, :].ravel(), v[1:, :].ravel()], axis=1)
    edges = np.concatenate([horizontal, vertical])
    del v, horizontal, vertical

    r = np.arange(rows - 1, dtype=dt)[:, None]
    q = r * dt.type(cols - 1) + np.arange(cols - 1, dtype=dt)[None, :]
    left = q + r + dt.type(n_horizontal)                  # H + q + r: the vertical edge at column c
    corner_edges = np.empty((rows - 1, cols - 1, 4), dtype=dt)
    corner_edges[..., 0] = q
    corner_edges[..., 1] = left + 1
    corner_edges[..., 2] = q + dt.type(cols - 1)
    corner_edges[..., 3] = left
    return PolygonTopology(
        loop_starts=np.arange(0, 4 * n_quads, 4, dtype=dt),
        corner_verts=quads.ravel(),
        edges=edges,
        corner_edges=corner_edges.ravel(),
    )


def polygon_topology(polygons):
    """Blender topology of any mesh whose polygons all have 3 or all have 4 corners.

    Parameters
    ----------
    polygons : (P, k) array_like of int
        Vertex indices, ``k`` = 3 or 4, each below ``2**31 - 1``.  A polygon
        must not repeat a vertex.

    Returns
    -------
    topology : PolygonTopology
        Corners in the given order; edges are the unique undirected
        ``(low, high)`` pairs sorted by ``(low, high)``.

    Notes
    -----
    Each corner's edge ``(v_i, v_{i+1})`` is packed into one int64 key
    ``low << 32 | high``; ``np.unique(..., return_inverse=True)`` gives the
    edges and, through the inverse index, each corner's edge.

    Examples
    --------
    >>> t = polygon_topology([[0, 1, 2], [2, 1, 3]])
    >>> t.edges.tolist(), t.corner_edges.tolist()
    ([[0, 1], [0, 2], [1, 2], [1, 3], [2, 3]], [0, 2, 1, 2, 3, 4])
    """
    p = check_array(polygons, name="polygons", ndim=2, dtype_kind="iu")
    if p.shape[1] not in (3, 4):
        raise ParameterError(f"polygons must have 3 or 4 corners each, got shape {p.shape}")
    if p.size and (p.min() < 0 or p.max() >= _INT32_MAX):
        raise ParameterError(f"polygons must hold vertex indices in [0, {_INT32_MAX}), "
                             f"got values in [{p.min()}, {p.max()}]")
    a = p.astype(np.int64)
    b = np.roll(a, -1, axis=1)                            # corner i -> corner i + 1 (wrapping)
    low = np.minimum(a, b)
    high = np.maximum(a, b)
    del b
    repeated = (low == high).any(axis=1)
    if repeated.any():
        bad = int(np.flatnonzero(repeated)[0])
        raise ParameterError(f"polygons must not repeat a vertex, polygon {bad} is {p[bad].tolist()}")
    key = (low << 32) | high
    del low, high
    unique, inverse = np.unique(key.ravel(), return_inverse=True)
    edges = np.stack([unique >> 32, unique & 0xFFFFFFFF], axis=1).astype(np.int32)
    n_polygons, k = p.shape
    return PolygonTopology(
        loop_starts=np.arange(0, n_polygons * k, k, dtype=np.int32),
        corner_verts=a.ravel().astype(np.int32),
        edges=edges,
        corner_edges=inverse.reshape(-1).astype(np.int32),
    )


def triangle_topology(indices):
    """Blender topology of a triangle mesh (e.g. ``IndexedMesh.indices``).

    Parameters
    ----------
    indices : (F, 3) array_like of int
        Triangles.

    Returns
    -------
    topology : PolygonTopology
        See `polygon_topology`.

    Examples
    --------
    >>> triangle_topology(grid_triangles(2, 2)).n_edges
    5
    """
    f = check_array(indices, name="indices", ndim=2, dtype_kind="iu")
    if f.shape[1] != 3:
        raise ParameterError(f"indices must have shape (n, 3), got {f.shape}")
    return polygon_topology(f)
