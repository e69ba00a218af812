"""One world pipeline: the sidebar and the headless run build and export alike (operators.bridge.world)."""

import json
import os

import bpy
import numpy as np
import pytest

from worldseed.core import export as core_export
from worldseed.core import recipe as core_recipe
from worldseed.core import unity as core_unity
from worldseed.operators.bridge import sections, world
from worldseed.operators.bridge import terrain as bridge_terrain
from worldseed.operators.bridge import trees as bridge_trees

RECIPE = """
[world]
name = "Isle"
seed = 5
[terrain]
resolution = 33
size = 96.0
height = 18.0
octaves = 3
sea_level = 0.1
[[trees]]
species = "abop_1_24a"
iterations = 3
variants = 2
[[trees]]
species = "abop_1_24b"
iterations = 3
variants = 2
[[scatter]]
name = "Rocks"
prop = "rock"
variants = 2
radius = 9.0
"""


def _layout(roots):
    """Positions of the trees relative to the first one, in growth order."""
    first = np.array(roots[0].location)
    return np.array([np.array(r.location) - first for r in roots])


def test_world_builds_sections_in_registry_order_and_exports_every_file(empty_scene, tmp_path):
    recipe = core_recipe.loads(RECIPE, source="test")
    built = world.build_world(recipe, scene=empty_scene)
    assert bridge_terrain.is_terrain(built.terrain) and built.roots[0] == built.terrain
    assert all(bridge_trees.is_tree(r) for r in built.roots[1:])
    assert min(r.location.y for r in built.roots[1:]) < -recipe.terrain.size / 2  # in front of the terrain
    assert len(built.roots) == 1 + 4 and len(built.scatters) == 1
    assert sections.adapter("scatter").root(built.terrain) == built.scatters[0]
    spec = core_export.ExportSpec(fbx=True, heightmap_raw=True, preview=True, placements=True)
    written = world.write_exports(built.roots, str(tmp_path), "isle", spec, heights=built.heights)
    names = sorted(os.path.basename(p) for p in written)
    assert names == sorted(
        ["isle.fbx", "isle_placements.json", "relief.png", "isle_heightmap.raw", "isle_heightmap.json"]
    )
    assert names == sorted(os.path.basename(p) for p in world.export_paths(spec, str(tmp_path), "isle"))


def test_export_for_unity_writes_what_the_headless_run_writes(empty_scene, tmp_path):
    """The sidebar's Export for Unity can write the RAW heightmap, the relief map and the placement file,
    with the same content as the headless run's files for the same terrain."""
    recipe = core_recipe.loads(RECIPE, source="test")
    built = world.build_world(recipe, scene=empty_scene)
    headless = tmp_path / "headless"
    headless.mkdir()
    spec = core_export.ExportSpec(fbx=False, heightmap_raw=True, preview=True, placements=True)
    world.write_exports([built.terrain], str(headless), "world", spec, heights=built.heights)
    (tmp_path / "ui").mkdir()
    result = bpy.ops.worldseed.export_unity(
        filepath=str(tmp_path / "ui" / "world.fbx"), scope="WORLDSEED", heightmap_raw=True, relief=True, placements=True
    )
    assert result == {"FINISHED"}
    ui = tmp_path / "ui"
    assert (ui / "world.fbx").stat().st_size > 0
    assert (ui / "world_heightmap.raw").read_bytes() == (headless / "world_heightmap.raw").read_bytes()
    assert json.loads((ui / "world_heightmap.json").read_text()) == json.loads(
        (headless / "world_heightmap.json").read_text()
    )
    assert (ui / "world_relief.png").read_bytes() == (headless / "relief.png").read_bytes()
    ui_places = json.loads((ui / "world_placements.json").read_text())
    assert len(ui_places["scatters"][0]["instances"]) == len(built.scatters[0].data.vertices) > 0
    raw = core_unity.read_raw16((ui / "world_heightmap.raw").read_bytes(), side=33)
    assert raw.shape == (33, 33)


@pytest.mark.parametrize("variants", [1, 3])
def test_grow_forest_and_recipes_lay_trees_out_alike(empty_scene, variants):
    """Grow Forest (sidebar) and [[trees]] (headless) grow the same trees in the same rows and spacing."""
    recipe = core_recipe.loads(
        f'[terrain]\nenabled = false\n[[trees]]\nspecies = "abop_1_24a"\niterations = 3\nvariants = {variants}\n'
        f'[[trees]]\nspecies = "abop_1_24c"\nvariants = {variants}\n',
        source="test",
    )
    headless = world.build_world(recipe, scene=empty_scene).roots
    bpy.context.scene.cursor.location = (0.0, 0.0, 0.0)
    settings = bpy.context.scene.worldseed.trees
    settings.species = "abop_1_24a"
    settings.iterations = 3
    result = bpy.ops.worldseed.forest_add(
        variants=variants, seed=recipe.trees[0].seed, species="abop_1_24a, abop_1_24c", collection_name="UI Forest"
    )
    assert result == {"FINISHED"}
    ui = [o for o in bpy.data.collections["UI Forest"].objects if bridge_trees.is_tree(o)]
    ui.sort(key=lambda o: (-o.location.y, o.location.x))
    headless = sorted(headless, key=lambda o: (-o.location.y, o.location.x))
    assert len(ui) == len(headless) == 2 * variants
    np.testing.assert_allclose(_layout(ui), _layout(headless), atol=1e-4)
