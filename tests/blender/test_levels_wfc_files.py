"""WFC tileset and sample files of the Levels panel (issue 11, findings 11 and 12): Blender's ``//`` (relative
to the saved .blend) and plain relative paths found beside the .blend, and Load Settings of a level whose
tileset file is gone.

Real Blender (the bpy module); small grids.
"""

import os
import shutil

import bpy
import pytest

from worldseed.operators.bridge import level as bridge_level

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
    # a level whose settings are lost altogether is still an error
    del bpy.context.active_object[bridge_level.SPEC_KEY]
    with pytest.raises(RuntimeError, match="lost its settings"):
        bpy.ops.worldseed.level_load_settings()
