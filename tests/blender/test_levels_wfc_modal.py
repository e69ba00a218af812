"""WFC levels built modally (issue 11): the Add Level modal run fed TIMER and ESC events by hand, Esc
leaving the scene as it was, and the Add Level button without a window.

Real Blender (the bpy module).
"""

import types

import bpy
import pytest

from worldseed.core import levels as core_levels
from worldseed.operators.bridge import level as bridge_level
from worldseed.operators.bridge import query
from worldseed.operators.common import ModalBuild

from ._level_cases import IMPOSSIBLE, TILES, level_settings, scene_state

RESULT = {}


class WORLDSEED_OT_test_level_modal(ModalBuild, bpy.types.Operator):
    """The Add Level modal run (:func:`bridge.level.build_steps`) fed TIMER and ESC events by hand."""

    bl_idname = "worldseed.test_level_modal"
    bl_label = "Test Level Modal"
    cancel_after: bpy.props.IntProperty(default=-1)
    tileset: bpy.props.StringProperty(default="dungeon")
    seed: bpy.props.IntProperty(default=4)

    def finished(self, context, root):
        RESULT["root"] = root.name

    def execute(self, context):
        spec = core_levels.from_dict(dict(TILES, width=70, height=70, tileset=self.tileset, name="Big", seed=self.seed))
        assert spec.width * spec.height > 64 * 64  # what the Add Level button runs modally
        steps = bridge_level.build_steps(spec, collection=context.scene.collection)
        assert self.start_modal(context, steps, "level Big", handler=False) == {"RUNNING_MODAL"}
        ticks, state = 0, {"RUNNING_MODAL"}
        while state == {"RUNNING_MODAL"}:
            kind = "ESC" if ticks == self.cancel_after else "TIMER"
            state = self.modal(context, types.SimpleNamespace(type=kind, value="PRESS"))
            ticks += 1
            RESULT.setdefault("objects", []).append(len(bpy.data.objects))
        RESULT["state"], RESULT["ticks"] = state, ticks
        return {"FINISHED"}


@pytest.fixture
def modal_op():
    bpy.utils.register_class(WORLDSEED_OT_test_level_modal)
    RESULT.clear()
    yield
    bpy.utils.unregister_class(WORLDSEED_OT_test_level_modal)


def test_escape_in_a_modal_wfc_build_leaves_the_scene_as_it_was(empty_scene, modal_op):
    before = scene_state()
    bpy.ops.worldseed.test_level_modal()
    assert RESULT["state"] == {"FINISHED"} and RESULT["root"] == "Big"
    assert query.is_level(bpy.data.objects["Big"])
    ticks = RESULT["ticks"]
    assert ticks > 4  # the solver's progress, then the build
    assert RESULT["objects"][:-1] == [0] * (ticks - 1)  # nothing is made before the last step
    # Esc at the start, while solving, before the build (other seeds: a level made once is cached)
    for seed, cancel in ((5, 1), (6, ticks // 2), (4, 0)):
        before = scene_state()
        RESULT.clear()
        bpy.ops.worldseed.test_level_modal(cancel_after=cancel, seed=seed)
        assert RESULT["state"] == {"CANCELLED"} and "root" not in RESULT
        assert scene_state() == before


def test_the_add_level_button_on_a_large_wfc_grid_builds_without_a_window(empty_scene):
    from worldseed.operators.level import MODAL_WFC_CELLS, is_modal_level

    level_settings(**dict(TILES, width=70, height=60), wfc_tileset="pipes", name="Pipes")
    spec = core_levels.from_dict(dict(TILES, width=70, height=60, tileset="pipes"))
    assert is_modal_level(spec) and 70 * 60 > MODAL_WFC_CELLS
    assert not is_modal_level(core_levels.from_dict(dict(TILES, tileset="pipes")))
    # background Blender has no window for a modal run: the button builds at once
    assert bpy.ops.worldseed.level_add("INVOKE_DEFAULT", from_settings=True) == {"FINISHED"}
    assert bpy.context.active_object.name == "Pipes"


def test_a_contradiction_in_a_modal_build_is_reported_and_builds_nothing(empty_scene, modal_op, tmp_path):
    path = tmp_path / "impossible.toml"
    path.write_text(IMPOSSIBLE)
    before = scene_state()
    with pytest.raises(RuntimeError, match=r"cell \(\d+, \d+\)"):
        bpy.ops.worldseed.test_level_modal(tileset=str(path))
    assert RESULT["state"] == {"CANCELLED"} and scene_state() == before
