"""The headless entry, run as a user would: a separate process on a recipe file."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")

SMALL = """
[world]
name = "BatchTile"
seed = 4
[terrain]
resolution = 65
size = 128.0
height = 20.0
octaves = 4
lods = 2
sea_level = 0.1
[export]
fbx = true
glb = true
heightmap_raw = true
render = true
"""


def run(*args, cwd=None):
    return subprocess.run([sys.executable, RUN, *args], capture_output=True, text=True, timeout=600, cwd=cwd)


@pytest.fixture(scope="module")
def batch_out(tmp_path_factory):
    folder = tmp_path_factory.mktemp("batch")
    recipe = folder / "world.toml"
    recipe.write_text(SMALL)
    proc = run("--recipe", str(recipe), "--out", str(folder / "out"), "--write-recipe")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return folder / "out", proc


def test_batch_writes_every_file(batch_out):
    out, proc = batch_out
    files = set(os.listdir(out))
    assert files - {"preview.png"} == {
        "relief.png",
        "recipe.toml",
        "world.blend",
        "world.fbx",
        "world.glb",
        "world_heightmap.json",
        "world_heightmap.raw",
    }
    # the 3-D render needs OpenGL; without it the run warns and relief.png is the preview
    assert "preview.png" in files or "relief.png is the preview" in proc.stderr
    for name in files & {"relief.png", "preview.png"}:
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert os.path.getsize(out / "world.blend") > 10_000
    assert os.path.getsize(out / "world_heightmap.raw") == 65 * 65 * 2
    assert "worldseed: wrote" in proc.stdout and "100%" in proc.stderr  # progress on the terminal


def test_the_run_shows_progress_and_not_the_writers_chatter(batch_out):
    """Issue 21: three "EGL Error" lines per render and about 100 INFO lines of the glTF writer reached
    the user, while the exports and the render showed no progress line."""
    out, proc = batch_out
    said = proc.stdout + proc.stderr
    for noise in (
        "EGL Error",
        "| INFO:",
        "INFO Draco",
        "Extracting primitive",
        "FBX export starting",
        "Saved: '",
        "Saved copy as",
    ):
        assert noise not in said, noise
    # the files phase on the progress line (lines are at least LINE_INTERVAL apart, so which of its
    # steps shows depends on the machine's speed; the render and the writers each take longer than that)
    assert re.search(r"% (wrote world[._]\S+|rendered preview\.png)\n", proc.stderr), proc.stderr
    if (out / "preview.png").exists():
        assert "rendered preview.png" in proc.stderr


def test_batch_blend_opens_with_the_terrain(batch_out):
    import bpy

    out, _ = batch_out
    bpy.ops.wm.open_mainfile(filepath=str(out / "world.blend"))
    names = sorted(o.name for o in bpy.data.objects)
    assert names == ["BatchTile", "BatchTile_LOD0", "BatchTile_LOD1"]
    assert bpy.data.objects["BatchTile"]["worldseed_kind"] == "terrain"


def test_batch_output_matches_the_ui_build(batch_out):
    """The FBX from the batch run holds the same meshes the operator builds from the same recipe."""
    import bpy

    from worldseed.core import recipe as core_recipe
    from worldseed.operators.bridge import terrain as build

    out, _ = batch_out
    recipe = core_recipe.load(out / "recipe.toml")
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.import_scene.fbx(filepath=str(out / "world.fbx"), axis_forward="-Z", axis_up="Y", bake_space_transform=True)
    imported = {o.name: len(o.data.vertices) for o in bpy.data.objects if o.type == "MESH"}
    assert imported == {"BatchTile_LOD0": 65 * 65, "BatchTile_LOD1": 33 * 33}
    z_imported = np.array(sorted(v.co.z for v in bpy.data.objects["BatchTile_LOD0"].data.vertices))
    bpy.ops.wm.read_homefile(use_empty=True)
    root = build.build_terrain(recipe, collection=bpy.context.scene.collection)
    lod0 = [c for c in root.children if c.name.endswith("_LOD0")][0]
    z_built = np.array(sorted(v.co.z for v in lod0.data.vertices))
    np.testing.assert_allclose(z_imported, z_built, atol=1e-4)


def test_batch_is_deterministic(tmp_path, batch_out):
    out, _ = batch_out
    proc = run("--recipe", str(out / "recipe.toml"), "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    for name in ("relief.png", "world_heightmap.raw", "world.fbx", "world.glb"):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name


PRESETS = sorted(p for p in os.listdir(os.path.join(ROOT, "presets", "terrain")) if p.endswith(".toml"))


@pytest.mark.parametrize("preset", PRESETS)
def test_every_builtin_preset_builds_headless(tmp_path, preset):
    """The presets are recipes too; each builds (with the default single LOD) and exports."""
    recipe = tmp_path / "r.toml"
    text = open(os.path.join(ROOT, "presets", "terrain", preset)).read()
    recipe.write_text(text.replace("[terrain]\n", "[terrain]\nresolution = 65\n", 1))
    proc = run("--recipe", str(recipe), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert {"world.fbx", "world.blend", "relief.png"} <= set(os.listdir(tmp_path / "out"))


def test_malformed_recipe_names_the_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[terrain]\noctaves = 40\n")
    proc = run("--recipe", str(bad), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "terrain.octaves" in proc.stderr and "40" in proc.stderr and "[1, 16]" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "text, words",
    [
        ("[terrain\nresolution = 3", "not valid TOML"),
        ("[terrain]\nresolutoin = 65\n", "resolutoin"),
        ("[terrain]\nresolution = 100000\n", "terrain.resolution"),
        ("[terrain]\nheight = nan\n", "terrain.height"),
        ('[terrain]\nbasis = "value"\n', "terrain.basis"),
        ("[world]\nseed = -1\n", "world.seed"),
        ('[terrain]\nscale = "big"\n', "terrain.scale"),
    ],
)
def test_bad_recipes_exit_2_with_one_clear_line(tmp_path, text, words):
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    proc = run("--recipe", str(bad), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr


def test_missing_recipe_file(tmp_path):
    proc = run("--recipe", str(tmp_path / "none.toml"), "--out", str(tmp_path))
    assert proc.returncode == 2 and "cannot be read" in proc.stderr


def test_output_path_that_is_a_file(tmp_path):
    (tmp_path / "taken").write_text("keep me")
    proc = run("--recipe", str(tmp_path / "x.toml"), "--out", str(tmp_path / "taken"))
    assert proc.returncode == 2
    good = tmp_path / "ok.toml"
    good.write_text("[terrain]\nresolution = 9\n")
    proc = run("--recipe", str(good), "--out", str(tmp_path / "taken"))
    assert proc.returncode == 2 and "taken" in proc.stderr
    assert (tmp_path / "taken").read_text() == "keep me"


@pytest.mark.parametrize("name", ["../escape", "", "a/b", ".hidden"])
def test_bad_output_names_are_refused(tmp_path, name):
    good = tmp_path / "ok.toml"
    good.write_text("[terrain]\nresolution = 9\n")
    proc = run("--recipe", str(good), "--out", str(tmp_path / "out"), "--name", name)
    assert proc.returncode == 2 and "--name" in proc.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "escape.fbx").exists()


def test_a_folder_in_the_way_stops_the_run_before_anything_is_replaced(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "world.fbx").write_bytes(b"old export")
    (out / "world.blend").mkdir()
    good = tmp_path / "ok.toml"
    good.write_text("[terrain]\nresolution = 9\n")
    proc = run("--recipe", str(good), "--out", str(out))
    assert proc.returncode == 2 and "world.blend" in proc.stderr and "Errno" not in proc.stderr
    assert (out / "world.fbx").read_bytes() == b"old export"


def test_unity_terrain_from_the_raw_lines_up_with_the_fbx_mesh(batch_out):
    """Put a Unity Terrain where the JSON says and read its heights: they are the FBX mesh's heights.

    Unity mirrors FBX X on import, so a mesh vertex at FBX (x, y, z) is at Unity (-x, y, z); a
    Terrain at P has sample [row, col] (file order, Flip Vertically off) at P + (col, h, row) * cell.
    """
    import json

    from io_scene_fbx import parse_fbx

    from worldseed.core import unity

    out, _ = batch_out
    settings = json.loads((out / "world_heightmap.json").read_text())
    side = settings["width"]
    heights = unity.read_raw16((out / "world_heightmap.raw").read_bytes(), side=side)
    size = settings["terrain_size_m"]["width"]
    cell = size / (side - 1)
    px, py, pz = settings["terrain_position"]
    root, _ = parse_fbx.parse(str(out / "world.fbx"))
    objects = [e for e in root.elems if e.id == b"Objects"][0]
    models = {m.props[1].split(b"\x00")[0].decode(): m.props[0] for m in objects.elems if m.id == b"Model"}
    geometries = {g.props[0]: g for g in objects.elems if g.id == b"Geometry"}
    links = [e for e in root.elems if e.id == b"Connections"][0]
    geom_of = {c.props[2]: c.props[1] for c in links.elems if c.props[1] in geometries}
    lod0 = geometries[geom_of[models["BatchTile_LOD0"]]]
    v = np.asarray([e for e in lod0.elems if e.id == b"Vertices"][0].props[0]).reshape(-1, 3)
    unity_xyz = v * np.array([-1.0, 1.0, 1.0])  # the mesh root sits at the origin with identity transform
    col = np.rint((unity_xyz[:, 0] - px) / cell).astype(int)
    row = np.rint((unity_xyz[:, 2] - pz) / cell).astype(int)
    assert col.min() == 0 and row.min() == 0 and col.max() == side - 1 and row.max() == side - 1
    terrain_y = py + heights[row, col] * settings["terrain_size_m"]["height"]
    np.testing.assert_allclose(terrain_y, unity_xyz[:, 1], atol=settings["terrain_size_m"]["height"] / 65535 * 2)
