"""scaleout.dask_executor on a real LocalCluster (2 worker processes), started and stopped here.

The same 2 x 2 world of 65^2 tiles (erosion, biomes, splats, scatter) is built serially, on threads
and on the cluster: the files are byte for byte the same.  A worker that dies in the middle of a
task (it ends its own process the first time it runs that task) is replaced, the task runs again
elsewhere, and the world still comes out byte for byte the same.
"""

import os
import sys
import threading

import cloudpickle
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.core.errors import ParameterError
from worldseed.scaleout import dask_executor
from worldseed.scaleout.dask_executor import DaskExecutor

from ._network_cases import ERODED_WORLD
from ._world_cases import digests, isle

# the fake task functions below travel by value: workers cannot import this test module
cloudpickle.register_pickle_by_value(sys.modules[__name__])

WORLD = isle(
    seed=13,
    resolution=65,
    size=256.0,
    height=60.0,
    falloff='falloff = "radial"\nfalloff_width = 0.5\n',
    biomes=True,
    slope=25.0,
    rocks=12.0,
)


class T:
    def __init__(self, key, deps=()):
        self.key, self.deps = key, tuple(deps)


def plan(n=6):
    windows = [T(f"w{i}") for i in range(n)]
    return windows + [T(f"t{i}", (f"w{i}", f"w{(i + 1) % n}")) for i in range(n)]


def summing(task, deps):
    return sum(ord(c) for c in task.key) + 7 * sum(deps.values())


class KillOnce:
    """Ends the worker's process the first time ``key`` runs (a marker file remembers), then runs ``fn``."""

    def __init__(self, fn, key, marker):
        self.fn, self.key, self.marker = fn, key, marker

    def __call__(self, task, deps):
        if task.key == self.key and not os.path.exists(self.marker):
            with open(self.marker, "w") as fh:
                fh.write(str(os.getpid()))
            os._exit(1)  # as a kill -9 or the OOM killer would: no exception, no clean-up
        return self.fn(task, deps)


@pytest.fixture(scope="module")
def cluster():
    with DaskExecutor(workers=2) as ex:
        yield ex


def test_workers_import_the_core_without_bpy_or_the_root_init(cluster):
    seen = cluster.client.run(dask_executor.PROBE, dask_executor.ROOT, "worldseed")
    assert len(seen) == 2
    for info in seen.values():
        assert info == {"bpy": False, "path": [dask_executor.ROOT], "registered": False, "pid": info["pid"]}
    assert {info["pid"] for info in seen.values()}.isdisjoint({os.getpid()})


def worker_settings(dask_worker):
    import dask as _dask

    return {
        "profiler": "profile" in dask_worker.periodic_callbacks,
        "tick": _dask.config.get("distributed.admin.tick.interval"),
        "memory": _dask.config.get("distributed.worker.memory.monitor-interval"),
        "malloc": os.environ.get("MALLOC_TRIM_THRESHOLD_"),
    }


def test_the_embedded_cluster_runs_without_the_per_second_extras(cluster):
    """dask_executor.CLUSTER_CONFIG reaches the worker processes: no statistical profiler sampling the
    task thread every 10 ms, the event-loop tick every second, the memory monitor every 0.5 s, glibc's
    own trim threshold (an idle cluster of 2 workers: 0.13 s of CPU in 10 s instead of 0.83 s)."""
    seen = cluster.client.run(worker_settings)
    assert list(seen.values()) == [{"profiler": False, "tick": "1s", "memory": "500ms", "malloc": None}] * 2


def test_fake_plan_matches_serial_with_progress_and_results(cluster):
    tasks = plan()
    seen, calls = [], []
    got = cluster.run(tasks, summing, progress=lambda *a: seen.append(a), on_result=lambda t, r: calls.append(t.key))
    assert got == core_world.SerialExecutor().run(tasks, summing)
    assert seen[0] == (0, len(tasks), "start") and [s[0] for s in seen[1:]] == list(range(1, len(tasks) + 1))
    assert sorted(calls) == sorted(t.key for t in tasks)


def test_a_task_error_reaches_the_caller(cluster):
    def boom(task, deps):
        if task.key == "w2":
            raise ParameterError("terrain.size must be positive, got -1")
        return 1

    with pytest.raises(ParameterError, match="terrain.size"):
        cluster.run(plan(), boom)


def test_cancel_stops_and_keeps_the_finished_results(cluster):
    cancel = threading.Event()

    def on_result(task, result):
        cancel.set()

    with pytest.raises(core_world.Cancelled) as info:
        cluster.run(plan(8), summing, cancel=cancel, on_result=on_result)
    assert 1 <= len(info.value.results) < 16


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ParameterError, match="workers=N or scheduler=ADDRESS"):
        DaskExecutor()
    with pytest.raises(ParameterError, match=r"--workers must be an integer in \[1, 256\], got 0"):
        DaskExecutor(workers=0)
    with pytest.raises(ParameterError, match="--scheduler"):
        DaskExecutor(scheduler="  ")


def test_a_killed_worker_is_replaced_and_its_task_runs_again(cluster, tmp_path):
    marker = str(tmp_path / "killed")
    tasks = plan()
    got = cluster.run(tasks, KillOnce(summing, "t3", marker))
    assert os.path.exists(marker)  # the task did kill a worker
    assert got == core_world.SerialExecutor().run(tasks, summing)


