"""The modal build (progress bar, Esc to cancel) driven step by step.

Background Blender delivers no events, so a small test operator that shares
the terrain operators' modal machinery (``ModalBuild``) feeds it TIMER and
ESC events by hand, inside a real operator call with a real window manager.
"""

import bpy
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.operators.bridge import terrain as build
from worldseed.operators.common import ModalBuild

from ._modal_cases import drive_modal

RESULT = {}


class WORLDSEED_OT_test_modal(ModalBuild, bpy.types.Operator):
    bl_idname = "worldseed.test_modal"
    bl_label = "Test Modal"
    cancel_after: bpy.props.IntProperty(default=-1)

    def finished(self, context, root):
        RESULT["root"] = root.name

    def execute(self, context):
        recipe = core_recipe.replace(core_recipe.Recipe(), terrain_resolution=65, terrain_lods=3)
        steps = build.terrain_steps(recipe, collection=context.scene.collection)
        return drive_modal(self, context, steps, "test build", RESULT, count_objects=True)


@pytest.fixture
def modal_op():
    bpy.utils.register_class(WORLDSEED_OT_test_modal)
    RESULT.clear()
    yield
    bpy.utils.unregister_class(WORLDSEED_OT_test_modal)


def test_modal_build_runs_to_the_end(empty_scene, modal_op):
    bpy.ops.worldseed.test_modal()
    assert RESULT["state"] == {"FINISHED"} and RESULT["root"] == "World"
    assert sorted(o.name for o in bpy.data.objects) == ["World", "World_LOD0", "World_LOD1", "World_LOD2"]
    assert RESULT["ticks"] > 3


def test_escape_cancels_and_removes_everything(empty_scene, modal_op):
    bpy.ops.worldseed.test_modal(cancel_after=2)
    assert RESULT["state"] == {"CANCELLED"} and "root" not in RESULT
    assert len(bpy.data.objects) == 0 and len(bpy.data.meshes) == 0
