"""What a Dask worker runs for one world task: make the extension importable, then call the task.

This module is pickled *by value* (``cloudpickle.register_pickle_by_value``):
a worker needs no copy of it, only the extension's folder at the same path
(``root``) and numpy.  :func:`call` registers the extension as the package
``package`` (``worldseed``) with ``__path__ = [root]`` *without* running its
``__init__.py`` (which registers with Blender), so ``worldseed.core`` imports
in a plain Python with no bpy, then unpickles the task function and the task
(both pickled by reference to ``worldseed.core.world``) and runs it.  Only the
standard library is used here.
"""

import importlib.util
import logging
import os
import pickle
import sys
import types


def ensure_package(root, package):
    """``sys.modules[package]``: the extension at ``root`` as a package, its ``__init__`` never run."""
    module = sys.modules.get(package)
    if module is not None:
        return module
    parts = package.split(".")
    for i in range(1, len(parts)):  # bl_ext.user_default.worldseed: empty namespace parents
        parent = ".".join(parts[:i])
        if parent not in sys.modules:
            space = types.ModuleType(parent)
            space.__path__ = []
            sys.modules[parent] = space
    spec = importlib.util.spec_from_file_location(
        package, os.path.join(root, "__init__.py"), submodule_search_locations=[root]
    )
    module = importlib.util.module_from_spec(spec)  # not executed: no Blender registration
    sys.modules[package] = module
    return module


def call(root, package, fn_bytes, task_bytes, deps):
    """Run ``fn(task, deps)`` in this worker; ``fn`` and ``task`` arrive pickled (bytes)."""
    ensure_package(root, package)
    fn = pickle.loads(fn_bytes)
    task = pickle.loads(task_bytes)
    deps = {key: deps[key] for key in task.deps}  # in the task's order, as the serial executor gives them
    return fn(task, deps)


def probe(root, package):
    """What the worker sees after the bootstrap (for tests): whether bpy is loaded, the package's
    folder, and whether its root ``__init__`` ran (it would define ``register``)."""
    module = ensure_package(root, package)
    importlib.import_module(package + ".core.world")
    return {
        "bpy": "bpy" in sys.modules,
        "path": list(module.__path__),
        "registered": hasattr(module, "register"),
        "pid": os.getpid(),
    }


#: The loggers a closing cluster quiets: distributed's own and the event loop's (tornado, asyncio).
TEARDOWN_LOGGERS = ("distributed", "tornado", "asyncio")


def quiet_teardown(level=logging.CRITICAL + 1):
    """Raise the loggers of :data:`TEARDOWN_LOGGERS` (and their handlers) to ``level`` in this
    process; returns what it changed, ``[(logger or handler, old level), ...]``, for
    :func:`restore_levels`.  A cluster that is closing retires its workers while their heartbeats
    to the scheduler may be in flight: one of them then logs an ERROR with a traceback
    ("Failed to communicate with scheduler during heartbeat", 1 run in 30 here) although every
    task is done; run on the workers (and in the scheduler's process) just before the close."""
    changed = []
    loggers = [logging.getLogger(name) for name in TEARDOWN_LOGGERS]
    loggers += [
        logger
        for name, logger in list(logging.root.manager.loggerDict.items())
        if isinstance(logger, logging.Logger) and name.split(".")[0] in TEARDOWN_LOGGERS
    ]
    for logger in loggers:
        for item in (logger, *logger.handlers):
            if item.level != level:
                changed.append((item, item.level))
                item.setLevel(level)
    return changed


def restore_levels(changed):
    """Undo :func:`quiet_teardown` (``changed`` is what it returned), last change first."""
    for item, level in reversed(changed):
        item.setLevel(level)


def quiet_worker():
    """:func:`quiet_teardown` in a worker, for ``client.run`` (returns nothing to send back)."""
    quiet_teardown()
