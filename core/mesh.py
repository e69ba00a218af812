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

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from . import exact
from ._checks import check_array, check_choice, check_float, check_int
from ._grid import (
    GRID_SIDE,
    UINT16_MAX_VERTICES,
    ScalarT,
    grid_corner_uvs,
    grid_faces,
    grid_triangles,
    grid_turns,
    index_dtype,
    lod_indices,
    quad_split,
    turn_quads,
)
from ._topology import PolygonTopology, check_indices, grid_topology, polygon_topology, triangle_topology
from .errors import ParameterError
from .heightmap import CELL_SIZE, HEIGHT_SCALE, gradient

__all__ = [
    "UINT16_MAX_VERTICES",
    "GRID_SIDE",
    "MAX_GRID_VERTICES",
    "ORIGINS",
    "LOD_STRIDE",
    "IndexedMesh",
    "PolygonTopology",
    "index_dtype",
    "grid_faces",
    "grid_triangles",
    "grid_mesh",
    "grid_lods",
    "lod_indices",
    "grid_corner_uvs",
    "quad_split",
    "grid_turns",
    "turn_quads",
    "vertex_normals",
    "grid_topology",
    "polygon_topology",
    "triangle_topology",
]

#: Most vertices `grid_mesh` builds in one mesh (a 4097 x 4097 grid, about 1 GB of arrays).
MAX_GRID_VERTICES = 4097 * 4097
#: Where the grid sits: centred on the origin in X/Y, or with vertex 0 at the origin.
ORIGINS = ("center", "corner")
#: Allowed LOD strides (take every n-th row and column).
LOD_STRIDE = (1, 256)


def _field(value: object, name: str, dtype: npt.DTypeLike, width: int) -> None:
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
    materials : (F,) uint8 ndarray or None
        Material slot of each triangle (e.g. 0 bark, 1 leaves), or None when
        the whole mesh uses one material.

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

    vertices: npt.NDArray[np.float32]
    indices: npt.NDArray[np.unsignedinteger[Any]]
    uvs: npt.NDArray[np.float32]
    normals: npt.NDArray[np.float32]
    materials: npt.NDArray[np.uint8] | None = None

    def __post_init__(self) -> None:
        _field(self.vertices, "vertices", np.float32, 3)
        n = self.vertices.shape[0]
        want = index_dtype(n)
        if not isinstance(self.indices, np.ndarray) or self.indices.dtype != want:
            got: object = self.indices.dtype if isinstance(self.indices, np.ndarray) else type(self.indices).__name__
            raise ParameterError(
                f"indices must have dtype {want} for {n:,} vertices (uint16 up to {UINT16_MAX_VERTICES:,}), got {got}"
            )
        _field(self.indices, "indices", want, 3)
        _field(self.uvs, "uvs", np.float32, 2)
        _field(self.normals, "normals", np.float32, 3)
        for name in ("uvs", "normals"):
            if getattr(self, name).shape[0] != n:
                raise ParameterError(
                    f"{name} must have one row per vertex ({n:,}), got {getattr(self, name).shape[0]:,}"
                )
        if self.materials is not None:
            m = self.materials
            if not isinstance(m, np.ndarray) or m.dtype != np.uint8 or m.shape != (self.indices.shape[0],):
                got = f"{m.dtype} {m.shape}" if isinstance(m, np.ndarray) else type(m).__name__
                raise ParameterError(
                    f"materials must be a uint8 array with one entry per triangle "
                    f"({self.indices.shape[0]:,}), got {got}"
                )
        if self.indices.size and int(self.indices.max()) >= n:
            raise ParameterError(
                f"indices must be in [0, {n}) for {n:,} vertices, got a maximum of {int(self.indices.max())}"
            )

    @property
    def n_vertices(self) -> int:
        """Number of vertices ``V``."""
        return self.vertices.shape[0]

    @property
    def n_triangles(self) -> int:
        """Number of triangles ``F``."""
        return self.indices.shape[0]


