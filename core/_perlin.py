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

from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

__all__ = ["GRAD_X", "GRAD_Y", "REFERENCE_PERMUTATION", "fade", "hash_table", "gradient_tables", "perlin2", "PERIOD"]

#: The lattice (and the whole single-octave field) repeats every PERIOD cells.
PERIOD = 256
_W = PERIOD + 1  # padded table width

FloatT = TypeVar("FloatT", bound=np.floating[Any])


def _reference_gradients() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
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
# fmt: off
REFERENCE_PERMUTATION = np.array([
    151, 160, 137,  91,  90,  15, 131,  13, 201,  95,  96,  53, 194, 233,   7, 225,
    140,  36, 103,  30,  69, 142,   8,  99,  37, 240,  21,  10,  23, 190,   6, 148,
    247, 120, 234,  75,   0,  26, 197,  62,  94, 252, 219, 203, 117,  35,  11,  32,
     57, 177,  33,  88, 237, 149,  56,  87, 174,  20, 125, 136, 171, 168,  68, 175,
     74, 165,  71, 134, 139,  48,  27, 166,  77, 146, 158, 231,  83, 111, 229, 122,
     60, 211, 133, 230, 220, 105,  92,  41,  55,  46, 245,  40, 244, 102, 143,  54,
     65,  25,  63, 161,   1, 216,  80,  73, 209,  76, 132, 187, 208,  89,  18, 169,
    200, 196, 135, 130, 116, 188, 159,  86, 164, 100, 109, 198, 173, 186,   3,  64,
     52, 217, 226, 250, 124, 123,   5, 202,  38, 147, 118, 126, 255,  82,  85, 212,
    207, 206,  59, 227,  47,  16,  58,  17, 182, 189,  28,  42, 223, 183, 170, 213,
    119, 248, 152,   2,  44, 154, 163,  70, 221, 153, 101, 155, 167,  43, 172,   9,
    129,  22,  39, 253,  19,  98, 108, 110,  79, 113, 224, 232, 178, 185, 112, 104,
    218, 246,  97, 228, 251,  34, 242, 193, 238, 210, 144,  12, 191, 179, 162, 241,
     81,  51, 145, 235, 249,  14, 239, 107,  49, 192, 214,  31, 181, 199, 106, 157,
    184,  84, 204, 176, 115, 121,  50,  45, 127,   4, 150, 254, 138, 236, 205,  93,
    222, 114,  67,  29,  24,  72, 243, 141, 128, 195,  78,  66, 215,  61, 156, 180,
], dtype=np.int64)
# fmt: on


_CONSTANTS: dict[type[np.floating[Any]], tuple[Any, ...]] = {}


def _constants(dt: type[FloatT]) -> tuple[FloatT, FloatT, FloatT, FloatT]:
    """(6, 15, 10, 1) as scalars of the float type ``dt`` (made once: a scalar per call costs ~1 us)."""
    c = _CONSTANTS.get(dt)
    if c is None:
        c = _CONSTANTS[dt] = tuple(dt(v) for v in (6, 15, 10, 1))
    return c


def fade(
    t: npt.NDArray[FloatT], out: npt.NDArray[FloatT] | None = None, tmp: npt.NDArray[FloatT] | None = None
) -> npt.NDArray[FloatT]:
    """Perlin's quintic fade ``6t^5 - 15t^4 + 10t^3`` as ``t*t*t*(t*(t*6-15)+10)``.

    One fixed sequence of elementwise operations, so every caller rounds the
    same way; ``out`` and ``tmp`` (distinct from ``t``) avoid allocations.
    """
    k6, k15, k10, _ = _constants(t.dtype.type)
    a = np.multiply(t, k6, out=out)
    a -= k15
    a *= t
    a += k10
    b = np.multiply(t, t, out=tmp)
    b *= t
    a *= b
    return a


