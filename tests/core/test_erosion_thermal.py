"""Thermal erosion: mass kept, slopes end within the talus angle, early stop, argument checks."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core.erosion import thermal
from worldseed.core.erosion._thermal import TOLERANCE
from worldseed.core.errors import ParameterError


def steepest_slopes(h, cell_size):
    """The largest |drop| / distance over every pair of 8-neighbours."""
    worst = 0.0
    for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
        rows, cols = h.shape
        a = h[0 : rows - dy, max(0, -dx) : cols - max(0, dx)]
        b = h[dy:rows, max(0, dx) : cols - max(0, -dx)]
        if a.size:
            distance = cell_size * (math.sqrt(2.0) if dy and dx else 1.0)
            worst = max(worst, float(np.abs(a - b).max()) / distance)
    return worst


def reference_thermal(h, cell_size, talus, iterations, rate):
    """The step, one cell at a time: the steepest excess's half times the rate, shared by excess."""
    h = [list(map(float, row)) for row in h]
    rows, cols = len(h), len(h[0])
    tan = math.tan(math.radians(talus))
    for _ in range(iterations):
        delta = [[0.0] * cols for _ in range(rows)]
        for r in range(rows):
            for c in range(cols):
                out = []
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        y, x = r + dy, c + dx
                        if (dy or dx) and 0 <= y < rows and 0 <= x < cols:
                            d = cell_size * (math.sqrt(2.0) if dy and dx else 1.0)
                            e = h[r][c] - h[y][x] - tan * d
                            if e > 0:
                                out.append((e, y, x))
                if out:
                    total = sum(e for e, _, _ in out)
                    give = 0.5 * rate * max(e for e, _, _ in out) / total
                    for e, y, x in out:
                        delta[r][c] -= give * e
                        delta[y][x] += give * e
        h = [[h[r][c] + delta[r][c] for c in range(cols)] for r in range(rows)]
    return np.array(h)


def rough(seed, shape, amplitude=10.0):
    return np.random.default_rng(seed).random(shape) * amplitude


@pytest.mark.parametrize("talus", [20.0, 35.0, 50.0])
@pytest.mark.parametrize("cell_size", [0.5, 2.0])
def test_slopes_end_within_talus_and_mass_is_kept(talus, cell_size):
    h = rough(1, (24, 31))
    out = thermal(h, cell_size=cell_size, talus=talus, iterations=20_000, rate=0.5)
    assert steepest_slopes(out, cell_size) <= math.tan(math.radians(talus)) + 2 * TOLERANCE
    assert math.isclose(out.sum(), h.sum(), rel_tol=1e-12)
    assert steepest_slopes(h, cell_size) > math.tan(math.radians(talus))  # there was work to do


@pytest.mark.parametrize("block", [37, 1 << 16])
@pytest.mark.parametrize(
    ("shape", "talus", "rate"), [((19, 23), 35.0, 0.5), ((7, 40), 20.0, 1.0), ((30, 1), 30.0, 0.3)]
)
def test_steps_equal_the_cell_by_cell_reference(shape, talus, rate, block, monkeypatch):
    from worldseed.core.erosion import _thermal

    monkeypatch.setattr(_thermal, "BLOCK", block)  # blocks that split rows and pairs
    h = rough(5, shape)
    ours = thermal(h, cell_size=1.5, talus=talus, iterations=12, rate=rate)
    np.testing.assert_allclose(ours, reference_thermal(h, 1.5, talus, 12, rate), rtol=0, atol=1e-11)


def test_a_spike_slumps_into_a_cone():
    h = np.zeros((21, 21))
    h[10, 10] = 50.0
    out = thermal(h, cell_size=1.0, talus=30.0, iterations=5_000, rate=1.0)
    assert math.isclose(out.sum(), 50.0, rel_tol=1e-12)
    assert out[10, 10] < 10.0 and out[10, 10] == out.max()
    assert np.allclose(out, out[::-1]) and np.allclose(out, out.T)  # symmetric: no direction favoured
    assert steepest_slopes(out, 1.0) <= math.tan(math.radians(30.0)) + 2 * TOLERANCE


