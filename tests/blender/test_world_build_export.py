"""Tiled worlds in Blender: Export World for Unity (an FBX per tile, its LOD group, the
world JSON), the headless export, and Export for Unity of the tiles and their props.

ufbx reads the FBX in a Python of its own (``fbx_nodes`` of _world_cases.py).
"""

import json
import os

import bpy
import pytest

from worldseed.core import world as core_world
from worldseed.operators import world as world_ops
from worldseed.operators.bridge import world_build, world_export

from ._world_cases import SIDE, SIZE, fbx_nodes, panel_world, snapshot, world_recipe, write_tile_heights


def test_tile_fbx_has_rotation_zero_scale_one_and_the_tile_extent(empty_scene, tmp_path):
    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path), tiles=((1, 0),))
    made = world_build.assemble_tiles(recipe, str(tmp_path), "world", [(1, 0)], collection=empty_scene.collection)
    before = snapshot()
    path = world_export.export_tile_fbx(made[(1, 0)], str(tmp_path / "world_1_0.fbx"))
    assert snapshot() == before
    nodes = fbx_nodes(path)
    assert list(nodes) == ["Land_1_0"]
    t, r, s, box = nodes["Land_1_0"]
    assert r == [0.0, 0.0, 0.0, 1.0] and s == [1.0, 1.0, 1.0]
    # Blender (x, y, z) is the file's (x, z, -y); Unity then flips X: the tile lands at Unity x in [S, 2S]
    assert t == pytest.approx([-1.5 * SIZE, 0.0, 0.5 * SIZE])
    (x0, _y0, z0), (x1, _y1, z1) = box
    assert (x1 - x0, z1 - z0) == pytest.approx((SIZE, SIZE))


def test_export_tile_fbx_assembles_a_tile_from_its_files(empty_scene, tmp_path):
    """The headless run's way: a tile given as (x, z) is assembled, written and removed again."""
    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path), tiles=((0, 1),))
    before = snapshot()
    path = world_export.export_tile_fbx(
        (0, 1), str(tmp_path / "world_0_1.fbx"), recipe=recipe, folder=str(tmp_path), name="world"
    )
    assert snapshot() == before
    assert list(fbx_nodes(path)) == ["Land_0_1"]


def test_a_tile_with_lods_exports_its_lod_group(empty_scene, tmp_path):
    recipe = world_recipe(lods=3)
    write_tile_heights(recipe, str(tmp_path), tiles=((1, 1),))
    made = world_build.assemble_tiles(recipe, str(tmp_path), "world", [(1, 1)], collection=empty_scene.collection)
    assert [c.hide_get() for c in sorted(made[(1, 1)].children, key=lambda o: o.name)] == [False, True, True]
    nodes = fbx_nodes(world_export.export_tile_fbx(made[(1, 1)], str(tmp_path / "world_1_1.fbx")))
    assert sorted(nodes) == ["Land_1_1", "Land_1_1_LOD0", "Land_1_1_LOD1", "Land_1_1_LOD2"]
    assert nodes["Land_1_1"][0] == pytest.approx([-1.5 * SIZE, 0.0, 1.5 * SIZE])
    for level, side in enumerate((SIDE, 33, 17)):
        t, r, s, box = nodes[f"Land_1_1_LOD{level}"]
        assert t == [0.0, 0.0, 0.0] and r == [0.0, 0.0, 0.0, 1.0] and s == [1.0, 1.0, 1.0]
        (x0, _y0, z0), (x1, _y1, z1) = box
        assert (x1 - x0, z1 - z0) == pytest.approx((SIZE, SIZE)), side


