"""core.levels on Wave Function Collapse (issue 11): wfc_tiled, wfc_overlapping and wfc levels, their
files, the recipe's relative paths, and the outputs (JSON record, Tiled map) of every level."""

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from core import recipe as core_recipe
from core import wfc as core_wfc
from core.errors import ParameterError, RecipeError
from core.levels import (
    FLOOR,
    WALL,
    LevelSpec,
    autotile_set,
    check_spec,
    from_dict,
    generate,
    generate_steps,
    label_regions,
    level_json_bytes,
    level_record,
    tiled_files,
    to_dict,
)
from core.levels._wfc import MAX_WAVE_BYTES
from core.levels._wfc_files import SAMPLE_PRESETS
from core.preview import png_bytes
from core.steps import drive

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Two tiles, walls around floor: a wall may meet anything, floor only floor or wall.
SMALL_TILES = """
name = "small"
[[tile]]
name = "stone"
weight = 1.0
sockets = { north = "s", east = "s", south = "s", west = "s" }
[[tile]]
name = "grass"
weight = 2.0
sockets = { north = "g", east = "g", south = "g", west = "g" }
[[neighbor]]
left = "stone"
right = "grass"
"""

# A tile with no rule and no socket: no neighbour is ever allowed, so any grid of 2 cells fails.
IMPOSSIBLE = """
[[tile]]
name = "lonely"
"""


def tiled_spec(**kw):
    return from_dict({"generator": "wfc_tiled", "tileset": "dungeon", "width": 24, "height": 16, "seed": 2, **kw})


def sample_png(path):
    """A 12 x 12 RGB sample: dark walls around light rooms, one red door cell; written as PNG."""
    img = np.zeros((12, 12, 3), np.uint8)
    img[:] = (20, 20, 30)
    img[2:6, 2:10] = (230, 220, 200)
    img[7:11, 2:10] = (230, 220, 200)
    img[6, 5] = (200, 0, 0)
    path.write_bytes(png_bytes(img))
    return img


def variant_classes(tileset):
    raw = getattr(tileset, "classes", None)
    return np.full(len(tileset.names), FLOOR, np.uint8) if raw is None else np.asarray(raw, np.uint8)


# --------------------------------------------------------------------------- spec


def test_spec_round_trip_and_recipe_dump(tmp_path):
    specs = [
        tiled_spec(periodic=True, attempts=20, backtrack_limit=50),
        from_dict(
            {
                "generator": "wfc_overlapping",
                "sample": "rooms",
                "n": 2,
                "symmetry": 4,
                "ground": True,
                "periodic_input": False,
                "classes": {"1": "wall", 2: "door"},
            }
        ),
        from_dict({"generator": "wfc", "sample": "rooms", "classes": [["0", "floor"]]}),
    ]
    for spec in specs:
        hash(spec)  # frozen and hashable, classes included
        assert from_dict(to_dict(spec)) == spec
    assert specs[1].classes == (("1", "wall"), ("2", "door"))
    recipe = core_recipe.Recipe(
        level=tuple(LevelSpec(**{**spec.__dict__, "name": f"L{i}"}) for i, spec in enumerate(specs))
    )
    text = core_recipe.dumps(recipe)
    assert 'classes = [["1", "wall"], ["2", "door"]]' in text
    assert core_recipe.loads(text) == recipe


def test_generator_labels_and_keys():
    from core.levels import GENERATOR_KEYS, GENERATORS, LIMITS

    labels = {i[0]: i[1] for i in LIMITS["generator"].items}
    assert (
        labels["wfc_tiled"] == "WFC (tiles)" and labels["wfc_overlapping"] == "WFC (sample)" and labels["wfc"] == "WFC"
    )
    assert {"wfc_tiled", "wfc_overlapping", "wfc"} <= set(GENERATORS)
    assert "sample" not in GENERATOR_KEYS["wfc_tiled"] and "classes" in GENERATOR_KEYS["wfc_overlapping"]


