"""Improved Perlin noise (Perlin 2002) in two dimensions, vectorised.

Private kernels behind :mod:`worldseed.core.noise`. Everything here is plain
numpy with only IEEE-exact elementwise operations (+ - * /, floor, integer
ops and table look-ups), so the same inputs give the same bytes on any CPU.

Lattice and hash (Perlin's Java reference in the plane z = 0)::

    hash(X, Y) = p[p[p[X] + Y]]          p = the 256-permutation, doubled to 512
    gradient   = GRAD[hash & 15]         the 12 edge gradients (+4 repeats) at z = 0

The lattice repeats every 256 cells. For speed the hash is precomputed into a
padded (257, 257) table of gradient components, row = Y, column = X, so the
four corners of cell (X, Y) are at flat index ``k``, ``k + 1``, ``k + 257``
and ``k + 258`` with ``k = 257 Y + X`` (X, Y in 0..255)::

    k+257 -- k+258        (X, Y+1) -- (X+1, Y+1)
      |        |     =       |             |
      k  ---- k+1         (X, Y)   --  (X+1, Y)

Separable form used by both the grid and the point kernels (u, v are the
fractions in the cell, fu, fv their fades; gA, gB the gradients of the left
and right corner of a lattice row)::

    P_row(u) = gA.x * u (1 - fu) + gB.x * (u - 1) fu      "column factors"
    Q_row(u) = gA.y * (1 - fu)    + gB.y * fu
    n = (1-fv) P_Y + (1-fv) v Q_Y + fv P_Y+1 + fv (v-1) Q_Y+1

Within a band of rows sharing the lattice row Y, P and Q depend on the column
only, so a whole band is four outer products. Both kernels evaluate exactly
this sequence of float32 operations, so the grid and point paths agree bit
for bit.
"""
from __future__ import annotations

import numpy as np

__all__ = ["GRAD_X", "GRAD_Y", "REFERENCE_PERMUTATION", "fade", "hash_table",
           "gradient_tables", "perlin2", "PERIOD"]

#: The lattice (and the whole single-octave field) repeats every PERIOD cells.
PERIOD = 256
_W = PERIOD + 1          # padded table width


def _reference_gradients():
    """Gradient components of Perlin's ``grad(hash, x, y, 0)`` for hash 0..15."""
    gx = np.zeros(16, np.float32)
    gy = np.zeros(16, np.float32)
    for h in range(16):
        u = "x" if h < 8 else "y"
        v = "y" if h < 4 else ("x" if h in (12, 14) else "z")
        g = {"x": 0.0, "y": 0.0, "z": 0.0}
        g[u] += 1.0 if h & 1 == 0 else -1.0
        g[v] += 1.0 if h & 2 == 0 else -1.0
        gx[h], gy[h] = g["x"], g["y"]
    return gx, gy


#: x and y components of the 16 gradients (12 edges + 4 repeats) seen at z = 0.
GRAD_X, GRAD_Y = _reference_gradients()

#: Ken Perlin's reference permutation (used by the tests and as a hook).
REFERENCE_PERMUTATION = np.array([
    151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225, 140, 36, 103, 30, 69, 142,
    8, 99, 37, 240, 21, 10, 23, 190, 6, 148, 247, 120, 234, 75, 0, 26, 197, 62, 94, 252, 219, 203, 117,
    35, 11, 32, 57, 177, 33, 88, 237, 149, 56, 87, 174, 20, 125, 136, 171, 168, 68, 175, 74, 165, 71,
    134, 139, 48, 27, 166, 77, 146, 158, 231, 83, 111, 229, 122, 60, 211, 133, 230, 220, 105, 92, 41,
    55, 46, 245, 40, 244, 102, 143, 54, 65, 25, 63, 161, 1, 216, 80, 73, 209, 76, 132, 187, 208, 89,
    18, 169, 200, 196, 135, 130, 116, 188, 159, 86, 164, 100, 109, 198, 173, 186, 3, 64, 52, 217, 226,
    250, 124, 123, 5, 202, 38, 147, 118, 126, 255, 82, 85, 212, 207, 206, 59, 227, 47, 16, 58, 17, 182,
    189, 28, 42, 223, 183, 170, 213, 119, 248, 152, 2, 44, 154, 163, 70, 221, 153, 101, 155, 167, 43,
    172, 9, 129, 22, 39, 253, 19, 98, 108, 110, 79, 113, 224, 232, 178, 185, 112, 104, 218, 246, 97,
    228, 251, 34, 242, 193, 238, 210, 144, 12, 191, 179, 162, 241, 81, 51, 145, 235, 249, 14, 239,
    107, 49, 192, 214, 31, 181, 199, 106, 157, 184, 84, 204, 176, 115, 121, 50, 45, 127, 4, 150, 254,
    138, 236, 205, 93, 222, 114, 67, 29, 24, 72, 243, 141, 128, 195, 78, 66, 215, 61, 156, 180],
    dtype=np.int64)


