"""Built-in props for scattering, so a new user gets a good result with no assets.

* `rock_mesh` -- an icosphere displaced by seeded 3-D noise, flattened
  underneath, with UVs and smooth normals.
* `grass_mesh` -- a clump of crossed, tapering, slightly leaning cards, each
  double-sided (a back copy with reversed winding), with UVs 0..1 per card.

Both return an :class:`core.mesh.IndexedMesh`, Z up, resting on z = 0 and
centred on the Z axis; the same seed gives the same bytes.

>>> rock_mesh(seed=1).n_vertices, grass_mesh(seed=1).n_triangles
(162, 12)
"""

import math

import numpy as np
import numpy.typing as npt

from .. import exact
from .._checks import Seed, check_float, check_int, make_rng
from ..mesh import IndexedMesh, index_dtype, vertex_normals

__all__ = ["rock_mesh", "grass_mesh", "icosphere", "DETAIL", "CARDS"]

DETAIL = (0, 5)
CARDS = (1, 12)


def _icosahedron() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    t = (1.0 + math.sqrt(5.0)) / 2.0
    v = np.array(
        [
            [-1, t, 0],
            [1, t, 0],
            [-1, -t, 0],
            [1, -t, 0],
            [0, -1, t],
            [0, 1, t],
            [0, -1, -t],
            [0, 1, -t],
            [t, 0, -1],
            [t, 0, 1],
            [-t, 0, -1],
            [-t, 0, 1],
        ],
        np.float64,
    )
    f = np.array(
        [
            [0, 11, 5],
            [0, 5, 1],
            [0, 1, 7],
            [0, 7, 10],
            [0, 10, 11],
            [1, 5, 9],
            [5, 11, 4],
            [11, 10, 2],
            [10, 7, 6],
            [7, 1, 8],
            [3, 9, 4],
            [3, 4, 2],
            [3, 2, 6],
            [3, 6, 8],
            [3, 8, 9],
            [4, 9, 5],
            [2, 4, 11],
            [6, 2, 10],
            [8, 6, 7],
            [9, 8, 1],
        ],
        np.int64,
    )
    return v / np.linalg.norm(v, axis=1, keepdims=True), f


