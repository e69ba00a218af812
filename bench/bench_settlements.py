"""Benchmark core.settlements: the interest map's window maxima against scipy, and whole builds.

Run from the repository root::

    .venv/bin/python bench/bench_settlements.py            # about 20 s on an idle machine
    .venv/bin/python bench/bench_settlements.py --quick    # fewer rounds

- **window maximum** (a pad's relief: max - min over the pad; no water on it; the flood line
  nearby): ours, van Herk / Gil-Werman in numpy (two running maxima per axis, O(1) a cell
  whatever the window), against ``scipy.ndimage.maximum_filter`` (C; bench-only, skipped without
  scipy) on a 1025² float64 grid, windows of 31 and 97 cells; the outputs must be equal
  (asserted).  Target: within 4x of scipy.
- **build** (no anchor: nothing else places settlements from an interest map): a 513² terrain of
  2 km with 8 sites (a walled town, two villages, five hamlets), without and with ``[roads]``
  joining them; process CPU time printed beside wall time.  Target <= 1 s with roads.

Rounds are interleaved (ours, anchor, ours, anchor, ...), the best of each side taken, the
1-minute load average printed beside each figure.
"""

import sys

import _loader
import numpy as np

from worldseed.core import recipe, settlements, terrain
from worldseed.core.roads import RoadsSpec

BUILD = """
[world]
seed = 7
[terrain]
resolution = 513
size = 2048.0
height = 100.0
scale = 800.0
[settlements]
enabled = true
count = 8
spacing = 250.0
"""


def main():
    quick = "--quick" in sys.argv
    rounds = 3 if quick else 7
    print("core.settlements")
    try:
        from scipy.ndimage import maximum_filter
    except ImportError:
        maximum_filter = None
    a = np.random.default_rng(0).random((1025, 1025))
    if maximum_filter is not None:
        for k in (15, 48):
            race = _loader.interleaved(
                rounds,
                lambda k=k: settlements.window_max(a, k, -np.inf),
                lambda k=k: maximum_filter(a, size=2 * k + 1, mode="constant", cval=-np.inf),
            )
            ours, anchor = race.results
            assert np.array_equal(ours, anchor), k
            print(
                f"  window maximum {2 * k + 1:3d}² on 1025²  ours {race.seconds[0] * 1000:6.1f} ms"
                f" (cpu {race.cpu[0] * 1000:.1f})  scipy {race.seconds[1] * 1000:6.1f} ms"
                f"  scipy/ours {race.ratio():.2f}x  target >= 0.25x; equal  ({race.load_text()})"
            )
    else:
        print("  window maximum: scipy not installed, skipped")
    r = recipe.loads(BUILD)
    h = terrain.terrain_heights(r.terrain, seed=7)
    metres = h.metres.astype(np.float64)
    origin = (-0.5 * r.terrain.size, -0.5 * r.terrain.size)
    kw = {"cell_size": h.cell_size, "origin": origin, "seed": 7}
    race = _loader.interleaved(
        max(2, rounds // 2),
        lambda: settlements.build_settlements(metres, r.settlements, **kw),
        lambda: settlements.build_settlements(metres, r.settlements, roads_spec=RoadsSpec(enabled=True), **kw),
    )
    for label, s, seconds, cpu in zip(("without roads", "with roads"), race.results, race.seconds, race.cpu):
        houses = sum(len(x.buildings) for x in s.sites)
        print(
            f"  build 513² / 2 km, {len(s.sites)} sites, {houses} houses, {label:13s} {seconds:5.2f} s"
            f" (cpu {cpu:.2f})  target <= 1 s  ({race.load_text()})"
        )


if __name__ == "__main__":
    main()
