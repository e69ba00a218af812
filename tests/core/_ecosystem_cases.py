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

from worldseed.core import ecosystem as eco
from worldseed.core import noise
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
