"""The plant engine: the ledger, competition, self-thinning, spacing, succession, habitat."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import ecosystem as eco
from worldseed.core.errors import ParameterError

from ._ecosystem_cases import (
    CLIMAX,
    PIONEER,
    clark_evans,
    flat,
    forest,
    ledger_holds,
    overstorey,
    run,
    spec,
)


@settings(max_examples=8)
@given(
    seed=st.integers(0, 2**31 - 1),
    disturbance=st.sampled_from([0.0, 30.0]),
    kind=st.sampled_from(["fire", "windthrow"]),
)
def test_the_ledger_is_exact_every_year_and_species(seed, disturbance, kind):
    s = spec(
        PIONEER,
        {**CLIMAX, "initial_density": 40.0},
        years=40,
        seed=seed,
        disturbance=disturbance,
        disturbance_kind=kind,
        patch_radius=15.0,
    )
    r = run(s, flat(80.0))
    assert ledger_holds(r.history)
    assert r.history["alive"][-1].tolist() == np.bincount(r.kind, minlength=2).tolist()
    assert r.history["born"].sum() == len(r.life["uid"])  # every established plant has one life row
    assert r.history["died"].sum() == int((r.life["died"] <= s.years).sum())


@pytest.mark.parametrize("years", [60, 120])
def test_no_live_shade_intolerant_plant_stands_under_a_taller_canopy(years):
    s, hab, r = forest(years=years)
    i, j = eco.overlapping_pairs(r.x, r.y, r.radius)
    assert len(i) > 100  # the understorey is there: plenty of overlaps
    lower = np.where(r.height[i] < r.height[j], i, j)
    strictly = r.height[i] != r.height[j]
    tolerance = np.array([sp.shade_tolerance for sp in s.species])[r.kind]
    assert (tolerance[lower[strictly]] > 0.0).all()
    # and the tolerant ones do live under taller canopies
    assert (tolerance[lower[strictly]] == 1.0).sum() > 50


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_dense_even_aged_stand_self_thins_along_yodas_three_halves_law(seed):
    """log(mean r^3) against log(density) while the stand thins: slope in [-1.8, -1.2]."""
    pine = {
        **PIONEER,
        "name": "Pine",
        "initial_density": 3000.0,
        "seeds_per_year": 0.0,
        "immigrants": 0.0,
        "mortality": 0.0,
        "stress": 0.0,
        "max_age": 1000,
        "max_radius": 5.0,
        "growth_years": 30.0,
        "variation": 0.3,
    }
    r = run(spec(pine, years=200, seed=seed), flat(100.0))
    density = r.history["alive"][:, 0] / r.area_m2
    mean_r3 = np.array([np.mean(r.snapshot(y)["radius"] ** 3) for y in r.snapshot_years])
    thinning = density < 0.5 * density[0]
    assert thinning.sum() > 150 and r.history["alive"][-1, 0] > 40
    slope = np.polyfit(np.log(density[thinning]), np.log(mean_r3[thinning]), 1)[0]
    assert -1.8 <= slope <= -1.2, slope


def test_canopy_trees_are_regular_and_short_dispersal_saplings_clustered():
    s, hab, r = forest()
    top = overstorey(r) & (r.height > 5.0)
    assert top.sum() > 300
    assert clark_evans(r.x[top], r.y[top], r.own, buffer=15.0) >= 1.2
    saplings = (r.kind == 1) & (r.height < 3.0)
    assert saplings.sum() > 300
    assert clark_evans(r.x[saplings], r.y[saplings], r.own, buffer=15.0) <= 0.9


def test_after_a_clearing_the_shade_tolerant_share_rises():
    s = spec(PIONEER, {**CLIMAX, "dispersal": 12.0}, years=170, snapshot_every=10)
    r = run(s, flat(160.0), clearings=[(100, 0.0, 0.0, 30.0)])

    def tolerant_share(year):
        snap = r.snapshot(year)
        inside = np.hypot(snap["x"], snap["y"]) < 25.0
        return (snap["kind"][inside] == 1).mean(), inside.sum()

    before, _ = tolerant_share(90)
    early, n_early = tolerant_share(110)
    late, n_late = tolerant_share(170)
    assert n_early > 50 and n_late > 50  # the clearing regrew
    assert early < 0.5 * before  # the pioneers took the clearing first
    assert late > early + 0.3, (early, late)  # then the shade-tolerant species took over


def test_a_wet_loving_species_stands_on_wetter_ground_than_a_dry_loving_one():
    n = 101
    moisture = np.tile(np.linspace(0.0, 1.0, n), (n, 1))  # dry in the west, wet in the east
    hab = flat(200.0, moisture=moisture)
    wet = {**PIONEER, "name": "Alder", "moisture": 0.9, "moisture_tolerance": 0.5}
    dry = {**PIONEER, "name": "Pine", "moisture": 0.1, "moisture_tolerance": 0.5}
    r = run(spec(wet, dry, years=40), hab)
    cells = (np.rint((r.x + 100.0) / 2.0)).astype(int)
    under = moisture[0, cells]
    assert (r.kind == 0).sum() > 100 and (r.kind == 1).sum() > 100
    assert under[r.kind == 0].mean() > under[r.kind == 1].mean() + 0.3


def test_growth_saturates_at_half_the_maximum_after_growth_years():
    lone = {**CLIMAX, "initial_density": 0.5, "seeds_per_year": 0.0, "immigrants": 0.0, "variation": 0.0}
    lone.update(mortality=0.0, stress=0.0, growth_years=20.0)
    r = run(spec(lone, years=19), flat(200.0))
    assert len(r) > 0
    # effective age 20 after the 20 growing seasons of years 0 .. 19 on ideal ground in full light
    np.testing.assert_allclose(r.radius, 0.5 * lone["max_radius"], rtol=1e-4)  # the wide default optima: 0.99998
    np.testing.assert_allclose(r.height, 0.5 * lone["max_height"], rtol=1e-4)


@settings(max_examples=25)
@given(seed=st.integers(0, 1000), n=st.integers(0, 400), spread=st.floats(0.01, 3.0))
def test_the_grid_hash_finds_exactly_the_overlapping_pairs(seed, n, spread):
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-30.0, 30.0, (2, n))
    r = rng.uniform(0.0, 1.0, n) ** 3 * 6.0 * spread + 0.01
    i, j = eco.overlapping_pairs(x, y, r)
    d = np.hypot(x[:, None] - x[None], y[:, None] - y[None])
    hit = np.triu(d < r[:, None] + r[None], 1)
    assert sorted(zip(np.minimum(i, j).tolist(), np.maximum(i, j).tolist())) == sorted(zip(*np.nonzero(hit)))
    assert (r[i] >= r[j]).all()


def test_competition_decides_from_the_tallest_down():
    """a (tallest) kills b of its layer; c overlaps only b, so c lives (the sequential rule, not the
    parallel one that would kill c too); d under a is intolerant and dies, e under a is tolerant."""
    x = np.array([0.0, 3.0, 6.0, 0.5, -0.5])
    y = np.array([0.0, 0.0, 0.0, 1.0, -1.0])
    r = np.array([2.0, 1.9, 1.5, 0.5, 0.5])
    h = np.array([10.0, 9.5, 9.0, 2.0, 2.0])
    uid = np.arange(5, dtype=np.uint64)
    alive, shade = eco.compete(x, y, r, h, uid, np.array([0.0, 0.0, 0.0, 0.0, 1.0]))
    assert alive.tolist() == [True, False, True, False, True]
    assert shade[4] == 1.0 and shade[0] == shade[2] == 0.0


def test_snapshots_hold_every_year_of_the_forest():
    s, hab, r = forest(years=60)
    assert r.snapshot_years == tuple(range(61))
    for year in (0, 30, 60):
        snap = r.snapshot(year)
        assert np.bincount(snap["kind"], minlength=2).tolist() == r.history["alive"][year].tolist()
    last = r.snapshot(60)
    order = np.argsort(r.uid)
    rows = np.flatnonzero(r.life["died"] > 60)
    assert (np.sort(r.life["uid"][rows]) == r.uid[order]).all()
    np.testing.assert_allclose(np.sort(last["radius"]), np.sort(r.radius), atol=6.0 / 65535)
    with pytest.raises(ParameterError, match="snapshot"):
        r.snapshot(61)
