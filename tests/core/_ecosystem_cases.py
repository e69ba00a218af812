"""Shared cases of the ecosystem tests: habitats, species, runs, and the statistics they check.

The runs are small (a hectare or a few, a century or two: about a second each) and cached per
process, so the test files share them.
"""

import functools
import hashlib
import json
import os
import sys

import numpy as np

if __name__ == "__main__":  # run as a script (another process): the extension root importable as in the tests
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import conftest  # noqa: F401  (the bare ``worldseed`` package)

from worldseed.core import biomes, noise, terrain
from worldseed.core import ecosystem as eco
from worldseed.core.steps import drive

#: A pioneer: shade-intolerant, fast, short-lived, seeds flying far.
PIONEER = {
    "name": "Birch",
    "tree": "birch",
    "initial_density": 30.0,
    "seeds_per_year": 40.0,
    "dispersal": 20.0,
    "max_age": 80,
    "max_radius": 3.0,
    "max_height": 18.0,
    "growth_years": 10.0,
    "shade_tolerance": 0.0,
}
#: A climax species: shade-tolerant, slow, long-lived, seeds falling near their parent.
CLIMAX = {
    "name": "Beech",
    "tree": "broadleaf",
    "initial_density": 5.0,
    "seeds_per_year": 30.0,
    "dispersal": 4.0,
    "max_age": 300,
    "max_radius": 6.0,
    "max_height": 30.0,
    "growth_years": 30.0,
    "shade_tolerance": 1.0,
}


def flat(side, *, cell=2.0, origin=None, moisture=None):
    """A flat habitat ``side`` metres square (50 m above the sea), centred unless ``origin`` is given."""
    n = int(round(side / cell)) + 1
    return eco.habitat(np.full((n, n), 50.0), cell_size=cell, origin=origin, moisture=moisture)


def spec(*species, years=100, seed=0, **settings):
    return eco.from_dict({"years": years, "seed": seed, "species": list(species), **settings})


def run(ecosystem, hab, **kwargs):
    return drive(eco.plants_steps(ecosystem, hab, **kwargs))


@functools.cache
def forest(seed=0, years=120, dispersal=4.0):
    """Pioneer and climax on 160 m x 160 m for ``years``: ``(spec, habitat, run)``."""
    s = spec(PIONEER, {**CLIMAX, "dispersal": dispersal}, years=years, seed=seed)
    hab = flat(160.0)
    return s, hab, run(s, hab)


def clark_evans(x, y, window, *, buffer):
    """Clark & Evans's (1954) aggregation index of the points ``(x, y)`` in ``window``: the mean
    distance to the nearest neighbour over the mean expected of a Poisson pattern of the same density,
    ``0.5 / sqrt(density)``; points within ``buffer`` of the edge only serve as neighbours (the
    buffer edge correction).  1: random, below: clustered, above: regular."""
    x0, y0, x1, y1 = window
    density = len(x) / ((x1 - x0) * (y1 - y0))
    inner = (x >= x0 + buffer) & (x < x1 - buffer) & (y >= y0 + buffer) & (y < y1 - buffer)
    d = np.hypot(x[inner, None] - x[None], y[inner, None] - y[None])
    d[d == 0.0] = np.inf
    return float(d.min(axis=1).mean() / (0.5 / np.sqrt(density)))


def overstorey(run):
    """Plants no taller plant's canopy overlaps."""
    i, j = eco.overlapping_pairs(run.x, run.y, run.radius)
    lower = np.where(run.height[i] < run.height[j], i, j)
    under = np.zeros(len(run.x), bool)
    under[lower] = True
    return ~under


def ledger_holds(history):
    alive, born, died = history["alive"], history["born"], history["died"]
    first = (alive[0] == born[0]).all() and (died[0] == 0).all()
    return bool(first and (alive[1:] - alive[:-1] == born[1:] - died[1:]).all())


@functools.cache
def terrain_habitat():
    """The terrain the shipped ecosystems are tuned on: 512 m of hills (129 vertices a side, 4 m
    cells) with lakes in the hollows, moisture from the biomes."""
    ts = terrain.TerrainSpec(resolution=129, size=512.0, height=60.0, scale=256.0, octaves=5, sea_level=0.12)
    h = terrain.terrain_heights(ts, seed=1)
    layers = terrain.terrain_layers(h, terrain_spec=ts, biomes_spec=biomes.BiomesSpec(enabled=True), seed=1)
    return eco.terrain_habitat(layers, sea_level=0.12 * 60.0)


