"""Tiled worlds headless, what a new user's trial found: the output folder's lock, flags checked
before the folder is made, ``--scheduler`` errors in one line and fast, ``--tiles`` with a negative
start, the prop library, files of tiles outside a smaller grid removed, and a note for the
``[export]`` keys a tiled world does not use.  Each run is a ``worldseed_run.py`` process (bpy)."""

import fcntl
import json
import os
import socket
import subprocess
import sys
import time

import pytest

from worldseed.core import world as core_world

from ._world_cases import isle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")
LOCK_FILE = ".worldseed.lock"  # operators.bridge.outputs.LOCK_FILE


def run(*args, timeout=300):
    return subprocess.run([sys.executable, RUN, *args], capture_output=True, text=True, timeout=timeout)


def recipe(tmp_path, nx=2, nz=1, export="", name="world.toml"):
    path = tmp_path / name
    path.write_text(isle(tiles=(nx, nz), variants=3, export=export))
    return str(path)


def one_error_line(proc, words):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("worldseed: error:"), proc.stderr
    assert words in lines[0], lines[0]


def test_a_run_into_a_locked_folder_waits_then_refuses_in_one_line(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CREAT)  # another run holds the folder
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        proc = run("--recipe", recipe(tmp_path), "--out", str(out), "--wait", "0")
        one_error_line(proc, "is in use by another Worldseed run (waited 0 s)")
        t0 = time.monotonic()
        proc = run("--recipe", recipe(tmp_path), "--out", str(out), "--wait", "1.5")
        assert time.monotonic() - t0 >= 1.5
        one_error_line(proc, "is in use by another Worldseed run (waited 1.5 s)")
        assert os.listdir(out) == [LOCK_FILE]  # nothing written: no world JSON, no cache, no tile
    finally:
        os.close(fd)
    proc = run("--recipe", recipe(tmp_path), "--out", str(out), "--wait", "0")  # the lock let go: it runs
    assert proc.returncode == 0, proc.stderr
    assert "world complete" in proc.stdout and not [n for n in os.listdir(out) if n.startswith(".")]


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--scheduler", "garbage"], "--scheduler must be an address such as tcp://host:8786"),
        (["--scheduler", "tcp://127.0.0.1:{port}"], "--scheduler 'tcp://127.0.0.1:{port}': no Dask scheduler answered"),
        (["--workers", "0"], "--workers must be an integer in [1, 256], got 0"),
        (["--workers", "-1"], "--workers must be an integer in [1, 256], got -1"),
        (["--tiles", "-1:2,0:1"], "--tiles '-1:2,0:1': x range '-1:2'"),
        (["--tiles", "0:3,0:1"], "--tiles '0:3,0:1': x range '0:3' must lie within 0:2"),
    ],
    ids=["scheduler-garbage", "scheduler-refused", "workers-0", "workers-negative", "tiles-negative", "tiles-out"],
)
def test_bad_flags_are_one_line_fast_and_leave_no_folder(tmp_path, flags, words):
    port = closed_port()
    flags = [f.format(port=port) for f in flags]
    out = tmp_path / "out"
    t0 = time.monotonic()
    proc = run("--recipe", recipe(tmp_path), "--out", str(out), *flags)
    seconds = time.monotonic() - t0
    one_error_line(proc, words.format(port=port))
    assert "Traceback" not in proc.stderr
    assert not out.exists()  # checked before the folder is made (or the empty folder removed again)
    assert seconds < 15  # the refused scheduler took 31 s (distributed.Client's retries)


