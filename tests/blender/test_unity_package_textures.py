"""Texture layers' images in the Unity package (real Blender): the headless run and Export for Unity
copy each texture beside the terrain JSON, which names the copy; a texture outside the recipe's
folder or not an image is one line and status 2; the sidebar's file-browser path keeps working."""

import json
import os
import subprocess
import sys

import bpy
import numpy as np

from worldseed.core import export as core_export
from worldseed.core import recipe as core_recipe
from worldseed.core.preview import png_bytes
from worldseed.operators.bridge import sections, world

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")

PNG = png_bytes(np.full((4, 4, 3), (40, 90, 20), np.uint8))
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(64)

RECIPE = """
[world]
name = "Textured"
seed = 5
[terrain]
resolution = 33
size = 64.0
height = 10.0
lods = 1
[[splat]]
name = "Grass"
texture = "{grass}"
[[splat]]
name = "Plain"
[[splat]]
name = "Rock"
texture = "{rock}"
slope_range = [20.0, 90.0]
[export]
fbx = false
heightmap_raw = true
preview = false
"""


def _run(*args):
    return subprocess.run([sys.executable, RUN, *args], capture_output=True, text=True, timeout=600)


def _folder(tmp_path):
    folder = tmp_path / "recipes"
    (folder / "textures").mkdir(parents=True)
    (folder / "textures" / "grass.png").write_bytes(PNG)
    (folder / "textures" / "rock.jpg").write_bytes(JPEG)
    (folder / "notes.toml").write_text("[terrain]\n")
    return folder


def test_headless_copies_the_textures_and_the_json_names_the_copies(tmp_path):
    folder = _folder(tmp_path)
    recipe = folder / "world.toml"
    recipe.write_text(RECIPE.format(grass="textures/grass.png", rock="textures/rock.jpg"))
    out = tmp_path / "out"
    done = _run("--recipe", str(recipe), "--out", str(out), "--write-recipe")
    assert done.returncode == 0, done.stderr
    assert (out / "world_texture0.png").read_bytes() == PNG
    assert (out / "world_texture2.jpg").read_bytes() == JPEG
    text = (out / "world_terrain.json").read_text()
    layers = json.loads(text)["layers"]
    assert [la["texture"] for la in layers] == ["world_texture0.png", None, "world_texture2.jpg"]
    assert str(folder) not in text and os.path.realpath(folder) not in text
    # the recipe written beside names the copies, so the output folder reads on its own
    again = core_recipe.load(out / "recipe.toml")
    assert [s.texture for s in again.splat] == [
        os.path.realpath(out / "world_texture0.png"),
        "",
        os.path.realpath(out / "world_texture2.jpg"),
    ]
    # a run without the Rock layer's texture removes its stale copy
    recipe.write_text(RECIPE.format(grass="textures/grass.png", rock="").replace('texture = ""\n', ""))
    done = _run("--recipe", str(recipe), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert not (out / "world_texture2.jpg").exists() and (out / "world_texture0.png").exists()
    assert not [n for n in os.listdir(out) if n.startswith(".")]


def test_headless_refuses_textures_outside_the_folder_or_not_images(tmp_path):
    folder = _folder(tmp_path)
    recipe = folder / "world.toml"
    out = tmp_path / "out"
    for texture, says in [
        ("../../../etc/passwd", "leads out of its folder"),
        ("/etc/hostname", "not an absolute path"),
        ("notes.toml", "is not a PNG or JPEG image"),
    ]:
        recipe.write_text(RECIPE.format(grass=texture, rock="textures/rock.jpg"))
        done = _run("--recipe", str(recipe), "--out", str(out))
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "splat[0].texture" in lines[0] and texture in lines[0] and says in lines[0]
        assert "PNG or JPEG" in lines[0]
        assert not out.exists()


def test_the_sidebar_texture_reaches_export_for_unity_as_a_copy(empty_scene, tmp_path):
    """An absolute path picked in the sidebar's file browser (and a .blend-relative one) is accepted,
    and the export copies the image."""

    folder = _folder(tmp_path)
    bpy.ops.wm.save_as_mainfile(filepath=str(folder / "scene.blend"))
    settings = bpy.context.scene.worldseed.terrain
    settings.resolution = 33
    settings.size = 64.0
    bpy.ops.worldseed.splat_layer_add()
    bpy.ops.worldseed.splat_layer_add()
    settings.splats[0].texture = str(folder / "textures" / "grass.png")
    settings.splats[1].texture = "//textures/rock.jpg"
    recipe = sections.adapter("terrain").scene_recipe(bpy.context.scene)
    assert recipe.splat[0].texture == str(folder / "textures" / "grass.png")
    assert recipe.splat[1].texture == str(folder / "textures" / "rock.jpg")
    built = world.build_world(recipe, scene=bpy.context.scene)
    out = tmp_path / "export"
    out.mkdir()
    spec = core_export.ExportSpec(fbx=False, heightmap_raw=True, preview=False)
    world.write_exports([built.terrain], str(out), "world", spec, heights=built.heights, layers=built.layers)
    assert (out / "world_texture0.png").read_bytes() == PNG and (out / "world_texture1.jpg").read_bytes() == JPEG
    layers = json.loads((out / "world_terrain.json").read_text())["layers"]
    assert [la["texture"] for la in layers] == ["world_texture0.png", "world_texture1.jpg"]
    # a sidebar texture that is not an image is one clear report
    settings.splats[1].texture = str(folder / "notes.toml")
    try:
        bpy.ops.worldseed.terrain_add(from_settings=True)
    except RuntimeError as err:
        message = str(err).strip().splitlines()
    else:
        raise AssertionError("a text file as a texture was accepted")
    assert len(message) == 1 and "notes.toml" in message[0] and "PNG or JPEG" in message[0], message


def test_a_sidebar_deposits_rule_without_erosion_is_one_clear_report(empty_scene):
    """(The deposits rule, checked here with the sidebar's texture layers.) Erosion off and a
    texture layer following deposits: one report naming the layer and the key, nothing built."""
    settings = bpy.context.scene.worldseed.terrain
    settings.resolution = 17
    settings.erosion_enabled = False
    bpy.ops.worldseed.splat_layer_add()
    bpy.ops.worldseed.splat_layer_add()
    settings.splats[1].deposits = 1.0
    try:
        bpy.ops.worldseed.terrain_add(from_settings=True)
    except RuntimeError as err:
        message = str(err).strip().splitlines()
    else:
        raise AssertionError("a deposits rule without erosion was accepted")
    assert len(message) == 1 and "splat[1].deposits" in message[0], message
    assert "terrain.erosion.enabled = true" in message[0]
    assert len(bpy.data.objects) == 0
    settings.erosion_enabled = True
    settings.erosion_droplets_per_km2 = 1000.0
    assert bpy.ops.worldseed.terrain_add(from_settings=True) == {"FINISHED"}
