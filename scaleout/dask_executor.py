"""A world's tasks on Dask distributed: an embedded ``LocalCluster`` or a running cluster.

::

    with DaskExecutor(workers=2) as ex:            # LocalCluster: 2 processes, 1 thread each
        run = run_world(recipe, out_dir, executor=ex)
    with DaskExecutor(scheduler="tcp://10.0.0.5:8786") as ex:
        ...

``run(tasks, fn, progress=None, cancel=None, on_result=None) -> {key: result}``
is :class:`core.world.SerialExecutor`'s interface.  Every task is submitted
at once with its dependencies as Dask futures (the scheduler starts a task
when its inputs exist, the plan's order as priority); the task function and
the task travel as pickled bytes inside a call of :func:`bootstrap.call`,
which is pickled by value, so a worker only needs this extension's folder at
the same path (``root``) and numpy: it never imports bpy nor runs the
extension's root ``__init__``.  The recipe travels as TOML text inside the
task function (``core.world.WorldTaskFn``).  Workers write their tile files
themselves; only the small result dicts come back.

A worker that dies (killed, out of memory) loses its running task; the
scheduler runs it again elsewhere (up to ``distributed.scheduler.allowed-failures``
times, 3 by default, then ``KilledWorker``).  ``retries`` re-runs a task that
raised, which the world's tasks do only for real faults (a bad recipe fails
the same way every time), so it defaults to 0.

Workers of a running cluster (``--scheduler``) must see the output folder and
the extension's folder at the same paths as this process.  Start them without
distributed's ``MALLOC_TRIM_THRESHOLD_`` (``dask worker`` sets it unless the
config says ``distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_:
null``), and with the worker profiler off for the same CPU time as the embedded cluster: see
:data:`CLUSTER_CONFIG`.
"""

import logging
import os
import time
import uuid

import cloudpickle
import dask
import distributed

from ..core import world as core_world
from ..core.errors import ParameterError
from . import bootstrap
from .address import parse_scheduler, probe_scheduler

__all__ = ["DaskExecutor", "ByValue", "CALL", "PROBE", "QUIET", "ROOT", "PACKAGE"]

cloudpickle.register_pickle_by_value(bootstrap)

#: The extension's folder (what a worker puts on its package's ``__path__``).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The extension's package name in this process (``worldseed`` in a headless run and the tests).
PACKAGE = __name__.rpartition(".scaleout")[0] or "worldseed"
#: Dask settings of the embedded cluster (its scheduler runs in this process, its workers in their own):
#:
#: - ``MALLOC_TRIM_THRESHOLD_: null``: distributed's default ``MALLOC_TRIM_THRESHOLD_=65536`` (set
#:   before a worker starts) also switches off glibc's sliding mmap threshold, so every large numpy
#:   array is a fresh mmap whose pages are faulted in and zeroed: the world's tasks took 1.3-1.7x the
#:   CPU time in a worker than in the main process with it.
#: - the worker's statistical profiler off (it samples the task thread's stack every 10 ms on the
#:   worker's event loop), the event-loop tick every second instead of every 20 ms, the system
#:   monitor every 5 s instead of 0.5 s and the memory monitor (which pauses, spills or restarts a
#:   worker near its memory limit) every 0.5 s instead of 0.1 s: a fixed cost per second of every
#:   process of the cluster, which made 4 x 4 tiles of 257^2 cost 1.2-1.4x the serial CPU time.  An
#:   idle cluster of 2 workers spends 0.13 s of CPU in 10 s instead of 0.83 s (workers and scheduler).
CLUSTER_CONFIG = {
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "500ms",
}
#: Seconds to wait for a scheduler given by address.
CONNECT_TIMEOUT = 30


class ByValue:
    """A function that pickles *by value* whatever pickler carries it: unpickling it calls
    ``cloudpickle.loads`` on the function's own cloudpickle bytes (``cloudpickle`` is a dependency of
    distributed, so every worker has it).  distributed pickles a whole task at once with plain
    pickle, which would name ``bootstrap.call`` by reference (``worldseed.scaleout.bootstrap``) and
    fail in a worker that cannot import ``worldseed`` yet; this makes the bootstrap travel whole."""

    def __init__(self, fn):
        self.fn = fn
        self.blob = cloudpickle.dumps(fn)

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __reduce__(self):
        return (cloudpickle.loads, (self.blob,))


#: :func:`bootstrap.call`, :func:`bootstrap.probe` and :func:`bootstrap.quiet_worker`, ready to send to any worker.
CALL = ByValue(bootstrap.call)
PROBE = ByValue(bootstrap.probe)
QUIET = ByValue(bootstrap.quiet_worker)


