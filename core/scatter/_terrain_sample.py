"""Heights and normals of a heightmap terrain at arbitrary points, for the scatter.

Public through :mod:`.scatter` (`sample_heights`, `terrain_normals_at`).

Heights lie on the terrain's triangles (`triangle_heights`): the terrain mesh is a grid of
quads, exported to FBX as quads, and the reader cuts each quad in two.  Unity's importer reads
FBX with Autodesk's FBX SDK; ``ufbx`` (whose quad split aims to match that SDK's, ufbx issue
#11) cuts a quad ``v0 v1 v2 v3`` along the shorter diagonal in 3-D, ``v0 -- v2`` on a tie,
unless that folds the quad (its two triangles' normals more than 90 degrees apart) and the other
cut folds it less.  ``mesh.quad_split`` makes the same choice from the heights, so a prop stands
on the triangle the reader draws, not on a bilinear blend of the four corners (which lies up to
a quarter of the quad's twist above or below it).  Blender itself (its viewport, and the glTF
exporter, which writes ``loop_triangles``) always cuts corner 0 -- corner 2, so the terrain's
quads start where that is the same cut (``mesh.grid_turns``).  Normals stay smooth (vertex
normals blended).

A terrain of ``size`` metres is a ``(rows, cols)`` grid of heights in metres with square cells
of side ``size / (cols - 1)`` (as ``mesh.grid_mesh`` builds it with that ``cell_size``): row 0
at the smallest Y, column 0 at the smallest X, centred on the origin, so
``x in [-size/2, size/2]`` and ``y in [-extent_y/2, extent_y/2]`` with
``extent_y = cell * (rows - 1)`` (equal to ``size`` for a square heightmap).
"""

import numpy as np
import numpy.typing as npt

from .._checks import check_array, check_float
from ..errors import ParameterError
from ..heightmap import gradient
from ..mesh import quad_split

#: Terrain side in metres.
SIZE = (0.001, 10_000_000.0)


def check_terrain(heights: npt.ArrayLike, size: float) -> tuple[npt.NDArray[np.float64], float, float]:
    """Validated ``(heights float64 (rows, cols), size, cell)``; rows and cols at least 2."""
    h = check_array(heights, name="heights", ndim=2)
    if min(h.shape) < 2:
        raise ParameterError(f"heights must have at least 2 rows and 2 columns, got shape {h.shape}")
    size = check_float(size, name="size", bounds=SIZE)
    return h.astype(np.float64, copy=False), size, size / (h.shape[1] - 1)


def extent(h: npt.NDArray[np.float64], cell: float) -> tuple[float, float]:
    """``(width, height)`` of the terrain in metres."""
    return cell * (h.shape[1] - 1), cell * (h.shape[0] - 1)


def check_points(xy: npt.ArrayLike) -> npt.NDArray[np.float64]:
    p = check_array(xy, name="xy", ndim=2, shape=(None, 2))
    return p.astype(np.float64, copy=False)


def _cells(
    h: npt.NDArray[np.float64], cell: float, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Cell indices and fractions of centred points (clamped to the terrain)."""
    rows, cols = h.shape[:2]
    u = np.clip(x / cell + 0.5 * (cols - 1), 0.0, cols - 1.0)
    v = np.clip(y / cell + 0.5 * (rows - 1), 0.0, rows - 1.0)
    j = np.minimum(u.astype(np.intp), cols - 2)
    i = np.minimum(v.astype(np.intp), rows - 2)
    return i, j, u - j, v - i


def bilinear(
    grid: npt.NDArray[np.float64], cell: float, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Bilinear interpolation of a ``(rows, cols[, k])`` grid at centred points; (N[, k])."""
    i, j, t, u = _cells(grid, cell, x, y)
    if grid.ndim == 3:
        t, u = t[:, None], u[:, None]
    bottom = grid[i, j] + (grid[i, j + 1] - grid[i, j]) * t
    top = grid[i + 1, j] + (grid[i + 1, j + 1] - grid[i + 1, j]) * t
    return bottom + (top - bottom) * u


def triangle_heights(
    h: npt.NDArray[np.float64], cell: float, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Heights at centred points on the triangles of the terrain mesh, each quad cut as
    `quad_split` says: (N,) float64."""
    i, j, t, u = _cells(h, cell, x, y)
    z0, z1, z2, z3 = h[i, j], h[i, j + 1], h[i + 1, j + 1], h[i + 1, j]
    along_a = quad_split(z0, z1, z2, z3, cell)
    # v0 -- v2: triangle v0 v1 v2 below the diagonal (t >= u), v0 v2 v3 above it
    za = np.where(t >= u, z0 + (z1 - z0) * t + (z2 - z1) * u, z0 + (z2 - z3) * t + (z3 - z0) * u)
    # v1 -- v3: triangle v0 v1 v3 below it (t + u <= 1), v1 v2 v3 above it
    zb = np.where(t + u <= 1.0, z0 + (z1 - z0) * t + (z3 - z0) * u, z2 + (z2 - z3) * (t - 1.0) + (z2 - z1) * (u - 1.0))
    return np.where(along_a, za, zb)


def vertex_normals(h: npt.NDArray[np.float64], cell: float) -> npt.NDArray[np.float64]:
    """Unit normals ``(-dz/dx, -dz/dy, 1)`` normalised at every vertex: (rows, cols, 3) float64.

    The gradient is `heightmap.gradient`'s (central differences, one-sided on the edges), the
    one ``mesh.grid_mesh`` shades the terrain with.
    """
    dzdx, dzdy = gradient(h, cell_size=cell)
    n = np.stack([-dzdx.astype(np.float64), -dzdy.astype(np.float64), np.ones(h.shape)], axis=-1)
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    return n


def normals_at(
    h: npt.NDArray[np.float64], cell: float, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Bilinear blend of the vertex normals at centred points, renormalised: (N, 3)."""
    n = bilinear(vertex_normals(h, cell), cell, x, y)
    return n / np.linalg.norm(n, axis=1, keepdims=True)
