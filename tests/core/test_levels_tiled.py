"""core.levels tiled_files: the Tiled map read back by an independent reader (pytmx, test-only)."""

import struct
import zlib

import numpy as np
import pytest

from core.errors import ParameterError
from core.levels import Level, LevelSpec, Marker, generate
from core.levels._autotile import BLOB_INDEX, BLOB_MASKS, NE, NW, SE, SW, E, N, S, W, blob_canonical
from core.levels._record import level_record
from core.levels._tiled import tiled_files

pytmx = pytest.importorskip("pytmx")


def hand_level():
    g = np.zeros((9, 12), np.uint8)
    g[1:5, 1:6] = 1
    g[5:8, 7:11] = 1
    g[3, 6:9] = 2
    g[4, 8] = 2
    g[3, 6] = 3
    return Level(
        grid=g,
        rooms=((1, 1, 5, 4), (7, 5, 4, 3)),
        doors=((6, 3),),
        markers=(Marker("spawn", 2, 2), Marker("exit", 10, 7), Marker("enemy", 8, 6)),
        seed=5,
        generator="bsp",
    )


def write(files, folder):
    for name, data in files.items():
        assert "/" not in name and "\\" not in name and not name.startswith(".")
        (folder / name).write_bytes(data)


def read_png(data):
    """Decode our own PNG writer's output (8-bit RGB, filter 0 on every row)."""
    width, height = struct.unpack(">II", data[16:24])
    idat = data[data.index(b"IDAT") + 4 : data.index(b"IEND") - 8]
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, 1 + width * 3)
    assert not raw[:, 0].any()
    return raw[:, 1:].reshape(height, width, 3)


def reference_mask(walk, r, c, steps):
    rows, cols = walk.shape
    m = 0
    for bit, dr, dc in steps:
        rr, cc = r + dr, c + dc
        if 0 <= rr < rows and 0 <= cc < cols and walk[rr, cc]:
            m |= bit
    return m


EIGHT = ((N, -1, 0), (NE, -1, 1), (E, 0, 1), (SE, 1, 1), (S, 1, 0), (SW, 1, -1), (W, 0, -1), (NW, -1, -1))
FOUR = ((1, -1, 0), (2, 0, 1), (4, 1, 0), (8, 0, -1))


def load(level, tmp_path, **kwargs):
    files = tiled_files(level, name="Crypt", **kwargs)
    write(files, tmp_path)
    return files, pytmx.TiledMap(str(tmp_path / "Crypt.tmx"))


@pytest.mark.parametrize("tileset", ["blob", "wang16"])
def test_read_back_grid_autotiles_and_markers(tileset, tmp_path):
    lv = hand_level()
    files, tmx = load(lv, tmp_path, tileset=tileset, cell_size=2.5, origin=(4.0, 5.0, 6.0), tile_pixels=16)
    assert (tmx.width, tmx.height, tmx.tilewidth, tmx.tileheight) == (12, 9, 16, 16)
    assert tmx.orientation == "orthogonal"
    assert tmx.properties["cell_size"] == 2.5 and tmx.properties["pixels_per_unit"] == 16 / 2.5
    assert [layer.name for layer in tmx.layers] == ["classes", "autotile", "markers"]
    classes = tmx.layernames["classes"]
    auto = tmx.layernames["autotile"]
    ci, ai = tmx.layers.index(classes), tmx.layers.index(auto)

    # the class layer gives back the grid, row 0 at the top
    back = np.array([[tmx.get_tile_properties(x, y, ci)["class_id"] for x in range(12)] for y in range(9)])
    assert np.array_equal(back, lv.grid)
    names = {tmx.get_tile_properties(x, y, ci)["class_name"] for x in range(12) for y in range(9)}
    assert names == {"wall", "floor", "corridor", "door"}

    # each auto-tile is the lookup of the mask recomputed from the class layer
    walk = back != 0
    for y in range(9):
        for x in range(12):
            props = tmx.get_tile_properties(x, y, ai)
            if not walk[y, x]:
                assert props is None and tmx.get_tile_gid(x, y, ai) == 0
                continue
            if tileset == "blob":
                raw = reference_mask(walk, y, x, EIGHT)
                assert props["tile"] == BLOB_INDEX[raw]
                assert props["mask"] == blob_canonical(raw) == BLOB_MASKS[props["tile"]]
            else:
                raw = reference_mask(walk, y, x, FOUR)
                assert props["tile"] == props["mask"] == raw

    # markers: kind as name and type, at the cell centre in pixels, Unity metres as in the JSON record
    record = level_record(lv, name="Crypt", cell_size=2.5, origin=(4.0, 5.0, 6.0))
    objects = list(tmx.layernames["markers"])
    assert len(objects) == len(lv.markers)
    for obj, m, rec in zip(objects, lv.markers, record["markers"]):
        assert obj.name == obj.type == m.kind
        assert (obj.x, obj.y) == ((m.x + 0.5) * 16, (m.y + 0.5) * 16)
        assert (obj.properties["cell_x"], obj.properties["cell_y"]) == (m.x, m.y)
        unity = [obj.properties[f"unity_{a}"] for a in "xyz"]
        assert unity == pytest.approx(rec["unity"])


