"""Levels headless: ``[[level]]`` tables in a recipe, every level file written, the same bytes
from two processes, and the FBX read back by a third-party reader (ufbx) where Unity will see it.

Each run is ``worldseed_run.py`` in its own process, as a user would run it.
"""

import io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from worldseed.operators.bridge.levels import MATERIAL_COLOURS, MATERIAL_NAMES

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")

RECIPE = """
[world]
name = "Dungeons"
seed = 3
[terrain]
enabled = false

[[level]]
name = "Crypt"
generator = "cave"
width = 40
height = 30
cell_size = 2.0
wall_height = 3.0
origin = [10.0, 20.0, 0.5]
seed = 5
enemy_density = 0.01

[[level]]
name = "Warren"
generator = "walk"
width = 24
height = 24
cell_size = 1.5
autotile = "wang16"
origin = [-50.0, 0.0, 0.0]
seed = 9

[export]
fbx = true
glb = true
preview = false
"""

EXPECTED = {
    "world.fbx",
    "world.glb",
    "world.blend",
    *(f"Crypt{s}" for s in (".tmx", "_classes.tsx", "_classes.png", ".tsx", "_blob.png", "_level.json")),
    "Crypt_level.png",
    *(f"Warren{s}" for s in (".tmx", "_classes.tsx", "_classes.png", ".tsx", "_wang16.png", "_level.json")),
    "Warren_level.png",
}

# ufbx's Python objects can crash the garbage collector with bpy in the process (see
# test_scatter_ground.py): read the FBX in a Python of its own that prints plain values
_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1], target_unit_meters=1.0)
out = {}
for node in list(scene.nodes):
    if node.is_root:
        continue
    lt = node.local_transform
    t, r, s = lt.translation, lt.rotation, lt.scale
    out[node.name] = {
        "parent": node.parent.name if node.parent is not None and not node.parent.is_root else None,
        "translation": [t.x, t.y, t.z],
        "rotation": [r.x, r.y, r.z, r.w],
        "scale": [s.x, s.y, s.z],
        "world": list(node.node_to_world.c3),
        "faces": len(list(node.mesh.faces)) if node.mesh is not None else 0,
    }
out["<materials>"] = sorted(m.name for m in list(scene.materials))
print(json.dumps(out), flush=True)
os._exit(0)
"""

# faces per material slot of each mesh, and the file's materials (ufbx 0.0.5 crashes reading meshes'
# materials after its nodes, or a second mesh's material list: a process of its own, slots counted)
_READ_SLOTS = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1])
out = {}
for mesh in list(scene.meshes):
    used = list(mesh.face_material)
    out[mesh.name] = [used.count(k) for k in range(len(mesh.materials))]
out = {"slots": out, "materials": sorted(m.name for m in list(scene.materials))}
print(json.dumps(out), flush=True)
os._exit(0)
"""

#: Unity's importer mirrors X of the FBX's right-handed Y-up frame.
UNITY = np.array([-1.0, 1.0, 1.0])


def _run(recipe, out):
    return subprocess.run([sys.executable, RUN, "--recipe", recipe, "--out", out], capture_output=True, text=True)


