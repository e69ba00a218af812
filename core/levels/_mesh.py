"""A level as 3-D geometry: floor quads, wall blocks, an optional ceiling.

World frame (Blender, Z up)
---------------------------
The level's south-west corner sits at ``origin = (x0, y0, z0)``.  Cell ``(x, y)`` (column ``x``,
row ``y``, row 0 the north/top row) covers::

    X in [x0 + x * cs, x0 + (x + 1) * cs]        Y in [y0 + (H - 1 - y) * cs, y0 + (H - y) * cs]

with ``cs`` the cell size and ``H`` the number of rows.  The floor is at ``z0``, the wall tops and the
ceiling at ``z0 + wall_height``.  Grid *corner* ``(i, j)`` (corner row ``i`` in ``0..H``, corner column
``j`` in ``0..W``) is the point ``(x0 + j * cs, y0 + (H - i) * cs)``: cell ``(x, y)`` has the corners
``(y, x)`` (north-west) to ``(y + 1, x + 1)`` (south-east).

Surfaces (each with its own vertices, so normals are flat per surface)::

    floor     one quad per walkable cell at z0, facing +Z           material 0
    wall top  one quad per wall cell at z0 + wall_height, facing +Z material 1
    sides     one quad per edge between a wall cell and a walkable  material 1
              cell (outside the map counts as wall), facing the
              walkable cell; none between two wall cells
    ceiling   (optional) one quad per walkable cell at the wall     material 2
              height, facing -Z

Within a surface every grid corner is one vertex (the floor, the tops and the ceiling: one vertex per
used grid corner; the sides: one bottom and one top vertex per used corner and facing direction, so a
straight run of wall shares its vertices).  Quads are counter-clockwise seen from their front.

UVs are world-scaled: one UV unit is one metre, measured from the level's south-west corner (floor,
tops, ceiling: ``u = X - x0``, ``v = Y - y0``; sides: ``u`` along the wall, increasing to the right
seen from the front, ``v = Z - z0``), so a texture tiles once per metre whatever the cell size.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from .._checks import check_bool, check_float
from ..errors import ParameterError, short
from ..mesh import IndexedMesh, PolygonTopology, index_dtype
from ._level import Level

__all__ = [
    "LevelQuads",
    "level_quads",
    "level_mesh",
    "MAX_MESH_CELLS",
    "CELL_SIZE",
    "WALL_HEIGHT",
    "MATERIALS",
    "check_origin",
]

#: Most cells a level mesh is built for: 2048 x 2048.  The worst case, a checkerboard, has 11 vertices and
#: 7 triangles a cell: 46 M vertices and a measured peak of 2.1 GB (503 bytes a cell) with a ceiling.
MAX_MESH_CELLS = 2048 * 2048
#: Allowed cell size and wall height in metres (as the ``[[level]]`` table's limits).
CELL_SIZE = (0.01, 1000.0)
WALL_HEIGHT = (0.01, 1000.0)
#: Material slots, in order: index 0 floor, 1 wall (sides and tops), 2 ceiling.
MATERIALS = ("floor", "wall", "ceiling")
FLOOR_SLOT, WALL_SLOT, CEILING_SLOT = 0, 1, 2
_ORIGIN_REACH = 1.0e7


@dataclass(frozen=True, slots=True, eq=False)
class LevelQuads:
    """A level mesh as quads, the form Blender loads in bulk.

    Attributes
    ----------
    vertices : (V, 3) float32 ndarray
        Positions in Blender metres (world frame of the module docstring).
    quads : (F, 4) int32 ndarray
        Vertex indices, counter-clockwise seen from the front.  For Blender:
        ``loops.foreach_set`` / ``.corner_vert`` takes ``quads.ravel()``, ``loop_start`` is
        ``arange(0, 4 * F, 4)``; :meth:`topology` gives the edges too.
    uvs : (V, 2) float32 ndarray
        World-scaled UVs per vertex (one unit = one metre).  Each vertex belongs to one surface,
        so per-corner UVs are simply ``uvs[quads].reshape(-1, 2)`` (:meth:`corner_uvs`).
    normals : (V, 3) float32 ndarray
        Flat normal of the vertex's surface (unit, axis-aligned).
    materials : (F,) uint8 ndarray
        Slot of each quad: 0 floor, 1 wall, 2 ceiling (:data:`MATERIALS`).
    edges : (E, 2) int32 ndarray
        Every edge once, ``(low, high)`` vertex pairs, numbered from the grid (no sorting).
    corner_edges : (4 F,) int32 ndarray
        Edge from corner ``k`` to corner ``k + 1`` of each quad (the last wraps to the first),
        Blender's ``.corner_edge``.  With ``edges`` this is :meth:`topology`, built analytically
        instead of by sorting every corner's edge as :func:`~core.mesh.polygon_topology` does.
    """

    vertices: npt.NDArray[np.float32]
    quads: npt.NDArray[np.int32]
    uvs: npt.NDArray[np.float32]
    normals: npt.NDArray[np.float32]
    materials: npt.NDArray[np.uint8]
    edges: npt.NDArray[np.int32] | None
    corner_edges: npt.NDArray[np.int32] | None

    @property
    def n_vertices(self) -> int:
        """Number of vertices ``V``."""
        return len(self.vertices)

    @property
    def n_quads(self) -> int:
        """Number of quads ``F``."""
        return len(self.quads)

    def corner_uvs(self) -> npt.NDArray[np.float32]:
        """(4 F, 2) float32 UVs per corner, in the order of ``quads.ravel()`` (Blender's UV layer)."""
        return self.uvs[self.quads.ravel()]

    def topology(self) -> PolygonTopology:
        """Blender topology (loop starts, corner vertices, edges, corner edges) of the quads, ready for
        ``foreach_set`` (the same edges as :func:`~core.mesh.polygon_topology` finds, in grid order)."""
        n = len(self.quads)
        assert self.edges is not None and self.corner_edges is not None, "quads made with their edges"
        return PolygonTopology(
            loop_starts=np.arange(0, 4 * n, 4, dtype=np.int32),
            corner_verts=self.quads.reshape(-1),
            edges=self.edges,
            corner_edges=self.corner_edges,
        )

    def triangles(self) -> npt.NDArray[np.unsignedinteger[Any]]:
        """(2 F, 3) triangles: quad ``(a, b, c, d)`` becomes ``(a, b, c)`` and ``(a, c, d)``."""
        q = self.quads
        tri = np.empty((len(q), 2, 3), dtype=index_dtype(len(self.vertices)))
        tri[:, 0] = q[:, :3]
        tri[:, 1, 0] = q[:, 0]
        tri[:, 1, 1:] = q[:, 2:]
        return tri.reshape(-1, 3)


def check_origin(origin: Any, *, name: str = "origin") -> tuple[float, float, float]:
    """``origin`` as three finite floats within +-1e7 metres."""
    try:
        values = tuple(origin)
    except TypeError:
        raise ParameterError(f"{name} must be three numbers (x, y, z) in metres, got {short(origin)}") from None
    if len(values) != 3:
        raise ParameterError(f"{name} must be three numbers (x, y, z) in metres, got {short(origin)}")
    bounds = (-_ORIGIN_REACH, _ORIGIN_REACH)
    x, y, z = (check_float(v, name=f"{name}[{k}]", bounds=bounds) for k, v in enumerate(values))
    return x, y, z


def check_level(level: object, *, name: str = "level") -> Level:
    """``level`` if it looks like a :class:`Level` (a 2-D uint8 ``grid`` and ``classes`` with ``"wall"``)."""
    grid = getattr(level, "grid", None)
    classes = getattr(level, "classes", None)
    if (
        not isinstance(grid, np.ndarray)
        or grid.dtype != np.uint8
        or grid.ndim != 2
        or not isinstance(classes, dict)
        or "wall" not in classes
    ):
        raise ParameterError(f"{name} must be a core.levels.Level, got {short(level)}")
    return cast(Level, level)  # a grid and classes as a Level has them


def _check_size(level: Level) -> None:
    h, w = level.grid.shape
    if h * w > MAX_MESH_CELLS:
        raise ParameterError(
            f"level {w} x {h} has {h * w:,} cells, more than the {MAX_MESH_CELLS:,} (2048 x 2048) "
            "a level mesh may have (it would exhaust memory)"
        )
    if h * w == 0:
        raise ParameterError(f"level must have at least one cell, got a {w} x {h} grid")


# Corner (i, j) of cell (r, c) in each quad position, as slices of a (H+1, W+1) corner array.
_SW, _SE, _NE, _NW = np.s_[1:, :-1], np.s_[1:, 1:], np.s_[:-1, 1:], np.s_[:-1, :-1]


class _Surface:
    """One surface: its faces (a mask over cells or edges), the corners each face uses, and its place."""

    def __init__(
        self,
        faces: npt.NDArray[np.bool_],
        corners: Sequence[tuple[slice, slice]],
        normal: tuple[float, float, float],
        slot: int,
        z: Sequence[float],
        u: npt.NDArray[np.float64],
        v: npt.NDArray[np.float64] | None,
    ) -> None:
        self.faces = faces  # bool mask; faces in row-major order
        self.corners = corners  # quad corners as slices of the corner grid (counter-clockwise from the front)
        self.normal, self.slot = normal, slot
        self.z = z  # heights above the floor: one (flat) or two (sides: bottom, top)
        self.u, self.v = u, v  # (H+1, W+1)-broadcastable float64 UVs of a corner (v None: v = the height)
        self.n_faces = int(np.count_nonzero(faces))


def _corner_index(used: npt.NDArray[np.bool_]) -> npt.NDArray[np.int32]:
    """int32 vertex number of every used grid corner (row-major), garbage elsewhere."""
    index = np.cumsum(used.ravel(), dtype=np.int32)
    index -= 1
    return index.reshape(used.shape)


def _build(
    surfaces: Sequence[_Surface],
    shape: tuple[int, ...],
    cell_size: float,
    origin: npt.NDArray[np.float64],
    with_edges: bool = True,
) -> LevelQuads:
    """Two passes: count every surface's vertices and faces, then fill the final arrays in place."""
    h, w = shape
    cs = cell_size
    j = np.arange(w + 1, dtype=np.float64)
    i = np.arange(h + 1, dtype=np.float64)
    xs = (origin[0] + j * cs).astype(np.float32)[None, :]  # Blender X of corner column j
    ys = (origin[1] + (h - i) * cs).astype(np.float32)[:, None]  # Blender Y of corner row i
    full = (h + 1, w + 1)
    plans = []
    n_vertices = n_faces = 0
    for srf in surfaces:
        used = np.zeros(full, dtype=bool)
        for sl in srf.corners:
            used[sl] |= srf.faces
        n = int(np.count_nonzero(used))
        plans.append((srf, used, n, n_vertices, n_faces))
        n_vertices += n * len(srf.z)
        n_faces += srf.n_faces
    vertices = np.empty((n_vertices, 3), dtype=np.float32)
    uvs = np.empty((n_vertices, 2), dtype=np.float32)
    normals = np.empty((n_vertices, 3), dtype=np.float32)
    quads = np.empty((n_faces, 4), dtype=np.int32)
    slots = np.empty(n_faces, dtype=np.uint8)
    corner_edges = np.empty((n_faces, 4), dtype=np.int32) if with_edges else None
    edges = []
    n_edges = 0
    for srf, used, n, v0, f0 in plans:
        x = np.broadcast_to(xs, full)[used]
        y = np.broadcast_to(ys, full)[used]
        u = np.broadcast_to(srf.u, full)[used].astype(np.float32)
        v = None if srf.v is None else np.broadcast_to(srf.v, full)[used].astype(np.float32)
        for k, z in enumerate(srf.z):
            rows = slice(v0 + k * n, v0 + (k + 1) * n)
            vertices[rows, 0] = x
            vertices[rows, 1] = y
            vertices[rows, 2] = np.float32(origin[2] + z)
            uvs[rows, 0] = u
            uvs[rows, 1] = np.float32(z) if v is None else v
            normals[rows] = srf.normal
        index = _corner_index(used)
        index += np.int32(v0)
        out = quads[f0 : f0 + srf.n_faces]
        if len(srf.corners) == 4:
            for k, sl in enumerate(srf.corners):
                out[:, k] = index[sl][srf.faces]
        else:  # a vertical quad: A bottom, B bottom, B top, A top
            out[:, 0] = index[srf.corners[0]][srf.faces]
            out[:, 1] = index[srf.corners[1]][srf.faces]
            out[:, 2] = out[:, 1] + np.int32(n)
            out[:, 3] = out[:, 0] + np.int32(n)
        slots[f0 : f0 + srf.n_faces] = srf.slot
        if corner_edges is not None:  # with_edges
            new = _edges(srf, index, out, corner_edges[f0 : f0 + srf.n_faces], n, v0, n_edges)
            edges.append(new)
            n_edges += len(new)
    return LevelQuads(
        vertices=vertices,
        quads=quads,
        uvs=uvs,
        normals=normals,
        materials=slots,
        edges=np.concatenate(edges) if with_edges else None,
        corner_edges=corner_edges.reshape(-1) if corner_edges is not None else None,
    )


def _edges(
    srf: _Surface,
    index: npt.NDArray[np.int32],
    quads: npt.NDArray[np.int32],
    corner_edges: npt.NDArray[np.int32],
    n: int,
    v0: int,
    e0: int,
) -> npt.NDArray[np.int32]:
    """The surface's edges from ``e0`` on, and each quad corner's edge (written into ``corner_edges``).

    A flat surface: every grid edge of a used cell once, horizontal ones ``(i, j)-(i, j+1)`` first, then
    vertical ones ``(i, j)-(i+1, j)``, each in row-major order.  Sides: one vertical edge per used corner
    (shared along a run), then the bottom edge and the top edge of each face.
    """
    faces = srf.faces
    if len(srf.corners) == 4:
        across = np.zeros((faces.shape[0] + 1, faces.shape[1]), dtype=bool)  # horizontal (H+1, W)
        across[:-1] |= faces
        across[1:] |= faces
        down = np.zeros((faces.shape[0], faces.shape[1] + 1), dtype=bool)  # vertical (H, W+1)
        down[:, :-1] |= faces
        down[:, 1:] |= faces
        n_across = int(np.count_nonzero(across))
        across_id = _corner_index(across)
        across_id += np.int32(e0)
        down_id = _corner_index(down)
        down_id += np.int32(e0 + n_across)
        pairs = np.empty((n_across + int(np.count_nonzero(down)), 2), dtype=np.int32)
        pairs[:n_across, 0] = index[:, :-1][across]
        pairs[:n_across, 1] = index[:, 1:][across]
        pairs[n_across:, 0] = index[:-1, :][down]
        pairs[n_across:, 1] = index[1:, :][down]
        south, north = across_id[1:][faces], across_id[:-1][faces]
        east, west = down_id[:, 1:][faces], down_id[:, :-1][faces]
        if srf.corners[0] is _SW:  # up: SW -> SE -> NE -> NW
            order = (south, east, north, west)
        else:  # down: NW -> NE -> SE -> SW
            order = (north, east, south, west)
        for k, ids in enumerate(order):
            corner_edges[:, k] = ids
        return pairs
    f = len(quads)
    pairs = np.empty((n + 2 * f, 2), dtype=np.int32)
    pairs[:n, 0] = np.arange(v0, v0 + n, dtype=np.int32)
    pairs[:n, 1] = pairs[:n, 0] + np.int32(n)
    a, b = quads[:, 0], quads[:, 1]
    np.minimum(a, b, out=pairs[n : n + f, 0])
    np.maximum(a, b, out=pairs[n : n + f, 1])
    pairs[n + f :] = pairs[n : n + f] + np.int32(n)
    face = np.arange(e0 + n, e0 + n + f, dtype=np.int32)
    corner_edges[:, 0] = face  # a -> b, bottom
    corner_edges[:, 1] = b - np.int32(v0 - e0)  # b -> b top: the vertical edge at b
    corner_edges[:, 2] = face + np.int32(f)  # top
    corner_edges[:, 3] = a - np.int32(v0 - e0)  # a top -> a: the vertical edge at a
    return pairs


def level_quads(
    level: Level,
    *,
    cell_size: float = 2.0,
    wall_height: float = 3.0,
    ceiling: bool = False,
    origin: Sequence[float] = (0.0, 0.0, 0.0),
) -> LevelQuads:
    """The level's floor, walls and optional ceiling as quads (see the module docstring for the frame).

    Parameters
    ----------
    level : Level
        At most :data:`MAX_MESH_CELLS` cells (refused before anything is allocated).
    cell_size : float, optional
        Side of a cell in metres, within :data:`CELL_SIZE`.
    wall_height : float, optional
        Metres from the floor to the wall tops (and the ceiling), within :data:`WALL_HEIGHT`.
    ceiling : bool, optional
        Add a ceiling over the walkable cells, facing down (material 2).
    origin : (3,) sequence of float, optional
        Blender position of the level's south-west floor corner.

    Returns
    -------
    quads : LevelQuads
        Surfaces in the order floor, wall tops, ceiling, sides facing -Y, +Y, +X, -X.

    Examples
    --------
    >>> import numpy as np
    >>> from core.levels import Level
    >>> g = np.zeros((3, 3), np.uint8); g[1, 1] = 1          # one floor cell walled in
    >>> q = level_quads(Level(grid=g), cell_size=2.0, wall_height=3.0)
    >>> q.n_quads, int((q.materials == 0).sum()), int((q.materials == 1).sum())
    (13, 1, 12)
    """
    return _quads(level, cell_size, wall_height, ceiling, origin, with_edges=True)


def _quads(
    level: object,
    cell_size: float,
    wall_height: float,
    ceiling: bool,
    origin: Sequence[float] | npt.NDArray[np.float64],
    *,
    with_edges: bool,
) -> LevelQuads:
    level = check_level(level)
    _check_size(level)
    cs = check_float(cell_size, name="cell_size", bounds=CELL_SIZE)
    wh = check_float(wall_height, name="wall_height", bounds=WALL_HEIGHT)
    ceiling = check_bool(ceiling, name="ceiling")
    origin = np.array(check_origin(origin), dtype=np.float64)

    walk = level.walkable
    h, w = walk.shape
    j = np.arange(w + 1, dtype=np.float64)[None, :] * cs  # local metres of corner column j
    i = (h - np.arange(h + 1, dtype=np.float64))[:, None] * cs  # local metres of corner row i
    width, height = w * cs, h * cs
    up, down = (0.0, 0.0, 1.0), (0.0, 0.0, -1.0)
    surfaces = [
        _Surface(walk, (_SW, _SE, _NE, _NW), up, FLOOR_SLOT, (0.0,), j, i),
        _Surface(~walk, (_SW, _SE, _NE, _NW), up, WALL_SLOT, (wh,), j, i),
    ]
    if ceiling:
        surfaces.append(_Surface(walk, (_NW, _NE, _SE, _SW), down, CEILING_SLOT, (wh,), j, i))
    pad = np.zeros((h + 2, w + 2), dtype=bool)  # outside the map counts as wall
    pad[1:-1, 1:-1] = walk
    # Horizontal edges (H+1, W): line i between cell rows i-1 (north) and i (south), cell column c;
    # the edge's corners are (i, c) = [:, :-1] (west end) and (i, c+1) = [:, 1:] (east end).
    north, south = pad[:-1, 1:-1], pad[1:, 1:-1]
    west_end, east_end = np.s_[:, :-1], np.s_[:, 1:]
    # Vertical edges (H, W+1): line j between cell columns j-1 (west) and j (east), cell row r;
    # the edge's corners are (r, j) = [:-1, :] (north end) and (r+1, j) = [1:, :] (south end).
    west, east = pad[1:-1, :-1], pad[1:-1, 1:]
    north_end, south_end = np.s_[:-1, :], np.s_[1:, :]
    sides = (0.0, wh)
    surfaces += [
        # walkable south of a wall: the face looks south (-Y), left to right = west to east
        _Surface(south & ~north, (west_end, east_end), (0.0, -1.0, 0.0), WALL_SLOT, sides, j, None),
        # walkable north: looks north (+Y), east to west
        _Surface(north & ~south, (east_end, west_end), (0.0, 1.0, 0.0), WALL_SLOT, sides, width - j, None),
        # walkable east: looks east (+X), south to north
        _Surface(east & ~west, (south_end, north_end), (1.0, 0.0, 0.0), WALL_SLOT, sides, i, None),
        # walkable west: looks west (-X), north to south
        _Surface(west & ~east, (north_end, south_end), (-1.0, 0.0, 0.0), WALL_SLOT, sides, height - i, None),
    ]
    return _build(surfaces, (h, w), cs, origin, with_edges)


def level_mesh(
    level: object,
    *,
    cell_size: float = 2.0,
    wall_height: float = 3.0,
    ceiling: bool = False,
    origin: Sequence[float] = (0.0, 0.0, 0.0),
) -> IndexedMesh:
    """The level as an :class:`~core.mesh.IndexedMesh` of triangles (for engines and exports).

    The same vertices, UVs and normals as :func:`level_quads`; each quad ``(a, b, c, d)`` becomes the
    triangles ``(a, b, c)`` and ``(a, c, d)``; ``materials`` per triangle (0 floor, 1 wall,
    2 ceiling).  Indices are uint16 up to 65,535 vertices and uint32 beyond.

    Parameters are those of :func:`level_quads`.

    Examples
    --------
    >>> import numpy as np
    >>> from core.levels import Level
    >>> g = np.ones((2, 2), np.uint8)                          # four floor cells, walls all round
    >>> m = level_mesh(Level(grid=g), cell_size=1.0, wall_height=2.0)
    >>> m.n_vertices, m.n_triangles, m.indices.dtype
    (33, 24, dtype('uint16'))
    """
    q = _quads(level, cell_size, wall_height, ceiling, origin, with_edges=False)  # triangles need no edges
    return IndexedMesh(
        vertices=q.vertices,
        indices=q.triangles(),
        uvs=q.uvs,
        normals=q.normals,
        materials=np.repeat(q.materials, 2),
    )
