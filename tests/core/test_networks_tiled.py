"""Rivers and roads in a tiled world (core.world): planned once over the whole world's heights, each tile
carves its part; every tile's layers equal the world carved whole on its window, neighbouring tiles
hold the same heights along their seam, and a river or road crossing a seam has the same points in both
tiles' files; the world JSON lists the files.  With erosion, see test_networks_tiled_eroded.py."""

import json
import os

import numpy as np
import pytest

from core import recipe as core_recipe
from core import rivers, roads
from core import world as core_world
from core.errors import ParameterError

from ._network_cases import TILED, seam_crossings


@pytest.fixture(scope="module")
def built():
    recipe = core_recipe.loads(TILED)
    grid = core_world.world_grid(recipe)
    h = core_world.world_heights(recipe, grid)
    nets = core_world.world_networks(recipe, grid, core_world.recipe_digest(recipe))
    whole = rivers.carve_rivers(h, nets.rivers, carve=recipe.rivers.carve, reach=recipe.rivers.water_reach)
    road_whole = roads.carve_roads(whole.heights, nets.roads)
    layers = {t: core_world.tile_layers(recipe, grid, *t) for t in grid.tiles()}
    return recipe, grid, nets, whole, road_whole, layers


def test_the_networks_cross_the_seams(built):
    _recipe, grid, nets, whole, road_whole, _layers = built
    n = grid.resolution - 1
    assert nets.rivers.segment_count > 3 and len(nets.roads.edges) >= 3
    assert whole.water[:, n].any() or whole.water[n, :].any()
    assert (road_whole.road[:, n] > 0).any() and (road_whole.road[n, :] > 0).any()


def test_every_tile_is_the_world_carved_whole_on_its_window(built):
    recipe, grid, _nets, whole, road_whole, layers = built
    top = recipe.terrain.height
    want = np.clip(road_whole.heights / top, 0.0, 1.0).astype(np.float32)
    n = grid.resolution
    for (x, z), tile in layers.items():
        r0, c0 = grid.origin(x, z)
        win = (slice(r0, r0 + n), slice(c0, c0 + n))
        assert np.array_equal(tile.heights.values, want[win]), (x, z)
        assert np.array_equal(tile.roads.maps.road, road_whole.road[win]), (x, z)
        assert np.array_equal(tile.rivers.maps.water, whole.water[win]), (x, z)
        assert tile.clearing.shape == (n, n) and tile.heights.margin.shape == (n + 2, n + 2)
        assert np.array_equal(tile.heights.margin[1:-1, 1:-1], tile.heights.values)


def test_neighbouring_tiles_hold_the_same_carved_heights_along_their_seams(built):
    _recipe, grid, _nets, _whole, _road_whole, layers = built
    h = {t: tile.heights.values for t, tile in layers.items()}
    # tile (0, 0) is the world's +X / +Y corner (Blender [-size, 0]): (1, 0) lies at smaller X
    assert np.array_equal(h[0, 0][:, 0], h[1, 0][:, -1])
    assert np.array_equal(h[0, 0][0, :], h[0, 1][-1, :])
    assert np.array_equal(h[1, 1][:, -1], h[0, 1][:, 0])


def test_the_tiles_files_agree_at_the_seams_and_the_world_json_lists_them(built, tmp_path):
    recipe, grid, nets, _whole, _road_whole, _layers = built
    run = core_world.run_world(recipe, str(tmp_path), name="delta")
    doc = json.loads((tmp_path / "delta_world.json").read_text())
    listed = {f["name"] for t in doc["tiles"] for f in t["files"]}
    for x, z in grid.tiles():
        assert {f"delta_{x}_{z}_rivers.json", f"delta_{x}_{z}_roads.json"} <= listed
    assert run.complete

    # the Unity X of the seam between tiles (0, z) and (1, z): Blender x = -size, Unity x = +size
    crossing = seam_crossings(tmp_path, "delta", recipe.terrain.size)
    assert crossing >= 2  # something does cross that seam (a river only touching it at its end is not listed twice)
    # the world's ids: a road edge cut by a seam keeps its id in both tiles
    ids = [
        {e["id"] for e in json.loads((tmp_path / f"delta_{x}_{z}_roads.json").read_text())["edges"]}
        for x, z in grid.tiles()
    ]
    assert len(set().union(*ids)) == len(nets.roads.edges)


def test_a_tiled_world_with_erosion_and_networks_is_planned_on_the_stitched_heights():
    """Once refused: erosion on with rivers and roads in a tiled world loads, and its run has a world
    task (the eroded heights stitched, the plan made) after every window and before every tile."""
    text = TILED.replace("[rivers]", "[terrain.erosion]\nenabled = true\n[rivers]")
    recipe = core_recipe.loads(text)
    assert core_world.stitched_world(recipe) and not core_world.stitched_world(core_recipe.loads(TILED))
    grid = core_world.world_grid(recipe)
    tasks = core_world.plan_world(grid, recipe)
    keys = [t.key for t in tasks]
    world = keys.index("world")
    assert all(keys.index(f"window_{x}_{z}") < world < keys.index(f"tile_{x}_{z}") for x, z in grid.tiles())
    assert sorted(tasks[world].deps) == sorted(f"window_{x}_{z}" for x, z in grid.tiles())
    assert all("world" in t.deps for t in tasks if t.kind == "tile")
    again = core_world.plan_world(grid, recipe, tiles=[(1, 1)], stitched=True)  # the heights in the cache
    assert [t.key for t in again][0] == "world" and again[0].deps == ()
    assert [t.kind for t in core_world.plan_world(grid, core_recipe.loads(TILED))].count("world") == 0


@pytest.mark.parametrize("erosion", [False, True])
def test_a_world_too_big_to_plan_whole_is_refused_before_any_work(monkeypatch, tmp_path, erosion):
    from core.world import _networks

    text = TILED.replace("[rivers]", "[terrain.erosion]\nenabled = true\n[rivers]") if erosion else TILED
    recipe = core_recipe.loads(text)
    monkeypatch.setattr(_networks, "MAX_NETWORK_CELLS", 100)
    with pytest.raises(ParameterError, match="planned over the whole world: 129 x 129 samples"):
        core_world.world_heights(recipe, core_world.world_grid(recipe), str(tmp_path))
    with pytest.raises(ParameterError, match="planned over the whole world: 129 x 129 samples"):
        core_world.run_world(recipe, str(tmp_path / "out"))  # when the run is planned: no window eroded
    cache = core_world.cache_folder(str(tmp_path / "out"), "world")
    assert not [n for n in os.listdir(cache) if n.endswith(".npz")]
    assert not [n for n in os.listdir(tmp_path / "out") if n.startswith("world_") and n != "world_world.json"]
