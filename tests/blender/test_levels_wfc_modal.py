"""WFC levels built modally: the Add Level, Update Level and New Seed modal runs fed TIMER
and ESC events by hand, Esc leaving the scene (and New Seed's seed) as it was, the buttons without a
window, and Auto Update leaving a large or constrained WFC level to Update Level.

Real Blender (the bpy module).
"""

import bpy
import pytest

from worldseed.core import levels as core_levels
from worldseed.core.errors import ParameterError
from worldseed.operators.bridge import levels as bridge_levels
from worldseed.operators.bridge import sections
from worldseed.operators.common import ModalBuild, Rebuild, Reseed

from ._level_cases import IMPOSSIBLE, TILES, level_settings, scene_state, shown_props
from ._modal_cases import drive_modal

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
        spec = core_levels.from_dict(
            dict(TILES, width=70, height=70, wfc_tileset=self.tileset, name="Big", seed=self.seed)
        )
        assert spec.width * spec.height > 64 * 64  # what the Add Level button runs modally
        steps = bridge_levels.build_steps(spec, collection=context.scene.collection)
        return drive_modal(self, context, steps, "level Big", RESULT, count_objects=True)


def _drive(op, context, steps, label):
    """Feed ``op``'s modal run TIMER events (ESC at tick ``op.cancel_after``) to its end, into RESULT."""
    return drive_modal(op, context, steps, label, RESULT)


class _DrivenUpdate:
    """Update Level's (New Seed's) invoke with a window, the modal run's events fed by hand: the real
    operator's mixin (a registered operator is no base class) with its ``execute`` driving the run."""

    cancel_after: bpy.props.IntProperty(default=-1)
    family = "level"

    def finished(self, context, root):
        super().finished(context, root)
        RESULT["root"] = root.name

    def execute(self, context):
        root = bridge_levels.level_root(context.active_object)
        self.prepare(context)
        plan = sections.adapter("level").rebuild_plan(root, context.scene)
        assert plan.modal
        return _drive(self, context, plan.steps, f"level {root.name}")


class WORLDSEED_OT_test_update_modal(_DrivenUpdate, Rebuild, bpy.types.Operator):
    bl_idname = "worldseed.test_update_modal"
    bl_label = "Test Update Modal"


class WORLDSEED_OT_test_reseed_modal(_DrivenUpdate, Reseed, bpy.types.Operator):
    bl_idname = "worldseed.test_reseed_modal"
    bl_label = "Test Reseed Modal"


TEST_OPS = (WORLDSEED_OT_test_level_modal, WORLDSEED_OT_test_update_modal, WORLDSEED_OT_test_reseed_modal)


@pytest.fixture
def modal_op():
    for cls in TEST_OPS:
        bpy.utils.register_class(cls)
    RESULT.clear()
    yield
    for cls in TEST_OPS:
        bpy.utils.unregister_class(cls)


def test_escape_in_a_modal_wfc_build_leaves_the_scene_as_it_was(empty_scene, modal_op):
    before = scene_state()
    bpy.ops.worldseed.test_level_modal()
    assert RESULT["state"] == {"FINISHED"} and RESULT["root"] == "Big"
    assert bridge_levels.is_level(bpy.data.objects["Big"])
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


def test_every_wfc_level_is_modal_and_the_buttons_build_at_once_without_a_window(empty_scene):
    # a small grid with tight counts may search for seconds: every WFC level is modal from a window
    assert bridge_levels.is_modal_level(core_levels.from_dict(dict(TILES, width=4, height=4, wfc_tileset="pipes")))
    assert bridge_levels.is_modal_level(core_levels.from_dict(dict(TILES, width=70, height=60, wfc_tileset="pipes")))
    assert not bridge_levels.is_modal_level(core_levels.from_dict(dict(generator="cave", width=200, height=200)))
    settings = level_settings(**dict(TILES, width=70, height=60), wfc_tileset="pipes", name="Pipes")
    # background Blender has no window for a modal run: the buttons build at once
    assert bpy.ops.worldseed.level_add("INVOKE_DEFAULT", from_settings=True) == {"FINISHED"}
    assert bpy.context.active_object.name == "Pipes"
    settings.seed = 77
    assert bpy.ops.worldseed.level_update("INVOKE_DEFAULT") == {"FINISHED"}
    assert bridge_levels.stored_spec(bpy.context.active_object).seed == 77
    assert bpy.ops.worldseed.level_reseed("INVOKE_DEFAULT") == {"FINISHED"}
    assert settings.seed != 77 and bridge_levels.stored_spec(bpy.context.active_object).seed == settings.seed


def _big_level(**values):
    """A 70x70 dungeon added from the panel (at once, no window), active; the settings."""
    settings = level_settings(**dict(TILES, width=70, height=70, seed=4), wfc_tileset="dungeon", name="Big", **values)
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    return settings


