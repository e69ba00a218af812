"""A ``[[splat]]`` texture stays inside the recipe's folder, is a PNG or JPEG by its first bytes,
and the Unity package carries a copy of it that its JSON names (relative), never the build
machine's absolute path."""

import json
import os

import numpy as np
import pytest

from core import recipe, splat, terrain, unity_package
from core.errors import ParameterError, RecipeError
from core.preview import png_bytes
from core.steps import drive

PNG = png_bytes(np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3))
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(32)  # the first bytes are what is checked


def _recipe_with(folder, texture):
    path = folder / "world.toml"
    path.write_text(f"[terrain]\nresolution = 33\n[[splat]]\nname = 'Ground'\ntexture = {json.dumps(texture)}\n")
    return path


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "recipes").mkdir()
    (tmp_path / "recipes" / "textures").mkdir()
    (tmp_path / "recipes" / "textures" / "grass.png").write_bytes(PNG)
    (tmp_path / "recipes" / "textures" / "rock.jpg").write_bytes(JPEG)
    (tmp_path / "recipes" / "broken.toml").write_text("[terrain]\n")
    (tmp_path / "outside.png").write_bytes(PNG)
    return tmp_path / "recipes"


@pytest.mark.parametrize(
    ("texture", "message"),
    [
        ("../../../etc/passwd", "leads out of its folder"),
        ("../outside.png", "leads out of its folder"),
        ("textures/../../outside.png", "leads out of its folder"),
        ("/etc/hostname", "not an absolute path"),
        ("broken.toml", "is not a PNG or JPEG image"),
        ("textures", "is not a file"),
        ("textures/missing.png", "cannot be read"),
    ],
)
def test_textures_outside_the_folder_or_not_images_are_refused(folder, texture, message):
    with pytest.raises(RecipeError, match=r"splat\[0\]\.texture") as err:
        recipe.load(_recipe_with(folder, texture))
    text = str(err.value)
    assert message in text and texture in text and "PNG or JPEG" in text
    assert "\n" not in text


def test_a_link_out_of_the_folder_is_refused(folder):
    os.symlink(folder.parent / "outside.png", folder / "textures" / "sneaky.png")
    os.symlink(folder.parent, folder / "up")
    for texture in ("textures/sneaky.png", "up/outside.png"):
        with pytest.raises(RecipeError, match=r"splat\[0\]\.texture .*leads out of its folder"):
            recipe.load(_recipe_with(folder, texture))
    # a link that stays inside the folder is fine (kept as the file it leads to)
    os.symlink(folder / "textures" / "grass.png", folder / "textures" / "alias.png")
    r = recipe.load(_recipe_with(folder, "textures/alias.png"))
    assert r.splat[0].texture == os.path.realpath(folder / "textures" / "grass.png")


def test_png_and_jpeg_inside_the_folder_are_kept_absolute(folder):
    r = recipe.load(_recipe_with(folder, "textures/grass.png"))
    assert r.splat[0].texture == os.path.realpath(folder / "textures" / "grass.png")
    r = recipe.load(_recipe_with(folder, "./textures/rock.jpg"))
    assert r.splat[0].texture == os.path.realpath(folder / "textures" / "rock.jpg")
    # without a folder (the sidebar's file browser, a direct call) an absolute path is the artist's choice
    text = f"[terrain]\nresolution = 33\n[[splat]]\ntexture = {json.dumps(r.splat[0].texture)}\n"
    assert recipe.loads(text).splat[0].texture == r.splat[0].texture
    assert recipe.loads(recipe.dumps(r)) == r
    with pytest.raises(RecipeError, match=r"splat\[0\]\.texture '/etc/hostname' is not a PNG or JPEG"):
        recipe.loads("[terrain]\n[[splat]]\ntexture = '/etc/hostname'\n")


def test_texture_format_reads_the_first_bytes(folder):
    assert unity_package.texture_format(folder / "textures" / "grass.png") == "png"
    assert unity_package.texture_format(folder / "textures" / "rock.jpg") == "jpg"
    (folder / "fake.png").write_bytes(b"GIF89a" + bytes(16))
    with pytest.raises(ParameterError, match=r"layer\.texture .*fake\.png' is not a PNG or JPEG image"):
        unity_package.texture_format(folder / "fake.png", name="layer.texture")
    assert unity_package.read_texture(folder / "textures" / "grass.png") == ("png", PNG)


def test_the_package_copies_the_textures_and_names_the_copies(folder):
    grass = os.path.realpath(folder / "textures" / "grass.png")
    rock = os.path.realpath(folder / "textures" / "rock.jpg")
    splats = (
        splat.SplatSpec(name="Grass", texture=grass),
        splat.SplatSpec(name="Flat"),
        splat.SplatSpec(name="Rock", texture=rock, slope_range=(20.0, 90.0)),
    )
    spec = terrain.TerrainSpec(resolution=33, size=64.0, height=20.0)
    heights = terrain.terrain_heights(spec, seed=1)
    layers = drive(terrain.terrain_layers_steps(heights, terrain_spec=spec, splats=splats, seed=1))
    files = unity_package.package_files("W", layers, size=64.0, splats=splats)
    assert files["W_texture0.png"] == PNG and files["W_texture2.jpg"] == JPEG
    assert not any(name.startswith("W_texture1") for name in files)
    assert unity_package.texture_file_names("W", splats) == ["W_texture0.png", "W_texture2.jpg"]
    text = files["W_terrain.json"].decode()
    content = json.loads(text)
    assert [la["texture"] for la in content["layers"]] == ["W_texture0.png", None, "W_texture2.jpg"]
    assert str(folder) not in text and os.path.realpath(folder) not in text  # no build-machine paths
    assert list(files)[-1] == "W_terrain.json"
    # a texture that went bad since the recipe was read is one message naming the layer
    (folder / "textures" / "rock.jpg").write_text("not an image")
    with pytest.raises(ParameterError, match=r"splat\[2\]\.texture .*rock\.jpg' is not a PNG or JPEG"):
        unity_package.package_files("W", layers, size=64.0, splats=splats)