class DaskExecutor:
    """Run world tasks on Dask: ``workers=N`` starts a LocalCluster, ``scheduler=ADDRESS`` connects.

    Parameters
    ----------
    workers : int, optional
        Worker processes of an embedded ``LocalCluster`` (1 thread each, no dashboard).
    scheduler : str, optional
        Address of a running scheduler (``tcp://host:8786``); its workers must see the extension
        at ``root`` and have numpy.
    root, package : str, optional
        The extension's folder and package name as the workers should import it.
    retries : int
        Times a task that raised is run again.

    The cluster starts on ``__enter__`` (or the first run) and stops on ``__exit__`` / :meth:`close`;
    ``start_seconds`` is how long starting it (and connecting) took.
    """

    def __init__(self, workers=None, *, scheduler=None, root=ROOT, package=PACKAGE, retries=0):
        if (workers is None) == (scheduler is None):
            raise ParameterError("DaskExecutor needs workers=N or scheduler=ADDRESS (one of them)")
        if workers is not None:
            core_world.check_workers(workers, name="--workers")
        if scheduler is not None:
            parse_scheduler(scheduler)  # a ParameterError naming --scheduler for a malformed address
            scheduler = scheduler.strip()
        self.workers, self.scheduler = workers, scheduler
        self.root, self.package, self.retries = root, package, retries
        self.cluster = self.client = None
        self.start_seconds = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def start(self):
        """Start the LocalCluster (or connect to the scheduler); returns the ``distributed.Client``."""
        if self.client is not None:
            return self.client
        t0 = time.perf_counter()
        if self.workers is not None:
            with dask.config.set(CLUSTER_CONFIG):
                self.cluster = self._local_cluster()
            self.client = distributed.Client(self.cluster)
        else:
            probe_scheduler(self.scheduler)  # refused or silent: one line in about a second, not after 30 s
            try:
                self.client = distributed.Client(self.scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as err:
                raise ParameterError(f"--scheduler {self.scheduler!r}: no Dask scheduler answered ({err})") from None
        self.start_seconds = time.perf_counter() - t0
        return self.client

    def _local_cluster(self):
        return distributed.LocalCluster(
            n_workers=self.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # the scheduler's plain HTTP routes (health, metrics) on a free port, not 8787 (often taken)
            scheduler_kwargs={"dashboard_address": ":0"},
            silence_logs=logging.ERROR,
        )

    def close(self):
        """Disconnect, and stop the embedded cluster if this executor started one.

        The embedded cluster's teardown is quiet: its workers are retired while a heartbeat to the
        scheduler may be in flight, and the worker then logs an ERROR with a traceback although the
        run went well (1 run in 30 of a 2 x 2 world with ``--workers 2``). So just before the close,
        distributed's loggers (and tornado's, asyncio's) are raised above CRITICAL on the workers and,
        until the cluster is down, in this process (:func:`bootstrap.quiet_teardown`). The client
        closes first, then the cluster (workers, then the scheduler). A connected cluster
        (``scheduler=``) is only disconnected: its workers stay up, their logs are theirs."""
        client, cluster = self.client, self.cluster
        self.client = self.cluster = None
        if cluster is None:
            if client is not None:
                client.close()
            return
        changed = []
        try:
            if client is not None:
                try:
                    client.run(QUIET, on_error="ignore")  # every live worker; a dead one has nothing to say
                except Exception:  # noqa: BLE001 - the cluster may be going down already (Ctrl-C, a lost worker)
                    pass
            changed = bootstrap.quiet_teardown()  # the scheduler and the nannies' logs in this process
            if client is not None:
                client.close()
            cluster.close()
        finally:
            bootstrap.restore_levels(changed)

    def run(self, tasks, fn, *, progress=None, cancel=None, on_result=None):
        """Run ``tasks`` with ``fn(task, deps)`` on the cluster; returns ``{key: result}``."""
        tasks, _dependents = core_world.check_tasks(tasks)
        total = len(tasks)
        if progress is not None:
            progress(0, total, "start")
        if not tasks:
            return {}
        client = self.start()
        fn_bytes = cloudpickle.dumps(fn)
        token = uuid.uuid4().hex[:12]
        futures, task_of = {}, {}
        for i, task in enumerate(tasks):
            if cancel is not None and cancel.is_set():
                client.cancel(list(futures.values()))
                raise core_world.Cancelled({})
            future = client.submit(
                CALL,
                self.root,
                self.package,
                fn_bytes,
                cloudpickle.dumps(task),
                {dep: futures[dep] for dep in task.deps},
                key=f"worldseed-{task.key}-{token}",
                pure=False,
                retries=self.retries,
                priority=total - i,  # higher first: the plan's order
            )
            futures[task.key] = future
            task_of[future.key] = task
        results = {}
        finished = distributed.as_completed(list(futures.values()))
        try:
            for future in finished:
                task = task_of[future.key]
                # raises the task's error; waits when its result was lost with a worker and is being redone
                results[task.key] = result = future.result()
                futures.pop(task.key)  # the scheduler keeps it while a dependent still needs it
                if on_result is not None:
                    on_result(task, result)
                if progress is not None:
                    progress(len(results), total, task.key)
                if cancel is not None and cancel.is_set() and len(results) < total:
                    raise core_world.Cancelled(results)
        finally:
            if futures:
                try:
                    client.cancel(list(futures.values()))
                except Exception:  # noqa: BLE001 - the cluster may be going down (Ctrl-C); the error is the first one
                    pass
        return results
