"""The showcase (``make demo``'s embedded recipe, ``addon/batch.py`` ``DEFAULT_RECIPE``) shows every family,
and its rivers, roads, settlements and ecosystem fit its terrain: built here in core, as the headless run
builds them (tests/blender/test_showcase_headless.py checks both give the same showcase).

Read from the source (no bpy: these tests also run on numpy 2); about a second.
"""

import ast
import functools
import importlib.util
import pathlib
import sys

import numpy as np

from worldseed.core import ecosystem, recipe
from worldseed.core._polyline import grid_origin
from worldseed.core.steps import drive

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _text():
    tree = ast.parse((ROOT / "addon" / "batch.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "DEFAULT_RECIPE" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("addon/batch.py has no DEFAULT_RECIPE")


def _gallery():
    if "worldseed_gallery" not in sys.modules:
        spec = importlib.util.spec_from_file_location("worldseed_gallery", ROOT / "tools" / "gallery.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["worldseed_gallery"] = module
        spec.loader.exec_module(module)
    return sys.modules["worldseed_gallery"]


@functools.cache
def _built():
    r = recipe.loads(_text(), source="demo")
    return r, _gallery().build_recipe(r)


def test_the_showcase_has_every_family():
    r = recipe.loads(_text(), source="demo")
    assert r.terrain.erosion.enabled and r.terrain.falloff == "radial" and r.terrain.sea_level > 0
    assert r.biomes.enabled and len(r.splat) >= 4
    assert r.rivers.enabled and r.rivers.lakes and r.roads.enabled
    assert r.settlements.enabled and r.settlements.count >= 2 and r.settlements.level in {lv.name for lv in r.level}
    assert [a.name for a in r.ecosystem.animals] == ["Deer", "Wolf"] and r.ecosystem.species
    assert {s.prop for s in r.scatter} >= {"rock", "grass"}
    assert {lv.generator for lv in r.level} >= {"bsp", "cave"} and any(lv.generator.startswith("wfc") for lv in r.level)
    assert r.export.fbx and r.export.heightmap_raw and r.export.render and r.export.placements


def test_the_networks_and_the_trails_paint_their_own_texture_layers():
    r = recipe.loads(_text(), source="demo")
    names = [s.name for s in r.splat]
    assert names[-4:] == ["Riverbed", "Bank", "Road", "Trail"]
    assert (r.splat[-4].river, r.splat[-3].bank, r.splat[-2].road) == (1.0, 1.0, 1.0) and r.splat[-1].trail > 0


def test_the_rivers_a_lake_and_the_roads_fit_the_island():
    r, built = _built()
    rivers, roads = built["rivers"], built["roads"]
    net = rivers.network
    assert net.segment_count >= 8 and rivers.maps.lake.any()  # rivers, and a lake
    assert int(np.max(net.order)) >= 2  # streams that join
    rows, cols = net.rows_cols()
    for s in range(net.segment_count):  # every river ends at the sea or in a lake, not on the land
        if net.downstream[s] < 0:
            end = net.segment(s).stop - 1
            r0, c0 = int(rows[end]), int(cols[end])
            near = (slice(max(r0 - 1, 0), r0 + 2), slice(max(c0 - 1, 0), c0 + 2))
            assert rivers.maps.lake[near].any() or (rivers.maps.heights[near] <= built["sea"] + 1e-3).any(), s
    sites = built["settlements"].sites
    assert len(sites) == r.settlements.count  # every settlement asked for found a place
    assert [s.kind for s in sites] == ["walled_town", "village", "village"]
    assert len(roads.network.edges) >= len(sites) - 1  # and the roads reach every one
    assert roads.maps.road.max() > 0.5
    # after the pads and the roads' cut and fill, the rivers' points (the rivers JSON's heights,
    # network.z) still lie on the final heightmap (float32 metres)
    bed = (rows.astype(int), cols.astype(int))
    np.testing.assert_allclose(built["metres"][bed], net.z, atol=1e-4)


def test_the_pads_leave_the_rivers_in_their_beds():
    """A pad's blend clips the ground into a cone round the pad: the sites are chosen where that cone
    holds no river, and the blends and the roads' cut and fill leave every river's bed, its banks and
    their ring of cells where the rivers carved them (the final heightmap, float32 metres)."""
    r, built = _built()
    rv = built["rivers"]
    carved = rv.maps.heights
    cell = r.terrain.cell_size
    rows, cols = rv.network.rows_cols()
    bed = (rows.astype(int), cols.astype(int))
    water = rv.maps.water | rv.maps.lake
    water[bed] = True
    tan = np.tan(np.radians(r.settlements.pad_slope))
    x0, y0 = grid_origin(carved.shape, cell)
    wr, wc = np.nonzero(water)
    for site in built["settlements"].sites:
        d = np.hypot(x0 + wc * cell - site.centre[0], y0 + wr * cell - site.centre[1])
        assert np.all(np.abs(carved[wr, wc] - site.z) <= np.maximum(d - site.radius, 0.0) * tan + 1e-6), site.name
    ring = water.copy()
    ring[1:] |= water[:-1]
    ring[:-1] |= water[1:]
    ring[:, 1:] |= ring[:, :-1].copy()
    ring[:, :-1] |= ring[:, 1:].copy()
    roads = built["roads"].maps.clearing  # (where a road crosses on a bridge or a ford, the road's own)
    np.testing.assert_allclose(built["metres"][ring & ~roads], carved[ring & ~roads], atol=1e-4)


def test_the_forest_grows_and_deer_and_wolves_live_on_the_island():
    r, built = _built()
    layers = built["layers"]
    # as the headless run grows it (operators.bridge.ecosystem): the plants' habitat keeps off the water
    # and the roads, the animals drink at the rivers and lakes; the sea level as the layers' water
    sea = float(np.float32(r.terrain.sea_level) * np.float32(r.terrain.height))
    run = drive(ecosystem.terrain_ecosystem_steps(r.ecosystem, layers, sea_level=sea, lapse=r.biomes.lapse))
    alive = run.plants.history["alive"][-1]
    assert (alive > 0).all() and alive.sum() >= 1000  # a forest of both species
    assert (run.animals.history["population"][-1] > 0).all()  # deer and wolves both alive
    assert np.asarray(run.animals.wear).max() > 0  # trails
