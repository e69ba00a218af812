"""OpenSimplex2-style 2-D simplex noise, vectorised (private kernel of ``noise``).

Skew to the triangular lattice with F2 = (sqrt(3) - 1) / 2, find the cell
(i, j) and which of its two triangles holds the point (x0 > y0: lower), then
sum the three corner kernels ``max(0, 0.5 - r^2)^4 * (g . d)``; gradients are
24 unit vectors 15 degrees apart (7.5 degrees off the axes), picked by the same
hash chain as Perlin's, precomputed in a padded (257, 257) table. The 2-D
simplex lattice is not covered by the 3-D texture-synthesis patent (and that
patent has expired anyway).

Only IEEE-exact elementwise operations are used; the gradient components are
literal constants (no sin/cos at run time or import time).
"""

import math

import numpy as np
import numpy.typing as npt

from ._perlin import MAGIC, MAGIC_REACH, PERIOD, Workspace, hash_table

__all__ = ["F2", "G2", "NORMALISE", "gradient_tables", "grid_octave", "point_octave"]

F2 = 0.5 * (math.sqrt(3.0) - 1.0)  # skew   (x, y) -> (x + s, y + s),  s = (x + y) F2
G2 = (3.0 - math.sqrt(3.0)) / 6.0  # unskew (i, j) -> (i - t, j - t),  t = (i + j) G2
#: Scales the kernel sum into [-1, 1]: 1 / max over the cell of sum a^4 max_g(g . d)
#: for this gradient set (the same constant FastNoiseLite uses for OpenSimplex2).
NORMALISE = 99.83685446303647
_W = PERIOD + 1

# cos of 7.5, 22.5, 37.5, 52.5, 67.5, 82.5 degrees (the sines are the same list reversed)
_C = (
    0.9914448613738104,
    0.9238795325112867,
    0.7933533402912352,
    0.6087614290087207,
    0.3826834323650898,
    0.1305261922200516,
)


def _gradients() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    first = [(_C[k], _C[5 - k]) for k in range(6)]  # quadrant 1, 7.5 .. 82.5 deg
    quads = (
        [(c, s) for c, s in first]
        + [(-s, c) for c, s in first]
        + [(-c, -s) for c, s in first]
        + [(s, -c) for c, s in first]
    )
    g = np.array(quads, dtype=np.float64)
    return g[:, 0], g[:, 1]


GRAD_X, GRAD_Y = _gradients()

# float32 constants of the kernel, made once (a scalar made per call costs ~1 us, 80 calls an octave)
_HALF, _G2, _G2_M1, _2G2_M1 = (np.float32(v) for v in (0.5, G2, G2 - 1.0, 2.0 * G2 - 1.0))


