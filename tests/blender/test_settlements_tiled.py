"""Settlements in a tiled world in Blender: Build Tiles gives the tile that owns a site its settlement
objects (``<Tile>_<Site>`` with its pad, houses and markers, at the site's world position), the tile's
FBX holds them (read by ufbx), and the headless run writes and lists each tile's
``<name>_<x>_<z>_settlements.json`` and the world's ``<name>_settlements.json``."""

import json

import bpy
import numpy as np

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.core.steps import drive
from worldseed.operators import world as world_ops
from worldseed.operators.bridge import world_build, world_export

from ._world_cases import fbx_nodes, fbx_world

#: A 2 x 2 world of 129-sample tiles with biomes, rivers, roads and four hamlets (one of them on a seam).
TILED = """
[world]
name = "Shire"
seed = 2
tiles = [2, 2]
[terrain]
resolution = 129
size = 256.0
height = 30.0
scale = 200.0
normalize = "fixed"
[biomes]
enabled = true
[rivers]
enabled = true
threshold = 3000.0
[roads]
enabled = true
road_class = "trail"
trail_max_grade = 0.25
[settlements]
enabled = true
count = 4
types = "hamlet"
spacing = 100.0
"""


def _plan(recipe):
    grid = core_world.world_grid(recipe)
    return grid, core_world.world_settlements(recipe, grid, core_world.recipe_digest(recipe))


def test_build_tiles_gives_the_owning_tile_its_settlements_and_its_fbx_holds_them(empty_scene, tmp_path):
    recipe = core_recipe.loads(TILED)
    grid, plan = _plan(recipe)
    folder = tmp_path / "tiles"
    _run, made = drive(world_build.build_steps(recipe, str(folder), "shire", None, collection=empty_scene.collection))
    by_tile = {}
    for (x, z), root in made.items():
        sites = [o for o in root.children_recursive if o.get("worldseed_kind") == "settlement_site"]
        by_tile[x, z] = sorted(o.name for o in sites)
        own = [s.name for s, owner in zip(plan.settlements.sites, plan.owners) if owner == (x, z)]
        assert by_tile[x, z] == sorted(f"{root.name}_{n}" for n in own)
        for site in plan.settlements.sites:
            if plan.owners[plan.settlements.sites.index(site)] != (x, z):
                continue
            head = bpy.data.objects[f"{root.name}_{site.name}"]
            # the site's empty stands at its world position, on its pad
            np.testing.assert_allclose(head.matrix_world.translation, (*site.centre, site.z), atol=1e-4)
            assert bpy.data.objects[f"{root.name}_{site.name}_Pad"].parent == head
            assert any(c.name.startswith(f"{root.name}_{site.name}_House") for c in head.children)
    assert sum(len(v) for v in by_tile.values()) == len(plan.settlements.sites)
    # the owning tile's FBX holds its sites, where the tile's settlement file puts them (Unity's frame)
    (x, z), root = next((t, r) for t, r in made.items() if by_tile[t])
    path = world_export.export_tile_fbx(root, str(tmp_path / f"shire_{x}_{z}.fbx"))
    nodes, local = fbx_world(path), fbx_nodes(path)
    doc = json.loads((folder / f"shire_{x}_{z}_settlements.json").read_text())
    assert doc["sites"]
    for site in doc["sites"]:
        name = f"{root.name}_{site['name']}"
        assert nodes[name][0] == f"{root.name}_Settlements" and nodes[f"{root.name}_Settlements"][0] == root.name
        assert nodes[f"{name}_Pad"][0] == name and nodes[f"{name}_Pad"][2] > 0
        assert nodes[f"{name}_House0"][2] > 0 and f"{name}_Door0" in nodes
        # where the tile's settlement file puts it: the world's Unity frame (the file's x flipped)
        fx, fy, fz = nodes[name][1]
        np.testing.assert_allclose([-fx, fy, fz], site["position"], atol=1e-3)
        assert local[name][1] == [0.0, 0.0, 0.0, 1.0] and local[name][2] == [1.0, 1.0, 1.0]  # rotation 0, scale 1
    others = [t for t in made if not by_tile[t]]
    for t in others:  # a tile without a site has no settlement objects
        assert not any("Hamlet" in o.name for o in made[t].children_recursive)


def test_build_tiles_carries_the_scenes_settlements(addon, empty_scene, tmp_path):
    """The World panel's recipe holds the Settlements panel's settings while the scene has settlements,
    and Build Tiles (the operator) then gives the owning tiles their sites."""
    settings = bpy.context.scene.worldseed
    terrain = settings.terrain
    terrain.name, terrain.seed, terrain.resolution, terrain.size = "Shire", 2, 129, 256.0
    terrain.height, terrain.scale, terrain.normalize = 30.0, 200.0, "fixed"
    settings.world.tiles_x, settings.world.tiles_z = 2, 2
    settings.world.folder = str(tmp_path / "tiles")
    assert not world_ops.world_recipe(bpy.context.scene).settlements.enabled
    marker = bpy.data.objects.new("Earlier_Settlements", None)  # settlements the scene has already
    marker["worldseed_kind"] = "settlements"
    bpy.context.scene.collection.objects.link(marker)
    settings.settlements.count, settings.settlements.types, settings.settlements.spacing = 2, "hamlet", 100.0
    recipe = world_ops.world_recipe(bpy.context.scene)
    assert recipe.settlements.enabled and recipe.settlements.count == 2
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    grid, plan = _plan(recipe)
    assert plan.settlements.sites
    for site, (x, z) in zip(plan.settlements.sites, plan.owners):
        head = bpy.data.objects[f"{grid.object_name(x, z)}_{site.name}"]
        assert head.parent.parent == bpy.data.objects[grid.object_name(x, z)]
        np.testing.assert_allclose(head.matrix_world.translation, (*site.centre, site.z), atol=1e-4)


def test_a_tiled_world_headless_writes_and_lists_the_settlements(empty_scene, tmp_path):
    from worldseed.addon import batch

    path = tmp_path / "shire.toml"
    path.write_text(TILED)
    out = tmp_path / "out"
    assert batch.main(["--recipe", str(path), "--out", str(out), "--name", "shire"]) == 0
    doc = json.loads((out / "shire_world.json").read_text())
    world_files = {f["name"] for f in doc["files"]}
    assert {"shire_settlements.json", "shire_roads.json", "shire_rivers.json"} <= world_files
    whole = json.loads((out / "shire_settlements.json").read_text())
    names = []
    for tile in doc["tiles"]:
        x, z = tile["x"], tile["z"]
        listed = {f["name"] for f in tile["files"]}
        assert {f"shire_{x}_{z}_settlements.json", f"shire_{x}_{z}.fbx"} <= listed
        part = json.loads((out / f"shire_{x}_{z}_settlements.json").read_text())
        names += [s["name"] for s in part["sites"]]
        if part["sites"]:  # the owning tile's FBX holds them
            nodes = fbx_nodes(str(out / f"shire_{x}_{z}.fbx"))
            assert {f"Shire_{x}_{z}_{s['name']}_Pad" for s in part["sites"]} <= set(nodes)
    assert sorted(names) == sorted(s["name"] for s in whole["sites"]) and len(names) == 4
    # the same world without settlements: their files go in the run's switch
    bare = TILED.replace("[settlements]\nenabled = true", "[settlements]\nenabled = false")
    path.write_text(bare.replace("[roads]\nenabled = true", "[roads]\nenabled = false"))
    assert batch.main(["--recipe", str(path), "--out", str(out), "--name", "shire"]) == 0
    assert not [n for n in (p.name for p in out.iterdir()) if n.endswith("_settlements.json")]
