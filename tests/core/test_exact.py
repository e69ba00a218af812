"""core.exact: accuracy against long double, specials as C99, and the same bits for scalars,
arrays of any size and shape (the bits across CPU settings are checked in test_cpu_determinism)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from worldseed.core import exact

L = np.longdouble
#: long double with a 64-bit significand (x86-64 Linux): 11 bits more than float64, a reference
EXTENDED = np.finfo(L).nmant >= 63
RNG = np.random.default_rng(2024)
N = 20_000


def _ulps(mine, reference):
    """|mine - reference| in units of the last place of the float64 nearest the reference."""
    ref = np.asarray(reference, L)
    spacing = np.spacing(np.abs(ref.astype(np.float64))).astype(L)
    return float((np.abs(np.asarray(mine, L) - ref) / spacing).max())


def _log_uniform(lo, hi, n=N):
    return np.exp(RNG.uniform(math.log(lo), math.log(hi), n))


# name: (ours, numpy's long double reference, inputs, bound in ulp)
UNARY = {
    "exp": (exact.exp, np.exp, [RNG.uniform(-745, 709, N), RNG.uniform(-2, 2, N), RNG.uniform(-1e-6, 1e-6, N)], 1.0),
    "log": (
        exact.log,
        np.log,
        [_log_uniform(1e-300, 1e300), RNG.uniform(0.5, 2, N), RNG.uniform(0.999, 1.001, N)],
        1.0,
    ),
    "log2": (exact.log2, np.log2, [_log_uniform(1e-300, 1e300), RNG.uniform(0.5, 2, N)], 2.0),
    "log10": (exact.log10, np.log10, [_log_uniform(1e-300, 1e300), RNG.uniform(0.5, 2, N)], 2.0),
    "sin": (exact.sin, np.sin, [RNG.uniform(-10, 10, N), RNG.uniform(-1e5, 1e5, N), RNG.uniform(-1e-3, 1e-3, N)], 1.0),
    "cos": (exact.cos, np.cos, [RNG.uniform(-10, 10, N), RNG.uniform(-1e5, 1e5, N), RNG.uniform(-1e-3, 1e-3, N)], 1.0),
    "tan": (exact.tan, np.tan, [RNG.uniform(-1.5, 1.5, N), RNG.uniform(-100, 100, N)], 2.5),
    "atan": (exact.atan, np.arctan, [RNG.uniform(-3, 3, N), _log_uniform(1e-20, 1e20)], 1.0),
    "asin": (exact.asin, np.arcsin, [RNG.uniform(-1, 1, N), 1 - _log_uniform(1e-15, 1)], 2.5),
    "acos": (
        exact.acos,
        np.arccos,
        [RNG.uniform(-1, 1, N), 1 - _log_uniform(1e-15, 1), _log_uniform(1e-15, 1) - 1],
        2.5,
    ),
}


@pytest.mark.skipif(not EXTENDED, reason="long double is no wider than float64 here: no reference")
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_functions_are_within_their_bound_of_long_double(name):
    ours, reference, inputs, bound = UNARY[name]
    for x in inputs:
        assert _ulps(ours(x), reference(x.astype(L))) <= bound


@pytest.mark.skipif(not EXTENDED, reason="long double is no wider than float64 here: no reference")
def test_atan2_pow_and_hypot_are_within_their_bounds():
    y, x = RNG.uniform(-10, 10, N), RNG.uniform(-10, 10, N)
    assert _ulps(exact.atan2(y, x), np.arctan2(y.astype(L), x.astype(L))) <= 2.0
    assert _ulps(exact.hypot(y, x), np.hypot(y.astype(L), x.astype(L))) <= 1.5
    base, power = RNG.uniform(0, 100, N), RNG.uniform(-3, 3, N)
    got = exact.pow(base, power)
    ref = np.power(base.astype(L), power.astype(L))
    # relative error below (1 + |y log x|) 2**-52
    bound = (1 + np.abs(power * np.log(base))) * 2.0**-52
    assert (np.abs((got.astype(L) - ref) / ref) <= bound.astype(L)).all()


def test_close_to_numpy_everywhere():
    """A loose check that holds on any machine (numpy's own functions are within a few ulp)."""
    for ours, reference, inputs, _ in UNARY.values():
        for x in inputs:
            np.testing.assert_allclose(ours(x), reference(x), rtol=1e-14, atol=1e-300)
    y, x = RNG.uniform(-10, 10, 100), RNG.uniform(-10, 10, 100)
    np.testing.assert_allclose(exact.atan2(y, x), np.arctan2(y, x), rtol=1e-14)
    np.testing.assert_allclose(exact.degrees_atan(np.abs(x)), np.degrees(np.arctan(np.abs(x))), rtol=1e-14)


@pytest.mark.parametrize(
    "function, x, expected",
    [
        (
            exact.exp,
            [-np.inf, np.inf, np.nan, 0.0, -745.2, 709.8, -745.0],
            [0.0, np.inf, np.nan, 1.0, 0.0, np.inf, 5e-324],
        ),
        (
            exact.log,
            [0.0, -0.0, -1.0, np.inf, np.nan, 1.0, 5e-324],
            [-np.inf, -np.inf, np.nan, np.inf, np.nan, 0.0, None],
        ),
        (exact.log2, [2.0**-1074, 1.0, 2.0**1023, 0.0], [-1074.0, 0.0, 1023.0, -np.inf]),
        (exact.sin, [0.0, -0.0, np.inf, np.nan, exact.SINCOS_MAX * 1.01], [0.0, -0.0, np.nan, np.nan, np.nan]),
        (exact.cos, [0.0, np.inf, np.nan, -exact.SINCOS_MAX * 1.01], [1.0, np.nan, np.nan, np.nan]),
        (exact.atan, [0.0, -0.0, np.inf, -np.inf, np.nan], [0.0, -0.0, np.pi / 2, -np.pi / 2, np.nan]),
        (exact.asin, [1.0, -1.0, 1.5, np.nan], [np.pi / 2, -np.pi / 2, np.nan, np.nan]),
        (exact.acos, [1.0, -1.0, -1.5], [0.0, np.pi, np.nan]),
    ],
)
def test_special_values(function, x, expected):
    got = function(np.array(x))
    for g, e, xi in zip(got.tolist(), expected, x):
        if e is None:
            assert g == float(np.log(xi))
        elif math.isnan(e):
            assert math.isnan(g)
        else:
            assert g == e and math.copysign(1, g) == math.copysign(1, e)


def test_atan2_signed_zeros_and_infinities_as_c99():
    ys = [0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 1.0, np.inf, np.inf, -np.inf, 1.0, 1.0, np.nan, 0.0]
    xs = [1.0, 1.0, -1.0, -1.0, 0.0, 0.0, -0.0, np.inf, -np.inf, 1.0, np.inf, -np.inf, 1.0, -0.0]
    got = exact.atan2(np.array(ys), np.array(xs)).tolist()
    want = np.arctan2(ys, xs).tolist()
    for g, w in zip(got, want):
        assert (math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w))


