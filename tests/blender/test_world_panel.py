"""The World panel: its settings come from core's table, it draws in every state, and the
operators read a tiled world's recipe, its tiles and its folder from it."""

import os
import tempfile

import bpy
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.core.errors import ParameterError
from worldseed.operators import world as world_ops

from ._panel_cases import draw


def _settings():
    return bpy.context.scene.worldseed


def _tiled(nx=2, nz=2):
    settings = _settings()
    settings.terrain.name = "Land"
    settings.terrain.resolution = 65
    settings.terrain.size = 128.0
    settings.terrain.normalize = "fixed"
    settings.world.tiles_x, settings.world.tiles_z = nx, nz
    return settings


def test_world_settings_take_their_ranges_from_core(addon, empty_scene):
    rna = _settings().world.bl_rna.properties
    assert (rna["tiles_x"].hard_min, rna["tiles_x"].hard_max) == core_world.TILES
    assert (rna["tiles_z"].hard_min, rna["tiles_z"].hard_max) == core_world.TILES
    halo = core_world.LIMITS["halo"]
    assert (rna["halo"].hard_min, rna["halo"].hard_max) == pytest.approx(halo.bounds)
    assert (rna["halo"].name, rna["halo"].description) == (halo.label, halo.description)
    assert (_settings().world.tiles_x, _settings().world.tiles_z) == core_world.WorldSpec().tiles


def test_world_panel_draws_the_grid_the_range_and_the_buttons(addon, empty_scene):
    panel = bpy.types.WORLDSEED_PT_world
    calls = draw(panel)
    for name in ("tiles_x", "tiles_z", "halo", "build_all", "folder", "file_name", "scatter"):
        assert ("prop", name) in calls
    assert ("operator", "worldseed.world_build") in calls and ("operator", "worldseed.world_export") in calls
    assert ("prop", "x0") not in calls  # every tile: no range
    _tiled(3, 2)
    _settings().world.build_all = False
    _settings().terrain.normalize = "stretch"
    calls = draw(panel)
    assert {("prop", n) for n in ("x0", "x1", "z0", "z1")} <= set(calls)
    assert ("label", "Tiles take Normalize Fixed (their edges join)") in calls
    assert ("label", "0 of 6 tiles built, 0 in the scene") in calls
    bpy.data.objects.new("world_2_1", None)
    bpy.context.scene.collection.objects.link(bpy.data.objects["world_2_1"])
    _settings().world.complete_tiles = "2,1;0,0;5,5"  # as Build Tiles notes them (5,5: outside this grid)
    calls = draw(panel)
    assert ("label", "2 of 6 tiles built, 1 in the scene") in calls
    assert [c for c in calls if c[0] == "label" and c[1] == ""] == [("label", "")] * 6  # one icon a tile
    _tiled(16, 16)
    calls = draw(panel)
    assert ("label", "3 of 256 tiles built, 1 in the scene") in calls  # too many to show one by one
    assert ("label", "") not in calls


def test_world_recipe_has_the_grid_halo_and_builtin_scatter(addon, empty_scene):
    settings = _tiled(3, 2)
    settings.world.halo = 12.0
    recipe = world_ops.world_recipe(bpy.context.scene)
    assert (
        recipe.world.tiles == (3, 2) and recipe.world.halo == 12.0 and recipe.world.name == "world"
    )  # the File Name names the world and its tiles
    assert recipe.scatter == ()
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    assert [s.prop for s in world_ops.world_recipe(bpy.context.scene).scatter] == ["rock"]
    settings.world.scatter = False
    assert world_ops.world_recipe(bpy.context.scene).scatter == ()
    settings.world.scatter = True
    settings.scatter.layers[0].source = "OBJECT"
    with pytest.raises(ParameterError, match="built-in props only"):
        world_ops.world_recipe(bpy.context.scene)


