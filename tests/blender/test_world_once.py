"""A tiled world with ``[[trees]]`` and ``[[level]]``: built once for the whole world, in world coordinates.

``worldseed_run.py`` on a 2 x 2 world (each run a process of its own, as a user runs it): the trees
as ``world_trees.fbx`` in rows in front of the world, the level at its origin in
``world_level.fbx`` with its own files (Tiled map, tilesets, JSON, picture), a tree species as
scatter props in the prop library, all listed in the world JSON under ``"once"``; read back with
ufbx and json.  The same bytes with ``--workers 2``; a rerun keeps them, rebuilds a damaged one
and what a killed run left unrecorded, to the same bytes; a changed recipe removes the old files, in
the same switch as the world JSON that stops listing them (killed in it: the old set or the new one).
The sidebar's Export World writes the scene's trees and levels once too, where they stand.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import bpy
import numpy as np
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.operators.bridge import outputs, world_export

from ._world_cases import fbx_nodes, panel_world, snapshot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")
#: Unity's importer mirrors X of the FBX's right-handed Y-up frame.
UNITY = np.array([-1.0, 1.0, 1.0])
SIZE = 128.0


def recipe_text(*, trees=True, level="Crypt", fbx=True):
    """The world "Isle": 2 x 2 tiles of 33^2, a bush scatter, with ``trees`` a ``[[trees]]`` bush and
    with ``level`` a cave level of that name at Blender (-100, -60, 5)."""
    parts = [
        '[world]\nname = "Isle"\nseed = 13\ntiles = [2, 2]\n',
        f"[terrain]\nresolution = 33\nsize = {SIZE}\nheight = 40.0\n",
        '[[scatter]]\nname = "Bushes"\nprop = "bush"\nradius = 16.0\n',
        f"[export]\nfbx = {str(fbx).lower()}\n",
    ]
    if trees:
        parts.append('[[trees]]\nspecies = "bush"\nvariants = 1\n')
    if level:
        parts.append(
            f'[[level]]\nname = "{level}"\ngenerator = "cave"\nwidth = 16\nheight = 16\norigin = [-100.0, -60.0, 5.0]\n'
        )
    return "\n".join(parts)


LEVEL_FILES = {
    "Crypt.tmx",
    "Crypt_classes.tsx",
    "Crypt_classes.png",
    "Crypt.tsx",
    "Crypt_blob.png",
    "Crypt_level.json",
    "Crypt_level.png",
}
ONCE = {"world_trees.fbx", "world_level.fbx"} | LEVEL_FILES


def run(recipe, out, *flags):
    proc = subprocess.run(
        [sys.executable, RUN, "--recipe", str(recipe), "--out", str(out), *flags],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc


def digests(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not name.startswith(".") and os.path.isfile(path):
            with open(path, "rb") as fh:
                out[name] = hashlib.sha256(fh.read()).hexdigest()
    return out


def world_json(folder):
    with open(os.path.join(folder, "world_world.json"), encoding="utf-8") as fh:
        return json.load(fh)


@pytest.fixture(scope="module")
def recipe_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("recipe") / "world.toml"
    path.write_text(recipe_text())
    return path


@pytest.fixture(scope="module")
def serial(recipe_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("serial") / "out"
    proc = run(recipe_file, out)
    return out, proc, digests(out)


def test_trees_and_levels_are_written_once_and_listed_in_the_world_json(serial):
    out, proc, files = serial
    assert ONCE <= set(files)
    assert all(f"worldseed: wrote {out / name}" in proc.stdout for name in ONCE)
    doc = world_json(out)
    listed = {f["name"]: f for entry in doc["once"].values() for f in entry["files"]}
    assert list(doc["once"]) == ["trees", "level"] and set(listed) == ONCE
    assert {f["name"] for f in doc["once"]["trees"]["files"]} == {"world_trees.fbx"}
    # the tiles' digest is of the recipe without them; theirs of the whole recipe (written beside)
    assert doc["once"]["level"]["recipe_sha256"] != doc["recipe_sha256"]
    for name, record in listed.items():  # size and SHA-256 of the file on disk
        assert record["bytes"] == os.path.getsize(out / name) and record["sha256"] == files[name]
    for tile in doc["tiles"]:  # not per tile: no tile lists them
        assert not ONCE & {f["name"] for f in tile["files"]}


def test_the_run_has_one_rising_progress_line(serial):
    """Found from outside: the sections built once ended at 100 % (and "done") before the tiles began at
    12 %; a run's progress only rises, and says "done" once, at 100 %."""
    out, proc, files = serial
    shown = [(int(m.group(1)), m.group(2)) for m in re.finditer(r"^worldseed \w+: +(\d+)% (.*)$", proc.stderr, re.M)]
    assert len(shown) >= 3 and any(stage.startswith(("trees", "level", "tree")) for _, stage in shown), shown
    assert [p for p, _ in shown] == sorted(p for p, _ in shown), shown
    assert [stage for _, stage in shown].count("done") == 1 and shown[-1] == (100, "done"), shown