@pytest.mark.parametrize(
    "data, message",
    [
        (
            {"generator": "wfc_tiled", "tileset": "dungeon", "sample": "rooms"},
            "level.sample is a setting of the wfc_overlapping, wfc generators, not of generator 'wfc_tiled'",
        ),
        (
            {"generator": "wfc_overlapping", "sample": "rooms", "fill": 0.4},
            "level.fill is a setting of the cave, rooms_caves generators, not of generator 'wfc_overlapping'",
        ),
        (
            {"generator": "bsp", "n": 2},
            "level.n is a setting of the wfc_overlapping, wfc generators, not of generator 'bsp'",
        ),
        (
            {"generator": "cave", "attempts": 3},
            "level.attempts is a setting of the wfc_tiled, wfc_overlapping, wfc generators, not of generator 'cave'",
        ),
    ],
)
def test_keys_of_other_generators_refused(data, message):
    with pytest.raises(ParameterError) as err:
        from_dict(data)
    assert str(err.value) == message


@pytest.mark.parametrize(
    "data, words",
    [
        ({"generator": "wfc_overlapping", "sample": "rooms", "n": 4}, ["level.n", "[2, 3]", "4"]),
        ({"generator": "wfc_overlapping", "sample": "rooms", "symmetry": 9}, ["level.symmetry", "[1, 8]"]),
        ({"generator": "wfc_tiled", "tileset": "dungeon", "attempts": 0}, ["level.attempts", "[1, 1000]"]),
        ({"generator": "wfc_tiled", "tileset": "dungeon", "backtrack_limit": -1}, ["level.backtrack_limit"]),
        ({"generator": "wfc_tiled"}, ["level.tileset must name a WFC tileset", "dungeon", "'blob'"]),
        ({"generator": "wfc_overlapping"}, ["level.sample must name a sample", "rooms"]),
        ({"generator": "wfc"}, ["generator 'wfc' needs level.tileset", "level.sample"]),
        (
            {"generator": "wfc", "tileset": "dungeon", "sample": "rooms"},
            ["both given", "level.tileset", "level.sample"],
        ),
        ({"generator": "wfc_overlapping", "tileset": "pipes", "sample": "rooms"}, ["both given", "'blob' or 'wang16'"]),
        ({"generator": "wfc_tiled", "tileset": "nope"}, ["level.tileset 'nope' is no preset", "dungeon"]),
        ({"generator": "wfc_overlapping", "sample": "rooms.toml"}, ["level.sample", ".txt or .png"]),
        ({"generator": "wfc_overlapping", "sample": "rooms", "width": 2}, ["level.width must be at least n = 3"]),
        (
            {"generator": "wfc_overlapping", "sample": "rooms", "classes": {"7": "wall"}},
            ["level.classes", "'7'", "0, 1, 2"],
        ),
        (
            {"generator": "wfc_overlapping", "sample": "rooms", "classes": {"1": "lava"}},
            ["level.classes['1']", "'lava'"],
        ),
        (
            {"generator": "wfc_overlapping", "sample": "rooms", "classes": {"red": "wall"}},
            ["level.classes keys", "'red'"],
        ),
        ({"generator": "wfc_overlapping", "sample": "rooms", "classes": 3}, ["level.classes must be a table"]),
        ({"generator": "bsp", "tileset": "dungeon"}, ["level.tileset must be one of 'blob', 'wang16'", "'bsp'"]),
    ],
)
def test_bad_settings_refused_before_work(data, words):
    with pytest.raises(ParameterError) as err:
        from_dict(data)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


def test_wave_too_large_refused_before_allocating(tmp_path):
    """A sample of 1,079 patterns on 1024 x 1024 cells: a wave over 1 GB, refused at once; and a grid of
    more cells than the solver takes, whatever its patterns."""
    rng = np.random.default_rng(1)
    (tmp_path / "noise.txt").write_text("\n".join("".join(map(str, row)) for row in rng.integers(0, 10, (24, 24))))
    spec = LevelSpec(generator="wfc_overlapping", sample="noise.txt", width=1024, height=1024, n=2, symmetry=2)
    with pytest.raises(ParameterError, match=r"level\.width x level\.height 1024 x 1024 with 1,079 patterns"):
        check_spec(spec, base=str(tmp_path))
    assert 1024 * 1024 * 1079 > MAX_WAVE_BYTES
    spec = LevelSpec(generator="wfc_overlapping", sample="rooms", width=4096, height=4096)
    with pytest.raises(ParameterError, match=r"level\.width x level\.height 4096 x 4096 = 16,777,216 cells"):
        check_spec(spec)


