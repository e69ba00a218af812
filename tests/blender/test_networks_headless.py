"""The networks headless and through the sidebar's recipe: Save Sidebar as Recipe holds [rivers] and [roads]
(points included), the headless run builds it into the same bytes Export for Unity writes of the scene
Build Networks made (the carved RAW, the FBX with its rivers and roads, the two JSON files); a later run
without networks removes their files in the same switch."""

import os

import bpy

from worldseed.core import recipe as core_recipe

from ._network_cases import POINTS, RECIPE, networks_sidebar


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
