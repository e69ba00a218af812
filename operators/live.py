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


def _schedule(key, scene, runner):
    """Run ``runner`` for ``scene`` soon, once per burst of changes (at once in background runs)."""
    first = _pending[key] is None
    _pending[key] = scene.name
    if bpy.app.background:
        runner()
    elif first:
        bpy.app.timers.register(runner, first_interval=DELAY)


def _take(key):
    scene = bpy.data.scenes.get(_pending[key] or "")
    _pending[key] = None
    return scene


def _report(settings, rebuild):
    """Run ``rebuild``; its error goes to the settings' ``last_error`` (the panel shows it) and the console."""
    try:
        rebuild()
        settings.last_error = ""
    except ParameterError as err:
        settings.last_error = str(err)
        print(f"Worldseed: {err}")


def schedule_update(context):
    """Rebuild the active terrain soon if the Terrain panel's Auto Update is on."""
    if context.scene.worldseed.terrain.auto_update and build.terrain_root(context.active_object) is not None:
        _schedule("scene", context.scene, _run)


def _run():
    scene = _take("scene")
    root = build.terrain_root(bpy.context.view_layer.objects.active) if scene is not None else None
    if root is not None:
        from . import terrain
        _report(scene.worldseed.terrain, lambda: terrain.rebuild_from_settings(root, scene))
    return None


def schedule_scatter_update(context):
    """Re-scatter the active scatter soon if the Scatter panel's Auto Update is on."""
    from .scatter import scatter_of
    if context.scene.worldseed.scatter.auto_update and scatter_of(context.active_object) is not None:
        _schedule("scatter", context.scene, _run_scatter)


def _run_scatter():
    from . import scatter
    scene = _take("scatter")
    obj = scatter.scatter_of(bpy.context.view_layer.objects.active) if scene is not None else None
    if obj is not None:
        _report(scene.worldseed.scatter, lambda: scatter.rescatter(obj, scene))
    return None
