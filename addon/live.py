"""Property update callbacks: Auto Update of any family, read from its adapter (``operators.bridge.sections``).

Update callbacks fire on every step of a slider drag, so a rebuild is deferred to a one-shot timer
that coalesces a burst of changes. Timers do not run while a background script holds the main
thread, so there the rebuild happens at once.  In a window, a rebuild worth showing progress (a
terrain that erodes or is large, a scatter whose terrain's layers must be worked out first: the
adapter's ``Plan.modal``) goes through the family's Update operator (progress, Esc), and a change made
while such a build runs is rebuilt once it is done.  A family whose adapter says ``auto_modal =
False`` (levels) rebuilds at once what is quick (``adapter.live``) and leaves the rest to its Update
operator, checking the settings all the same (an error shows at once).  Errors end up in the
settings' ``last_error`` (drawn by the panel) and the console, not as tracebacks.

What changes without a callback (rules kept in a Text datablock) is looked at by a slow timer that
asks each adapter to ``watch`` its settings.  Nothing here names a family.
"""

import bpy

from ..core.errors import ParameterError
from ..core.steps import drive
from ..operators.bridge.sections import ADAPTERS, adapter
from ..operators.common import ModalBuild, modal_builds, window_of

#: Auto Update runs waiting for their delay: ``{section key: scene name, or None once run}``.
_pending: dict[str, str | None] = {}
DELAY = 0.15
#: Seconds between looks at what changes without a callback (rule texts edited in the Text Editor).
WATCH_INTERVAL = 0.5


def _schedule(key, scene):
    """Rebuild family ``key`` for ``scene`` soon, once per burst of changes (at once in background runs)."""
    first = _pending.get(key) is None
    _pending[key] = scene.name
    if bpy.app.background:
        _run(key)
    elif first:
        bpy.app.timers.register(lambda: _run(key), first_interval=DELAY)


def updater(key):
    """The update callback of family ``key``'s settings: rebuild its active object soon if its panel's
    Auto Update is on."""

    def on_change(self, context):
        family = adapter(key)
        if family.settings(context.scene).auto_update and family.root(context.active_object) is not None:
            _schedule(key, context.scene)

    on_change.__name__ = f"on_{key}_change"
    return on_change


def _report(settings, rebuild):
    """Run ``rebuild``; its error goes to the settings' ``last_error`` (the panel shows it) and the console."""
    try:
        rebuild()
        settings.last_error = ""
    except ParameterError as err:
        settings.last_error = str(err)
        print(f"Worldseed: {err}")


def _run(key):
    """The deferred rebuild: after any build with progress that runs now (a rebuild of its own, say)."""
    if not bpy.app.background and modal_builds():
        return DELAY  # a modal build is running: the latest settings once it is done
    scene = bpy.data.scenes.get(_pending.get(key) or "")
    _pending[key] = None
    family = adapter(key)
    root = family.root(bpy.context.view_layer.objects.active) if scene is not None else None
    if root is None:
        return None
    settings = family.settings(scene)
    if family.live(settings):
        _report(settings, lambda: auto_rebuild(family, root, scene))
    else:  # left to the Update operator; a typo is still shown at once
        _report(settings, lambda: family.check(root, scene))
    return None


def auto_rebuild(family, root, scene):
    """Auto Update's rebuild of ``root`` from ``scene``'s settings.

    A rebuild worth showing progress goes through the family's Update operator in a window showing the
    scene -- progress, Esc, the UI never frozen -- and returns ``{"RUNNING_MODAL"}``; without such a
    window (background runs, where Blender has no events to drive it), or for a family that rebuilds at
    once, it is built at once and the new root returned.  Bad settings raise
    :class:`~core.errors.ParameterError` before anything is built.
    """
    plan = family.rebuild_plan(root, scene)
    window = None if bpy.app.background or not family.auto_modal else window_of(scene)
    if window is not None and plan.modal:
        plan.steps.close()
        with bpy.context.temp_override(window=window):
            if family.root(bpy.context.active_object) == root:
                module, _, name = family.update_operator.partition(".")
                return getattr(getattr(bpy.ops, module), name)("INVOKE_DEFAULT", auto=True)
    return drive(plan.steps)


def _watch():
    for scene in bpy.data.scenes:
        if getattr(scene, "worldseed", None) is not None:
            for family in ADAPTERS:
                family.watch(family.settings(scene))
    return WATCH_INTERVAL


@bpy.app.handlers.persistent
def _forget_modal_builds(*_args):
    """Loading a file ends every modal operator without a word to it: Auto Update must not wait for them."""
    ModalBuild.running.clear()


def register():
    if not bpy.app.background:
        bpy.app.timers.register(_watch, first_interval=WATCH_INTERVAL, persistent=True)
    if _forget_modal_builds not in bpy.app.handlers.load_pre:
        bpy.app.handlers.load_pre.append(_forget_modal_builds)


def unregister():
    if bpy.app.timers.is_registered(_watch):
        bpy.app.timers.unregister(_watch)
    if _forget_modal_builds in bpy.app.handlers.load_pre:
        bpy.app.handlers.load_pre.remove(_forget_modal_builds)
