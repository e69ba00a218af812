"""Elementary functions with the same bits on every CPU: exp, log, pow, sin, cos, atan, atan2, ...

numpy's ``exp``, ``log``, ``power``, ``arctan``, ``arccos`` ... take different SIMD paths on
different CPUs (AVX-512 runs Intel's SVML kernels, AVX2 and older run others) and are not
correctly rounded, so their last bits depend on the machine; so do ``float32`` ``sin`` and
``cos``, the C library's ``math.*`` (glibc picks FMA variants at load time; other systems have
other libraries) and BLAS products (``dot``, ``@``, ``linalg.norm`` without an axis: OpenBLAS
picks a kernel per CPU).  Where such a value decides a discrete outcome (a threshold, a rounding,
a choice) or reaches a file, use these instead, in core and on the Blender side alike.

Every function here is a fixed sequence of the operations IEEE 754 rounds exactly (``+ - * /``,
``sqrt``), comparisons, ``rint``/``floor`` and integer bit manipulation, vectorised over numpy
arrays (and the same sequence on Python floats, for one value at a time): the same input gives
the same bits on any machine.  The algorithms are fdlibm's (Sun Microsystems, 1993; the C library
of FreeBSD and musl, Java's ``StrictMath``): polynomial kernels after an exact range reduction.
Accuracy, measured against long double in ``tests/core/test_exact.py``:

=================  =======================================================
``exp``, ``log``    < 1 ulp
``sin``, ``cos``    < 1 ulp for ``|x| <= SINCOS_MAX`` (``2**20 pi/2``, about
                    1.6e6); NaN beyond
``atan``            < 1 ulp;  ``atan2`` < 2 ulp
``asin``, ``acos``  < 2.5 ulp (through ``atan2``)
``tan``             < 2.5 ulp (``sin / cos``)
``log2``, ``log10`` < 2 ulp (``log`` times a constant)
``pow``             relative error < ``(1 + |y log x|) * 2**-52`` (``exp(y log x)``)
``hypot``           ``sqrt(x*x + y*y)``: < 1.5 ulp (no overflow guard: for
                    values below ``1e150``)
=================  =======================================================

They take array_like of float (computed in float64) and return float64: an ndarray for an
array, a numpy float64 for a 0-d array, a Python float for a Python number.  Cast the result to
float32 where the caller keeps float32 (the cast rounds once, the same on every CPU).  Arrays go
in chunks of ``CHUNK`` elements; about 5-25 times slower than numpy's own functions.

Sums need no replacement when their order is fixed by the array's layout, not by the CPU:
``sum``/``mean`` over an axis (numpy's pairwise summation), ``cumsum``, ``bincount`` with
weights, ``linalg.norm(..., axis=k)``; ``einsum`` is not (its order follows the SIMD width numpy
was built for): `dot_rows` adds left to right.

NaN in gives NaN out; infinities follow C99 (``exp(-inf) = 0``, ``atan(inf) = pi/2``, ...).
"""

import math
from collections.abc import Callable
from typing import Any, TypeVar, cast, overload

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

#: A float64 array: what the functions return for an array (typed as numpy's own ufuncs are: a 0-d
#: array gives a numpy float64 at run time).
F64 = npt.NDArray[np.float64]
#: What the functions return: an ndarray for an array, a float for a Python number.
Real = F64 | float
#: A kernel step run on arrays and on Python floats alike (the same operations, the same bits).
_X = TypeVar("_X", float, F64)
_I64 = npt.NDArray[np.int64]

__all__ = [
    "CHUNK",
    "POW_SQUARING",
    "SINCOS_MAX",
    "acos",
    "asin",
    "atan",
    "atan2",
    "cos",
    "degrees_atan",
    "dot_rows",
    "exp",
    "hypot",
    "log",
    "log2",
    "log10",
    "pow",
    "sin",
    "sincos",
    "tan",
]