def hash_table(perm: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Padded (257, 257) int table ``H[Y, X] = p[p[p[X] + Y]]`` for X, Y in 0..256."""
    p = np.asarray(perm, dtype=np.int64)
    p2 = np.concatenate([p, p])
    xs = np.arange(_W)
    return p2[p2[p2[xs][None, :] + xs[:, None]]]


def gradient_tables(
    perm: npt.ArrayLike, orientation: int = 0
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
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
    if swap:  # M k = (sx * ky, sy * kx)
        mx, my = (sx * ky) % PERIOD, (sy * kx) % PERIOD
    else:  # M k = (sx * kx, sy * ky)
        mx, my = (sx * kx) % PERIOD, (sy * ky) % PERIOD
    h = hash_table(perm)[my, mx] & 15
    gx, gy = GRAD_X[h], GRAD_Y[h]
    if swap:  # M^T g = (sy * g.y, sx * g.x)
        gx, gy = np.float32(sy) * gy, np.float32(sx) * gx
    else:
        gx, gy = np.float32(sx) * gx, np.float32(sy) * gy
    return np.ascontiguousarray(gx).ravel(), np.ascontiguousarray(gy).ravel()


# ---------------------------------------------------------------------------
# workspace: preallocated, 4K-staggered buffers

#: x + _MAGIC (exact for integer x, |x| < 2**51) holds x in the low mantissa bits,
#: so ``(x + _MAGIC).view(int64) & 255`` is ``x mod 256`` without a float -> int cast.
MAGIC = _MAGIC = 6755399441055744.0  # 1.5 * 2**52
#: Noise coordinates below this (in magnitude) may use the _MAGIC index; beyond, fmod first.
MAGIC_REACH = 2.0**50
_PAGE = 4096


def _placed(shape: int | tuple[int, ...], dtype: npt.DTypeLike, pos: int, row_pos: int = 0) -> npt.NDArray[Any]:
    """Zero-copy-friendly buffer whose first element sits at address ``pos`` (mod 4096).

    Streams that start at the same address mod 4096 stall each other (4K
    aliasing: a load is held behind an older store to the same page offset), and
    every large allocation lands at the same page offset, which made in-place
    passes up to 3x slower. 2-D buffers get padded rows so row ``r`` starts at
    ``pos + r * row_pos`` (mod 4096); rows are contiguous, the array is not.
    """
    dtype = np.dtype(dtype)
    if isinstance(shape, int):
        shape = (shape,)
    n = shape[-1]
    row_bytes = n * dtype.itemsize
    stride = row_bytes + ((row_pos - row_bytes) % _PAGE) if len(shape) == 2 else row_bytes
    nbytes = stride * (shape[0] - 1) + row_bytes if len(shape) == 2 else row_bytes
    raw = np.empty(nbytes + _PAGE + dtype.itemsize, np.uint8)
    start = (pos - raw.ctypes.data) % _PAGE
    flat = raw[start : start + nbytes]
    if len(shape) == 1:
        return flat.view(dtype)
    return np.lib.stride_tricks.as_strided(
        flat.view(dtype), shape=shape, strides=(stride, dtype.itemsize), writeable=True
    )


class Workspace:
    """Preallocated buffers for the point kernels on chunks of up to ``size`` points.

    Fresh chunk-sized temporaries would be new pages from the OS on every call
    (page faults cost more than the arithmetic), so the kernels write into these.
    Buffers are created on first use, each at its own page offset (see
    :func:`_placed`): the offsets of the Perlin kernel's buffers are chosen so
    every out-of-place pass writes 128..1024 bytes (mod 4096) ahead of what it
    reads and no two operands of an in-place pass share a page offset.
    """

    # page offsets (bytes) of the Perlin point kernel's buffers; 2-D float rows 2112 apart
    _POS = dict(
        nb=1408,
        flx=1664,
        fly=1920,
        u=0,
        v=2048,
        au=128,
        bu=256,
        cu=384,
        du=512,
        av=2176,
        bv=2304,
        cv=2432,
        dv=2560,
        t=640,
        s=896,
        acc=1152,
        octave=2816,
        coords0=3072,
        coords1=3200,
        coords2=3328,
        warp0=3456,
        warp1=3584,
        ridge=3712,
    )
    _ROW, _ROW64 = 2112, 1024

    def __init__(self, size: int, dtype: npt.DTypeLike = np.float32) -> None:
        self.size = size
        self.dtype = np.dtype(dtype)
        self._bufs: dict[object, Any] = {}  # buffers, lists and tuples of views, made on first use

    def _get(self, name: str, rows: int | None = None, dtype: npt.DTypeLike | None = None) -> npt.NDArray[Any]:
        b = self._bufs.get(name)
        if b is None:
            dt = np.dtype(self.dtype if dtype is None else dtype)
            pos = self._POS.get(name, 0)
            if rows is None:
                b = _placed(self.size, dt, pos)
            else:
                b = _placed((rows, self.size), dt, pos, self._ROW64 if dt.itemsize == 8 else self._ROW)
            self._bufs[name] = b
        return b

    def _list(self, name: str, count: int, dtype: npt.DTypeLike, first: int) -> list[npt.NDArray[Any]]:
        b = self._bufs.get(name)
        if b is None:  # staggered 320 bytes apart (distinct mod 4096)
            b = [_placed(self.size, dtype, (64 * (first + 5 * i)) % _PAGE) for i in range(count)]
            self._bufs[name] = b
        return b

    # -- for the callers (noise.py) and the simplex kernel -----------------------
    @property
    def coords(self) -> list[npt.NDArray[np.float64]]:
        return [self._get(f"coords{i}", dtype=np.float64) for i in range(3)]

    @property
    def octave(self) -> npt.NDArray[np.floating[Any]]:
        return self._get("octave")

    @property
    def acc(self) -> npt.NDArray[np.floating[Any]]:
        return self._get("acc")

    @property
    def ridge(self) -> npt.NDArray[np.floating[Any]]:
        return self._get("ridge")

    @property
    def warp(self) -> list[npt.NDArray[np.floating[Any]]]:
        return [self._get(f"warp{i}") for i in range(2)]

    @property
    def f64(self) -> list[npt.NDArray[np.float64]]:
        return self._list("f64", 3, np.float64, 1)

    @property
    def idx(self) -> list[npt.NDArray[np.intp]]:
        return self._list("idx", 3, np.intp, 16)

    @property
    def flt(self) -> list[npt.NDArray[np.floating[Any]]]:
        return self._list("flt", 12, self.dtype, 31)

    @property
    def zeros(self) -> npt.NDArray[np.floating[Any]]:
        """Read-only float zeros (``np.maximum`` against an array takes numpy's vector loop)."""
        b = self._bufs.get("zeros")
        if b is None:
            b = self._bufs["zeros"] = np.zeros(self.size, self.dtype)
            b.flags.writeable = False
        return b

    @property
    def mask(self) -> npt.NDArray[np.bool_]:
        b = self._bufs.get("mask")
        if b is None:
            b = self._bufs["mask"] = np.empty(self.size, np.bool_)
        return b

    def view(
        self, n: int
    ) -> tuple[list[npt.NDArray[np.float64]], list[npt.NDArray[np.intp]], list[npt.NDArray[np.floating[Any]]]]:
        return ([b[:n] for b in self.f64], [b[:n] for b in self.idx], [b[:n] for b in self.flt])

    def simplex(self, n: int) -> tuple[npt.NDArray[Any], ...]:
        """Views of n points for the simplex kernel: 3 float64, 3 index and 8 float buffers, zeros, mask."""
        v = self._bufs.get(("simplex", n))
        if v is None:
            f64, idx, flt = self.view(n)
            v = (*f64, *idx, *flt[:8], self.zeros[:n], self.mask[:n])
            if n == self.size:
                self._bufs[("simplex", n)] = v
        return v

    def perlin(self, n: int) -> tuple[npt.NDArray[Any], ...]:
        """Views (nb, flx, fly, u, v, bu, cu, du, bv, cv, dv, t, s) of n points."""
        v = self._bufs.get(("perlin", n))
        if v is None:
            g = self._get
            v = tuple(
                [g(k, dtype=np.float64)[:n] for k in ("nb", "flx", "fly")]
                + [g(k)[:n] for k in ("u", "v", "bu", "cu", "du", "bv", "cv", "dv", "t", "s")]
            )
            if n == self.size:
                self._bufs[("perlin", n)] = v
        return v


# ---------------------------------------------------------------------------
# kernels (shared by the grid and the point paths so their rounding is identical)


def lattice(
    coord: npt.NDArray[np.float64],
    f: float,
    off: float,
    dtype: npt.DTypeLike = np.float32,
    out: tuple[npt.NDArray[np.intp], npt.NDArray[np.floating[Any]]] | None = None,
    f64: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None = None,
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.floating[Any]]]:
    """Noise coordinate ``coord * f + off`` split into (cell index & 255, fraction).

    The product and the floor are float64, the fraction is then rounded to
    ``dtype`` -- precise far from the origin. Returns (intp index, fraction).
    ``out`` = (index, fraction) and ``f64`` = two float64 buffers avoid allocations.
    """
    n, fl = f64 if f64 is not None else (np.empty(coord.shape), np.empty(coord.shape))
    idx, frac = out if out is not None else (np.empty(coord.shape, np.intp), np.empty(coord.shape, dtype))
    np.multiply(coord, f, out=n)
    n += off
    np.floor(n, out=fl)
    n -= fl
    np.copyto(frac, n, casting="same_kind")
    np.copyto(idx, fl, casting="unsafe")  # |fl| < 2**62, checked by the caller
    idx &= PERIOD - 1
    return idx, frac


def factors(
    t: npt.NDArray[np.floating[Any]], out: Sequence[npt.NDArray[np.floating[Any]]] | None = None
) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
    """(A, B, C, D) = (t(1-ft), (t-1)ft, 1-ft, ft) of the fraction ``t`` (``ft`` its fade).

    Column factors of u and, reordered (C, A, D, B), the row factors of v.
    ``out`` = (a, b, c, d) buffers; ``a`` may be ``t`` itself (A is written last),
    which saves a buffer and makes the last pass an in-place one.
    """
    one = _constants(t.dtype.type)[3]
    a, b, c, d = out if out is not None else [np.empty_like(t) for _ in range(4)]
    fade(t, out=d, tmp=c)
    np.subtract(one, d, out=c)
    np.subtract(t, one, out=b)
    b *= d
    np.multiply(t, c, out=a)
    return a, b, c, d


def point_octave(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    f: float,
    ox: float,
    oy: float,
    gx: npt.NDArray[np.floating[Any]],
    gy: npt.NDArray[np.floating[Any]],
    amp: float,
    acc: npt.NDArray[np.floating[Any]],
    ws: Workspace | None = None,
    near: bool | None = None,
) -> npt.NDArray[np.floating[Any]]:
    """Add ``amp * perlin(x f + ox, y f + oy)`` to ``acc`` (1-D float arrays, in place).

    ``gx``/``gy`` are flat padded gradient tables of ``acc.dtype``; pass them
    already multiplied by the amplitude with ``amp=1`` (otherwise they are scaled
    here, on every call). ``ws`` is a :class:`Workspace` of at least ``len(acc)``
    points (allocated if None). ``near``: every ``|x f + ox|``, ``|y f + oy|`` is
    below :data:`MAGIC_REACH` (checked here if None).

    Per point and octave: the float64 lattice split of x then y (three float64
    buffers, reused), the cell index from the float bits (no float->int cast),
    the four factors of u and of v, then for each lattice row two gathers and
    five float32 passes into two reused temporaries; chunks of ~100k points
    stream from L3, so few distinct buffers beat fewer (larger) calls.
    """
    n = acc.shape[0]
    if ws is None:
        ws = Workspace(n, acc.dtype)
    if amp != 1:
        gx, gy = gx * acc.dtype.type(amp), gy * acc.dtype.type(amp)
    nb, flx, fly, u, v, bu, cu, du, bv, cv, dv, t, s = ws.perlin(n)
    kx, k = flx.view(np.int64), fly.view(np.int64)
    check = near is None
    for c, f_off, fl, frac, idx in ((x, ox, flx, u, kx), (y, oy, fly, v, k)):
        np.multiply(c, f, out=nb)
        nb += f_off
        np.floor(nb, out=fl)
        nb -= fl
        frac[...] = nb  # float64 -> float32 (as np.copyto, ~1 us less per call)
        if check:
            near = max(-float(fl.min(initial=0.0)), float(fl.max(initial=0.0))) < MAGIC_REACH
        if not near:
            np.fmod(fl, PERIOD, out=fl)  # exact, so the sum below stays exact
        fl += _MAGIC
        idx &= PERIOD - 1
    k *= _W
    k += kx  # k = 257 Y + X: corner (X, Y) in the padded table
    au, _, _, _ = factors(u, out=(u, bu, cu, du))  # A overwrites the fraction: fewer buffers in cache
    av, _, _, _ = factors(v, out=(v, bv, cv, dv))
    # row Y: P0 then Q0, row Y+1: P1 then Q1, each added to acc as R * factor.
    # (mode "wrap" only because it is the fastest take, indices are always in range; the
    # ndarray method, positional: np.take's Python wrapper costs ~3 us a call, 8 calls an octave)
    for tab, fa, fb, r in ((gx, au, bu, cv), (gy, cu, du, av), (gx[_W:], au, bu, dv), (gy[_W:], cu, du, bv)):
        tab.take(k, None, t, "wrap")
        t *= fa
        tab[1:].take(k, None, s, "wrap")
        s *= fb
        t += s
        t *= r
        acc += t
    return acc


def perlin2(
    x: npt.ArrayLike, y: npt.ArrayLike, perm: npt.ArrayLike | None = None, dtype: npt.DTypeLike = np.float32
) -> npt.NDArray[np.floating[Any]]:
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