def test_update_level_runs_modal_and_escape_leaves_the_level_as_it_was(empty_scene, modal_op):
    settings = _big_level()
    root = bpy.data.objects["Big"]
    root["artist_note"] = "keep me"
    # Esc at the start, while solving, before the build: the old level, untouched
    for seed, cancel in ((5, 0), (6, 3), (7, 1)):
        settings.seed = seed
        before = scene_state()
        RESULT.clear()
        bpy.ops.worldseed.test_update_modal(cancel_after=cancel)
        assert RESULT["state"] == {"CANCELLED"} and "root" not in RESULT
        assert scene_state() == before and bridge_levels.stored_spec(bpy.data.objects["Big"]).seed == 4
    settings.seed = 8
    RESULT.clear()
    bpy.ops.worldseed.test_update_modal()
    assert RESULT["state"] == {"FINISHED"} and RESULT["root"] == "Big" and RESULT["ticks"] > 2
    root = bpy.data.objects["Big"]
    assert bridge_levels.stored_spec(root).seed == 8 and root["artist_note"] == "keep me"
    assert bpy.context.active_object == root
    assert len([o for o in bpy.data.objects if bridge_levels.is_level(o)]) == 1


def test_escape_in_new_seed_gives_the_panel_its_seed_back(empty_scene, modal_op):
    settings = _big_level()
    before = scene_state()
    bpy.ops.worldseed.test_reseed_modal(cancel_after=1)
    assert RESULT["state"] == {"CANCELLED"} and scene_state() == before
    assert settings.seed == 4 == bridge_levels.stored_spec(bpy.data.objects["Big"]).seed
    RESULT.clear()
    bpy.ops.worldseed.test_reseed_modal()
    assert RESULT["state"] == {"FINISHED"} and settings.seed != 4
    assert bridge_levels.stored_spec(bpy.data.objects["Big"]).seed == settings.seed


def test_auto_update_leaves_a_large_or_constrained_wfc_level_to_update_level(empty_scene):
    hint = "label: Large or constrained WFC level: press Update Level"
    settings = level_settings(**dict(TILES, width=20, height=20), wfc_tileset="dungeon", name="Live", connected=False)
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    settings.auto_update = True
    assert hint not in shown_props(auto_update=True)
    settings.seed = 11  # small, no counts: rebuilt at once
    assert bridge_levels.stored_spec(bpy.data.objects["Live"]).seed == 11
    for values in ({"counts": "door=1-"}, {"connected": True}, {"width": 65, "height": 64}):
        level_settings(**values, auto_update=True)
        assert not settings.live_rebuilds() and hint in shown_props(auto_update=True)
        settings.seed += 1  # not rebuilt: the level keeps its seed
        assert bridge_levels.stored_spec(bpy.data.objects["Live"]).seed == 11, values
        level_settings(counts="", connected=False, width=20, height=20, auto_update=True)
    assert settings.live_rebuilds() and settings.last_error == ""
    # a setting left to Update Level is still checked: a typo shows at once, its fix clears it
    level_settings(connected=True, auto_update=True)
    settings.counts = "door=abc"
    assert "counts" in settings.last_error and "abc" in settings.last_error
    settings.counts = "door=1-"
    assert settings.last_error == "" and bridge_levels.stored_spec(bpy.data.objects["Live"]).seed == 11
    level_settings(counts="", connected=False, auto_update=True)
    settings.seed = 13
    assert bridge_levels.stored_spec(bpy.data.objects["Live"]).seed == 13
    # other generators rebuild whatever their size
    level_settings(generator="cave", width=200, height=200)
    assert settings.live_rebuilds() and hint not in shown_props(auto_update=True)


def test_a_contradiction_in_a_modal_build_is_reported_and_builds_nothing(empty_scene, modal_op, tmp_path):
    path = tmp_path / "impossible.toml"
    path.write_text(IMPOSSIBLE)
    before = scene_state()
    with pytest.raises(RuntimeError, match=r"cell \(\d+, \d+\)"):
        bpy.ops.worldseed.test_level_modal(tileset=str(path))
    assert RESULT["state"] == {"CANCELLED"} and scene_state() == before


def test_a_level_deleted_while_its_update_runs_is_an_error_not_a_crash(empty_scene):
    _big_level()
    level_settings(seed=9)
    steps = sections.adapter("level").rebuild_plan(bpy.data.objects["Big"], bpy.context.scene).steps
    next(steps), next(steps)
    bpy.data.objects.remove(bpy.data.objects["Big"])
    with pytest.raises(ParameterError, match="'Big' was deleted while it was made"):
        for _ in steps:
            pass