_PI = 3.1415926535897931160e00
_PI_LO = 1.2246467991473531772e-16
_HALF_PI = 1.5707963267948965580e00
_LN2_HI = 6.93147180369123816490e-01  # 32 significant bits: k * _LN2_HI is exact for |k| < 2**21
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_SQRT2 = 1.41421356237309514547e00
_SQRT2_BITS = int(np.array(_SQRT2).view(np.int64))
_EXP_P = (
    1.66666666666666019037e-01,
    -2.77777777770155933842e-03,
    6.61375632143793436117e-05,
    -1.65339022054652515390e-06,
    4.13813679705723846039e-08,
)
_LG = (
    6.666666666666735130e-01,
    3.999999999940941908e-01,
    2.857142874366239149e-01,
    2.222219843214978396e-01,
    1.818357216161805012e-01,
    1.531383769920937332e-01,
    1.479819860511658591e-01,
)
_INV_PIO2 = 6.36619772367581382433e-01
_PIO2_1 = 1.57079632673412561417e00  # first 33 bits of pi/2
_PIO2_2 = 6.07710050630396597660e-11  # next 33 bits
_PIO2_2T = 2.02226624879595063154e-21  # pi/2 - (_PIO2_1 + _PIO2_2)
_S = (
    -1.66666666666666324348e-01,
    8.33333333332248946124e-03,
    -1.98412698298579493134e-04,
    2.75573137070700676789e-06,
    -2.50507602534068634195e-08,
    1.58969099521155010221e-10,
)
_C = (
    4.16666666666666019037e-02,
    -1.38888888888741095749e-03,
    2.48015872894767294178e-05,
    -2.75573143513906633035e-07,
    2.08757232129817482790e-09,
    -1.13596475577881948265e-11,
)
_ATAN_HI = np.array([0.0, 4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01, _HALF_PI])
_ATAN_LO = np.array(
    [
        0.0,
        2.26987774529616870924e-17,
        3.06161699786838301793e-17,
        1.39033110312309984516e-17,
        6.12323399573676603587e-17,
    ]
)
_TOP_A = np.array([1.0, 2.0, 1.0, 1.0, 0.0])
_TOP_B = np.array([0.0, -1.0, -1.0, -1.5, -1.0])
_BOTTOM_A = np.array([0.0, 1.0, 1.0, 1.5, 1.0])
_BOTTOM_B = np.array([1.0, 2.0, 1.0, 1.0, 0.0])
_AT = (
    3.33333333333329318027e-01,
    -1.99999999998764832476e-01,
    1.42857142725034663711e-01,
    -1.11111104054623557880e-01,
    9.09088713343650656196e-02,
    -7.69187620504482999495e-02,
    6.66107313738753120669e-02,
    -5.83357013379057348645e-02,
    4.97687799461593236017e-02,
    -3.65315727442169155270e-02,
    1.62858201153657823623e-02,
)
_DEGREES = 180.0 / _PI
_LOG2_E = 1.44269504088896338700e00
_LOG10_E = 4.34294481903251816668e-01


#: Largest ``|x|`` of sin, cos and tan: ``2**20 pi/2`` (the exact range reduction, fdlibm's "medium"
#: arguments); beyond it they give NaN, where a library would switch to Payne-Hanek's reduction.
#: Reduce larger angles exactly first (``math.fmod(degrees, 360)`` is exact).
SINCOS_MAX = 2.0**20 * _PIO2_1
CHUNK = 1 << 16  # elements per pass: the temporaries stay in the cache (2-3 times faster than whole)


_SCALARS = (float, int, np.float64)


def _apply(
    kernel: Callable[..., Any], *args: ArrayLike, outputs: int = 1, scalar: Callable[..., Any] | None = None
) -> Any:
    """``kernel`` (1-D float64 arrays -> 1-D float64 array(s)) over broadcast ``args``, in chunks.

    Returns arrays of the broadcast shape, or numpy float64 scalars when every argument is a
    scalar; ``outputs`` > 1 returns a tuple.  Python numbers go to ``scalar`` when given (the
    same operations on Python floats, 10 times faster than a one-element array) and come back
    as Python floats.
    """
    if scalar is not None and all(type(a) in _SCALARS for a in args):
        return scalar(*(float(cast(float, a)) for a in args))
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in args))
    shape = arrays[0].shape
    flat = [a.reshape(-1) for a in arrays]
    n = flat[0].size
    if n <= CHUNK:
        res = kernel(*flat)
        res = res if outputs > 1 else (res,)
    else:
        res = tuple(np.empty(n) for _ in range(outputs))
        for start in range(0, n, CHUNK):
            part = kernel(*(a[start : start + CHUNK] for a in flat))
            for out, p in zip(res, part if outputs > 1 else (part,)):
                out[start : start + CHUNK] = p
    if shape == ():
        res = tuple(np.float64(r[0]) for r in res)
    else:
        res = tuple(r.reshape(shape) for r in res)
    return res if outputs > 1 else res[0]


def _two_to(k: _I64) -> F64:
    """``2.0**k`` (float64) for integer arrays ``k`` in ``[-1022, 1023]``, from the exponent bits."""
    return ((k + 1023) << 52).view(np.float64)


