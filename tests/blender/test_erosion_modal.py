"""Erosion never freezes the UI: New Seed, Update Terrain (also as Auto Update and after a
preset) rebuild a terrain that erodes through the modal build -- progress, Esc -- when there is a
window; without one (background runs) they build at once, the same terrain.

Background Blender calls ``execute`` for ``INVOKE_DEFAULT`` and delivers no events, so the tests
call the real operators' ``invoke`` from subclasses that feed the modal build its TIMER (and Esc)
events by hand.
"""

import types

import bpy
import numpy as np
import pytest

from worldseed.addon import live
from worldseed.core import terrain as core_terrain
from worldseed.operators import scatter as scatter_ops
from worldseed.operators import terrain as terrain_ops
from worldseed.operators.bridge import scatter as bridge_scatter
from worldseed.operators.bridge import sections
from worldseed.operators.bridge import terrain_layers as bridge_layers
from worldseed.operators.bridge.terrain import terrain_root
from worldseed.operators.common import ModalBuild, modal_builds, window_of

from .test_erosion_build import Tap

RESULT = {}


def _settings():
    return bpy.context.scene.worldseed.terrain


def _eroding(droplets=600_000.0, seed=5):
    settings = _settings()
    settings.name = "Hills"
    settings.seed = seed
    settings.resolution = 65
    settings.size = 128.0
    settings.height = 30.0
    settings.lods = 1
    settings.erosion_enabled = True
    settings.erosion_droplets_per_km2 = droplets
    return settings


def _z(obj):
    me = obj.data
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.attributes["position"].data.foreach_get("vector", co)
    return co[2::3]


def _expected_z(scene):
    """The eroded heights core makes of the sidebar's recipe, without Blender."""
    recipe = sections.adapter("terrain").scene_recipe(scene)
    heights = core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed)
    layers = core_terrain.terrain_layers(heights, terrain_spec=recipe.terrain, seed=recipe.world.seed, flow=True)
    return layers.heights.metres.ravel()


def _snapshot():
    return (
        sorted(o.name for o in bpy.data.objects),
        sorted(m.name for m in bpy.data.meshes),
        sorted(m.name for m in bpy.data.materials),
    )


class Driven:
    """Mixed into a real terrain operator: ``execute`` calls its ``invoke`` (as a button in a window
    does), and the modal build it starts is fed TIMER events -- Esc once the label
    ``RESULT["cancel_at"]`` has shown -- until it ends."""

    def execute(self, context):
        if RESULT.get("inside"):  # invoke fell back to execute: the build at once
            RESULT["path"] = "at once"
            return super().execute(context)
        RESULT["inside"] = True
        RESULT["path"] = "at once"  # unless invoke starts a modal run (start_modal below)
        try:
            RESULT["invoked"] = self.invoke(context, types.SimpleNamespace(type="NONE", value="NOTHING"))
        finally:
            RESULT["inside"] = False
        return {"FINISHED"}

    def can_run_modal(self, context):
        return True  # the events are fed by hand below

    def start_modal(self, context, steps, label, *, handler=True):
        RESULT["path"] = "modal"
        labels = RESULT.setdefault("labels", [])
        state = super().start_modal(context, Tap(steps, labels), label, handler=False)
        RESULT["running"] = modal_builds()
        cancel_at = RESULT.get("cancel_at")
        while state == {"RUNNING_MODAL"}:
            cancel = cancel_at is not None and cancel_at in labels
            state = self.modal(context, types.SimpleNamespace(type="ESC" if cancel else "TIMER", value="PRESS"))
        RESULT["state"] = state
        return {"RUNNING_MODAL"}


def _driven(cls, idname):
    """A test operator running ``cls``'s own methods (copied: a registered operator class is not
    subclassed, which would unhook Blender's class for it), driven by :class:`Driven`."""
    own = {k: v for k, v in vars(cls).items() if not k.startswith("__") and not k.startswith("bl_")}
    base = type(f"{cls.__name__}_methods", tuple(b for b in cls.__bases__ if b is not bpy.types.Operator), own)
    namespace = {"bl_idname": idname, "bl_label": idname, "__annotations__": dict(getattr(cls, "__annotations__", {}))}
    return type(idname.replace(".", "_OT_"), (Driven, base, bpy.types.Operator), namespace)


TEST_OPERATORS = (
    _driven(terrain_ops.WORLDSEED_OT_terrain_reseed, "worldseed.test_reseed_modal"),
    _driven(terrain_ops.WORLDSEED_OT_terrain_update, "worldseed.test_update_modal"),
    _driven(scatter_ops.WORLDSEED_OT_scatter_add, "worldseed.test_scatter_add_modal"),
    _driven(scatter_ops.WORLDSEED_OT_scatter_update, "worldseed.test_scatter_update_modal"),
)


