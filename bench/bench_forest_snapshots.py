"""Size and cost of the forest snapshots a .blend keeps for the Ecosystem panel's year slider
(``core.ecosystem.forest_snapshots`` / ``snapshots_bytes`` / ``read_snapshots``, issue 23).

Run from the repository root::

    .venv/bin/python bench/bench_forest_snapshots.py                 # the temperate preset, 150 years
    .venv/bin/python bench/bench_forest_snapshots.py --preset boreal --years 60

The forest grows on the terrain the shipped ecosystems are tuned on (512 m of hills, 129 vertices a side,
lakes in the hollows, moisture from the biomes), animals off.  Printed: the plants (alive at the end, life
rows, plant-snapshots), the arrays the run holds in memory for the slider, the bytes stored for every
``every`` the Blender side may choose (1, 2, 5, 10: every n-th snapshot year), process CPU time to encode
and to read back, and a check that every stored year gives the forest ``forest_at`` gives (positions to
float32, the rest exactly).  No anchor: there is no other implementation to race; the figure is a size.
"""

import argparse
import dataclasses
import time

import _loader
import numpy as np

from worldseed.core import biomes, terrain
from worldseed.core import ecosystem as eco
from worldseed.core.steps import drive


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="temperate")
    parser.add_argument("--years", type=int, default=None, help="years to simulate (the preset's by default)")
    args = parser.parse_args(argv)
    ts = terrain.TerrainSpec(resolution=129, size=512.0, height=60.0, scale=256.0, octaves=5, sea_level=0.12)
    h = terrain.terrain_heights(ts, seed=1)
    layers = terrain.terrain_layers(h, terrain_spec=ts, biomes_spec=biomes.BiomesSpec(enabled=True), seed=1)
    hab = eco.terrain_habitat(layers, sea_level=0.12 * 60.0)
    spec = dataclasses.replace(eco.load_preset(args.preset), animals=(), steps=0)
    if args.years is not None:
        spec = dataclasses.replace(spec, years=args.years)
    t = time.process_time()
    run = drive(eco.plants_steps(spec, hab))
    print(
        f"{args.preset}: {spec.years} years, a snapshot every {spec.snapshot_every}; simulated in "
        f"{time.process_time() - t:.1f} s CPU (load {_loader.load():.2f})"
    )
    rows = run.life["uid"].size
    snaps = sum(len(r) for r, _ in run.snapshot_sizes)
    held = sum(v.nbytes for v in run.life.values()) + sum(r.nbytes + q.nbytes for r, q in run.snapshot_sizes)
    print(f"plants: {len(run):,} at the end, {rows:,} life rows, {snaps:,} plant-snapshots")
    print(f"in memory for the slider: {held / 1e6:.1f} MB (life table and 16-bit sizes)")
    for every in (1, 2, 5, 10):
        t = time.process_time()
        data = eco.snapshots_bytes(eco.forest_snapshots(run, hab, every=every))
        encode = time.process_time() - t
        t = time.process_time()
        back = eco.read_snapshots(data)
        decode = time.process_time() - t
        for year in back.snapshot_years[:: max(1, len(back.snapshot_years) // 7)] + (run.years,):
            mine, theirs = back.forest(year, seed=spec.seed), eco.forest_at(run, hab, year=year, seed=spec.seed)
            assert np.array_equal(mine["positions"].astype(np.float32), theirs["positions"].astype(np.float32))
            assert all(np.array_equal(mine[k], theirs[k]) for k in ("rotations", "kind", "radius", "height"))
        print(
            f"every {every:>2}: {len(back.snapshot_years):>4} years, {len(data) / 1e6:6.1f} MB stored "
            f"({len(data) / held:.2f} of memory), encode {encode:.2f} s CPU, read {decode:.2f} s CPU "
            f"(load {_loader.load():.2f}); the years checked equal to forest_at"
        )


if __name__ == "__main__":
    main()
