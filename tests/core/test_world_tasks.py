"""Tiled worlds: the plan (tasks, dependencies, order) and running a task in a fresh process."""

import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from core import recipe as core_recipe
from core.errors import ParameterError
from core.world import Task, plan_world, run_task, tile_deps, world_grid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TEXT = """
[world]
seed = 11
tiles = [3, 3]
[terrain]
normalize = "fixed"
resolution = 33
size = 64.0
height = 30.0
scale = 40.0
[terrain.erosion]
enabled = {erosion}
[[splat]]
name = "ground"
[[scatter]]
name = "rocks"
radius = 2.5
"""


def recipe(erosion=True):
    return core_recipe.loads(TEXT.format(erosion=str(erosion).lower()))


def check_order(tasks):
    seen = set()
    for t in tasks:
        assert set(t.deps) <= seen, t
        seen.add(t.key)
    assert len(seen) == len(tasks)


def test_plan_lists_windows_then_tiles_in_a_valid_order():
    r = recipe()
    grid = world_grid(r)
    tasks = plan_world(grid, r)
    check_order(tasks)
    kinds = [t.kind for t in tasks]
    assert kinds.count("window") == 9 and kinds.count("tile") == 9
    by_key = {t.key: t for t in tasks}
    centre = by_key["tile_1_1"]  # colour 3: waits for its 8 neighbours' props and 9 windows
    assert sum(d.startswith("tile_") for d in centre.deps) == 8
    assert sum(d.startswith("window_") for d in centre.deps) == 9
    assert by_key["tile_0_0"].deps == ("window_0_0", "window_0_1", "window_1_0", "window_1_1")
    assert all(t.write for t in tasks)
    assert isinstance(tasks[0], Task) and tasks[0].key.startswith("window_")


def test_plan_without_erosion_has_no_windows():
    r = recipe(erosion=False)
    tasks = plan_world(world_grid(r), r)
    assert [t.kind for t in tasks] == ["tile"] * 9
    check_order(tasks)


def test_colours_only_wait_for_lower_colours():
    grid = world_grid(recipe())
    for x, z in grid.tiles():
        for tx, tz in tile_deps(grid, x, z):
            assert grid.colour(tx, tz) < grid.colour(x, z)
            assert max(abs(tx - x), abs(tz - z)) == 1
    assert tile_deps(grid, 0, 0) == []


def test_plan_of_a_subset_pulls_in_its_dependencies_without_writing_them():
    r = recipe()
    grid = world_grid(r)
    tasks = plan_world(grid, r, tiles=[(1, 1)])
    check_order(tasks)
    tiles = {t.tile: t.write for t in tasks if t.kind == "tile"}
    assert tiles[(1, 1)] is True
    assert sum(tiles.values()) == 1 and len(tiles) == 9  # its 8 neighbours (and theirs: inside them)
    done = plan_world(grid, r, tiles=[(0, 0), (1, 0)], done=[(0, 0)])
    assert [t.tile for t in done if t.kind == "tile" and t.write] == [(1, 0)]
    assert {t.tile for t in done if t.kind == "tile" and not t.write} == {(0, 0), (2, 0)}  # colour 0 both
    with pytest.raises(ParameterError, match=r"tiles: \(3, 0\) is outside the 3 x 3 grid"):
        plan_world(grid, r, tiles=[(3, 0)])


SCRIPT = """
import os, pickle, sys
sys.path.insert(0, {root!r})
from core import recipe as core_recipe
from core.world import plan_world, run_task, world_grid
text, out = sys.argv[1], sys.argv[2]
r = core_recipe.loads(open(text).read())
g = world_grid(r)
results = {{}}
for t in plan_world(g, r, tiles=[(1, 0)]):
    results[t.key] = run_task(t, recipe=r, grid=g, out_dir=out, name="world",
                              cache_dir=os.path.join(out, ".cache"), deps={{k: results[k] for k in t.deps}})
sys.stdout.buffer.write(pickle.dumps(results))
assert "bpy" not in sys.modules
"""