def test_too_many_patterns_refused_naming_the_sample(tmp_path):
    rng = np.random.default_rng(1)
    (tmp_path / "noise.txt").write_text("\n".join("".join(map(str, row)) for row in rng.integers(0, 10, (24, 24))))
    spec = LevelSpec(generator="wfc_overlapping", sample="noise.txt", width=16, height=16)
    with pytest.raises(ParameterError, match=r"^level\.sample 'noise\.txt' gives [\d,]+ patterns of 3 x 3 .* level\.n"):
        check_spec(spec, base=str(tmp_path))
    check_spec(LevelSpec(generator="wfc_overlapping", sample="noise.txt", n=2, symmetry=1), base=str(tmp_path))


def test_wfc_picks_the_model():
    tiles = generate(from_dict({"generator": "wfc", "tileset": "pipes", "width": 10, "height": 8}))
    # dots: stones (1) on a field (0); by default the field (the border's value) would be wall and every
    # stone a one-cell region, no room for a spawn and an exit: walk on the field instead
    dots = {"generator": "wfc", "sample": "dots", "width": 10, "height": 8, "classes": {"0": "floor", "1": "wall"}}
    sample = generate(from_dict(dots))
    assert tiles.wfc.model == "tiled" and sample.wfc.model == "overlapping"
    assert tiles.generator == sample.generator == "wfc"


# --------------------------------------------------------------------------- files and paths


def test_relative_paths_found_beside_the_recipe(tmp_path, monkeypatch):
    (tmp_path / "project" / "tiles").mkdir(parents=True)
    (tmp_path / "shared").mkdir()
    (tmp_path / "project" / "tiles" / "my_tiles.toml").write_text(SMALL_TILES)
    (tmp_path / "shared" / "cave.txt").write_text("1111\n1001\n1001\n1111\n")
    recipe_path = tmp_path / "project" / "world.toml"
    recipe_path.write_text(
        '[[level]]\nname = "A"\ngenerator = "wfc_tiled"\ntileset = "tiles/my_tiles.toml"\nwidth = 12\nheight = 9\n'
        '[[level]]\nname = "B"\ngenerator = "wfc_overlapping"\nsample = "../shared/cave.txt"\nn = 2\n'
        "width = 12\nheight = 9\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    recipe = core_recipe.load(str(recipe_path))
    a, b = recipe.level
    assert a.tileset == str(tmp_path / "project" / "tiles" / "my_tiles.toml")
    assert b.sample == str(tmp_path / "shared" / "cave.txt")  # outside the recipe's folder: a real file named
    assert generate(a).wfc.names == ("stone", "grass")
    assert generate(b).wfc.palette == (0, 1)
    assert generate(a).settings["tileset"] == "my_tiles.toml"  # the record names the file, not the folder
    # a relative spec with base= finds the same file; without it, the current directory is searched
    rel = LevelSpec(generator="wfc_tiled", tileset="tiles/my_tiles.toml", width=12, height=9)
    assert np.array_equal(generate(rel, base=str(tmp_path / "project")).grid, generate(a).grid)
    with pytest.raises(ParameterError, match="level.tileset 'tiles/my_tiles.toml': no file"):
        generate(rel)


def test_missing_file_names_key_and_path(tmp_path):
    recipe_path = tmp_path / "world.toml"
    recipe_path.write_text('[[level]]\nname = "A"\ngenerator = "wfc_overlapping"\nsample = "gone.png"\n')
    with pytest.raises(RecipeError) as err:
        core_recipe.load(str(recipe_path))
    text = str(err.value)
    assert "level[0].sample 'gone.png': no file" in text and str(tmp_path / "gone.png") in text
    with pytest.raises(ParameterError, match=r"^level\.tileset 'x/none\.toml': no file /nowhere/x/none\.toml$"):
        check_spec(LevelSpec(generator="wfc_tiled", tileset="x/none.toml"), base="/nowhere")


def test_only_regular_files_are_read(tmp_path):
    (tmp_path / "folder.toml").mkdir()
    os.symlink("/dev/zero", tmp_path / "zero.png")
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "big.txt").write_bytes(b"0" * (16 * 2**20 + 1))
    cases = [
        ("tileset", "folder.toml", "is not a regular file"),
        ("sample", "zero.png", "is not a regular file"),
        ("sample", "pipe.txt", "is not a regular file"),
        ("sample", "big.txt", "more than the 16,777,216"),
    ]
    for key, value, words in cases:
        generator = "wfc_tiled" if key == "tileset" else "wfc_overlapping"
        with pytest.raises(ParameterError) as err:
            check_spec(LevelSpec(generator=generator, **{key: value}), base=str(tmp_path))
        assert str(err.value).startswith(f"level.{key} '{value}'") and words in str(err.value), str(err.value)


