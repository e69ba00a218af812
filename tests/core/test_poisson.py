"""core.scatter sampling: poisson_disk and poisson_disk_variable (distance, maximal cover, isotropy)."""

import inspect
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import scatter
from worldseed.core.errors import ParameterError

from ._scatter_geometry import bilinear, min_pair_distance, pairs_within, probes, worst_cover

# --- poisson_disk -----------------------------------------------------------------------------


def test_poisson_disk_signature_and_output():
    sig = inspect.signature(scatter.poisson_disk)
    assert list(sig.parameters) == ["width", "height", "radius", "seed", "k"]
    assert sig.parameters["seed"].kind is inspect.Parameter.KEYWORD_ONLY and sig.parameters["seed"].default == 0
    assert sig.parameters["k"].kind is inspect.Parameter.KEYWORD_ONLY and sig.parameters["k"].default == 30
    pts = scatter.poisson_disk(30.0, 12.0, 1.5)
    assert pts.ndim == 2 and pts.shape[1] == 2 and pts.dtype == np.float64 and len(pts) > 50
    assert (pts[:, 0] >= 0).all() and (pts[:, 0] < 30).all() and (pts[:, 1] >= 0).all() and (pts[:, 1] < 12).all()


@pytest.mark.parametrize(
    "width, height, radius, seed",
    [(60.0, 40.0, 1.0, 0), (33.3, 71.0, 2.7, 5), (10.0, 10.0, 4.0, 9), (120.0, 3.0, 0.8, 2)],
)
def test_poisson_disk_is_a_maximal_packing(width, height, radius, seed):
    pts = scatter.poisson_disk(width, height, radius, seed=seed)
    assert min_pair_distance(pts, 2 * radius) >= radius
    # every probe (a fine grid, edges included) lies closer than r to a sample: no room is left
    q = probes(width, height, radius / 12)
    q = np.concatenate([q, [[0, 0], [width, 0], [0, height], [width, height]]])
    r = np.full(len(pts), radius)
    assert worst_cover(pts, r, q, np.full(len(q), radius)) < 1.0


def test_poisson_disk_density_is_the_random_sequential_adsorption_limit():
    # 0.547 of the plane covered by disks of radius r/2 (Feder 1980) gives 0.6965 / r^2 points; the
    # edges add a little (a sample may sit right at the border)
    pts = scatter.poisson_disk(200.0, 200.0, 2.0, seed=4)
    per_area = len(pts) * 4.0 / 200.0**2
    assert 0.69 < per_area < 0.72


def test_poisson_disk_is_deterministic_by_seed():
    a = scatter.poisson_disk(50.0, 30.0, 1.3, seed=11)
    b = scatter.poisson_disk(50.0, 30.0, 1.3, seed=11)
    c = scatter.poisson_disk(50.0, 30.0, 1.3, seed=12)
    d = scatter.poisson_disk(50.0, 30.0, 1.3, seed=np.random.default_rng(11))
    assert a.tobytes() == b.tobytes()
    assert a.shape != c.shape or a.tobytes() != c.tobytes()
    assert d.shape[1] == 2


@pytest.mark.parametrize("k", [1, 4, 30, 200])
def test_any_k_gives_a_maximal_packing(k):
    pts = scatter.poisson_disk(25.0, 25.0, 1.5, seed=3, k=k)
    assert min_pair_distance(pts, 3.0) >= 1.5
    q = probes(25.0, 25.0, 0.15)
    assert worst_cover(pts, np.full(len(pts), 1.5), q, np.full(len(q), 1.5)) < 1.0


def _neighbour_angles(pts, radius):
    q, p = pairs_within(pts, 1.5 * radius)
    d = pts[p] - pts[q]
    return np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 90.0


def test_the_pattern_has_no_grid_bias():
    # neighbour directions (mod 90 degrees) are uniform: as many near the grid axes as near the
    # diagonals, and no 10-degree bin far from the mean
    pts = scatter.poisson_disk(220.0, 220.0, 2.0, seed=8)
    a = _neighbour_angles(pts, 2.0)
    axis = ((a < 5) | (a > 85)).mean()
    diagonal = (np.abs(a - 45) < 5).mean()
    assert abs(axis / diagonal - 1.0) < 0.12
    hist = np.histogram(a, bins=9, range=(0, 90))[0]
    assert hist.min() > 0.88 * hist.mean() and hist.max() < 1.12 * hist.mean()


