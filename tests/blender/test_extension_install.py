"""Build the extension zip with Blender's tool, install it in a fresh Blender, use it."""

import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")


@pytest.fixture(scope="module")
def extension_zip(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "build_extension.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    zips = [p for p in os.listdir(out) if p.endswith(".zip")]
    assert len(zips) == 1 and zips[0].startswith("worldseed-")
    return out / zips[0]


def test_zip_holds_the_extension_and_nothing_else(extension_zip):
    import zipfile

    names = zipfile.ZipFile(extension_zip).namelist()
    assert "blender_manifest.toml" in names and "__init__.py" in names
    assert {
        "addon/__init__.py",
        "operators/bridge/terrain.py",
        "panels/terrain.py",
        "core/noise.py",
        "presets/terrain/island.toml",
        "presets/trees/abop_1_25_bush.toml",
        "core/trees/lsystem.py",
        "panels/trees.py",
        "worldseed_run.py",
    } <= set(names)
    assert not [
        n
        for n in names
        if n.startswith(("tests/", "bench/", "tools/", ".", "dist/", "out/"))
        or "__pycache__" in n
        or n.endswith(".pyc")
    ]


def test_installed_extension_runs_like_a_users(extension_zip, tmp_path):
    script = textwrap.dedent(f"""
        import bpy, importlib.util, sys, traceback
        # leaves through worldseed_run.exit_process: the bpy module of 4.2 and 4.5 cannot end the process
        spec = importlib.util.spec_from_file_location("worldseed_run", {RUN!r})
        worldseed_run = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(worldseed_run)
        try:
            result = bpy.ops.extensions.package_install_files(
                filepath={str(extension_zip)!r}, repo="user_default", enable_on_install=True)
            assert result == {{"FINISHED"}}, result
            import bl_ext.user_default.worldseed as ext
            assert "bl_ext.user_default.worldseed" in bpy.context.preferences.addons
            bpy.ops.wm.read_homefile(use_empty=True)
            bpy.context.scene.worldseed.terrain.resolution = 33
            bpy.ops.worldseed.terrain_add(from_settings=True)
            obj = bpy.context.active_object
            print("OBJECT", obj.name, len(obj.data.vertices))
            prefs = bpy.context.preferences.addons["bl_ext.user_default.worldseed"].preferences
            print("PREFS", prefs.modal_vertices)
            bpy.ops.worldseed.terrain_preset_apply(preset="Island")
            print("PRESET", bpy.context.scene.worldseed.terrain.falloff)
            bpy.ops.worldseed.terrain_preset_save(preset_name="Mine")
            print("USERDIR", ext.operators.bridge.presets.user_dir())
            bpy.context.scene.worldseed.trees.species = "abop_1_24b"
            bpy.context.scene.worldseed.trees.iterations = 3
            bpy.ops.worldseed.tree_add(from_settings=True)
            print("TREE", sorted(c.name for c in bpy.context.active_object.children))
            bpy.ops.worldseed.export_unity(filepath={str(tmp_path / "ext.fbx")!r})
        except BaseException:
            traceback.print_exc()
            worldseed_run.exit_process(1)
        worldseed_run.exit_process(0)
    """)
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(tmp_path / "user"))
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env, cwd=str(tmp_path)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OBJECT World 1089" in proc.stdout
    assert "PREFS 600000" in proc.stdout
    assert "PRESET radial" in proc.stdout
    assert "TREE ['Plant_B_LOD0', 'Plant_B_LOD1', 'Plant_B_LOD2']" in proc.stdout
    user_dir = [line.split(" ", 1)[1] for line in proc.stdout.splitlines() if line.startswith("USERDIR")][0]
    assert user_dir.startswith(str(tmp_path / "user")) and os.path.isfile(os.path.join(user_dir, "mine.toml"))
    assert (tmp_path / "ext.fbx").stat().st_size > 10_000