def test_the_level_stands_at_its_origin_in_the_world(serial):
    out, _, _ = serial
    nodes = fbx_nodes(out / "world_level.fbx")
    translation, rotation, scale, _ = nodes["Crypt"]
    # Blender origin (-100, -60, 5) -> Unity (100, 5, 60): in tile (0, 0), which covers Unity [0, 128]^2
    assert np.allclose(np.array(translation) * UNITY, (100.0, 5.0, 60.0), atol=1e-5)
    assert np.allclose(rotation, (0, 0, 0, 1), atol=1e-6) and np.allclose(scale, 1, atol=1e-6)
    assert any(box is not None for *_, box in nodes.values())  # the level's mesh
    record = json.loads((out / "Crypt_level.json").read_text())
    assert record["name"] == "Crypt" and record["markers"]
    assert not any(n.startswith(("Isle_", "Bush")) for n in nodes)  # no tile, no tree in the level's file


def test_the_trees_stand_in_front_of_the_world_with_their_lods(serial):
    out, _, _ = serial
    nodes = fbx_nodes(out / "world_trees.fbx")
    assert {"Bush", "Bush_LOD0", "Bush_LOD1"} <= set(nodes)
    x, y, z = np.array(nodes["Bush"][0]) * UNITY
    # centred on the world's 2 x 128 m along Unity X, beyond its far edge (Unity Z > 256), on the ground
    assert abs(x - SIZE) < 1e-3 and z > 2 * SIZE and abs(y) < 1e-6
    assert nodes["Bush_LOD0"][3] is not None  # a mesh


def test_a_tree_species_scatters_as_props_in_every_tile_and_the_prop_library(serial):
    out, _, files = serial
    props = fbx_nodes(out / "world_props.fbx")
    assert {"Bush_P01", "Bush_P01_LOD0"} <= set(props)
    placed = 0
    for x, z in [(0, 0), (1, 0), (0, 1), (1, 1)]:
        data = json.loads((out / f"world_{x}_{z}_placements.json").read_text())
        text = json.dumps(data)
        placed += text.count('"Bush_P01"')
    assert placed > 0


def test_workers_2_write_the_same_bytes(serial, recipe_file, tmp_path):
    _, _, files = serial
    proc = run(recipe_file, tmp_path / "out", "--workers", "2")
    assert "Dask cluster (2 workers) ready" in proc.stderr
    assert digests(tmp_path / "out") == files  # the trees, the level, tiles and world JSON