def _scale(y: F64, k: _I64) -> F64:
    """``y * 2**k`` rounded once (as ``ldexp``), for ``y`` in [0.5, 2) and int64 ``k`` in
    [-1080, 1030]: ``k`` added to ``y``'s exponent bits (exact) where the result is normal; two
    multiplications by powers of two elsewhere (the first exact, only the second rounds: into the
    subnormals, or to infinity).
    """
    out = (y.view(np.int64) + (k << 52)).view(np.float64)
    low, high = k < -1020, k > 1020
    with np.errstate(over="ignore"):
        if low.any():
            out[low] = (y[low] * _two_to(k[low] + 1000)) * 2.0**-1000
        if high.any():
            out[high] = (y[high] * _two_to(k[high] - 2)) * 4.0
    return out


def _exp(a: F64) -> F64:
    xc = np.minimum(np.maximum(a, -746.0), 710.0)  # beyond: 0 and inf after scaling (NaN stays NaN)
    k = np.rint(xc * _INV_LN2)
    hi = xc - k * _LN2_HI  # exact (k has at most 11 bits, _LN2_HI 32)
    lo = k * _LN2_LO
    r = hi - lo
    t = r * r
    p1, p2, p3, p4, p5 = _EXP_P
    c = r - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    nan = np.isnan(a)
    k[nan] = 0.0
    out = _scale(y, k.astype(np.int64))
    out[a > 7.09782712893383973096e02] = np.inf
    out[a < -7.45133219101941108420e02] = 0.0
    out[nan] = np.nan
    return out


@overload
def exp(x: float) -> float: ...
@overload
def exp(x: npt.NDArray[Any]) -> F64: ...
@overload
def exp(x: ArrayLike) -> Real: ...
def exp(x: ArrayLike) -> Real:
    """``e**x`` (fdlibm ``e_exp.c``), < 1 ulp.

    >>> float(exp(1.0)), float(exp(0.0)), float(exp(-1000.0)), float(exp(1000.0))
    (2.7182818284590455, 1.0, 0.0, inf)
    >>> exp([0.5, -2.0]).tolist()
    [1.6487212707001282, 0.1353352832366127]
    """
    return _apply(_exp, x, scalar=_exp1)


def _log_parts(a: F64) -> tuple[F64, F64, F64, F64]:
    """``log(a) = k log(2) + log1p(f)`` with ``1 + f`` in ``(sqrt(2)/2, sqrt(2)]``, as fdlibm's
    ``(k, f, hfsq, t)``: ``log1p(f) = f - (hfsq - t)``."""
    a = np.ascontiguousarray(a)
    tiny = a < 2.2250738585072014e-308  # subnormals (and what log refuses)
    some_tiny = tiny.any()
    if some_tiny:
        a = a.copy()
        with np.errstate(over="ignore", invalid="ignore"):
            a[tiny] *= 18014398509481984.0  # times 2**54, exact
    bits = a.view(np.int64)
    e = (bits >> 52) - 1023
    if some_tiny:
        e[tiny] -= 54
    mbits = (bits & 0x000FFFFFFFFFFFFF) | 0x3FF0000000000000  # m in [1, 2)
    big = mbits > _SQRT2_BITS
    m = (mbits - (big.astype(np.int64) << 52)).view(np.float64)  # m / 2 where m > sqrt(2): exact
    k = (e + big).astype(np.float64)
    f = m - 1.0  # exact (Sterbenz)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    g1, g2, g3, g4, g5, g6, g7 = _LG
    t1 = w * (g2 + w * (g4 + w * g6))
    t2 = z * (g1 + w * (g3 + w * (g5 + w * g7)))
    hfsq: F64 = 0.5 * f * f
    return k, f, hfsq, s * (hfsq + (t2 + t1))


def _log_special(out: F64, a: F64) -> F64:
    out[a == 0.0] = -np.inf
    out[a == np.inf] = np.inf
    out[(a < 0.0) | np.isnan(a)] = np.nan
    return out


def _log(a: F64) -> F64:
    k, f, hfsq, t = _log_parts(a)
    return _log_special(k * _LN2_HI - ((hfsq - (t + k * _LN2_LO)) - f), a)


def _log2(a: F64) -> F64:
    k, f, hfsq, t = _log_parts(a)
    return _log_special(k + (f - (hfsq - t)) * _LOG2_E, a)


@overload
def log(x: float) -> float: ...
@overload
def log(x: npt.NDArray[Any]) -> F64: ...
@overload
def log(x: ArrayLike) -> Real: ...
def log(x: ArrayLike) -> Real:
    """Natural logarithm (fdlibm ``e_log.c``), < 1 ulp; ``log(0) = -inf``, negative -> NaN.

    >>> float(log(1.0)), float(log(2.718281828459045)), float(log(0.0))
    (0.0, 1.0, -inf)
    >>> log([2.0, 1e-310]).tolist()
    [0.6931471805599453, -713.8013788281542]
    """
    return _apply(_log, x, scalar=_log1)


