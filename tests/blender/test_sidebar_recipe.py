"""Save Sidebar as Recipe: the whole sidebar (every section, texture layers and levels included) as a TOML
recipe that the headless run builds into the same bytes as Export for Unity writes of the scene the
sidebar's buttons built.

Real Blender (the bpy module): the sidebar's settings are set, its buttons build the scene, Export for
Unity writes its files; the recipe is saved, the scene reset, ``addon.batch.main`` builds the recipe;
every file both write is compared byte for byte.
"""

import os

import bpy
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core.errors import ParameterError
from worldseed.operators.bridge import sections
from worldseed.operators.bridge import trees as bridge_trees

SEED = 5


def _sidebar():
    """Every panel set: a terrain with biomes and two texture layers, a rock scatter (the world's seed),
    a tree, a cave level away from the terrain, and the recipe's [export]."""
    ws = bpy.context.scene.worldseed
    terrain = ws.terrain
    terrain.name, terrain.seed, terrain.resolution, terrain.size, terrain.height = "Vale", SEED, 65, 128.0, 30.0
    terrain.lods, terrain.biomes_enabled = 2, True
    bpy.ops.worldseed.splat_layer_add()
    bpy.ops.worldseed.splat_layer_add()
    terrain.splats[1].name, terrain.splats[1].slope_range = "Rock", (25.0, 90.0)
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    ws.scatter.layers[0].radius = 16.0  # a few dozen rocks: Export for Unity runs at once
    ws.scatter.seed = SEED
    ws.trees.species, ws.trees.variants = "bush", 2
    level = ws.level
    level.generator, level.name, level.width, level.height, level.seed = "cave", "Grotto", 24, 20, 3
    for name in ("fbx", "placements", "heightmap_raw", "preview"):
        setattr(ws.export, name, True)
    ws.export.render = ws.export.glb = False
    return ws


def _build_with_the_buttons(ws):
    """The scene as the sidebar's buttons make it, in the recipe's order: the forest (Grow Forest) moved
    where a recipe's stands (in front of the terrain), the level added at the 3D cursor."""
    assert bpy.ops.worldseed.terrain_add(from_settings=True) == {"FINISHED"}
    terrain = bpy.context.active_object
    assert bpy.ops.worldseed.scatter_add() == {"FINISHED"}
    bpy.context.scene.cursor.location = (0.0, 0.0, 0.0)
    assert bpy.ops.worldseed.forest_add(from_settings=True) == {"FINISHED"}
    trees = [o for o in bpy.data.collections["Forest"].objects if bridge_trees.is_tree(o)]
    assert len(trees) == 2
    gap = ws.terrain.size / 2 + max(bridge_trees.crown_width(t) for t in trees) + bridge_trees.TREE_GAP
    for tree in trees:
        tree.location.y -= gap
    bpy.context.scene.cursor.location = (200.0, 40.0, 0.0)
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    bpy.context.view_layer.update()
    return terrain


def _files(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                out[name] = f.read()
    return out


def test_sidebar_to_recipe_to_headless_equals_sidebar_to_export_byte_for_byte(empty_scene, tmp_path):
    from worldseed.addon import batch

    ws = _sidebar()
    _build_with_the_buttons(ws)
    ui, headless = tmp_path / "ui", tmp_path / "headless"
    ui.mkdir()
    result = bpy.ops.worldseed.export_unity(
        filepath=str(ui / "world.fbx"), formats="FBX", placements=True, heightmap_raw=True, relief=True
    )
    assert result == {"FINISHED"}
    path = tmp_path / "sidebar.toml"
    assert bpy.ops.worldseed.recipe_save(filepath=str(path)) == {"FINISHED"}
    recipe = core_recipe.load(str(path))
    assert (len(recipe.splat), len(recipe.scatter), len(recipe.trees), len(recipe.level)) == (2, 1, 1, 1)
    assert recipe.biomes.enabled and recipe.level[0].origin == (200.0, 40.0, 0.0)
    bpy.ops.wm.read_homefile(use_empty=True)  # the headless run starts from nothing
    assert batch.main(["--recipe", str(path), "--out", str(headless)]) == 0
    ours, theirs = _files(ui), _files(headless)
    ours["relief.png"] = ours.pop("world_relief.png")  # Export for Unity names it after the file
    assert set(theirs) - set(ours) == {"world.blend"}
    assert set(ours) <= set(theirs)
    assert len(ours) >= 12  # FBX, placements, relief, RAW + JSON, the terrain package, the level's files
    differ = [name for name in ours if ours[name] != theirs[name]]
    assert not differ, differ


def test_the_recipe_holds_the_families_chosen_and_a_terrain_left_out_is_off(empty_scene, tmp_path):
    ws = _sidebar()
    path = tmp_path / "levels only"
    result = bpy.ops.worldseed.recipe_save(filepath=str(path), terrain=False, trees=False, scatter=False)
    assert result == {"FINISHED"}
    recipe = core_recipe.load(str(path) + ".toml")  # .toml added
    assert not recipe.terrain.enabled and recipe.trees == () and recipe.scatter == ()
    assert [lv.name for lv in recipe.level] == ["Grotto"] and recipe.world.name == "Vale"
    assert recipe == sections.recipe_from_sidebar(bpy.context.scene, sections={"level"})
    assert [n for n in os.listdir(tmp_path) if n.startswith(".")] == []  # written through a temporary, renamed
    ws.level.geometry = "KIT"
    with pytest.raises(ParameterError, match="set Geometry to Mesh"):
        sections.recipe_from_sidebar(bpy.context.scene)


def test_a_recipe_path_stays_a_toml_file_in_an_existing_folder(empty_scene, tmp_path):
    _sidebar()
    target = tmp_path / "elsewhere.toml"
    target.write_text("kept")
    (tmp_path / "link.toml").symlink_to(target)
    (tmp_path / "folder.toml").mkdir()
    for bad, words in (
        (tmp_path / "link.toml", "is a link"),
        (tmp_path / "notes.txt", "must end in .toml"),
        (tmp_path / "missing" / "r.toml", "does not exist"),
        (tmp_path / "folder.toml", "is a folder"),
    ):
        with pytest.raises(RuntimeError, match=words):
            bpy.ops.worldseed.recipe_save(filepath=str(bad))
    assert target.read_text() == "kept"


def test_a_scatter_seed_a_recipe_cannot_hold_is_said(empty_scene, tmp_path, capfd):
    ws = _sidebar()
    ws.scatter.seed = SEED + 1
    assert bpy.ops.worldseed.recipe_save(filepath=str(tmp_path / "r.toml")) == {"FINISHED"}
    assert "scatters with the world's seed" in capfd.readouterr().out
