"""core.world's executors (serial, threads): dependencies, progress, cancel, errors, results by key."""

import threading
import time
from dataclasses import dataclass

import pytest

from worldseed.core.errors import ParameterError
from worldseed.core.world._executors import Cancelled, SerialExecutor, ThreadExecutor


@dataclass(frozen=True)
class T:
    key: str
    deps: tuple = ()


def diamond_grid(n=4):
    """Windows w<i> then tiles t<i> depending on their own and the next window (a chain of shared work)."""
    windows = [T(f"w{i}") for i in range(n)]
    tiles = [T(f"t{i}", tuple(f"w{j}" for j in {i, (i + 1) % n})) for i in range(n)]
    return windows + tiles + [T("all", tuple(t.key for t in tiles))]


def summing(task, deps):
    """A pure result that depends on every dependency's result (wrong deps -> wrong number)."""
    return len(task.key) * 1000 + sum(deps.values()) + sum(ord(c) for c in task.key)


def serial_reference(tasks):
    out = {}
    for task in tasks:
        out[task.key] = summing(task, {d: out[d] for d in task.deps})
    return out


@pytest.mark.parametrize("executor", [SerialExecutor(), ThreadExecutor(workers=1), ThreadExecutor(workers=3)])
def test_results_by_key_match_a_plain_loop(executor):
    tasks = diamond_grid()
    assert executor.run(tasks, summing) == serial_reference(tasks)


def test_threads_see_exactly_their_dependencies_finished():
    tasks = diamond_grid(6)
    finished, lock = set(), threading.Lock()

    def fn(task, deps):
        assert set(deps) == set(task.deps)
        with lock:
            assert set(task.deps) <= finished, f"{task.key} started before {set(task.deps) - finished}"
        time.sleep(0.005)
        with lock:
            finished.add(task.key)
        return summing(task, deps)

    assert ThreadExecutor(workers=4).run(tasks, fn) == serial_reference(tasks)


def test_threads_run_tasks_at_the_same_time():
    barrier = threading.Barrier(2, timeout=5)  # breaks (raises) unless two tasks wait here together

    def fn(task, deps):
        barrier.wait()
        return task.key

    assert ThreadExecutor(workers=2).run([T("a"), T("b")], fn) == {"a": "a", "b": "b"}
    barrier.reset()
    with pytest.raises(threading.BrokenBarrierError):
        SerialExecutor().run([T("a"), T("b")], lambda task, deps: barrier.wait(timeout=0.2))


def test_ready_tasks_start_in_list_order():
    started = []

    def fn(task, deps):
        started.append(task.key)
        return 0

    tasks = [T(f"k{i}") for i in range(10)]
    ThreadExecutor(workers=1).run(tasks, fn)
    assert started == [t.key for t in tasks]


@pytest.mark.parametrize("executor", [SerialExecutor(), ThreadExecutor(workers=2)])
def test_progress_counts_every_task_and_names_it(executor):
    seen = []
    tasks = diamond_grid()
    executor.run(tasks, summing, progress=lambda done, total, label: seen.append((done, total, label)))
    assert seen[0] == (0, len(tasks), "start")
    assert [d for d, _t, _l in seen[1:]] == list(range(1, len(tasks) + 1))
    assert sorted(label for _d, _t, label in seen[1:]) == sorted(t.key for t in tasks)
    assert seen[-1][2] == "all"


@pytest.mark.parametrize("executor", [SerialExecutor(), ThreadExecutor(workers=2)])
def test_on_result_runs_in_the_calling_thread_once_per_task(executor):
    calls = []
    tasks = diamond_grid()
    executor.run(tasks, summing, on_result=lambda task, result: calls.append((task.key, threading.get_ident())))
    assert sorted(k for k, _ in calls) == sorted(t.key for t in tasks)
    assert {ident for _, ident in calls} == {threading.get_ident()}


@pytest.mark.parametrize("executor", [SerialExecutor(), ThreadExecutor(workers=2)])
def test_cancel_stops_between_tasks_and_keeps_what_finished(executor):
    cancel = threading.Event()
    ran = []

    def fn(task, deps):
        ran.append(task.key)
        if len(ran) == 3:
            cancel.set()
        return summing(task, deps)

    tasks = diamond_grid(8)
    with pytest.raises(Cancelled) as info:
        executor.run(tasks, fn, cancel=cancel)
    assert len(ran) < len(tasks)
    assert set(info.value.results) == set(ran)  # the tasks running when it was set finished and are kept
    reference = serial_reference(tasks)
    assert all(info.value.results[k] == reference[k] for k in ran)


def test_cancel_set_before_the_run_runs_nothing():
    cancel = threading.Event()
    cancel.set()
    for executor in (SerialExecutor(), ThreadExecutor(workers=2)):
        with pytest.raises(Cancelled) as info:
            executor.run(diamond_grid(), lambda task, deps: pytest.fail("ran"), cancel=cancel)
        assert info.value.results == {}


@pytest.mark.parametrize("executor", [SerialExecutor(), ThreadExecutor(workers=2)])
def test_a_failing_task_stops_the_run_with_its_error(executor):
    ran = []

    def fn(task, deps):
        ran.append(task.key)
        if task.key == "w1":
            raise OSError("disk full")
        return 1

    with pytest.raises(OSError, match="disk full"):
        executor.run(diamond_grid(), fn)
    assert "all" not in ran and "t1" not in ran and "t0" not in ran


def test_a_plan_with_dependencies_out_of_order_is_refused():
    for executor in (SerialExecutor(), ThreadExecutor(workers=2)):
        with pytest.raises(ValueError, match="'b' depends on 'a', which is not listed before it"):
            executor.run([T("b", ("a",)), T("a")], summing)
        with pytest.raises(ValueError, match="listed twice"):
            executor.run([T("a"), T("a")], summing)


@pytest.mark.parametrize("workers", [0, -1, 257, 2.0, True, "2"])
def test_bad_worker_counts_are_clear_errors(workers):
    with pytest.raises(ParameterError, match=r"workers must be an integer in \[1, 256\]"):
        ThreadExecutor(workers=workers)


def test_empty_plan_returns_nothing():
    assert SerialExecutor().run([], summing) == {}
    assert ThreadExecutor(workers=2).run([], summing) == {}
