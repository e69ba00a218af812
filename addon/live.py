"""Property update callbacks: auto update of terrains, scatters and levels, and the rule errors the Trees panel shows.

Update callbacks fire on every step of a slider drag, so a rebuild is
deferred to a one-shot timer that coalesces a burst of changes. Timers do
not run while a background script holds the main thread, so there the
rebuild happens at once.  In a window, a terrain rebuild that erodes (or is
large) goes through Update Terrain's modal build (progress, Esc), and a change
made while such a build runs is rebuilt once it is done.  A level rebuilds at once, but for a WFC
level that may search for seconds (large, or with counts or ``connected``): Auto Update leaves it to
Update Level (progress, Esc) and the panel says so (the settings are still checked: an error shows at
once). Errors end up in the settings' ``last_error`` (drawn
by the panel) and the console, not as tracebacks.

Rules are checked here, when they change, never while a panel draws: the
result goes to the tree settings' ``rule_error``.  Rules kept in a Text
datablock change without any callback, so a slow timer looks at those texts.
"""

import bpy

from ..core import trees as core_trees
from ..core.errors import ParameterError
from ..operators import level as level_ops
from ..operators import scatter as scatter_ops
from ..operators import terrain as terrain_ops
from ..operators.bridge.query import level_root, scatter_of, terrain_root
from ..operators.common import ModalBuild, modal_builds

_pending = {"terrain": None, "scatter": None, "level": None}
DELAY = 0.15
#: Seconds between looks at rule texts edited in the Text Editor.
TEXT_WATCH_INTERVAL = 0.5


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


def on_terrain_change(self, context):
    """Rebuild the active terrain soon if the Terrain panel's Auto Update is on."""
    if context.scene.worldseed.terrain.auto_update and terrain_root(context.active_object) is not None:
        _schedule("terrain", context.scene, _run_terrain)


def _run_terrain():
    """The deferred terrain rebuild: after any build with progress that runs now (a rebuild of its
    own, say), through Update Terrain's modal build when it erodes (:func:`terrain_ops.auto_rebuild`)."""
    if not bpy.app.background and modal_builds():
        return DELAY  # a modal build is running: the latest settings once it is done
    scene = _take("terrain")
    root = terrain_root(bpy.context.view_layer.objects.active) if scene is not None else None
    if root is not None:
        _report(scene.worldseed.terrain, lambda: terrain_ops.auto_rebuild(root, scene))
    return None


def on_scatter_change(self, context):
    """Re-scatter the active scatter soon if the Scatter panel's Auto Update is on."""
    if context.scene.worldseed.scatter.auto_update and scatter_of(context.active_object) is not None:
        _schedule("scatter", context.scene, _run_scatter)


def _run_scatter():
    """The deferred re-scatter: after any build with progress that runs now, modal when the terrain's
    layers must be worked out first (:func:`scatter_ops.auto_rescatter`)."""
    if not bpy.app.background and modal_builds():
        return DELAY
    scene = _take("scatter")
    obj = scatter_of(bpy.context.view_layer.objects.active) if scene is not None else None
    if obj is not None:
        _report(scene.worldseed.scatter, lambda: scatter_ops.auto_rescatter(obj, scene))
    return None


def on_level_change(self, context):
    """Rebuild the active level soon if the Levels panel's Auto Update is on."""
    if context.scene.worldseed.level.auto_update and level_root(context.active_object) is not None:
        _schedule("level", context.scene, _run_level)


def _run_level():
    """The deferred level rebuild: after any build with progress that runs now (an Update Level of a WFC
    level, say); never of a WFC level whose search may take seconds (:func:`level_ops.live_rebuilds`:
    the panel says to press Update Level, which shows progress and takes Esc)."""
    if not bpy.app.background and modal_builds():
        return DELAY
    scene = _take("level")
    root = level_root(bpy.context.view_layer.objects.active) if scene is not None else None
    if root is not None and level_ops.live_rebuilds(scene.worldseed.level):
        _report(scene.worldseed.level, lambda: level_ops.rebuild_from_settings(root, scene))
    elif root is not None:  # left to Update Level; a typo is still shown at once
        _report(scene.worldseed.level, lambda: level_ops.check_update(root, scene))
    return None


def refresh_rule_error(settings):
    """Check the tree settings' rules and keep why they do not parse in ``rule_error`` ("" when they do)."""
    error = core_trees.rule_error(settings.axiom, settings.rules_source(), settings.constants)
    if settings.rule_error != error:
        settings.rule_error = error


def on_rules_change(self, context):
    """Update callback of the axiom, the rules, the constants and the rules text."""
    refresh_rule_error(self)


def _watch_rule_texts():
    for scene in bpy.data.scenes:
        settings = getattr(scene, "worldseed", None)
        if settings is not None and settings.trees.rules_text is not None:
            refresh_rule_error(settings.trees)
    return TEXT_WATCH_INTERVAL


@bpy.app.handlers.persistent
def _forget_modal_builds(*_args):
    """Loading a file ends every modal operator without a word to it: Auto Update must not wait for them."""
    ModalBuild.running.clear()


def register():
    if not bpy.app.background:
        bpy.app.timers.register(_watch_rule_texts, first_interval=TEXT_WATCH_INTERVAL, persistent=True)
    if _forget_modal_builds not in bpy.app.handlers.load_pre:
        bpy.app.handlers.load_pre.append(_forget_modal_builds)


def unregister():
    if bpy.app.timers.is_registered(_watch_rule_texts):
        bpy.app.timers.unregister(_watch_rule_texts)
    if _forget_modal_builds in bpy.app.handlers.load_pre:
        bpy.app.handlers.load_pre.remove(_forget_modal_builds)
