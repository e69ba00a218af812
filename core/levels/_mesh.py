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

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import check_bool, check_float
from ..errors import ParameterError, short
from ..mesh import IndexedMesh, PolygonTopology, index_dtype, polygon_topology

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

#: Most cells a level mesh is built for (2048 x 2048: at worst some 40 M vertices, about 2 GB of arrays).
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
    """

    vertices: np.ndarray
    quads: np.ndarray
    uvs: np.ndarray
    normals: np.ndarray
    materials: np.ndarray

    @property
    def n_vertices(self):
        """Number of vertices ``V``."""
        return len(self.vertices)

    @property
    def n_quads(self):
        """Number of quads ``F``."""
        return len(self.quads)

    def corner_uvs(self):
        """(4 F, 2) float32 UVs per corner, in the order of ``quads.ravel()`` (Blender's UV layer)."""
        return self.uvs[self.quads.ravel()]

    def topology(self) -> PolygonTopology:
        """Blender topology (loop starts, corner vertices, edges, corner edges) of the quads."""
        return polygon_topology(self.quads)

    def triangles(self):
        """(2 F, 3) triangles: quad ``(a, b, c, d)`` becomes ``(a, b, c)`` and ``(a, c, d)``."""
        q = self.quads
        tri = np.empty((len(q), 2, 3), dtype=index_dtype(len(self.vertices)))
        tri[:, 0] = q[:, :3]
        tri[:, 1, 0] = q[:, 0]
        tri[:, 1, 1:] = q[:, 2:]
        return tri.reshape(-1, 3)


def check_origin(origin, *, name="origin"):
    """``origin`` as three finite floats within +-1e7 metres."""
    try:
        values = tuple(origin)
    except TypeError:
        raise ParameterError(f"{name} must be three numbers (x, y, z) in metres, got {short(origin)}") from None
    if len(values) != 3:
        raise ParameterError(f"{name} must be three numbers (x, y, z) in metres, got {short(origin)}")
    bounds = (-_ORIGIN_REACH, _ORIGIN_REACH)
    return tuple(check_float(v, name=f"{name}[{k}]", bounds=bounds) for k, v in enumerate(values))


def check_level(level, *, name="level"):
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
    return level


def _check_size(level):
    h, w = level.grid.shape
    if h * w > MAX_MESH_CELLS:
        raise ParameterError(
            f"level {w} x {h} has {h * w:,} cells, more than the {MAX_MESH_CELLS:,} (2048 x 2048) "
            "a level mesh may have (it would exhaust memory)"
        )
    if h * w == 0:
        raise ParameterError(f"level must have at least one cell, got a {w} x {h} grid")


class _Builder:
    """Collects surfaces: vertices, uvs, normals per surface and quads with their slot."""

    def __init__(self, shape, cell_size, origin):
        self.h, self.w = shape
        self.cs = cell_size
        self.origin = origin
        self.parts = []  # (vertices, uvs, normal, quads (local), slot)
        self.count = 0

    def corner_xy(self, i, j):
        """Local metres (from the south-west corner) of grid corners (i, j)."""
        return j * self.cs, (self.h - i) * self.cs

    def add(self, xyz_local, uv, normal, quads, slot):
        self.parts.append((xyz_local, uv, normal, quads + self.count, slot))
        self.count += len(xyz_local)

    def flat(self, cells, z, *, up, slot):
        """One vertex per used grid corner; one quad per True cell, facing +Z (``up``) or -Z."""
        h, w = self.h, self.w
        used = np.zeros((h + 1, w + 1), dtype=bool)
        used[:-1, :-1] |= cells
        used[:-1, 1:] |= cells
        used[1:, :-1] |= cells
        used[1:, 1:] |= cells
        index = np.cumsum(used, dtype=np.int64).reshape(used.shape) - 1
        i, j = np.nonzero(used)
        x, y = self.corner_xy(i, j)
        xyz = np.empty((len(i), 3), dtype=np.float64)
        xyz[:, 0] = x
        xyz[:, 1] = y
        xyz[:, 2] = z
        r, c = np.nonzero(cells)
        # counter-clockwise seen from +Z: south-west, south-east, north-east, north-west
        quads = np.stack([index[r + 1, c], index[r + 1, c + 1], index[r, c + 1], index[r, c]], axis=1)
        if not up:
            quads = quads[:, ::-1]
        self.add(xyz, xyz[:, :2].copy(), (0.0, 0.0, 1.0 if up else -1.0), quads, slot)

    def sides(self, ia, ja, ib, jb, normal, u_of, wall_height):
        """Vertical quads from corner A to corner B (seen from the front: A left, B right)."""
        if len(ia) == 0:
            return
        used = np.zeros((self.h + 1, self.w + 1), dtype=bool)
        used[ia, ja] = True
        used[ib, jb] = True
        index = np.cumsum(used, dtype=np.int64).reshape(used.shape) - 1
        i, j = np.nonzero(used)
        n = len(i)
        x, y = self.corner_xy(i, j)
        xyz = np.empty((2 * n, 3), dtype=np.float64)
        xyz[:n, 0] = xyz[n:, 0] = x
        xyz[:n, 1] = xyz[n:, 1] = y
        xyz[:n, 2] = 0.0
        xyz[n:, 2] = wall_height
        uv = np.empty((2 * n, 2), dtype=np.float64)
        uv[:n, 0] = uv[n:, 0] = u_of(x, y)
        uv[:, 1] = xyz[:, 2]
        a, b = index[ia, ja], index[ib, jb]
        quads = np.stack([a, b, b + n, a + n], axis=1)
        self.add(xyz, uv, normal, quads, WALL_SLOT)

    def finish(self):
        n = self.count
        vertices = np.empty((n, 3), dtype=np.float32)
        uvs = np.empty((n, 2), dtype=np.float32)
        normals = np.empty((n, 3), dtype=np.float32)
        start = 0
        for xyz, uv, normal, _, _ in self.parts:
            end = start + len(xyz)
            # local metres + origin in float64, then one rounding to float32
            np.add(xyz, self.origin, out=xyz)
            vertices[start:end] = xyz
            uvs[start:end] = uv
            normals[start:end] = normal
            start = end
        # the floor surface is always a part (maybe of no quads), so the lists are never empty
        quads = np.concatenate([p[3].reshape(-1, 4) for p in self.parts]).astype(np.int32)
        slots = np.concatenate([np.full(len(p[3]), p[4], np.uint8) for p in self.parts])
        return LevelQuads(vertices=vertices, quads=quads, uvs=uvs, normals=normals, materials=slots)


def level_quads(level, *, cell_size=2.0, wall_height=3.0, ceiling=False, origin=(0.0, 0.0, 0.0)):
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
    check_level(level)
    _check_size(level)
    cs = check_float(cell_size, name="cell_size", bounds=CELL_SIZE)
    wh = check_float(wall_height, name="wall_height", bounds=WALL_HEIGHT)
    ceiling = check_bool(ceiling, name="ceiling")
    origin = np.array(check_origin(origin), dtype=np.float64)

    walk = level.walkable
    h, w = walk.shape
    b = _Builder((h, w), cs, origin)
    b.flat(walk, 0.0, up=True, slot=FLOOR_SLOT)
    b.flat(~walk, wh, up=True, slot=WALL_SLOT)
    if ceiling:
        b.flat(walk, wh, up=False, slot=CEILING_SLOT)

    pad = np.zeros((h + 2, w + 2), dtype=bool)  # outside the map counts as wall
    pad[1:-1, 1:-1] = walk
    # Horizontal edges: line i (0..H) between cell rows i-1 (north) and i (south), cell column c.
    north, south = pad[:-1, 1:-1], pad[1:, 1:-1]  # (H+1, W)
    width, height = w * cs, h * cs
    i, c = np.nonzero(south & ~north)  # walkable south of a wall: face looks south (-Y), runs west to east
    b.sides(i, c, i, c + 1, (0.0, -1.0, 0.0), lambda x, y: x, wh)
    i, c = np.nonzero(north & ~south)  # walkable north: face looks north (+Y), runs east to west
    b.sides(i, c + 1, i, c, (0.0, 1.0, 0.0), lambda x, y: width - x, wh)
    # Vertical edges: line j (0..W) between cell columns j-1 (west) and j (east), cell row r.
    west, east = pad[1:-1, :-1], pad[1:-1, 1:]  # (H, W+1)
    r, j = np.nonzero(east & ~west)  # walkable east: face looks east (+X), runs south to north
    b.sides(r + 1, j, r, j, (1.0, 0.0, 0.0), lambda x, y: y, wh)
    r, j = np.nonzero(west & ~east)  # walkable west: face looks west (-X), runs north to south
    b.sides(r, j, r + 1, j, (-1.0, 0.0, 0.0), lambda x, y: height - y, wh)
    return b.finish()


def level_mesh(level, *, cell_size=2.0, wall_height=3.0, ceiling=False, origin=(0.0, 0.0, 0.0)):
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
    q = level_quads(level, cell_size=cell_size, wall_height=wall_height, ceiling=ceiling, origin=origin)
    return IndexedMesh(
        vertices=q.vertices,
        indices=q.triangles(),
        uvs=q.uvs,
        normals=q.normals,
        materials=np.repeat(q.materials, 2),
    )
