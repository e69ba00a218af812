"""Rules that read erosion's deposits need ``[terrain.erosion]``: one clear RecipeError, not silence."""

import pytest

from core import recipe, splat
from core.errors import RecipeError

TERRAIN = "[terrain]\nresolution = 65\n"
EROSION = "[terrain.erosion]\nenabled = true\ndroplets_per_km2 = 1000\n"
SPLATS = '[[splat]]\nname = "Ground"\n[[splat]]\nname = "Scree"\ndeposits = 1.0\n'
SCATTER = '[[scatter]]\nname = "Rocks"\ndeposits = [0.2, 100000.0]\n'


def test_splat_deposits_without_erosion_is_refused():
    with pytest.raises(RecipeError, match=r"splat\[1\]\.deposits is 1\.0, but \[terrain\.erosion\] is off") as err:
        recipe.loads(TERRAIN + SPLATS)
    assert "terrain.erosion.enabled = true" in str(err.value)
    with pytest.raises(RecipeError, match=r"splat\[1\]\.deposits is -0\.5"):
        recipe.loads(TERRAIN + SPLATS.replace("1.0", "-0.5"))


def test_scatter_deposits_without_erosion_is_refused():
    with pytest.raises(RecipeError, match=r"scatter\[0\]\.deposits is .*\[terrain\.erosion\] is off") as err:
        recipe.loads(TERRAIN + SCATTER)
    assert "terrain.erosion.enabled = true" in str(err.value)


def test_deposits_with_erosion_and_no_rule_without_it_are_accepted():
    r = recipe.loads(TERRAIN + EROSION + SPLATS + SCATTER)
    assert r.splat[1].deposits == 1.0 and r.scatter[0].deposits == (0.2, 100000.0)
    plain = recipe.loads(TERRAIN + SPLATS.replace("deposits = 1.0\n", "") + SCATTER.replace("deposits", "#"))
    assert plain.splat[1].deposits == 0.0
    # a disabled erosion table is off too
    with pytest.raises(RecipeError, match=r"splat\[1\]\.deposits"):
        recipe.loads(TERRAIN + EROSION.replace("true", "false") + SPLATS)


def test_check_deposit_rules_is_public_for_the_sidebar():
    from core import scatter

    r = recipe.loads(TERRAIN)
    layer = scatter.LayerSpec(deposits=(0.5, 2.0))
    with pytest.raises(RecipeError, match=r"splat\[0\]\.deposits is 0\.5"):
        recipe.check_deposit_rules(r.terrain, "splat", [splat.SplatSpec(deposits=0.5)])
    recipe.check_deposit_rules(r.terrain, "splat", [splat.SplatSpec()])
    with pytest.raises(RecipeError, match=r"scatter layer\[0\]\.deposits"):
        recipe.check_deposit_rules(r.terrain, "scatter layer", [layer])
    recipe.check_deposit_rules(r.terrain, "scatter layer", [scatter.LayerSpec()])
