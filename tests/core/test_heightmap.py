import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from worldseed.core import heightmap
from worldseed.core.errors import ParameterError

heights_2d = hnp.arrays(
    np.float32,
    hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=12),
    elements=st.floats(0, 1, width=32),
)
sorted_line = st.lists(st.floats(-0.5, 1.5, width=32), min_size=2, max_size=60).map(
    lambda v: np.sort(np.array(v, dtype=np.float32))[None, :]
)


def _check_new_float32(out, h):
    assert out.dtype == np.float32
    assert out.shape == np.shape(h)
    if isinstance(h, np.ndarray):
        assert not np.shares_memory(out, h)


# --- normalize --------------------------------------------------------------------------------


@given(hnp.arrays(np.float64, (5, 7), elements=st.floats(-1e3, 1e3)))
def test_normalize_range(h):
    before = h.copy()
    out = heightmap.normalize(h)
    _check_new_float32(out, h)
    np.testing.assert_array_equal(h, before)
    assert out.min() >= 0 and out.max() <= 1
    if h.max() > h.min():
        assert out.min() == 0 and out.max() == 1
        # order is kept
        order = np.argsort(h, axis=None, kind="stable")
        assert (np.diff(out.ravel()[order]) >= 0).all()


def test_normalize_flat_input_is_zero_not_nan():
    out = heightmap.normalize(np.full((4, 4), 3.5, np.float32))
    assert np.isfinite(out).all() and (out == 0).all()


def test_normalize_fixed_range_clips():
    out = heightmap.normalize(np.array([[-5.0, 0.0, 5.0, 10.0, 20.0]]), low=0.0, high=10.0)
    np.testing.assert_allclose(out, [[0, 0, 0.5, 1, 1]])
    out = heightmap.normalize(np.array([[0.0, 2.0, 4.0]]), low=1.0)
    np.testing.assert_allclose(out, [[0, 1 / 3, 1]], rtol=1e-6)


