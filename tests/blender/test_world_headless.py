"""Tiled worlds headless: ``worldseed_run.py`` on a [world] tiles recipe, serial and with ``--workers 2``.

Each run is a process of its own (bpy, and for ``--workers`` a Dask LocalCluster of 2 processes):
the same files byte for byte (tiles, FBX per tile, world JSON), a second run keeps every complete
tile, ``--tiles`` builds a part, Ctrl-C keeps the tiles finished before it, and the flags are refused
in one line on a single-terrain recipe.
"""

import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

import pytest

from worldseed.core import world as core_world

from ._world_cases import isle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")

TERRAIN = dict(size=256.0, height=60.0, falloff='falloff = "radial"\n', rocks=12.0)
WORLD = isle(resolution=65, droplets=20000.0, **TERRAIN)
CHANGED = WORLD.replace("seed = 13", "seed = 14")  # another recipe: every tile again
assert CHANGED != WORLD


def run(*args, timeout=600):
    return subprocess.run([sys.executable, RUN, *args], capture_output=True, text=True, timeout=timeout)


def digests(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not name.startswith(".") and os.path.isfile(path):
            with open(path, "rb") as fh:
                out[name] = hashlib.sha256(fh.read()).hexdigest()
    return out


@pytest.fixture(scope="module")
def recipe_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("recipe") / "world.toml"
    path.write_text(WORLD)
    return str(path)


@pytest.fixture(scope="module")
def serial(recipe_file, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("serial"))
    proc = run("--recipe", recipe_file, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out, proc


def test_serial_world_writes_every_tile_its_fbx_and_the_world_json(serial):
    out, proc = serial
    names = set(digests(out))
    for x, z in [(0, 0), (1, 0), (0, 1), (1, 1)]:
        base = f"world_{x}_{z}"
        assert {f"{base}.raw", f"{base}.fbx", f"{base}_placements.json", f"{base}_terrain.json"} <= names
        assert f"{base}_splat0.png" in names
    assert "worldseed: world complete" in proc.stdout and "Traceback" not in proc.stderr
    doc = json.load(open(os.path.join(out, "world_world.json")))
    assert doc["grid"] == [2, 2] and all(t["complete"] for t in doc["tiles"])
    for t in doc["tiles"]:
        listed = {f["name"] for f in t["files"]}
        assert f"{t['name']}.fbx" in listed and f"{t['name']}.raw" in listed
    assert set(core_world.verify_tiles(out, doc)) == {(0, 0), (1, 0), (0, 1), (1, 1)}  # FBX hashed too
    assert not os.path.exists(core_world.cache_folder(out, "world"))
    assert not [n for n in os.listdir(out) if n.startswith(".")]  # no staging or temporaries left


def test_the_world_json_lists_every_file_the_run_wrote_with_size_and_sha256(serial):
    """``world_props.fbx`` too (issue 21): each tile's files under its tile, the world's own files in
    the top-level ``files``; nothing in the folder but the world JSON itself is left out."""
    out, _ = serial
    doc = json.load(open(os.path.join(out, "world_world.json")))
    listed = {f["name"]: f for t in doc["tiles"] for f in t["files"]}
    listed.update({f["name"]: f for f in doc["files"]})
    on_disk = digests(out)
    assert "world_props.fbx" in on_disk and {f["name"] for f in doc["files"]} == {"world_props.fbx"}
    assert set(listed) == set(on_disk) - {"world_world.json"}
    for name, record in listed.items():
        assert record["sha256"] == on_disk[name] and record["bytes"] == os.path.getsize(os.path.join(out, name))


def test_a_run_killed_in_its_switch_of_files_is_finished_by_the_next_run(serial, tmp_path):
    """The tile FBX, the prop library and the world JSON listing them go into the folder in one switch:
    killed after its 4th rename (3 of 4 FBX moved), the next run finishes it and builds nothing."""
    from worldseed.operators.bridge import outputs

    out = tmp_path / "out"
    shutil.copytree(serial[0], out)
    changed = tmp_path / "changed.toml"
    changed.write_text(CHANGED)
    env = {**os.environ, outputs.KILL_AFTER_RENAME: "4"}
    killed = subprocess.run(
        [sys.executable, RUN, "--recipe", str(changed), "--out", str(out)], capture_output=True, text=True, env=env
    )
    assert killed.returncode == outputs.KILLED_STATUS, killed.stdout + killed.stderr[-2000:]
    assert [n for n in os.listdir(out) if n.startswith(".worldseed-")]  # the switch record's staging folder
    proc = run("--recipe", str(changed), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "kept 4 complete tile(s)" in proc.stdout
    wrote = [line for line in proc.stdout.splitlines() if " wrote " in line]
    assert wrote == [f"worldseed: wrote {out / 'world_world.json'}"], wrote  # no FBX again: finished
    doc = json.load(open(out / "world_world.json"))
    assert len(core_world.verify_tiles(str(out), doc)) == 4
    listed = {f["name"] for t in doc["tiles"] for f in t["files"]} | {f["name"] for f in doc["files"]}
    assert listed == set(digests(str(out))) - {"world_world.json"}
    assert {f"world_{x}_{z}.fbx" for x in (0, 1) for z in (0, 1)} | {"world_props.fbx"} <= listed
    assert not [n for n in os.listdir(out) if n.startswith(".")]


def test_workers_2_write_the_same_bytes(serial, recipe_file, tmp_path):
    out, _ = serial
    proc = run("--recipe", recipe_file, "--out", str(tmp_path), "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    assert "Dask cluster (2 workers) ready" in proc.stderr and "Warning" not in proc.stderr
    assert digests(str(tmp_path)) == digests(out)  # tiles, FBX and world JSON


def test_a_second_run_keeps_every_tile(recipe_file, tmp_path):
    out = str(tmp_path)
    assert run("--recipe", recipe_file, "--out", out).returncode == 0
    stamps = {n: os.stat(os.path.join(out, n)).st_ino for n in os.listdir(out) if not n.endswith("_world.json")}
    proc = run("--recipe", recipe_file, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "kept 4 complete tile(s)" in proc.stdout
    assert {n: os.stat(os.path.join(out, n)).st_ino for n in stamps} == stamps  # nothing rewritten, FBX neither


def test_tiles_builds_a_part_then_the_rest(serial, recipe_file, tmp_path):
    out = str(tmp_path)
    proc = run("--recipe", recipe_file, "--out", out, "--tiles", "0:2,1")
    assert proc.returncode == 0, proc.stderr
    names = set(os.listdir(out))
    assert {"world_0_1.raw", "world_1_1.fbx"} <= names and "world_0_0.raw" not in names
    assert "2 of 4 tiles complete" in proc.stdout
    assert run("--recipe", recipe_file, "--out", out).returncode == 0
    assert digests(out) == digests(serial[0])


def test_a_changed_recipe_on_a_full_disk_keeps_the_earlier_world_json_and_names_the_file(serial, tmp_path):
    """A file-size limit stops the new recipe's first write: exit 2, the error names the file it was
    writing (``[Errno 28] No space left on device`` named none), and ``world_world.json`` still
    describes the earlier world, every tile verified."""
    out = tmp_path / "out"
    shutil.copytree(serial[0], out)
    before = (out / "world_world.json").read_bytes()
    changed = tmp_path / "changed.toml"
    changed.write_text(CHANGED)

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))

    proc = subprocess.run(
        [sys.executable, RUN, "--recipe", str(changed), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=limit,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("worldseed: error: ") and "File too large" in line and str(out) in line, line
    assert "Traceback" not in proc.stderr
    assert (out / "world_world.json").read_bytes() == before
    assert len(core_world.verify_tiles(str(out), core_world.read_world_json(str(out / "world_world.json")))) == 4


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--tiles", "0:3"], "--tiles '0:3': x range '0:3' must lie within 0:2"),
        (["--tiles", "a"], "--tiles 'a'"),
        (["--workers", "0"], "--workers must be an integer in [1, 256], got 0"),
    ],
)
def test_bad_world_flags_exit_2_with_one_line(recipe_file, tmp_path, args, words):
    proc = run("--recipe", recipe_file, "--out", str(tmp_path / "out"), *args)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith("worldseed: error:")
    assert words in proc.stderr and "Traceback" not in proc.stderr


def test_world_flags_on_a_single_terrain_are_refused(tmp_path):
    recipe = tmp_path / "one.toml"
    recipe.write_text("[terrain]\nresolution = 33\n")
    proc = run("--recipe", str(recipe), "--out", str(tmp_path / "out"), "--workers", "2")
    assert proc.returncode == 2
    assert "--workers is for tiled worlds" in proc.stderr and "[1, 1]" in proc.stderr
    proc = run("--recipe", str(recipe), "--out", str(tmp_path / "out"), "--workers", "2", "--scheduler", "tcp://x:1")
    assert proc.returncode == 2 and "not allowed with argument" in proc.stderr


SLOW = isle(tiles=(3, 3), resolution=257, droplets=400000.0, **{**TERRAIN, "size": 512.0})


@pytest.mark.parametrize("flags", [[], ["--workers", "2"]], ids=["serial", "workers"])
def test_ctrl_c_keeps_the_tiles_finished_and_the_next_run_skips_them(tmp_path, flags):
    recipe = tmp_path / "slow.toml"
    recipe.write_text(SLOW)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, RUN, "--recipe", str(recipe), "--out", str(out), *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a run started in the background by a script inherits SIGINT ignored: Ctrl-C as from a terminal
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    path = core_world.world_json_path(str(out), "world")
    try:
        deadline = time.monotonic() + 300
        complete = []
        while time.monotonic() < deadline and proc.poll() is None and not complete:
            doc = core_world.read_world_json(path)
            complete = [t for t in doc["tiles"] if t["complete"]] if doc else []
            time.sleep(0.05)
        assert complete, "no tile finished"
        assert proc.poll() is None, "the run ended before it could be cancelled"
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1] == "worldseed: cancelled" and "Traceback" not in stderr
    doc = core_world.read_world_json(path)
    kept = core_world.verify_tiles(str(out), doc)
    assert 1 <= len(kept) < 9 and kept.keys() == {(t["x"], t["z"]) for t in doc["tiles"] if t["complete"]}
    assert os.path.isdir(core_world.cache_folder(str(out), "world"))
    again = run("--recipe", str(recipe), "--out", str(out), "--tiles", "0:1,0:1")  # one tile: quick
    assert again.returncode == 0, again.stderr
    if (0, 0) in kept:
        assert "kept 1 complete tile(s)" in again.stdout