def high_pass(series, width=151):
    """``series`` minus its moving average over ``width`` steps (the ends held): the fluctuations."""
    v = np.asarray(series, np.float64)
    padded = np.concatenate([np.full(width // 2, v[0]), v, np.full(width // 2, v[-1])])
    return v - np.convolve(padded, np.ones(width) / width, mode="valid")


def lagged_correlations(prey, hunters, lags):
    """Correlation of the prey's fluctuations at ``t`` with the hunters' at ``t + lag``, per lag."""
    a, b = high_pass(prey), high_pass(hunters)
    a = (a - a.mean()) / (a.std() + 1e-12)
    b = (b - b.mean()) / (b.std() + 1e-12)
    n = len(a)
    return np.array(
        [np.dot(a[: n - g], b[g:]) / (n - g) if g >= 0 else np.dot(a[-g:], b[: n + g]) / (n + g) for g in lags]
    )


#: Lags (steps) the hunters' fluctuations are compared with the grazers' at.
LAGS = np.arange(-120, 121)


def check_coexistence(name, seeds=10, lags=LAGS):
    """The shipped ecosystem ``name``'s grazers and hunters on :func:`terrain_habitat` (bare of trees)
    for 1,000 steps and ``seeds`` seeds: both alive at the end in at least 90 % of the seeds; the
    correlation of the fluctuations (:func:`lagged_correlations`, from step 100) pooled over the
    seeds peaks with the hunters behind the grazers (0 < lag <= 120 steps), and so does that of at
    least 70 % of the seeds.  Returns ``(alive, pooled lag, lags)``."""
    spec = eco.load_preset(name)
    hab = terrain_habitat()
    alive, correlations, best = 0, [], []
    for seed in range(seeds):
        run = drive(eco.animals_steps(eco.from_dict({**eco.to_dict(spec), "seed": seed}), hab))
        p = run.history["population"]
        assert p.shape == (spec.steps + 1, 2) and spec.steps == 1000
        if (p[-1] > 0).all():
            alive += 1
            c = lagged_correlations(p[100:, 0], p[100:, 1], lags)
            correlations.append(c)
            best.append(int(lags[np.argmax(c)]))
    pooled = int(lags[np.argmax(np.mean(correlations, axis=0))]) if correlations else None
    assert alive >= 0.9 * seeds, (name, alive)
    assert 0 < pooled <= 120, (name, pooled)
    assert np.mean(np.array(best) > 0) >= 0.7, (name, best)
    return alive, pooled, best


def trail_share(animals):
    """Share of all steps taken on the 5 % most worn cells."""
    wear, steps = animals.wear.ravel(), animals.steps_on.ravel()
    top = np.argsort(-wear, kind="stable")[: max(1, wear.size // 20)]
    return steps[top].sum() / steps.sum()


def hilly():
    """A 130 m terrain of hills with a sea in the hollows."""
    h = noise.fbm((66, 66), scale=48.0, octaves=4, seed=3).astype(np.float64) * 40.0
    return eco.habitat(h, cell_size=2.0, sea_level=8.0)


def files_case():
    """Pioneer and climax on the hills for 40 years: ``(spec, habitat, run)``."""
    s = spec(PIONEER, {**CLIMAX, "initial_density": 20.0}, years=40, seed=9)
    hab = hilly()
    return s, hab, run(s, hab)


def files_digest():
    """SHA-256 of every plant file of :func:`files_case` (what another process must reproduce)."""
    s, hab, r = files_case()
    trees = [sp.tree for sp in s.species]
    entry = eco.plant_placements(r, hab, trees=trees, scatter="S", terrain="T", size=130.0, height=40.0)
    blobs = [eco.plants_csv_bytes(r, hab), eco.ecosystem_json_bytes(r), eco.population_png_bytes(r)]
    blobs.append(json.dumps(entry, separators=(",", ":")).encode())
    return hashlib.sha256(b"\0".join(blobs)).hexdigest()


if __name__ == "__main__":
    print(files_digest())
