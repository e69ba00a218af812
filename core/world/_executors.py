"""Executors for a world's task graph: one ``run`` interface, several backends.

A world is a list of :class:`Task`-like objects (``key``, ``deps``), each run by
``fn(task, deps)`` where ``deps`` maps every dependency's key to its result.
An executor runs them all and returns ``{key: result}``::

    results = executor.run(tasks, fn, progress=None, cancel=None, on_result=None)

* ``progress(done, total, label)`` is called in the calling thread: once with
  ``(0, total, "start")``, then after every finished task with its key.
* ``cancel`` is anything with ``is_set()`` (a :class:`threading.Event`); it is
  checked between tasks, and once set no new task starts, the running ones
  finish and :class:`Cancelled` is raised (the finished results ride on it).
* ``on_result(task, result)`` is called in the calling thread as each task
  finishes (the world driver writes its world JSON there).

A task that raises stops the run: no new task starts, the running ones
finish, and the task's exception propagates.  :class:`SerialExecutor` runs
the tasks in the order given (which must list dependencies first);
:class:`ThreadExecutor` runs up to ``workers`` at once on a
:class:`concurrent.futures.ThreadPoolExecutor` (numpy releases the GIL in its
heavy loops), starting ready tasks in list order.  The Dask backend lives
outside core, in ``scaleout/dask_executor.py``, with the same interface.

>>> from collections import namedtuple
>>> T = namedtuple("T", "key deps")
>>> tasks = [T("a", ()), T("b", ("a",)), T("c", ("a", "b"))]
>>> def fn(task, deps):
...     return 1 + sum(deps.values())
>>> SerialExecutor().run(tasks, fn)
{'a': 1, 'b': 2, 'c': 4}
>>> ThreadExecutor(workers=2).run(tasks, fn) == {'a': 1, 'b': 2, 'c': 4}
True
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from ..errors import ParameterError, short

if TYPE_CHECKING:
    from ._plan import Task

#: ``fn(task, deps)``: runs one task given its dependencies' results (``{key: result}``); returns its result.
TaskFn: TypeAlias = "Callable[[Task, dict[str, Any]], Any]"


class Executor(Protocol):
    """What :func:`core.world.run_world` asks of an executor (:class:`SerialExecutor`,
    :class:`ThreadExecutor`, ``scaleout``'s Dask one)."""

    def run(
        self,
        tasks: Iterable[Task],
        fn: TaskFn,
        *,
        progress: Callable[[int, int, str], object] | None = None,
        cancel: threading.Event | None = None,
        on_result: Callable[[Task, Any], object] | None = None,
    ) -> dict[str, Any]: ...


__all__ = ["Cancelled", "SerialExecutor", "ThreadExecutor", "check_tasks", "MAX_WORKERS"]

#: Most workers (threads, or Dask worker processes on one machine) a run may ask for.
MAX_WORKERS = 256


class Cancelled(Exception):
    """The run was cancelled between tasks; ``results`` holds the tasks that finished (``{key: result}``)."""

    def __init__(self, results: Mapping[str, Any] | None = None) -> None:
        super().__init__("cancelled")
        self.results = dict(results or {})


def check_tasks(tasks: Iterable[Task]) -> tuple[list[Task], dict[str, list[str]]]:
    """``tasks`` as a list, checked: unique keys, every dependency a task listed earlier.

    Returns ``(tasks, dependents)`` where ``dependents[key]`` lists the keys that
    wait for ``key``.  A plan that breaks this is a bug in the planner, reported
    as a ``ValueError`` naming the task.
    """
    tasks = list(tasks)
    seen: set[str]
    dependents: dict[str, list[str]]
    seen, dependents = set(), {}
    for task in tasks:
        if task.key in seen:
            raise ValueError(f"task {task.key!r} is listed twice")
        for dep in task.deps:
            if dep not in seen:
                raise ValueError(f"task {task.key!r} depends on {dep!r}, which is not listed before it")
            dependents[dep].append(task.key)
        seen.add(task.key)
        dependents[task.key] = []
    return tasks, dependents


def check_workers(workers: object, *, name: str = "workers") -> int:
    """``workers`` as an int in [1, :data:`MAX_WORKERS`], or a :class:`ParameterError` naming ``name``."""
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise ParameterError(f"{name} must be an integer in [1, {MAX_WORKERS}], got {short(workers)}")
    return workers


def _cancelled(cancel: threading.Event | None) -> bool:
    return cancel is not None and cancel.is_set()


class SerialExecutor:
    """Run every task in this thread, one after the other, in the order given."""

    workers = 1

    def __enter__(self) -> SerialExecutor:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        return False

    def close(self) -> None:
        """Nothing to release (for symmetry with the executors that hold threads or a cluster)."""

    def run(
        self,
        tasks: Iterable[Task],
        fn: TaskFn,
        *,
        progress: Callable[[int, int, str], object] | None = None,
        cancel: threading.Event | None = None,
        on_result: Callable[[Task, Any], object] | None = None,
    ) -> dict[str, Any]:
        """Run ``tasks`` with ``fn(task, deps)``; returns ``{key: result}`` (see the module docstring)."""
        tasks, _ = check_tasks(tasks)
        results: dict[str, Any] = {}
        total = len(tasks)
        if progress is not None:
            progress(0, total, "start")
        for done, task in enumerate(tasks, 1):
            if _cancelled(cancel):
                raise Cancelled(results)
            result = fn(task, {dep: results[dep] for dep in task.deps})
            results[task.key] = result
            if on_result is not None:
                on_result(task, result)
            if progress is not None:
                progress(done, total, task.key)
        return results


class ThreadExecutor:
    """Run up to ``workers`` tasks at once on threads (default: the machine's CPU count).

    Ready tasks (every dependency finished) start in the order the tasks are
    listed, so a plan ordered to keep few windows alive stays so.
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = check_workers((os.cpu_count() or 1) if workers is None else workers)

    def __enter__(self) -> ThreadExecutor:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        return False

    def close(self) -> None:
        """Nothing held between runs (each run has its own pool)."""

    def run(
        self,
        tasks: Iterable[Task],
        fn: TaskFn,
        *,
        progress: Callable[[int, int, str], object] | None = None,
        cancel: threading.Event | None = None,
        on_result: Callable[[Task, Any], object] | None = None,
    ) -> dict[str, Any]:
        """Run ``tasks`` with ``fn(task, deps)``; returns ``{key: result}`` (see the module docstring)."""
        tasks, dependents = check_tasks(tasks)
        order = {task.key: i for i, task in enumerate(tasks)}
        by_key = {task.key: task for task in tasks}
        waiting = {task.key: len(task.deps) for task in tasks}
        ready = [task.key for task in tasks if not task.deps]
        results: dict[str, Any]
        running: dict[concurrent.futures.Future[Any], Task]
        results, running = {}, {}
        total = len(tasks)
        if progress is not None:
            progress(0, total, "start")
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="worldseed-world")

        def finish(future: concurrent.futures.Future[Any]) -> None:
            task = running.pop(future)
            results[task.key] = result = future.result()
            if on_result is not None:
                on_result(task, result)
            if progress is not None:
                progress(len(results), total, task.key)
            for key in dependents[task.key]:
                waiting[key] -= 1
                if waiting[key] == 0:
                    ready.append(key)

        def drain() -> None:
            """Let the running tasks end (their files are written whole) and keep what they return."""
            ready.clear()
            concurrent.futures.wait(running)
            for future in sorted(running, key=lambda f: order[running[f].key]):
                if future.exception() is None:
                    finish(future)
            running.clear()

        try:
            while ready or running:
                if _cancelled(cancel):
                    drain()
                    raise Cancelled(results)
                while ready and len(running) < self.workers:
                    ready.sort(key=order.__getitem__)
                    task = by_key[ready.pop(0)]
                    deps = {dep: results[dep] for dep in task.deps}
                    running[pool.submit(fn, task, deps)] = task
                finished, _ = concurrent.futures.wait(
                    running, timeout=0.1, return_when=concurrent.futures.FIRST_COMPLETED
                )
                for future in sorted(finished, key=lambda f: order[running[f].key]):
                    error = future.exception()
                    if error is not None:
                        running.pop(future)
                        drain()
                        raise error
                    finish(future)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return results
