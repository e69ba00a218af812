"""WFC levels on their defaults make levels: a 2-D tileset and a sample whose walkable cells are one region of a
fair share of the grid (the Levels panel's Add Level as an artist first clicks it, and a recipe that names only the
generator); the panel lists only the presets that do."""

import pytest

from core.levels import DEFAULT_SAMPLE, LevelSpec, generate, label_regions, preset_names
from core.levels._wfc_files import LEVEL_SAMPLES

#: Least share of walkable cells that still reads as a level (the defaults make 42 to 49 %).
LEAST_WALKABLE = 0.3


def _is_a_level(level):
    walkable = level.walkable
    return label_regions(walkable)[1] == 1 and walkable.mean() >= LEAST_WALKABLE


@pytest.mark.parametrize("generator", ["wfc_tiled", "wfc_overlapping", "wfc"])
def test_every_wfc_generator_makes_a_connected_level_on_its_defaults(generator):
    spec = LevelSpec(generator=generator)
    level = generate(spec)
    assert level.grid.shape == (spec.height, spec.width) == (64, 64)
    assert _is_a_level(level), (label_regions(level.walkable)[1], float(level.walkable.mean()))


def test_the_defaults_are_a_2d_tileset_and_a_level_sample():
    spec = LevelSpec()
    assert spec.connected and spec.wfc_tileset in preset_names("wfc_tileset", levels=True)
    assert spec.sample == "" and DEFAULT_SAMPLE in LEVEL_SAMPLES
    assert generate(LevelSpec(generator="wfc_overlapping", width=8, height=8)).settings["sample"] == DEFAULT_SAMPLE
    assert generate(LevelSpec(generator="wfc", width=8, height=8)).settings["tileset"] == spec.wfc_tileset


@pytest.mark.parametrize(
    "preset", [("sample", s) for s in LEVEL_SAMPLES] + [("wfc_tileset", "pipes"), ("wfc_tileset", "roads")]
)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_presets_listed_for_levels_make_levels(preset, seed):
    key, name = preset
    generator = "wfc_overlapping" if key == "sample" else "wfc_tiled"
    assert _is_a_level(generate(LevelSpec(generator=generator, width=32, height=32, seed=seed, **{key: name})))


def test_the_presets_listed_for_levels():
    """The 3-D tileset (blocks3d: up/down sockets) and the samples whose default classes make islands or a sliver
    of floor (dots, flowers, hills, rooms, town) are not listed for levels; they stay usable by name."""
    assert preset_names("wfc_tileset", levels=True) == ["dungeon", "pipes", "roads"]
    assert set(preset_names("wfc_tileset")) - set(preset_names("wfc_tileset", levels=True)) == {"blocks3d"}
    assert preset_names("sample", levels=True) == list(LEVEL_SAMPLES) == ["caves"]
    assert {"dots", "flowers", "hills", "rooms", "town"} <= set(preset_names("sample"))
