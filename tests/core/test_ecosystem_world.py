"""Plants in a tiled world: each tile simulates its own plants with a halo (``core.world``'s tiles write
``<tile>_plants.csv``, ``_ecosystem.json``, ``_population.png`` and the plants in their placement file,
listed in the world JSON); a tile's files do not depend on which tiles were built before it; animals roam
the whole world (test_ecosystem_world_animals)."""

import csv
import json

import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.core.errors import ParameterError

from ._world_cases import digests, isle

SPECIES = """
[ecosystem]
years = 12
seed = 4
[[ecosystem.species]]
name = "Pine"
tree = "conifer"
initial_density = 150.0
dispersal = 5.0
max_radius = 2.0
"""


def _recipe(tiles=(2, 1)):
    return core_recipe.loads(isle(tiles=tiles, erosion=False, rocks=6.0) + SPECIES)


def _plants(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_each_tile_writes_its_plants_and_lists_them_in_the_world_json(tmp_path):
    recipe = _recipe()
    run = core_world.run_world(recipe, str(tmp_path), name="Isle")
    doc = json.loads((tmp_path / "Isle_world.json").read_text())
    grid = core_world.world_grid(recipe)
    for x in range(2):
        base = f"Isle_{x}_0"
        listed = {f["name"] for tile in doc["tiles"] if tile["name"] == base for f in tile["files"]}
        assert {f"{base}_plants.csv", f"{base}_ecosystem.json", f"{base}_population.png"} <= listed
        rows = _plants(tmp_path / f"{base}_plants.csv")
        assert len(rows) > 10
        # owned by the tile their trunk stands in: Unity x = -Blender x, the tile spans its size
        cx = grid.blender_centre(x, 0)[0]
        xs = [-float(r["x"]) for r in rows]
        assert all(cx - 64.0 <= v < cx + 64.0 + 1e-3 for v in xs)
        history = json.loads((tmp_path / f"{base}_ecosystem.json").read_text())
        assert history["species"] == ["Pine"] and history["history"][-1]["alive"] == [len(rows)]
        placements = json.loads((tmp_path / f"{base}_placements.json").read_text())
        entry = {s["scatter"]: s for s in placements["scatters"]}[f"{base}_Ecosystem"]
        assert len(entry["instances"]) == len(rows) and entry["props"] == ["Conifer_P01"]
        assert all("width_scale" in r for r in entry["terrain_trees"]["instances"])
    assert run.built


def test_a_tile_is_the_same_whichever_tiles_were_built_before(tmp_path):
    recipe = _recipe()
    both, alone = tmp_path / "both", tmp_path / "alone"
    core_world.run_world(recipe, str(both), name="Isle")
    core_world.run_world(recipe, str(alone), name="Isle", tiles=[(1, 0)])
    a, b = digests(both), digests(alone)
    for name in ("Isle_1_0_plants.csv", "Isle_1_0_ecosystem.json", "Isle_1_0_placements.json"):
        assert a[name] == b[name], name
    assert "Isle_0_0_plants.csv" not in b


def test_animals_are_taken_in_a_tiled_world_and_a_world_too_large_is_refused_in_one_line():
    """Animals were refused in a tiled world; they roam it whole now (test_ecosystem_world_animals), and a
    world too large for one animal pass is refused with the figure, before any work."""
    text = isle(tiles=(2, 1), erosion=False) + SPECIES + '[[ecosystem.animals]]\nname = "Deer"\n'
    assert core_recipe.loads(text).ecosystem.animals[0].name == "Deer"
    huge = isle(tiles=(16, 16), resolution=513, erosion=False) + SPECIES + '[[ecosystem.animals]]\nname = "Deer"\n'
    with pytest.raises(ParameterError, match=r"ecosystem.animals roam the whole tiled world: 8,193 x 8,193") as err:
        core_recipe.loads(huge)
    assert "\n" not in str(err.value)
