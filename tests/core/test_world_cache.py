"""core.world.run_world never writes through a link in its cache folder (``.<name>_world_cache``).

A cache folder that is a symbolic link to another folder is removed (the link) and made again as a
plain folder, even when the folder it points to holds this recipe's stamp (the run would have
trusted it); a link inside the cache empties it.  The folder linked to is left exactly as it was.

A window (and a tile's border props) leaves the cache as soon as every tile of its 3 x 3
neighbourhood is complete and no planned task reads it: the cache is listed after every tile of a
3 x 8 world (serial and threads), and holds exactly the windows an unfinished tile needs; runs
stopped mid-world (a cancel, a Ctrl-C, windows or the whole cache deleted by hand) and ``--tiles``
ranges give the bytes of one uninterrupted run; nothing is removed through a link.
"""

import os
import threading

import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.core.world import _driver
from worldseed.core.world._plan import neighbourhood

from ._world_cases import digests, isle

WORLD = isle(splats=0, rocks=None)  # erosion only


@pytest.fixture(scope="module")
def recipe():
    return core_recipe.loads(WORLD)


def listing(folder):
    return {n: open(os.path.join(folder, n), "rb").read() for n in sorted(os.listdir(folder))}


@pytest.mark.parametrize("stamped", [False, True], ids=["empty", "with-this-recipes-stamp"])
def test_a_linked_cache_folder_is_replaced_and_its_target_untouched(recipe, tmp_path, stamped):
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    if stamped:
        (victim / _driver.CACHE_STAMP).write_text(core_world.recipe_digest(recipe))
    before = listing(victim)
    cache = core_world.cache_folder(str(out), "world")
    os.symlink(victim, cache)
    run = core_world.run_world(recipe, str(out), tiles=[(0, 0)])  # part of the world: the cache stays
    assert run.built == ((0, 0),) and not run.complete
    assert listing(victim) == before  # no window_*.npz, no stamp written through the link
    assert os.path.isdir(cache) and not os.path.islink(cache)
    assert any(n.startswith("window_") for n in os.listdir(cache))


def test_a_link_inside_the_cache_empties_it(recipe, tmp_path):
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.mkdir()
    core_world.run_world(recipe, str(out), tiles=[(0, 0)])
    cache = core_world.cache_folder(str(out), "world")
    window = os.path.join(cache, "window_1_0.npz")
    os.remove(window)
    os.symlink(victim / "window_1_0.npz", window)  # a dangling link: a write through it lands in victim
    core_world.run_world(recipe, str(out), tiles=[(1, 0)])
    assert os.listdir(victim) == []
    assert not any(os.path.islink(os.path.join(cache, n)) for n in os.listdir(cache))