def test_a_fresh_process_from_toml_text_writes_the_same_bytes(tmp_path):
    r = recipe()
    text = tmp_path / "world.toml"
    text.write_text(core_recipe.dumps(r))
    script = tmp_path / "run.py"
    script.write_text(SCRIPT.format(root=ROOT))
    outs = []
    for k in range(2):
        out = tmp_path / f"out{k}"
        done = subprocess.run([sys.executable, str(script), str(text), str(out)], capture_output=True, check=True)
        outs.append(pickle.loads(done.stdout))
    a, b = outs
    assert a["tile_1_0"]["files"] == b["tile_1_0"]["files"]
    names = {f["name"] for f in a["tile_1_0"]["files"]}
    content = json.loads((tmp_path / "out0" / "world_1_0_terrain.json").read_text())
    assert content["import_settings"]["terrain_position"] == [64.0, 0.0, 0.0]  # Unity (x S, 0, z S)
    assert {"world_1_0.raw", "world_1_0_terrain.json", "world_1_0_splat0.png", "world_1_0_placements.json"} <= names
    # only the chosen tile writes files; the others were built for their props only
    assert all(not res["files"] for key, res in a.items() if key.startswith("tile_") and key != "tile_1_0")
    # results stay small (they travel between processes)
    assert max(len(pickle.dumps(res)) for res in a.values()) < 1 << 20
    # and the same bytes in this process too
    grid, results = world_grid(r), {}
    for t in plan_world(grid, r, tiles=[(1, 0)]):
        results[t.key] = run_task(
            t,
            recipe=r,
            grid=grid,
            out_dir=str(tmp_path / "here"),
            name="world",
            cache_dir=str(tmp_path / "here" / ".cache"),
            deps={k: results[k] for k in t.deps},
        )
    assert results["tile_1_0"]["files"] == a["tile_1_0"]["files"]


def test_tile_result_and_files(tmp_path):
    r = recipe()
    grid, results = world_grid(r), {}
    for t in plan_world(grid, r, tiles=[(0, 0)]):
        results[t.key] = run_task(
            t,
            recipe=r,
            grid=grid,
            out_dir=str(tmp_path),
            name="w",
            cache_dir=str(tmp_path / ".c"),
            deps={k: results[k] for k in t.deps},
        )
    res = results["tile_0_0"]
    assert res["key"] == "tile_0_0" and res["kind"] == "tile" and res["tile"] == (0, 0)
    lo, hi = res["relief"]
    assert 0.0 <= lo < hi <= 30.0
    assert res["ledger"]["eroded_m3"] > 0.0
    for f in res["files"]:
        assert os.path.getsize(tmp_path / f["name"]) == f["bytes"]
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".") and n != ".c"]  # no temporary files left
    content = json.loads((tmp_path / "w_0_0_terrain.json").read_text())
    assert content["heightmap"]["file"] == "w_0_0.raw"
    assert content["import_settings"]["terrain_position"] == [0.0, 0.0, 0.0]
    assert content["erosion"]["ledger"]["eroded"] == res["ledger"]["eroded_m3"] > 0.0
    raw = np.frombuffer((tmp_path / "w_0_0.raw").read_bytes(), "<u2")
    assert raw.size == 33 * 33
    placements = json.loads((tmp_path / "w_0_0_placements.json").read_text())
    scatter = placements["scatters"][0]
    assert scatter["terrain"]["name"] == "World_0_0" and scatter["terrain"]["position"] == [0.0, 0.0, 0.0]
    xs = [rec["position"][0] for rec in scatter["instances"]]
    zs = [rec["position"][2] for rec in scatter["instances"]]
    assert xs and 0.0 <= min(xs) and max(xs) <= 64.0 and 0.0 <= min(zs) and max(zs) <= 64.0
    assert res["border"]["xy"].shape[1] == 2 and res["border"]["layer"].dtype == np.int16


def test_bad_task_kind():
    r = recipe()
    with pytest.raises(ParameterError, match="task.kind"):
        run_task(Task("x", "mesh", (0, 0)), recipe=r, grid=world_grid(r), out_dir=".", name="w", cache_dir=".", deps={})


def test_a_window_already_cached_is_kept_and_a_stale_one_rebuilt(tmp_path):
    r = recipe()
    grid = world_grid(r)
    task = Task("window_1_1", "window", (1, 1))
    cache = str(tmp_path / "c")
    first = run_task(task, recipe=r, grid=grid, out_dir=str(tmp_path), name="w", cache_dir=cache, deps={})
    stamp = os.stat(first["path"]).st_mtime_ns
    again = run_task(task, recipe=r, grid=grid, out_dir=str(tmp_path), name="w", cache_dir=cache, deps={})
    assert again["path"] == first["path"] and os.stat(first["path"]).st_mtime_ns == stamp
    other = core_recipe.replace(r, world_seed=12)
    data = open(first["path"], "rb").read()
    run_task(task, recipe=other, grid=grid, out_dir=str(tmp_path), name="w", cache_dir=cache, deps={})
    assert open(first["path"], "rb").read() != data  # another recipe's window is not reused
