"""Tests for worldseed.core.noise (and its private Perlin/simplex kernels)."""

import hashlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import _perlin, _simplex, noise
from worldseed.core._checks import MAX_CELLS
from worldseed.core.errors import ParameterError

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


# ---------------------------------------------------------------------------
# public API


def test_constants_are_bounds():
    assert noise.OCTAVES == (1, 16)
    for bounds in (noise.SCALE, noise.PERSISTENCE, noise.LACUNARITY, noise.WARP, noise.OFFSET):
        assert len(bounds) == 2 and bounds[0] < bounds[1]
    assert noise.BASES == ("perlin", "simplex") and noise.KINDS == ("fbm", "ridged", "billow")


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    basis=st.sampled_from(noise.BASES),
    kind=st.sampled_from(noise.KINDS),
    octaves=st.integers(1, 8),
    persistence=st.floats(0.0, 1.0),
    lacunarity=st.floats(1.0, 4.0),
    scale=st.floats(0.5, 200.0),
    warp=st.sampled_from([0.0, 0.3, 2.0]),
)
def test_range_dtype_shape(seed, basis, kind, octaves, persistence, lacunarity, scale, warp):
    h = noise.fbm(
        (17, 23),
        scale=scale,
        octaves=octaves,
        persistence=persistence,
        lacunarity=lacunarity,
        seed=seed,
        basis=basis,
        kind=kind,
        warp=warp,
        offset=(-5.5, 1234.0),
    )
    assert h.dtype == np.float32 and h.shape == (17, 23)
    assert np.isfinite(h).all()
    assert h.min() >= -1.0 and h.max() <= 1.0


@pytest.mark.parametrize("basis", noise.BASES)
@pytest.mark.parametrize("kind", noise.KINDS)
def test_range_uses_the_interval(basis, kind):
    h = noise.fbm((256, 256), scale=16.0, octaves=3, seed=11, basis=basis, kind=kind)
    assert -1.0 <= h.min() < -0.2 or kind == "billow"
    assert 0.2 < h.max() <= 1.0 or kind == "ridged" and h.max() > 0
    assert h.std() > 0.05


@pytest.mark.parametrize("basis", noise.BASES)
def test_smooth(basis):
    h = noise.fbm((200, 200), scale=64.0, octaves=1, seed=2, basis=basis).astype(np.float64)
    # a single octave varies over ~64 cells: neighbours differ by far less than the range
    # (simplex is the steeper basis: its kernels span ~0.7 noise units)
    assert np.abs(np.diff(h, axis=0)).max() < 0.15
    assert np.abs(np.diff(h, axis=1)).max() < 0.15
    # fBm: the gradient is bounded by the finest octave
    h = noise.fbm((200, 200), scale=64.0, octaves=4, seed=2, basis=basis).astype(np.float64)
    assert np.abs(np.diff(h, axis=1)).max() < 0.4


@pytest.mark.parametrize("basis", noise.BASES)
@pytest.mark.parametrize("warp", [0.0, 0.5])
def test_same_seed_same_bytes_different_seed_differs(basis, warp):
    a = noise.fbm((40, 50), seed=9, basis=basis, warp=warp, scale=12.0)
    b = noise.fbm((40, 50), seed=9, basis=basis, warp=warp, scale=12.0)
    c = noise.fbm((40, 50), seed=10, basis=basis, warp=warp, scale=12.0)
    assert a.tobytes() == b.tobytes()
    assert np.abs(a - c).mean() > 0.01
    gen = noise.fbm((40, 50), seed=np.random.default_rng(9), basis=basis, warp=warp, scale=12.0)
    assert gen.tobytes() == a.tobytes()