def test_a_file_in_the_way_of_the_cache_folder_is_replaced(recipe, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    cache = core_world.cache_folder(str(out), "world")
    open(cache, "w").close()
    run = core_world.run_world(recipe, str(out), tiles=[(0, 0)])
    assert run.built == ((0, 0),) and os.path.isdir(cache)


# --- windows and borders leave the cache as soon as nothing needs them --------------------------------

TALL = isle(tiles=(3, 8), splats=0)  # erosion and a rock scatter (border props) on 24 tiles of 33^2


@pytest.fixture(scope="module")
def tall():
    return core_recipe.loads(TALL)


def cache_names(folder, prefix):
    cache = core_world.cache_folder(folder, "world")
    if not os.path.isdir(cache):
        return set()
    return {n for n in os.listdir(cache) if n.startswith(prefix) and n.endswith(".npz")}


def window_tiles(folder):
    return {tuple(int(v) for v in n[len("window_") : -len(".npz")].split("_")) for n in cache_names(folder, "window_")}


def size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0  # deleted (a released window) while listed


def complete_tiles(folder):
    doc = core_world.read_world_json(core_world.world_json_path(folder, "world"))
    return {(t["x"], t["z"]) for t in doc["tiles"] if t["complete"]}


def needed(grid, complete):
    """The tiles whose window an incomplete tile still blends."""
    return {n for t in grid.tiles() if t not in complete for n in neighbourhood(grid, *t)}


class Watch:
    """``progress`` that lists the cache after every finished task; ``stop_after`` tiles written: cancel."""

    def __init__(self, folder, *, stop_after=None):
        self.folder, self.stop_after = folder, stop_after
        self.cancel = threading.Event()
        self.windows, self.files, self.bytes, self.made = [], [], [], set()
        self.violations, self.missing = [], []

    def __call__(self, done, total, label):
        if label.startswith("window_"):
            self.made.add(tuple(int(v) for v in label.split("_")[1:]))
        if not label.startswith("tile_"):
            return
        cache = core_world.cache_folder(self.folder, "world")
        names = [n for n in os.listdir(cache) if not n.startswith(".")]  # not a worker's file half-written
        self.files.append(len(names))
        self.bytes.append(sum(size(os.path.join(cache, n)) for n in names))
        self.windows.append(len([n for n in names if n.startswith("window_")]))
        grid = core_world.world_grid(core_recipe.loads(TALL))
        complete = complete_tiles(self.folder)
        live, want = window_tiles(self.folder) & self.made, needed(grid, complete) & self.made
        if live != want:  # exactly the windows an incomplete tile needs (of those made and reported)
            self.violations.append((label, sorted(live - want), sorted(want - live)))
        if want - live:
            self.missing.append((label, sorted(want - live)))
        if self.stop_after is not None and len(complete) >= self.stop_after:
            self.cancel.set()


@pytest.fixture(scope="module")
def tall_reference(tall, tmp_path_factory):
    """One uninterrupted serial run: the bytes, and the cache listed after every tile."""
    folder = str(tmp_path_factory.mktemp("tall"))
    watch = Watch(folder)
    run = core_world.run_world(tall, folder, progress=watch)
    assert run.complete
    return digests(folder), watch


def test_a_window_is_deleted_once_its_tiles_are_complete_and_the_cache_stays_a_band(tall_reference):
    _, watch = tall_reference
    assert watch.violations == []
    total = 3 * 8
    assert max(watch.windows) < total  # a band of rows, not the whole world
    assert max(watch.windows) <= 12  # 4 rows of 3: what the serial plan needs at once
    assert watch.windows[-1] == 0 and len(watch.windows) == total
    assert max(watch.files) < 2 * total + 1  # windows + borders + the stamp, all kept before


def test_threads_delete_the_same_way_and_write_the_same_bytes(tall, tall_reference, tmp_path):
    folder = str(tmp_path)
    watch = Watch(folder)
    run = core_world.run_world(tall, folder, executor=core_world.ThreadExecutor(workers=2), progress=watch)
    assert run.complete and not os.path.exists(core_world.cache_folder(folder, "world"))
    assert watch.violations == [] and max(watch.windows) < 24  # a few windows run ahead
    assert digests(folder) == tall_reference[0]


@pytest.mark.parametrize("wipe", ["", "windows", "cache"])
def test_a_run_stopped_mid_world_resumes_to_the_same_bytes(tall, tall_reference, tmp_path, wipe):
    folder = str(tmp_path)
    watch = Watch(folder, stop_after=10)
    with pytest.raises(core_world.Cancelled):
        core_world.run_world(tall, folder, progress=watch, cancel=watch.cancel)
    assert watch.violations == []
    complete = complete_tiles(folder)
    assert len(complete) == 10
    grid = core_world.world_grid(tall)
    kept = window_tiles(folder)
    assert kept and kept <= needed(grid, complete)  # what the unfinished tiles need, nothing more
    assert kept != watch.made  # some windows went already
    cache = core_world.cache_folder(folder, "world")
    for n in os.listdir(cache):  # windows deleted by hand (or the whole cache): made again
        if (wipe == "windows" and n.startswith("window_")) or wipe == "cache":
            os.remove(os.path.join(cache, n))
    again = Watch(folder)
    run = core_world.run_world(tall, folder, executor=core_world.ThreadExecutor(workers=2), progress=again)
    assert run.complete and sorted(run.skipped) == sorted(complete)
    assert not os.path.exists(cache)
    assert digests(folder) == tall_reference[0]
    # the resume makes only windows an unfinished tile blends: a finished neighbour's props are
    # read back from its cached border, its windows are not made again (unless the cache was lost)
    if wipe != "cache":
        assert again.made <= needed(grid, complete)


def test_a_run_stopped_by_an_error_mid_world_resumes_to_the_same_bytes(tall, tall_reference, tmp_path, monkeypatch):
    folder = str(tmp_path)
    real = _driver.run_task
    count = []

    def failing(task, **kwargs):
        if task.kind == "tile" and task.write:
            count.append(task.key)
            if len(count) == 11:
                raise KeyboardInterrupt  # Ctrl-C in the middle of a tile
        return real(task, **kwargs)

    monkeypatch.setattr(_driver, "run_task", failing)
    with pytest.raises(KeyboardInterrupt):
        core_world.run_world(tall, folder)
    monkeypatch.setattr(_driver, "run_task", real)
    complete = complete_tiles(folder)
    assert len(complete) == 10
    assert window_tiles(folder) <= needed(core_world.world_grid(tall), complete)
    run = core_world.run_world(tall, folder)
    assert run.complete and digests(folder) == tall_reference[0]


def test_tile_ranges_keep_the_windows_other_tiles_need_and_add_up_to_the_same_world(tall, tall_reference, tmp_path):
    folder = str(tmp_path)
    grid = core_world.world_grid(tall)
    run = core_world.run_world(tall, folder, tiles="0:3,2:4")  # rows 2 and 3: their neighbours built, not written
    assert sorted(run.built) == [(x, z) for x in range(3) for z in (2, 3)] and not run.complete
    names = digests(folder)
    assert all(names[n] == tall_reference[0][n] for n in names if not n.endswith("_world.json"))
    complete = complete_tiles(folder)
    assert window_tiles(folder) == needed(grid, complete) & window_tiles(folder)
    assert window_tiles(folder)  # rows 1 to 4 still need theirs: kept for the next range
    run = core_world.run_world(tall, folder, tiles="0:3,0:2")
    run = core_world.run_world(tall, folder, tiles="0:3,4:8")
    assert run.complete and not os.path.exists(core_world.cache_folder(folder, "world"))
    assert digests(folder) == tall_reference[0]


def test_cache_files_are_removed_only_when_regular_files_in_a_real_folder(tmp_path):
    cache, victim = tmp_path / "cache", tmp_path / "victim"
    cache.mkdir()
    victim.mkdir()
    (victim / "window_0_0.npz").write_bytes(b"theirs")
    (cache / "window_1_0.npz").write_bytes(b"ours")
    os.symlink(victim / "window_0_0.npz", cache / "window_0_0.npz")
    (cache / "border_0_0.npz").mkdir()
    names = ["window_0_0.npz", "window_1_0.npz", "border_0_0.npz", "window_9_9.npz"]
    assert _driver.remove_cache_files(str(cache), names) == ("window_1_0.npz",)
    assert os.path.islink(cache / "window_0_0.npz") and (victim / "window_0_0.npz").read_bytes() == b"theirs"
    link = tmp_path / "link"
    os.symlink(victim, link)  # the cache folder itself a link: nothing removed through it
    assert _driver.remove_cache_files(str(link), ["window_0_0.npz"]) == ()
    assert (victim / "window_0_0.npz").read_bytes() == b"theirs"


def test_a_window_linked_mid_run_is_left_and_its_target_untouched(tall, tmp_path):
    folder, victim = str(tmp_path / "out"), tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.npz").write_bytes(b"theirs")
    cache = core_world.cache_folder(folder, "world")

    def progress(done, total, label):
        if label == "tile_0_0":  # window (0, 0) is still needed by tile (1, 1): swap it for a link
            os.replace(os.path.join(cache, "window_0_0.npz"), str(victim / "moved.npz"))
            os.symlink(victim / "keep.npz", os.path.join(cache, "window_0_0.npz"))

    with pytest.raises(Exception, match="window"):  # the next tile reads a link to no window: a loud failure
        core_world.run_world(tall, folder, progress=progress)
    assert (victim / "keep.npz").read_bytes() == b"theirs"
    assert os.path.islink(os.path.join(cache, "window_0_0.npz"))  # the release never removes a link


def serial_peak(grid, tasks):
    """Most windows alive at once when ``tasks`` run in their order and a window goes once its 3 x 3
    tiles are complete (what the driver does on a whole world)."""
    alive, done, peak = set(), set(), 0
    for task in tasks:
        if task.kind == "window":
            alive.add(task.tile)
            peak = max(peak, len(alive))
            continue
        done.add(task.tile)
        alive -= {n for n in neighbourhood(grid, *task.tile) if set(neighbourhood(grid, *n)) <= done}
    return peak


@pytest.mark.parametrize(
    ("tiles", "most"),
    [((3, 8), 12), ((8, 3), 18), ((8, 8), 28), ((16, 16), 44), ((16, 8), 40)],
    ids=["3x8", "8x3-by-columns", "8x8", "16x16", "16x8-by-columns"],
)
def test_the_plan_keeps_a_band_of_windows_alive(tiles, most):
    recipe = core_recipe.loads(isle(tiles=tiles, splats=0, rocks=None))
    grid = core_world.world_grid(recipe)
    assert serial_peak(grid, core_world.plan_world(grid, recipe)) == most  # row by row: 22 for 8x3, 44 for 16x8


def test_a_neighbour_with_cached_props_is_planned_without_windows(tall):
    grid = core_world.world_grid(tall)
    done = [t for t in grid.tiles() if t != (1, 3)]  # one tile damaged in a finished world
    plain = core_world.plan_world(grid, tall, tiles=[(1, 3)], done=done)
    cached = core_world.plan_world(grid, tall, tiles=[(1, 3)], done=done, cached=done + [(1, 3)])
    assert {t.key: t for t in plain}["tile_1_2"].deps  # built again from its windows and neighbours
    by_key = {t.key: t for t in cached}
    assert by_key["tile_1_2"].deps == () and not by_key["tile_1_2"].write  # its props read back
    assert by_key["tile_1_3"].write and len([d for d in by_key["tile_1_3"].deps if d.startswith("window_")]) == 9
    windows = {t.tile for t in cached if t.kind == "window"}
    assert windows == set(neighbourhood(grid, 1, 3))  # only the tile's own 3 x 3
    assert len([t for t in plain if t.kind == "window"]) > len(windows)


class Rerunning:
    """A serial executor that, like Dask after a worker is lost, runs finished tile tasks again:
    before each tile task, every tile task it depends on (their results "lost") runs once more and
    must give the same files.  Not a SerialExecutor, so the driver keeps a tile's files until its
    dependents have finished too."""

    workers = 1

    def run(self, tasks, fn, *, progress=None, cancel=None, on_result=None):
        by_key, results, self.reruns = {t.key: t for t in tasks}, {}, 0
        for task in tasks:
            for dep in task.deps:
                if dep.startswith("tile_"):
                    again = fn(by_key[dep], {d: results[d] for d in by_key[dep].deps})
                    assert (
                        again["files"] == results[dep]["files"]
                        and again["border"].keys() == results[dep]["border"].keys()
                    )
                    self.reruns += 1
            results[task.key] = result = fn(task, {d: results[d] for d in task.deps})
            on_result(task, result)
            progress(len(results), len(tasks), task.key)
        return results


def test_an_executor_that_reruns_finished_tasks_still_finds_their_windows(tall, tall_reference, tmp_path):
    folder = str(tmp_path)
    watch, executor = Watch(folder), Rerunning()
    run = core_world.run_world(tall, folder, executor=executor, progress=watch)
    assert run.complete and executor.reruns > 24 and digests(folder) == tall_reference[0]
    assert watch.missing == [] and max(watch.windows) < 24  # kept a little longer, still a band


def test_the_dask_executor_deletes_safely_and_writes_the_same_bytes(tall, tall_reference, tmp_path):
    dask_executor = pytest.importorskip("worldseed.scaleout.dask_executor")
    folder = str(tmp_path)
    watch = Watch(folder)
    with dask_executor.DaskExecutor(workers=2) as cluster:
        run = core_world.run_world(tall, folder, executor=cluster, progress=watch)
    assert run.complete and not os.path.exists(core_world.cache_folder(folder, "world"))
    assert watch.missing == [] and digests(folder) == tall_reference[0]
