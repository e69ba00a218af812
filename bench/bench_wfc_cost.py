"""The WFC cost model against measured solves: ``core.wfc.solve_seconds`` beside the process CPU
time of WFC levels (``core.levels.generate``: the whole level, one attempt counted as the model
counts it), so the constants in core/wfc/_solver.py can be checked and refitted.

Run from the repository root::

    .venv/bin/python bench/bench_wfc_cost.py            # about 3 min on an idle machine
    .venv/bin/python bench/bench_wfc_cost.py --quick    # the smaller sizes only

Each row: the source and its pattern (tile variant) count, the size, the constraints, the
attempts and backtracks the solve took, the measured CPU seconds, the model's seconds and their
ratio (measured / model; a solve that restarted or backtracked a lot costs more than one
attempt). The levels refuse a solve the model puts over ``MAX_SOLVE_SECONDS`` (600 s), so the
model should not fall far below the measurement (the ratio should stay under ~1.5) where it
matters: large grids and constraints.
"""

import sys
import time

import _loader

from worldseed.core import wfc
from worldseed.core.levels import LevelSpec, check_spec, generate
from worldseed.core.levels._wfc import MAX_SOLVE_SECONDS, check_wfc
from worldseed.core.wfc import Contradiction

TILESETS = ("pipes", "roads", "dungeon", "blocks3d")
SAMPLES = ("flowers", "rooms", "hills", "town")


def patterns_of(spec):
    model, data, _ = check_wfc(spec)
    if model == "tiled":
        return len(data.names)
    indices = data
    import numpy as np

    flat = indices.reshape(-1, indices.shape[2]) if indices.ndim == 3 else indices.reshape(-1)
    ids = np.unique(flat, axis=0, return_inverse=True)[1].reshape(indices.shape[:2])
    return len(wfc.extract_patterns(ids, n=spec.n, symmetry=spec.symmetry, periodic_input=spec.periodic_input)[0])


def row(kind, name, size, **constraints):
    spec = LevelSpec(generator="wfc", **{kind: name}, width=size, height=size, seed=1, **constraints)
    check_spec(spec)
    p = patterns_of(spec)
    model = wfc.solve_seconds(size * size, p, connected=spec.connected, counts=bool(spec.counts))
    start = time.process_time()
    try:
        level = generate(spec)
        tries = f"{level.wfc.attempts} att {level.wfc.backtracks:>4} bt"
    except Contradiction:
        tries = "failed      "
    took = time.process_time() - start
    what = ", ".join(k for k in ("connected", "counts") if getattr(spec, k)) or "-"
    print(
        f"{name:>9} P={p:>4} {size:>4}^2 {what:<10} {tries}  cpu {took:8.2f} s  model {model:8.2f} s  "
        f"ratio {took / model:5.2f}  load {_loader.load():.1f}",
        flush=True,
    )
    return took / model


def main():
    quick = "--quick" in sys.argv
    sizes = (64, 128) if quick else (64, 128, 256)
    print(f"core.wfc.solve_seconds against WFC levels, process CPU; levels refuse over {MAX_SOLVE_SECONDS} s")
    ratios = []
    for size in sizes:
        for name in TILESETS:
            ratios.append(row("tileset", name, size))
        for name in SAMPLES:
            ratios.append(row("sample", name, size))
    constrained = []
    for size in (64, 128) if quick else (64, 128, 256):
        constrained.append(row("tileset", "dungeon", size, connected=True))
        constrained.append(row("tileset", "pipes", size, connected=True))
        constrained.append(row("tileset", "dungeon", size, counts=(("door", 4, -1),)))
    print(f"measured / model without constraints: {min(ratios):.2f} .. {max(ratios):.2f}")
    print(f"measured / model with a constraint:    {min(constrained):.2f} .. {max(constrained):.2f}")


if __name__ == "__main__":
    main()
