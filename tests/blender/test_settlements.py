"""Settlements in Blender: Add Settlements on the panel's terrain, the objects under the terrain
(names, markers, transforms, valid meshes), the pads in the terrain's mesh, the FBX read back with
ufbx, Update, Load Settings, Esc leaving the scene as it was, and a headless world build.

Real Blender (the bpy module)."""

import json
import os
import subprocess
import sys

import bpy
import numpy as np
import pytest

from worldseed.core import export as core_export
from worldseed.core import recipe as core_recipe
from worldseed.operators.bridge import settlements as bridge_settlements
from worldseed.operators.bridge import world

from ._modal_cases import drive_modal

# ufbx's Python objects can crash the garbage collector with bpy in the process: read the FBX in a
# Python of its own that prints plain values
_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1], target_unit_meters=1.0)
out = {}
for node in list(scene.nodes):
    if not node.is_root:
        parent = node.parent.name if node.parent is not None and not node.parent.is_root else None
        verts = len(node.mesh.vertices) if node.mesh is not None else 0
        r = node.local_transform.rotation
        out[node.name] = [parent, list(node.node_to_world.c3), verts, [r.x, r.y, r.z, r.w]]
print(json.dumps(out), flush=True)
os._exit(0)
"""


def _settle(level=""):
    assert bpy.ops.worldseed.terrain_add(from_settings=True) == {"FINISHED"}
    terrain = bpy.context.active_object
    settings = bpy.context.scene.worldseed.settlements
    settings.count, settings.spacing, settings.max_slope, settings.level = 2, 120.0, 20.0, level
    assert bpy.ops.worldseed.settlements_add(from_settings=True) == {"FINISHED"}
    return terrain, bpy.context.active_object


def _lod0(terrain):
    return (
        next(c for c in terrain.children if c.type == "MESH" and c.name.endswith("_LOD0"))
        if terrain.type == "EMPTY"
        else terrain
    )


def test_add_settlements_builds_sites_under_the_terrain_and_levels_their_pads(empty_scene):
    terrain, root = _settle(level="Crypt")
    assert root.name == f"{terrain.name}_Settlements" and root.parent == terrain
    sites = list(root.children)
    assert len(sites) >= 1
    for site in sites:
        assert site.name.startswith(f"{terrain.name}_") and site["worldseed_site_type"] in (
            "hamlet",
            "village",
            "walled_town",
        )
        parts = {c.name[len(site.name) + 1 :]: c for c in site.children}
        assert {"Pad", "Streets"} <= set(parts)
        doors = [n for n in parts if n.startswith("Door")]
        houses = [n for n in parts if n.startswith("House")]
        assert len(doors) >= 1 and len(houses) == len(doors)
        for n in houses:
            me = parts[n].data
            assert not me.validate() and len(me.polygons) > 0 and len(me.materials) == 3
            # the pivot at the floor's middle: the house's vertices around it, the door on its outline
            co = np.empty(len(me.vertices) * 3, np.float32)
            me.vertices.foreach_get("co", co)
            assert np.allclose(co.reshape(-1, 3)[:, :2].min(axis=0), -co.reshape(-1, 3)[:, :2].max(axis=0), atol=1e-3)
        for obj in [site, *site.children]:
            assert tuple(obj.rotation_euler) == (0.0, 0.0, 0.0) and tuple(obj.scale) == (1.0, 1.0, 1.0)
        # the pad is in the terrain's mesh: the ground at the site's centre is the pad's height
        lod0 = _lod0(terrain)
        co = np.empty(len(lod0.data.vertices) * 3, np.float32)
        lod0.data.vertices.foreach_get("co", co)
        co = co.reshape(-1, 3)
        x, y, z = site.matrix_world.translation
        near = np.hypot(co[:, 0] - x, co[:, 1] - y) < 8.0
        assert near.sum() > 4 and np.allclose(co[near, 2], z, atol=1e-3)
    # the level's entrance: one marker, at the best site
    entrances = [o for o in bpy.data.objects if o.name.endswith("_LevelEntrance")]
    assert len(entrances) == 1 and entrances[0]["worldseed_level"] == "Crypt"
    # the recipe on the terrain holds the settlements; Load Settings brings the panel's back
    assert bridge_settlements.stored_spec(root).count == 2
    settings = bpy.context.scene.worldseed.settlements
    settings.count = 5
    assert bpy.ops.worldseed.settlements_load_settings() == {"FINISHED"}
    assert settings.count == 2


def test_update_rebuilds_in_place_and_the_fbx_holds_the_sites_and_markers(empty_scene, tmp_path):
    terrain, root = _settle()
    name = terrain.name
    settings = bpy.context.scene.worldseed.settlements
    settings.types = "hamlet"
    assert bpy.ops.worldseed.settlements_update() == {"FINISHED"}
    terrain = bpy.data.objects[name]  # rebuilt with the new pads (a terrain of one mesh is a new object)
    root = bridge_settlements.settlements_of(terrain)
    assert all(s["worldseed_site_type"] == "hamlet" for s in root.children)
    assert len([o for o in bpy.data.objects if o.name.endswith("_Settlements")]) == 1
    world.write_exports([terrain], str(tmp_path), "town", core_export.ExportSpec(fbx=True, preview=False))
    done = subprocess.run(
        [sys.executable, "-c", _READ_FBX, str(tmp_path / "town.fbx")], capture_output=True, text=True, check=True
    )
    nodes = json.loads(done.stdout)
    for site in root.children:
        assert nodes[site.name][0] == root.name
        houses = [c for c in site.children if "_House" in c.name]
        assert houses
        for house in houses:
            assert nodes[house.name][0] == site.name and nodes[house.name][2] == len(house.data.vertices)
        doors = [n for n, v in nodes.items() if v[0] == site.name and "_Door" in n]
        assert len(doors) == len([c for c in site.children if "_Door" in c.name])
        # Unity's rules: the site (an empty two levels under the terrain's root) and everything under
        # it has rotation 0 and sits where Blender has it, in the file's Y-up frame: (x, z, -y)
        for obj in (site, *site.children):
            assert np.allclose(nodes[obj.name][3], [0.0, 0.0, 0.0, 1.0], atol=1e-6), obj.name
            x, y, z = obj.matrix_world.translation
            assert np.allclose(nodes[obj.name][1], [x, z, -y], atol=1e-3), obj.name
        # metres at scale 1: every door lies as far from its site in the file as in Blender
        for door in doors:
            far = np.linalg.norm(np.subtract(nodes[door][1], nodes[site.name][1]))
            assert (
                abs(far - (bpy.data.objects[door].matrix_world.translation - site.matrix_world.translation).length)
                < 1e-3
            )


def test_esc_leaves_the_scene_as_it_was(empty_scene):
    assert bpy.ops.worldseed.terrain_add(from_settings=True) == {"FINISHED"}
    terrain = bpy.context.active_object
    names = sorted(o.name for o in bpy.data.objects)
    spec = bridge_settlements.SettlementsAdapter().spec(bpy.context.scene.worldseed.settlements, enabled=True)

    class Op:
        cancel_after = 1
        reports = []

        def report(self, kind, text):
            self.reports.append(text)

        def cancelled(self, context):
            pass

    from worldseed.operators.common import ModalBuild

    op = type("Op", (ModalBuild,), dict(vars(Op)))()
    result = {}
    drive_modal(op, bpy.context, bridge_settlements.build_steps(terrain, spec), "settlements", result)
    assert result["state"] == {"CANCELLED"}
    assert sorted(o.name for o in bpy.data.objects) == names


def test_a_headless_world_build_adds_the_settlements_and_their_file(empty_scene):
    r = core_recipe.loads(
        """
