"""core.levels level_record / level_json_bytes (JSON) and level_image (the preview picture)."""

import json
import zlib

import numpy as np
import pytest

from core.errors import ParameterError
from core.levels import Level, LevelSpec, Marker, generate
from core.levels._mesh import level_quads
from core.levels._picture import CLASS_COLOURS, MARKER_COLOURS, level_image
from core.levels._record import level_json_bytes, level_record
from core.preview import png_bytes
from core.unity import unity_position


def hand_level():
    g = np.zeros((6, 8), np.uint8)
    g[1:5, 1:4] = 1  # a room
    g[2, 4:7] = 2  # a corridor east
    g[2, 4] = 3  # its door
    return Level(
        grid=g,
        rooms=((1, 1, 3, 4),),
        doors=((4, 2),),
        markers=(Marker("spawn", 1, 1), Marker("exit", 6, 2), Marker("loot", 3, 4), Marker("enemy", 2, 3)),
        seed=42,
        generator="bsp",
        settings={"room_min": np.int64(3), "loop_fraction": 0.25, "pair": (1, 2)},
    )


def floor_cell_centres(q):
    """Blender centre of each floor quad."""
    floor = q.quads[q.materials == 0]
    return q.vertices[floor].astype(np.float64).mean(axis=1)


@pytest.mark.parametrize("origin", [(0.0, 0.0, 0.0), (12.5, -40.0, 3.0)])
def test_unity_positions_agree_with_the_mesh_frame(origin):
    lv = hand_level()
    cs = 2.5
    r = level_record(lv, name="Crypt", cell_size=cs, origin=origin)
    q = level_quads(lv, cell_size=cs, wall_height=3.0, origin=origin)
    centres = floor_cell_centres(q)
    for entry in r["markers"] + r["doors"]:
        blender = np.array(entry["blender"])
        # the point is the centre of one floor quad of the mesh, and that quad covers the entry's cell
        hit = np.flatnonzero(np.all(np.abs(centres - blender) < 1e-4, axis=1))
        assert len(hit) == 1
        col = int((blender[0] - origin[0]) // cs)
        row = lv.height - 1 - int((blender[1] - origin[1]) // cs)
        assert (col, row) == (entry["x"], entry["y"])
        assert blender[2] == origin[2]
        assert entry["unity"] == pytest.approx(unity_position(blender).tolist())
        assert entry["unity"] == pytest.approx([-blender[0], blender[2], -blender[1]])
    room = r["rooms"][0]
    assert room["blender_center"] == pytest.approx([origin[0] + 2.5 * cs, origin[1] + (6 - 3) * cs, origin[2]])
    assert room["unity_size"] == [3 * cs, 0.0, 4 * cs]


def test_record_fields_and_grid_round_trip():
    lv = hand_level()
    r = level_record(lv, name="Crypt", cell_size=2.0)
    assert (r["width"], r["height"], r["seed"], r["generator"], r["name"]) == (8, 6, 42, "bsp", "Crypt")
    assert r["classes"] == {"wall": 0, "floor": 1, "corridor": 2, "door": 3}
    back = np.array([[int(ch) for ch in row] for row in r["grid"]], np.uint8)
    assert np.array_equal(back, lv.grid)  # row 0 first: the north row
    assert r["settings"] == {"room_min": 3, "loop_fraction": 0.25, "pair": [1, 2]}
    assert [m["kind"] for m in r["markers"]] == ["spawn", "exit", "loot", "enemy"]
    assert [(m["x"], m["y"]) for m in r["markers"]] == [(1, 1), (6, 2), (3, 4), (2, 3)]
    assert [tuple(m[k] for k in "xywh") for m in r["rooms"]] == [(1, 1, 3, 4)]
    assert json.loads(level_json_bytes(lv, name="Crypt", cell_size=2.0)) == json.loads(json.dumps(r))


def test_large_class_ids_are_written_as_lists():
    g = np.array([[0, 12], [1, 0]], np.uint8)
    r = level_record(Level(grid=g, classes={"wall": 0, "floor": 1, "lava": 12}), name="L", cell_size=1.0)
    assert r["grid"] == [[0, 12], [1, 0]]


def test_json_bytes_deterministic_and_sorted():
    a = level_json_bytes(hand_level(), name="Crypt", cell_size=2.0, origin=(1.0, 2.0, 3.0))
    b = level_json_bytes(hand_level(), name="Crypt", cell_size=2.0, origin=(1.0, 2.0, 3.0))
    assert a == b and a.endswith(b"}\n")
    keys = list(json.loads(a))
    assert keys == sorted(keys)


def test_generated_level_record():
    lv = generate(LevelSpec(generator="bsp", width=40, height=30, seed=3))
    r = level_record(lv, name="Gen", cell_size=2.0)
    assert len(r["markers"]) == len(lv.markers) and r["generator"] == "bsp" and r["seed"] == 3
    assert sum(m["kind"] == "spawn" for m in r["markers"]) == 1
    json.dumps(r)  # plain JSON throughout (settings included)


@pytest.mark.parametrize("name", ["../evil", "a/b", "a\\b", "", "x" * 49, "   ", 7])
def test_names_that_could_make_paths_are_refused(name):
    with pytest.raises(ParameterError, match="name"):
        level_json_bytes(hand_level(), name=name, cell_size=2.0)


def test_record_bad_inputs():
    with pytest.raises(ParameterError, match="cell_size"):
        level_record(hand_level(), name="A", cell_size=0.0)
    with pytest.raises(ParameterError, match="origin"):
        level_record(hand_level(), name="A", cell_size=1.0, origin=(0, 0))
    bad = Level(grid=np.ones((2, 2), np.uint8), settings={"f": object()})
    with pytest.raises(ParameterError, match=r"level.settings\['f'\]"):
        level_record(bad, name="A", cell_size=1.0)
    outside = Level(grid=np.ones((2, 2), np.uint8), markers=(Marker("spawn", 5, 0),))
    with pytest.raises(ParameterError, match="outside the 2 x 2 grid"):
        level_record(outside, name="A", cell_size=1.0)
    with pytest.raises(ParameterError, match="nan"):
        level_record(Level(grid=np.ones((2, 2), np.uint8), settings={"f": float("nan")}), name="A", cell_size=1.0)


# ---------------------------------------------------------------- preview picture


def test_image_colours_orientation_and_markers():
    lv = hand_level()
    img = level_image(lv, pixels_per_cell=5)
    assert img.shape == (30, 40, 3) and img.dtype == np.uint8

    def cell(x, y):  # the cell's pixels, less the one-pixel marker margin
        return img[y * 5 : y * 5 + 5, x * 5 : x * 5 + 5]

    assert np.all(cell(0, 0) == CLASS_COLOURS["wall"])  # top-left: row 0 is the north row
    assert np.all(cell(2, 1) == CLASS_COLOURS["floor"])
    assert np.all(cell(5, 2) == CLASS_COLOURS["corridor"])
    assert np.all(cell(4, 2) == CLASS_COLOURS["door"])
    for m in lv.markers:
        c = cell(m.x, m.y)
        assert np.all(c[1:4, 1:4] == MARKER_COLOURS[m.kind])
        assert not np.all(c[0, 0] == MARKER_COLOURS[m.kind])  # the margin keeps the class colour
    assert len(set(MARKER_COLOURS.values())) == len(MARKER_COLOURS)  # distinct per kind
    assert not set(MARKER_COLOURS.values()) & set(CLASS_COLOURS.values())


def test_image_default_size_and_subsampling():
    lv = Level(grid=np.ones((30, 100), np.uint8), markers=(Marker("spawn", 99, 29),))
    assert level_image(lv).shape == (300, 1000, 3)  # 1024 // 100 = 10 pixels per cell
    big = Level(grid=np.ones((100, 3000), np.uint8), markers=(Marker("exit", 2999, 99),))
    img = level_image(big, max_side=1000)
    assert img.shape == (34, 1000, 3)  # every 3rd cell
    assert np.all(img[33, 999] == MARKER_COLOURS["exit"])  # still drawn, on its cell's pixel


def test_image_png_deterministic_and_decodable():
    img = level_image(hand_level(), pixels_per_cell=3)
    a, b = png_bytes(img), png_bytes(level_image(hand_level(), pixels_per_cell=3))
    assert a == b and a.startswith(b"\x89PNG\r\n\x1a\n")
    idat = a[a.index(b"IDAT") + 4 : a.index(b"IEND") - 8]
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(18, 1 + 24 * 3)
    assert np.array_equal(raw[:, 1:].reshape(18, 24, 3), img)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"pixels_per_cell": 0}, "pixels_per_cell"),
        ({"pixels_per_cell": 65}, "pixels_per_cell"),
        ({"pixels_per_cell": 2.5}, "pixels_per_cell"),
        ({"max_side": 4}, "max_side"),
        ({"pixels_per_cell": 64, "max_side": 100}, "max_side 100"),
    ],
)
def test_image_bad_inputs(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        level_image(hand_level(), **kwargs)


def test_no_negative_zero_in_the_files():
    # a marker, a door and a room on column 0 with the origin at 0: Blender X = 1, Unity x = -1; and
    # Blender Z = 0 -> Unity y = 0.0, never "-0.0" (Unity -Y of a point on Y = 0 too)
    g = np.ones((1, 3), np.uint8)
    lv = Level(grid=g, rooms=((0, 0, 3, 1),), doors=((2, 0),), markers=(Marker("spawn", 0, 0),))
    data = level_json_bytes(lv, name="Z", cell_size=2.0, origin=(-1.0, -1.0, 0.0))
    record = json.loads(data)
    assert record["markers"][0]["unity"] == [0.0, 0.0, -0.0]  # Blender (0, 1, 0): -X is a zero
    assert b"-0.0" not in data
    from core.levels import tiled_files

    assert b'"-0.0"' not in tiled_files(lv, name="Z", cell_size=2.0, origin=(-1.0, -1.0, 0.0))["Z.tmx"]