@pytest.fixture
def copy(serial, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(serial[0], out)
    return out


def test_a_rerun_keeps_them(serial, recipe_file, copy):
    stamps = {n: os.stat(copy / n).st_ino for n in ONCE}
    proc = run(recipe_file, copy)
    assert {n: os.stat(copy / n).st_ino for n in ONCE} == stamps  # not rewritten
    assert "world_trees.fbx" not in proc.stdout and "Crypt.tmx" not in proc.stdout
    assert digests(copy) == serial[2]


def test_a_damaged_file_is_built_again_to_the_same_bytes(serial, recipe_file, copy):
    data = bytearray((copy / "world_trees.fbx").read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, other bytes: the SHA-256 tells
    (copy / "world_trees.fbx").write_bytes(bytes(data))
    (copy / "Crypt_level.png").unlink()
    level_fbx = os.stat(copy / "world_level.fbx").st_ino
    proc = run(recipe_file, copy)
    assert f"wrote {copy / 'world_trees.fbx'}" in proc.stdout and f"wrote {copy / 'Crypt_level.png'}" in proc.stdout
    assert os.stat(copy / "world_level.fbx").st_ino != level_fbx  # the level's files are one set
    assert digests(copy) == serial[2]


def test_what_a_killed_run_left_unrecorded_is_built_again_to_the_same_bytes(serial, recipe_file, copy):
    # a run killed after writing them and before the world JSON listed them leaves this
    doc = world_json(copy)
    del doc["once"]
    core_world.write_world_json(str(copy / "world_world.json"), doc)
    proc = run(recipe_file, copy)
    assert f"wrote {copy / 'world_level.fbx'}" in proc.stdout and "kept 4 complete tile(s)" in proc.stdout
    assert digests(copy) == serial[2]


def test_a_changed_recipe_removes_the_files_it_no_longer_writes(copy, tmp_path):
    recipe = tmp_path / "vault.toml"
    recipe.write_text(recipe_text(trees=False, level="Vault"))
    proc = run(recipe, copy)
    assert "kept 4 complete tile(s)" in proc.stdout  # the tiles do not read trees or levels: none rebuilt
    names = set(os.listdir(copy))
    assert {"Vault.tmx", "Vault_level.json", "world_level.fbx"} <= names
    assert not (LEVEL_FILES | {"world_trees.fbx"}) & names  # the old level and the trees: gone
    assert f"removed {copy / 'world_trees.fbx'}" in proc.stdout
    doc = world_json(copy)
    assert list(doc["once"]) == ["level"] and "Vault.tmx" in {f["name"] for f in doc["once"]["level"]["files"]}


def test_a_changed_recipe_killed_in_its_switch_leaves_the_old_set_or_the_new_one(serial, tmp_path):
    """The trees and the level go in the run's one switch with the world JSON: killed after its first
    move, amid the removals and before the record is dropped, the folder holds after the next lock
    holder exactly what an unbroken run of the changed recipe leaves, the JSON listing exactly it."""
    recipe = tmp_path / "vault.toml"
    recipe.write_text(recipe_text(trees=False, level="Vault"))
    folders = {k: tmp_path / f"k{k}" for k in ("ref", 2, 11, 18)}
    procs = []
    for k, folder in folders.items():
        shutil.copytree(serial[0], folder)
        env = {key: v for key, v in os.environ.items() if key != outputs.KILL_AFTER_RENAME}
        if k != "ref":
            env[outputs.KILL_AFTER_RENAME] = str(k)
        cmd = [sys.executable, RUN, "--recipe", str(recipe), "--out", str(folder)]
        procs.append((k, subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)))
    for k, proc in procs:
        status = proc.wait(timeout=600)
        assert status == (0 if k == "ref" else outputs.KILLED_STATUS), (k, status, proc.stderr.read()[-2000:])
    reference = digests(folders["ref"])
    assert "Vault.tmx" in reference and "world_trees.fbx" not in reference
    for k in (2, 11, 18):
        with outputs.folder_lock(str(folders[k])):  # the next run's first act: finish the switch
            pass
        assert digests(folders[k]) == reference, k
        listed = core_world.once_names(world_json(folders[k]))
        assert set(listed) == {"world_level.fbx"} | {n.replace("Crypt", "Vault") for n in LEVEL_FILES}


def test_without_fbx_the_levels_files_are_written_and_the_trees_say_why_not(tmp_path):
    recipe = tmp_path / "nofbx.toml"
    recipe.write_text(recipe_text(fbx=False))
    proc = run(recipe, tmp_path / "out")
    names = set(os.listdir(tmp_path / "out"))
    assert LEVEL_FILES <= names and not {"world_trees.fbx", "world_level.fbx"} & names
    assert "worldseed: note: [[trees]] wrote no file ([export] fbx = false)" in proc.stderr
    assert set(world_json(tmp_path / "out")["once"]) == {"level"}


# --------------------------------------------------------------------------- the sidebar's Export World


def test_every_section_built_once_has_its_kind_for_the_sidebar():
    once = {s.key for s in core_recipe.SECTIONS if s.tiled == "once"}
    assert set(world_export.once_kinds()) == once  # a new family built once: the sidebar exports it too


def test_export_world_writes_the_scenes_trees_and_levels_once_where_they_stand(empty_scene, tmp_path):
    panel_world(tmp_path)
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    assert bpy.ops.worldseed.tree_add(species="bush", iterations=3) == {"FINISHED"}
    bpy.context.active_object.location = (-40.0, -300.0, 0.0)
    assert bpy.ops.worldseed.level_add(generator="cave", width=16, height=16, seed=3, name="Crypt") == {"FINISHED"}
    bpy.context.active_object.location = (-100.0, -60.0, 5.0)
    bpy.context.view_layer.update()  # the markers' world positions follow their level
    before = snapshot()
    assert bpy.ops.worldseed.world_export() == {"FINISHED"}
    assert snapshot() == before
    names = set(os.listdir(tmp_path))
    assert {"world_trees.fbx", "world_level.fbx", "world_0_0.fbx"} | LEVEL_FILES <= names
    document = core_world.read_world_json(str(tmp_path / "world_world.json"))
    assert list(document["once"]) == ["trees", "level"]
    for entry in document["once"].values():
        for record in entry["files"]:
            assert record == core_world.file_record(str(tmp_path / record["name"]))
    nodes = fbx_nodes(tmp_path / "world_level.fbx")
    assert np.allclose(np.array(nodes["Crypt"][0]) * UNITY, (100.0, 5.0, 60.0), atol=1e-5)
    trees = fbx_nodes(tmp_path / "world_trees.fbx")
    (root,) = [n for n in trees if "_LOD" not in n]
    assert np.allclose(np.array(trees[root][0]) * UNITY, (40.0, 0.0, 300.0), atol=1e-4)
    assert not [n for n in trees if n.startswith(("Land_", "Rock"))]  # tiles and props are not trees