def test_more_octaves_keep_the_first_ones():
    # octave parameters are drawn for OCTAVES[1] octaves, so they do not shift
    a = noise.fbm((30, 30), octaves=2, persistence=0.0, seed=3, scale=8.0)
    b = noise.fbm((30, 30), octaves=5, persistence=0.0, seed=3, scale=8.0)
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("basis", noise.BASES)
@pytest.mark.parametrize("kind", noise.KINDS)
@pytest.mark.parametrize("warp", [0.0, 0.8])
def test_seamless_tiles(basis, kind, warp):
    H, W = 33, 47
    kw = dict(scale=10.0, octaves=5, seed=21, basis=basis, kind=kind, warp=warp)
    a = noise.fbm((H, W), offset=(0.0, 0.0), **kw)
    right = noise.fbm((H, W), offset=(W - 1.0, 0.0), **kw)
    below = noise.fbm((H, W), offset=(0.0, H - 1.0), **kw)
    assert right[:, 0].tobytes() == a[:, -1].tobytes()
    assert below[0, :].tobytes() == a[-1, :].tobytes()
    # and an overlapping window agrees everywhere it overlaps
    mid = noise.fbm((H, W), offset=(13.0, 7.0), **kw)
    assert mid[:-7, :-13].tobytes() == a[7:, 13:].tobytes()


@pytest.mark.parametrize("basis", noise.BASES)
def test_big_grid_seamless_across_chunks_and_blocks(basis):
    # rows and columns longer than one chunk / column block
    kw = dict(scale=5.0, octaves=3, seed=1, basis=basis)
    a = noise.fbm((70, 2100), **kw)
    b = noise.fbm((70, 1100), offset=(1000.0, 0.0), **kw)
    assert a[:, 1000:].tobytes() == b[:, :1100].tobytes()


@pytest.mark.parametrize("basis", noise.BASES)
def test_far_from_origin_is_smooth(basis):
    near = noise.fbm((128, 128), scale=32.0, octaves=3, seed=4, basis=basis).astype(np.float64)
    far = noise.fbm((128, 128), scale=32.0, octaves=3, seed=4, basis=basis, offset=(1e6, -1e6)).astype(np.float64)
    assert far.std() > 0.05
    # no blockiness: neighbour steps as small as near the origin (float64 lattice maths)
    for axis in (0, 1):
        assert np.abs(np.diff(far, axis=axis)).max() < 2 * np.abs(np.diff(near, axis=axis)).max() + 0.02
    # and many distinct values (not a staircase)
    assert len(np.unique(far[0])) > 120


@pytest.mark.parametrize("basis", noise.BASES)
@pytest.mark.parametrize("kind", noise.KINDS)
@pytest.mark.parametrize("warp", [0.0, 1.5])
def test_grid_equals_points(basis, kind, warp):
    kw = dict(scale=7.5, octaves=4, persistence=0.6, lacunarity=2.3, seed=8, basis=basis, kind=kind, warp=warp)
    ox, oy = -123.0, 4567.0
    g = noise.fbm((31, 45), offset=(ox, oy), **kw)
    x = ox + np.arange(45, dtype=np.float64)
    y = oy + np.arange(31, dtype=np.float64)
    p = noise.fbm_at(x[None, :], y[:, None], **kw)
    assert p.shape == g.shape and p.dtype == np.float32
    assert p.tobytes() == g.tobytes()


def test_fbm_at_shapes_and_jitter():
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-1e4, 1e4, (3, 5, 7)), rng.uniform(-1e4, 1e4, (3, 5, 7))
    v = noise.fbm_at(x, y, seed=2, warp=0.5)
    assert v.shape == (3, 5, 7) and v.dtype == np.float32 and np.abs(v).max() <= 1
    assert noise.fbm_at(1.5, 2.5).shape == ()
    # scalar result equals the same point inside an array
    assert noise.fbm_at(x[1, 2, 3], y[1, 2, 3], seed=2, warp=0.5) == v[1, 2, 3]


def test_noise2():
    assert (noise.noise2(np.arange(-5.0, 5.0), 3.0, seed=1) == 0).all()  # lattice points
    v = noise.noise2(np.linspace(0, 50, 1000), 0.3, seed=1)
    assert v.dtype == np.float32 and np.abs(v).max() <= 1 and v.std() > 0.05
    # noise2 with a reference-like permutation is a pure function of the seed
    assert noise.noise2(0.3, 0.7, seed=5) == noise.noise2(0.3, 0.7, seed=5)


