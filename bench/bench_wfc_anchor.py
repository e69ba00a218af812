"""core.wfc's overlapping model against fast-wfc (C++17 at -O3; issue 21): the same samples and sizes,
interleaved seed by seed, process CPU time of each side's whole call, every output checked.

fast-wfc (math-fehr/fast-wfc, MIT) is not part of this repository. To race it, build the driver
bench/fastwfc_driver.cpp against a copy of it, anywhere outside the repository::

    git clone https://github.com/math-fehr/fast-wfc /tmp/fast-wfc
    g++ -O3 -std=c++17 -I /tmp/fast-wfc/src/include bench/fastwfc_driver.cpp \\
        /tmp/fast-wfc/src/lib/wave.cpp /tmp/fast-wfc/src/lib/propagator.cpp /tmp/fast-wfc/src/lib/wfc.cpp \\
        -o /tmp/fast-wfc/fastwfc_driver

then run from the repository root (``FAST_WFC_DRIVER`` names the driver; default
``/tmp/fast-wfc/fastwfc_driver``, then ``/tmp/fastwfc/fastwfc_driver``)::

    .venv/bin/python bench/bench_wfc_anchor.py            # 5 seeds a row, about a minute
    .venv/bin/python bench/bench_wfc_anchor.py --seeds 2

Without the driver it prints how to build it and stops (status 0).

The rows are issue 21's: periodic outputs of 48 x 48 from presets/wfc/samples dots, flowers and town
(10, 102 and 419 patterns of 3 x 3 with the 8 symmetries, periodic input) and 128 x 128 from flowers.
Per seed, ours (``core.wfc.overlapping``, up to 10 attempts with backtracking) and the anchor
(fast-wfc from seed s, s + 1, ... until one succeeds: it restarts, never backtracks) each make one
output; each side's CPU time covers everything its call does (patterns, rules, every attempt);
the anchor's is measured inside its process (``std::clock``), so process start-up is not counted.
The order alternates seed by seed (ours first, then the anchor first). Every output is checked:
every N x N window of it (wrapping) is a pattern of the sample. The row prints the median CPU per
output of each side, the ratio of the medians and of the sums (ours / anchor: 1 = as fast, more =
slower), and the load average seen.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import _loader
import numpy as np

from worldseed.core.wfc import Contradiction, extract_patterns, overlapping, read_sample

PRESETS = _loader.ROOT / "presets" / "wfc" / "samples"
ROWS = (("dots", 48), ("flowers", 48), ("town", 48), ("flowers", 128))
DRIVERS = ("/tmp/fast-wfc/fastwfc_driver", "/tmp/fastwfc/fastwfc_driver")


def driver_path():
    given = os.environ.get("FAST_WFC_DRIVER")
    for path in ([given] if given else []) + list(DRIVERS):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def windows_ok(output, patterns):
    """Every N x N window of a periodic output (wrapping) is one of ``patterns``."""
    n = patterns.shape[1]
    grid = np.pad(np.asarray(output), ((0, n - 1), (0, n - 1)), mode="wrap")
    got = np.lib.stride_tricks.sliding_window_view(grid, (n, n)).reshape(-1, n * n)
    known = {tuple(p) for p in patterns.reshape(len(patterns), -1).tolist()}
    return all(tuple(w) in known for w in np.unique(got, axis=0).tolist())


def ours(sample, side, seed):
    start = time.process_time()
    try:
        result = overlapping(sample, side, side, n=3, symmetry=8, periodic=True, seed=seed, attempts=10)
    except Contradiction:
        return time.process_time() - start, None
    return time.process_time() - start, np.asarray(result.output)


def anchor(driver, sample_file, side, seed, folder):
    out = os.path.join(folder, "out.txt")
    done = subprocess.run(
        [driver, sample_file, "3", "8", "1", "1", str(side), str(side), str(seed), "100", out],
        capture_output=True,
        text=True,
        check=False,
    )
    words = done.stdout.split()
    if done.returncode != 0 or words[:1] != ["cpu"]:
        return None, None
    with open(out) as fh:
        h, w = map(int, fh.readline().split())
        grid = np.loadtxt(fh, dtype=np.int64, ndmin=2).reshape(h, w)
    return float(words[1]), grid


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    driver = driver_path()
    if driver is None:
        print("skipped: no fast-wfc driver (set FAST_WFC_DRIVER or build one as this file's docstring says)")
        return 0
    print(f"core.wfc.overlapping against fast-wfc ({driver}), process CPU, interleaved; load {_loader.load():.1f}")
    print(f"{'row':>22} {'P':>4} | {'ours s':>8} {'fast-wfc s':>10} | {'median':>7} {'sum':>7} | valid | load")
    with tempfile.TemporaryDirectory() as folder:
        for stem, side in ROWS:
            sample = read_sample(PRESETS / f"{stem}.txt")
            patterns, _ = extract_patterns(sample, n=3, symmetry=8)
            sample_file = os.path.join(folder, f"{stem}.in")
            with open(sample_file, "w") as fh:
                fh.write(f"{sample.shape[0]} {sample.shape[1]}\n")
                fh.write("\n".join(" ".join(map(str, row)) for row in sample.tolist()) + "\n")
            ours(sample, 8, 0)  # warm up (imports, caches)
            mine, theirs, loads, valid = [], [], [], True
            for k in range(args.seeds):
                seed = 1000 * k
                loads.append(_loader.load())
                order = (0, 1) if k % 2 == 0 else (1, 0)
                for side_index in order:
                    if side_index == 0:
                        cpu, grid = ours(sample, side, seed)
                        if grid is not None:
                            mine.append(cpu)
                    else:
                        cpu, grid = anchor(driver, sample_file, side, seed, folder)
                        if grid is not None:
                            theirs.append(cpu)
                    if grid is not None:
                        ok = windows_ok(grid, patterns)
                        assert ok, (stem, side, seed, side_index)
                        valid = valid and ok
            lo, hi = min(loads), max(loads)
            if not mine or not theirs:
                print(f"{stem:>14} {side:>3}^2 | no output on one side (ours {len(mine)}, fast-wfc {len(theirs)})")
                continue
            a, b = statistics.median(mine), statistics.median(theirs)
            print(
                f"{stem + ' ' + str(side) + '^2':>22} {len(patterns):>4} | {a:8.3f} {b:10.4f} | {a / b:6.1f}x "
                f"{sum(mine) / len(mine) / (sum(theirs) / len(theirs)):6.1f}x | {'yes' if valid else 'NO':>5} | "
                f"load {lo:.1f}-{hi:.1f}",
                flush=True,
            )
    print(f"ratio = ours / fast-wfc (1 = as fast; the goal is <= 3x); load now {_loader.load():.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
