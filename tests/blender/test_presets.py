"""Presets: built in and the user's own, applied to the sidebar settings."""

import bpy
import pytest

from worldseed.core.errors import RecipeError
from worldseed.operators.bridge import curve, presets


@pytest.fixture
def user_presets(tmp_path, monkeypatch):
    """User presets go to a temporary folder (not this machine's Blender config)."""
    monkeypatch.setattr(presets, "user_dir", lambda create=False: str(tmp_path))
    return tmp_path


def test_apply_sets_the_look_and_keeps_the_output_settings(empty_scene):
    settings = bpy.context.scene.worldseed.terrain
    settings.resolution, settings.lods, settings.seed = 129, 3, 42
    bpy.ops.worldseed.terrain_preset_apply(preset="Island")
    assert (settings.falloff, settings.sea_level) == ("radial", pytest.approx(0.18))
    assert (settings.resolution, settings.lods, settings.seed) == (129, 3, 42)
    assert settings.preset == "Island"


def test_apply_sets_the_height_curve(empty_scene, user_presets):
    (user_presets / "curvy.toml").write_text("[terrain]\ncurve = [[0.0, 0.0], [0.3, 0.1], [0.7, 0.8], [1.0, 1.0]]\n")
    settings = bpy.context.scene.worldseed.terrain
    bpy.ops.worldseed.terrain_preset_apply(preset="Curvy")
    assert curve.curve_points(settings) == ((0.0, 0.0), (0.3, 0.1), (0.7, 0.8), (1.0, 1.0))
    bpy.ops.worldseed.terrain_preset_apply(preset="Rolling Hills")  # no curve: back to a straight line
    assert curve.curve_points(settings) == curve.IDENTITY


def test_save_apply_remove_a_user_preset(empty_scene, user_presets):
    settings = bpy.context.scene.worldseed.terrain
    settings.octaves, settings.kind = 3, "billow"
    assert bpy.ops.worldseed.terrain_preset_save(preset_name="My Dunes") == {"FINISHED"}
    assert (user_presets / "my_dunes.toml").is_file()
    settings.octaves, settings.kind = 8, "fbm"
    bpy.ops.worldseed.terrain_preset_apply(preset="My Dunes")
    assert (settings.octaves, settings.kind) == (3, "billow")
    bpy.ops.worldseed.terrain_preset_remove(preset="My Dunes")
    assert not (user_presets / "my_dunes.toml").exists()


def test_unknown_and_builtin_presets_are_clear_errors(empty_scene, user_presets):
    with pytest.raises(RuntimeError, match="preset 'Nope' not found; known presets: .*Island"):
        bpy.ops.worldseed.terrain_preset_apply(preset="Nope")
    with pytest.raises(RuntimeError, match="built-in presets cannot be removed"):
        bpy.ops.worldseed.terrain_preset_remove(preset="Island")
    with pytest.raises(RuntimeError, match="preset name"):
        bpy.ops.worldseed.terrain_preset_save(preset_name="../../etc")


def test_apply_with_auto_update_rebuilds_the_active_terrain(empty_scene):
    settings = bpy.context.scene.worldseed.terrain
    settings.resolution = 9
    bpy.ops.worldseed.terrain_add(from_settings=True)
    settings.auto_update = True
    bpy.ops.worldseed.terrain_preset_apply(preset="Canyon Terraces")
    from worldseed.core import recipe

    stored = recipe.loads(bpy.context.active_object["worldseed_recipe"])
    assert stored.terrain.terraces == 7 and stored.terrain.resolution == 9


def test_a_user_preset_cannot_take_a_builtin_name(empty_scene, user_presets):
    with pytest.raises(RuntimeError, match="taken by a built-in preset"):
        bpy.ops.worldseed.terrain_preset_save(preset_name="Island")
    assert list(user_presets.iterdir()) == []


@pytest.mark.parametrize("shape", ["absolute", "absolute_stem", "parent", "parent_stem", "nested"])
def test_remove_never_deletes_a_file_outside_the_user_presets(empty_scene, tmp_path, monkeypatch, shape):
    """An absolute name or ../ names are refused by name; the .toml they point at stays."""
    user = tmp_path / "user" / "presets"
    user.mkdir(parents=True)
    monkeypatch.setattr(presets, "user_dir", lambda create=False: str(user))
    victim = tmp_path / "user" / "victim.toml"
    victim.write_text("[terrain]\noctaves = 3\n")
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text("[terrain]\n")
    name = {
        "absolute": str(elsewhere),
        "absolute_stem": str(elsewhere)[: -len(".toml")],
        "parent": "../victim.toml",
        "parent_stem": "../victim",
        "nested": "x/../../victim",
    }[shape]
    with pytest.raises(RuntimeError, match="preset name must be"):
        bpy.ops.worldseed.terrain_preset_remove(preset=name)
    with pytest.raises(RecipeError, match="preset name must be"):
        presets.remove(name)
    assert victim.read_text() == "[terrain]\noctaves = 3\n" and elsewhere.exists()


def test_preset_errors_cut_long_names(empty_scene, user_presets):
    with pytest.raises(RecipeError) as err:
        presets.remove("x" * 100_000)
    assert len(str(err.value)) < 300 and "100,002 characters" in str(err.value)
