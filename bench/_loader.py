"""Make the extension importable as ``worldseed`` for benchmark scripts (as tests/conftest.py does)."""

import pathlib
import runpy

ROOT = pathlib.Path(__file__).resolve().parents[1]
runpy.run_path(str(ROOT / "tests" / "conftest.py"))


def best_of(n, fn, *args, setup=None, **kwargs):
    """Smallest wall time of ``n`` runs of ``fn`` (``setup`` runs untimed before each); returns (seconds, result)."""
    import time

    best, result = float("inf"), None
    for _ in range(n):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        result = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t0)
    return best, result