@pytest.fixture(scope="module")
def serial_world(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("serial"))
    run = core_world.run_world(core_recipe.loads(WORLD), folder)
    assert run.complete and len(run.built) == 4
    return digests(folder)


def test_serial_threads_and_the_cluster_write_the_same_bytes(cluster, serial_world, tmp_path):
    recipe = core_recipe.loads(WORLD)
    threads = core_world.run_world(recipe, str(tmp_path / "threads"), executor=core_world.ThreadExecutor(workers=2))
    dask = core_world.run_world(recipe, str(tmp_path / "dask"), executor=cluster)
    assert threads.complete and dask.complete and sorted(dask.built) == sorted(dask.grid.tiles())
    assert any(name.endswith(".raw") for name in serial_world) and len(serial_world) >= 20
    assert digests(str(tmp_path / "threads")) == serial_world
    assert digests(str(tmp_path / "dask")) == serial_world
    assert not os.path.exists(core_world.cache_folder(str(tmp_path / "dask"), "world"))


def test_an_eroded_world_with_rivers_and_roads_on_the_cluster_writes_the_serial_bytes(cluster, tmp_path):
    """Every worker process carves the plan made on the stitched eroded heights the world task wrote
    into the cache: the same bytes as a serial build."""
    recipe = core_recipe.loads(ERODED_WORLD)
    serial = core_world.run_world(recipe, str(tmp_path / "serial"))
    dask = core_world.run_world(recipe, str(tmp_path / "dask"), executor=cluster)
    assert serial.complete and dask.complete
    want = {k: v for k, v in digests(str(tmp_path / "serial")).items() if not k.endswith("_world.json")}
    assert sum(k.endswith("_rivers.json") for k in want) == 4
    assert {k: v for k, v in digests(str(tmp_path / "dask")).items() if not k.endswith("_world.json")} == want


def test_a_scheduler_by_address_runs_the_world_too(cluster, serial_world, tmp_path):
    with DaskExecutor(scheduler=cluster.cluster.scheduler_address) as remote:
        run = core_world.run_world(core_recipe.loads(WORLD), str(tmp_path), executor=remote)
    assert run.complete and cluster.client.status == "running"  # the cluster outlives its second client
    assert digests(str(tmp_path)) == serial_world


def test_a_worker_killed_mid_world_is_retried_and_the_world_completes(cluster, serial_world, tmp_path):
    recipe = core_recipe.loads(WORLD)
    folder, marker = str(tmp_path / "world"), str(tmp_path / "killed")
    grid = core_world.world_grid(recipe)
    cache = core_world.cache_folder(folder, "world")
    os.makedirs(cache)
    fn = KillOnce(core_world.WorldTaskFn(recipe, out_dir=folder, name="world", cache_dir=cache), "tile_1_1", marker)
    results = cluster.run(core_world.plan_world(grid, recipe), fn)
    assert os.path.exists(marker)  # a worker did die in tile_1_1
    assert sorted(k for k in results if k.startswith("tile_")) == ["tile_0_0", "tile_0_1", "tile_1_0", "tile_1_1"]
    written = digests(folder)
    assert written == {k: v for k, v in serial_world.items() if not k.endswith("_world.json")}
    cluster.client.wait_for_workers(2, timeout=60)  # the nanny starts a new worker in the dead one's place


def ordered(task, deps):
    """The dependencies' keys in the order the task function sees them."""
    return list(deps)


def test_dependencies_arrive_in_the_tasks_order(cluster):
    tasks = [T(f"d{i}") for i in range(6)] + [T("last", ("d4", "d0", "d5", "d2", "d1", "d3"))]
    assert cluster.run(tasks, ordered)["last"] == ["d4", "d0", "d5", "d2", "d1", "d3"]
    assert core_world.SerialExecutor().run(tasks, ordered)["last"] == ["d4", "d0", "d5", "d2", "d1", "d3"]


TEARDOWN_SCRIPT = """
import logging, runpy, sys
runpy.run_path(sys.argv[1])  # tests/conftest.py: the extension as the package worldseed
import distributed
from worldseed.scaleout.dask_executor import DaskExecutor

class NoisyClose(distributed.WorkerPlugin):
    # what a worker does when the scheduler goes away under a heartbeat in flight (1 run in 30
    # of a --workers 2 world): log an ERROR with a traceback while the cluster closes
    def teardown(self, worker):
        try:
            raise OSError("Stream is closed")
        except OSError:
            logging.getLogger("distributed.worker").exception("Failed to communicate with scheduler during heartbeat.")

if __name__ == "__main__":
    ex = DaskExecutor(workers=1)
    ex.start().register_plugin(NoisyClose())
    logging.getLogger("distributed.worker").error("during the run: still shown")
    ex.close()
    print("closed", logging.getLogger("distributed").handlers[0].level)
"""


def test_a_clean_run_closes_its_cluster_without_a_traceback(tmp_path):
    # distributed's teardown logs reach the user as a traceback from a run that went well and exits 0
    import subprocess

    script = tmp_path / "teardown.py"
    script.write_text(TEARDOWN_SCRIPT)
    conftest = os.path.join(os.path.dirname(os.path.dirname(__file__)), "conftest.py")
    done = subprocess.run([sys.executable, str(script), conftest], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "during the run: still shown" in done.stderr  # the run's own errors are not hidden
    assert "Traceback" not in done.stderr and "Failed to communicate" not in done.stderr, done.stderr[-2000:]
    assert done.stdout.strip() == "closed 40"  # this process's levels are back (silence_logs=ERROR)
