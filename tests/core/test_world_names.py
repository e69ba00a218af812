"""A tiled world's placement files name every prop instance's object uniquely across the world."""

import json

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world

from ._world_cases import isle

WORLD = isle(erosion=False, splats=0)  # a scatter only


def test_placement_object_names_are_unique_across_the_world(tmp_path):
    run = core_world.run_world(core_recipe.loads(WORLD), str(tmp_path))
    names = []
    for x, z in run.grid.tiles():
        with open(tmp_path / f"world_{x}_{z}_placements.json", encoding="utf-8") as fh:
            doc = json.load(fh)
        names += [r["object"] for s in doc["scatters"] for r in s["instances"]]
        assert all(r["object"].startswith(f"Isle_{x}_{z}_") for s in doc["scatters"] for r in s["instances"])
    assert names and len(names) == len(set(names))
