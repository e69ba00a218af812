"""Rivers and roads in an ERODED tiled world (core.world): the windows are eroded first, the world's
eroded heights are the tiles' stitched heights side by side (the ``world`` task writes them into the
cache), the networks are planned once on them and every tile carves its part.  Every tile equals the
world's eroded heights carved whole, a river or road crossing a seam has the same points and heights
in both tiles' files and RAW heights, erosion really happened, and the bytes are the same whichever
order (serial, threads, a subset of tiles then the rest) and whichever process makes the plan."""

import os
import subprocess
import sys

import numpy as np
import pytest

from core import recipe as core_recipe
from core import rivers, roads
from core import world as core_world
from core.world import _networks

from ._network_cases import ERODED_WORLD as TILED
from ._network_cases import seam_crossings
from ._world_cases import digests, run_tasks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tile_files(folder):
    """``{name: sha256}`` of a world's tile files (not its world JSON, which records timings)."""
    return {k: v for k, v in digests(folder).items() if not k.endswith("_world.json")}


def raw(folder, x, z, n):
    with open(os.path.join(folder, f"delta_{x}_{z}.raw"), "rb") as fh:
        return np.frombuffer(fh.read(), "<u2").reshape(n, n)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    recipe = core_recipe.loads(TILED)
    grid = core_world.world_grid(recipe)
    out = tmp_path_factory.mktemp("serial")
    run = core_world.run_world(recipe, str(out), name="delta")
    return recipe, grid, str(out), run


def test_an_eroded_tiled_world_with_rivers_and_roads_builds(built):
    recipe, grid, out, run = built
    assert run.complete and sorted(run.built) == sorted(grid.tiles())
    listed = {f["name"] for t in run.document["tiles"] for f in t["files"]}
    for x, z in grid.tiles():
        assert {f"delta_{x}_{z}_rivers.json", f"delta_{x}_{z}_roads.json", f"delta_{x}_{z}.raw"} <= listed
    # complete: the cache keeps the plan's heights only (the windows and borders are gone)
    assert sorted(os.listdir(core_world.cache_folder(out, "delta"))) == ["recipe.sha256", "world_heights.npz"]


def test_rivers_and_roads_cross_the_seams_at_the_same_points_and_heights(built):
    recipe, grid, out, _run = built
    assert seam_crossings(out, "delta", recipe.terrain.size) >= 2  # something crosses the x seam
    n = grid.resolution
    for x, z in grid.tiles():  # the RAW heights of the shared border samples: the same bits
        if grid.contains(x + 1, z):
            assert raw(out, x, z, n)[:, -1].tobytes() == raw(out, x + 1, z, n)[:, 0].tobytes()
        if grid.contains(x, z + 1):
            assert raw(out, x, z, n)[-1].tobytes() == raw(out, x, z + 1, n)[0].tobytes()