def _read_fbx(path):
    done = subprocess.run([sys.executable, "-c", _READ_FBX, path], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("levels")
    recipe = tmp / "levels.toml"
    recipe.write_text(RECIPE)
    outs = []
    for k in range(2):
        out = tmp / f"out{k}"
        done = _run(str(recipe), str(out))
        assert done.returncode == 0, done.stderr
        outs.append(out)
    return outs


def test_every_level_file_is_written_with_the_same_bytes_twice(two_runs):
    a, b = two_runs
    assert {p.name for p in a.iterdir()} == EXPECTED
    for name in sorted(EXPECTED - {"world.blend"}):  # FBX, glTF, TMX, TSX, tile images, JSON, PNG
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / "Crypt.tmx").read_bytes().startswith(b"<?xml")
    assert (a / "Crypt_level.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_fbx_has_each_level_where_unity_and_the_json_put_it(two_runs):
    out = two_runs[0]
    nodes = _read_fbx(str(out / "world.fbx"))
    crypt = nodes["Crypt"]
    assert crypt["parent"] is None
    # Blender origin (10, 20, 0.5) -> Unity (-10, 0.5, -20): file (x, z, -y), Unity mirrors x
    assert np.allclose(np.array(crypt["translation"]) * UNITY, (-10.0, 0.5, -20.0), atol=1e-5)
    assert np.allclose(crypt["rotation"], (0, 0, 0, 1), atol=1e-6) and np.allclose(crypt["scale"], 1, atol=1e-6)
    assert crypt["faces"] > 0
    assert {"Worldseed Level Floor", "Worldseed Level Wall"} <= set(nodes.pop("<materials>"))
    warren = nodes["Warren"]
    assert np.allclose(np.array(warren["translation"]) * UNITY, (50.0, 0.0, -0.0), atol=1e-5)
    # the markers: children of their level, at the Unity positions the level JSON gives
    record = json.loads((out / "Crypt_level.json").read_text())
    spawn = next(m for m in record["markers"] if m["kind"] == "spawn")
    assert nodes["Crypt_Spawn"]["parent"] == "Crypt"
    assert np.allclose(np.array(nodes["Crypt_Spawn"]["world"]) * UNITY, spawn["unity"], atol=1e-4)
    assert np.allclose(nodes["Crypt_Spawn"]["rotation"], (0, 0, 0, 1), atol=1e-6)
    children = [n for n, v in nodes.items() if v["parent"] == "Crypt"]
    assert len(children) == len(record["markers"])
    enemies = [m for m in record["markers"] if m["kind"] == "enemy"]
    if enemies:
        assert np.allclose(np.array(nodes["Crypt_Enemy_001"]["world"]) * UNITY, enemies[0]["unity"], atol=1e-4)


def test_a_recipe_with_two_levels_of_one_name_is_refused_in_one_line(tmp_path):
    recipe = tmp_path / "dup.toml"
    recipe.write_text('[terrain]\nenabled = false\n[[level]]\nname = "A"\n[[level]]\nname = "a"\n')
    done = _run(str(recipe), str(tmp_path / "out"))
    assert done.returncode == 2
    assert "level[1].name 'a' is taken by level[0]" in done.stderr and done.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_the_glb_carries_the_levels_and_their_material_colours(two_runs):
    import pygltflib

    gltf = pygltflib.GLTF2().load(str(two_runs[0] / "world.glb"))
    nodes = {n.name: n for n in gltf.nodes}
    # glTF is Y up, right-handed: Blender (10, 20, 0.5) is (10, 0.5, -20)
    assert np.allclose(nodes["Crypt"].translation, (10.0, 0.5, -20.0), atol=1e-5)
    assert "Crypt_Spawn" in nodes and nodes["Crypt"].mesh is not None
    colours = {m.name: m.pbrMetallicRoughness.baseColorFactor for m in gltf.materials}
    for name, rgb in zip(MATERIAL_NAMES[:2], MATERIAL_COLOURS[:2]):
        assert np.allclose(colours[name][:3], rgb, atol=1e-3), name
    assert MATERIAL_NAMES[2] not in colours  # no level has a ceiling


def test_no_material_slot_is_empty_and_the_fbx_has_the_glbs_materials(two_runs):
    """A level without a ceiling has no Ceiling slot: in the FBX (ufbx), every slot of every mesh has
    faces, and its materials are the .glb's."""
    import pygltflib

    done = subprocess.run(
        [sys.executable, "-c", _READ_SLOTS, str(two_runs[0] / "world.fbx")], capture_output=True, text=True, check=True
    )
    fbx = json.loads(done.stdout)
    slots = fbx["slots"]
    assert {"Crypt", "Warren"} <= set(slots)
    for name, faces in slots.items():
        assert all(f > 0 for f in faces), (name, faces)
    assert len(slots["Crypt"]) == len(slots["Warren"]) == 2  # floor, wall
    gltf = pygltflib.GLTF2().load(str(two_runs[0] / "world.glb"))
    assert fbx["materials"] == sorted(m.name for m in gltf.materials)


def _tiny_recipe(levels):
    head = '[world]\nname = "W"\nseed = 1\n[terrain]\nenabled = false\n[export]\nfbx = false\npreview = false\n'
    return head + "".join(
        f'[[level]]\nname = "{n}"\ngenerator = "walk"\nwidth = 12\nheight = 10\nautotile = "{t}"\n' for n, t in levels
    )


def test_a_rerun_removes_the_level_files_an_earlier_run_wrote_and_it_does_not(tmp_path):
    # a new-user trial: a level taken out of the recipe (or its tileset switched) left its old files behind
    out = tmp_path / "out"
    recipe = tmp_path / "r.toml"
    recipe.write_text(_tiny_recipe([("Crypt", "blob"), ("Warren", "blob")]))
    assert _run(str(recipe), str(out)).returncode == 0
    assert {"Warren.tmx", "Crypt.tsx", "Crypt_blob.png"} <= {p.name for p in out.iterdir()}
    # not ours: a _level.json of another format, and a link named like a level record
    (out / "Notes_level.json").write_text('{"format": "something else"}')
    (out / "Notes.tmx").write_text("mine")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "Far.tmx").write_text("mine")
    (tmp_path / "elsewhere" / "Far_level.json").write_bytes((out / "Warren_level.json").read_bytes())
    os.symlink(tmp_path / "elsewhere" / "Far_level.json", out / "Far_level.json")
    (out / "Far.tmx").symlink_to(tmp_path / "elsewhere" / "Far.tmx")
    recipe.write_text(_tiny_recipe([("Crypt", "wang16")]))
    done = _run(str(recipe), str(out))
    assert done.returncode == 0, done.stderr
    names = {p.name for p in out.iterdir()}
    expected = {f"Crypt{s}" for s in (".tmx", "_classes.tsx", "_classes.png", ".tsx", "_wang16.png")}
    assert expected | {"Crypt_level.json", "Crypt_level.png", "world.blend"} <= names
    assert not {n for n in names if n.startswith("Warren") or n.startswith("Crypt_blob")}
    assert {"Notes_level.json", "Notes.tmx", "Far_level.json", "Far.tmx"} <= names  # left alone
    assert (tmp_path / "elsewhere" / "Far.tmx").read_text() == "mine"
    removed = [line for line in done.stdout.splitlines() if line.startswith("worldseed: removed")]
    assert any("Warren.tmx (an earlier run's; this run does not write it)" in line for line in removed)
    assert any(line.endswith("Crypt_blob.png (an earlier run's; this run does not write it)") for line in removed)
    assert len(removed) == 7 + 1  # Warren's seven files, Crypt's blob tileset image (Crypt.tsx is rewritten)


