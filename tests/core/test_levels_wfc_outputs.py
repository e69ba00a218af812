"""core.levels on Wave Function Collapse: the levels (class grids, palettes, connectivity, progress)
and their outputs (JSON record, Tiled map, preview), the same bytes for the same seed."""

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from core import wfc as core_wfc
from core.errors import ParameterError
from core.levels import (
    FLOOR,
    WALL,
    LevelSpec,
    from_dict,
    generate,
    generate_steps,
    label_regions,
    level_json_bytes,
    level_record,
    tiled_files,
)
from core.levels._wfc_files import SAMPLE_PRESETS
from core.steps import drive

from ._wfc_cases import sample_png, tiled_spec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def variant_classes(tileset):
    raw = getattr(tileset, "classes", None)
    return np.full(len(tileset.names), FLOOR, np.uint8) if raw is None else np.asarray(raw, np.uint8)


# --------------------------------------------------------------------------- levels


def test_tiled_class_grid_is_the_tileset_classes_of_its_ids():
    spec = tiled_spec(width=40, height=30, seed=5)
    level = generate(spec)
    ts = core_wfc.load_tileset(os.path.join(ROOT, "presets", "wfc", "dungeon.toml"))
    classes = variant_classes(ts)
    assert level.wfc.model == "tiled" and level.wfc.names == tuple(ts.names)
    assert level.wfc.ids.shape == level.grid.shape == (30, 40)
    assert np.array_equal(level.grid, classes[level.wfc.ids])
    assert level.wfc.classes == tuple(int(c) for c in classes)
    # every neighbouring pair allowed by the tileset
    ids = level.wfc.ids
    assert ts.compatible[0][ids[:, :-1], ids[:, 1:]].all() and ts.compatible[1][ids[:-1], ids[1:]].all()
    # markers: spawn and exit on walkable cells of one region (the largest)
    if int((level.grid != WALL).sum()) >= 2:
        kinds = [m.kind for m in level.markers]
        assert kinds[:1] == ["spawn"]
        labels, _ = label_regions(level.grid != WALL)
        regions = {int(labels[m.y, m.x]) for m in level.markers}
        assert len(regions) == 1 and -1 not in regions


def test_overlapping_classes_default_and_mapping():
    """rooms.txt: 1 walls (the border), 0 floor, 2 doors; by default only the border value is wall."""
    plain = generate(from_dict({"generator": "wfc_overlapping", "sample": "rooms", "width": 30, "height": 20}))
    assert plain.wfc.palette == (0, 1, 2) and plain.wfc.names == ("0", "1", "2")
    assert plain.wfc.classes == (FLOOR, WALL, FLOOR)
    mapped = generate(
        from_dict(
            {
                "generator": "wfc_overlapping",
                "sample": "rooms",
                "width": 30,
                "height": 20,
                "classes": {"2": "door", "0": "corridor"},
            }
        )
    )
    assert mapped.wfc.classes == (2, WALL, 3)
    assert np.array_equal(mapped.grid, np.array(mapped.wfc.classes, np.uint8)[mapped.wfc.ids])
    assert np.array_equal(mapped.wfc.ids, plain.wfc.ids)  # the classes do not change the solve


def test_overlapping_png_palette_in_json(tmp_path):
    img = sample_png(tmp_path / "rooms.png")
    spec = from_dict(
        {
            "generator": "wfc_overlapping",
            "sample": "rooms.png",
            "n": 2,
            "width": 20,
            "height": 14,
            "seed": 4,
            "classes": {"#C80000": "door"},
        },
        base=str(tmp_path),
    )
    level = generate(spec)
    colours = sorted({tuple(int(c) for c in px) for px in img.reshape(-1, 3)})
    assert level.wfc.palette == tuple(colours)
    assert level.wfc.names == ("#14141e", "#c80000", "#e6dcc8")
    assert level.wfc.classes == (WALL, 3, FLOOR)
    record = json.loads(level_json_bytes(level, name="Rooms", cell_size=2.0))
    wfc = record["wfc"]
    assert wfc["model"] == "overlapping" and wfc["source"] == "rooms.png"
    assert wfc["palette"] == [list(c) for c in colours]
    assert np.array_equal(np.array(wfc["ids"]), level.wfc.ids)
    assert record["settings"]["classes"] == [["#c80000", "door"]]
    # the class grid of the record is the class of each cell's colour
    grid = np.array([[int(ch) for ch in row] for row in record["grid"]])
    assert np.array_equal(grid, np.array(wfc["classes"])[np.array(wfc["ids"])])


