"""Tests for worldseed.core.noise on bad input (parameters named in the error), and the point
kernel's cell indices and parallel chunks."""

import numpy as np
import pytest

from worldseed.core import _perlin, noise
from worldseed.core._checks import MAX_CELLS
from worldseed.core.errors import ParameterError

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
