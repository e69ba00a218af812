"""Golden digests of every family core writes (noise, terrain, erosion, biomes and splats, the
Unity package, previews, scatter and placements, trees, levels, WFC, tiled worlds), in this
process: the table and its cases are in _digest_cases.py; test_cpu_determinism.py runs them again
under other CPU settings."""

import numpy as np
import pytest

from worldseed.core import _perlin

from ._digest_cases import CASES, GOLDEN, digest, noise_point_coords


def test_every_case_is_pinned():
    assert list(GOLDEN) == list(CASES)


@pytest.mark.parametrize("name", list(CASES))
def test_golden_digest(name):
    """The same bytes as when the case was pinned (on any machine, and on numpy 1.x and 2.x alike)."""
    pinned = GOLDEN[name]
    assert digest(name)[: len(pinned)] == pinned


def test_the_far_noise_points_reach_beyond_the_fast_lattice_index():
    """``noise_points[...-1]`` really exercises the fmod index path: its last octave is far."""
    x, _ = noise_point_coords(far=True)
    assert np.abs(x).max() / 1.0 * 2**5 > _perlin.MAGIC_REACH  # scale 1, 6 octaves