def icosphere(detail: int = 2) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Unit icosphere: ``(vertices (V, 3) float64, faces (F, 3) int64)``, shared vertices, CCW outwards.

    Each level splits every triangle in four (``V = 10 * 4**detail + 2``).
    """
    detail = check_int(detail, name="detail", bounds=DETAIL)
    v, f = _icosahedron()
    for _ in range(detail):
        edges = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
        unique, inverse = np.unique(edges, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        mids = v[unique].mean(axis=1)
        mids /= np.linalg.norm(mids, axis=1, keepdims=True)
        m = len(v) + inverse.reshape(3, -1).T  # per face: mid of edge 01, 12, 20
        a, b, c = f.T
        ab, bc, ca = m.T
        f = np.concatenate(
            [
                np.column_stack([a, ab, ca]),
                np.column_stack([ab, b, bc]),
                np.column_stack([ca, bc, c]),
                np.column_stack([ab, bc, ca]),
            ]
        )
        v = np.concatenate([v, mids])
    return v, f


def rock_mesh(*, seed: Seed = 0, radius: float = 0.5, detail: int = 2, roughness: float = 0.35) -> IndexedMesh:
    """A rock: an icosphere of ``radius`` metres displaced by seeded 3-D noise.

    ``roughness`` (0..1) scales the displacement; the rock is squashed a
    little, its underside flattened, and it rests on z = 0.  UVs are a box
    projection (no seams, so no duplicated vertices).
    """
    radius = check_float(radius, name="radius", bounds=(0.001, 1000.0))
    roughness = check_float(roughness, name="roughness", bounds=(0.0, 1.0))
    rng = make_rng(seed)
    unit, faces = icosphere(detail)
    # a few octaves of random plane waves: smooth, seeded, isotropic 3-D noise
    d = np.zeros(len(unit))
    for octave in range(4):
        k = rng.normal(size=(6, 3)) * (1.6 * 2.0**octave)
        phase = rng.uniform(0, 2 * np.pi, 6)
        # the dot products written out (``unit @ k.T`` is BLAS, whose kernels differ between CPUs)
        waves = unit[:, 0, None] * k[:, 0] + unit[:, 1, None] * k[:, 1] + unit[:, 2, None] * k[:, 2]
        d += (0.5**octave) * exact.sin(waves + phase).sum(axis=1) / 6
    shape = rng.uniform(0.75, 1.1, 3) * np.array([1.0, 1.0, rng.uniform(0.55, 0.8)])
    v = unit * (1.0 + roughness * d)[:, None] * shape * radius
    floor = v[:, 2].min() + 0.25 * (v[:, 2].max() - v[:, 2].min())
    v[:, 2] = np.maximum(v[:, 2], floor) - floor
    lo, hi = v.min(axis=0), v.max(axis=0)
    span = float(max(hi - lo))
    uvs = np.column_stack([(v[:, 0] - lo[0] + v[:, 1] - lo[1]) / (2 * span), (v[:, 2] - lo[2]) / span])
    normals = vertex_normals(v, faces)
    return IndexedMesh(v.astype(np.float32), faces.astype(index_dtype(len(v))), uvs.astype(np.float32), normals)


def grass_mesh(*, seed: Seed = 0, height: float = 0.5, cards: int = 3, width: float = 0.35) -> IndexedMesh:
    """A grass clump: ``cards`` tapering cards crossing at the Z axis, each with a back face.

    Cards are ``width`` wide at the bottom (a third of that at the top),
    ``height`` tall (varied by the seed) and lean a little; UVs run 0..1
    across (u) and up (v) each card.
    """
    height = check_float(height, name="height", bounds=(0.001, 100.0))
    width = check_float(width, name="width", bounds=(0.001, 100.0))
    cards = check_int(cards, name="cards", bounds=CARDS)
    rng = make_rng(seed)
    angles = np.pi * (np.arange(cards) / cards + rng.uniform(-0.08, 0.08, cards))
    heights = height * rng.uniform(0.75, 1.15, cards)
    lean = rng.uniform(-0.15, 0.15, (cards, 2)) * heights[:, None]
    sin, cos = exact.sincos(angles)
    along = np.column_stack([cos, sin, np.zeros(cards)])
    u = np.array([0.0, 1.0, 0.5 + 1 / 6, 0.5 - 1 / 6])  # bottom left, bottom right, top right, top left
    up = np.array([0.0, 0.0, 1.0, 1.0])
    corners = (u - 0.5)[None, :, None] * width * along[:, None, :]
    corners[:, :, 2] = up[None, :] * heights[:, None]
    corners[:, 2:, :2] += lean[:, None, :]
    verts = np.concatenate([corners, corners], axis=1)  # front 0-3, back 4-7
    front = np.array([[0, 1, 2], [0, 2, 3]])
    back = np.array([[4, 6, 5], [4, 7, 6]])
    faces = (np.arange(cards) * 8)[:, None, None] + np.concatenate([front, back])[None]
    n = cards * 8
    v = verts.reshape(n, 3)
    f = faces.reshape(-1, 3)
    e1 = corners[:, 1] - corners[:, 0]
    e2 = corners[:, 3] - corners[:, 0]
    normal = np.cross(e1, e2)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    normals = np.concatenate([np.repeat(normal[:, None], 4, 1), np.repeat(-normal[:, None], 4, 1)], axis=1)
    uvs = np.tile(np.column_stack([u, up]), (cards * 2, 1))
    return IndexedMesh(
        v.astype(np.float32), f.astype(index_dtype(n)), uvs.astype(np.float32), normals.reshape(n, 3).astype(np.float32)
    )
