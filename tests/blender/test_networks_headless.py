"""The networks headless and through the sidebar's recipe: Save Sidebar as Recipe holds [rivers] and [roads]
(points included), the headless run builds it into the same bytes Export for Unity writes of the scene
Build Networks made (the carved RAW, the FBX with its rivers and roads, the two JSON files); a later run
without networks removes their files in the same switch."""

import json
import os

import bpy
import numpy as np

from worldseed.core import recipe as core_recipe

from ._network_cases import POINTS, RECIPE, TILED, networks_sidebar, read_fbx


def _files(folder):
    return {n: (folder / n).read_bytes() for n in sorted(os.listdir(folder)) if (folder / n).is_file()}


def test_sidebar_to_recipe_to_headless_equals_build_networks_and_export_byte_for_byte(empty_scene, tmp_path):
    from worldseed.addon import batch

    ws = networks_sidebar()
    ws.export.fbx, ws.export.heightmap_raw = True, True
    ws.export.glb = ws.export.render = ws.export.preview = False
    assert bpy.ops.worldseed.networks_build() == {"FINISHED"}
    ui, headless = tmp_path / "ui", tmp_path / "headless"
    ui.mkdir()
    result = bpy.ops.worldseed.export_unity(filepath=str(ui / "world.fbx"), formats="FBX", heightmap_raw=True)
    assert result == {"FINISHED"}
    path = tmp_path / "sidebar.toml"
    assert bpy.ops.worldseed.recipe_save(filepath=str(path), trees=False, scatter=False, level=False) == {"FINISHED"}
    recipe = core_recipe.load(str(path))
    assert recipe.rivers.enabled and recipe.roads.enabled and recipe.roads.points == tuple(map(tuple, POINTS))
    assert recipe.rivers == core_recipe.loads(RECIPE).rivers and recipe.roads == core_recipe.loads(RECIPE).roads
    bpy.ops.wm.read_homefile(use_empty=True)
    assert batch.main(["--recipe", str(path), "--out", str(headless)]) == 0
    ours, theirs = _files(ui), _files(headless)
    assert {"world_rivers.json", "world_roads.json", "world_heightmap.raw", "world.fbx"} <= set(ours)
    assert set(theirs) - set(ours) == {"world.blend"}
    differ = [name for name in ours if ours[name] != theirs[name]]
    assert not differ, differ
    # the RAW heightmap is the carved terrain's (not the noise's)
    from worldseed.core import terrain as core_terrain
    from worldseed.core import unity as core_unity

    plain = core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed)
    layers = core_terrain.terrain_layers(
        plain, terrain_spec=recipe.terrain, seed=recipe.world.seed, rivers_spec=recipe.rivers, roads_spec=recipe.roads
    )
    for values, same in ((layers.heights.values, True), (plain.values, False)):
        raw = core_unity.heightmap_raw16(core_unity.unity_heights(values), byte_order="little")
        assert (raw == theirs["world_heightmap.raw"]) is same


def test_a_run_without_networks_removes_their_files_and_lists_them_when_on(empty_scene, tmp_path):
    from worldseed.addon import batch

    recipe = core_recipe.loads(RECIPE)
    listed = {os.path.basename(p) for p in batch.output_paths(recipe, str(tmp_path), name="vale")}
    assert {"vale_rivers.json", "vale_roads.json"} <= listed
    path = tmp_path / "r.toml"
    path.write_text(RECIPE)
    out = tmp_path / "out"
    assert batch.main(["--recipe", str(path), "--out", str(out), "--name", "vale"]) == 0
    assert {"vale_rivers.json", "vale_roads.json"} <= set(os.listdir(out))
    blend = bpy.data.objects  # the .blend's scene: the terrain with its networks and curves
    assert {"Vale_Rivers", "Vale_Roads", "Vale_RoadCurves"} <= {o.name for o in blend}
    path.write_text(RECIPE.replace("enabled = true", "enabled = false"))
    assert batch.main(["--recipe", str(path), "--out", str(out), "--name", "vale"]) == 0
    left = set(os.listdir(out))
    assert not {"vale_rivers.json", "vale_roads.json"} & left
    assert "vale.fbx" in left