def _check_heights(heights: npt.ArrayLike) -> npt.NDArray[Any]:
    h = check_array(heights, name="heights", ndim=2)
    rows, cols = h.shape
    for name, n in (("rows", rows), ("cols", cols)):
        if not GRID_SIDE[0] <= n <= GRID_SIDE[1]:
            raise ParameterError(f"heights must have {name} in [{GRID_SIDE[0]}, {GRID_SIDE[1]}], got shape {h.shape}")
    return h


def _take(a: npt.NDArray[ScalarT], ri: npt.NDArray[np.int_], ci: npt.NDArray[np.int_]) -> npt.NDArray[ScalarT]:
    full = len(ri) == a.shape[0] and len(ci) == a.shape[1]
    return a if full else a[np.ix_(ri, ci)]


def _build_grid(
    h: npt.NDArray[np.float32],
    dzdx: npt.NDArray[np.float32],
    dzdy: npt.NDArray[np.float32],
    ri: npt.NDArray[np.int_],
    ci: npt.NDArray[np.int_],
    *,
    cell_size: float,
    height_scale: float,
    origin: str,
) -> IndexedMesh:
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
    uvs[..., 0] = (ci / (cols - 1))[None, :]  # c / (cols - 1) is exactly 1.0 at the last column
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
    np.subtract(0, normals[..., :2], out=normals[..., :2])  # 0 - x, not -x: no -0.0 on flat ground
    normals[..., 2] = inv
    del gx, gy, inv

    n = nr * nc
    return IndexedMesh(vertices.reshape(n, 3), grid_triangles(nr, nc), uvs.reshape(n, 2), normals.reshape(n, 3))


def _grid_options(cell_size: float, height_scale: float, origin: str) -> tuple[float, float, str]:
    cell_size = check_float(cell_size, name="cell_size", bounds=CELL_SIZE)
    height_scale = check_float(height_scale, name="height_scale", bounds=HEIGHT_SCALE)
    check_choice(origin, name="origin", choices=ORIGINS)
    return cell_size, height_scale, origin


def grid_mesh(
    heights: npt.ArrayLike, *, cell_size: float = 1.0, height_scale: float = 1.0, origin: str = "center"
) -> IndexedMesh:
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
        raise ParameterError(
            f"heights has {h.size:,} samples, more than the {MAX_GRID_VERTICES:,} "
            f"(4097 x 4097) a single mesh may have; use grid_lods with a stride"
        )
    cell_size, height_scale, origin = _grid_options(cell_size, height_scale, origin)
    h = h.astype(np.float32, copy=False)
    dzdx, dzdy = gradient(h, cell_size=cell_size, height_scale=height_scale)
    rows, cols = h.shape
    return _build_grid(
        h, dzdx, dzdy, np.arange(rows), np.arange(cols), cell_size=cell_size, height_scale=height_scale, origin=origin
    )


def grid_lods(
    heights: npt.ArrayLike,
    *,
    strides: Iterable[int] = (1, 2, 4),
    cell_size: float = 1.0,
    height_scale: float = 1.0,
    origin: str = "center",
) -> list[IndexedMesh]:
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
            raise ParameterError(
                f"strides entry {s} gives {len(ri)} x {len(ci)} vertices, more than the "
                f"{MAX_GRID_VERTICES:,} (4097 x 4097) a single mesh may have"
            )
    h = h.astype(np.float32, copy=False)
    dzdx, dzdy = gradient(h, cell_size=cell_size, height_scale=height_scale)
    return [
        _build_grid(h, dzdx, dzdy, *index[s], cell_size=cell_size, height_scale=height_scale, origin=origin)
        for s in strides
    ]


def vertex_normals(vertices: npt.ArrayLike, indices: npt.ArrayLike) -> npt.NDArray[np.float32]:
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
    f = check_indices(indices, len(v))
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
    length = np.sqrt(exact.dot_rows(acc, acc))
    good = length > 0
    out = np.zeros((len(v), 3), dtype=np.float32)
    out[:, 2] = 1
    out[good] = acc[good] / length[good, None]
    return out