def test_every_tile_is_the_eroded_world_carved_whole_and_erosion_happened(built, tmp_path):
    recipe, grid, out, _run = built
    tasks = core_world.plan_world(grid, recipe)
    run_tasks(recipe, grid, tmp_path, tasks)  # the task by task run keeps its windows in tmp_path/.cache
    cache = str(tmp_path / ".cache")
    named = {k.replace("delta_", "world_"): v for k, v in tile_files(out).items() if k.endswith((".raw", ".png"))}
    assert {k: v for k, v in tile_files(tmp_path).items() if k in named} == named and len(named) == 8
    top = recipe.terrain.height
    h = core_world.world_heights(recipe, grid, cache)
    bare = core_recipe.loads(TILED.replace("[terrain.erosion]\nenabled = true\n", ""))
    base = core_world.world_heights(bare, grid)
    moved = np.abs(h - base)
    assert moved.max() > 0.05 and (moved > 1e-3).mean() > 0.2  # erosion really reshaped the plan's ground
    nets = core_world.world_networks(recipe, grid, core_world.recipe_digest(recipe), cache)
    assert nets.rivers.segment_count > 3 and len(nets.roads.edges) >= 3
    whole = rivers.carve_rivers(h, nets.rivers, carve=recipe.rivers.carve, reach=recipe.rivers.water_reach)
    road_whole = roads.carve_roads(whole.heights, nets.roads)
    want = np.clip(road_whole.heights / top, 0.0, 1.0).astype(np.float32)
    base_nets = core_world.world_networks(bare, grid, core_world.recipe_digest(bare))
    base_carved = roads.carve_roads(rivers.carve_rivers(base, base_nets.rivers).heights, base_nets.roads).heights
    assert np.abs(road_whole.heights - base_carved).max() > 0.05  # the carved heights are not the un-eroded plan's
    n = grid.resolution
    for x, z in grid.tiles():
        tile = core_world.tile_layers(recipe, grid, x, z, cache_dir=cache)
        r0, c0 = grid.origin(x, z)
        win = (slice(r0, r0 + n), slice(c0, c0 + n))
        assert np.array_equal(tile.heights.values, want[win]), (x, z)
        assert np.array_equal(tile.roads.maps.road, road_whole.road[win]), (x, z)
        assert np.array_equal(tile.rivers.maps.water, whole.water[win]), (x, z)
        assert tile.ledger is not None and tile.ledger["eroded"] > 0.0  # the tile shows the erosion moved


def test_the_same_bytes_with_threads_and_with_a_subset_of_tiles_first(built, tmp_path):
    recipe, _grid, out, _run = built
    reference = tile_files(out)
    threads = tmp_path / "threads"
    with core_world.ThreadExecutor(2) as ex:
        core_world.run_world(recipe, str(threads), name="delta", executor=ex)
    assert tile_files(threads) == reference
    parts = tmp_path / "parts"
    first = core_world.run_world(recipe, str(parts), name="delta", tiles="1:2,0:2")
    assert sorted(first.built) == [(1, 0), (1, 1)] and not first.complete
    cache = core_world.cache_folder(str(parts), "delta")
    assert os.path.isfile(os.path.join(cache, "world_heights.npz"))
    _networks._KEPT.clear()  # as another process: the plan comes again from the cached heights
    rest = core_world.run_world(recipe, str(parts), name="delta")
    assert sorted(rest.built) == [(0, 0), (0, 1)] and rest.complete
    assert tile_files(parts) == reference


def test_another_process_and_a_lost_cache_make_the_same_plan(built):
    recipe, grid, out, _run = built
    digest = core_world.recipe_digest(recipe)
    cache = core_world.cache_folder(out, "delta")
    here = core_world.world_networks(recipe, grid, digest, cache)
    want = rivers.rivers_json_bytes(here.rivers, name="w", origin=here.origin) + roads.roads_json_bytes(
        here.roads, name="w", origin=here.origin
    )
    script = (
        "import hashlib, sys\n"
        "from core import recipe as R, rivers, roads, world as W\n"
        "r = R.loads(sys.stdin.read())\n"
        "g = W.world_grid(r)\n"
        f"n = W.world_networks(r, g, W.recipe_digest(r), {cache!r})\n"
        "b = rivers.rivers_json_bytes(n.rivers, name='w', origin=n.origin)\n"
        "b += roads.roads_json_bytes(n.roads, name='w', origin=n.origin)\n"
        "print(hashlib.sha256(b).hexdigest())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=TILED, capture_output=True, text=True, cwd=ROOT, check=True
    )
    import hashlib

    assert done.stdout.strip() == hashlib.sha256(want).hexdigest()
    os.remove(os.path.join(cache, "world_heights.npz"))  # the cache lost: the windows are made again
    _networks._KEPT.clear()
    again = core_world.world_networks(recipe, grid, digest, cache)
    got = rivers.rivers_json_bytes(again.rivers, name="w", origin=again.origin) + roads.roads_json_bytes(
        again.roads, name="w", origin=again.origin
    )
    assert got == want
