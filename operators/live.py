"""Auto update: rebuild the active Worldseed terrain when a sidebar setting changes.

Property update callbacks fire on every step of a slider drag, so the rebuild
is deferred to a one-shot timer that coalesces a burst of changes. Timers do
not run while a background script holds the main thread, so there the
rebuild happens at once. Errors end up in the settings' ``last_error`` (drawn
by the panel) and the console, not as tracebacks.
"""
import contextlib

import bpy

from . import build
from ..core._checks import ParameterError

_pending = {"scene": None, "scatter": None}
DELAY = 0.15


@contextlib.contextmanager
def paused(settings):
    """Change several settings without one auto update per change."""
    auto = settings.auto_update
    settings.auto_update = False
    try:
        yield settings
    finally:
        settings.auto_update = auto


def schedule_update(context):
    settings = context.scene.worldseed.terrain
    if not settings.auto_update or build.terrain_root(context.active_object) is None:
        return
    if bpy.app.background:
        _pending["scene"] = context.scene.name
        _run()
        return
    first = _pending["scene"] is None
    _pending["scene"] = context.scene.name
    if first:
        bpy.app.timers.register(_run, first_interval=DELAY)


def _run():
    scene = bpy.data.scenes.get(_pending["scene"] or "")
    _pending["scene"] = None
    if scene is None:
        return None
    settings = scene.worldseed.terrain
    root = build.terrain_root(bpy.context.view_layer.objects.active)
    if root is None:
        return None
    from . import terrain
    try:
        terrain.rebuild_from_settings(root, scene)
        settings.last_error = ""
    except ParameterError as err:
        settings.last_error = str(err)
        print(f"Worldseed: {err}")
    return None


def schedule_scatter_update(context):
    """Re-scatter the active scatter soon (at once in background runs) if Auto Update is on."""
    settings = context.scene.worldseed.scatter
    from .scatter import scatter_of
    if not settings.auto_update or scatter_of(context.active_object) is None:
        return
    first = _pending["scatter"] is None
    _pending["scatter"] = context.scene.name
    if bpy.app.background:
        _run_scatter()
    elif first:
        bpy.app.timers.register(_run_scatter, first_interval=DELAY)


def _run_scatter():
    scene = bpy.data.scenes.get(_pending["scatter"] or "")
    _pending["scatter"] = None
    if scene is None:
        return None
    from . import scatter
    obj = scatter.scatter_of(bpy.context.view_layer.objects.active)
    if obj is None:
        return None
    settings = scene.worldseed.scatter
    try:
        scatter.rescatter(obj, scene)
        settings.last_error = ""
    except ParameterError as err:
        settings.last_error = str(err)
        print(f"Worldseed: {err}")
    return None
