"""Make the extension importable as ``worldseed`` for benchmark scripts (as tests/conftest.py does).

Also the benches' shared timing helpers: :func:`best_of` for one side alone and
:func:`interleaved` for ours against an anchor (every bench that prints a ratio).
"""

import os
import pathlib
import runpy
import time
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[1]
runpy.run_path(str(ROOT / "tests" / "conftest.py"))


def load():
    """The machine's 1-minute load average (``os.getloadavg()[0]``)."""
    return os.getloadavg()[0]


def best_of(n, fn, *args, setup=None, **kwargs):
    """Smallest wall time of ``n`` runs of ``fn`` (``setup`` runs untimed before each); returns (seconds, result)."""
    best, result = float("inf"), None
    for _ in range(n):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        result = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t0)
    return best, result


@dataclass(frozen=True)
class Race:
    """Best wall time of each side, each side's last result, and the load seen while timing.

    ``loads`` holds the 1-minute load average read before every round; a ratio
    is only as good as the load it was measured under, so print :meth:`load_text`
    beside it. ``cpu`` is each side's best process CPU time (all threads): for
    single-threaded sides on a loaded machine it is steadier than wall time.
    """

    seconds: tuple
    results: tuple
    loads: tuple
    cpu: tuple = ()

    def ratio(self, slow=1, fast=0):
        """``seconds[slow] / seconds[fast]``: with (ours, anchor) order, anchor / ours (> 1: ours is faster)."""
        return self.seconds[slow] / self.seconds[fast]

    def cpu_ratio(self, slow=1, fast=0):
        """``cpu[slow] / cpu[fast]``, as :meth:`ratio` but in process CPU time."""
        return self.cpu[slow] / self.cpu[fast]

    def load_text(self):
        lo, hi = min(self.loads), max(self.loads)
        return f"load {lo:.1f}" if round(lo, 1) == round(hi, 1) else f"load {lo:.1f}-{hi:.1f}"


def interleaved(rounds, *sides, setup=None, keep=None, warmup=True):
    """Time the callables ``sides`` in turn, round after round: a, b, a, b, ...

    Timing all of one side and then all of the other lets a change in machine
    load land on one side only (the noise bench's ratio moved from 3.9x to 7.8x
    that way); interleaved, each side sees the same load in every round and the
    best of ``rounds`` is taken per side. ``setup`` (one callable, or one per
    side, or None) runs untimed before every timed call; ``warmup`` runs each
    side once untimed first (tables, caches, page faults). ``keep`` (one callable,
    or one per side) turns each result into what the :class:`Race` keeps, untimed,
    right after the call: for results that the next ``setup`` invalidates (Blender
    objects), keep their counts. Returns a :class:`Race`.
    """
    setups = list(setup) if isinstance(setup, (list, tuple)) else [setup] * len(sides)
    keeps = list(keep) if isinstance(keep, (list, tuple)) else [keep] * len(sides)
    best = [float("inf")] * len(sides)
    cpu = [float("inf")] * len(sides)
    results = [None] * len(sides)
    loads = []
    if warmup:
        for fn, prepare in zip(sides, setups, strict=True):
            if prepare is not None:
                prepare()
            fn()
    for _ in range(rounds):
        loads.append(load())
        for i, (fn, prepare) in enumerate(zip(sides, setups, strict=True)):
            if prepare is not None:
                prepare()
            c0, t0 = time.process_time(), time.perf_counter()
            result = fn()
            best[i] = min(best[i], time.perf_counter() - t0)
            cpu[i] = min(cpu[i], time.process_time() - c0)
            results[i] = result if keeps[i] is None else keeps[i](result)
    return Race(tuple(best), tuple(results), tuple(loads), tuple(cpu))