def test_the_spectrum_has_no_peak_at_the_grid_frequency():
    # power at the background grid's frequency (side r / sqrt 2) along the axes matches the ring
    pts = scatter.poisson_disk(256.0, 256.0, 2.0, seed=6)
    n = 512
    img = np.zeros((n, n))
    ij = np.minimum((pts / 256.0 * n).astype(int), n - 1)
    np.add.at(img, (ij[:, 1], ij[:, 0]), 1.0)
    power = np.abs(np.fft.fft2(img - img.mean())) ** 2 / len(pts)
    f = np.fft.fftfreq(n, d=256.0 / n)
    fx, fy = np.meshgrid(f, f)
    radial = np.hypot(fx, fy)
    angle = np.degrees(np.arctan2(fy, fx)) % 90
    ring = np.abs(radial - math.sqrt(2) / 2.0) < 0.02
    axes = ring & ((angle < 4) | (angle > 86))
    assert axes.sum() > 20
    assert 0.75 < power[axes].mean() / power[ring].mean() < 1.25


@settings(max_examples=30, deadline=None)
@given(st.floats(1.0, 30.0), st.floats(1.0, 30.0), st.floats(0.3, 6.0), st.integers(0, 2**31 - 1))
def test_small_domains_are_maximal_packings(width, height, radius, seed):
    pts = scatter.poisson_disk(width, height, radius, seed=seed)
    assert len(pts) >= 1
    assert (pts >= 0).all() and (pts[:, 0] < width).all() and (pts[:, 1] < height).all()
    assert min_pair_distance(pts, 2 * radius) >= radius
    q = probes(width, height, radius / 6)
    assert worst_cover(pts, np.full(len(pts), radius), q, np.full(len(q), radius)) < 1.0


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: scatter.poisson_disk(10.0, 10.0, 0.0), "radius"),
        (lambda: scatter.poisson_disk(-1.0, 10.0, 1.0), "width"),
        (lambda: scatter.poisson_disk(10.0, float("nan"), 1.0), "height"),
        (lambda: scatter.poisson_disk(10.0, 10.0, 1.0, k=0), "k"),
        (lambda: scatter.poisson_disk(10.0, 10.0, 1.0, seed=-1), "seed"),
        (lambda: scatter.poisson_disk(1e6, 1e6, 0.01), "grid cells"),
    ],
)
def test_poisson_disk_refuses_bad_parameters(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


# --- poisson_disk_variable --------------------------------------------------------------------


def _blobs(rows=41, cols=51):
    y, x = np.mgrid[0:rows, 0:cols]
    return 0.5 + 0.5 * np.sin(x / 5.0) * np.cos(y / 4.0)


def _radius_at(density, pts, width, height, r_min, r_max):
    return r_max - bilinear(density, pts[:, 0], pts[:, 1], width, height) * (r_max - r_min)


@pytest.mark.parametrize("r_min, r_max, seed", [(0.6, 1.8, 0), (0.5, 2.0, 1), (1.0, 1.3, 2)])
def test_variable_radius_rule_and_coverage(r_min, r_max, seed):
    w, h, dens = 50.0, 40.0, _blobs()
    pts, radii = scatter.poisson_disk_variable(w, h, dens, r_min=r_min, r_max=r_max, seed=seed)
    assert pts.dtype == radii.dtype == np.float64 and radii.shape == (len(pts),)
    np.testing.assert_allclose(radii, _radius_at(dens, pts, w, h, r_min, r_max), rtol=1e-12)
    # the rule: two samples stay max(r_a, r_b) apart
    q, p = pairs_within(pts, 2 * r_max)
    assert (np.hypot(*(pts[p] - pts[q]).T) >= np.maximum(radii[p], radii[q]) * (1 - 1e-12)).all()
    # maximal: every probe x has a sample p with |x - p| < max(r(x), r_p) ...
    probe = probes(w, h, r_min / 6)
    r_probe = _radius_at(dens, probe, w, h, r_min, r_max)
    assert worst_cover(pts, radii, probe, r_probe) < 1.0
    # ... so certainly none is farther than 2 r(x) from every sample
    q, p = pairs_within(pts, 2 * r_max, probe)
    near = np.zeros(len(probe), bool)
    near[q[np.hypot(*(pts[p] - probe[q]).T) < 2 * r_probe[q]]] = True
    assert near.all()


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6), st.integers(2, 6), st.floats(0.4, 2.0), st.floats(1.0, 3.0), st.integers(0, 2**31 - 1))
def test_variable_radius_on_random_fields(rows, cols, r_min, ratio, seed):
    # any density field, however steep: the distance rule always holds exactly, and no point of
    # the domain is 2 r(x) or more from every sample
    rng = np.random.default_rng(seed)
    dens = rng.random((rows, cols))
    w, h = rng.uniform(5.0, 25.0, 2)
    r_max = r_min * ratio
    pts, radii = scatter.poisson_disk_variable(w, h, dens, r_min=r_min, r_max=r_max, seed=seed)
    assert len(pts) and (pts >= 0).all() and (pts[:, 0] < w).all() and (pts[:, 1] < h).all()
    np.testing.assert_allclose(radii, _radius_at(dens, pts, w, h, r_min, r_max), rtol=1e-12)
    q, p = pairs_within(pts, 2 * r_max)
    assert (np.hypot(*(pts[p] - pts[q]).T) >= np.maximum(radii[p], radii[q]) * (1 - 1e-12)).all()
    probe = probes(w, h, r_min / 4)
    r_probe = _radius_at(dens, probe, w, h, r_min, r_max)
    q, p = pairs_within(pts, 2 * r_max, probe)
    near = np.zeros(len(probe), bool)
    near[q[np.hypot(*(pts[p] - probe[q]).T) < 2 * r_probe[q]]] = True
    assert near.all()