# Golden hashes: sha256 of the output bytes for fixed arguments. They pin the whole
# algorithm (hash, gradients, fade, octave offsets/orientations drawn from the
# seed, float32 operation order), so any change to the output -- intended or not --
# fails here; if the change is intended, update the hashes and say so in the commit.
GOLDEN = {
    ("perlin", 0): "5abeaf442fe1be61d5453271cd0c62adc521fdd72e39f1b79b20725e2ac58c51",
    ("perlin", 12345): "5026b207db02d9f8f2a245cb5b689d1d34ba02216012f71c9f8c8dc2fbaeeab3",
    ("simplex", 0): "52be8d84658620005c6726b12892ae107967a4de0ffcd1b3bdd9d1c3e00a658b",
    ("simplex", 12345): "941bc3952325f72cd2fd6560c87524922a323829db8ff21478bc9a218b8837ed",
}


@pytest.mark.parametrize("basis, seed", sorted(GOLDEN))
def test_golden_hash(basis, seed):
    h = noise.fbm(
        (64, 80), scale=16.0, octaves=5, seed=seed, basis=basis, offset=(-40.0, 1000.0), warp=0.25, kind="fbm"
    )
    r = noise.fbm((32, 32), scale=8.0, octaves=3, seed=seed, basis=basis, kind="ridged")
    digest = hashlib.sha256(h.tobytes() + r.tobytes()).hexdigest()
    assert digest == GOLDEN[(basis, seed)]


# The same for the arbitrary-point path (fbm_at, what domain warp and scatter use), with
# warp, a ridged field and coordinates beyond _perlin.MAGIC_REACH (the fmod index path).
# Taken before the point kernels were rewritten for speed (issue 9): the bytes must not move.
GOLDEN_POINTS = {
    ("perlin", False): "ede58cd5b16a26a69902c0cb0b4f72f4c35cacc9458cbe6ee66716cfc74d238a",
    ("perlin", True): "37c4eedf2c81bfb646c8a63f0c5d1fa26fbd0243eb5b45e80fdffbe47739f158",
    ("simplex", False): "b276b0fbcb8844ebc3dd9055d1a9ca963c4f962414d74e8a9f89b9a199f7b998",
    ("simplex", True): "3d317ffbdb49fd49f9d9acf26d064de7b4b9b81f385724ac4709e9c20a08c0a0",
}


@pytest.mark.parametrize("basis, far", sorted(GOLDEN_POINTS))
def test_golden_hash_points(basis, far):
    rng = np.random.default_rng(2026)
    x, y = rng.uniform(-700.0, 900.0, (2, 20_000))
    if far:
        x, y = x * 1e10 + 3e14, y * 1e10 - 2e14
        assert np.abs(x).max() / 1.0 * 2**5 > _perlin.MAGIC_REACH  # the last octave really is far
    scale = 1.0 if far else 41.0
    a = noise.fbm_at(x, y, scale=scale, octaves=6, seed=77, basis=basis, kind="fbm", warp=0.0 if far else 0.5)
    b = noise.fbm_at(x, y, scale=scale, octaves=4, seed=78, basis=basis, kind="ridged")
    assert hashlib.sha256(a.tobytes() + b.tobytes()).hexdigest() == GOLDEN_POINTS[(basis, far)]


@pytest.mark.parametrize("basis", ["perlin", "simplex"])
def test_bytes_do_not_depend_on_chunks_or_threads(basis, monkeypatch):
    """Chunk size and thread count are speed knobs only: the same seed gives the same bytes."""
    from worldseed.core import _fractal

    rng = np.random.default_rng(11)
    x, y = rng.uniform(-300.0, 300.0, (2, 50_000))
    kw = dict(scale=20.0, octaves=5, seed=4, basis=basis, kind="ridged", warp=0.5)
    got = []
    for chunk, threaded, threads in ((1 << 15, 1 << 17, 1), (1 << 15, 1 << 15, 2), (7_000, 9_000, 2), (1 << 17, 1, 3)):
        monkeypatch.setattr(_fractal, "POINT_CHUNK", chunk)
        monkeypatch.setattr(_fractal, "THREAD_POINT_CHUNK", threaded)
        monkeypatch.setattr(_fractal, "_THREADS", threads)
        got.append(noise.fbm_at(x, y, **kw).tobytes() + noise.fbm((70, 90), **kw).tobytes())
    assert all(g == got[0] for g in got)


