"""Tiled worlds in Blender: Build Tiles and Export World as modal operators (the world run
on a worker thread, Esc).

Background Blender delivers no events, so the modal operator is fed TIMER (and Esc) events by hand,
as the erosion modal tests do.  The tiles assembled from their files are in test_world_build_tiles.py,
the FBX and the other exports in test_world_build_export.py.
"""

import os
from types import SimpleNamespace

import bpy
import numpy as np
import pytest

from worldseed.core import world as core_world
from worldseed.operators import world as world_ops
from worldseed.operators.bridge import world_build, world_tiles
from worldseed.operators.common import ModalBuild

from ._world_cases import SIDE, SIZE, panel_world, snapshot, world_positions
from .test_erosion_build import Tap

RESULT = {}


class Driven:
    """Mixed into Build Tiles' own methods: ``execute`` calls ``invoke`` (as the button in a window
    does), and the modal build it starts is fed TIMER events -- Esc once a label starting with
    ``RESULT["cancel_at"]`` has shown -- until it ends (background Blender delivers no events)."""

    def execute(self, context):
        RESULT["invoked"] = self.invoke(context, SimpleNamespace(type="NONE", value="NOTHING"))
        return {"FINISHED"}

    def can_run_modal(self, context):
        return True  # the events are fed by hand below

    def start_modal(self, context, steps, label, *, handler=True):
        labels = RESULT.setdefault("labels", [])
        state = super().start_modal(context, Tap(steps, labels), label, handler=False)
        RESULT["poll_while_running"] = bpy.ops.worldseed.world_build.poll()
        cancel_at = RESULT.get("cancel_at")
        while state == {"RUNNING_MODAL"}:
            cancel = cancel_at is not None and any(label.startswith(cancel_at) for label in labels)
            state = self.modal(context, SimpleNamespace(type="ESC" if cancel else "TIMER", value="PRESS"))
        RESULT["state"] = state
        return {"RUNNING_MODAL"}

    def finished(self, context, result):
        RESULT["result"] = result
        if isinstance(result, tuple):
            RESULT["run"] = result[0]
        super().finished(context, result)


def _driven(cls, idname):
    own = {k: v for k, v in vars(cls).items() if not k.startswith("__") and not k.startswith("bl_")}
    base = type(f"{cls.__name__}_methods", (ModalBuild,), own)
    namespace = {"bl_idname": idname, "bl_label": idname}
    return type(idname.replace(".", "_OT_"), (Driven, base, bpy.types.Operator), namespace)


TEST_BUILD = _driven(world_ops.WORLDSEED_OT_world_build, "worldseed.test_world_build")
TEST_EXPORT = _driven(world_ops.WORLDSEED_OT_world_export, "worldseed.test_world_export")


@pytest.fixture
def driven():
    for cls in (TEST_BUILD, TEST_EXPORT):
        bpy.utils.register_class(cls)
    RESULT.clear()
    yield
    for cls in (TEST_BUILD, TEST_EXPORT):
        bpy.utils.unregister_class(cls)
    ModalBuild.running.clear()


def test_build_tiles_runs_the_world_modally_and_lays_the_tiles_side_by_side(empty_scene, driven, tmp_path):
    panel_world(tmp_path, erosion=True)
    bpy.ops.worldseed.test_world_build()
    assert RESULT["invoked"] == {"RUNNING_MODAL"} and RESULT["state"] == {"FINISHED"}
    assert RESULT["poll_while_running"] is False and bpy.ops.worldseed.world_build.poll()  # one run at a time
    labels = RESULT["labels"]
    assert any(label.startswith("building tiles: tile_") for label in labels) and labels[-1] == "done"
    assert sorted(RESULT["run"].built) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert sorted(o.name for o in bpy.data.objects) == ["world_0_0", "world_0_1", "world_1_0", "world_1_1"]
    assert {o.name for o in bpy.context.selected_objects} == {"world_0_0", "world_0_1", "world_1_0", "world_1_1"}
    for name in ("world_0_0.raw", "world_1_1.raw", "world_world.json"):
        assert (tmp_path / name).is_file()
    bpy.context.view_layer.update()
    pos = {}
    for x in range(2):
        for z in range(2):
            obj = bpy.data.objects[f"world_{x}_{z}"]
            assert tuple(obj.matrix_world.translation) == (-(x + 0.5) * SIZE, -(z + 0.5) * SIZE, 0.0)
            pos[(x, z)] = world_positions(obj)
    # eroded, the shared borders still meet exactly (core blends the windows; Blender keeps the bits)
    assert np.array_equal(pos[(0, 0)][:, 0], pos[(1, 0)][:, -1])
    assert np.array_equal(pos[(0, 0)][0, :], pos[(0, 1)][-1, :])
    assert np.array_equal(pos[(1, 0)][0, :], pos[(1, 1)][-1, :])
    # the tile's heights are the RAW's: 16-bit steps of the 40 m height
    raw = world_tiles.read_tile_heights(str(tmp_path / "world_1_1.raw"), side=SIDE)
    assert np.allclose(pos[(1, 1)][..., 2], raw * np.float32(40.0), atol=1e-4)