@pytest.fixture
def driven():
    for cls in TEST_OPERATORS:
        bpy.utils.register_class(cls)
    RESULT.clear()
    bridge_layers.forget()
    yield
    for cls in TEST_OPERATORS:
        bpy.utils.unregister_class(cls)
    ModalBuild.running.clear()


def _add_terrain():
    assert bpy.ops.worldseed.terrain_add(from_settings=True) == {"FINISHED"}
    return terrain_root(bpy.context.active_object)


def test_new_seed_with_erosion_rebuilds_modally_with_progress(empty_scene, driven):
    _eroding()
    root = _add_terrain()
    assert bpy.context.window is not None  # the bpy module has a window: the modal path is the one taken
    bpy.ops.worldseed.test_reseed_modal()
    assert RESULT["path"] == "modal" and RESULT["invoked"] == {"RUNNING_MODAL"}
    assert RESULT["running"] == 1 and modal_builds() == 0  # counted while it ran
    assert RESULT["state"] == {"FINISHED"}
    assert "erosion" in RESULT["labels"] and "done" in RESULT["labels"]
    assert _settings().seed != 5
    assert terrain_root(bpy.context.active_object) == root
    np.testing.assert_array_equal(_z(root), _expected_z(bpy.context.scene))  # the seed's eroded terrain


@pytest.mark.parametrize("idname", ["test_reseed_modal", "test_update_modal"])
def test_a_long_erosion_is_reported_when_the_modal_build_starts(empty_scene, driven, monkeypatch, capfd, idname):
    # a new-user trial: erosion at the allowed maximum on a 4 km terrain ran for minutes without a word
    from worldseed.operators.bridge import terrain as bridge_terrain

    _eroding()
    _add_terrain()
    monkeypatch.setattr(bridge_terrain, "NOTE_SECONDS", 0.0)  # this small terrain's second counts as long
    capfd.readouterr()
    getattr(bpy.ops.worldseed, idname)()
    assert RESULT["path"] == "modal" and RESULT["state"] == {"FINISHED"}
    note = bridge_terrain.erosion_note(sections.adapter("terrain").scene_recipe(bpy.context.scene))
    assert note.startswith("erosion of 9,830 droplets of up to 50 steps on 65 x 65 vertices: about 0 s of CPU")
    assert f"Info: Worldseed: E{note[1:]}" in capfd.readouterr().out.splitlines()  # Blender's report line


def test_new_seed_without_erosion_on_a_small_terrain_builds_at_once(empty_scene, driven):
    _eroding().erosion_enabled = False
    root = _add_terrain()
    bpy.ops.worldseed.test_reseed_modal()
    assert RESULT["invoked"] == {"FINISHED"} and "state" not in RESULT  # no modal build started
    np.testing.assert_array_equal(
        _z(root),
        core_terrain.terrain_heights(
            sections.adapter("terrain").scene_recipe(bpy.context.scene).terrain, seed=_settings().seed
        ).metres.ravel(),
    )


def test_esc_during_new_seed_keeps_the_terrain_and_the_seed(empty_scene, driven):
    settings = _eroding(droplets=1_000_000.0)  # several erosion steps: Esc lands inside them
    root = _add_terrain()
    z = _z(root).copy()
    before = _snapshot()
    RESULT["cancel_at"] = "erosion"
    bpy.ops.worldseed.test_reseed_modal()
    assert RESULT["path"] == "modal" and RESULT["state"] == {"CANCELLED"}
    assert RESULT["labels"][-1] == "erosion"  # stopped inside the erosion
    assert settings.seed == 5  # the panel's seed is the terrain's again
    assert _snapshot() == before
    np.testing.assert_array_equal(_z(root), z)


def test_update_as_auto_update_runs_modally_and_equals_the_build_at_once(empty_scene, driven):
    settings = _eroding()
    root = _add_terrain()
    settings.seed = 8  # auto update is off: nothing rebuilt yet
    settings.last_error = "an earlier error"
    bpy.ops.worldseed.test_update_modal(auto=True)
    assert RESULT["path"] == "modal" and RESULT["state"] == {"FINISHED"}
    assert settings.last_error == ""  # an automatic rebuild that worked clears it
    modal_z = _z(root).copy()
    # the same settings built at once (background: what Auto Update does without a window)
    bridge_layers.forget()
    assert live._pending.get("terrain") is None
    assert live.auto_rebuild(sections.adapter("terrain"), root, bpy.context.scene) == root
    np.testing.assert_array_equal(_z(root), modal_z)
    np.testing.assert_array_equal(modal_z, _expected_z(bpy.context.scene))


