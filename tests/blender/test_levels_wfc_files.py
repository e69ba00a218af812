"""WFC tileset and sample files of the Levels panel: Blender's ``//`` (relative
to the saved .blend) and plain relative paths found beside the .blend, and Load Settings of a level whose
tileset file is gone.

Real Blender (the bpy module); small grids.
"""

import os
import shutil

import bpy
import pytest

from worldseed.operators.bridge import levels as bridge_levels

from ._level_cases import TILES, level_settings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PIPES = os.path.join(ROOT, "presets", "wfc", "pipes.toml")


def test_load_settings_of_a_level_whose_tileset_file_is_gone_loads_the_rest(empty_scene, tmp_path, capfd):
    path = str(tmp_path / "mine.toml")
    shutil.copy(PIPES, path)
    settings = level_settings(
        **dict(TILES, width=12, height=9, seed=31), wfc_tileset="FILE", tileset_file=path, counts="cross=0-3"
    )
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    os.remove(path)
    level_settings(generator="cave", width=40, seed=1, counts="")
    capfd.readouterr()
    assert bpy.ops.worldseed.level_load_settings() == {"FINISHED"}
    assert (settings.generator, settings.width, settings.height, settings.seed) == ("wfc_tiled", 12, 9, 31)
    assert settings.wfc_tileset == "FILE" and settings.tileset_file == path
    assert settings.counts.replace(" ", "") == "cross=0-3"
    out = capfd.readouterr().out
    assert "Warning" in out and f"no file {path}" in out and "the other settings are loaded" in out
    # Update says which file is missing, and changes nothing
    with pytest.raises(RuntimeError, match="no file"):
        bpy.ops.worldseed.level_update()
    # the artist picks another file: Update rebuilds the level (its old file is not needed)
    settings.tileset_file = PIPES
    assert bpy.ops.worldseed.level_update() == {"FINISHED"}
    assert bridge_levels.stored_spec(bpy.context.active_object).seed == 31
    # a level whose settings are lost altogether is still an error
    del bpy.context.active_object[bridge_levels.SPEC_KEY]
    with pytest.raises(RuntimeError, match="lost its settings"):
        bpy.ops.worldseed.level_load_settings()


@pytest.fixture
def saved_blend(empty_scene, tmp_path, monkeypatch):
    """A .blend saved in ``tmp_path/project`` with ``tiles.toml`` and ``rooms.txt`` beside it; the working
    directory elsewhere (a relative path must not be found there)."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(PIPES, project / "tiles.toml")
    shutil.copy(os.path.join(ROOT, "presets", "wfc", "samples", "rooms.txt"), project / "rooms.txt")
    bpy.ops.wm.save_as_mainfile(filepath=str(project / "world.blend"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    yield project
    bpy.ops.wm.read_homefile(use_empty=True)


@pytest.mark.parametrize("written", ["//tiles.toml", "tiles.toml", "//./tiles.toml"])
def test_a_tileset_file_relative_to_the_saved_blend(saved_blend, written, recwarn):
    settings = level_settings(**TILES, wfc_tileset="FILE")
    settings.tileset_file = written
    # Blender 5.0 warns (RuntimeWarning) when a path property that does not take '//' is set to one
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)], [str(w.message) for w in recwarn]
    assert settings.tileset_file == written
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    spec = bridge_levels.stored_spec(bpy.context.active_object)
    assert os.path.samefile(spec.wfc_tileset, saved_blend / "tiles.toml")
    settings.seed = 12
    assert bpy.ops.worldseed.level_update() == {"FINISHED"}


@pytest.mark.parametrize("written", ["//rooms.txt", "rooms.txt"])
def test_a_sample_file_relative_to_the_saved_blend(saved_blend, written, recwarn):
    settings = level_settings(generator="wfc_overlapping", width=16, height=12, sample_source="FILE")
    settings.sample_file = written
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    spec = bridge_levels.stored_spec(bpy.context.active_object)
    assert os.path.samefile(spec.sample, saved_blend / "rooms.txt")


def test_a_relative_path_of_an_unsaved_blend_starts_at_the_working_directory(empty_scene, tmp_path, monkeypatch):
    shutil.copy(PIPES, tmp_path / "here.toml")
    monkeypatch.chdir(tmp_path)
    assert bpy.data.filepath == ""
    level_settings(**TILES, wfc_tileset="FILE", tileset_file="here.toml")
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    assert os.path.samefile(bridge_levels.stored_spec(bpy.context.active_object).wfc_tileset, tmp_path / "here.toml")