def test_record_of_a_tiled_level_and_of_other_levels():
    level = generate(tiled_spec())
    wfc = level_record(level, name="Keep", cell_size=1.0)["wfc"]
    assert wfc["model"] == "tiled" and wfc["source"] == "dungeon"
    assert len(wfc["names"]) == len(wfc["base_names"]) == len(wfc["turns"]) == len(wfc["mirrored"])
    assert "wall" in wfc["base_names"] and set(wfc["turns"]) <= {0, 1, 2, 3}
    assert "wfc" not in level_record(
        generate(LevelSpec(generator="cave", width=20, height=20)), name="C", cell_size=1.0
    )


def test_a_level_without_walkable_cells_is_refused(tmp_path):
    """No level is without its spawn and exit (see test_levels_wfc_honest.py for the message)."""
    (tmp_path / "rock.txt").write_text("11\n11\n")
    spec = {"generator": "wfc_overlapping", "sample": "rock.txt", "n": 2, "width": 6, "height": 5}
    with pytest.raises(ParameterError, match="no walkable cell"):
        generate(from_dict(spec, base=str(tmp_path)))


def test_generate_steps_reports_progress_and_returns_the_level():
    seen = []
    level = drive(generate_steps(tiled_spec()), lambda d, t, label: seen.append((d, t, label)))
    assert seen and seen[-1][0] == seen[-1][1] == 24 * 16 and all(isinstance(s[2], str) for s in seen)
    assert np.array_equal(level.grid, generate(tiled_spec()).grid)
    # the other generators too are step generators, that return at once
    assert drive(generate_steps(LevelSpec(generator="walk", width=20, height=20))).grid.shape == (20, 20)


def test_progress_path_gives_the_tiles_of_core_wfc_tiled():
    """Without constraints the level solves through core.wfc.solve_steps (progress as it goes): the
    same tiles as core.wfc.tiled, and many progress steps on a larger grid."""
    spec = tiled_spec(width=64, height=48, seed=11, connected=False)
    seen = []
    level = drive(generate_steps(spec), lambda d, t, label: seen.append(d))
    ts = core_wfc.load_tileset(os.path.join(ROOT, "presets", "wfc", "dungeon.toml"))
    expected = core_wfc.tiled(ts, 64, 48, seed=11, attempts=spec.attempts, backtrack_limit=spec.backtrack_limit)
    assert np.array_equal(level.wfc.ids, expected.tiles)
    assert level.wfc.attempts == expected.attempts and level.wfc.backtracks == expected.backtracks
    if hasattr(core_wfc, "solve_steps"):
        assert len(seen) > 4


def test_connected_levels_are_one_region():
    for seed in range(3):
        level = generate(tiled_spec(connected=True, seed=seed, width=20, height=14))
        assert label_regions(level.walkable)[1] <= 1


def test_connected_overlapping_levels_are_one_region(tmp_path):
    for seed in range(3):
        level = generate(
            from_dict(
                {"generator": "wfc_overlapping", "sample": "rooms", "width": 30, "height": 20, "seed": seed}
                | {"connected": True, "classes": {"2": "door"}}
            )
        )
        assert label_regions(level.walkable)[1] == 1
    sample_png(tmp_path / "rooms.png")  # an image sample: the walkable values are colours
    data = {"generator": "wfc_overlapping", "sample": "rooms.png", "n": 2, "width": 16, "height": 12, "connected": True}
    level = generate(from_dict(data, base=str(tmp_path)))
    assert label_regions(level.walkable)[1] == 1


# --------------------------------------------------------------------------- outputs