def gradient_tables(perm: npt.ArrayLike) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Flat padded tables (gx, gy), float32, of the gradient at lattice (i, j) -> [j, i]."""
    h = hash_table(perm)  # 0..255
    k = (h * 3) >> 5  # 0..23, near-uniform
    return (GRAD_X[k].astype(np.float32).ravel(), GRAD_Y[k].astype(np.float32).ravel())


def _corner(
    dx: npt.NDArray[np.float32],
    dy: npt.NDArray[np.float32],
    gx: npt.NDArray[np.float32],
    gy: npt.NDArray[np.float32],
    k: npt.NDArray[np.intp],
    a: npt.NDArray[np.float32],
    t: npt.NDArray[np.float32],
    t2: npt.NDArray[np.float32],
    zero: npt.NDArray[np.float32],
) -> npt.NDArray[np.float32]:
    """a = max(0, .5 - dx^2 - dy^2)^4 (g . d) into ``a`` (float32); ``zero`` is an array of zeros.

    ``np.maximum`` against a zero array takes numpy's vector loop (against the
    scalar 0 it is ~4x slower); the two differ at most in the sign of a zero,
    which the squaring right after removes, so the bytes are the same.
    """
    np.multiply(dx, dx, out=a)
    np.multiply(dy, dy, out=t)
    a += t
    np.subtract(_HALF, a, out=a)
    np.maximum(a, zero, out=a)
    a *= a
    a *= a
    gx.take(k, None, t, "wrap")  # indices are in range; "wrap" is the fast take (np.take: ~3 us more)
    t *= dx
    gy.take(k, None, t2, "wrap")
    t2 *= dy
    t += t2
    a *= t
    return a


def point_octave(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    sx: float,
    sy: float,
    swap: bool,
    f: float,
    ox: float,
    oy: float,
    gx: npt.NDArray[np.float32],
    gy: npt.NDArray[np.float32],
    amp: float,
    acc: npt.NDArray[np.float32],
    ws: Workspace | None = None,
    near: bool | None = None,
) -> npt.NDArray[np.float32]:
    """Add ``amp * simplex(M (x, y) f + o)`` to ``acc`` (1-D float32, in place).

    M is the octave's dihedral orientation (``swap`` the axes, then multiply by
    the signs ``sx``, ``sy``), applied to the coordinates directly (on a grid,
    :func:`grid_octave` gives the same bytes faster). ``ws`` is a ``_perlin.Workspace``.
    ``near``: every skewed coordinate is below ``2 * _perlin.MAGIC_REACH`` (true
    when the unskewed ones are below ``MAGIC_REACH``; checked here if None), so the
    cell index is read from the float bits (no float -> int cast).
    """
    size = acc.shape[0]
    if ws is None:
        ws = Workspace(size)
    nx, ny, s = ws.simplex(size)[:3]
    if swap:
        x, y = y, x
    np.multiply(x, sx * f, out=nx)
    nx += ox
    np.multiply(y, sy * f, out=ny)
    ny += oy
    np.add(nx, ny, out=s)
    s *= F2
    nx += s
    ny += s
    return _skewed_octave(gx, gy, amp, acc, ws, near)


def grid_octave(
    xs: npt.NDArray[np.float64],
    ys: npt.NDArray[np.float64],
    sx: float,
    sy: float,
    swap: bool,
    f: float,
    ox: float,
    oy: float,
    gx: npt.NDArray[np.float32],
    gy: npt.NDArray[np.float32],
    amp: float,
    acc: npt.NDArray[np.float32],
    ws: Workspace | None = None,
    near: bool | None = None,
) -> npt.NDArray[np.float32]:
    """:func:`point_octave` at every grid point (``xs[c]``, ``ys[r]``), bit for bit.

    ``acc`` is the flat (row-major, ``len(ys) * len(xs)``) float32 sum. On a grid
    the scaled, offset coordinates depend on the column or the row only, so they
    are computed once per column and per row (the same float64 operations as
    :func:`point_octave`, hence the same values), and the skew ``s = (nx + ny)
    F2`` and the skewed coordinates ``nx + s``, ``ny + s`` are broadcast sums:
    three full float64 passes instead of seven, and no coordinate arrays.
    """
    rows, cols = len(ys), len(xs)
    size = rows * cols
    if ws is None:
        ws = Workspace(size)
    nx, ny, s = (b.reshape(rows, cols) for b in ws.simplex(size)[:3])
    if swap:  # the first noise axis follows the rows, the second the columns
        a = np.multiply(ys, sx * f)[:, None]
        b = np.multiply(xs, sy * f)[None, :]
    else:
        a = np.multiply(xs, sx * f)[None, :]
        b = np.multiply(ys, sy * f)[:, None]
    a += ox
    b += oy
    np.add(a, b, out=s)
    s *= F2
    np.add(s, a, out=nx)  # = a + s, as point_octave's nx += s
    np.add(s, b, out=ny)
    return _skewed_octave(gx, gy, amp, acc, ws, near)


def _skewed_octave(
    gx: npt.NDArray[np.float32],
    gy: npt.NDArray[np.float32],
    amp: float,
    acc: npt.NDArray[np.float32],
    ws: Workspace,
    near: bool | None,
) -> npt.NDArray[np.float32]:
    """The rest of an octave from the skewed coordinates in ``ws.f64[0]``, ``ws.f64[1]``."""
    nx, ny, _, i, j, k1, x0, y0, y1, x1, t, t2, a, n, zero, lower = ws.simplex(acc.shape[0])
    for c, idx in ((nx, i), (ny, j)):
        fl = idx.view(np.float64)  # the floor, then its bits: the index
        np.floor(c, out=fl)
        c -= fl  # skewed fractions in [0, 1), float64
        if near is None:
            near = max(-float(fl.min(initial=0.0)), float(fl.max(initial=0.0))) < 2 * MAGIC_REACH
        if not near:
            np.fmod(fl, PERIOD, out=fl)  # exact, so the sum below stays exact
        fl += MAGIC
        idx &= PERIOD - 1
    k = j
    k *= _W
    k += i  # corner 0: (i, j)
    x0[...] = nx  # float64 -> float32, as np.copyto (which costs ~1 us more a call)
    y0[...] = ny
    np.add(x0, y0, out=t)
    t *= _G2
    x0 -= t  # offsets from corner 0, unskewed, float32
    y0 -= t
    np.greater(x0, y0, out=lower)  # lower triangle: corner 1 = (i+1, j)
    i1 = x1  # 1.0 (lower) or 0.0, then x1 in place: few distinct buffers keep the chunk in cache
    i1[...] = lower
    np.add(y0, i1, out=y1)  # y0 - (1 - i1) + G2
    y1 += _G2_M1
    np.subtract(x0, i1, out=x1)
    x1 += _G2
    k1[...] = lower  # 1 (lower) or 0 (upper)
    k1 <<= 8
    np.subtract(k, k1, out=k1)
    k1 += _W  # k + 1 (lower: i+1) or k + 257 (upper: j+1)
    _corner(x0, y0, gx, gy, k, n, t, t2, zero)
    n += _corner(x1, y1, gx, gy, k1, a, t, t2, zero)
    x0 += _2G2_M1  # corner 2 = (i+1, j+1), in place of corner 0
    y0 += _2G2_M1
    n += _corner(x0, y0, gx[_W + 1 :], gy[_W + 1 :], k, a, t, t2, zero)  # tables read at k + 258
    n *= np.float32(NORMALISE * amp)
    acc += n
    return acc
