"""The showcase as ``make demo`` builds it (the bridge's layers, ``operators.bridge.terrain_layers``,
what ``worldseed_run.py`` reads) is the showcase the core tests and the gallery check
(``tools/gallery.build_recipe``): the same recipe gives the same rivers, sites and roads."""

import importlib.util
import pathlib
import sys

import numpy as np

from worldseed.addon import batch
from worldseed.core import recipe as core_recipe
from worldseed.operators.bridge import terrain_layers

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _gallery():
    if "worldseed_gallery" not in sys.modules:
        spec = importlib.util.spec_from_file_location("worldseed_gallery", ROOT / "tools" / "gallery.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["worldseed_gallery"] = module
        spec.loader.exec_module(module)
    return sys.modules["worldseed_gallery"]


def test_the_headless_demo_and_the_gallery_build_the_same_island():
    r = core_recipe.loads(batch.DEFAULT_RECIPE, source="the showcase")
    terrain_layers.forget()
    headless = terrain_layers.layers_for(r)
    gallery = _gallery().build_recipe(r)
    assert headless is not None
    np.testing.assert_array_equal(headless.heights.values, gallery["layers"].heights.values)
    np.testing.assert_array_equal(headless.rivers.network.cells, gallery["rivers"].network.cells)
    mine = [(s.name, s.kind, s.centre, s.z) for s in headless.settlements.sites]
    theirs = [(s.name, s.kind, s.centre, s.z) for s in gallery["settlements"].sites]
    assert mine == theirs and len(mine) == r.settlements.count
    assert len(headless.roads.network.edges) == len(gallery["roads"].network.edges) >= len(mine) - 1