@overload
def log2(x: float) -> float: ...
@overload
def log2(x: npt.NDArray[Any]) -> F64: ...
@overload
def log2(x: ArrayLike) -> Real: ...
def log2(x: ArrayLike) -> Real:
    """Base-2 logarithm, ``k + log(m) / log(2)`` for ``x = m 2**k``: < 2 ulp, exact for powers of two.

    >>> float(log2(8.0)), float(log2(0.5)), float(log2(2.0**-1074))
    (3.0, -1.0, -1074.0)
    """
    return _apply(_log2, x, scalar=_log2_1)


@overload
def log10(x: float) -> float: ...
@overload
def log10(x: npt.NDArray[Any]) -> F64: ...
@overload
def log10(x: ArrayLike) -> Real: ...
def log10(x: ArrayLike) -> Real:
    """``log(x) / log(10)``, < 2 ulp.

    >>> round(float(log10(1000.0)), 12)
    3.0
    """
    return _apply(lambda a: _log(a) * _LOG10_E, x, scalar=lambda a: _log1(a) * _LOG10_E)


#: Integral exponents up to this size go by repeated squaring (exact where the result is exact).
POW_SQUARING = 64


def _pow(a: F64, b: F64) -> F64:
    whole = (np.abs(b) <= POW_SQUARING) & (b == np.floor(b))
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    rest = ~whole
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if rest.any():
            out[rest] = _exp(b[rest] * _log(a[rest]))
        if whole.any():
            base, m = a[whole], b[whole]
            bits, result = np.abs(m).astype(np.int64), np.ones(base.shape)
            for _ in range(POW_SQUARING.bit_length()):
                result = np.where(bits & 1 == 1, result * base, result)
                base = base * base
                bits >>= 1
            out[whole] = np.where(m < 0.0, 1.0 / result, result)
    out[(a == 0.0) & (b > 0.0)] = 0.0
    out[(a == 0.0) & (b < 0.0)] = np.inf
    out[(b == 0.0) | (a == 1.0)] = 1.0
    return out


@overload
def pow(x: float, y: float) -> float: ...  # noqa: A001 - the mathematical name, on purpose
@overload
def pow(x: npt.NDArray[Any], y: ArrayLike) -> F64: ...  # noqa: A001 - the mathematical name, on purpose
@overload
def pow(x: ArrayLike, y: npt.NDArray[Any]) -> F64: ...  # noqa: A001 - the mathematical name, on purpose
@overload
def pow(x: ArrayLike, y: ArrayLike) -> Real: ...  # noqa: A001 - the mathematical name, on purpose
def pow(x: ArrayLike, y: ArrayLike) -> Real:  # noqa: A001 - the mathematical name, on purpose
    """``x**y``: by repeated squaring for integral ``|y| <= POW_SQUARING`` (any ``x``), else
    ``exp(y * log(x))`` for ``x >= 0`` (``x < 0`` gives NaN).

    ``pow(x, 0) = 1`` (also for ``x = 0``), ``pow(0, y) = 0`` for ``y > 0`` and ``inf`` for
    ``y < 0``; ``pow(1, y) = 1``.  Squaring rounds at most 2 ``log2|y|`` times (exact when the
    result is, as ``2**10``); otherwise the relative error is below ``(1 + |y log x|) * 2**-52``:
    for ``|y log x| < 40`` (results between ``4e-18`` and ``2e17``) within about 40 ulp.

    >>> float(pow(9.0, 0.5)), float(pow(2.0, 10.0)), float(pow(-2.0, 3.0)), float(pow(0.0, 2.0))
    (3.0, 1024.0, -8.0, 0.0)
    """
    return _apply(_pow, x, y, scalar=_pow1)


def _reduce_pio2(a: F64) -> tuple[_I64, F64, F64]:
    """``a = n * pi/2 + (y0 + y1)`` with ``|y0| <= pi/4`` (fdlibm's two-step Cody-Waite)."""
    n = np.rint(a * _INV_PIO2)
    r = a - n * _PIO2_1  # n * _PIO2_1 exact for |n| < 2**20
    w = n * _PIO2_2
    t = r
    r = t - w
    w = n * _PIO2_2T - ((t - r) - w)
    y0 = r - w
    y1 = (r - y0) - w
    n[~np.isfinite(n)] = 0.0
    q = (n - 4.0 * np.floor(n * 0.25)).astype(np.int64)  # n mod 4, exact for any integral float
    return q, y0, y1