def test_simplex_index_paths_agree():
    """The simplex kernel's cell index from the float bits (near) and after fmod (far) agree."""
    rng = np.random.default_rng(3)
    x, y = rng.uniform(-5000.0, 5000.0, (2, 4096))
    gx, gy = _simplex.gradient_tables(rng.permutation(256))
    out = [np.zeros(x.size, np.float32) for _ in range(3)]
    for acc, near in zip(out, (True, False, None), strict=True):
        _simplex.point_octave(x, y, -1.0, 1.0, True, 0.37, 11.5, 200.25, gx, gy, 0.5, acc, near=near)
    assert out[0].tobytes() == out[1].tobytes() == out[2].tobytes()
    assert out[0].std() > 0.05


@pytest.mark.parametrize("orientation", range(8))
@pytest.mark.parametrize("near", [True, False, None])
def test_simplex_grid_kernel_is_the_point_kernel(orientation, near):
    """The simplex grid kernel (separable skew) gives the point kernel's bytes at the grid's points."""
    rng = np.random.default_rng(orientation)
    xs = -1234.5 + 0.75 * np.arange(37.0)
    ys = 9876.25 - 1.25 * np.arange(23.0)
    gx, gy = _simplex.gradient_tables(rng.permutation(256))
    swap, sx, sy = bool(orientation & 4), (-1.0 if orientation & 1 else 1.0), (-1.0 if orientation & 2 else 1.0)
    args = (sx, sy, swap, 0.093, 113.7, -45.3, gx, gy, 0.6)
    grid = np.zeros(xs.size * ys.size, np.float32)
    _simplex.grid_octave(xs, ys, *args, grid, near=near)
    x, y = np.meshgrid(xs, ys)
    points = np.zeros(x.size, np.float32)
    _simplex.point_octave(x.ravel(), y.ravel(), *args, points, near=near)
    assert grid.tobytes() == points.tobytes()
    assert grid.std() > 0.05


# ---------------------------------------------------------------------------
# bad input

BAD = [
    ("octaves", 0),
    ("octaves", 17),
    ("octaves", 2.5),
    ("octaves", True),
    ("octaves", "6"),
    ("octaves", None),
    ("scale", float("nan")),
    ("scale", float("inf")),
    ("scale", -1.0),
    ("scale", 0.0),
    ("scale", True),
    ("scale", "64"),
    ("persistence", -0.1),
    ("persistence", 1.5),
    ("persistence", float("nan")),
    ("lacunarity", 0.5),
    ("lacunarity", float("inf")),
    ("lacunarity", 9.0),
    ("warp", -1.0),
    ("warp", float("nan")),
    ("warp", 100.0),
    ("basis", "value"),
    ("basis", 1),
    ("kind", "turbulence"),
    ("kind", None),
    ("seed", -1),
    ("seed", 1.5),
    ("seed", "x"),
    ("seed", True),
    ("offset", (float("nan"), 0.0)),
    ("offset", (0.0, float("inf"))),
    ("offset", 3.0),
    ("offset", (1e12, 0.0)),
]


@pytest.mark.parametrize("name, value", BAD)
def test_bad_parameters_raise_naming_the_parameter(name, value):
    with pytest.raises(ParameterError, match=name):
        noise.fbm((8, 8), **{name: value})


@pytest.mark.parametrize(
    "shape", [(0, 5), (5, -1), (2.5, 3), (True, 3), "ab", (3,), None, (MAX_CELLS, 2), (100_000, 100_000)]
)
def test_bad_shape(shape):
    with pytest.raises(ParameterError, match="shape"):
        noise.fbm(shape)


@pytest.mark.parametrize("name, value", [n for n in BAD if n[0] not in ("offset", "seed")])
def test_fbm_at_bad_parameters(name, value):
    with pytest.raises(ParameterError, match=name):
        noise.fbm_at([0.0], [0.0], **{name: value})