def test_gentle_map_is_left_bit_for_bit():
    y, x = np.mgrid[0:30, 0:40]
    h = np.sin(x / 7.0) + np.cos(y / 5.0) * 0.5  # slopes < 0.25 per metre
    out = thermal(h, cell_size=1.0, talus=30.0, iterations=100)
    assert np.array_equal(out, h)


def test_iterations_zero_and_input_kept():
    h = rough(2, (9, 9)).astype(np.float32)
    before = h.copy()
    out = thermal(h, cell_size=1.0, iterations=0)
    assert out.dtype == np.float64 and np.array_equal(out, h.astype(np.float64))
    thermal(h, cell_size=1.0, iterations=10)
    assert np.array_equal(h, before)


def test_more_iterations_flatten_more():
    h = rough(3, (32, 32), amplitude=20.0)
    tan = math.tan(math.radians(35.0))
    excess = [steepest_slopes(thermal(h, cell_size=1.0, iterations=k), 1.0) - tan for k in (0, 5, 50, 500)]
    assert excess[0] > excess[1] > excess[2] > excess[3]


@pytest.mark.parametrize("split", [1, 7, 19])
def test_steps_in_chunks_equal_one_call(split):
    # each step depends on the heights alone: callers may run the steps in chunks (progress, cancel)
    h = rough(6, (33, 29), amplitude=25.0)
    whole = thermal(h, cell_size=1.0, iterations=25)
    part = thermal(thermal(h, cell_size=1.0, iterations=split), cell_size=1.0, iterations=25 - split)
    assert np.array_equal(part, whole)


def test_deterministic():
    h = rough(4, (40, 33))
    assert np.array_equal(thermal(h, cell_size=1.5, iterations=30), thermal(h, cell_size=1.5, iterations=30))


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 12),
    st.integers(1, 12),
    st.integers(0, 2**32 - 1),
    st.floats(0.0, 60.0),
    st.floats(0.05, 1.0),
    st.integers(0, 60),
)
def test_random_maps_keep_their_volume(rows, cols, seed, talus, rate, iterations):
    h = rough(seed, (rows, cols), amplitude=30.0) - 5.0
    out = thermal(h, cell_size=1.0, talus=talus, iterations=iterations, rate=rate)
    assert out.shape == h.shape and np.isfinite(out).all()
    assert abs(out.sum() - h.sum()) <= 1e-9 * max(1.0, np.abs(h).sum())


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(cell_size=0.0), r"cell_size must be a number in \(0, inf\), got 0.0"),
        (dict(cell_size=float("inf")), r"cell_size must be a number in \(0, inf\), got inf"),
        (dict(cell_size=1.0, talus=95.0), r"talus must be a number in \[0, 89\], got 95.0"),
        (dict(cell_size=1.0, rate=0.0), r"rate must be a number in \(0, 1\], got 0.0"),
        (dict(cell_size=1.0, rate=float("nan")), r"rate must be a number"),
        (dict(cell_size=1.0, iterations=2.5), r"iterations must be an integer in \[0, 100000\], got 2.5"),
        (dict(cell_size=1.0, iterations=-1), r"iterations must be an integer in \[0, 100000\], got -1"),
        (dict(cell_size=1.0, iterations=True), r"iterations must be an integer"),
    ],
)
def test_errors_name_the_parameter(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        thermal(np.zeros((4, 4)), **kwargs)


def test_heights_checked():
    with pytest.raises(ParameterError, match="heights must be a non-empty 2-D array"):
        thermal(np.zeros(4), cell_size=1.0)
    with pytest.raises(ParameterError, match="heights must be finite"):
        thermal(np.array([[0.0, np.inf]]), cell_size=1.0)
