"""Recipes with the terrain's layers: ``[terrain.erosion]``, ``[biomes]`` and ``[[splat]]``."""

import numpy as np
import pytest

from core import erosion, recipe, terrain
from core.errors import ParameterError, RecipeError
from core.preview import png_bytes


def _erosion_spec_written():
    try:
        erosion.from_dict({})
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
    assert list(table)[-1] == "erosion" and table["erosion"] == erosion.to_dict(r.terrain.erosion)
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


LAYERED = """
[terrain]
resolution = 65
[biomes]
enabled = true
moisture_scale = 64.0
[[splat]]
name = "Grass"
color = [0.1, 0.3, 0.05]
[[splat]]
name = "Rock"
slope_range = [30.0, 90.0]
biomes = { "bare rock" = 1.0, tundra = 0.5 }
[[scatter]]
name = "Pines"
radius = 8.0
biomes = ["taiga", "forest"]
"""


def test_biomes_and_splats_are_sections_after_the_terrain_before_trees_and_scatter():
    order = recipe.SECTION_KEYS.index
    assert order("terrain") < order("biomes") < order("splat") < order("trees") < order("scatter")
    r = recipe.loads(LAYERED)
    assert r.biomes.enabled and r.biomes.moisture_scale == 64.0
    assert [s.name for s in r.splat] == ["Grass", "Rock"]
    assert r.splat[1].biomes == (("bare rock", 1.0), ("tundra", 0.5))
    assert r.scatter[0].biomes == (("taiga", 1.0), ("forest", 1.0))
    text = recipe.dumps(r)
    assert text.index("[biomes]") < text.index("[[splat]]") < text.index("[[scatter]]")
    assert recipe.loads(text) == r
    plain = recipe.loads("[terrain]\n")
    assert plain.biomes == recipe.SECTIONS[recipe.SECTION_KEYS.index("biomes")].spec() and plain.splat == ()
    assert not [s.key for s in recipe.SECTIONS if s.key in ("biomes", "splat") and s.build]  # built with the terrain


@pytest.mark.parametrize(
    "text, message",
    [
        ("[terrain]\n[biome]\n", r"unknown section\(s\) \['biome'\] \(did you mean 'biome' -> 'biomes'\?\)"),
        ("[terrain]\n[biomes]\nenable = true\n", r"\[biomes\].*did you mean 'enable' -> 'enabled'"),
        ("[terrain]\n[[splat]]\nslope = [1.0, 2.0]\n", r"splat\[0\].*did you mean 'slope' -> 'slope_"),
        ("[terrain]\nenabled = false\n[biomes]\nenabled = true\n", r"\[biomes\] needs a terrain"),
        ("[terrain]\nenabled = false\n[[splat]]\nname = 'a'\n", r"\[\[splat\]\] layers need a terrain"),
        ("[terrain]\n[[splat]]\nname = 'a'\n[[splat]]\nname = 'a'\n", r"splat\[1\]\.name 'a' is taken by splat\[0\]"),
        ("[terrain]\n[[splat]]\nbiomes = ['forest']\n", r"splat\[0\]\.biomes names biomes, but \[biomes\] is off"),
        (
            "[terrain]\n[biomes]\nenabled = true\n[[splat]]\nname = 'a'\n[[splat]]\nbiomes = ['forst']\n",
            r"splat\[1\]\.biomes names 'forst', which is not a biome of the table 'whittaker' "
            r"\(did you mean 'forest'\?\); biomes: ocean, ",
        ),
        (
            "[terrain]\n[biomes]\nenabled = true\n[[scatter]]\nbiomes = {tiaga = 0.5}\n",
            r"scatter\[0\]\.biomes names 'tiaga'.*did you mean 'taiga'",
        ),
        ("[terrain]\n[[scatter]]\nbiomes = ['taiga']\n", r"scatter\[0\]\.biomes names biomes, but \[biomes\] is off"),
        ("[terrain]\n[biomes]\nenabled = true\ntable = 'whitaker'\n", r"biomes\.table: .*did you mean 'whittaker'"),
    ],
)
def test_layer_sections_refuse_what_cannot_be_built_with_one_clear_message(text, message):
    with pytest.raises(RecipeError, match=message):
        recipe.loads(text, source="r.toml")


def test_biome_table_paths_are_found_beside_the_recipe(tmp_path, monkeypatch):
    table = (
        'name = "two"\nfallback = "meadow"\n'
        '[[biome]]\nname = "meadow"\ncolor = [0.2, 0.6, 0.2]\n'
        '[[biome]]\nname = "peak"\ncolor = [0.9, 0.9, 0.9]\nelevation = [0.7, 1.0]\n'
    )
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "two.toml").write_text(table)
    (tmp_path / "textures").mkdir()  # a texture must be a PNG or JPEG file (tests/core/test_splat_paths.py)
    (tmp_path / "textures" / "rock.png").write_bytes(png_bytes(np.zeros((2, 2, 3), np.uint8)))
    path = tmp_path / "world.toml"
    path.write_text(
        "[terrain]\n[biomes]\nenabled = true\ntable = 'tables/two.toml'\n[[splat]]\nname = 'a'\n"
        "[[splat]]\nname = 'b'\nbiomes = ['peak']\ntexture = 'textures/rock.png'\n"
    )
    r = recipe.load(path)
    assert r.biomes.table == str(tmp_path / "tables" / "two.toml")
    assert r.splat[1].texture == str(tmp_path / "textures" / "rock.png") and r.splat[0].texture == ""
    monkeypatch.chdir(tmp_path)
    no_folder = recipe.loads("[terrain]\n[[splat]]\ntexture = 'textures/rock.png'\n")
    assert no_folder.splat[0].texture == "textures/rock.png"  # no folder: as written
    assert recipe.loads(recipe.dumps(r)) == r  # absolute now: read from anywhere
    path.write_text("[terrain]\n[biomes]\nenabled = true\ntable = 'tables/two.toml'\n[[splat]]\nbiomes = ['forest']\n")
    with pytest.raises(RecipeError, match=r"splat\[0\]\.biomes names 'forest'.*biomes: meadow, peak"):
        recipe.load(path)


def test_erosion_is_checked_against_the_tile():
    """The brush against the cell size, the droplet count against the tile: one message naming the key."""
    with pytest.raises(RecipeError, match=r"r\.toml: terrain\.erosion\.radius 500 m is 250 cells of 2 m"):
        recipe.loads(
            "[terrain]\nresolution = 257\n[terrain.erosion]\nenabled = true\nradius = 500.0\n", source="r.toml"
        )
    with pytest.raises(RecipeError, match=r"terrain\.erosion\.droplets_per_km2 .* droplets"):
        recipe.loads("[terrain]\nsize = 100000.0\n[terrain.erosion]\nenabled = true\ndroplets_per_km2 = 1e6\n")
    # off, the same settings are only kept (a sidebar may hold them while erosion is off)
    r = recipe.loads("[terrain]\nresolution = 257\n[terrain.erosion]\nradius = 500.0\n")
    assert r.terrain.erosion.radius == 500.0 and not r.terrain.erosion.enabled