def test_pow_edges():
    got = exact.pow([0.0, 0.0, 0.0, 1.0, 2.0, -2.0, 4.0], [2.0, -1.0, 0.0, np.nan, 0.0, 0.5, 0.5]).tolist()
    assert got[:5] == [0.0, np.inf, 1.0, 1.0, 1.0] and math.isnan(got[5]) and got[6] == 2.0


def test_integral_powers_square_and_agree_for_floats_and_arrays():
    base = np.concatenate([RNG.uniform(-3, 3, 300), [-2.0, 2.0, 10.0, 0.5, -1e200, 1e-200]])
    power = np.concatenate([RNG.integers(-64, 65, 300).astype(float), [3.0, 10.0, 22.0, -3.0, 3.0, -2.0]])
    with np.errstate(all="ignore"):
        whole = exact.pow(base, power)
        ones = [exact.pow(float(b), float(p)) for b, p in zip(base, power)]
    assert np.array(ones).tobytes() == whole.tobytes()
    assert whole[-6:].tolist() == [-8.0, 1024.0, 1e22, 8.0, -np.inf, np.inf]  # exact results come out exact
    np.testing.assert_allclose(whole[:300], np.power(base[:300], power[:300]), rtol=1e-14)


SCALAR_INPUTS = np.concatenate(
    [
        RNG.uniform(-20, 20, 400),
        _log_uniform(1e-300, 1e300, 200),
        -_log_uniform(1e-300, 1e300, 200),
        [0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan, 5e-324, 2.0**-1074, 709.9, -745.2, 1e300],
    ]
)


