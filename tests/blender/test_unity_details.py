"""Unity detail layers (grass) in the terrain package, in real Blender: a scatter layer with
``unity_detail > 0`` is written as ``<name>_detail<k>.raw`` with core's counts, listed in
``<name>_terrain.json`` with its resolution, headless and from Export for Unity alike."""

import json
import os
import subprocess
import sys

import bpy
import numpy as np

from worldseed.addon import batch
from worldseed.core import recipe as core_recipe
from worldseed.core import scatter as core_scatter
from worldseed.core import unity_package as core_package
from worldseed.operators.bridge import world

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")

TERRAIN = """
[world]
name = "Meadow"
seed = 21

[terrain]
resolution = 65
size = 128.0
height = 25.0
octaves = 4
scale = 60.0
sea_level = 0.2
"""

LAYERS = """
[biomes]
enabled = true

[[splat]]
name = "Ground"
color = [0.2, 0.3, 0.1]
"""

SCATTER = """
[[scatter]]
name = "Rocks"
prop = "rock"
radius = 9.0

[[scatter]]
name = "Grass"
prop = "grass"
radius = 4.0
unity_detail = 3.0
height_range = [6.0, 25.0]

[[scatter]]
name = "Tufts"
prop = "grass"
radius = 6.0
unity_detail = 0.5
"""

EXPORT = """
[export]
fbx = false
heightmap_raw = true
preview = false
placements = true
"""


def _recipe(text):
    return core_recipe.loads(text, source="test")


def _expected(recipe, built):
    """The detail layers core makes of the recipe's scatter over the built terrain's heights and maps."""
    name = built.terrain.name
    layers = built.layers.get(name)
    spec = recipe.terrain
    return core_scatter.detail_layers(
        built.heights[name].metres,
        size=spec.size,
        specs=recipe.scatter,
        sea_level_m=spec.sea_level * spec.height,
        seed=recipe.world.seed,
        maps=None if layers is None else layers.scatter_maps,
    )


def _check_details(folder, expected, name="world"):
    package = json.loads((folder / f"{name}_terrain.json").read_text())
    assert [d["name"] for d in package["details"]] == ["Grass", "Tufts"]
    side = expected[0][1].shape[0]
    assert package["import_settings"]["detail_resolution"] == side
    for k, (detail_name, counts) in enumerate(expected):
        assert package["details"][k]["name"] == detail_name
        entry = package["details"][k]
        assert entry["file"] == f"{name}_detail{k}.raw" and entry["resolution"] == side
        data = (folder / entry["file"]).read_bytes()
        assert len(data) == 2 * side * side  # uint16 a detail cell at the resolution the JSON states
        assert data == core_package.detail_raw16(counts)
        # back to our layout: the counts core made, turned for Unity
        read = np.frombuffer(data, "<u2").reshape(side, side)
        np.testing.assert_array_equal(core_package.unity_map(read), counts)
    assert expected[0][1].sum() > 0 and expected[1][1].sum() > 0  # grass somewhere
    assert not np.array_equal(expected[0][1], expected[1][1])
    return package


def test_a_world_build_writes_the_detail_layers_core_counts(empty_scene, tmp_path):
    recipe = _recipe(TERRAIN + LAYERS + SCATTER + EXPORT)
    built = world.build_world(recipe, scene=empty_scene)
    expected = _expected(recipe, built)
    assert len(expected) == 2
    written = world.write_exports(
        built.roots, str(tmp_path), "world", recipe.export, heights=built.heights, layers=built.layers
    )
    package = _check_details(tmp_path, expected)
    assert package["trees"] == {"file": "world_placements.json"}
    assert (tmp_path / "world_placements.json").is_file()
    # every file written is one the run lists beforehand (so a later run can clear what it no longer writes)
    listed = set(batch.output_paths(recipe, str(tmp_path)))
    assert {os.path.basename(p) for p in written} <= {os.path.basename(p) for p in listed}
    assert {"world_detail0.raw", "world_detail1.raw"} <= {os.path.basename(p) for p in written}


def test_export_for_unity_writes_the_same_detail_layers(empty_scene, tmp_path):
    recipe = _recipe(TERRAIN + LAYERS + SCATTER + EXPORT)
    built = world.build_world(recipe, scene=empty_scene)
    expected = _expected(recipe, built)
    (tmp_path / "ui").mkdir()
    result = bpy.ops.worldseed.export_unity(
        filepath=str(tmp_path / "ui" / "world.fbx"), scope="WORLDSEED", heightmap_raw=True, relief=False
    )
    assert result == {"FINISHED"}
    package = _check_details(tmp_path / "ui", expected)
    assert package["trees"] == {"file": "world_placements.json"}


def test_a_terrain_without_layers_still_gets_its_detail_layers(empty_scene, tmp_path):
    """No erosion, biomes or texture layers: the package holds the detail layers and the JSON alone."""
    recipe = _recipe(TERRAIN + SCATTER + EXPORT.replace("placements = true", "placements = false"))
    built = world.build_world(recipe, scene=empty_scene)
    assert not built.layers
    expected = _expected(recipe, built)
    written = world.write_exports(built.roots, str(tmp_path), "world", recipe.export, heights=built.heights)
    package = _check_details(tmp_path, expected)
    assert package["trees"] is None and package["layers"] == [] and package["flow"] is None
    names = {os.path.basename(p) for p in written}
    assert not any(n.startswith("world_splat") or n == "world_flow.png" for n in names)


def test_no_detail_layer_no_detail_files(empty_scene, tmp_path):
    text = TERRAIN + LAYERS + SCATTER.replace("unity_detail = 3.0", "").replace("unity_detail = 0.5", "") + EXPORT
    recipe = _recipe(text)
    built = world.build_world(recipe, scene=empty_scene)
    world.write_exports(built.roots, str(tmp_path), "world", recipe.export, heights=built.heights, layers=built.layers)
    package = json.loads((tmp_path / "world_terrain.json").read_text())
    assert package["details"] == [] and package["import_settings"]["detail_resolution"] is None
    assert not list(tmp_path.glob("world_detail*"))


def test_headless_run_writes_the_detail_layers_and_a_later_run_removes_them(empty_scene, tmp_path):
    recipe_path = tmp_path / "world.toml"
    recipe_path.write_text(TERRAIN + LAYERS + SCATTER + EXPORT)
    out = tmp_path / "out"

    def run():
        proc = subprocess.run(
            [sys.executable, RUN, "--recipe", str(recipe_path), "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr

    run()
    recipe = _recipe(recipe_path.read_text())
    built = world.build_world(recipe, scene=empty_scene)  # the same recipe in this process
    _check_details(out, _expected(recipe, built))
    recipe_path.write_text(TERRAIN + LAYERS + SCATTER.replace("unity_detail = 0.5", "") + EXPORT)
    run()
    assert (out / "world_detail0.raw").is_file() and not (out / "world_detail1.raw").exists()
    package = json.loads((out / "world_terrain.json").read_text())
    assert [d["name"] for d in package["details"]] == ["Grass"]
