"""The headless run's files on a bad day: a full disk, two runs into one folder, a killed run, a rerun.

Each test runs ``worldseed_run.py`` in its own process, as a user would.
"""

import fcntl
import os
import resource
import signal
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")

EVERY_FILE = """
[export]
fbx = true
glb = true
heightmap_raw = true
preview = true
render = false
placements = true
"""

ONLY_BLEND = """
[export]
fbx = false
glb = false
heightmap_raw = false
preview = false
render = false
placements = false
"""


def recipe(tmp_path, *, name="Isle", seed=4, export=EVERY_FILE, file="r.toml"):
    text = f"""
[world]
name = "{name}"
seed = {seed}
[terrain]
resolution = 65
size = 128.0
height = 20.0
octaves = 4
lods = 2
[[scatter]]
name = "Rocks"
prop = "rock"
variants = 2
radius = 12.0
{export}
"""
    path = tmp_path / file
    path.write_text(text)
    return str(path)


def run(*args, file_limit=None):
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, resource.RLIM_INFINITY))

    return subprocess.run(
        [sys.executable, RUN, *args],
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=limit if file_limit else None,
    )


def contents(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def error_line(proc):
    """The run's own error: the last line on stderr, one line starting ``worldseed: error:``."""
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("worldseed: error: "), proc.stderr[-2000:]
    return last


@pytest.fixture
def old_build(tmp_path):
    """A complete earlier build in ``out``, and its files' bytes."""
    out = tmp_path / "out"
    proc = run("--recipe", recipe(tmp_path, seed=4), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    before = contents(out)
    assert set(before) == {
        "world.fbx",
        "world.glb",
        "world.blend",
        "relief.png",
        "world_placements.json",
        "world_heightmap.raw",
        "world_heightmap.json",
    }
    return out, before


def test_a_blend_cut_short_by_a_full_disk_keeps_the_earlier_build(tmp_path, old_build):
    """`ulimit -f 100` on a run that writes only the .blend: Blender's save stops at 100 KiB and says
    nothing; the run must notice, exit 2 naming world.blend, and leave the earlier .blend whole."""
    out, before = old_build
    proc = run("--recipe", recipe(tmp_path, seed=5, export=ONLY_BLEND), "--out", str(out), file_limit=100 * 1024)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "world.blend" in error_line(proc) and ".worldseed-" not in error_line(proc)
    assert contents(out) == before  # every earlier file, byte for byte, and no temporaries


def test_a_full_disk_in_the_middle_keeps_every_earlier_file(tmp_path, old_build):
    """The placement file of the new build fits under the limit, the relief map after it does not:
    nothing is replaced (the rerun asks for no FBX and glTF, so the placement file comes first)."""
    out, before = old_build
    export = EVERY_FILE.replace("fbx = true", "fbx = false").replace("glb = true", "glb = false")
    limit = 50 * 1024  # the placement file is about 7 kB, the relief map about 80 kB
    proc = run("--recipe", recipe(tmp_path, seed=5, export=export), "--out", str(out), file_limit=limit)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    line = error_line(proc)
    assert any(name in line for name in before), line  # names the file that failed
    assert str(out) in line and ".worldseed-" not in line
    assert contents(out) == before


def test_two_runs_into_one_folder_take_turns(tmp_path):
    out = tmp_path / "out"
    runs = [
        subprocess.Popen(
            [sys.executable, RUN, "--recipe", recipe(tmp_path, name=n, seed=s, file=f"{n}.toml"), "--out", str(out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n, s in (("Alpha", 1), ("Beta", 2))
    ]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in runs]
    for p in runs:
        p.stdout.close()
        p.stderr.close()
    assert [code for code, _ in results] == [0, 0], results
    files = contents(out)
    assert set(files) == {
        "world.fbx",
        "world.glb",
        "world.blend",
        "relief.png",
        "world_placements.json",
        "world_heightmap.raw",
        "world_heightmap.json",
    }
    # every file is from the same run: the FBX, the glTF and the .blend hold one world's objects
    winner = "Alpha" if b"Alpha_LOD0" in files["world.fbx"] else "Beta"
    loser = {"Alpha": "Beta", "Beta": "Alpha"}[winner]
    assert f"{winner}_LOD0".encode() in files["world.glb"] and f"{loser}_LOD0".encode() not in files["world.glb"]
    import bpy

    bpy.ops.wm.open_mainfile(filepath=str(out / "world.blend"))
    assert {o.name for o in bpy.data.objects if o.parent is None and o.get("worldseed_kind") == "terrain"} == {winner}


def test_a_folder_locked_by_another_run_is_refused_in_one_line(tmp_path, old_build):
    out, before = old_build
    with open(out / ".worldseed.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = run("--recipe", recipe(tmp_path, seed=5), "--out", str(out), "--wait", "1")
    assert proc.returncode == 2
    assert "in use by another Worldseed run" in error_line(proc) and "Traceback" not in proc.stderr
    files = contents(out)
    files.pop(".worldseed.lock")
    assert files == before


def test_a_link_planted_at_the_lock_file_is_named_with_what_to_do(tmp_path):
    """A symbolic link at ``.worldseed.lock`` (never followed: the lock is never taken through it) blocked
    every run with 'Too many levels of symbolic links' naming only the folder."""
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(tmp_path / "elsewhere", out / ".worldseed.lock")
    proc = run("--recipe", recipe(tmp_path, seed=5), "--out", str(out))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    line = error_line(proc)
    assert str(out / ".worldseed.lock") in line and "link" in line and "remove it" in line, line
    assert not (tmp_path / "elsewhere").exists() and sorted(os.listdir(out)) == [".worldseed.lock"]


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_lock_file_that_is_no_plain_file_is_named(tmp_path, kind):
    from worldseed.operators.bridge import outputs
    from worldseed.operators.bridge.export import ExportError

    lock = tmp_path / outputs.LOCK_FILE
    lock.mkdir() if kind == "folder" else os.mkfifo(lock)
    with pytest.raises(ExportError) as err:
        with outputs.folder_lock(str(tmp_path), wait=0):
            pass
    assert str(lock) in str(err.value) and "remove it" in str(err.value), str(err.value)


def test_a_run_removes_what_killed_runs_left_and_nothing_else(tmp_path, old_build):
    out, _ = old_build
    stale = [
        ".world.k3j9x0ab.tmp.fbx",  # export.py's temporary, killed mid-export
        ".world.z8y7x6w5.tmp.glb",
        ".world.blend.tmp.blend",  # the old blend saver's fixed name ...
        ".world.blend.tmp.blend1",  # ... and the backup Blender made of it on the next save
        ".world.blend.tmp.blend@",  # Blender's save temporary of it
        ".preview.png.tmp.png",
        ".relief.png.0123456789ab.tmp",  # core.unity.write_bytes_atomic
    ]
    for name in stale:
        (out / name).write_bytes(b"partial")
    (out / ".worldseed-abc123.tmp").mkdir()  # a staging folder of a killed run
    (out / ".worldseed-abc123.tmp" / "world.fbx").write_bytes(b"partial")
    precious = tmp_path / "precious.blend"
    precious.write_bytes(b"not ours")
    (out / ".world.blend.tmp.blend1.link").symlink_to(precious)  # not our pattern
    (out / ".zz.blend.tmp.blend").symlink_to(precious)  # our pattern, but a link: left alone
    (out / ".worldseed-link.tmp").symlink_to(tmp_path)  # a link to a folder: not followed
    (out / "notes.tmp").write_text("mine")
    (out / "other.blend@").write_text("another Blender saving other.blend here: not ours")
    (out / ".world.fbx.keep").write_text("mine")
    proc = run("--recipe", recipe(tmp_path, seed=5), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    left = set(os.listdir(out))
    assert not left & set(stale) and ".worldseed-abc123.tmp" not in left
    assert {".world.blend.tmp.blend1.link", ".zz.blend.tmp.blend", ".worldseed-link.tmp", "notes.tmp"} <= left
    assert "other.blend@" in left
    assert ".world.fbx.keep" in left and precious.read_bytes() == b"not ours" and (tmp_path / "out").is_dir()


def test_a_rerun_removes_the_files_it_no_longer_writes(tmp_path, old_build):
    out, before = old_build
    export = EVERY_FILE.replace("placements = true", "placements = false").replace("glb = true", "glb = false")
    (out / "notes.txt").write_text("mine")
    # an earlier run's prop library (a large scatter writes <name>_props.fbx; found from outside: it stayed)
    (out / "world_props.fbx").write_bytes(b"Kaydara FBX Binary  \x00")
    proc = run("--recipe", recipe(tmp_path, seed=5, export=export), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    files = set(os.listdir(out))
    assert "world_placements.json" not in files and "world.glb" not in files
    assert f"removed {out / 'world_placements.json'}" in proc.stdout and f"removed {out / 'world.glb'}" in proc.stdout
    assert f"removed {out / 'world_props.fbx'}" in proc.stdout
    assert files == set(before) - {"world_placements.json", "world.glb"} | {"notes.txt"}
    assert (out / "world.fbx").read_bytes() != before["world.fbx"]  # the new build


@pytest.mark.parametrize("out", ["", "   "])
def test_an_empty_out_is_refused(tmp_path, out):
    proc = subprocess.run(
        [sys.executable, RUN, "--recipe", recipe(tmp_path), "--out", out],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 2 and "--out must name a folder" in error_line(proc)
    assert sorted(os.listdir(tmp_path)) == ["r.toml"]


def test_a_rule_that_fails_while_growing_names_the_file_and_the_entry(tmp_path):
    path = tmp_path / "forest.toml"
    path.write_text(
        '[terrain]\nenabled = false\n[[trees]]\nname = "Good"\niterations = 2\n'
        '[[trees]]\nname = "Bad"\naxiom = "A(1)"\nrules = "A(x) -> F(x/0)A(x)"\niterations = 3\n'
    )
    proc = run("--recipe", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert error_line(proc).startswith(f"worldseed: error: {path}: trees[1]: tree 'Bad': iteration 1: rewriting A(1)")
    assert not (tmp_path / "out").exists()


BAD_INPUT = {
    "dev_zero": (None, "recipe file /dev/zero is a character device, not a regular file"),
    "deep": ("[terrain]\ncurve = " + "[" * 5000 + "]" * 5000 + "\n", "nest too deeply"),
    "digits_400": ("[terrain]\nheight = " + "9" * 400 + "\n", "got an integer of 400 digits"),
    "digits_5000": ("[terrain]\nheight = " + "9" * 5000 + "\n", "a number is too long"),
    "terms_5000": ('[[trees]]\naxiom = "A(1)"\nrules = "A(x) -> F(' + "+".join(["x"] * 5000) + ')A(x)"\n', "trees[0]"),
    "expression_65k": ('[[trees]]\naxiom = "A(1)"\nrules = "A(x) -> F(' + "-" * 65000 + 'x)"\n', "longer than 2,000"),
    "long_name": ('[world]\nname = "' + "x" * 900_000 + '"\n', "(900,002 characters)"),
    "spaces_name": ('[world]\nname = "   "\n', "world.name must not be only spaces"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_is_one_short_line(tmp_path, case):
    text, words = BAD_INPUT[case]
    path = "/dev/zero"
    if text is not None:
        path = tmp_path / "bad.toml"
        path.write_text(text)
    proc = run("--recipe", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    line = error_line(proc)
    assert words in line and len(line) <= 420 and proc.stderr.count("\n") == 1, proc.stderr[-1000:]


def test_a_run_killed_while_writing_leaves_the_earlier_build_and_the_next_run_cleans_up(tmp_path, old_build):
    """SIGKILL as soon as the run's staging folder appears: every earlier file stays as it was, and the
    next run removes the staging folder the killed one left."""
    out, before = old_build
    export = EVERY_FILE.replace("render = false", "render = true")  # a longer write: the render comes last
    proc = subprocess.Popen(
        [sys.executable, RUN, "--recipe", recipe(tmp_path, seed=5, export=export), "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while not any(n.startswith(".worldseed-") for n in os.listdir(out)):
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail("the run ended before its staging folder was seen")
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGSTOP)  # frozen where it was seen writing
    stage = next(out.glob(".worldseed-*.tmp"), None)
    if stage is None:
        proc.kill()
        proc.wait()
        pytest.skip("the machine was too busy: the run finished before it could be stopped")
    blend_saved = (stage / "world.blend").exists()  # saved last: before it, no file may be moved yet
    frozen = {n: (out / n).read_bytes() for n in before}
    proc.kill()
    proc.wait()
    if blend_saved and frozen != before:
        pytest.skip("the machine was too busy: the run was seen only while moving its files into place")
    assert frozen == before
    left = set(os.listdir(out)) - set(before)
    assert any(n.startswith(".worldseed-") and n != ".worldseed.lock" for n in left), left
    assert {n: (out / n).read_bytes() for n in before} == before  # nothing replaced
    again = run("--recipe", recipe(tmp_path, seed=4), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert set(os.listdir(out)) == set(before)  # the killed run's leftovers are gone
    after = contents(out)
    after.pop("world.blend"), before.pop("world.blend")  # a .blend holds the time it was saved
    assert after == before  # seed 4 again: the same bytes as the first build


@pytest.mark.parametrize("wait", ["nan", "-1", "1e9"])
def test_a_wait_that_is_no_time_span_is_refused(tmp_path, wait):
    proc = run("--recipe", recipe(tmp_path), "--out", str(tmp_path / "out"), "--wait", wait)
    assert proc.returncode == 2 and "--wait must be a number of seconds in [0, 86400]" in error_line(proc)
    assert not (tmp_path / "out").exists()
