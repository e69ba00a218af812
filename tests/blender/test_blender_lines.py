"""Every Blender line the manifest names runs the headless entry to the end and exits with its status.

The bpy modules of 4.2 and 4.5 cannot end a process that registered the
add-on (4.2 segfaults at exit, 4.5 hangs for ever): ``worldseed_run.py``
leaves through ``exit_process``. Each line runs in its own venv (``make
test-compat`` installs them); a line whose venv is missing is skipped.
"""

import glob
import os
import subprocess
import tomllib

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")

#: Each Blender line as the bpy module, and its venv (the Makefile's: `make test` and `make test-compat`).
BPY_VENVS = {"4.2": ".venv-bpy42", "4.5": ".venv-bpy45", "5.0": ".venv"}

RECIPE = """
[world]
name = "LineTile"
seed = 7
[terrain]
resolution = 33
size = 64.0
height = 10.0
octaves = 3
lods = 2
[export]
fbx = true
glb = false
heightmap_raw = true
render = true
"""


def _python(line):
    venv = os.path.join(ROOT, BPY_VENVS[line])
    bpy_dirs = glob.glob(os.path.join(venv, "lib", "python3.*", "site-packages", "bpy"))
    if not bpy_dirs:
        pytest.skip(f"no bpy in {BPY_VENVS[line]} (make test-compat installs Blender {line})")
    assert os.path.isdir(os.path.join(bpy_dirs[0], line)), f"{BPY_VENVS[line]} holds another Blender than {line}"
    return os.path.join(venv, "bin", "python")


def _run(line, recipe, tmp_path):
    """The headless entry of Blender ``line`` on ``recipe``, as a user runs it; its own temp folder,
    so what Blender leaves behind there shows. Returns the process, its output folder and temp folder."""
    python = _python(line)
    (tmp_path / "world.toml").write_text(recipe)
    out, temp = tmp_path / "out", tmp_path / "temp"
    temp.mkdir()
    args = [python, RUN, "--recipe", str(tmp_path / "world.toml"), "--out", str(out)]
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=240, env=dict(os.environ, TMPDIR=str(temp)))
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"Blender {line}: the headless run did not exit in {err.timeout} s (wrote {os.listdir(out)})")
    return proc, out, temp


def _version(text):
    return tuple(int(part) for part in text.split("."))


def test_the_manifest_names_the_oldest_line_tested():
    manifest = tomllib.loads(open(os.path.join(ROOT, "blender_manifest.toml"), encoding="utf-8").read())
    assert _version(manifest["blender_version_min"])[:2] == min(_version(line) for line in BPY_VENVS)


@pytest.mark.parametrize("line", sorted(BPY_VENVS))
def test_headless_run_writes_its_files_and_exits_0(line, tmp_path):
    proc, out, temp = _run(line, RECIPE, tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    written = sorted(os.listdir(out))
    assert {"world.blend", "world.fbx", "world_heightmap.raw", "relief.png"} <= set(written), written
    assert proc.stdout.count("worldseed: wrote ") == len(written)
    assert os.path.getsize(out / "world.fbx") > 10_000
    assert not [p for p in os.listdir(temp) if p.startswith("blender_")]  # Blender's session temp folder is gone


@pytest.mark.parametrize("line", sorted(BPY_VENVS))
def test_headless_run_with_a_bad_recipe_exits_2(line, tmp_path):
    proc, _, _ = _run(line, RECIPE.replace("resolution = 33", "resolution = 1"), tmp_path)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert "terrain.resolution" in proc.stderr
