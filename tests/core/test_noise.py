"""Tests for worldseed.core.noise: range, smoothness, seams and determinism of the public API.

The kernels against Perlin's reference: test_noise_reference.py; bad input: test_noise_errors.py;
golden hashes (grids and points): the ``noise_*`` cases of _digest_cases.py (test_golden_digests.py,
and on other CPU settings test_cpu_determinism.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import _simplex, noise

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