def test_tilesets_images_and_sizes(tmp_path):
    files, tmx = load(hand_level(), tmp_path)
    assert list(files) == ["Crypt.tmx", "Crypt_classes.tsx", "Crypt_classes.png", "Crypt.tsx", "Crypt_blob.png"]
    sources = {ts.name: (ts.firstgid, ts.tilecount) for ts in tmx.tilesets}
    assert sources == {"Crypt classes": (1, 4), "Crypt blob": (5, 47)}
    sheet = read_png(files["Crypt_blob.png"])
    assert sheet.shape == (6 * 32, 8 * 32, 3)
    floor, wall = sheet[16, 16], sheet[0, 0]  # tile 0 (mask 0): floor centre, wall corner
    assert not np.array_equal(floor, wall)
    # each blob tile shows floor exactly on its centre, its set edges and its set corners
    probes = {N: (2, 16), NE: (2, 29), E: (16, 29), SE: (29, 29), S: (29, 16), SW: (29, 2), W: (16, 2), NW: (2, 2)}
    for k, mask in enumerate(BLOB_MASKS.tolist()):
        r, c = divmod(k, 8)
        tile = sheet[r * 32 : (r + 1) * 32, c * 32 : (c + 1) * 32]
        assert np.array_equal(tile[16, 16], floor)
        for bit, (py, px) in probes.items():
            assert np.array_equal(tile[py, px], floor if mask & bit else wall), (k, mask, bit)
    classes = read_png(files["Crypt_classes.png"])
    assert classes.shape == (32, 4 * 32, 3)


def test_generated_levels_round_trip(tmp_path):
    for k, generator in enumerate(("bsp", "cave")):
        lv = generate(LevelSpec(generator=generator, width=40, height=30, seed=11))
        folder = tmp_path / str(k)
        folder.mkdir()
        _, tmx = load(lv, folder)
        ci = 0
        back = np.array([[tmx.get_tile_properties(x, y, ci)["class_id"] for x in range(lv.width)] for y in range(30)])
        assert np.array_equal(back, lv.grid)
        kinds = [o.type for o in tmx.layernames["markers"]]
        assert kinds == [m.kind for m in lv.markers] and kinds.count("spawn") == 1


def test_deterministic_bytes():
    a = tiled_files(hand_level(), name="Crypt", tileset="wang16", origin=(1.0, 2.0, 3.0))
    b = tiled_files(hand_level(), name="Crypt", tileset="wang16", origin=(1.0, 2.0, 3.0))
    assert a == b


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"name": "../evil"}, "name"),
        ({"name": "a/b"}, "name"),
        ({"name": "a\\b"}, "name"),
        ({"name": "Crypt", "tileset": "hex"}, "tileset"),
        ({"name": "Crypt", "tile_pixels": 3}, "tile_pixels"),
        ({"name": "Crypt", "cell_size": 0.0}, "cell_size"),
        ({"name": "Crypt", "origin": (0.0,)}, "origin"),
    ],
)
def test_bad_inputs(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        tiled_files(hand_level(), **kwargs)


def test_marker_outside_the_grid_refused():
    lv = Level(grid=np.ones((3, 3), np.uint8), markers=(Marker("spawn", 3, 0),))
    with pytest.raises(ParameterError, match="outside the 3 x 3 grid"):
        tiled_files(lv, name="A")


_DIGESTS = """
import hashlib, sys
import numpy as np
sys.path.insert(0, {root!r})
from core.levels import Level, Marker
from core.levels._mesh import level_mesh
from core.levels._picture import level_image
from core.levels._record import level_json_bytes
from core.levels._tiled import tiled_files
from core.preview import png_bytes
g = np.zeros((9, 12), np.uint8); g[1:5, 1:6] = 1; g[5:8, 7:11] = 1; g[3, 6:9] = 2; g[4, 8] = 2; g[3, 6] = 3
lv = Level(grid=g, rooms=((1, 1, 5, 4),), doors=((6, 3),), markers=(Marker("spawn", 2, 2), Marker("exit", 10, 7)))
parts = [data for _, data in sorted(tiled_files(lv, name="Crypt", origin=(1.5, 2.5, 0.5)).items())]
parts.append(level_json_bytes(lv, name="Crypt", cell_size=2.0, origin=(1.5, 2.5, 0.5)))
parts.append(png_bytes(level_image(lv)))
m = level_mesh(lv, ceiling=True, origin=(1.5, 2.5, 0.5))
parts += [m.vertices.tobytes(), m.indices.tobytes(), m.uvs.tobytes(), m.materials.tobytes()]
print(" ".join(hashlib.sha256(p).hexdigest() for p in parts))
"""


def test_same_bytes_across_processes():
    import pathlib
    import subprocess
    import sys

    root = str(pathlib.Path(__file__).resolve().parents[2])
    code = _DIGESTS.format(root=root)
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and len(runs[0].split()) == 11


def test_csv_text_equals_a_plain_join():
    from core.levels._tiled import _csv

    rng = np.random.default_rng(0)
    for shape in [(1, 1), (1, 5), (5, 1), (37, 53)]:
        for top in [0, 9, 10, 99, 100, 300]:
            g = rng.integers(0, top + 1, size=shape)
            assert _csv(g) == ",\n".join(",".join(map(str, row)) for row in g.tolist())
