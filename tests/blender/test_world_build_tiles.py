"""Tiled worlds in Blender: tiles assembled from their files side by side (shared edges,
normals, LODs, quads, rebuilds, errors) and the splat material and props a built tile gets.

The bridge tests write the heights of each tile's own recipe (noise in world coordinates, so
neighbours share their border samples); the last runs Build Tiles itself.
"""

import json

import bpy
import numpy as np
import pytest

from worldseed.core import terrain as core_terrain
from worldseed.core import world as core_world
from worldseed.operators import world as world_ops
from worldseed.operators.bridge import world_build, world_tiles

from ._world_cases import SIDE, SIZE, panel_world, snapshot, world_positions, world_recipe, write_tile_heights

# --------------------------------------------------------------------------- the bridge


def test_tiles_lie_side_by_side_and_share_their_edges(empty_scene, tmp_path):
    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path))
    made = world_build.assemble_tiles(
        recipe, str(tmp_path), "world", [(0, 0), (1, 0), (0, 1), (1, 1)], collection=empty_scene.collection
    )
    assert {k: v.name for k, v in made.items()} == {(x, z): f"Land_{x}_{z}" for x in range(2) for z in range(2)}
    bpy.context.view_layer.update()
    pos = {}
    for (x, z), root in made.items():
        assert tuple(root.location) == (-(x + 0.5) * SIZE, -(z + 0.5) * SIZE, 0.0)
        assert tuple(root.rotation_euler) == (0.0, 0.0, 0.0) and tuple(root.scale) == (1.0, 1.0, 1.0)
        assert root.data.validate() is False
        pos[(x, z)] = world_positions(root)
        # Unity X in [x S, (x + 1) S] is Blender x in [-(x + 1) S, -x S]
        assert pos[(x, z)][..., 0].min() == -(x + 1) * SIZE and pos[(x, z)][..., 0].max() == -x * SIZE
        assert pos[(x, z)][..., 1].min() == -(z + 1) * SIZE and pos[(x, z)][..., 1].max() == -z * SIZE
    # tile (x + 1, z) lies at Blender -X of tile (x, z): its last column is the other's first, exactly
    assert np.array_equal(pos[(0, 0)][:, 0], pos[(1, 0)][:, -1])
    assert np.array_equal(pos[(0, 1)][:, 0], pos[(1, 1)][:, -1])
    # tile (x, z + 1) at Blender -Y: its last row is the other's first
    assert np.array_equal(pos[(0, 0)][0, :], pos[(0, 1)][-1, :])
    assert np.array_equal(pos[(1, 0)][0, :], pos[(1, 1)][-1, :])
    assert np.ptp(pos[(0, 0)][..., 2]) > 1.0  # real relief, not a flat grid


def test_shared_edges_have_the_same_normals(empty_scene, tmp_path):
    """The normals along a shared edge see the neighbour's heights (the margin from its file), so
    the tiles join without a lighting seam."""
    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path))
    coll = empty_scene.collection
    made = world_build.assemble_tiles(recipe, str(tmp_path), "world", [(0, 0), (1, 0)], collection=coll)
    normals = {}
    for key, root in made.items():
        me = root.data
        assert me.has_custom_normals
        if "custom_normal" in me.attributes:  # 4.5 and later: the floats as they were written
            n = np.empty(len(me.vertices) * 3, np.float32)
            me.attributes["custom_normal"].data.foreach_get("vector", n)
        else:  # 4.2: per corner, as 16-bit offsets in each corner's fan space (back within 2e-4)
            corners = np.empty(len(me.loops) * 3, np.float32)
            me.corner_normals.foreach_get("vector", corners)
            corner_verts = np.empty(len(me.loops), np.int32)
            me.attributes[".corner_vert"].data.foreach_get("value", corner_verts)
            n = np.empty((len(me.vertices), 3), np.float32)
            n[corner_verts] = corners.reshape(-1, 3)
        normals[key] = n.reshape(SIDE, SIDE, 3)
    if bpy.app.version >= (4, 5, 0):
        assert np.array_equal(normals[(0, 0)][:, 0], normals[(1, 0)][:, -1])
    else:
        np.testing.assert_allclose(normals[(0, 0)][:, 0], normals[(1, 0)][:, -1], atol=2e-4)
    assert not np.array_equal(normals[(0, 0)][:, 0], normals[(0, 0)][:, 1])


def test_tile_heights_are_the_raw_turned_back(empty_scene, tmp_path):
    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path), tiles=((1, 0),))
    spec = world_tiles.tile_recipe(recipe, 1, 0).terrain
    expected = core_terrain.terrain_heights(spec, seed=3).values
    got = world_tiles.read_tile_heights(str(tmp_path / "world_1_0.raw"), side=SIDE)
    assert np.abs(got - expected).max() <= 0.5 / 65535 + 1e-7  # 16-bit quantised, same layout


def test_lods_and_rebuild_replace_the_tile(empty_scene, tmp_path):
    recipe = world_recipe(lods=2)
    write_tile_heights(recipe, str(tmp_path), tiles=((0, 0),))
    folder, coll = str(tmp_path), empty_scene.collection
    world_build.assemble_tiles(recipe, folder, "world", [(0, 0)], collection=coll)
    names = sorted(o.name for o in bpy.data.objects)
    assert names == ["Land_0_0", "Land_0_0_LOD0", "Land_0_0_LOD1"]
    assert len(bpy.data.objects["Land_0_0_LOD1"].data.vertices) == 33 * 33
    before = snapshot()
    world_build.assemble_tiles(recipe, folder, "world", [(0, 0)], collection=coll)  # again: replaced, not added
    assert snapshot() == before