def _kernel_sin(x: _X, y: _X) -> _X:
    s1, s2, s3, s4, s5, s6 = _S
    z = x * x
    w = z * z
    r = s2 + z * (s3 + z * s4) + z * w * (s5 + z * s6)
    v = z * x
    return x - ((z * (0.5 * y - v * r) - y) - v * s1)


def _kernel_cos(x: _X, y: _X) -> _X:
    c1, c2, c3, c4, c5, c6 = _C
    z = x * x
    w = z * z
    r = z * (c1 + z * (c2 + z * c3)) + w * w * (c4 + z * (c5 + z * c6))
    hz = 0.5 * z
    w = 1.0 - hz
    return w + (((1.0 - w) - hz) + (z * r - x * y))


def _sincos(a: F64) -> tuple[F64, F64]:
    with np.errstate(over="ignore", invalid="ignore"):  # beyond 2**60 or so the reduction is no use
        q, y0, y1 = _reduce_pio2(a)
        ks, kc = _kernel_sin(y0, y1), _kernel_cos(y0, y1)
    # quadrant q: sin is ks, kc, -ks, -kc and cos kc, -ks, -kc, ks (the sign flips are exact)
    odd = (q & 1).astype(bool)
    s = np.where(odd, kc, ks) * (1.0 - 2.0 * ((q >> 1) & 1))
    c = np.where(odd, ks, kc) * (1.0 - 2.0 * (((q + 1) >> 1) & 1))
    zero = a == 0.0
    s[zero] = a[zero]  # sin(-0) = -0
    far = ~(np.abs(a) <= SINCOS_MAX)  # and NaN
    s[far] = np.nan
    c[far] = np.nan
    return s, c


@overload
def sincos(x: float) -> tuple[float, float]: ...
@overload
def sincos(x: npt.NDArray[Any]) -> tuple[F64, F64]: ...
@overload
def sincos(x: ArrayLike) -> tuple[Real, Real]: ...
def sincos(x: ArrayLike) -> tuple[Real, Real]:
    """``(sin(x), cos(x))`` of radians, < 1 ulp for ``|x| <= SINCOS_MAX`` (NaN beyond).

    >>> s, c = sincos([0.0, 1.0, 3.141592653589793])
    >>> s.tolist(), c.tolist()
    ([0.0, 0.8414709848078965, 1.2246467991473532e-16], [1.0, 0.5403023058681398, -1.0])
    """
    return _apply(_sincos, x, outputs=2, scalar=_sincos1)


@overload
def sin(x: float) -> float: ...
@overload
def sin(x: npt.NDArray[Any]) -> F64: ...
@overload
def sin(x: ArrayLike) -> Real: ...
def sin(x: ArrayLike) -> Real:
    """Sine of radians, < 1 ulp for ``|x| <= SINCOS_MAX`` (NaN beyond).

    >>> float(sin(0.5)), float(sin(-0.0))
    (0.479425538604203, -0.0)
    """
    return _apply(lambda a: _sincos(a)[0], x, scalar=lambda a: _sincos1(a)[0])


@overload
def cos(x: float) -> float: ...
@overload
def cos(x: npt.NDArray[Any]) -> F64: ...
@overload
def cos(x: ArrayLike) -> Real: ...
def cos(x: ArrayLike) -> Real:
    """Cosine of radians, < 1 ulp for ``|x| <= SINCOS_MAX`` (NaN beyond).

    >>> float(cos(0.5)), float(cos(2.0))
    (0.8775825618903728, -0.4161468365471424)
    """
    return _apply(lambda a: _sincos(a)[1], x, scalar=lambda a: _sincos1(a)[1])


def _tan(a: F64) -> F64:
    s, c = _sincos(a)
    return s / c


@overload
def tan(x: float) -> float: ...
@overload
def tan(x: npt.NDArray[Any]) -> F64: ...
@overload
def tan(x: ArrayLike) -> Real: ...
def tan(x: ArrayLike) -> Real:
    """Tangent of radians as ``sin / cos``, < 2.5 ulp, for ``|x| <= SINCOS_MAX`` (NaN beyond).

    >>> round(float(tan(0.7853981633974483)), 15)
    1.0
    """
    return _apply(_tan, x, scalar=_tan1)


