"""Palettes: land fractions, colours, the same bands for every output."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import palette
from worldseed.core.errors import ParameterError


@settings(max_examples=50, deadline=None)
@given(height=st.floats(0.0, 5000.0), sea=st.floats(0.0, 0.9))
def test_land_fraction_is_monotone_and_in_unit_range(height, sea):
    h = np.linspace(0, 1, 101, dtype=np.float32)
    t = palette.land_fraction(h, height_m=height, sea_level=sea)
    assert t.min() >= 0.0 and t.max() <= 1.0 and (np.diff(t) >= 0).all()
    assert t[h <= sea].max(initial=0.0) == 0.0


def test_low_hills_stay_green_and_mountains_get_snow():
    top = np.array([1.0], np.float32)
    hill = palette.terrain_colours(top, height_m=40.0)[0]
    peak = palette.terrain_colours(top, height_m=800.0)[0]
    assert hill[1] > hill[0] and hill[1] > hill[2]  # green
    assert peak.min() > 0.9  # white


def test_steep_slopes_are_rock_and_low_ground_is_water():
    h = np.array([0.05, 0.5], np.float32)
    colours = palette.terrain_colours(h, height_m=500.0, sea_level=0.1, slope_degrees=np.array([0.0, 60.0]))
    pal = palette.PALETTES["temperate"]
    np.testing.assert_allclose(colours[0], pal.water)
    np.testing.assert_allclose(colours[1], pal.rock, atol=1e-6)


@pytest.mark.parametrize("name", palette.PALETTE_NAMES)
def test_every_palette_is_well_formed(name):
    pal = palette.PALETTES[name]
    stops = [s for s, _ in pal.stops]
    assert stops[0] == 0.0 and stops[-1] == 1.0 and stops == sorted(stops)
    for _, rgb in pal.stops:
        assert len(rgb) == 3 and all(0.0 <= c <= 1.0 for c in rgb)


def test_unknown_palette_is_refused_by_name():
    with pytest.raises(ParameterError, match="palette must be one of 'temperate'"):
        palette.terrain_colours(np.zeros(3), height_m=10.0, palette="lava")


def test_srgb_to_linear_matches_the_standard_curve():
    c = np.linspace(0, 1, 11)
    lin = palette.srgb_to_linear(c)
    assert lin[0] == 0.0 and abs(lin[-1] - 1.0) < 1e-6 and (np.diff(lin) > 0).all()
    assert abs(float(palette.srgb_to_linear(np.array([0.5]))[0]) - 0.21404) < 1e-4
