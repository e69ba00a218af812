"""Same recipe + seed = same bytes on any CPU: every golden digest of _digest_cases.py, computed
in subprocesses under other CPU settings, equals the others and the pinned table.

numpy picks SIMD kernels at import time from the CPU's features (AVX-512 machines run other exp,
log, arctan, power, sort kernels than AVX2 ones), and OpenBLAS picks its kernels from the CPU too.
``NPY_DISABLE_CPU_FEATURES`` and ``OPENBLAS_CORETYPE`` emulate older machines on this one:

* ``this CPU``: every feature numpy dispatches to;
* ``no AVX-512``: the AVX-512 features (numpy 1.x's ``AVX512F`` ... ``AVX512_SPR``, numpy 2.x's
  ``X86_V4`` group) disabled, OpenBLAS's Haswell kernels: an AVX2 machine such as the AMD EPYC
  issue 21 was found on;
* ``baseline``: every dispatched feature disabled, OpenBLAS's Prescott (SSE3) kernels.

The names come from numpy itself (``__cpu_features__``, ``__cpu_dispatch__``): only features the
CPU has and numpy can dispatch are named (numpy refuses baseline features and warns about
others), and each subprocess reports that they are really off.  The settings run at the same
time, one subprocess each (a few seconds of CPU apiece).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from ._digest_cases import GOLDEN

CASES_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_digest_cases.py")


def _cpu_tables():
    try:
        from numpy._core import _multiarray_umath as umath  # numpy 2
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as umath
    return dict(umath.__cpu_features__), list(umath.__cpu_dispatch__)


def settings():
    """``{name: environment changes}`` of the CPU settings this machine can emulate."""
    features, dispatch = _cpu_tables()
    present = [f for f in dispatch if features.get(f)]
    wide = [f for f in present if f.startswith("AVX512") or f == "X86_V4"]
    x86 = bool(features.get("SSE2"))
    out = {"this CPU": {}}
    if wide:
        out["no AVX-512"] = {"NPY_DISABLE_CPU_FEATURES": " ".join(wide)}
        if x86 and features.get("AVX2"):
            out["no AVX-512"]["OPENBLAS_CORETYPE"] = "Haswell"
    if present and present != wide:
        out["baseline"] = {"NPY_DISABLE_CPU_FEATURES": " ".join(present)}
        if x86:
            out["baseline"]["OPENBLAS_CORETYPE"] = "Prescott"
    return out


def test_the_settings_disable_what_numpy_has():
    features, dispatch = _cpu_tables()
    chosen = settings()
    for env in chosen.values():
        for name in env.get("NPY_DISABLE_CPU_FEATURES", "").split():
            assert name in dispatch and features[name]  # never a name numpy would refuse or warn about
    if any(features.get(f) for f in dispatch):
        assert len(chosen) >= 2


def _run(env):
    full = {k: v for k, v in os.environ.items() if k not in ("NPY_DISABLE_CPU_FEATURES", "OPENBLAS_CORETYPE")}
    full.update(env)
    return subprocess.Popen(
        [sys.executable, "-W", "error::ImportWarning", CASES_SCRIPT, "--json"],
        env=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture(scope="module")
def runs():
    """``{setting: {"digests": ..., "features": ...}}``, the subprocesses run side by side."""
    procs = {name: _run(env) for name, env in settings().items()}
    out = {}
    for name, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=900)
        assert proc.returncode == 0, f"{name}: {stderr[-2000:]}"
        out[name] = json.loads(stdout.strip().splitlines()[-1])
    return out


def test_every_setting_took_effect(runs):
    for name, env in settings().items():
        off = env.get("NPY_DISABLE_CPU_FEATURES", "").split()
        assert not any(runs[name]["features"][f] for f in off), name
    if "baseline" in runs:  # and the emulation is a real change: numpy reports fewer features
        assert sum(runs["baseline"]["features"].values()) < sum(runs["this CPU"]["features"].values())


def test_every_family_gives_the_same_bytes_on_every_setting(runs):
    reference = runs["this CPU"]["digests"]
    assert list(reference) == list(GOLDEN)
    differing = {
        case: sorted(name for name in runs if runs[name]["digests"][case] != digest)
        for case, digest in reference.items()
        if any(runs[name]["digests"][case] != digest for name in runs)
    }
    assert not differing, f"cases whose bytes depend on the CPU setting: {differing}"


def test_every_setting_gives_the_pinned_bytes(runs):
    for name, run in runs.items():
        moved = [case for case, pinned in GOLDEN.items() if run["digests"][case][: len(pinned)] != pinned]
        assert not moved, f"{name}: {moved} differ from the pinned table (numpy {np.__version__})"
