"""Unit quaternions ``(w, x, y, z)`` in rows: products, rotations and the scatter's tilt-and-yaw.

Public through :mod:`.scatter`.  The convention is Blender's (``mathutils.Quaternion``):
right-handed, ``q v q*`` rotates ``v``, and ``multiply(a, b)`` applies ``b`` first.  Angles go
through :mod:`.exact` (the same bits on every CPU).
"""

import numpy as np
import numpy.typing as npt

from . import exact


def multiply(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Hamilton products ``a b`` of (N, 4) arrays (``b`` is applied first)."""
    aw, ax, ay, az = a.T
    bw, bx, by, bz = b.T
    return np.stack(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ],
        axis=1,
    )


def rotate(q: npt.NDArray[np.float64], v: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Vectors ``v`` (N, 3) rotated by unit quaternions ``q`` (N, 4)."""
    w, u = q[:, :1], q[:, 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def about_z(angle: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Rotations by ``angle`` (N,) radians about +Z."""
    h = 0.5 * np.asarray(angle, np.float64)
    z = np.zeros_like(h)
    s, c = exact.sincos(h)
    return np.stack([c, z, z, s], axis=1)


def tilt_towards(normals: npt.NDArray[np.float64], fraction: float, max_tilt: float) -> npt.NDArray[np.float64]:
    """Rotations that tip +Z towards ``normals`` (N, 3, unit) by ``fraction`` of the way, at most
    ``max_tilt`` radians, about the horizontal axis ``Z x n`` (the shortest arc, so no twist
    about the vertical)."""
    nz = np.clip(normals[:, 2], -1.0, 1.0)
    full = exact.acos(nz)  # angle between +Z and n
    angle = np.minimum(fraction * full, max_tilt)
    axis = np.stack([-normals[:, 1], normals[:, 0], np.zeros(len(normals))], axis=1)
    length = np.linalg.norm(axis, axis=1)
    flat = length < 1e-15  # n is vertical: no tilt
    axis[flat] = (1.0, 0.0, 0.0)
    length[flat] = 1.0
    angle = np.where(flat, 0.0, angle)
    s, c = exact.sincos(0.5 * angle)
    return np.concatenate([c[:, None], axis * (s / length)[:, None]], axis=1)