def test_esc_leaves_the_scene_as_it_was_and_keeps_the_finished_tiles(empty_scene, driven, tmp_path):
    panel_world(tmp_path)
    before = snapshot()
    RESULT["cancel_at"] = "building tiles: tile_0_0"  # Esc once the first tile is written
    bpy.ops.worldseed.test_world_build()
    assert RESULT["state"] == {"CANCELLED"} and "run" not in RESULT
    assert snapshot() == before
    assert world_build.wait_for_runs(timeout=60)  # the worker ends its running tasks after the Esc
    assert bpy.ops.worldseed.world_build.poll()
    document = core_world.read_world_json(str(tmp_path / "world_world.json"))
    complete = {(t["x"], t["z"]) for t in document["tiles"] if t["complete"]}
    assert (0, 0) in complete  # how many more finished before the Esc landed depends on the machine
    noted = bpy.context.scene.worldseed.world.complete_tiles  # what the panel's grid shows as built
    assert (0, 0) in {tuple(int(v) for v in t.split(",")) for t in noted.split(";")}
    timer = world_ops._noting_when_stopped(bpy.context.scene.name, str(tmp_path))  # Esc's timer, run by hand
    assert timer() is None  # the worker has ended: noted, no further calls
    noted = bpy.context.scene.worldseed.world.complete_tiles
    assert {tuple(int(v) for v in t.split(",")) for t in noted.split(";")} == complete
    # Esc while the tiles become objects (the run has finished every tile): nothing of them stays either
    RESULT.clear()
    RESULT["cancel_at"] = "tile 1, 0"
    bpy.ops.worldseed.test_world_build()
    assert RESULT["state"] == {"CANCELLED"} and snapshot() == before
    document = core_world.read_world_json(str(tmp_path / "world_world.json"))
    assert all(t["complete"] for t in document["tiles"])
    # the next build keeps the finished tiles: nothing to build, only to assemble
    RESULT.clear()
    bpy.ops.worldseed.test_world_build()
    run = RESULT["run"]
    assert run.built == () and sorted(run.skipped) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert bpy.context.scene.worldseed.world.complete_tiles == "0,0;1,0;0,1;1,1"
    assert sorted(o.name for o in bpy.data.objects) == ["world_0_0", "world_0_1", "world_1_0", "world_1_1"]