[world]
name = "Vale"
seed = 4
[terrain]
resolution = 129
size = 384.0
height = 40.0
[roads]
enabled = true
[settlements]
enabled = true
count = 2
spacing = 120.0
"""
    )
    w = world.build_world(r, scene=bpy.context.scene)
    root = bridge_settlements.settlements_of(w.terrain)
    assert root is not None and len(root.children) == 2
    files = bridge_settlements.settlements_files(w.layers[w.terrain.name], name="Vale")
    doc = json.loads(files["Vale_settlements.json"])
    assert doc["format"] == "worldseed.settlements"
    assert sorted(s["name"] for s in doc["sites"]) == sorted(c.name.split("_", 1)[1] for c in root.children)


HEADLESS = """
[world]
name = "Vale"
seed = 4
[terrain]
resolution = 129
size = 384.0
height = 40.0
lods = 1
[roads]
enabled = true
[settlements]
enabled = true
count = 2
spacing = 120.0
[export]
fbx = true
preview = false
"""


def test_worldseed_run_writes_the_settlements_file_and_fbx_objects(tmp_path):
    """The headless entry as a user runs it: <name>_settlements.json beside the FBX, whose
    <Terrain>_<Site> objects hold the sites the file lists; a second run writes the same bytes."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    recipe = tmp_path / "vale.toml"
    recipe.write_text(HEADLESS)
    outs = []
    for k in range(2):
        out = tmp_path / f"out{k}"
        proc = subprocess.run(
            [sys.executable, os.path.join(root, "worldseed_run.py"), "--recipe", str(recipe), "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        outs.append(out)
    first = (outs[0] / "world_settlements.json").read_bytes()
    assert first == (outs[1] / "world_settlements.json").read_bytes()
    doc = json.loads(first)
    done = subprocess.run(
        [sys.executable, "-c", _READ_FBX, str(outs[0] / "world.fbx")], capture_output=True, text=True, check=True
    )
    nodes = json.loads(done.stdout)
    for site in doc["sites"]:
        name = f"Vale_{site['name']}"
        assert nodes[name][0] == "Vale_Settlements"
        assert nodes[f"{name}_Pad"][2] > 0
        assert all(nodes[f"{name}_House{k}"][2] > 0 for k in range(len(site["buildings"])))
        doors = [n for n, v in nodes.items() if v[0] == name and "_Door" in n]
        assert len(doors) == len(site["buildings"])


def test_a_terrain_with_no_place_for_a_settlement_is_refused_and_left_as_it_was(empty_scene):
    assert bpy.ops.worldseed.terrain_add(from_settings=True) == {"FINISHED"}
    terrain = bpy.context.active_object
    recipe_before = terrain["worldseed_recipe"]
    names = sorted(o.name for o in bpy.data.objects)
    settings = bpy.context.scene.worldseed.settlements
    settings.max_slope = 0.5  # nothing on the rolling default terrain is this flat
    with pytest.raises(RuntimeError, match="no place on this terrain takes a settlement"):
        bpy.ops.worldseed.settlements_add(from_settings=True)
    assert sorted(o.name for o in bpy.data.objects) == names
    assert bpy.data.objects[terrain.name]["worldseed_recipe"] == recipe_before


def test_export_for_unity_writes_the_settlements_file_beside_the_fbx(empty_scene, tmp_path):
    terrain, root = _settle()
    assert bpy.ops.worldseed.export_unity(filepath=str(tmp_path / "game.fbx")) == {"FINISHED"}
    doc = json.loads((tmp_path / "game_settlements.json").read_text())
    assert doc["format"] == "worldseed.settlements" and doc["version"] == 1
    names = sorted(f"{terrain.name}_{s['name']}" for s in doc["sites"])
    assert names == sorted(c.name for c in root.children)
    for site in doc["sites"]:
        head = bpy.data.objects[f"{terrain.name}_{site['name']}"]
        x, y, z = head.matrix_world.translation
        assert np.allclose(site["position"], (-x, z, -y), atol=1e-3)  # Unity's frame, as every Worldseed file


def _scene_state():
    """Every object's name, parent and world place, and each mesh's vertex positions: the scene as it is."""
    state = {}
    for obj in bpy.data.objects:
        co = None
        if obj.type == "MESH":
            co = np.empty(len(obj.data.vertices) * 3, np.float32)
            obj.data.vertices.foreach_get("co", co)
            co = co.tobytes()
        state[obj.name] = (obj.parent.name if obj.parent else None, tuple(obj.matrix_world.translation), co)
    return state


@pytest.mark.parametrize("lods", [1, 2])
def test_a_terrain_update_rebuilds_the_settlement_objects_on_the_new_ground(empty_scene, lods):
    """Issue 25: the Terrain panel's Update kept the pads in the heights but not the settlement objects
    (one mesh: removed with the old terrain; LODs: left on the old ground)."""
    from worldseed.operators.bridge import terrain_layers
    from worldseed.operators.bridge.terrain import stored_recipe

    bpy.context.scene.worldseed.terrain.lods = lods
    terrain, root = _settle()
    assert (terrain.type == "EMPTY") == (lods > 1)
    name = terrain.name
    before = {s.name: tuple(s.matrix_world.translation) for s in root.children}
    ws = bpy.context.scene.worldseed
    ws.terrain.height *= 1.25  # new ground: the pads at other heights
    assert bpy.ops.worldseed.terrain_update() == {"FINISHED"}
    terrain = bpy.data.objects[name]
    root = bridge_settlements.settlements_of(terrain)
    assert root is not None and root.name == f"{name}_Settlements"
    assert len([o for o in bpy.data.objects if o.name.endswith("_Settlements")]) == 1
    assert not [o.name for o in bpy.data.objects if "." in o.name]  # no Blender .001 duplicates
    built = terrain_layers.layers_for(stored_recipe(terrain)).settlements
    assert sorted(c.name for c in root.children) == sorted(f"{name}_{s.name}" for s in built.sites)
    lod0 = _lod0(terrain)
    co = np.empty(len(lod0.data.vertices) * 3, np.float32)
    lod0.data.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    moved = 0
    for site in built.sites:
        head = bpy.data.objects[f"{name}_{site.name}"]
        x, y, z = head.matrix_world.translation
        assert np.allclose((x, y, z), (*site.centre, site.z), atol=1e-4)
        near = np.hypot(co[:, 0] - x, co[:, 1] - y) < 8.0
        assert near.sum() > 4 and np.allclose(co[near, 2], z, atol=1e-3)  # on the new pad
        moved += head.name not in before or abs(before[head.name][2] - z) > 0.1
        assert any(c.name.startswith(f"{head.name}_House") for c in head.children)
    assert moved  # the objects follow the new ground


def test_a_terrain_update_with_no_place_left_for_the_settlements_leaves_the_scene_as_it_was(empty_scene):
    _settle()
    state = _scene_state()
    ws = bpy.context.scene.worldseed
    ws.terrain.height *= 40.0  # too steep for any pad now
    with pytest.raises(RuntimeError, match="no place on this terrain takes a settlement"):
        bpy.ops.worldseed.terrain_update()
    assert _scene_state() == state


def test_the_settlements_file_follows_a_moved_terrain(empty_scene, tmp_path):
    """Issue 25: the file's positions assumed the terrain at the origin; they follow the terrain's place
    (as the placements, the heightmap and the ecosystem's files do)."""
    terrain, root = _settle()
    assert bpy.ops.worldseed.export_unity(filepath=str(tmp_path / "home.fbx")) == {"FINISHED"}
    home = json.loads((tmp_path / "home_settlements.json").read_text())
    terrain.location = (120.0, -45.5, 7.25)
    bpy.context.view_layer.update()
    assert bpy.ops.worldseed.export_unity(filepath=str(tmp_path / "away.fbx")) == {"FINISHED"}
    away = json.loads((tmp_path / "away_settlements.json").read_text())
    shift = np.array([-120.0, 7.25, 45.5])  # Unity's frame of the move
    assert len(away["sites"]) == len(home["sites"]) >= 1
    for a, h in zip(away["sites"], home["sites"]):
        head = bpy.data.objects[f"{terrain.name}_{a['name']}"]
        x, y, z = head.matrix_world.translation
        assert np.allclose(a["position"], (-x, z, -y), atol=1e-3)  # where the site's empty stands now
        assert np.allclose(a["position"], np.array(h["position"]) + shift, atol=1e-3)
        assert np.allclose(a["pad"]["outline"], np.array(h["pad"]["outline"]) + shift, atol=1e-3)
        assert a["pad"]["height"] == pytest.approx(h["pad"]["height"] + 7.25, abs=1e-3)
        for b_a, b_h in zip(a["buildings"], h["buildings"]):
            assert np.allclose(b_a["door"], np.array(b_h["door"]) + shift, atol=1e-3)
            assert b_a["base"] == pytest.approx(b_h["base"] + 7.25, abs=1e-3)
            assert b_a["facing"] == b_h["facing"]  # a direction: not moved
        for door in [c for c in head.children if "_Door" in c.name]:
            dx, dy, dz = door.matrix_world.translation
            assert any(np.allclose(b["door"], (-dx, dz, -dy), atol=1e-3) for b in a["buildings"])
