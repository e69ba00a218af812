"""Tests of worldseed.core's private Perlin/simplex kernels against Ken Perlin's 2002 Java reference
(ported line by line to scalar Python), and the simplex normalisation."""

import math

import numpy as np
import pytest

from worldseed.core import _perlin, _simplex, noise

# ---------------------------------------------------------------------------
# Ken Perlin's 2002 Java reference, ported line by line to scalar Python.

# fmt: off
REF_P = [
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
]
# fmt: on
P = REF_P + REF_P


def ref_fade(t):
    return t * t * t * (t * (t * 6 - 15) + 10)


def ref_lerp(t, a, b):
    return a + t * (b - a)


def ref_grad(h, x, y, z):
    h &= 15
    u = x if h < 8 else y
    v = y if h < 4 else (x if h in (12, 14) else z)
    return (u if h & 1 == 0 else -u) + (v if h & 2 == 0 else -v)


def ref_noise(x, y, z):
    X, Y, Z = math.floor(x) & 255, math.floor(y) & 255, math.floor(z) & 255
    x -= math.floor(x)
    y -= math.floor(y)
    z -= math.floor(z)
    u, v, w = ref_fade(x), ref_fade(y), ref_fade(z)
    A = P[X] + Y
    AA, AB = P[A] + Z, P[A + 1] + Z
    B = P[X + 1] + Y
    BA, BB = P[B] + Z, P[B + 1] + Z
    return ref_lerp(
        w,
        ref_lerp(
            v,
            ref_lerp(u, ref_grad(P[AA], x, y, z), ref_grad(P[BA], x - 1, y, z)),
            ref_lerp(u, ref_grad(P[AB], x, y - 1, z), ref_grad(P[BB], x - 1, y - 1, z)),
        ),
        ref_lerp(
            v,
            ref_lerp(u, ref_grad(P[AA + 1], x, y, z - 1), ref_grad(P[BA + 1], x - 1, y, z - 1)),
            ref_lerp(u, ref_grad(P[AB + 1], x, y - 1, z - 1), ref_grad(P[BB + 1], x - 1, y - 1, z - 1)),
        ),
    )


def test_reference_permutation_is_a_permutation():
    assert sorted(REF_P) == list(range(256))
    assert REF_P[:4] == [151, 160, 137, 91] and REF_P[-4:] == [215, 61, 156, 180]
    assert (_perlin.REFERENCE_PERMUTATION == np.array(REF_P)).all()


@pytest.mark.parametrize(
    "xyz, expected",
    [
        ((3.14, 42, 7), 0.13691995878400012),
        ((-4.2, 10, 6), 0.14208000000000043),
        ((0.5, 0.5, 0.5), -0.25),
        ((0.1, 0.1, 0.1), 0.1861607143544832),
        ((1.4142, 1.2589, 2.718), -0.1724566381498836),
        ((1.5, 2.5, 3.5), 0.125),
        ((3, -7, 11), 0.0),
    ],
)
def test_reference_port_values(xyz, expected):
    assert ref_noise(*xyz) == expected
    assert ref_fade(0.75) == 0.896484375


def _random_points(n=4000, seed=5):
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.uniform(-700, 700, n), rng.integers(-300, 300, 50).astype(float)])
    y = np.concatenate([rng.uniform(-700, 700, n), rng.uniform(-3, 3, 50)])
    return x, y


def test_vectorised_perlin_matches_reference_float64():
    x, y = _random_points()
    ref = np.array([ref_noise(a, b, 0.0) for a, b in zip(x, y)])
    got = _perlin.perlin2(x, y, _perlin.REFERENCE_PERMUTATION, dtype=np.float64)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)


def test_vectorised_perlin_matches_reference_float32():
    # The production factor maths is float32 in the separable form
    # R1 P0 + R2 Q0 + R3 P1 + R4 Q1; its terms are up to ~0.5 while the fades
    # carry a few float32 roundings, so the worst case is ~2e-6, not 1e-6
    # (observed max 1.6e-6 over these points). Exact to 1e-12 in float64 above.
    x, y = _random_points()
    ref = np.array([ref_noise(a, b, 0.0) for a, b in zip(x, y)])
    got = _perlin.perlin2(x, y, _perlin.REFERENCE_PERMUTATION)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ref, rtol=0, atol=2.5e-6)
    assert np.median(np.abs(got - ref)) < 2e-7


def test_perlin_gradient_table_is_the_reference_rule():
    for h in range(16):
        assert (_perlin.GRAD_X[h], _perlin.GRAD_Y[h]) == (ref_grad(h, 1.0, 0.0, 0.0), ref_grad(h, 0.0, 1.0, 0.0))


@pytest.mark.parametrize("orientation", range(8))
def test_oriented_perlin_is_perlin_at_transformed_coordinates(orientation):
    # noise'(q) with the remapped table == noise(M q)
    swap, sx, sy = orientation & 4, -1.0 if orientation & 1 else 1.0, -1.0 if orientation & 2 else 1.0
    rng = np.random.default_rng(orientation)
    x, y = rng.uniform(-300, 300, 500), rng.uniform(-300, 300, 500)
    perm = _perlin.REFERENCE_PERMUTATION
    gx, gy = _perlin.gradient_tables(perm, orientation)
    got = np.zeros(x.size)
    _perlin.point_octave(x, y, 1.0, 0.0, 0.0, gx.astype(np.float64), gy.astype(np.float64), 1.0, got)
    mx, my = (sx * y, sy * x) if swap else (sx * x, sy * y)
    ref = _perlin.perlin2(mx, my, perm, dtype=np.float64)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)


def test_simplex_normalisation_bounds_single_octave():
    # dense sample of one octave stays in [-1, 1] and uses most of the range
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-500, 500, 200_000), rng.uniform(-500, 500, 200_000)
    v = noise.noise2(x, y, seed=4, basis="simplex")
    assert v.min() >= -1 and v.max() <= 1
    assert v.max() - v.min() > 1.2
    assert math.isclose(_simplex.F2, 0.5 * (math.sqrt(3) - 1)) and math.isclose(_simplex.G2, (3 - math.sqrt(3)) / 6)