def test_tmx_has_the_wfc_layer_read_by_pytmx(tmp_path):
    pytmx = pytest.importorskip("pytmx")
    level = generate(tiled_spec(width=14, height=9, seed=7))
    spec = tiled_spec()
    files = tiled_files(level, name="Keep", tileset=spec.autotile, cell_size=2.0)  # its auto-tiles; WFC: "dungeon"
    assert (spec.autotile, spec.wfc_tileset) == ("blob", "dungeon")
    assert list(files) == [
        "Keep.tmx",
        "Keep_classes.tsx",
        "Keep_classes.png",
        "Keep.tsx",
        "Keep_blob.png",
        "Keep_wfc.tsx",
        "Keep_wfc.png",
    ]
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    tmx = pytmx.TiledMap(str(tmp_path / "Keep.tmx"), load_images=False)
    assert [layer.name for layer in tmx.layers] == ["classes", "autotile", "wfc", "markers"]
    wfc_layer = tmx.get_layer_by_name("wfc")
    classes_layer = tmx.get_layer_by_name("classes")
    for y in range(level.height):
        for x in range(level.width):
            props = tmx.get_tile_properties_by_gid(wfc_layer.data[y][x])
            k = int(level.wfc.ids[y, x])
            assert props["wfc_id"] == k and props["name"] == level.wfc.names[k]
            assert props["class_id"] == level.grid[y, x]
            assert props["base_name"] == level.wfc.base_names[k] and props["turns"] == level.wfc.turns[k]
            assert tmx.get_tile_properties_by_gid(classes_layer.data[y][x])["class_id"] == level.grid[y, x]
    assert len(list(tmx.get_layer_by_name("markers"))) == len(level.markers)


def test_wfc_tiles_differ_per_variant():
    from core.levels._tiled import wfc_tile_images

    level = generate(tiled_spec())
    tiles = wfc_tile_images(level.wfc, tile_pixels=16)
    assert tiles.shape == (len(level.wfc.names), 16, 16, 3)
    assert len({t.tobytes() for t in tiles}) == len(tiles)


def test_other_levels_keep_their_files():
    files = tiled_files(generate(LevelSpec(generator="cave", width=16, height=12)), name="C")
    assert "C_wfc.tsx" not in files and b'nextlayerid="4"' in files["C.tmx"]


def test_preview_of_a_wfc_level():
    from core.levels import level_image

    level = generate(tiled_spec())
    image = level_image(level)
    assert image.dtype == np.uint8 and image.shape[2] == 3 and image.shape[0] >= level.height


_SCRIPT = """
import hashlib, sys
from core.levels import from_dict, generate, level_json_bytes, tiled_files
parts = []
for data in ({"generator": "wfc_tiled", "wfc_tileset": "dungeon", "width": 30, "height": 20, "seed": 9},
             {"generator": "wfc_overlapping", "sample": "rooms", "width": 30, "height": 20, "seed": 9}):
    level = generate(from_dict(data))
    parts.append(level_json_bytes(level, name="L", cell_size=2.0))
    parts.extend(tiled_files(level, name="L").values())
print(hashlib.sha256(b"".join(parts)).hexdigest())
"""


def test_same_seed_same_bytes_across_processes():
    env = {**os.environ, "PYTHONHASHSEED": "random"}
    runs = [
        subprocess.run([sys.executable, "-c", _SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    digests = [r.stdout.strip() for r in runs]
    assert digests[0] == digests[1] and len(digests[0]) == 64
    level = generate(
        from_dict({"generator": "wfc_overlapping", "sample": "rooms", "width": 30, "height": 20, "seed": 9})
    )
    other = generate(
        from_dict({"generator": "wfc_overlapping", "sample": "rooms", "width": 30, "height": 20, "seed": 10})
    )
    assert hashlib.sha256(level.grid.tobytes()).digest() != hashlib.sha256(other.grid.tobytes()).digest()


def test_sample_presets_exist():
    assert os.path.isfile(os.path.join(SAMPLE_PRESETS, "rooms.txt"))


def test_every_wfc_level_reports_progress_while_it_solves():
    for spec in (
        tiled_spec(connected=True, width=40, height=30),
        from_dict({"generator": "wfc_overlapping", "sample": "flowers", "width": 40, "height": 30}),
    ):
        seen = []
        drive(generate_steps(spec), lambda done, total, label, seen=seen: seen.append(done))
        assert len(seen) >= 10, spec.generator