def test_build_tiles_of_an_eroded_world_with_rivers_plans_them_once_and_esc_stops_between_tasks(
    empty_scene, driven, tmp_path
):
    """Erosion and rivers in a tiled world (once refused): Build Tiles erodes every window, then the
    world task plans the rivers on the stitched eroded heights, then the tiles carve them; the status
    line names each task as it rises, Esc after the world task leaves the scene as it was, and the next
    build reuses the stitched heights (its world task needs no window) and gives every tile its rivers."""
    settings = panel_world(tmp_path, erosion=True)
    settings.rivers.enabled = True
    before = snapshot()
    RESULT["cancel_at"] = "building tiles: world"
    bpy.ops.worldseed.test_world_build()
    assert RESULT["state"] == {"CANCELLED"} and snapshot() == before
    assert world_build.wait_for_runs(timeout=60)
    keys = [label.split(": ", 1)[1] for label in RESULT["labels"] if label.startswith("building tiles: ")]
    world = keys.index("world")
    assert {k for k in keys[:world] if k.startswith(("window_", "tile_"))} == {
        "window_0_0",
        "window_0_1",
        "window_1_0",
        "window_1_1",
    }
    assert not any(k.startswith("tile_") for k in keys[:world])  # the tiles carve the plan: after it
    cache = core_world.cache_folder(str(tmp_path), "world")
    assert os.path.isfile(os.path.join(cache, "world_heights.npz"))
    RESULT.clear()
    bpy.ops.worldseed.test_world_build()  # the tiles finished before the Esc landed are kept
    run = RESULT["run"]
    assert RESULT["state"] == {"FINISHED"} and sorted(run.built + run.skipped) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    rivers = sorted(o.name for o in bpy.data.objects if o.name.endswith("_Rivers"))
    assert rivers and all(bpy.data.objects[n].parent.name == n[: -len("_Rivers")] for n in rivers)
    # the tiles' carved RAW heights still join along their seams
    a, b = (world_tiles.read_tile_heights(str(tmp_path / f"world_{x}_0.raw"), side=SIDE) for x in (0, 1))
    assert np.array_equal(a[:, 0], b[:, -1])  # Blender order: tile (1, 0) lies at -X


def test_building_again_replaces_the_tiles_and_builds_a_range(empty_scene, driven, tmp_path):
    settings = panel_world(tmp_path, lods=2)
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}  # background: at once
    names = sorted(o.name for o in bpy.data.objects)
    assert len(names) == 12 and "world_1_1_LOD1" in names
    settings.world.build_all = False
    settings.world.x0, settings.world.x1, settings.world.z0, settings.world.z1 = 1, 1, 0, 1
    settings.terrain.seed = 4  # another recipe: its tiles are built anew
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    assert sorted(o.name for o in bpy.data.objects) == names  # replaced in place, no .001
    document = core_world.read_world_json(str(tmp_path / "world_world.json"))
    assert sorted((t["x"], t["z"]) for t in document["tiles"] if t["complete"]) == [(1, 0), (1, 1)]
    # the tiles still in the scene from the first seed no longer match the folder: not exported
    with pytest.raises(RuntimeError, match="tiles world_0_0, world_0_1 in the scene do not match the tile files"):
        bpy.ops.worldseed.world_export()
    assert not list(tmp_path.glob("*.fbx"))


def test_a_run_that_fails_is_reported_and_leaves_the_scene(empty_scene, driven, tmp_path):
    blocked = tmp_path / "a_file"
    blocked.write_text("not a folder")
    panel_world(blocked)  # the world folder is a file: the run cannot write there
    before = snapshot()
    with pytest.raises(RuntimeError, match="a_file' is a file"):
        bpy.ops.worldseed.test_world_build()
    assert snapshot() == before
    assert "a_file' is a file" in bpy.context.scene.worldseed.world.last_error
    # a failure inside the run (the folder cannot be made) ends the modal build with the error
    panel_world(blocked / "tiles")
    with pytest.raises(RuntimeError, match="Not a directory"):
        bpy.ops.worldseed.test_world_build()
    assert RESULT["state"] == {"CANCELLED"} and snapshot() == before


def test_export_world_runs_modally_and_esc_leaves_the_folder_as_it_was(empty_scene, driven, tmp_path):
    panel_world(tmp_path)
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    files = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    RESULT["cancel_at"] = "writing world_1_0.fbx"  # Esc with world_0_0.fbx written (staged)
    bpy.ops.worldseed.test_world_export()
    assert RESULT["state"] == {"CANCELLED"}
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == files  # all or nothing
    RESULT.clear()
    bpy.ops.worldseed.test_world_export()
    assert RESULT["state"] == {"FINISHED"}
    assert sorted(os.path.basename(p) for p in RESULT["result"]) == [
        "world_0_0.fbx",
        "world_0_1.fbx",
        "world_1_0.fbx",
        "world_1_1.fbx",
        "world_world.json",
    ]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".worldseed")]  # no staging left behind