def fade(t, out=None, tmp=None):
    """Perlin's quintic fade ``6t^5 - 15t^4 + 10t^3`` as ``t*t*t*(t*(t*6-15)+10)``.

    One fixed sequence of elementwise operations, so every caller rounds the
    same way; ``out`` and ``tmp`` (distinct from ``t``) avoid allocations.
    """
    dt = t.dtype.type
    a = np.multiply(t, dt(6), out=out)
    a -= dt(15)
    a *= t
    a += dt(10)
    b = np.multiply(t, t, out=tmp)
    b *= t
    a *= b
    return a


def hash_table(perm):
    """Padded (257, 257) int table ``H[Y, X] = p[p[p[X] + Y]]`` for X, Y in 0..256."""
    p = np.asarray(perm, dtype=np.int64)
    p2 = np.concatenate([p, p])
    xs = np.arange(_W)
    return p2[p2[p2[xs][None, :] + xs[:, None]]]


def gradient_tables(perm, orientation=0):
    """Flat padded gradient tables ``(gx, gy)`` (float32, 257*257 each).

    ``orientation`` (0..7) is a dihedral map M of the plane: bit 2 swaps the
    axes, bits 0 and 1 flip the first and second output axis. Perlin noise
    evaluated at ``M q`` equals Perlin noise at ``q`` with the gradient field
    ``g'(k) = M^T g(M k)`` (the fade weights are symmetric under M and the
    integer lattice is mapped onto itself), so an oriented octave needs only a
    remapped table and keeps the separable fast path.
    """
    swap, sx, sy = orientation & 4, (-1 if orientation & 1 else 1), (-1 if orientation & 2 else 1)
    ky, kx = np.meshgrid(np.arange(_W), np.arange(_W), indexing="ij")
    if swap:                                   # M k = (sx * ky, sy * kx)
        mx, my = (sx * ky) % PERIOD, (sy * kx) % PERIOD
    else:                                      # M k = (sx * kx, sy * ky)
        mx, my = (sx * kx) % PERIOD, (sy * ky) % PERIOD
    h = hash_table(perm)[my, mx] & 15
    gx, gy = GRAD_X[h], GRAD_Y[h]
    if swap:                                   # M^T g = (sy * g.y, sx * g.x)
        gx, gy = np.float32(sy) * gy, np.float32(sx) * gx
    else:
        gx, gy = np.float32(sx) * gx, np.float32(sy) * gy
    return np.ascontiguousarray(gx).ravel(), np.ascontiguousarray(gy).ravel()


# ---------------------------------------------------------------------------
# factor helpers (shared by both kernels so their rounding is identical)

class Workspace:
    """Preallocated buffers for ``point_octave`` on chunks of up to ``size`` points.

    Fresh chunk-sized temporaries would be new pages from the OS on every call
    (page faults cost more than the arithmetic), so the kernels write into these.
    """

    def __init__(self, size, dtype=np.float32):
        self.size = size
        self.f64 = [np.empty(size, np.float64) for _ in range(3)]
        self.idx = [np.empty(size, np.intp) for _ in range(3)]
        self.flt = [np.empty(size, dtype) for _ in range(12)]
        self.mask = np.empty(size, np.bool_)
        # for the callers (noise.py): coordinates, warped coordinates, an octave, warp fields
        self.coords = [np.empty(size, np.float64) for _ in range(3)]
        self.octave = np.empty(size, dtype)
        self.warp = [np.empty(size, dtype) for _ in range(2)]

    def view(self, n):
        return ([b[:n] for b in self.f64], [b[:n] for b in self.idx], [b[:n] for b in self.flt])


