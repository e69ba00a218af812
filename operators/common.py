"""What every family's operators share: the one report-errors wrapper, builds with progress and Esc,
and the Update / New Seed / Load Settings operators as mixins read from the family's adapter.

A family's operators stay explicit short classes in its own module (``bl_idname`` greppable), each
naming its ``family`` (the adapter's key) and mixing in what it does:

* :class:`Reports`: :meth:`Reports.guard` runs the work; an error of :attr:`Reports.errors` becomes an
  ERROR report (and :meth:`Reports.failed`), never a traceback;
* :class:`ModalBuild`: a build generator run on a timer with progress, Esc cancels;
* :class:`Rebuild` (Update), :class:`Reseed` (New Seed), :class:`LoadSettings` (Load from Active).
"""

import contextlib
import importlib
import importlib.util
import os

import bpy

from ..core.errors import ParameterError
from ..core.steps import drive
from .bridge import sections

__all__ = [
    "select_only",
    "new_seed",
    "Reports",
    "ModalBuild",
    "FamilyOperator",
    "Rebuild",
    "Reseed",
    "LoadSettings",
    "family_modules",
    "paused_auto_update",
    "modal_builds",
    "window_of",
]


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
    auto = getattr(settings, "auto_update", False)
    if auto:
        settings.auto_update = False
    try:
        yield settings
    finally:
        if auto:
            settings.auto_update = auto


def new_seed():
    """A fresh random seed (from the operating system, not from any global random state)."""
    return int.from_bytes(os.urandom(4), "little") & 0x7FFFFFFF


def window_of(scene):
    """A window showing ``scene`` (where a modal rebuild shows its progress), or None."""
    wm = bpy.context.window_manager
    return next((w for w in (wm.windows if wm is not None else ()) if w.scene == scene), None)


def modal_builds():
    """How many builds with progress (:class:`ModalBuild`) are running (Auto Update waits for them)."""
    return len(ModalBuild.running)


class Reports:
    """The one way an operator turns an error into a report: ``return self.guard(context, work)``."""

    #: What becomes a report (anything else is a bug, and shows as one).
    errors: tuple[type[Exception], ...] = (ParameterError,)

    def message(self, err):
        """The report's text of ``err``."""
        return str(err)

    def failed(self, context, err):
        """After an error of :attr:`errors`, before it is reported: leave the scene as it was."""

    def guard(self, context, work):
        """``work()``, or CANCELLED with an ERROR report when it raises one of :attr:`errors`."""
        try:
            return work()
        except self.errors as err:
            self.failed(context, err)
            self.report({"ERROR"}, self.message(err))
            return {"CANCELLED"}


class ModalBuild(Reports):
    """Run a build generator on a timer with progress; Esc cancels and removes what was made.

    Subclasses define ``finished(context, result)`` and may define ``cancelled(context)`` (after Esc)
    and :meth:`Reports.failed` (an error of :attr:`Reports.errors` in a step, before it is reported).
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
        except self.errors as err:
            self.end_modal(context)
            self.failed(context, err)
            self.report({"ERROR"}, self.message(err))
            return {"CANCELLED"}
        except BaseException:
            self.end_modal(context)
            raise
        context.window_manager.progress_update(int(1000 * done / max(total, 1)))
        context.workspace.status_text_set(f"Worldseed: {self._label}: {stage} ({done}/{total}) (Esc to cancel)")
        return {"RUNNING_MODAL"}

    def can_run_modal(self, context):
        """Whether a modal run would get events: a window in Blender's UI, not background Blender or the
        bpy module (which have a window but no event loop: the build runs at once there)."""
        return context.window is not None and not bpy.app.background

    def run_steps(self, context, steps, label, *, modal, note=None):
        """``steps`` run modally (``modal``, in a window) or at once (then :meth:`finished`); ``note``
        (what a long build will cost) is reported before a modal run starts."""
        if modal and self.can_run_modal(context):
            if note:
                self.report({"INFO"}, f"Worldseed: {note[0].upper()}{note[1:]}")
            return self.start_modal(context, steps, label)
        self.finished(context, drive(steps))
        return {"FINISHED"}


class FamilyOperator(Reports):
    """An operator of one family: ``family`` is its adapter's key (``operators.bridge.sections``)."""

    family = ""

    @classmethod
    def adapter(cls):
        return sections.adapter(cls.family)

    @classmethod
    def active_root(cls, context):
        """The family's root of the active object, or None."""
        return cls.adapter().root(context.active_object)

    def settings(self, context):
        return self.adapter().settings(context.scene)


class Rebuild(ModalBuild, FamilyOperator):
    """Update: rebuild the active object in place from the family's panel; with progress and Esc when
    invoked from a window and the adapter's plan is worth it (erosion, a WFC search ...)."""

    auto: bpy.props.BoolProperty(
        name="Auto Update",
        default=False,
        options={"SKIP_SAVE", "HIDDEN"},
        description="Started by Auto Update: an error goes to the panel's last error",
    )

    @classmethod
    def poll(cls, context):
        return cls.active_root(context) is not None

    def prepare(self, context):
        """What the operator changes before the rebuild (New Seed: the seed)."""

    def restore(self, context):
        """Undo :meth:`prepare` (after an error, or Esc)."""

    def invoke(self, context, event):
        return self.rebuild(context, modal=True)

    def execute(self, context):
        return self.rebuild(context, modal=False)

    def rebuild(self, context, *, modal):
        def work():
            self.prepare(context)
            root = self.active_root(context)
            if root is None or not self.adapter().update_operator:
                return {"FINISHED"}
            plan = self.adapter().rebuild_plan(root, context.scene)
            return self.run_steps(
                context, plan.steps, f"{self.bl_label.lower()} {root.name}", modal=modal and plan.modal, note=plan.note
            )

        return self.guard(context, work)

    def failed(self, context, err):
        self.restore(context)
        if self.auto:
            self.settings(context).last_error = str(err)

    def cancelled(self, context):
        self.restore(context)

    def finished(self, context, root):
        context.view_layer.update()  # a rebuild with fewer LODs removed objects the view layer still lists
        select_only(context, root)
        if self.auto:
            self.settings(context).last_error = ""


class Reseed(Rebuild):
    """New Seed: draw a new random seed for the family's panel and rebuild its active object with it;
    Esc (or an error) gives the panel its seed back."""

    @classmethod
    def poll(cls, context):
        return True

    def prepare(self, context):
        settings = self.settings(context)
        self._old_seed = settings.seed
        with paused_auto_update(settings):  # one rebuild below, not one from the update callback
            settings.seed = new_seed()

    def restore(self, context):
        with paused_auto_update(self.settings(context)) as settings:
            settings.seed = self._old_seed


class LoadSettings(FamilyOperator):
    """Load from Active: the settings the active object was built from, into the family's panel."""

    @classmethod
    def poll(cls, context):
        return cls.active_root(context) is not None

    def execute(self, context):
        root = self.active_root(context)

        def work():
            with paused_auto_update(self.settings(context)) as settings:
                for line in self.adapter().load_from(root, settings):
                    self.report({"WARNING"}, f"Worldseed: {line}")
            return {"FINISHED"}

        return self.guard(context, work)


def family_modules(package, names):
    """``{name: module}`` for every ``<package>.<name>`` module that exists, in the order of ``names``.

    Registration finds a family's operator and panel modules by its adapter's name
    (``operators.bridge.sections.ADAPTERS``), so a new family is new files and one adapter entry.
    """
    found = {}
    for name in names:
        module = f"{package}.{name}"
        if importlib.util.find_spec(module) is not None:
            found[name] = importlib.import_module(module)
    return found
