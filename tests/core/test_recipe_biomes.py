"""Recipes with the terrain's layers: ``[terrain.erosion]``, ``[biomes]`` and ``[[splat]]``."""

import pytest

from core import erosion, recipe, terrain
from core.errors import ParameterError, RecipeError


def _erosion_spec_written():
    try:
        erosion.erosion_from_dict({})
    except NotImplementedError:
        return False
    return True


needs_erosion_spec = pytest.mark.skipif(not _erosion_spec_written(), reason="core.erosion's spec is being written")


def test_terrain_without_erosion_reads_and_writes_as_before():
    r = recipe.loads("[terrain]\nresolution = 65\n")
    assert r.terrain.erosion == erosion.ErosionSpec() and not r.terrain.erosion.enabled
    assert "erosion" not in terrain.to_dict(r.terrain)
    assert "[terrain.erosion]" not in recipe.dumps(r)
    assert recipe.loads(recipe.dumps(r)) == r


def test_erosion_must_be_a_table():
    with pytest.raises(RecipeError, match=r"terrain\.erosion must be a table \(\[terrain\.erosion\]\), got 3"):
        recipe.loads("[terrain]\nerosion = 3\n")


@needs_erosion_spec
def test_erosion_sub_table_round_trips():
    text = "[terrain]\nresolution = 65\n[terrain.erosion]\nenabled = true\nthermal = true\n"
    r = recipe.loads(text)
    assert r.terrain.erosion.enabled and r.terrain.erosion.thermal
    table = terrain.to_dict(r.terrain)
    assert list(table)[-1] == "erosion" and table["erosion"] == erosion.erosion_to_dict(r.terrain.erosion)
    out = recipe.dumps(r)
    assert "\n[terrain.erosion]\nenabled = true\n" in out
    assert recipe.loads(out) == r
    # the same spec given as a spec (as the sidebar gathers it) is accepted as it is
    assert terrain.from_dict({"erosion": r.terrain.erosion}).erosion == r.terrain.erosion
    assert recipe.replace(r, terrain_resolution=129).terrain.erosion == r.terrain.erosion


@needs_erosion_spec
def test_erosion_keys_are_checked_with_their_full_name():
    with pytest.raises(RecipeError, match=r"\[terrain\.erosion\].*did you mean 'enable' -> 'enabled'"):
        recipe.loads("[terrain]\n[terrain.erosion]\nenable = true\n")
    with pytest.raises(ParameterError, match=r"terrain\.erosion\.inertia"):
        terrain.from_dict({"erosion": {"inertia": -5.0}})