def _atan(a: F64) -> F64:
    v = np.abs(a)
    i = ((v >= 0.4375).view(np.int8) + (v >= 0.6875) + (v >= 1.1875) + (v >= 2.4375)).astype(np.intp)  # NaN: 0
    vv = np.minimum(v, 1e300)  # keeps 0 * v finite; atan(1e300) = atan(inf) = pi/2
    with np.errstate(divide="ignore", invalid="ignore"):
        # fdlibm's reductions, as ``top / bottom`` with the same roundings: x / 1,
        # (2x - 1) / (x + 2), (x - 1) / (x + 1), (x - 1.5) / (1.5x + 1), -1 / x
        r = (_TOP_A.take(i) * vv + _TOP_B.take(i)) / (_BOTTOM_A.take(i) * vv + _BOTTOM_B.take(i))
    z = r * r
    w = z * z
    a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10 = _AT
    s1 = z * (a0 + w * (a2 + w * (a4 + w * (a6 + w * (a8 + w * a10)))))
    s2 = w * (a1 + w * (a3 + w * (a5 + w * (a7 + w * a9))))
    out = np.copysign(_ATAN_HI.take(i) - ((r * (s1 + s2) - _ATAN_LO.take(i)) - r), a)
    nan = np.isnan(a)
    out[nan] = a[nan]
    return out


@overload
def atan(x: float) -> float: ...
@overload
def atan(x: npt.NDArray[Any]) -> F64: ...
@overload
def atan(x: ArrayLike) -> Real: ...
def atan(x: ArrayLike) -> Real:
    """Arc tangent in radians, in ``[-pi/2, pi/2]`` (fdlibm ``s_atan.c``), < 1 ulp.

    >>> float(atan(1.0)), float(atan(-np.inf)), atan([0.0, 0.5]).tolist()
    (0.7853981633974483, -1.5707963267948966, [0.0, 0.4636476090008061])
    """
    return _apply(_atan, x, scalar=_atan1)


def _atan2(b: F64, a: F64) -> F64:
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(b / a)
    z = _atan(q)
    # |y/x| beyond 2**60: pi/2; x < 0 and |y/x| below 2**-60: 0 (fdlibm)
    z = np.where(q > 2.0**60, _HALF_PI + 0.5 * _PI_LO, z)
    z = np.where((a < 0.0) & (q < 2.0**-60), 0.0, z)
    neg_x = np.signbit(a)
    out = np.where(neg_x, _PI - (z - _PI_LO), z)
    # zeros and infinities as in C99
    a_inf, b_inf = np.isinf(a), np.isinf(b)
    out = np.where(a_inf & b_inf, np.where(neg_x, 3.0 * _PI / 4.0, _PI / 4.0), out)
    out = np.where(a_inf & ~b_inf, np.where(neg_x, _PI, 0.0), out)
    out = np.where(b_inf & ~a_inf, _HALF_PI, out)
    out = np.where((b == 0.0) & ~np.isnan(a), np.where(neg_x, _PI, 0.0), out)
    out = np.where((a == 0.0) & (b != 0.0) & ~np.isnan(b), _HALF_PI, out)
    out = np.copysign(out, b)
    return np.where(np.isnan(a) | np.isnan(b), np.nan, out)


@overload
def atan2(y: float, x: float) -> float: ...
@overload
def atan2(y: npt.NDArray[Any], x: ArrayLike) -> F64: ...
@overload
def atan2(y: ArrayLike, x: npt.NDArray[Any]) -> F64: ...
@overload
def atan2(y: ArrayLike, x: ArrayLike) -> Real: ...
def atan2(y: ArrayLike, x: ArrayLike) -> Real:
    """Angle of the point ``(x, y)`` in radians, in ``[-pi, pi]`` (fdlibm ``e_atan2.c``), < 2 ulp.

    Signed zeros and infinities as in C99: ``atan2(+0, -1) = pi``, ``atan2(-0, -1) = -pi``,
    ``atan2(1, 0) = pi/2``.

    >>> atan2([1.0, 1.0, -1.0, 0.0, -0.0], [1.0, -1.0, -1.0, -1.0, -1.0]).tolist()
    [0.7853981633974483, 2.356194490192345, -2.356194490192345, 3.141592653589793, -3.141592653589793]
    """
    return _apply(_atan2, y, x, scalar=_atan2_1)


def _asin(a: F64) -> F64:
    with np.errstate(invalid="ignore"):
        return _atan2(a, np.sqrt((1.0 - a) * (1.0 + a)))


def _acos(a: F64) -> F64:
    with np.errstate(invalid="ignore"):
        return _atan2(np.sqrt((1.0 - a) * (1.0 + a)), a)


@overload
def asin(x: float) -> float: ...
@overload
def asin(x: npt.NDArray[Any]) -> F64: ...
@overload
def asin(x: ArrayLike) -> Real: ...
def asin(x: ArrayLike) -> Real:
    """Arc sine in radians, ``atan2(x, sqrt((1 - x) (1 + x)))``, < 2 ulp; NaN outside [-1, 1].

    >>> float(asin(1.0)), float(asin(0.5))
    (1.5707963267948966, 0.5235987755982989)
    """
    return _apply(_asin, x, scalar=_asin1)