@pytest.mark.parametrize(
    "name", ["exp", "log", "log2", "log10", "sin", "cos", "tan", "atan", "asin", "acos", "degrees_atan"]
)
def test_a_python_float_gives_the_bits_of_an_array(name):
    function = getattr(exact, name)
    with np.errstate(all="ignore"):
        whole = function(SCALAR_INPUTS)
        ones = [function(float(x)) for x in SCALAR_INPUTS]
    assert all(type(v) is float for v in ones)
    assert np.array(ones).tobytes() == whole.tobytes()


@pytest.mark.parametrize("name", ["atan2", "pow", "hypot"])
def test_binary_python_floats_give_the_bits_of_arrays(name):
    function = getattr(exact, name)
    a, b = RNG.permutation(SCALAR_INPUTS), SCALAR_INPUTS
    if name == "pow":
        a = np.abs(a)
    with np.errstate(all="ignore"):
        whole = function(a, b)
        ones = [function(float(x), float(y)) for x, y in zip(a, b)]
    assert np.array(ones).tobytes() == whole.tobytes()


def test_sincos_of_a_float_matches_the_array():
    s, c = exact.sincos(SCALAR_INPUTS)
    pairs = [exact.sincos(float(x)) for x in SCALAR_INPUTS]
    assert np.array([p[0] for p in pairs]).tobytes() == s.tobytes()
    assert np.array([p[1] for p in pairs]).tobytes() == c.tobytes()


def test_chunks_shapes_and_scalars_give_the_same_bits():
    x = RNG.uniform(-50, 50, exact.CHUNK * 2 + 17)
    whole = exact.sin(x)
    assert whole.tobytes() == np.concatenate([exact.sin(x[:100]), exact.sin(x[100:])]).tobytes()
    grid = exact.atan(x[: 3 * 5 * 7].reshape(3, 5, 7))
    assert grid.shape == (3, 5, 7) and grid.ravel().tobytes() == exact.atan(x[: 3 * 5 * 7]).tobytes()
    assert exact.exp(np.float64(1.0)) == exact.exp(np.array([1.0]))[0]
    assert exact.atan2(np.ones((2, 1)), np.ones(3)).shape == (2, 3)
    assert exact.exp(np.array(2.0)).shape == ()


def test_dot_rows_adds_left_to_right_in_the_arrays_precision():
    a = RNG.normal(size=(50, 3))
    b = RNG.normal(size=(50, 3))
    p = a * b
    assert exact.dot_rows(a, b).tobytes() == ((p[:, 0] + p[:, 1]) + p[:, 2]).tobytes()
    assert exact.dot_rows(a.astype(np.float32), b.astype(np.float32)).dtype == np.float32


@given(st.floats(-1e6, 1e6))
def test_sin_squared_plus_cos_squared_is_one(x):
    s, c = exact.sincos(x)
    assert abs(s * s + c * c - 1.0) < 4e-16


@given(st.floats(1e-300, 1e300))
def test_exp_undoes_log(x):
    assert abs(exact.exp(exact.log(x)) / x - 1.0) < 1.5e-13
