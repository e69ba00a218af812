"""What every family's operators share: selecting the result, a fresh seed, builds with progress and Esc."""

import contextlib
import importlib
import importlib.util
import os

import bpy

from ..core.errors import ParameterError

__all__ = [
    "select_only",
    "new_seed",
    "ModalBuild",
    "modal_vertices",
    "MODAL_VERTICES",
    "family_modules",
    "paused_auto_update",
    "modal_builds",
    "window_of",
]

#: Builds with more vertices than this run modally, with progress and Esc to cancel
#: (the add-on preferences can change it).
MODAL_VERTICES = 600_000


def select_only(context, obj):
    """Make ``obj`` the only selected object and the active one (nothing when ``obj`` is None)."""
    for o in context.view_layer.objects:
        if o is not None and o.select_get():
            o.select_set(False)
    if obj is None:
        return
    obj.select_set(True)
    context.view_layer.objects.active = obj


@contextlib.contextmanager
def paused_auto_update(settings):
    """Change several settings without one automatic rebuild per change."""
    auto = settings.auto_update
    settings.auto_update = False
    try:
        yield settings
    finally:
        settings.auto_update = auto


def new_seed():
    """A fresh random seed (from the operating system, not from any global random state)."""
    return int.from_bytes(os.urandom(4), "little") & 0x7FFFFFFF


def modal_vertices(context):
    """The preferences' threshold above which builds show progress (or :data:`MODAL_VERTICES`)."""
    addon = context.preferences.addons.get(__package__.rpartition(".")[0])
    return addon.preferences.modal_vertices if addon is not None and addon.preferences else MODAL_VERTICES


def window_of(scene):
    """A window showing ``scene`` (where a modal rebuild shows its progress), or None."""
    wm = bpy.context.window_manager
    return next((w for w in (wm.windows if wm is not None else ()) if w.scene == scene), None)


def modal_builds():
    """How many builds with progress (:class:`ModalBuild`) are running (Auto Update waits for them)."""
    return len(ModalBuild.running)


class ModalBuild:
    """Run a build generator on a timer with progress; Esc cancels and removes what was made.

    Subclasses may define ``cancelled(context)`` (after Esc) and ``failed(context, err)`` (a
    :class:`~core.errors.ParameterError` in a step, before it is reported) besides ``finished``.
    """

    #: The builds running now (their labels by id).
    running: dict[int, str] = {}

    def start_modal(self, context, steps, label, *, handler=True):
        """Start feeding ``steps`` from timer events; ``handler=False`` leaves the events to the
        caller (the tests, since background Blender delivers none)."""
        self._steps = steps
        self._label = label
        ModalBuild.running[id(self)] = label
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.001, window=context.window)
        wm.progress_begin(0, 1000)
        if handler:
            wm.modal_handler_add(self)
        context.workspace.status_text_set(f"Worldseed: {label}... (Esc to cancel)")
        return {"RUNNING_MODAL"}

    def end_modal(self, context):
        ModalBuild.running.pop(id(self), None)
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        wm.progress_end()
        context.workspace.status_text_set(None)

    def modal(self, context, event):
        if event.type in {"ESC", "RIGHTMOUSE"} and event.value == "PRESS":
            self._steps.close()
            self.end_modal(context)
            if hasattr(self, "cancelled"):
                self.cancelled(context)
            self.report({"WARNING"}, f"Worldseed: {self._label} cancelled")
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"RUNNING_MODAL"}
        try:
            done, total, stage = next(self._steps)
        except StopIteration as stop:
            self.end_modal(context)
            self.finished(context, stop.value)
            return {"FINISHED"}
        except ParameterError as err:
            self.end_modal(context)
            if hasattr(self, "failed"):
                self.failed(context, err)
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        except BaseException:
            self.end_modal(context)
            raise
        context.window_manager.progress_update(int(1000 * done / max(total, 1)))
        context.workspace.status_text_set(f"Worldseed: {self._label}: {stage} ({done}/{total}) (Esc to cancel)")
        return {"RUNNING_MODAL"}


def family_modules(package, keys):
    """``{key: module}`` for every ``<package>.<key>`` module that exists, in the order of ``keys``.

    The registration and the world build find a family's files by its recipe section's name
    (``core.recipe.SECTIONS``), so a new family is new files and one line in that registry.
    """
    found = {}
    for key in keys:
        name = f"{package}.{key}"
        if importlib.util.find_spec(name) is not None:
            found[key] = importlib.import_module(name)
    return found
