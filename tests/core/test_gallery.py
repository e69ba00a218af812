"""The gallery (``tools/gallery.py``, ``make gallery``) cannot rot: it runs here on a tiny preset of a
known family and of a new folder (picked up by folder, as a new family's presets will be), writes
small PNGs of the same bytes twice, and every committed picture is one the presets still make.

Cheap: a 33-vertex terrain, a level; the full gallery (about a minute, Blender for trees and the showcase) is
``make gallery``.
"""

import importlib.util
import pathlib
import struct
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GALLERY = ROOT / "docs" / "gallery"


def _tool():
    if "worldseed_gallery" not in sys.modules:
        spec = importlib.util.spec_from_file_location("worldseed_gallery", ROOT / "tools" / "gallery.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["worldseed_gallery"] = module
        spec.loader.exec_module(module)
    return sys.modules["worldseed_gallery"]


TINY = """\
[world]
seed = 3
[terrain]
resolution = 33
size = 128.0
height = 20.0
falloff = "radial"
sea_level = 0.1
"""
TINY_NETWORKS = (
    TINY.replace("resolution = 33", "resolution = 65")
    + "[rivers]\nenabled = true\nthreshold = 400.0\n"
    + '[roads]\nenabled = true\nroad_class = "trail"\npoints = [[-20.0, -10.0], [15.0, 12.0]]\n'
)


def _png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def presets(tmp_path_factory):
    root = tmp_path_factory.mktemp("presets")
    (root / "terrain").mkdir()
    (root / "terrain" / "tiny.toml").write_text(TINY)
    (root / "hamlets").mkdir()  # a folder no family names: whole recipes, drawn as relief maps
    (root / "hamlets" / "brook.toml").write_text(TINY_NETWORKS)
    return root


def test_the_gallery_draws_a_tiny_preset_and_a_new_folder_the_same_twice(presets, tmp_path):
    tool = _tool()
    names = [j.name for j in tool.jobs(presets, extras=False)]
    assert names == ["hamlets_brook", "terrain_tiny"]  # picked up by folder, named <folder>_<stem>
    out = tmp_path / "gallery"
    assert (
        tool.main(
            [
                "--presets",
                str(presets),
                "--out",
                str(out),
                "--only",
                "*_tiny",
                "--only",
                "hamlets_*",
                "--only",
                "levels_cave",
            ]
        )
        == 0
    )
    written = sorted(p.name for p in out.iterdir())
    assert written == ["hamlets_brook.png", "levels_cave.png", "terrain_tiny.png"]
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    for name, data in first.items():
        width, height = _png_size(data)
        assert 64 <= width <= 1024 and 64 <= height <= 1024, (name, width, height)
        assert len(data) <= tool.MAX_BYTES
    stamps = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    assert (
        tool.main(
            [
                "--presets",
                str(presets),
                "--out",
                str(out),
                "--only",
                "*_tiny",
                "--only",
                "hamlets_*",
                "--only",
                "levels_cave",
            ]
        )
        == 0
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == first  # the same bytes
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == stamps  # and left alone


def test_the_networks_are_painted_on_the_relief(presets):
    tool = _tool()
    r = tool.recipe.load(presets / "hamlets" / "brook.toml")
    plain = tool.recipe.loads(TINY.replace("resolution = 33", "resolution = 65"))
    built = tool.build_recipe(r)
    assert built["rivers"].maps.water.any() and built["roads"].maps.road.max() > 0.5
    assert tool.recipe_png(r) != tool.recipe_png(plain)  # the water and the road show


def test_a_picture_over_the_limit_is_refused(tmp_path, monkeypatch):
    tool = _tool()
    monkeypatch.setattr(tool, "MAX_BYTES", 100)
    job = tool.Job("levels_bsp", "test", lambda: tool.level_png(tool.levels.LevelSpec(generator="bsp", seed=1)))
    with pytest.raises(RuntimeError, match="levels_bsp.png is .* bytes, over the gallery's 100"):
        tool.write(job, tmp_path)
    assert not (tmp_path / "levels_bsp.png").exists()


def test_every_committed_picture_is_small_and_every_preset_has_one():
    tool = _tool()
    expected = {f"{j.name}.png" for j in tool.jobs()}
    committed = {p.name for p in GALLERY.glob("*.png")}
    assert committed, "docs/gallery is empty: run make gallery"
    missing = sorted(expected - committed)
    assert not missing, f"no picture for {missing}: run make gallery"
    stale = sorted(committed - expected)
    assert not stale, f"pictures no preset makes any more: {stale} (remove them)"
    for p in GALLERY.glob("*.png"):
        assert p.stat().st_size <= tool.MAX_BYTES, p.name