@overload
def acos(x: float) -> float: ...
@overload
def acos(x: npt.NDArray[Any]) -> F64: ...
@overload
def acos(x: ArrayLike) -> Real: ...
def acos(x: ArrayLike) -> Real:
    """Arc cosine in radians, ``atan2(sqrt((1 - x) (1 + x)), x)``, < 2.5 ulp; NaN outside [-1, 1].

    >>> float(acos(1.0)), float(acos(-1.0)), round(float(acos(0.5)), 15)
    (0.0, 3.141592653589793, 1.047197551196598)
    """
    return _apply(_acos, x, scalar=_acos1)


@overload
def hypot(x: float, y: float) -> float: ...
@overload
def hypot(x: npt.NDArray[Any], y: ArrayLike) -> F64: ...
@overload
def hypot(x: ArrayLike, y: npt.NDArray[Any]) -> F64: ...
@overload
def hypot(x: ArrayLike, y: ArrayLike) -> Real: ...
def hypot(x: ArrayLike, y: ArrayLike) -> Real:
    """``sqrt(x*x + y*y)`` in float64 (no scaling: for ``|x|, |y| < 1e150``), < 1.5 ulp.

    numpy's ``hypot`` is the C library's, which differs between libraries (and versions).

    >>> float(hypot(3.0, 4.0)), hypot([5.0], [12.0]).tolist()
    (5.0, [13.0])
    """
    if type(x) in _SCALARS and type(y) in _SCALARS:
        u, v = float(cast(float, x)), float(cast(float, y))
        return math.sqrt(u * u + v * v)
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    out = np.sqrt(a * a + b * b)
    return out if out.ndim else cast(float, np.float64(out))  # a numpy float64 is a Python float


@overload
def degrees_atan(t: float) -> float: ...
@overload
def degrees_atan(t: npt.NDArray[Any]) -> F64: ...
@overload
def degrees_atan(t: ArrayLike) -> Real: ...
def degrees_atan(t: ArrayLike) -> Real:
    """``degrees(atan(t))``: the angle in degrees of a slope ``t`` (rise over run), < 2 ulp.

    >>> float(degrees_atan(1.0)), degrees_atan([0.0, np.inf]).tolist()
    (45.0, [0.0, 90.0])
    """
    return _apply(lambda a: _atan(a) * _DEGREES, t, scalar=lambda a: _atan1(a) * _DEGREES)


def dot_rows(a: ArrayLike, b: ArrayLike) -> npt.NDArray[Any]:
    """Row-wise dot products ``sum_k a[..., k] * b[..., k]``, added left to right over the last axis.

    ``np.einsum("ij,ij->i", a, b)`` adds in an order set by the SIMD width numpy was built for
    (``(p0 + p2) + p1`` for three columns on a 128-bit build), and ``dot``/``@`` by the BLAS kernel
    the CPU picks; this order is fixed.

    >>> dot_rows([[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]], [[4.0, 5.0, 6.0], [2.0, 9.0, 1.0]]).tolist()
    [32.0, 0.0]
    """
    p = np.asarray(a) * np.asarray(b)  # in the arrays' own precision, as einsum
    out = p[..., 0].copy()
    for k in range(1, p.shape[-1]):
        out += p[..., k]
    return out


# -- the same operations on Python floats (one value at a time: the turtle, L-system rules) --------
# Each mirrors its array kernel above step for step (Python's float arithmetic is IEEE double, its
# round() rounds half to even as numpy's rint, math.frexp/ldexp/copysign/sqrt are exact), so a
# scalar and an array give the same bits; tests/core/test_exact.py checks that.

_INF = math.inf


