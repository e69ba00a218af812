"""The World panel's Build Tiles takes the world folder's lock, as the headless run and the exports
do: while another Worldseed run (another process, or a headless run) writes the folder, the build
waits (``outputs.LOCK_WAIT``), then fails with one line and writes nothing."""

import fcntl
import os

import bpy
import pytest

from worldseed.core import world as core_world
from worldseed.operators.bridge import outputs

from ._world_cases import panel_world


def test_build_tiles_waits_for_the_folders_lock_then_refuses(empty_scene, tmp_path, monkeypatch):
    monkeypatch.setattr(outputs, "LOCK_WAIT", 0.3)
    folder = tmp_path / "world"
    folder.mkdir()
    panel_world(folder)
    fd = os.open(folder / outputs.LOCK_FILE, os.O_RDWR | os.O_CREAT)  # another run holds the folder
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(RuntimeError, match="is in use by another Worldseed run"):
            bpy.ops.worldseed.world_build()
        assert os.listdir(folder) == [outputs.LOCK_FILE]  # no tile, no world JSON, no cache
        assert "in use by another Worldseed run" in bpy.context.scene.worldseed.world.last_error
        assert not [o for o in bpy.data.objects if o.name.startswith("world_")]
    finally:
        os.close(fd)
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}  # let go: it builds
    document = core_world.read_world_json(core_world.world_json_path(str(folder), "world"))
    assert all(t["complete"] for t in document["tiles"])
    assert not [n for n in os.listdir(folder) if n.startswith(".")]  # the lock file gone with the run