def test_closing_an_assembly_leaves_the_scene_as_it_was(empty_scene, tmp_path):
    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path))
    folder, coll = str(tmp_path), empty_scene.collection
    world_build.assemble_tiles(recipe, folder, "world", [(0, 0)], collection=coll)
    before = snapshot()
    steps = world_build.assemble_steps(recipe, folder, "world", [(0, 0), (1, 0), (0, 1)], collection=coll)
    for _ in range(6):
        next(steps)
    steps.close()
    assert snapshot() == before


def test_missing_tile_files_and_foreign_objects_are_clear_errors(empty_scene, tmp_path):
    from worldseed.core.errors import ParameterError

    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path), tiles=((0, 0),))
    with pytest.raises(ParameterError, match=r"tile \(1, 0\) has no heights"):
        world_build.assemble_tiles(recipe, str(tmp_path), "world", [(1, 0)], collection=empty_scene.collection)
    bpy.data.objects.new("Land_0_0", None)
    with pytest.raises(ParameterError, match="'Land_0_0' is in the way"):
        world_build.assemble_tiles(recipe, str(tmp_path), "world", [(0, 0)], collection=empty_scene.collection)


def test_tile_quads_are_cut_as_a_terrain_of_the_same_heights(empty_scene, tmp_path):
    """The cached grid turned where the heights say: the corners core's own turned topology has."""
    from worldseed.core import mesh as core_mesh

    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path), tiles=((0, 0),))
    made = world_build.assemble_tiles(recipe, str(tmp_path), "world", [(0, 0)], collection=empty_scene.collection)
    me = made[(0, 0)].data
    heights = world_tiles.tile_heights(recipe, str(tmp_path), "world", 0, 0)
    turn = core_mesh.grid_turns(heights.metres, cell_size=heights.cell_size)
    assert turn.any() and not turn.all()
    expected = core_mesh.grid_topology(SIDE, SIDE, turn=turn)
    got = np.empty(len(me.loops), np.int32)
    me.attributes[".corner_vert"].data.foreach_get("value", got)
    assert np.array_equal(got, expected.corner_verts)
    uvs = np.empty(len(me.loops) * 2, np.float32)
    me.attributes["UVMap"].data.foreach_get("vector", uvs)
    assert np.array_equal(uvs.reshape(-1, 2), core_mesh.grid_corner_uvs(SIDE, SIDE, turn=turn))


def test_tiles_get_their_splat_material_and_props(empty_scene, tmp_path):
    settings = panel_world(tmp_path)
    bpy.ops.worldseed.splat_layer_add()
    bpy.ops.worldseed.splat_layer_add()
    settings.terrain.splats[1].height_range = (0.3, 1.0)
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    settings.scatter.layers[0].radius = 8.0
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    recipe = world_ops.world_recipe(bpy.context.scene)
    grid = core_world.world_grid(recipe)
    from worldseed.operators.bridge.materials import splat_pixels

    root = bpy.data.objects["world_1_0"]
    image = bpy.data.images["world_1_0_splat0"]
    assert root.data.materials[0].name == "Worldseed Terrain Splat world_1_0"
    expected = core_world.tile_layers(recipe, grid, 1, 0).splats[0]
    assert np.array_equal(splat_pixels(image), expected)  # the PNG turned back into our layout
    scatter = bpy.data.objects["world_1_0_Scatter"]
    with open(tmp_path / "world_1_0_placements.json") as f:
        records = [r for s in json.load(f)["scatters"] for r in s["instances"]]
    assert len(scatter.data.vertices) == len(records) > 10
    from worldseed.operators.bridge import placements

    data = placements.placement_data(scatter)  # Blender's own placement records of the tile's props
    for mine, theirs in zip(data["instances"][:50], records[:50]):
        assert mine["prop"] == theirs["prop"]
        assert mine["position"] == pytest.approx(theirs["position"], abs=1e-3)
        assert abs(np.dot(mine["rotation"], theirs["rotation"])) == pytest.approx(1.0, abs=1e-5)  # q and -q alike


def test_build_tiles_with_the_ecosystem_panels_animals_writes_their_trails_and_spawns(empty_scene, tmp_path):
    """Build Tiles carried the Ecosystem panel's animals and refused them; they roam the whole world now:
    each tile's part of the trails, the world's spawns, history and chart, listed in the world JSON."""
    settings = panel_world(tmp_path)
    bpy.ops.worldseed.ecosystem_animal_add()
    settings.ecosystem.steps, settings.ecosystem.burn_in = 40, 5
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    recipe = world_ops.world_recipe(bpy.context.scene)
    assert recipe.ecosystem.animals
    with open(tmp_path / "world_world.json") as f:
        doc = json.load(f)
    assert {"world_spawns.json", "world_ecosystem.json", "world_population.png"} <= {f["name"] for f in doc["files"]}
    for tile in doc["tiles"]:
        assert tile["complete"] and f"{tile['name']}_trails.png" in {f["name"] for f in tile["files"]}
    with open(tmp_path / "world_ecosystem.json") as f:
        history = json.load(f)["animals"]["history"]
    assert len(history) == 41 and history[0]["population"] == [recipe.ecosystem.animals[0].count]
    assert set(bpy.data.objects.keys()) >= {"world_0_0", "world_1_1"}