def test_bad_file_contents_name_the_key(tmp_path):
    (tmp_path / "bad.toml").write_text("[[tile]]\nname = 3\n")
    (tmp_path / "bad.png").write_bytes(b"not a png")
    with pytest.raises(ParameterError, match=r"^level\.tileset: bad\.toml: tile\[0\]\.name"):
        check_spec(LevelSpec(generator="wfc_tiled", tileset="bad.toml"), base=str(tmp_path))
    with pytest.raises(ParameterError, match=r"^level\.sample: .*not a valid PNG|^level\.sample: .*PNG"):
        check_spec(LevelSpec(generator="wfc_overlapping", sample="bad.png"), base=str(tmp_path))


def test_contradiction_is_the_parameter_error_naming_the_cell(tmp_path):
    (tmp_path / "lonely.toml").write_text(IMPOSSIBLE)
    spec = from_dict({"generator": "wfc_tiled", "tileset": "lonely.toml", "width": 4, "height": 3}, base=str(tmp_path))
    with pytest.raises(core_wfc.Contradiction) as err:
        generate(spec)
    assert isinstance(err.value, ParameterError)
    assert len(err.value.cell) >= 2 and err.value.attempts >= 1


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
    spec = tiled_spec(width=64, height=48, seed=11)
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
    files = tiled_files(level, name="Keep", tileset=spec.tileset, cell_size=2.0)  # the spec's tileset: "dungeon"
    assert autotile_set(spec) == "blob"
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
for data in ({"generator": "wfc_tiled", "tileset": "dungeon", "width": 30, "height": 20, "seed": 9},
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


# --------------------------------------------------------------------------- global constraints


def door_count(level):
    """Cells of a tiled level showing the base tile "door" (any of its turned variants)."""
    return int((np.array(level.wfc.base_names)[level.wfc.ids] == "door").sum())


def test_counts_keep_a_tile_in_range_and_without_them_it_strays():
    counts = [door_count(generate(tiled_spec(width=20, height=14, seed=seed))) for seed in range(4)]
    assert any(not 2 <= c <= 4 for c in counts), counts  # the key must be doing the work
    for seed in range(4):
        spec = tiled_spec(width=20, height=14, seed=seed, counts={"door": [2, 4]})
        assert spec.counts == (("door", 2, 4),)
        level = generate(spec)
        assert 2 <= door_count(level) <= 4, seed
        assert level.settings["counts"] == [["door", 2, 4]]


def test_counts_of_sample_values_as_numbers_and_colours(tmp_path):
    data = {"generator": "wfc_overlapping", "sample": "rooms", "width": 24, "height": 16}
    plain = [int((generate(from_dict({**data, "seed": s})).wfc.ids == 2).sum()) for s in range(4)]
    assert any(not 2 <= c <= 4 for c in plain), plain
    for seed in range(4):
        level = generate(from_dict({**data, "seed": seed, "counts": {"2": [2, 4]}}))
        assert 2 <= int((level.wfc.ids == 2).sum()) <= 4, seed
    # "wfc" with a sample, an unbounded max: at least 3 cells of value 2 (max -1 and [min] mean the same)
    spec = from_dict({"generator": "wfc", "sample": "rooms", "width": 24, "height": 16, "counts": {"2": [3]}})
    assert spec.counts == (("2", 3, -1),) and spec == from_dict({**to_dict(spec), "counts": [["2", 3, -1]]})
    assert int((generate(spec).wfc.ids == 2).sum()) >= 3
    # an image sample: colours as "#rrggbb" (any case); the red door at most once, at least once
    sample_png(tmp_path / "rooms.png")
    image = {"generator": "wfc_overlapping", "sample": "rooms.png", "n": 2, "width": 16, "height": 12}
    for seed in range(3):
        level = generate(from_dict({**image, "seed": seed, "counts": {"#C80000": [1, 1]}}, base=str(tmp_path)))
        assert int((level.wfc.ids == level.wfc.names.index("#c80000")).sum()) == 1
    assert from_dict({**image, "counts": {"#C80000": [1, 1]}}, base=str(tmp_path)).counts == (("#c80000", 1, 1),)


def test_connect_points_are_walkable_and_linked(tmp_path):
    points = [[1, 1], [18, 12], [10, 6]]
    for seed in range(3):
        level = generate(tiled_spec(width=20, height=14, seed=seed, connected=True, connect_points=points))
        labels, count = label_regions(level.walkable)
        assert count == 1
        assert {int(labels[y, x]) for x, y in points} == {0}  # x the column, y the row
    data = {"generator": "wfc_overlapping", "sample": "rooms", "width": 24, "height": 16, "connected": True}
    corners = [[1, 1], [22, 14], [1, 14]]  # the bounded output's last row and column too
    for seed in range(2):  # (seed 2 needs 3 attempts: 2 s)
        level = generate(from_dict({**data, "seed": seed, "connect_points": corners}))
        labels, _ = label_regions(level.walkable)
        assert len({int(labels[y, x]) for x, y in corners}) == 1 and labels[1, 1] >= 0
    assert generate(from_dict({**data, "connect_points": corners})).settings["connect_points"] == corners


def test_connect_points_name_a_cell_not_its_transpose():
    """A point [x, y] on a 20 x 14 level: x up to 19, y up to 13; [15, 2] is fine, [2, 15] is not."""
    tiled_spec(width=20, height=14, connected=True, connect_points=[[15, 2]])
    with pytest.raises(ParameterError, match=r"connect_points\[0\] \[2, 15\] is off the level: x must be in \[0, 19\]"):
        tiled_spec(width=20, height=14, connected=True, connect_points=[[2, 15]])


@pytest.mark.parametrize(
    "extra, words",
    [
        ({"connect_points": [[1, 1]]}, ["level.connect_points needs level.connected = true", "1 point(s)"]),
        (
            {"connected": True, "connect_points": [[1, 1], [24, 3]]},
            ["level.connect_points[1] [24, 3] is off the level", "x must be in [0, 23]", "y in [0, 15]"],
        ),
        ({"connected": True, "connect_points": [[1, -1]]}, ["level.connect_points[0]", "[0, 4095]"]),
        ({"connected": True, "connect_points": [[1, 2, 3]]}, ["level.connect_points[0] must be a cell [x, y]"]),
        ({"connected": True, "connect_points": [[1.5, 2]]}, ["level.connect_points[0] must be a cell [x, y]"]),
        ({"connected": True, "connect_points": "1,2"}, ["level.connect_points must be a list of cells"]),
        ({"counts": {"dor": [1, 2]}}, ["level.counts names the tile 'dor'", "did you mean 'door'", "dungeon"]),
        ({"counts": {"door": [4, 2]}}, ["level.counts['door'] must have min <= max", "[4, 2]"]),
        ({"counts": {"door": [-1, 2]}}, ["level.counts['door'] min", "[0,"]),
        ({"counts": {"door": [1, 2, 3]}}, ["level.counts['door'] must be [min, max] or [min]"]),
        ({"counts": {"door": [True, 2]}}, ["level.counts['door'] min must be an integer"]),
        ({"counts": {"door": [385]}}, ["level.counts['door'] min 385 is more than the 384 cells"]),
        ({"counts": {"door": [200], "floor": [200]}}, ["level.counts minimums add up to 400", "384 cells"]),
        ({"counts": [["door", 1], ["door", 2]]}, ["level.counts bounds 'door' twice"]),
        ({"counts": "door=1"}, ["level.counts must be a table"]),
        ({"generator": "wfc_overlapping", "sample": "rooms", "counts": {"7": [1]}}, ["level.counts", "'7'", "0, 1, 2"]),
        ({"generator": "wfc_overlapping", "sample": "rooms", "counts": {"wall": [1]}}, ["level.counts keys", "'wall'"]),
        ({"generator": "bsp", "counts": {"door": [1]}}, ["level.counts is a setting of the wfc_tiled"]),
        ({"generator": "cave", "connect_points": [[1, 1]]}, ["level.connect_points is a setting of the wfc_tiled"]),
    ],
)
def test_bad_constraints_refused_naming_the_key(extra, words):
    data = {"generator": "wfc_tiled", "tileset": "dungeon", "width": 24, "height": 16, **extra}
    if data["generator"] not in ("wfc_tiled", "wfc"):
        data.pop("tileset")
    with pytest.raises(ParameterError) as err:
        from_dict(data)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


def test_constraints_round_trip_through_dicts_recipes_and_json():
    spec = tiled_spec(connected=True, connect_points=[[3, 4], [20, 10]], counts={"door": [1, 12], "junction": [2]})
    hash(spec)
    assert spec.connect_points == ((3, 4), (20, 10))
    assert spec.counts == (("door", 1, 12), ("junction", 2, -1))
    table = to_dict(spec)
    assert table["connect_points"] == [[3, 4], [20, 10]]
    assert table["counts"] == [["door", 1, 12], ["junction", 2, -1]]
    assert from_dict(table) == spec
    assert from_dict(json.loads(json.dumps(table))) == spec  # as the Blender level root stores it
    recipe = core_recipe.Recipe(level=(spec,))
    text = core_recipe.dumps(recipe)
    assert 'counts = [["door", 1, 12], ["junction", 2, -1]]' in text
    assert "connect_points = [[3, 4], [20, 10]]" in text
    assert core_recipe.loads(text) == recipe
    # a recipe may write counts as a table; other generators have neither key in their dicts
    written = (
        '[[level]]\ngenerator = "wfc_tiled"\ntileset = "dungeon"\ncounts = { door = [1, 12], junction = [2, -1] }\n'
    )
    assert core_recipe.loads(written).level[0].counts == spec.counts
    assert "counts" not in to_dict(LevelSpec()) and "connect_points" not in to_dict(LevelSpec())
    record = json.loads(level_json_bytes(generate(spec), name="Keep", cell_size=2.0))
    assert record["settings"]["counts"] == [["door", 1, 12], ["junction", 2, -1]]
    assert record["settings"]["connect_points"] == [[3, 4], [20, 10]]


def test_connected_and_counts_hold_together():
    for seed in (0, 2):
        spec = tiled_spec(width=24, height=16, seed=seed, connected=True, counts={"door": [2, 8]})
        level = generate(spec)
        assert 2 <= door_count(level) <= 8 and label_regions(level.walkable)[1] == 1


def test_a_wfc_level_too_large_for_the_solver_is_refused_by_check_spec():
    with pytest.raises(ParameterError, match=r"level.width x level.height 2048 x 1024 = 2,097,152 cells"):
        from_dict({"generator": "wfc_tiled", "tileset": "roads", "width": 2048, "height": 1024})


def test_painted_cells_of_a_recipe_show_in_the_level_and_round_trip():
    spec = from_dict(
        {"generator": "wfc_tiled", "tileset": "dungeon", "width": 20, "height": 14, "seed": 2}
        | {"fixed": [[3, 3, "door"], [10, 5, "bend 1"], [0, 0, "rock"]]}
    )
    wfc = generate(spec).wfc
    bases = np.array(wfc.base_names)
    assert bases[wfc.ids[3, 3]] == "door" and wfc.names[wfc.ids[5, 10]] == "bend 1" and bases[wfc.ids[0, 0]] == "rock"
    assert from_dict(to_dict(spec)) == spec
    sample = from_dict(
        {"generator": "wfc_overlapping", "sample": "rooms", "width": 24, "height": 18, "seed": 1}
        | {"fixed": [[12, 8, 2], [23, 17, "1"]]}
    )
    level = generate(sample)
    palette = [int(v) for v in level.wfc.palette]
    assert palette[level.wfc.ids[8, 12]] == 2 and palette[level.wfc.ids[17, 23]] == 1
    record = json.loads(level_json_bytes(level, name="R", cell_size=1.0, origin=(0.0, 0.0, 0.0)))
    assert record["settings"]["fixed"] == [[12, 8, "2"], [23, 17, "1"]]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"generator": "wfc_tiled", "tileset": "dungeon", "fixed": [[3, 3, "dor"]]}, "did you mean 'door'"),
        ({"generator": "wfc_overlapping", "sample": "rooms", "fixed": [[3, 3, 7]]}, "which the sample lacks"),
        ({"generator": "wfc_tiled", "tileset": "dungeon", "width": 10, "fixed": [[30, 3, "door"]]}, "off the level"),
        ({"generator": "wfc_tiled", "tileset": "dungeon", "fixed": [[1, 1, "rock"], [1, 1, "door"]]}, "again"),
        ({"generator": "wfc_tiled", "tileset": "dungeon", "fixed": [[1, "rock"]]}, "[x, y, tile]"),
        ({"generator": "bsp", "fixed": [[1, 1, "rock"]]}, "setting of the wfc_tiled"),
    ],
)
def test_bad_painted_cells_are_refused_naming_the_key(data, words):
    with pytest.raises(ParameterError, match=r"level\.fixed.*" + words.replace("[", r"\[").replace("]", r"\]")):
        from_dict(data)
