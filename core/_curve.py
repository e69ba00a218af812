"""The artist's height curve: a monotone cubic (Fritsch–Carlson / PCHIP) through control points.

Public through :mod:`.heightmap` (``curve_remap``, ``CURVE_POINTS``).
"""

import numpy as np
import numpy.typing as npt

from ._checks import check_array, check_heights
from .errors import ParameterError

#: Number of control points of a height curve.
CURVE_POINTS = (2, 64)


def _curve_points(points: npt.ArrayLike) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    pts = check_array(points, name="points", ndim=2, shape=(None, 2))
    n = pts.shape[0]
    if not CURVE_POINTS[0] <= n <= CURVE_POINTS[1]:
        raise ParameterError(f"points must hold between {CURVE_POINTS[0]} and {CURVE_POINTS[1]} (x, y) pairs, got {n}")
    if pts.min() < 0 or pts.max() > 1:
        raise ParameterError(f"points must have x and y in [0, 1], got values in [{pts.min():g}, {pts.max():g}]")
    pts = pts[np.argsort(pts[:, 0], kind="stable")].astype(np.float64)
    if not (np.diff(pts[:, 0]) > 0).all():
        raise ParameterError(f"points must have distinct x values, got x = {pts[:, 0].tolist()}")
    return pts[:, 0], pts[:, 1]


def _pchip_slopes(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Fritsch-Carlson tangents (the rule SciPy's PchipInterpolator uses)."""
    hk = np.diff(x)
    delta = np.diff(y) / hk
    m = np.zeros_like(y)
    if len(x) == 2:
        m[:] = delta[0]
        return m
    # interior: weighted harmonic mean of the secants, 0 at local extrema
    w1 = 2 * hk[1:] + hk[:-1]
    w2 = hk[1:] + 2 * hk[:-1]
    same = (delta[:-1] * delta[1:]) > 0
    with np.errstate(all="ignore"):  # tiny secants may overflow to inf -> 0
        harmonic = (w1 + w2) / (w1 / delta[:-1] + w2 / delta[1:])
    m[1:-1] = np.where(same, harmonic, 0.0)

    def edge(
        h0: float, h1: float, d0: float, d1: float
    ) -> float:  # one-sided three-point estimate, kept shape-preserving
        d = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1)
        if np.sign(d) != np.sign(d0):
            return 0.0
        if np.sign(d0) != np.sign(d1) and abs(d) > abs(3 * d0):
            return 3 * d0
        return d

    m[0] = edge(hk[0], hk[1], delta[0], delta[1])
    m[-1] = edge(hk[-1], hk[-2], delta[-1], delta[-2])
    return m


def curve_remap(h: npt.ArrayLike, *, points: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Remap heights through an artist's curve, a monotone cubic through control points.

    Parameters
    ----------
    h : (M, N) array_like of float
        Heights; values left of the first control point's x take its y, values
        right of the last one take the last y.
    points : (K, 2) array_like of float
        ``(x, y)`` control points in [0, 1], ``K`` within ``CURVE_POINTS`` =
        (2, 64), in any order; after sorting by x, the x values must be
        strictly increasing.

    Returns
    -------
    out : (M, N) float32 ndarray
        Passes through every control point and never overshoots: between two
        neighbouring points the curve stays between their y values, and it is
        monotone wherever the points are.

    Notes
    -----
    Piecewise cubic Hermite interpolation (PCHIP) with Fritsch-Carlson
    tangents: interior tangents are the weighted harmonic mean of the two
    neighbouring secants, or 0 where the secants change sign; end tangents use
    the shape-preserving three-point formula.  This is the construction of
    SciPy's ``PchipInterpolator``, written here in numpy.  Two points give a
    straight line.

    References
    ----------
    F. N. Fritsch and R. E. Carlson, "Monotone Piecewise Cubic Interpolation",
    SIAM J. Numer. Anal. 17(2), 1980.

    Examples
    --------
    >>> print(curve_remap([[0.0, 0.25, 0.5, 1.0]], points=[(0, 0), (0.5, 0.2), (1, 1)]))
    [[0.   0.06 0.2  1.  ]]
    """
    arr = check_heights(h)
    x, y = _curve_points(points)
    m = _pchip_slopes(x, y)
    # cubic per interval in the local coordinate s = h - x_i:  y_i + s*(m_i + s*(c2 + s*c3))
    hk = np.diff(x)
    delta = np.diff(y) / hk
    c2 = (3 * delta - 2 * m[:-1] - m[1:]) / hk
    c3 = (m[:-1] + m[1:] - 2 * delta) / hk**2
    f32 = np.float32
    xs = np.clip(arr, float(x[0]), float(x[-1])).astype(np.float32, copy=False)
    i = np.searchsorted(x[1:-1].astype(np.float32), xs, side="right")  # interval index 0..K-2
    s = xs - x[:-1].astype(f32)[i]
    out = c3.astype(f32)[i]
    out *= s
    out += c2.astype(f32)[i]
    out *= s
    out += m[:-1].astype(f32)[i]
    out *= s
    out += y[:-1].astype(f32)[i]
    # float rounding must not poke out of the interval's y range (no overshoot, even in the last bit)
    lo = np.minimum(y[:-1], y[1:]).astype(f32)
    hi = np.maximum(y[:-1], y[1:]).astype(f32)
    np.clip(out, lo[i], hi[i], out=out)
    # the last point is reached at s = x[-1] - x[-2] in float32; pin it (and the clamp beyond) exactly
    np.copyto(out, f32(y[-1]), where=xs >= f32(x[-1]))
    return out
