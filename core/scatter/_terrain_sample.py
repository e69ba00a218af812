"""Heights and normals of a heightmap terrain at arbitrary points (bilinear), for the scatter.

Public through :mod:`.scatter` (`sample_heights`, `terrain_normals_at`).

A terrain of ``size`` metres is a ``(rows, cols)`` grid of heights in metres with square cells
of side ``size / (cols - 1)`` (as ``mesh.grid_mesh`` builds it with that ``cell_size``): row 0
at the smallest Y, column 0 at the smallest X, centred on the origin, so
``x in [-size/2, size/2]`` and ``y in [-extent_y/2, extent_y/2]`` with
``extent_y = cell * (rows - 1)`` (equal to ``size`` for a square heightmap).
"""

from __future__ import annotations

import numpy as np

from .._checks import ParameterError, check_array, check_float
from ..heightmap import gradient

#: Terrain side in metres.
SIZE = (0.001, 10_000_000.0)


def check_terrain(heights, size):
    """Validated ``(heights float64 (rows, cols), size, cell)``; rows and cols at least 2."""
    h = check_array(heights, name="heights", ndim=2)
    if min(h.shape) < 2:
        raise ParameterError(f"heights must have at least 2 rows and 2 columns, got shape {h.shape}")
    size = check_float(size, name="size", bounds=SIZE)
    return h.astype(np.float64, copy=False), size, size / (h.shape[1] - 1)


def extent(h, cell):
    """``(width, height)`` of the terrain in metres."""
    return cell * (h.shape[1] - 1), cell * (h.shape[0] - 1)


def check_points(xy):
    p = check_array(xy, name="xy", ndim=2, shape=(None, 2))
    return p.astype(np.float64, copy=False)


def _cells(h, cell, x, y):
    """Cell indices and fractions of centred points (clamped to the terrain)."""
    rows, cols = h.shape[:2]
    u = np.clip(x / cell + 0.5 * (cols - 1), 0.0, cols - 1.0)
    v = np.clip(y / cell + 0.5 * (rows - 1), 0.0, rows - 1.0)
    j = np.minimum(u.astype(np.intp), cols - 2)
    i = np.minimum(v.astype(np.intp), rows - 2)
    return i, j, u - j, v - i


def bilinear(grid, cell, x, y):
    """Bilinear interpolation of a ``(rows, cols[, k])`` grid at centred points; (N[, k])."""
    i, j, t, u = _cells(grid, cell, x, y)
    if grid.ndim == 3:
        t, u = t[:, None], u[:, None]
    bottom = grid[i, j] + (grid[i, j + 1] - grid[i, j]) * t
    top = grid[i + 1, j] + (grid[i + 1, j + 1] - grid[i + 1, j]) * t
    return bottom + (top - bottom) * u


def vertex_normals(h, cell):
    """Unit normals ``(-dz/dx, -dz/dy, 1)`` normalised at every vertex: (rows, cols, 3) float64.

    The gradient is `heightmap.gradient`'s (central differences, one-sided on the edges), the
    one ``mesh.grid_mesh`` shades the terrain with.
    """
    dzdx, dzdy = gradient(h, cell_size=cell)
    n = np.stack([-dzdx.astype(np.float64), -dzdy.astype(np.float64), np.ones(h.shape)], axis=-1)
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    return n


def normals_at(h, cell, x, y):
    """Bilinear blend of the vertex normals at centred points, renormalised: (N, 3)."""
    n = bilinear(vertex_normals(h, cell), cell, x, y)
    return n / np.linalg.norm(n, axis=1, keepdims=True)