def test_variable_density_is_dense_where_the_field_is_high():
    ramp = np.tile(np.linspace(0.0, 1.0, 11), (6, 1))
    pts, radii = scatter.poisson_disk_variable(60.0, 30.0, ramp, r_min=0.8, r_max=2.4, seed=3)
    thirds = np.histogram(pts[:, 0], bins=3, range=(0, 60))[0]
    assert thirds[0] < thirds[1] < thirds[2]
    assert radii[pts[:, 0] > 55].max() < 1.0 and radii[pts[:, 0] < 5].min() > 2.1


def test_equal_radii_match_the_fixed_sampler():
    d = np.zeros((3, 3))
    pts, radii = scatter.poisson_disk_variable(20.0, 20.0, d, r_min=1.2, r_max=1.2, seed=5)
    assert (radii == 1.2).all()
    assert min_pair_distance(pts, 2.4) >= 1.2


def test_where_keeps_samples_inside_and_fills_it():
    rows, cols = 61, 81
    y, x = np.mgrid[0:rows, 0:cols]
    where = (np.sin(x / 6.0) * np.cos(y / 5.0)) > 0.1
    w, h, r = 80.0, 60.0, 1.1
    pts, _ = scatter.poisson_disk_variable(w, h, np.ones((rows, cols)), r_min=r, r_max=r, where=where, seed=2)
    cell_open = where[:-1, :-1] & where[:-1, 1:] & where[1:, :-1] & where[1:, 1:]
    i = np.minimum((pts[:, 1] / h * (rows - 1)).astype(int), rows - 2)
    j = np.minimum((pts[:, 0] / w * (cols - 1)).astype(int), cols - 2)
    assert cell_open[i, j].all()
    assert min_pair_distance(pts, 2 * r) >= r
    probe = probes(w, h, r / 8)
    pi = np.minimum((probe[:, 1] / h * (rows - 1)).astype(int), rows - 2)
    pj = np.minimum((probe[:, 0] / w * (cols - 1)).astype(int), cols - 2)
    probe = probe[cell_open[pi, pj]]
    assert worst_cover(pts, np.full(len(pts), r), probe, np.full(len(probe), r)) < 1.0


def test_existing_samples_are_kept_clear_of_and_count_as_cover():
    w, h = 60.0, 45.0
    first = scatter.poisson_disk(w, h, 5.0, seed=1)
    keep = np.full(len(first), 2.0)
    pts, radii = scatter.poisson_disk_variable(
        w, h, np.zeros((2, 2)), r_min=1.0, r_max=1.0, seed=2, existing=first, existing_radii=keep
    )
    q, p = pairs_within(first, 2.0, pts)
    assert not len(q)  # nothing within max(1, 2) of an earlier sample
    assert min_pair_distance(pts, 2.0) >= 1.0
    both = np.concatenate([pts, first])
    rad = np.concatenate([radii, keep])
    probe = probes(w, h, 0.15)
    assert worst_cover(both, rad, probe, np.full(len(probe), 1.0)) < 1.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(density=np.full((3, 3), 1.5)), "density"),
        (dict(density=np.zeros(4)), "density"),
        (dict(r_min=2.0, r_max=1.0), "r_max"),
        (dict(r_min=0.1, r_max=1.5), "r_max"),
        (dict(existing=np.zeros((2, 2))), "existing"),
        (dict(existing=np.zeros((2, 2)), existing_radii=np.ones(3)), "existing_radii"),
        (dict(where=np.ones((2, 2), bool)), "where"),
    ],
)
def test_poisson_disk_variable_refuses_bad_parameters(kwargs, match):
    args = dict(density=np.zeros((3, 3)), r_min=1.0, r_max=2.0) | kwargs
    with pytest.raises(ParameterError, match=match):
        scatter.poisson_disk_variable(10.0, 10.0, args.pop("density"), **args)