@pytest.mark.parametrize(
    "x, y, match",
    [
        ([np.nan], [0.0], "x"),
        ([0.0], [np.inf], "y"),
        ([1.0, -np.inf, 2.0], [0.0], "x"),
        (np.zeros(5), np.r_[1.0, 2.0, np.nan, 3.0, 4.0], "y"),
        (["a"], [0.0], "x"),
        (np.zeros(3), np.zeros(4), "broadcast"),
    ],
)
def test_fbm_at_bad_coordinates(x, y, match):
    with pytest.raises(ParameterError, match=match):
        noise.fbm_at(x, y)


def test_too_far_is_refused_before_overflow():
    with pytest.raises(ParameterError, match="offset"):
        noise.fbm((4, 4), scale=0.001, lacunarity=4.0, octaves=16, offset=(1e8, 0.0))
    with pytest.raises(ParameterError, match="x, y"):
        noise.fbm_at([1e9], [0.0], scale=0.001, lacunarity=4.0, octaves=16)


def test_noise2_bad_input():
    with pytest.raises(ParameterError, match="basis"):
        noise.noise2(0.0, 0.0, basis="cubic")
    with pytest.raises(ParameterError, match="seed"):
        noise.noise2(0.0, 0.0, seed=-3)


def test_point_kernel_cell_index_near_and_far():
    # The cell index comes from the float bits of floor + 1.5 * 2**52 below MAGIC_REACH
    # and from fmod(floor, 256) beyond it; both must agree with the lattice period.
    rng = np.random.default_rng(3)
    x = rng.integers(-500, 500, 2000) + rng.integers(0, 2, 2000) * 0.5
    y = rng.integers(-500, 500, 2000) + rng.integers(0, 2, 2000) * 0.5
    gx, gy = _perlin.gradient_tables(_perlin.REFERENCE_PERMUTATION)
    outs = []
    for near in (True, False):
        acc = np.zeros(x.size, np.float32)
        _perlin.point_octave(x, y, 1.0, 0.0, 0.0, gx, gy, 1.0, acc, near=near)
        outs.append(acc.tobytes())
    assert outs[0] == outs[1]
    base = _perlin.perlin2(x, y)
    for shift in (2.0**48, 2.0**51, -(2.0**51)):  # multiples of the period; exact (half-integers)
        assert _perlin.perlin2(x + shift, y - shift).tobytes() == base.tobytes()


def test_point_chunk_longer_on_several_threads(monkeypatch):
    """One thread: cache-sized chunks; several: longer ones (fewer GIL hand-overs), an equal share at most."""
    from worldseed.core import _fractal

    monkeypatch.setattr(_fractal, "_THREADS", 1)
    assert _fractal.point_chunk(1 << 22) == _fractal.POINT_CHUNK
    monkeypatch.setattr(_fractal, "_THREADS", 2)
    assert _fractal.point_chunk(1 << 22) == _fractal.THREAD_POINT_CHUNK > _fractal.POINT_CHUNK
    assert _fractal.point_chunk(1 << 22, threads=False) == _fractal.POINT_CHUNK
    assert _fractal.point_chunk(100_001) == 50_001  # both threads busy
    assert _fractal.point_chunk(1_000) == _fractal.POINT_CHUNK


def test_run_parallel_runs_every_chunk_once(monkeypatch):
    """Threads take chunks as they come free; every chunk runs exactly once, each thread with its own workspace."""
    import threading

    from worldseed.core import _fractal

    monkeypatch.setattr(_fractal, "_THREADS", 3)
    seen, spaces, lock = [], set(), threading.Lock()

    def work(s, e, ws):
        with lock:
            seen.append((s, e))
            spaces.add((threading.get_ident(), id(ws)))

    _fractal.run_parallel(100_003, 1000, work)
    assert sorted(seen) == [(s, min(100_003, s + 1000)) for s in range(0, 100_003, 1000)]
    assert len({t for t, _ in spaces}) == len({w for _, w in spaces}) <= 3