def test_the_level_record_format_is_the_one_earlier_files_are_recognised_by(two_runs):
    from worldseed.core import levels as core_levels

    record = json.loads((two_runs[0] / "Crypt_level.json").read_text())
    assert core_levels.is_level_record(record) and record["format"] == "worldseed.level"


class _Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class _Tty(io.StringIO):
    def isatty(self):
        return True


def _search_calls():
    """``(seconds, done, total, stage)`` as a long WFC search reports them (the trial's run, the
    finding 9): attempt 1 climbs to 67%, then slides between 66% and 79% for 3 s, 1,000 calls a second;
    attempts 2 to 6 count from the start again; the last reaches the end."""
    calls, t, total = [], 0.0, 480
    calls.append((t, 0, total, "level Dung"))
    for done in range(1, 321):
        t += 0.001
        calls.append((t, done, total, "level Dung: attempt 1"))
    for k in range(3000):
        t += 0.001
        calls.append((t, (318, 322, 320, 379, 360, 317)[k % 6], total, "level Dung: attempt 1"))
    for attempt in range(2, 7):
        for done in range(1, 300 if attempt < 6 else total):
            t += 0.001
            calls.append((t, done, total, f"level Dung: attempt {attempt}"))
    calls.append((t + 0.001, total, total, "level Dung: solving"))
    return calls


def _percentages(text):
    """``[(stage, percent)]`` of TerminalProgress's lines (a terminal's redraws too)."""
    found = re.findall(r"(\d+)% (level Dung[^\r\n]*?)\s*(?:\d+\.\d+s)?(?=[\r\n]|$)", text)
    return [(stage.strip(), int(p)) for p, stage in found]