def test_a_scheduler_address_where_an_ssh_server_speaks_is_one_line_fast(tmp_path):
    # a new-user trial: distributed read the banner 'SSH-2.0-' as a message length, tried to allocate
    # 2.8 EiB and ended in a traceback
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    done = threading.Event()

    def serve():
        server.settimeout(0.2)  # wakes to see `done`: a blocked accept held the test 60 s after the run
        try:
            while not done.is_set():
                try:
                    conn, _ = server.accept()
                except TimeoutError:
                    continue
                conn.sendall(b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n")
                conn.close()
        except OSError:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    where = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    out = tmp_path / "out"
    try:
        t0 = time.monotonic()
        proc = run("--recipe", recipe(tmp_path), "--out", str(out), "--scheduler", where)
        seconds = time.monotonic() - t0
    finally:
        done.set()
        server.close()
        thread.join()
    one_error_line(proc, f"--scheduler {where!r}: not a Dask scheduler (it speaks another protocol: it began with")
    assert "Traceback" not in proc.stderr and not out.exists() and seconds < 15


def test_workers_above_the_cores_are_lowered_to_them_with_a_warning(capsys):
    from worldseed.addon import batch

    cores = batch.usable_cores()
    assert cores == len(os.sched_getaffinity(0))
    executor = batch.world_executor(workers=cores + 3)  # made, not started
    assert executor.workers == cores
    warning = capsys.readouterr().err.strip()
    assert warning == (
        f"worldseed: warning: --workers {cores + 3} is more than the {cores} CPU core(s) this run may use: "
        f"using {cores} (more worker processes than cores only share them, each with its own memory)"
    )
    assert batch.world_executor(workers=cores).workers == cores and capsys.readouterr().err == ""


def test_the_prop_library_is_written_with_the_tiles(tmp_path):
    out = tmp_path / "out"
    proc = run("--recipe", recipe(tmp_path), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    library = out / "world_props.fbx"
    assert f"worldseed: wrote {library}" in proc.stdout
    data = library.read_bytes()
    props = set()
    for x, z in [(0, 0), (1, 0)]:
        doc = json.loads((out / f"world_{x}_{z}_placements.json").read_text())
        props.update(r["prop"] for s in doc["scatters"] for r in s["instances"])
    assert props and all(p.encode() in data for p in props)  # every prop the placement files name
    inode = library.stat().st_ino
    again = run("--recipe", recipe(tmp_path), "--out", str(out))
    assert again.returncode == 0 and library.stat().st_ino == inode  # nothing built: not rewritten


def test_files_of_tiles_outside_a_smaller_grid_are_removed(tmp_path):
    out = tmp_path / "out"
    assert run("--recipe", recipe(tmp_path, nx=3, nz=1), "--out", str(out)).returncode == 0
    stale = sorted(n for n in os.listdir(out) if n.startswith("world_2_0"))
    assert {"world_2_0.raw", "world_2_0.fbx", "world_2_0_placements.json", "world_2_0_terrain.json"} <= set(stale)
    outside = tmp_path / "outside.raw"
    outside.write_bytes(b"mine")
    os.symlink(outside, out / "world_5_0.raw")  # a link of a tile's name: never removed nor followed
    proc = run("--recipe", recipe(tmp_path, nx=2, nz=1), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    for name in stale:
        assert not (out / name).exists()
        assert f"worldseed: removed {out / name} (an earlier run's; this run does not write it)" in proc.stdout
    assert os.path.islink(out / "world_5_0.raw") and outside.read_bytes() == b"mine"
    doc = core_world.read_world_json(core_world.world_json_path(str(out), "world"))
    assert doc["grid"] == [2, 1] and all(t["complete"] for t in doc["tiles"])
    assert (out / "world_1_0.raw").exists()


def test_export_keys_a_tiled_world_does_not_use_get_one_note(tmp_path):
    out = tmp_path / "out"
    proc = run("--recipe", recipe(tmp_path, export="glb = true\nrender = true"), "--out", str(out), "--tiles", "0")
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if line.startswith("worldseed: note:")]
    assert len(notes) == 1 and "glb = true, render = true" in notes[0] and "tiled world" in notes[0]
    assert not [n for n in os.listdir(out) if n.endswith(".glb")]
    quiet = run("--recipe", recipe(tmp_path), "--out", str(tmp_path / "quiet"), "--tiles", "0")
    assert "worldseed: note:" not in quiet.stderr


def test_a_single_terrain_and_a_tiled_world_of_one_name_replace_each_other(tmp_path):
    out = tmp_path / "out"
    single = tmp_path / "one.toml"
    single.write_text("[terrain]\nresolution = 33\nsize = 64.0\n\n[export]\nfbx = true\npreview = true\n")
    first = run("--recipe", str(single), "--out", str(out))
    assert first.returncode == 0, first.stderr
    single_files = {"world.fbx", "world.blend", "relief.png"}
    assert single_files <= set(os.listdir(out))
    tiled = run("--recipe", recipe(tmp_path), "--out", str(out))
    assert tiled.returncode == 0, tiled.stderr
    names = set(os.listdir(out))
    assert not single_files & names and {"world_0_0.raw", "world_props.fbx", "world_world.json"} <= names
    for name in single_files:
        assert f"worldseed: removed {out / name} (an earlier run's; this run does not write it)" in tiled.stdout
    again = run("--recipe", str(single), "--out", str(out))
    assert again.returncode == 0, again.stderr
    names = set(os.listdir(out))
    assert single_files <= names and not [n for n in names if n.startswith("world_0_") or n.startswith("world_1_")]
    assert "world_world.json" not in names and "world_props.fbx" not in names
    assert f"worldseed: removed {out / 'world_0_0.raw'} (an earlier run's; this run does not write it)" in again.stdout
