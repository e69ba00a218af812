"""Every WFC model as a step generator: progress while solving, the same result as the plain call."""

import numpy as np
import pytest

from core.errors import ParameterError
from core.steps import drive
from core.wfc import load_tileset, overlapping, overlapping_steps, read_sample, tiled, tiled_steps

PRESETS = "presets/wfc"


def run(steps):
    seen = []
    result = drive(steps, lambda done, total, label: seen.append((done, total, label)))
    return result, seen


def test_tiled_steps_report_progress_and_equal_tiled():
    ts = load_tileset(f"{PRESETS}/roads.toml")
    result, seen = run(tiled_steps(ts, 40, 30, seed=4))
    assert np.array_equal(result.tiles, tiled(ts, 40, 30, seed=4).tiles)
    assert len(seen) >= 20  # about a hundred per attempt, fewer when propagation decides cells
    dones = [d for d, _, _ in seen]
    assert all(total == 1200 for _, total, _ in seen) and dones == sorted(dones) and dones[-1] <= 1200


def test_overlapping_steps_report_progress_and_equal_overlapping():
    sample = read_sample(f"{PRESETS}/samples/flowers.txt")
    result, seen = run(overlapping_steps(sample, 32, 32, seed=2))
    plain = overlapping(sample, 32, 32, seed=2)
    assert np.array_equal(result.output, plain.output) and result.patterns == plain.patterns
    assert len(seen) >= 5 and all(label.startswith("attempt") for _, _, label in seen)


def test_progress_callbacks_see_the_steps():
    calls = []
    overlapping(read_sample(f"{PRESETS}/samples/rooms.txt"), 24, 24, progress=lambda *a: calls.append(a))
    assert calls


def test_steps_check_their_arguments_at_the_call_before_any_step():
    with pytest.raises(ParameterError, match="symmetry"):
        overlapping_steps(np.zeros((4, 4), int), 8, 8, symmetry=9)
    with pytest.raises(ParameterError, match="counts"):
        tiled_steps(load_tileset(f"{PRESETS}/roads.toml"), 8, 8, counts={"brige": (1, 2)})


def test_closing_the_generator_stops_the_solve():
    steps = tiled_steps(load_tileset(f"{PRESETS}/dungeon.toml"), 64, 64, seed=1)
    next(steps)
    steps.close()  # Esc in the UI: no error, nothing left running
    with pytest.raises(StopIteration):
        next(steps)
