"""Low-poly meshes of a settlement: houses (foundation, walls, gable or hip roof), the pad, the
streets and a town's wall; flat-shaded (every face its own corners), vertices relative to the
site's centre at its pad's height.  Material slots: :data:`MATERIALS`."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..mesh import IndexedMesh, index_dtype, vertex_normals
from ._layout import WALL_HEIGHT, WALL_THICKNESS, Building, Site

__all__ = ["MATERIALS", "house_mesh", "site_meshes"]

F64 = npt.NDArray[np.float64]
#: Material slot names, in slot order.
MATERIALS = ("walls", "roof", "foundation", "ground", "stone")
#: Heights of the pad's and the streets' surfaces above the pad (against z-fighting), metres.
PAD_LIFT = 0.02
STREET_LIFT = 0.04


class _Faces:
    """Faces gathered one at a time (quads split in two), each with its own corners."""

    def __init__(self) -> None:
        self.verts: list[F64] = []
        self.mats: list[int] = []

    def tri(self, a: F64, b: F64, c: F64, mat: int) -> None:
        self.verts.append(np.array([a, b, c], np.float64))
        self.mats.append(mat)

    def quad(self, a: F64, b: F64, c: F64, d: F64, mat: int) -> None:
        self.tri(a, b, c, mat)
        self.tri(a, c, d, mat)

    def mesh(self, origin: tuple[float, float, float]) -> IndexedMesh:
        corners = np.concatenate(self.verts) if self.verts else np.zeros((0, 3))
        v = (corners - np.asarray(origin, np.float64)).astype(np.float32)
        n = v.shape[0]
        tris = np.arange(n, dtype=np.int64).reshape(-1, 3)
        normals = vertex_normals(v, tris) if n else np.zeros((0, 3), np.float32)
        uvs = np.stack([(v[:, 0] + v[:, 1]) * 0.25, v[:, 2] * 0.25], axis=1).astype(np.float32)
        return IndexedMesh(
            vertices=v,
            indices=tris.astype(index_dtype(n)),
            uvs=uvs,
            normals=np.asarray(normals, np.float32),
            materials=np.array(self.mats, np.uint8),
        )


def _length(d: F64) -> float:
    """Length of a 2D vector (``sqrt`` of the sum of squares: the same bits on every machine, where
    the C library's ``hypot`` need not be)."""
    return float(np.sqrt(d[0] * d[0] + d[1] * d[1]))


def _at(p: F64, z: float) -> F64:
    return np.array([p[0], p[1], z], np.float64)


def _house(f: _Faces, b: Building) -> None:
    p = b.footprint
    if _length(p[2] - p[1]) > _length(p[1] - p[0]):  # the ridge along the longer side
        p = p[[1, 2, 3, 0]]
    eaves = b.floor + b.height
    for i in range(4):
        a, c = p[i], p[(i + 1) % 4]
        f.quad(_at(a, b.base), _at(c, b.base), _at(c, b.floor), _at(a, b.floor), 2)
        f.quad(_at(a, b.floor), _at(c, b.floor), _at(c, eaves), _at(a, eaves), 0)
    m30, m12 = (p[3] + p[0]) / 2.0, (p[1] + p[2]) / 2.0
    top = eaves + b.roof_height
    if b.roof == "hip":
        along = m12 - m30
        length = _length(along)
        inset = min(0.5 * _length(p[2] - p[1]), 0.45 * length)
        step = along / length * inset
        ra, rb = _at(m30 + step, top), _at(m12 - step, top)
    else:
        ra, rb = _at(m30, top), _at(m12, top)
    end = 1 if b.roof == "hip" else 0
    f.quad(_at(p[0], eaves), _at(p[1], eaves), rb, ra, 1)
    f.quad(_at(p[2], eaves), _at(p[3], eaves), ra, rb, 1)
    f.tri(_at(p[1], eaves), _at(p[2], eaves), rb, end)
    f.tri(_at(p[3], eaves), _at(p[0], eaves), ra, end)


def house_mesh(building: Building, origin: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> IndexedMesh:
    """One house's mesh (foundation to the ground's lowest corner, walls, roof), minus ``origin``."""
    f = _Faces()
    _house(f, building)
    return f.mesh(origin)


def _disc(f: _Faces, centre_xy: tuple[float, float], outline: F64, z: float, mat: int) -> None:
    centre = np.array([centre_xy[0], centre_xy[1], z], np.float64)
    n = len(outline)
    for i in range(n):
        f.tri(centre, _at(outline[i], z), _at(outline[(i + 1) % n], z), mat)


def site_meshes(site: Site) -> dict[str, IndexedMesh]:
    """The meshes of a site by part: ``Pad`` (its levelled ground), ``Streets``, ``Buildings`` and,
    for a walled town, ``Wall``; vertices relative to (centre x, centre y, pad z)."""
    origin = (site.centre[0], site.centre[1], site.z)
    out: dict[str, IndexedMesh] = {}
    pad = _Faces()
    _disc(pad, site.centre, site.outline, site.z + PAD_LIFT, 3)
    out["Pad"] = pad.mesh(origin)
    streets = _Faces()
    for rect in site.streets:
        p0, p1, p2, p3 = (_at(q, site.z + STREET_LIFT) for q in rect)
        streets.quad(p0, p1, p2, p3, 2)
    out["Streets"] = streets.mesh(origin)
    houses = _Faces()
    for b in site.buildings:
        _house(houses, b)
    out["Buildings"] = houses.mesh(origin)
    if len(site.wall):
        wall = _Faces()
        low, high = site.z - 0.5, site.z + WALL_HEIGHT
        for a, c in site.wall:
            d = c - a
            n = np.array([d[1], -d[0]]) / _length(d) * (WALL_THICKNESS / 2.0)
            q = [a + n, c + n, c - n, a - n]  # outer side first (the ring runs counter-clockwise)
            for i in range(4):
                u, w = q[i], q[(i + 1) % 4]
                wall.quad(_at(u, low), _at(w, low), _at(w, high), _at(u, high), 4)
            t0, t1, t2, t3 = (_at(x, high) for x in q)
            wall.quad(t0, t1, t2, t3, 4)
        out["Wall"] = wall.mesh(origin)
    return out