def test_normalize_degenerate_one_sided_range():
    out = heightmap.normalize(np.array([[0.0, 0.5]]), low=0.7)  # all below low
    assert (out == 0).all()


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"low": 1.0, "high": 1.0}, "low"),
        ({"low": float("nan")}, "low"),
        ({"high": "x"}, "high"),
    ],
)
def test_normalize_bad_parameters(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        heightmap.normalize(np.zeros((2, 2)), **kwargs)


def test_bad_heights():
    with pytest.raises(ParameterError, match="h must be a 2-dimensional"):
        heightmap.normalize(np.zeros(4))
    with pytest.raises(ParameterError, match="finite"):
        heightmap.normalize(np.array([[0.0, np.nan]]))
    with pytest.raises(ParameterError, match="h must be a numeric"):
        heightmap.redistribute([["a", "b"]], power=1.0)


# --- falloff ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["radial", "square"])
@pytest.mark.parametrize("shape", [(33, 33), (17, 41), (2, 2), (1, 9)])
def test_falloff_centre_and_border(mode, shape):
    m = heightmap.island_falloff(shape, mode=mode, width=0.35)
    assert m.dtype == np.float32 and m.shape == shape
    assert m.min() >= 0 and m.max() <= 1
    border = np.concatenate([m[0], m[-1], m[:, 0], m[:, -1]])
    if shape[0] > 1:
        assert (border == 0).all()
    if shape[0] % 2 and shape[1] % 2:
        assert m[shape[0] // 2, shape[1] // 2] == 1


@pytest.mark.parametrize("mode", ["radial", "square"])
def test_falloff_decreases_from_centre(mode):
    m = heightmap.island_falloff((65, 65), mode=mode, width=0.8)
    half = m[32, 32:]
    assert (np.diff(half) <= 0).all()
    assert half[0] == 1 and half[-1] == 0
    # inner 1 - width of the half-size stays at 1
    assert (m[32, 32 : 32 + 6] == 1).all()
    # symmetric
    np.testing.assert_array_equal(m, m[::-1])
    np.testing.assert_array_equal(m, m[:, ::-1])


def test_falloff_smooth_ends():
    m = heightmap.island_falloff((2001, 3), mode="square", width=1.0)[:, 1]
    step = np.abs(np.diff(m[1000:]))
    # smoothstep has zero slope at both ends of the fall
    assert step[0] < 1e-5 and step[-1] < 1e-2 and step.max() > 1e-3


def test_falloff_none():
    m = heightmap.island_falloff((4, 5), mode="none")
    assert (m == 1).all() and m.dtype == np.float32


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"mode": "circle"}, "mode"),
        ({"width": 0.0}, "width"),
        ({"width": 1.5}, "width"),
    ],
)
def test_falloff_bad_parameters(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        heightmap.island_falloff((8, 8), **kwargs)


def test_falloff_refuses_huge_shape_before_allocating():
    with pytest.raises(ParameterError, match="shape"):
        heightmap.island_falloff((100_000, 100_000))


def test_apply_falloff():
    h = np.full((9, 9), 0.8, np.float32)
    m = heightmap.island_falloff(h.shape)
    out = heightmap.apply_falloff(h, m)
    _check_new_float32(out, h)
    np.testing.assert_allclose(out, h * m)
    assert (heightmap.apply_falloff(h, m, strength=0.0) == h).all()
    out = heightmap.apply_falloff(h, m, floor=0.1)
    assert out[0, 0] == pytest.approx(0.1) and out[4, 4] == pytest.approx(0.8)
    with pytest.raises(ParameterError, match="mask"):
        heightmap.apply_falloff(h, m[:-1])
    with pytest.raises(ParameterError, match="strength"):
        heightmap.apply_falloff(h, m, strength=2)


# --- redistribute -----------------------------------------------------------------------------


@given(sorted_line, st.floats(*heightmap.POWER))
def test_redistribute_range_and_monotone(h, power):
    out = heightmap.redistribute(h, power=power)
    _check_new_float32(out, h)
    assert out.min() >= 0 and out.max() <= 1
    assert (np.diff(out[0]) >= 0).all()


def test_redistribute_keeps_ends():
    out = heightmap.redistribute(np.array([[0.0, 1.0]], np.float32), power=3.7)
    assert out.tolist() == [[0.0, 1.0]]


@pytest.mark.parametrize("power", [0.0, 0.01, 9, "2"])
def test_redistribute_bad_power(power):
    with pytest.raises(ParameterError, match="power"):
        heightmap.redistribute(np.zeros((2, 2)), power=power)


# --- terrace ----------------------------------------------------------------------------------


@given(sorted_line, st.integers(*heightmap.TERRACES), st.floats(*heightmap.SHARPNESS))
def test_terrace_monotone_and_range(h, steps, sharpness):
    out = heightmap.terrace(h, steps=steps, sharpness=sharpness)
    _check_new_float32(out, h)
    assert out.min() >= 0 and out.max() <= 1
    assert (np.diff(out[0]) >= 0).all()


def test_terrace_off_and_unchanged():
    h = np.linspace(0, 1, 101, dtype=np.float32)[None, :]
    np.testing.assert_array_equal(heightmap.terrace(h, steps=0, sharpness=1.0), h)
    np.testing.assert_allclose(heightmap.terrace(h, steps=5, sharpness=0.0), h)


def test_terrace_hard_steps():
    h = np.linspace(0, 1, 1001, dtype=np.float64)[None, :]
    out = heightmap.terrace(h, steps=4, sharpness=1.0)
    levels = np.unique(out)
    np.testing.assert_allclose(levels, [0, 0.25, 0.5, 0.75, 1.0])
    assert out[0, 0] == 0 and out[0, -1] == 1


def test_terrace_blend_is_continuous_with_flat_treads():
    h = np.linspace(0, 1, 100_001, dtype=np.float32)[None, :]
    out = heightmap.terrace(h, steps=5, sharpness=0.6)[0]
    assert np.abs(np.diff(out)).max() < 1e-3  # no cliffs below sharpness 1
    tread = out[(h[0] > 0.205) & (h[0] < 0.32)]  # first 60 % of step 2 is flat
    assert np.ptp(tread) == 0 and tread[0] == pytest.approx(0.2)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"steps": -1}, "steps"),
        ({"steps": 65}, "steps"),
        ({"steps": 2.5}, "steps"),
        ({"steps": 3, "sharpness": 1.1}, "sharpness"),
    ],
)
def test_terrace_bad_parameters(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        heightmap.terrace(np.zeros((2, 2)), **kwargs)


# --- curve_remap ------------------------------------------------------------------------------

control_points = st.lists(
    st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=8, unique_by=lambda p: round(p[0], 3)
)


@settings(max_examples=200, deadline=None)
@given(control_points)
def test_curve_through_points_without_overshoot(points):
    pts = np.array(sorted(points))
    x, y = pts[:, 0], pts[:, 1]
    # through the control points
    at = heightmap.curve_remap(x[None, :], points=points)[0]
    np.testing.assert_allclose(at, y, atol=2e-5)
    # no overshoot: between neighbours the curve stays within their y values
    dense = np.linspace(0, 1, 2001)
    out = heightmap.curve_remap(dense[None, :], points=points)[0]
    i = np.clip(np.searchsorted(x, dense, side="right") - 1, 0, len(x) - 2)
    lo = np.minimum(y[i], y[i + 1])
    hi = np.maximum(y[i], y[i + 1])
    inside = (dense >= x[0]) & (dense <= x[-1])
    assert (out[inside] >= lo[inside] - 1e-6).all() and (out[inside] <= hi[inside] + 1e-6).all()
    # clamps outside the first and last x
    assert np.allclose(out[dense < x[0]], y[0]) and np.allclose(out[dense > x[-1]], y[-1])


@given(st.lists(st.floats(0, 1), min_size=2, max_size=8, unique=True), sorted_line)
def test_curve_monotone_when_points_are(xs, h):
    xs = sorted(xs)
    if min(np.diff(xs)) < 1e-3:
        return
    ys = sorted(np.random.default_rng(len(xs)).random(len(xs)))
    out = heightmap.curve_remap(h, points=list(zip(xs, ys)))
    _check_new_float32(out, h)
    assert (np.diff(out[0]) >= 0).all()


def test_curve_two_points_is_linear_and_unsorted_points_accepted():
    h = np.linspace(0, 1, 11)[None, :]
    np.testing.assert_allclose(heightmap.curve_remap(h, points=[(1, 1), (0, 0)]), h, atol=1e-6)
    np.testing.assert_allclose(heightmap.curve_remap(h, points=[(0, 1), (1, 0)]), 1 - h, atol=1e-6)


def test_curve_matches_reference_pchip_values():
    # values of scipy.interpolate.PchipInterpolator([0, .3, .5, 1], [0, .6, .65, 1]) (computed by hand
    # from the Fritsch-Carlson formulas; scipy is not a dependency)
    x = np.array([0, 0.3, 0.5, 1.0])
    y = np.array([0, 0.6, 0.65, 1.0])
    out = heightmap.curve_remap(x[None, :], points=np.stack([x, y], 1))[0]
    np.testing.assert_allclose(out, y, atol=1e-6)
    # flat segment stays flat (a local extremum gets slope 0, no ripple)
    flat = heightmap.curve_remap(np.linspace(0.3, 0.6, 31)[None, :], points=[(0, 0), (0.3, 0.5), (0.6, 0.5), (1, 1)])
    np.testing.assert_allclose(flat, 0.5, atol=1e-6)


@pytest.mark.parametrize(
    "points, match",
    [
        ([(0.5, 0.5)], "between 2 and 64"),
        ([(0, 0), (0, 1)], "distinct x"),
        ([(0, 0), (1, 1.5)], r"\[0, 1\]"),
        ([(0, 0, 0), (1, 1, 1)], r"shape \(any, 2\)"),
        ([(0, 0), (1, np.nan)], "finite"),
    ],
)
def test_curve_bad_points(points, match):
    with pytest.raises(ParameterError, match="points") as info:
        heightmap.curve_remap(np.zeros((2, 2)), points=points)
    assert info.match(match)


# --- sea level --------------------------------------------------------------------------------


@given(sorted_line, st.floats(0, 1), st.floats(0, 1))
def test_sea_level_monotone_flat_and_above_unchanged(h, level, frac):
    floor = level * frac
    out = heightmap.sea_level(h, level=level, floor=floor)
    _check_new_float32(out, h)
    assert (np.diff(out[0]) >= 0).all()
    above = h >= np.float32(level)
    np.testing.assert_array_equal(out[above], h[above])
    below = ~above
    assert (out[below] >= np.float32(floor) - 1e-6).all()
    assert (out[below] <= np.float32(level)).all()
    flat = heightmap.sea_level(h, level=level)
    assert (flat[below] == np.float32(level)).all()


def test_sea_level_floor_zero_is_identity_on_unit_range():
    h = np.linspace(0, 1, 21, dtype=np.float32)[None, :]
    np.testing.assert_allclose(heightmap.sea_level(h, level=0.4, floor=0.0), h, atol=1e-7)
    np.testing.assert_array_equal(heightmap.sea_level(h, level=0.0), h)
    assert heightmap.sea_level(np.array([[-0.5, 0.5]]), level=0.0).tolist() == [[0.0, 0.5]]


def test_sea_level_bad_parameters():
    with pytest.raises(ParameterError, match="level"):
        heightmap.sea_level(np.zeros((2, 2)), level=1.2)
    with pytest.raises(ParameterError, match=r"floor must be a finite number in \[0, 0.3\]"):
        heightmap.sea_level(np.zeros((2, 2)), level=0.3, floor=0.5)


# --- gradient and slope -----------------------------------------------------------------------


def test_slope_of_planes():
    rows, cols = 6, 9
    y, x = np.mgrid[0:rows, 0:cols].astype(np.float32)
    h = 0.5 * x * 2.0 + 0.25 * y * 2.0  # cell_size 2: dz/dx = 0.5, dz/dy = 0.25
    gx, gy = heightmap.gradient(h, cell_size=2.0)
    np.testing.assert_allclose(gx, 0.5, rtol=1e-6)
    np.testing.assert_allclose(gy, 0.25, rtol=1e-6)
    slope = heightmap.slope_degrees(h, cell_size=2.0, height_scale=2.0)
    assert slope.dtype == np.float32 and slope.shape == h.shape
    np.testing.assert_allclose(slope, np.degrees(np.arctan(np.hypot(1.0, 0.5))), rtol=1e-5)
    assert (heightmap.slope_degrees(np.zeros((3, 3))) == 0).all()


def test_slope_edges_one_sided():
    h = np.array([[0.0, 1.0, 4.0]] * 2)
    gx, _ = heightmap.gradient(h)
    np.testing.assert_allclose(gx[0], [1.0, 2.0, 3.0])


@given(heights_2d.filter(lambda a: min(a.shape) >= 2))
def test_slope_range(h):
    s = heightmap.slope_degrees(h, cell_size=0.5, height_scale=100.0)
    assert (s >= 0).all() and (s <= 90).all()


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"cell_size": 0.0}, "cell_size"),
        ({"height_scale": -1.0}, "height_scale"),
    ],
)
def test_slope_bad_parameters(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        heightmap.slope_degrees(np.zeros((3, 3)), **kwargs)
    with pytest.raises(ParameterError, match="at least 2"):
        heightmap.slope_degrees(np.zeros((1, 3)))


# --- general contract -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda h: heightmap.normalize(h),
        lambda h: heightmap.redistribute(h, power=2),
        lambda h: heightmap.terrace(h, steps=3, sharpness=0.5),
        lambda h: heightmap.curve_remap(h, points=[(0, 0), (1, 1)]),
        lambda h: heightmap.sea_level(h, level=0.3),
        lambda h: heightmap.apply_falloff(h, np.ones_like(h)),
        lambda h: heightmap.slope_degrees(h),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_inputs_untouched_and_float32_out(call, dtype):
    h = (np.random.default_rng(3).random((5, 6)) * (10 if dtype == np.int32 else 1)).astype(dtype)
    before = h.copy()
    out = call(h)
    assert out.dtype == np.float32 and out.shape == h.shape
    assert not np.shares_memory(out, h)
    np.testing.assert_array_equal(h, before)


def test_bounds_are_pairs():
    for name in (
        "FALLOFF_WIDTH",
        "FALLOFF_STRENGTH",
        "FALLOFF_FLOOR",
        "POWER",
        "TERRACES",
        "SHARPNESS",
        "CURVE_POINTS",
        "SEA_LEVEL",
        "CELL_SIZE",
        "HEIGHT_SCALE",
    ):
        lo, hi = getattr(heightmap, name)
        assert lo < hi
    assert heightmap.FALLOFF_MODES == ("none", "square", "radial")