def test_a_tiled_world_headless_writes_each_tiles_part_of_the_networks(empty_scene, tmp_path):
    from worldseed.addon import batch
    from worldseed.core import unity as core_unity

    path = tmp_path / "delta.toml"
    path.write_text(TILED)
    out = tmp_path / "out"
    assert batch.main(["--recipe", str(path), "--out", str(out), "--name", "delta"]) == 0
    doc = json.loads((out / "delta_world.json").read_text())
    # the whole world's graphs, listed with the world's own files
    assert {"delta_rivers.json", "delta_roads.json"} <= {f["name"] for f in doc["files"]}
    whole = json.loads((out / "delta_roads.json").read_text())
    assert [n["kind"] for n in whole["nodes"]].count("point") == 4
    for tile in doc["tiles"]:
        x, z = tile["x"], tile["z"]
        names = {f["name"] for f in tile["files"]}
        assert {f"delta_{x}_{z}_rivers.json", f"delta_{x}_{z}_roads.json", f"delta_{x}_{z}.fbx"} <= names
        for kind in ("rivers", "roads"):
            data = json.loads((out / f"delta_{x}_{z}_{kind}.json").read_text())
            assert data["format"] == f"worldseed.{kind}" and data["name"] == f"delta_{x}_{z}"
    # each tile's FBX holds its part of the rivers and roads, where its JSON says (Unity frame, metres)
    for x, z in [(0, 0), (1, 0)]:
        nodes = read_fbx(out / f"delta_{x}_{z}.fbx")
        assert nodes[f"Delta_{x}_{z}_Rivers"]["parent"] == f"Delta_{x}_{z}"
        ribbon = nodes[f"Delta_{x}_{z}_Roads"]["vertices"]
        roads = json.loads((out / f"delta_{x}_{z}_roads.json").read_text())
        half = roads["classes"]["trail"]["width"] / 2 + 0.1
        pts = np.array([p for e in roads["edges"] for p in e["points"]])
        d = np.hypot(pts[:, None, 0] - ribbon[None, :, 0], pts[:, None, 2] - ribbon[None, :, 2])
        assert len(pts) > 10 and d.min(1).max() <= half
        assert np.abs(ribbon[d.argmin(1), 1] - pts[:, 1]).max() < 1.0
    # the carved tiles join: tile (1, 0) stands at Unity +X of tile (0, 0), their RAW heightmaps share that edge
    side = 65
    raw = {
        t: core_unity.read_raw16((out / f"delta_{t[0]}_{t[1]}.raw").read_bytes(), side=side) for t in [(0, 0), (1, 0)]
    }
    assert np.array_equal(raw[0, 0][:, -1], raw[1, 0][:, 0])
    assert not np.array_equal(raw[0, 0], raw[1, 0])
    # the same world without networks: their files go in the run's switch
    path.write_text(TILED.replace("enabled = true", "enabled = false"))
    assert batch.main(["--recipe", str(path), "--out", str(out), "--name", "delta"]) == 0
    left = set(os.listdir(out))
    assert not {n for n in left if n.endswith(("_rivers.json", "_roads.json"))}
    assert "delta_0_0.raw" in left


def test_an_eroded_tiled_world_headless_plans_its_networks_on_the_eroded_heights(empty_scene, tmp_path):
    """Erosion with rivers and roads in a tiled world (once refused): the headless run erodes every
    window, plans the networks once on the stitched eroded heights and every tile carves its part; the
    whole graphs it writes are the plan the tiles carved, and the RAW tiles still join."""
    from worldseed.addon import batch
    from worldseed.core import rivers as core_rivers
    from worldseed.core import unity as core_unity
    from worldseed.core import world as core_world

    text = TILED.replace("[rivers]", "[terrain.erosion]\nenabled = true\n[rivers]")
    path = tmp_path / "delta.toml"
    path.write_text(text)
    out = tmp_path / "out"
    assert batch.main(["--recipe", str(path), "--out", str(out), "--name", "delta"]) == 0
    doc = json.loads((out / "delta_world.json").read_text())
    assert {"delta_rivers.json", "delta_roads.json"} <= {f["name"] for f in doc["files"]}
    assert all(t["complete"] for t in doc["tiles"]) and len(doc["tiles"]) == 4
    # the world's graphs are the plan made on the eroded heights the cache keeps
    recipe = core_recipe.loads(text)
    grid = core_world.world_grid(recipe)
    cache = core_world.cache_folder(str(out), "delta")
    assert sorted(os.listdir(cache)) == ["recipe.sha256", "world_heights.npz"]
    nets = core_world.world_networks(recipe, grid, core_world.recipe_digest(recipe), cache)
    want = core_rivers.rivers_json_bytes(nets.rivers, name="delta", origin=nets.origin)
    assert (out / "delta_rivers.json").read_bytes() == want
    ids = {
        s["id"]
        for x, z in grid.tiles()
        for s in json.loads((out / f"delta_{x}_{z}_rivers.json").read_text())["segments"]
    }
    # every segment of two points or more is in some tile, with the world's ids (a one-point segment at
    # the world's edge is in none, as without erosion)
    assert {s["id"] for s in json.loads(want)["segments"] if len(s["points"]) > 1} <= ids
    side = 65
    raw = {t: core_unity.read_raw16((out / f"delta_{t[0]}_{t[1]}.raw").read_bytes(), side=side) for t in grid.tiles()}
    assert np.array_equal(raw[0, 0][:, -1], raw[1, 0][:, 0]) and np.array_equal(raw[0, 0][-1], raw[0, 1][0])


def test_a_tiled_world_built_in_two_runs_keeps_the_whole_graphs_the_first_run_wrote(empty_scene, tmp_path):
    """Found trying the product: ``--tiles`` for half the world, then the rest; the second run removed the
    whole world's ``<name>_rivers.json`` / ``_roads.json`` as a single run's names while the world JSON
    still listed them.  They stay, the same bytes as one run's."""
    from worldseed.addon import batch

    path = tmp_path / "delta.toml"
    path.write_text(TILED)
    whole, split = tmp_path / "whole", tmp_path / "split"
    assert batch.main(["--recipe", str(path), "--out", str(whole), "--name", "delta"]) == 0
    args = ["--recipe", str(path), "--out", str(split), "--name", "delta"]
    assert batch.main([*args, "--tiles", "0:1,0:2"]) == 0
    assert batch.main(args) == 0
    doc = json.loads((split / "delta_world.json").read_text())
    for name in ("delta_rivers.json", "delta_roads.json"):
        assert name in {f["name"] for f in doc["files"]}
        assert (split / name).read_bytes() == (whole / name).read_bytes()