def lattice(coord, f, off, dtype=np.float32, out=None, f64=None):
    """Noise coordinate ``coord * f + off`` split into (cell index & 255, fraction).

    The product and the floor are float64, the fraction is then rounded to
    ``dtype`` -- precise far from the origin. Returns (intp index, fraction).
    ``out`` = (index, fraction) and ``f64`` = two float64 buffers avoid allocations.
    """
    n, fl = f64 if f64 is not None else (np.empty(coord.shape), np.empty(coord.shape))
    idx, frac = out if out is not None else (np.empty(coord.shape, np.intp),
                                             np.empty(coord.shape, dtype))
    np.multiply(coord, f, out=n)
    n += off
    np.floor(n, out=fl)
    n -= fl
    np.copyto(frac, n, casting="same_kind")
    np.copyto(idx, fl, casting="unsafe")      # |fl| < 2**62, checked by the caller
    idx &= PERIOD - 1
    return idx, frac


def column_factors(u, out=None, tmp=None):
    """(alpha, beta, gamma, fu) = (u(1-fu), (u-1)fu, 1-fu, fu) of the fraction ``u``."""
    dt = u.dtype.type
    alp, bet, gam, fu = out if out is not None else [np.empty_like(u) for _ in range(4)]
    fade(u, out=fu, tmp=tmp)
    np.subtract(dt(1), fu, out=gam)
    np.multiply(u, gam, out=alp)
    np.subtract(u, dt(1), out=bet)
    bet *= fu
    return alp, bet, gam, fu


def row_factors(v, amp, out=None, tmp=None):
    """(R1, R2, R3, R4) = amp * ((1-fv), (1-fv) v, fv, fv (v-1)) of the fraction ``v``."""
    dt = v.dtype.type
    r1, r2, r3, r4 = out if out is not None else [np.empty_like(v) for _ in range(4)]
    fade(v, out=r3, tmp=tmp)                  # fv
    np.subtract(dt(1), r3, out=r1)
    r1 *= dt(amp)
    np.multiply(r1, v, out=r2)
    r3 *= dt(amp)
    np.subtract(v, dt(1), out=r4)
    r4 *= r3
    return r1, r2, r3, r4


def point_octave(x, y, f, ox, oy, gx, gy, amp, acc, ws=None):
    """Add ``amp * perlin(x f + ox, y f + oy)`` to ``acc`` (1-D float arrays, in place).

    ``gx``/``gy`` are flat padded gradient tables of ``acc.dtype``; ``ws`` is a
    :class:`Workspace` of at least ``len(acc)`` points (allocated if None).
    """
    n = acc.shape[0]
    if ws is None:
        ws = Workspace(n, acc.dtype)
    f64, (ix, iy, _), flt = ws.view(n)
    f64 = f64[:2]
    u, v, alp, bet, gam, fu, r1, r2, r3, r4, t, side = flt
    lattice(x, f, ox, out=(ix, u), f64=f64)
    lattice(y, f, oy, out=(iy, v), f64=f64)
    k = iy
    k *= _W
    k += ix
    column_factors(u, out=(alp, bet, gam, fu), tmp=t)
    row_factors(v, amp, out=(r1, r2, r3, r4), tmp=t)
    # row Y: P0 then Q0, row Y+1: P1 then Q1, each added to acc as R * factor.
    # (mode="wrap" only because it is the fastest take; indices are always in range)
    for tx, ty, r_p, r_q in ((gx, gy, r1, r2), (gx[_W:], gy[_W:], r3, r4)):
        np.take(tx, k, out=t, mode="wrap")
        t *= alp
        np.take(tx[1:], k, out=side, mode="wrap")
        side *= bet
        t += side                       # P
        t *= r_p
        acc += t
        np.take(ty, k, out=t, mode="wrap")
        t *= gam
        np.take(ty[1:], k, out=side, mode="wrap")
        side *= fu
        t += side                       # Q
        t *= r_q
        acc += t
    return acc


def perlin2(x, y, perm=None, dtype=np.float32):
    """Single-octave improved Perlin noise at (x, y) with permutation ``perm``.

    Test hook: with ``perm=REFERENCE_PERMUTATION`` this equals Ken Perlin's
    reference ``noise(x, y, 0)``; ``dtype=np.float64`` computes the factor
    maths in double precision. Returns an array of the broadcast shape.
    """
    perm = REFERENCE_PERMUTATION if perm is None else perm
    x, y = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(y, np.float64))
    shape = x.shape
    gx, gy = gradient_tables(perm)
    acc = np.zeros(x.size, dtype)
    point_octave(x.ravel(), y.ravel(), 1.0, 0.0, 0.0, gx.astype(dtype), gy.astype(dtype), 1.0, acc)
    return acc.reshape(shape)