def _exp1(x: float) -> float:
    if x != x:
        return x
    if x > 7.09782712893383973096e02:
        return _INF
    if x < -7.45133219101941108420e02:
        return 0.0
    k = round(x * _INV_LN2)
    hi = x - k * _LN2_HI
    lo = k * _LN2_LO
    r = hi - lo
    t = r * r
    p1, p2, p3, p4, p5 = _EXP_P
    c = r - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    k1 = min(max(k // 2, -1022), 1023)
    k2 = min(max(k - k1, -1022), 1023)
    return (y * math.ldexp(1.0, k1)) * math.ldexp(1.0, k2)


def _log_parts1(a: float) -> tuple[float, float, float, float]:
    tiny = a < 2.2250738585072014e-308
    v = a * 18014398509481984.0 if tiny else a
    m, e = math.frexp(v)  # v = m 2**e, m in [0.5, 1)
    m, n = m * 2.0, e - 1 - (54 if tiny else 0)
    if m > _SQRT2:
        m, n = m * 0.5, n + 1
    k = float(n)
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    g1, g2, g3, g4, g5, g6, g7 = _LG
    t1 = w * (g2 + w * (g4 + w * g6))
    t2 = z * (g1 + w * (g3 + w * (g5 + w * g7)))
    hfsq = 0.5 * f * f
    return k, f, hfsq, s * (hfsq + (t2 + t1))


def _log_special1(a: float) -> float:
    if a == 0.0:
        return -_INF
    if a == _INF:
        return _INF
    return math.nan  # negative or NaN


def _log1(a: float) -> float:
    if not 0.0 < a < _INF:
        return _log_special1(a)
    k, f, hfsq, t = _log_parts1(a)
    return k * _LN2_HI - ((hfsq - (t + k * _LN2_LO)) - f)


def _log2_1(a: float) -> float:
    if not 0.0 < a < _INF:
        return _log_special1(a)
    k, f, hfsq, t = _log_parts1(a)
    return k + (f - (hfsq - t)) * _LOG2_E


def _pow1(a: float, b: float) -> float:
    if b == 0.0 or a == 1.0:
        return 1.0
    if a == 0.0:
        return 0.0 if b > 0.0 else (_INF if b < 0.0 else math.nan)
    if abs(b) <= POW_SQUARING and b == math.floor(b):
        m, result, base = int(abs(b)), 1.0, a
        for _ in range(POW_SQUARING.bit_length()):
            if m & 1:
                result = result * base
            base = base * base  # Python's float product overflows to inf, as numpy's
            m >>= 1
        if b < 0.0:
            return 1.0 / result if result != 0.0 else math.copysign(_INF, result)
        return result
    return _exp1(b * _log1(a))


def _sincos1(a: float) -> tuple[float, float]:
    if a == 0.0:
        return a, 1.0
    if not abs(a) <= SINCOS_MAX:
        return math.nan, math.nan
    n = round(a * _INV_PIO2)
    r = a - n * _PIO2_1
    w = n * _PIO2_2
    t = r
    r = t - w
    w = n * _PIO2_2T - ((t - r) - w)
    y0 = r - w
    y1 = (r - y0) - w
    ks, kc = _kernel_sin(y0, y1), _kernel_cos(y0, y1)
    q = n & 3
    return ((ks, kc), (kc, -ks), (-ks, -kc), (-kc, ks))[q]


def _tan1(a: float) -> float:
    s, c = _sincos1(a)
    return s / c


def _atan1(a: float) -> float:
    if a != a:
        return a
    v = abs(a)
    i = (v >= 0.4375) + (v >= 0.6875) + (v >= 1.1875) + (v >= 2.4375)
    vv = min(v, 1e300)
    r = (float(_TOP_A[i]) * vv + float(_TOP_B[i])) / (float(_BOTTOM_A[i]) * vv + float(_BOTTOM_B[i]))
    z = r * r
    w = z * z
    a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10 = _AT
    s1 = z * (a0 + w * (a2 + w * (a4 + w * (a6 + w * (a8 + w * a10)))))
    s2 = w * (a1 + w * (a3 + w * (a5 + w * (a7 + w * a9))))
    out = float(_ATAN_HI[i]) - ((r * (s1 + s2) - float(_ATAN_LO[i])) - r)
    return math.copysign(out, a)


def _atan2_1(b: float, a: float) -> float:
    if a != a or b != b:
        return math.nan
    neg_x = math.copysign(1.0, a) < 0.0
    a_inf, b_inf = a in (_INF, -_INF), b in (_INF, -_INF)
    if a_inf and b_inf:
        out = 3.0 * _PI / 4.0 if neg_x else _PI / 4.0
    elif a_inf:
        out = _PI if neg_x else 0.0
    elif b_inf:
        out = _HALF_PI
    elif b == 0.0:
        out = _PI if neg_x else 0.0
    elif a == 0.0:
        out = _HALF_PI
    else:
        q = abs(b / a)
        if q > 2.0**60:
            z = _HALF_PI + 0.5 * _PI_LO
        elif a < 0.0 and q < 2.0**-60:
            z = 0.0
        else:
            z = _atan1(q)
        out = _PI - (z - _PI_LO) if neg_x else z
    return math.copysign(out, b)


def _asin1(a: float) -> float:
    t = (1.0 - a) * (1.0 + a)
    return _atan2_1(a, math.sqrt(t)) if t >= 0.0 else math.nan


def _acos1(a: float) -> float:
    t = (1.0 - a) * (1.0 + a)
    return _atan2_1(math.sqrt(t), a) if t >= 0.0 else math.nan
