"""``[terrain.erosion]``: ErosionSpec, its limits table, reading and writing, and the tile checks."""

import dataclasses
import inspect

import pytest

from worldseed.core.erosion import LIMITS, ErosionSpec, from_dict, hydraulic, to_dict
from worldseed.core.erosion._hydraulic import MAX_DROPLET_STEPS, MAX_DROPLETS
from worldseed.core.erosion.spec import check_erosion, droplet_count
from worldseed.core.errors import ParameterError
from worldseed.core.spec import check_value


def test_every_field_has_one_limit_and_the_defaults_are_within_it():
    names = [f.name for f in dataclasses.fields(ErosionSpec)]
    assert list(LIMITS) == names
    spec = ErosionSpec()
    for name in names:
        assert check_value(getattr(spec, name), LIMITS[name], name=name) == getattr(spec, name)
    assert spec.enabled is False and spec.thermal is False


def test_hydraulic_defaults_match_the_function():
    params = inspect.signature(hydraulic).parameters
    kwargs = ErosionSpec().hydraulic_kwargs()
    for key, value in kwargs.items():
        default = params[key].default
        assert default is None or default == value, key
    assert set(kwargs) <= set(params)


def test_round_trip_and_partial_tables():
    spec = from_dict({"enabled": True, "radius": 5, "thermal": True, "thermal_iterations": 20})
    assert spec.radius == 5.0 and isinstance(spec.radius, float) and spec.thermal_iterations == 20
    assert from_dict(to_dict(spec)) == spec
    assert to_dict(ErosionSpec())["droplets_per_km2"] == ErosionSpec().droplets_per_km2


@pytest.mark.parametrize(
    ("table", "match"),
    [
        ({"droplets_per_km2": -1}, r"terrain\.erosion\.droplets_per_km2 .*\[0, 1e\+06\].*-1"),
        ({"inertia": 1.0}, r"terrain\.erosion\.inertia"),
        ({"radius": 0}, r"terrain\.erosion\.radius .*\[0\.05, 1000\]"),
        ({"talus": 95}, r"terrain\.erosion\.talus"),
        ({"thermal_iterations": 2.5}, r"terrain\.erosion\.thermal_iterations must be an integer"),
        ({"enabled": "yes"}, r"terrain\.erosion\.enabled"),
        ({"droplet": 5}, r"unknown key.*\[terrain\.erosion\].*'droplet' -> 'droplets_per_km2'"),
    ],
)
def test_bad_values_are_one_clear_message(table, match):
    with pytest.raises(ParameterError, match=match):
        from_dict(table)


def test_prefix_names_the_place():
    with pytest.raises(ParameterError, match=r"^tile\.erosion\.gravity"):
        from_dict({"gravity": -1}, prefix="tile.erosion.")


def test_droplet_count_scales_with_area_and_is_capped():
    spec = ErosionSpec(enabled=True, droplets_per_km2=100_000.0)
    assert droplet_count(spec, size=1000.0) == 100_000
    assert droplet_count(spec, size=512.0) == round(100_000 * 0.512**2)
    dense = ErosionSpec(enabled=True, droplets_per_km2=1.0e8)
    with pytest.raises(ParameterError, match=f"at most {MAX_DROPLETS:,} droplets"):
        droplet_count(dense, size=4096.0)


def test_tile_checks_refuse_hours_of_work_and_brushes_too_wide():
    assert check_erosion(ErosionSpec(enabled=True), size=512.0, cell_size=0.5) == 26214
    with pytest.raises(ParameterError, match="radius 100 m is 200 cells"):
        check_erosion(ErosionSpec(enabled=True, radius=100.0), size=512.0, cell_size=0.5)
    with pytest.raises(ParameterError, match="lifetime 9000 m is 18000 cells"):
        check_erosion(ErosionSpec(enabled=True, lifetime=9000.0), size=512.0, cell_size=0.5)
    long_runs = ErosionSpec(enabled=True, droplets_per_km2=2.0e6, lifetime=2000.0)
    with pytest.raises(ParameterError, match=f"at most {MAX_DROPLET_STEPS:,} droplet steps"):
        check_erosion(long_runs, size=4096.0, cell_size=1.0)
    # switched off, nothing is checked and nothing runs
    assert check_erosion(dataclasses.replace(long_runs, enabled=False, radius=900.0), size=4096.0, cell_size=1.0) == 0


def test_hydraulic_refuses_hours_of_work_before_any():
    import numpy as np

    with pytest.raises(ParameterError, match="droplets 40,000,000 of 1,000 steps"):
        hydraulic(np.zeros((8, 8)), cell_size=1.0, droplets=40_000_000, lifetime=1000.0)


def test_the_erosion_estimate_counts_droplet_steps_and_thermal_passes():
    from worldseed.core.erosion import erosion_seconds
    from worldseed.core.erosion.spec import SECONDS_PER_DROPLET_STEP, SECONDS_PER_THERMAL_CELL

    assert erosion_seconds(ErosionSpec(), size=4096.0, resolution=4097) == 0.0  # erosion off
    spec = ErosionSpec(enabled=True, droplets_per_km2=1_000_000.0, lifetime=100.0, thermal=False)
    # 1 km on 2 m cells: 1,048,576 droplets of 50 steps
    assert erosion_seconds(spec, size=1024.0, resolution=513) == 1_048_576 * 50 * SECONDS_PER_DROPLET_STEP
    warm = dataclasses.replace(spec, thermal=True, thermal_iterations=200)
    thermal = erosion_seconds(warm, size=1024.0, resolution=513) - erosion_seconds(spec, size=1024.0, resolution=513)
    assert thermal == pytest.approx(513**2 * 200 * SECONDS_PER_THERMAL_CELL)
    # the allowed maximum on a 4 km terrain (1 m cells): 1.5 billion droplet steps, about 13 minutes
    most = ErosionSpec(enabled=True, droplets_per_km2=894_069.0)
    assert 12 * 60 < erosion_seconds(most, size=4096.0, resolution=4097) < 14 * 60
