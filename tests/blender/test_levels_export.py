"""Levels out of Blender: the FBX of a kit level, the level files beside Export for Unity's
FBX, their names, refused transforms, a parent's move, and a world build's levels in the recipe's order.

Real Blender (the bpy module); small levels.
"""

import os
import re

import bpy
import numpy as np
import pytest

from worldseed.core import export as core_export
from worldseed.core import levels as core_levels
from worldseed.core import recipe as core_recipe
from worldseed.operators.bridge import levels as bridge_levels

from ._level_cases import SMALL, kit_collection, scene_state

# ufbx's Python objects can crash the garbage collector with bpy in the process (see
# test_scatter_ground.py): read the FBX in a Python of its own that prints plain values
_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1], target_unit_meters=1.0)
out = {}
for node in list(scene.nodes):
    if not node.is_root:
        parent = node.parent.name if node.parent is not None and not node.parent.is_root else None
        r = node.local_transform.rotation
        out[node.name] = [parent, list(node.node_to_world.c3), [r.x, r.y, r.z, r.w]]
print(json.dumps(out), flush=True)
os._exit(0)
"""


def test_kit_level_exports_one_fbx_object_per_module_and_leaves_the_scene(empty_scene, tmp_path):
    import json
    import subprocess
    import sys

    from worldseed.operators.bridge import world

    kit = kit_collection()
    bpy.ops.worldseed.level_add(**SMALL, geometry="KIT", kit=kit.name, origin=(4.0, 6.0, 0.0))
    root = bpy.context.active_object
    before = scene_state()
    written = world.write_exports([root], str(tmp_path), "kit", core_export.ExportSpec(fbx=True, preview=False))
    assert sorted(os.path.basename(p) for p in written)[:2] == ["Level.tmx", "Level.tsx"]
    assert scene_state() == before and bridge_levels.level_kit_of(root) is not None
    done = subprocess.run(
        [sys.executable, "-c", _READ_FBX, str(tmp_path / "kit.fbx")], capture_output=True, text=True, check=True
    )
    nodes = json.loads(done.stdout)
    level = core_levels.generate(core_levels.LevelSpec(**SMALL))
    placed = core_levels.kit_placements(level, cell_size=2.0, origin=(4, 6, 0))
    modules = {n: v for n, v in nodes.items() if v[0] == "Level" and re.match(r"^Level_[a-z_]+_\d{5}$", n)}
    assert len(modules) == len(placed) and "Level_Kit" not in nodes
    # module k stands on its cell: Blender (x, y, z) is the file's (x, z, -y)
    walls = np.flatnonzero(placed.role == placed.roles.index("wall"))
    k = int(walls[np.argmax(placed.yaw[walls])])  # a wall turned about Z
    x, y, z = placed.positions[k]
    parent, position, rotation = modules[f"Level_wall_{k:05d}"]
    assert np.allclose(position, (x, z, -y), atol=1e-4)
    # a turn by yaw about Blender's +Z is a turn by yaw about the file's +Y
    half = float(placed.yaw[k]) / 2
    assert placed.yaw[k] > 0
    assert np.allclose(np.abs(np.dot(rotation, (0.0, np.sin(half), 0.0, np.cos(half)))), 1.0, atol=1e-5)


def test_export_for_unity_writes_the_level_files_beside_the_fbx(empty_scene, tmp_path):
    bpy.ops.worldseed.level_add(**SMALL, name="Den")
    path = tmp_path / "game.fbx"
    assert bpy.ops.worldseed.export_unity(filepath=str(path)) == {"FINISHED"}
    names = {p.name for p in tmp_path.iterdir()}
    assert {
        "game.fbx",
        "Den.tmx",
        "Den.tsx",
        "Den_classes.tsx",
        "Den_blob.png",
        "Den_level.json",
        "Den_level.png",
    } <= names


def test_export_for_unity_writes_a_kit_levels_modules(empty_scene, tmp_path):
    import json
    import subprocess
    import sys

    bpy.ops.worldseed.level_add(**SMALL, geometry="KIT", kit=kit_collection().name)
    path = tmp_path / "game.fbx"
    assert bpy.ops.worldseed.export_unity(filepath=str(path), scope="WORLDSEED") == {"FINISHED"}
    done = subprocess.run([sys.executable, "-c", _READ_FBX, str(path)], capture_output=True, text=True, check=True)
    nodes = json.loads(done.stdout)
    placed = core_levels.kit_placements(core_levels.generate(core_levels.LevelSpec(**SMALL)), cell_size=2.0)
    modules = [n for n, v in nodes.items() if v[0] == "Level" and re.match(r"^Level_[a-z_]+_\d{5}$", n)]
    assert len(modules) == len(placed)


def _fbx_nodes(path):
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _READ_FBX, str(path)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_two_levels_of_one_name_export_under_the_names_the_fbx_has(empty_scene, tmp_path):
    # a new-user trial: Add Level twice with the defaults, then Export for Unity crashed on 'Level.001'
    tiny = dict(generator="walk", width=12, height=10, seed=1)
    bpy.ops.worldseed.level_add(**tiny)
    bpy.ops.worldseed.level_add(**tiny)
    roots = sorted(o.name for o in bpy.data.objects if bridge_levels.is_level(o))
    assert roots == ["Level", "Level_001"]
    assert bridge_levels.stored_spec(bpy.data.objects["Level_001"]).name == "Level_001"
    assert bpy.ops.worldseed.export_unity(filepath=str(tmp_path / "scene.fbx")) == {"FINISHED"}
    names = {p.name for p in tmp_path.iterdir()}
    assert {"Level.tmx", "Level_001.tmx", "Level_level.json", "Level_001_level.json"} <= names
    nodes = _fbx_nodes(tmp_path / "scene.fbx")
    assert {"Level", "Level_001"} <= set(nodes)  # the FBX objects are named as the files are


def test_a_level_renamed_in_the_outliner_writes_files_named_after_the_object(empty_scene, tmp_path):
    from worldseed.operators.bridge import world

    bpy.ops.worldseed.level_add(generator="walk", width=12, height=10, seed=1, name="Orig")
    root = bpy.context.active_object
    root.name = "Dungeon 2"
    assert bridge_levels.stored_spec(root).name == "Orig"
    spec = core_export.ExportSpec(fbx=False, preview=False)
    written = {os.path.basename(p) for p in world.write_exports([root], str(tmp_path), "w", spec)}
    assert "Dungeon 2.tmx" in written and "Dungeon 2_level.json" in written and "Orig.tmx" not in written
    other = bpy.data.objects.new("Level.007", root.data)  # a name with a '.' makes a safe stem
    assert world.level_stems([root, other, root]) == ["Dungeon 2", "Level_007", "Dungeon 2_2"]


@pytest.mark.parametrize("change", ["rotation", "scale"])
def test_a_rotated_or_scaled_level_is_refused_in_one_line_and_nothing_is_written(empty_scene, tmp_path, change):
    # a new-user trial: the JSON/TMX markers disagreed with the FBX once the level root was turned or scaled
    bpy.ops.worldseed.level_add(generator="walk", width=12, height=10, seed=1, name="Den")
    root = bpy.context.active_object
    if change == "rotation":
        root.rotation_euler.z = np.pi / 2
    else:
        root.scale = (2.0, 2.0, 2.0)
    before = scene_state()
    with pytest.raises(RuntimeError, match=r"level 'Den' is rotated or scaled.*Alt\+R / Alt\+S"):
        bpy.ops.worldseed.export_unity(filepath=str(tmp_path / "scene.fbx"))
    assert [p.name for p in tmp_path.iterdir()] == [] and scene_state() == before


def test_a_level_moved_by_its_parent_exports_at_its_world_position(empty_scene, tmp_path):
    import json

    from worldseed.operators.bridge import world

    bpy.ops.worldseed.level_add(generator="walk", width=12, height=10, seed=1, name="Den", origin=(1.0, 2.0, 0.0))
    root = bpy.context.active_object
    holder = bpy.data.objects.new("Holder", None)
    bpy.context.scene.collection.objects.link(holder)
    holder.location = (10.0, 0.0, 3.0)
    root.parent = holder
    bpy.context.view_layer.update()
    world.write_exports([root], str(tmp_path), "w", core_export.ExportSpec(fbx=False, preview=False))
    record = json.loads((tmp_path / "Den_level.json").read_text())
    spawn = next(m for m in record["markers"] if m["kind"] == "spawn")
    marker = bpy.data.objects["Den_Spawn"].matrix_world.translation
    assert np.allclose(spawn["unity"], (-marker.x, marker.z, -marker.y), atol=1e-5)


def test_a_world_build_adds_its_levels_in_the_recipes_order(empty_scene):
    from worldseed.operators.bridge import world

    text = "".join(
        f'[[level]]\nname = "{n}"\ngenerator = "walk"\nwidth = 8\nheight = 6\n' for n in ("Crypt", "Crypt2", "abbey")
    )
    built = world.build_world(core_recipe.loads("[terrain]\nenabled = false\n" + text), scene=bpy.context.scene)
    assert [r.name for r in built.roots] == ["Crypt", "Crypt2", "abbey"]
    assert all(f"{r.name}_Spawn" in bpy.data.objects for r in built.roots)