def test_auto_update_with_erosion_rebuilds_the_terrain_in_background(empty_scene):
    settings = _eroding()
    root = _add_terrain()
    settings.auto_update = True
    settings.erosion_droplets_per_km2 = 900_000.0  # background: rebuilt at once by the update callback
    assert settings.last_error == ""
    np.testing.assert_array_equal(_z(root), _expected_z(bpy.context.scene))


def test_auto_rebuild_with_bad_settings_raises_before_building(empty_scene):
    settings = _eroding()
    root = _add_terrain()
    z = _z(root).copy()
    settings.size = 128.0
    settings.resolution = 257
    settings.erosion_radius = 500.0  # 1,000 cells of 0.5 m: at most 32
    with pytest.raises(Exception, match="radius"):
        live.auto_rebuild(sections.adapter("terrain"), root, bpy.context.scene)
    np.testing.assert_array_equal(_z(root), z)


def test_window_of_finds_the_window_showing_the_scene(empty_scene):
    scene = bpy.context.scene
    assert window_of(scene) == bpy.context.window
    other = bpy.data.scenes.new("Elsewhere")
    try:
        assert window_of(other) is None  # no window shows it: a rebuild there runs at once
    finally:
        bpy.data.scenes.remove(other)


def _points(obj):
    co = np.empty(len(obj.data.vertices) * 3, np.float32)
    obj.data.attributes["position"].data.foreach_get("vector", co)
    return co.reshape(-1, 3)


def _eroded_scatter():
    """An eroded terrain with a scatter of the panel's layers on it, its layers then forgotten (as after
    reopening the .blend): the scatter operators must erode again before they scatter."""
    _eroding()
    root = _add_terrain()
    settings = bpy.context.scene.worldseed.scatter
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    settings.layers[settings.active_layer].radius = 6.0
    settings.seed = 3
    bpy.context.view_layer.objects.active = root
    assert bpy.ops.worldseed.scatter_add() == {"FINISHED"}
    scatter = bpy.context.active_object
    bridge_layers.forget()
    assert bridge_scatter.layers_pending(root)
    return root, scatter


def test_update_scatter_on_a_terrain_that_must_erode_first_runs_modally(empty_scene, driven):
    root, scatter = _eroded_scatter()
    before = _points(scatter).copy()
    RESULT.clear()
    bpy.ops.worldseed.test_scatter_update_modal()
    assert RESULT["path"] == "modal" and RESULT["state"] == {"FINISHED"}
    assert "erosion" in RESULT["labels"]
    assert not bridge_scatter.layers_pending(root)  # kept now
    np.testing.assert_array_equal(_points(scatter), before)  # the same scatter as at once
    # Esc while it erodes: the scatter as it was
    bridge_layers.forget()
    bpy.context.scene.worldseed.scatter.seed = 4
    RESULT.clear()
    RESULT["cancel_at"] = "erosion"
    bpy.ops.worldseed.test_scatter_update_modal()
    assert RESULT["state"] == {"CANCELLED"}
    np.testing.assert_array_equal(_points(scatter), before)


def test_scatter_props_on_a_terrain_that_must_erode_first_runs_modally(empty_scene, driven):
    root, scatter = _eroded_scatter()
    bpy.context.view_layer.objects.active = root
    RESULT.clear()
    bpy.ops.worldseed.test_scatter_add_modal()
    assert RESULT["path"] == "modal" and RESULT["state"] == {"FINISHED"}
    made = bpy.context.active_object
    assert made != scatter and made.parent == root
    np.testing.assert_array_equal(_points(made), _points(scatter))  # same layers and seed: same points


def test_scatter_on_kept_layers_runs_at_once(empty_scene, driven):
    root, scatter = _eroded_scatter()
    bpy.context.view_layer.objects.active = scatter
    RESULT.clear()
    bpy.ops.worldseed.test_scatter_update_modal()  # erodes once (modal) ...
    RESULT.clear()
    bpy.ops.worldseed.test_scatter_update_modal()  # ... then the layers are kept: at once
    assert RESULT["invoked"] == {"FINISHED"} and RESULT["path"] == "at once"
    assert live.auto_rebuild(sections.adapter("scatter"), scatter, bpy.context.scene) == scatter  # background: at once
