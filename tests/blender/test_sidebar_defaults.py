"""Sidebar defaults an artist clicks first: Build Tiles on the Terrain panel's own default,
tiles named as their files, Make Real saying what it costs, the Trees panel starting from the README's
first species, one progress for a whole headless run.

Real Blender (the bpy module).
"""

import os
import re

import bpy
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.operators import scatter as scatter_ops
from worldseed.operators.bridge import scatter as bridge_scatter

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


def test_build_tiles_takes_the_terrain_panels_default_normalize_and_names_tiles_as_files(empty_scene, tmp_path):
    ws = bpy.context.scene.worldseed
    assert ws.terrain.normalize == "stretch"  # the panel's default, which a tiled world cannot join
    ws.terrain.resolution, ws.terrain.size = 33, 64.0
    ws.world.tiles_x, ws.world.tiles_z = 2, 1
    ws.world.folder, ws.world.file_name = str(tmp_path), "Land"
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}  # was: normalize must be 'fixed', got 'stretch'
    tiles = sorted(o.name for o in bpy.data.objects if o.parent is None)
    files = sorted(n[: -len(".raw")] for n in os.listdir(tmp_path) if n.endswith(".raw"))
    assert tiles == files == ["Land_0_0", "Land_1_0"]  # the scene says what the files say
    assert bpy.ops.worldseed.world_export() == {"FINISHED"}  # finds the tiles by that name
    assert os.path.isfile(tmp_path / "Land_1_0.fbx")


def _default_scatter():
    """The Terrain panel's terrain with the Scatter panel's first layer (its default: broadleaf trees)."""
    assert bpy.ops.worldseed.terrain_add(from_settings=True) == {"FINISHED"}
    bpy.ops.worldseed.scatter_layer_add()
    assert bpy.ops.worldseed.scatter_add() == {"FINISHED"}
    return bpy.context.active_object


def test_make_real_says_the_count_and_the_cost_before_making_many_objects(empty_scene, capfd):
    scatter = _default_scatter()
    count = bridge_scatter.real_object_count(scatter)
    instances = len(scatter.data.vertices)
    assert count > scatter_ops.CONFIRM_OBJECTS and count == 4 * instances  # a tree: a root and 3 LODs
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match=rf"turns {instances:,} instances into {count:,} objects.*many=True"):
        bpy.ops.worldseed.scatter_make_real()  # no window to ask in: a script must say so
    assert len(bpy.data.objects) == before  # nothing made
    lines = scatter_ops.cost_lines(count, instances)
    assert f"{count:,} objects" in lines[0] and re.search(r"About \d+ s", lines[1])
    assert bpy.ops.worldseed.scatter_make_real(many=True) == {"FINISHED"}
    assert len(bpy.data.objects) == before - 1 + count  # the scatter gone, its objects made


def test_make_real_of_a_few_objects_does_not_ask(empty_scene):
    scatter = _default_scatter()
    settings = bpy.context.scene.worldseed.scatter
    settings.layers[0].builtin, settings.layers[0].radius = "rock", 60.0
    bpy.context.view_layer.objects.active = scatter
    assert bpy.ops.worldseed.scatter_update() == {"FINISHED"}
    assert bridge_scatter.real_object_count(scatter) <= scatter_ops.CONFIRM_OBJECTS
    assert bpy.ops.worldseed.scatter_make_real() == {"FINISHED"}


def test_the_trees_panel_starts_from_the_first_species_the_readme_lists(empty_scene):
    with open(README, encoding="utf-8") as f:
        first = re.search(r"game species: (\w+)", f.read()).group(1).lower()
    assert first == "broadleaf"
    assert bpy.context.scene.worldseed.trees.species == first
    assert bpy.ops.worldseed.tree_add() == {"FINISHED"}  # the operator's own default too
    assert bpy.context.active_object.name.lower().startswith(first)


def test_a_headless_run_shows_one_rising_progress_across_its_sections(tmp_path):
    from worldseed.addon import batch

    text = (
        '[world]\nname = "P"\n[terrain]\nresolution = 33\nsize = 64.0\n'
        '[[trees]]\nspecies = "bush"\nname = "B"\n'
        '[[scatter]]\nname = "Rocks"\nprop = "rock"\nradius = 12.0\n'
        '[[level]]\nname = "L"\ngenerator = "cave"\nwidth = 20\nheight = 16\norigin = [100.0, 0.0, 0.0]\n'
    )
    seen = []
    batch.build_world(core_recipe.loads(text), str(tmp_path), progress=lambda d, t, s: seen.append((d, t, s)))
    fractions = [d / t for d, t, _s in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0  # was: 100 % then 17 % at each section
    stages = [s for _d, _t, s in seen]
    first = {k: min(i for i, s in enumerate(stages) if s.startswith(k)) for k in ("trees", "scatter", "level")}
    assert first["trees"] < first["scatter"] < first["level"]  # the sections in the recipe's order
    assert len({t for _d, t, _s in seen}) == 1  # one total for the whole run