def test_build_tiles_carries_the_networks_and_the_ecosystem_panels(addon, empty_scene):
    """Found from outside: Build Tiles read the World, Terrain, Scatter and Export panels only, so a
    sidebar's rivers, roads and grown forest were left out of its tiles without a word."""
    settings = _tiled(2, 1)
    recipe = world_ops.world_recipe(bpy.context.scene)
    assert not recipe.rivers.enabled and not recipe.roads.enabled and not recipe.ecosystem.species
    settings.rivers.enabled = True
    bpy.ops.worldseed.ecosystem_species_add()
    recipe = world_ops.world_recipe(bpy.context.scene)
    assert recipe.rivers.enabled and len(recipe.ecosystem.species) == 1
    assert recipe.rivers.threshold == settings.rivers.threshold
    bpy.ops.worldseed.ecosystem_animal_add()  # the animals go with it: they roam the whole world
    recipe = world_ops.world_recipe(bpy.context.scene)
    core_recipe.check_tiled(recipe)
    assert [a.name for a in recipe.ecosystem.animals] == [settings.ecosystem.animals[0].name]


def test_a_tiled_world_takes_fixed_normalisation_as_a_headless_run_does(addon, empty_scene):
    """The Terrain panel's own default (stretch) is what a recipe that does not name ``normalize`` is:
    a tiled world makes it fixed (the one mode whose tiles join), as the headless run does."""
    _tiled()
    _settings().terrain.property_unset("normalize")
    assert _settings().terrain.normalize == "stretch"  # the panel's default
    assert world_ops.world_recipe(bpy.context.scene).terrain.normalize == "fixed"
    headless = core_recipe.loads("[world]\ntiles = [2, 2]\n[terrain]\nresolution = 65\n")
    assert headless.terrain.normalize == "fixed"
    _settings().terrain.normalize = "fixed"
    assert world_ops.world_recipe(bpy.context.scene).terrain.normalize == "fixed"
    _settings().terrain.resolution = 100
    with pytest.raises(ParameterError, match="terrain.resolution"):
        world_ops.world_recipe(bpy.context.scene)


def test_chosen_tiles_and_the_world_folder(addon, empty_scene):
    world = _tiled(3, 2).world
    assert world_ops.chosen_tiles(world) == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]
    world.build_all = False
    world.x0, world.x1, world.z0, world.z1 = 1, 2, 1, 1
    assert world_ops.chosen_tiles(world) == [(1, 1), (2, 1)]
    world.x1 = 3
    with pytest.raises(ParameterError, match=r"tile range x: 1\.\.3 must lie within 0\.\.2"):
        world_ops.chosen_tiles(world)
    assert not bpy.data.filepath  # unsaved: '//world/' is a temporary folder
    # an unsaved file: this session's own temporary folder (found from outside: a shared <tmp>/worldseed
    # made Build Tiles adopt tiles another process had built there)
    session = world_ops.session_folder()
    assert os.path.isdir(session) and os.path.dirname(session) == tempfile.gettempdir()
    assert os.path.basename(session).startswith("worldseed-") and world_ops.session_folder() == session
    assert world_ops.world_folder(world) == os.path.join(session, "world")
    world.folder = "/somewhere/tiles"
    assert world_ops.world_folder(world) == "/somewhere/tiles"


def test_build_tiles_reports_bad_settings_and_builds_nothing(addon, empty_scene):
    _tiled()
    _settings().terrain.resolution = 100  # no Unity heightmap resolution
    with pytest.raises(RuntimeError, match="terrain.resolution"):
        bpy.ops.worldseed.world_build()
    assert "terrain.resolution" in _settings().world.last_error
    assert not bpy.data.objects
    assert not bpy.ops.worldseed.world_export.poll()  # no tiles in the scene


def test_build_tiles_refuses_more_vertices_than_the_scene_takes(addon, empty_scene):
    _tiled(5, 4)
    _settings().terrain.resolution = 1025
    with pytest.raises(RuntimeError, match=r"20 tiles of 1025\^2 make 21,012,500 vertices"):
        bpy.ops.worldseed.world_build()
    assert not bpy.data.objects
    recipe = world_ops.world_recipe(bpy.context.scene)
    world_ops.check_scene_vertices(recipe, [(0, 0)] * 16)  # 16 tiles of 1025^2 are fine


def test_the_file_name_names_files_in_the_folder_only(addon, empty_scene):
    world = _tiled().world
    assert world_ops.file_name(world) == "world"
    for bad in ("../up", "a/b", "", "dot.ted"):
        world.file_name = bad
        with pytest.raises(ParameterError, match="File Name must be 1 to 48 letters"):
            world_ops.file_name(world)
    with pytest.raises(RuntimeError, match="File Name"):
        bpy.ops.worldseed.world_build()
