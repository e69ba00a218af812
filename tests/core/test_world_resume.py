"""core.world.run_world: resume skips complete tiles, rebuilds damaged ones; a new recipe rebuilds all.

A tile is complete when the world JSON lists it with every file's size and SHA-256 and the files
on disk match, for the same recipe digest.  "Not rewritten" is checked by inode and mtime: every
tile file is written to a temporary name and renamed over, so a rewrite always makes a new inode.
"""

import hashlib
import os
import threading

import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.core.errors import ParameterError
from worldseed.core.world import _plan

from ._world_cases import isle

WORLD = isle()


@pytest.fixture(scope="module")
def recipe():
    return core_recipe.loads(WORLD)


def files_of(folder):
    """``{name: (sha256, inode, mtime_ns)}`` of the visible files."""
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.startswith(".") or not os.path.isfile(path):
            continue
        st = os.stat(path)
        with open(path, "rb") as fh:
            out[name] = (hashlib.sha256(fh.read()).hexdigest(), st.st_ino, st.st_mtime_ns)
    return out


def tile_files(files, x, z, name="world"):
    return {k: v for k, v in files.items() if k.startswith(f"{name}_{x}_{z}.") or k.startswith(f"{name}_{x}_{z}_")}


def digests(files):
    return {k: v[0] for k, v in files.items() if not k.endswith("_world.json")}


@pytest.fixture(scope="module")
def reference(recipe, tmp_path_factory):
    """One uninterrupted serial run: the bytes every other run must give."""
    folder = str(tmp_path_factory.mktemp("reference"))
    run = core_world.run_world(recipe, folder)
    assert run.complete and sorted(run.built) == sorted(run.grid.tiles()) and run.skipped == ()
    assert not os.path.exists(core_world.cache_folder(folder, "world"))  # gone once the world is complete
    return digests(files_of(folder))


def test_a_second_run_skips_every_tile_and_rewrites_none(recipe, reference, tmp_path):
    folder = str(tmp_path)
    core_world.run_world(recipe, folder)
    before = files_of(folder)
    run = core_world.run_world(recipe, folder)
    assert run.built == () and sorted(run.skipped) == sorted(run.grid.tiles()) and run.complete
    after = files_of(folder)
    for name, value in before.items():
        if not name.endswith("_world.json"):
            assert after[name] == value, f"{name} was rewritten"
    assert digests(after) == reference


def test_a_damaged_tile_is_rebuilt_and_only_it(recipe, reference, tmp_path):
    folder = str(tmp_path)
    core_world.run_world(recipe, folder)
    with open(os.path.join(folder, "world_1_0.raw"), "r+b") as fh:  # a RAW cut short (a full disk, a kill)
        fh.truncate(1000)
    before = files_of(folder)
    run = core_world.run_world(recipe, folder)
    assert run.built == ((1, 0),) and sorted(run.skipped) == [(0, 0), (0, 1), (1, 1)]
    after = files_of(folder)
    rebuilt = tile_files(after, 1, 0)
    assert rebuilt and all(after[k][1:] != before[k][1:] for k in rebuilt)  # every file of the tile rewritten
    for name, value in before.items():
        if name not in rebuilt and not name.endswith("_world.json"):
            assert after[name] == value, f"{name} was rewritten"
    assert digests(after) == reference


def test_a_changed_byte_of_the_same_size_is_caught_by_the_hash(recipe, reference, tmp_path):
    folder = str(tmp_path)
    core_world.run_world(recipe, folder)
    path = os.path.join(folder, "world_0_1_splat0.png")
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0xFF
    open(path, "wb").write(bytes(data))
    run = core_world.run_world(recipe, folder)
    assert run.built == ((0, 1),)
    assert digests(files_of(folder)) == reference


def test_a_different_recipe_rebuilds_every_tile(recipe, reference, tmp_path):
    folder = str(tmp_path)
    core_world.run_world(recipe, folder)
    before = files_of(folder)
    other = core_recipe.replace(recipe, world_seed=6)
    run = core_world.run_world(other, folder)
    assert sorted(run.built) == sorted(run.grid.tiles()) and run.skipped == ()
    after = files_of(folder)
    assert all(after[k][1:] != before[k][1:] for k in before)  # every file rewritten
    assert digests(after) != reference
    assert run.document["recipe_sha256"] == core_world.recipe_digest(other) != core_world.recipe_digest(recipe)
    run = core_world.run_world(recipe, folder)  # and back: all again, the first bytes
    assert sorted(run.built) == sorted(run.grid.tiles())
    assert digests(files_of(folder)) == reference