@pytest.mark.parametrize("stream", [io.StringIO, _Tty])
def test_progress_of_a_long_search_is_calm_and_never_goes_back(stream):
    from worldseed.addon.progress import TerminalProgress

    out, clock = stream(), _Clock()
    progress = TerminalProgress("worldseed T", stream=out, clock=clock)
    calls = _search_calls()
    for t, done, total, stage in calls:
        clock.now = t
        progress(done, total, stage)
    shown = _percentages(out.getvalue())
    seconds = calls[-1][0]
    # a few lines a second at most (the trial's run printed 123 lines, 30 a second while searching)
    assert len(shown) <= seconds / progress.interval + 2, shown
    assert len(shown) >= 7  # yet every attempt but the quick ones, and the end
    for (stage, p), (next_stage, q) in zip(shown, shown[1:]):
        assert stage != next_stage or q > p, shown  # never the same or a lower percentage in one stage
    assert shown[-1] == ("level Dung: solving", 100)
    assert {s for s, _ in shown} >= {f"level Dung: attempt {k}" for k in (1, 6)}
    if stream is _Tty:
        assert out.getvalue().endswith("s\n") and not progress.open


def test_a_headless_wfc_level_prints_a_calm_progress(tmp_path):
    recipe = tmp_path / "wfc.toml"
    recipe.write_text(
        '[world]\nname = "T"\n[terrain]\nenabled = false\n'
        '[[level]]\nname = "Dung"\ngenerator = "wfc_tiled"\nwfc_tileset = "dungeon"\n'
        "width = 48\nheight = 40\nseed = 2\n"
    )
    done = _run(str(recipe), str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("worldseed T:")]
    shown = [(line.split("% ", 1)[1], int(line.split(":")[1].split("%")[0])) for line in lines]
    assert 2 <= len(shown) <= 14, lines  # a line a tenth at most, the stage changes
    for (stage, p), (next_stage, q) in zip(shown, shown[1:]):
        assert stage != next_stage or q > p, lines
    files = [k for k, (stage, _) in enumerate(shown) if stage.startswith(("writing ", "wrote ", "render"))]
    assert files == list(range(len(shown) - 1 - len(files), len(shown) - 1)), lines  # the build, the files, done
    percents = [p for _, p in shown]
    assert percents == sorted(percents), lines  # one rising line across the build and the files
    assert shown[-1] == ("done", 100)


def test_levels_are_made_in_the_recipe_order_then_built_in_name_order(tmp_path):
    from worldseed.addon import batch
    from worldseed.core import recipe as core_recipe

    text = "".join(
        f'[[level]]\nname = "{name}"\ngenerator = "{generator}"\nwidth = 20\nheight = 16\n'
        for name, generator in (("Zeta", "cave"), ("Alpha", "wfc_tiled"), ("Mid", "maze"))
    ).replace('generator = "wfc_tiled"', 'generator = "wfc_tiled"\nwfc_tileset = "pipes"')
    seen = []
    batch.build_world(core_recipe.loads(text), str(tmp_path / "out"), progress=lambda d, t, s: seen.append((d, t, s)))
    made = [s.split()[1] for d, t, s in seen if s.startswith("level ") and ":" not in s]
    built = [s.split()[2] for d, t, s in seen if s.startswith("building level ")]
    assert made == ["Zeta", "Alpha", "Mid"] and built == ["Alpha", "Mid", "Zeta"]
    fractions = [d / t for d, t, s in seen]
    assert fractions == sorted(fractions)  # one rising progress: the levels, then the files
    assert seen[-1] == (seen[-1][1], seen[-1][1], "done")
    last_level = max(k for k, (d, t, s) in enumerate(seen) if s.startswith(("level ", "building level ", "levels")))
    assert seen[last_level][2] == "levels" and 0.0 < fractions[last_level] < 1.0  # the build's end, then the files
    assert [s for d, t, s in seen[last_level + 1 : -1]] and all(
        s.startswith(("writing ", "wrote ")) for d, t, s in seen[last_level + 1 : -1]
    )
