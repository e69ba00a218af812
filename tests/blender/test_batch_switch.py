"""The switch of a run's files is atomic (issue 21 "mixed sets"): killed at any rename, the folder holds
exactly the earlier set or exactly the new one once the next run (any holder of the folder's lock) has
read the switch record the killed one left.

The test hook ``WORLDSEED_TEST_KILL_AFTER_RENAME=k`` ends the process with ``os._exit`` right after the
k-th rename or removal of the switch (the switch record's own rename first), as a ``kill -9`` there
would.  ``test_a_run_killed_at_every_rename_...`` runs ``worldseed_run.py`` for every k: the earlier
build writes a .glb and a RAW heightmap the new one does not (three removals), the new one a
recipe.toml the earlier did not (an addition), and both the .fbx, .blend and relief map (three
replacements).  ``test_every_step_of_a_switch_...`` kills a bare switch in a forked child for
every k (no Blender build: many more files, quick).
"""

import os
import shutil
import subprocess
import sys

import pytest

from worldseed.operators.bridge import outputs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")

RECIPE = """
[world]
name = "Isle"
seed = {seed}
[terrain]
resolution = 33
size = 64.0
height = 20.0
octaves = 3
lods = 1
[export]
fbx = true
glb = {earlier}
heightmap_raw = {earlier}
preview = true
render = false
"""


def run_into(out, recipe, *extra, kill=None):
    env = dict(os.environ)
    env.pop(outputs.KILL_AFTER_RENAME, None)
    if kill is not None:
        env[outputs.KILL_AFTER_RENAME] = str(kill)
    return subprocess.Popen(
        [sys.executable, RUN, "--recipe", str(recipe), "--out", str(out), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def visible(folder):
    """``{name: bytes}`` of what a user sees in ``folder`` (hidden staging and lock files aside)."""
    return {n: (folder / n).read_bytes() for n in sorted(os.listdir(folder)) if not n.startswith(".")}


def same_set(files, reference):
    """``files`` is the set ``reference``: the same names, the same bytes (a .blend: a save of its own,
    it holds the time it was saved, so only the same size class is asked; its whole is checked by the run)."""
    if set(files) != set(reference):
        return False
    return all(files[n] == reference[n] for n in files if not n.endswith(".blend"))


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """The earlier build (seed 4, with .glb and RAW heightmap) and a reference of the new one (seed 5,
    without them, with recipe.toml), each in its own folder."""
    base = tmp_path_factory.mktemp("switch")
    old, new = base / "old.toml", base / "new.toml"
    old.write_text(RECIPE.format(seed=4, earlier="true"))
    new.write_text(RECIPE.format(seed=5, earlier="false"))
    procs = [run_into(base / "earlier", old), run_into(base / "reference", new, "--write-recipe")]
    for proc in procs:
        assert proc.wait(timeout=600) == 0, proc.stderr.read()
    earlier, reference = visible(base / "earlier"), visible(base / "reference")
    assert {"world.glb", "world_heightmap.raw", "world_heightmap.json"} <= set(earlier) - set(reference)
    assert "recipe.toml" in set(reference) - set(earlier)
    return base, earlier, reference


def test_a_run_killed_at_every_rename_leaves_the_earlier_set_or_the_new_one(builds):
    base, earlier, reference = builds
    renames = 1 + len(reference) + len(set(earlier) - set(reference)) + 1  # record, moves, removals, record gone
    folders = []
    for k in range(1, renames + 1):
        folder = base / f"killed_{k}"
        shutil.copytree(base / "earlier", folder)
        folders.append(folder)
    results = {}
    pending = list(enumerate(folders, 1))
    while pending:  # three runs at a time
        batch, pending = pending[:3], pending[3:]
        procs = [(k, f, run_into(f, base / "new.toml", "--write-recipe", kill=k)) for k, f in batch]
        for k, folder, proc in procs:
            results[k] = (folder, proc.wait(timeout=600), proc.stderr.read())
    mixed = []
    for k, (folder, status, stderr) in sorted(results.items()):
        assert status == outputs.KILLED_STATUS, (k, status, stderr[-2000:])  # killed in its switch
        seen = visible(folder)
        if not same_set(seen, earlier) and not same_set(seen, reference):
            mixed.append(k)  # what a kill there left before the switch record was read
        if k == renames // 2:  # a real next run: it finishes the switch, then writes its own set
            proc = run_into(folder, base / "new.toml", "--write-recipe")
            assert proc.wait(timeout=600) == 0, proc.stderr.read()
        else:
            with outputs.folder_lock(str(folder)):  # the next run's first act: finish the switch
                pass
        after = visible(folder)
        assert same_set(after, reference), (k, sorted(after))
        assert after["world.blend"] != earlier["world.blend"]
        assert not [n for n in os.listdir(folder) if n.startswith(".worldseed-")], (k, os.listdir(folder))
    assert mixed == list(range(2, renames - 1)), mixed  # after the record, before the last move or removal


def _switch_in_child(folder, files, remove, kill):
    """Fork: the child stages ``files`` ({name: bytes}) and commits them with ``remove`` under the folder's
    lock, dying after switch step ``kill``; returns the child's exit status."""
    pid = os.fork()
    if pid == 0:  # the child: no pytest, no Blender, only the switch
        status = 0
        try:
            os.environ[outputs.KILL_AFTER_RENAME] = str(kill)
            with outputs.output_folder(str(folder)) as stage:
                staged = []
                for name, data in files.items():
                    path = os.path.join(stage.path, name)
                    with open(path, "wb") as f:
                        f.write(data)
                    staged.append(path)
                stage.commit(staged, remove=[os.path.join(folder, n) for n in remove])
        except BaseException:
            status = 3
        os._exit(status)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def test_every_step_of_a_switch_killed_is_finished_by_the_next_lock_holder(tmp_path):
    earlier = {f"file_{i}.bin": bytes([i]) * 10 for i in range(12)}
    new = {f"file_{i}.bin": bytes([100 + i]) * 10 for i in range(4, 20)}
    remove = sorted(set(earlier) - set(new))
    steps = 1 + len(new) + len(remove) + 1
    for k in range(1, steps + 2):  # the last k is past every step: the switch completes
        folder = tmp_path / f"k{k}"
        folder.mkdir()
        for name, data in earlier.items():
            (folder / name).write_bytes(data)
        (folder / "keep.txt").write_bytes(b"not ours")
        status = _switch_in_child(folder, new, remove, k)
        assert status == (outputs.KILLED_STATUS if k <= steps else 0), (k, status)
        with outputs.folder_lock(str(folder)):
            pass
        assert visible(folder) == {**new, "keep.txt": b"not ours"}, k
        assert not [n for n in os.listdir(folder) if n.startswith(".worldseed-")], (k, os.listdir(folder))


def test_a_staging_folder_without_its_switch_record_is_rolled_back(tmp_path):
    """Killed before the record is written (while staging): nothing of the new set reaches the folder."""
    (tmp_path / "a.bin").write_bytes(b"old")
    stage = tmp_path / ".worldseed-abc123.tmp"
    stage.mkdir()
    (stage / "a.bin").write_bytes(b"new")
    with outputs.folder_lock(str(tmp_path)):
        pass
    assert sorted(os.listdir(tmp_path)) == ["a.bin"] and (tmp_path / "a.bin").read_bytes() == b"old"