def test_a_cancelled_run_keeps_its_tiles_and_the_next_run_finishes_the_world(recipe, reference, tmp_path):
    folder = str(tmp_path)
    cancel = threading.Event()

    def progress(done, total, label):
        if label.startswith("tile_"):
            cancel.set()  # after the first tile

    with pytest.raises(core_world.Cancelled):
        core_world.run_world(recipe, folder, executor=core_world.SerialExecutor(), progress=progress, cancel=cancel)
    doc = core_world.read_world_json(core_world.world_json_path(folder, "world"))
    complete = [(t["x"], t["z"]) for t in doc["tiles"] if t["complete"]]
    assert complete == [(0, 0)]
    assert os.path.isdir(core_world.cache_folder(folder, "world"))  # windows kept for the next run
    first = tile_files(files_of(folder), 0, 0)
    run = core_world.run_world(recipe, folder)
    assert run.skipped == ((0, 0),) and sorted(run.built) == [(0, 1), (1, 0), (1, 1)] and run.complete
    after = files_of(folder)
    assert all(after[k] == v for k, v in first.items())
    assert digests(after) == reference
    assert not os.path.exists(core_world.cache_folder(folder, "world"))


def test_a_run_stopped_by_an_error_keeps_the_tiles_it_finished(recipe, reference, tmp_path, monkeypatch):
    folder = str(tmp_path)
    real = _plan.run_task

    def failing(task, **kwargs):
        if task.key == "tile_0_1" and task.write:
            raise OSError(28, "No space left on device")
        return real(task, **kwargs)

    monkeypatch.setattr("worldseed.core.world._driver.run_task", failing)
    with pytest.raises(OSError, match="No space left"):
        core_world.run_world(recipe, folder)
    doc = core_world.read_world_json(core_world.world_json_path(folder, "world"))
    assert [(t["x"], t["z"]) for t in doc["tiles"] if t["complete"]] == [(0, 0), (1, 0)]
    monkeypatch.setattr("worldseed.core.world._driver.run_task", real)
    run = core_world.run_world(recipe, folder, executor=core_world.ThreadExecutor(workers=2))
    assert sorted(run.skipped) == [(0, 0), (1, 0)] and sorted(run.built) == [(0, 1), (1, 1)]
    assert digests(files_of(folder)) == reference


def test_chosen_tiles_then_the_rest_give_the_same_world(recipe, reference, tmp_path):
    folder = str(tmp_path)
    run = core_world.run_world(recipe, folder, tiles="1,0:2")  # the x = 1 column
    assert run.built == ((1, 0), (1, 1)) and not run.complete
    names = set(files_of(folder))
    assert not any(n.startswith(("world_0_0", "world_0_1")) for n in names)  # neighbours built, not written
    assert os.path.isdir(core_world.cache_folder(folder, "world"))
    doc = run.document
    assert [t["complete"] for t in doc["tiles"]] == [False, True, False, True]
    run = core_world.run_world(recipe, folder, tiles=[(0, 0), (0, 1)])
    assert run.built == ((0, 0), (0, 1)) and run.complete
    assert digests(files_of(folder)) == reference


def test_tiles_outside_the_grid_are_clear_errors(recipe, tmp_path):
    with pytest.raises(ParameterError, match=r"tiles: \(2, 0\) is outside the 2 x 2 grid"):
        core_world.run_world(recipe, str(tmp_path), tiles=[(2, 0)])
    with pytest.raises(ParameterError, match="--tiles"):
        core_world.run_world(recipe, str(tmp_path), tiles="0:5")


@pytest.mark.parametrize("fails", ["first_tile", "executor"])
def test_a_changed_recipe_that_fails_before_its_first_tile_keeps_the_earlier_world_json(
    recipe, tmp_path, monkeypatch, fails
):
    """A full disk, Ctrl-C or a refused worker before the new recipe's first tile is complete: the earlier
    world's JSON (every tile complete, every file verified) is still there, byte for byte."""
    folder = str(tmp_path)
    core_world.run_world(recipe, folder)
    path = core_world.world_json_path(folder, "world")
    before = open(path, "rb").read()
    other = core_recipe.replace(recipe, world_seed=6)

    def failing(task, **kwargs):
        if task.kind == "tile":
            raise OSError(28, "No space left on device", os.path.join(folder, f"{task.key}.raw"))
        return _plan.run_task(task, **kwargs)

    class Refused(core_world.SerialExecutor):
        def run(self, *args, **kwargs):
            raise OSError(111, "Connection refused")

    monkeypatch.setattr("worldseed.core.world._driver.run_task", failing)
    with pytest.raises(OSError):
        core_world.run_world(other, folder, executor=Refused() if fails == "executor" else None)
    assert open(path, "rb").read() == before
    doc = core_world.read_world_json(path)
    assert len(core_world.verify_tiles(folder, doc, recipe_sha256=core_world.recipe_digest(recipe))) == 4


def test_a_failed_write_names_the_file(tmp_path):
    """``write_bytes_atomic`` (every tile file, the world JSON): an ``OSError`` names the file it was
    writing (``[Errno 28] No space left on device`` named none), here a file-size limit in a child process."""
    import subprocess
    import sys

    target = tmp_path / "world_world.json"
    code = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1000, resource.RLIM_INFINITY))\n"
        "from core.world import write_world_json\n"
        "try:\n"
        f"    write_world_json({str(target)!r}, {{'a': 'x' * 5000}})\n"
        "except OSError as err:\n"
        "    print(err.filename, err.strerror, sep='|')\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=60)
    assert proc.stdout.strip() == f"{target}|File too large", proc.stdout + proc.stderr
    assert os.listdir(tmp_path) == []  # no temporary left