def test_export_world_writes_an_fbx_per_tile_and_the_world_json(empty_scene, tmp_path):
    panel_world(tmp_path)
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    before = snapshot()
    assert bpy.ops.worldseed.world_export() == {"FINISHED"}
    assert snapshot() == before
    fbx = sorted(p.name for p in tmp_path.glob("*.fbx"))
    assert fbx == ["world_0_0.fbx", "world_0_1.fbx", "world_1_0.fbx", "world_1_1.fbx"]
    document = core_world.read_world_json(str(tmp_path / "world_world.json"))
    for tile in document["tiles"]:
        files = {f["name"]: f for f in tile["files"]}
        record = files[f"world_{tile['x']}_{tile['z']}.fbx"]
        assert record == core_world.file_record(str(tmp_path / record["name"]))
        assert f"world_{tile['x']}_{tile['z']}.raw" in files
    # the FBX listed, the tiles still verify: a resumed run skips them all
    assert sorted(core_world.verify_tiles(str(tmp_path), document)) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    nodes = fbx_nodes(tmp_path / "world_1_0.fbx")
    assert list(nodes) == ["world_1_0"]
    t, r, s, box = nodes["world_1_0"]
    assert r == [0.0, 0.0, 0.0, 1.0] and s == [1.0, 1.0, 1.0]
    assert t == pytest.approx([-1.5 * SIZE, 0.0, 0.5 * SIZE])
    (x0, _y0, z0), (x1, _y1, z1) = box
    assert (x1 - x0, z1 - z0) == pytest.approx((SIZE, SIZE))


def test_the_headless_export_writes_the_same_files_as_the_sidebar(empty_scene, tmp_path):
    """``[export] fbx`` of a world run without Blender objects (what ``worldseed_run.py`` does after the
    tiles are built): each tile assembled from its files, written, removed; the same bytes as Export
    World from the sidebar, and the scene left as it was."""
    settings = panel_world(tmp_path / "ui")
    file_name = settings.world.file_name
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")  # props to make and remove again
    settings.scatter.layers[0].radius = 16.0
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    assert bpy.ops.worldseed.world_export() == {"FINISHED"}
    recipe = world_ops.world_recipe(bpy.context.scene)
    bpy.ops.wm.read_homefile(use_empty=True)  # a fresh file, as the headless run's
    before = snapshot()
    headless = tmp_path / "headless"
    core_world.run_world(recipe, str(headless), name=file_name)
    seen = []
    paths = world_export.export_world_fbx(recipe, str(headless), "world", progress=lambda *step: seen.append(step))
    assert snapshot() == before
    assert sorted(os.path.basename(p) for p in paths) == [
        "world_0_0.fbx",
        "world_0_1.fbx",
        "world_1_0.fbx",
        "world_1_1.fbx",
        "world_props.fbx",
        "world_world.json",
    ]
    assert seen[-1][2] == "done"
    variants = recipe.scatter[0].variants
    assert sorted(fbx_nodes(headless / "world_props.fbx")) == [f"Rock_P{k + 1:02d}" for k in range(variants)]
    for name in ("world_0_0.fbx", "world_1_1.fbx", "world_props.fbx", "world_world.json"):
        assert (headless / name).read_bytes() == (tmp_path / "ui" / name).read_bytes(), name


def test_export_for_unity_takes_the_tiles_and_their_props_too(empty_scene, tmp_path):
    """The Export panel's Export for Unity sees world tiles as Worldseed objects: one FBX of them all and
    the placement file of their props (each tile keeps its own recipe, as a terrain does)."""
    settings = panel_world(tmp_path / "world")
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    settings.scatter.layers[0].radius = 12.0  # few props: the export runs at once
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    path = tmp_path / "all.fbx"
    assert bpy.ops.worldseed.export_unity(filepath=str(path), scatter_mode="LIBRARY") == {"FINISHED"}
    nodes = fbx_nodes(path)
    assert {"world_0_0", "world_1_0", "world_0_1", "world_1_1"} <= set(nodes)
    with open(tmp_path / "all_placements.json") as f:
        scatters = json.load(f)["scatters"]
    assert sorted(s["terrain"]["name"] for s in scatters) == ["world_0_0", "world_0_1", "world_1_0", "world_1_1"]
    # the tile's terrain position in the placement file is the Unity position of the world JSON
    by_name = {s["terrain"]["name"]: s for s in scatters}
    assert by_name["world_1_0"]["terrain"]["position"] == [SIZE, 0.0, 0.0]
