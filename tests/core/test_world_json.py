"""The world JSON (<name>_world.json): names Unity's batch import expects, neighbours, positions, hashes."""

import hashlib
import json
import os

import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.core.world._grid import WorldGrid
from worldseed.core.world._world_json import (
    file_record,
    read_world_json,
    recipe_digest,
    verify_tiles,
    world_json,
    world_json_path,
    write_world_json,
)

from ._world_cases import isle

GRID = WorldGrid(nx=3, nz=2, resolution=129, size=256.0, height=90.0, halo_cells=8, world_name="Isle")


def test_header_names_the_unity_import_settings():
    doc = world_json(GRID, name="valley", seed=11, recipe_sha256="ab" * 32)
    assert (doc["format"], doc["version"], doc["name"], doc["world_name"], doc["seed"]) == (
        "worldseed-world",
        1,
        "valley",
        "Isle",
        11,
    )
    assert doc["grid"] == [3, 2] and doc["tile_size_m"] == 256.0 and doc["height_m"] == 90.0
    assert doc["heightmap_resolution"] == 129 and doc["alphamap_resolution"] == 128
    assert doc["unity_import"] == {
        "depth": 16,
        "byte_order": "Windows",
        "flip_vertically": False,
        "naming": "valley_X_Z",
    }
    assert doc["recipe_sha256"] == "ab" * 32
    json.dumps(doc)  # plain JSON values only


def test_every_tile_row_major_with_its_name_object_and_unity_position():
    doc = world_json(GRID, name="valley", seed=0, recipe_sha256="0" * 64)
    assert [(t["x"], t["z"]) for t in doc["tiles"]] == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]
    for t in doc["tiles"]:
        assert t["name"] == f"valley_{t['x']}_{t['z']}"  # Terrain Tools: <Name>_<X>_<Z>
        assert t["object"] == f"Isle_{t['x']}_{t['z']}"
        assert t["position"] == [t["x"] * 256.0, 0.0, t["z"] * 256.0]
        assert t["complete"] is False and t["files"] == []


def test_neighbours_follow_unity_set_neighbors_left_top_right_bottom():
    doc = world_json(GRID, name="w", seed=0, recipe_sha256="0" * 64)
    by = {(t["x"], t["z"]): t["neighbours"] for t in doc["tiles"]}
    assert list(by[(1, 0)]) == ["left", "top", "right", "bottom"]
    assert by[(1, 0)] == {"left": "w_0_0", "top": "w_1_1", "right": "w_2_0", "bottom": None}
    assert by[(0, 1)] == {"left": None, "top": None, "right": "w_1_1", "bottom": "w_0_0"}
    assert by[(2, 1)] == {"left": "w_1_1", "top": None, "right": None, "bottom": "w_2_0"}
    # every link goes both ways: A's right is B exactly when B's left is A (and top/bottom alike)
    names = {t["name"]: t["neighbours"] for t in doc["tiles"]}
    for name, sides in names.items():
        for side, back in (("left", "right"), ("right", "left"), ("top", "bottom"), ("bottom", "top")):
            if sides[side] is not None:
                assert names[sides[side]][back] == name


def _write_tile(folder, name, x, z, payload):
    records = []
    for suffix, data in (("", payload), ("_splat0", payload[::-1] + b"png"), ("_placements", b"{}")):
        ext = ".json" if suffix == "_placements" else (".png" if suffix else ".raw")
        path = os.path.join(folder, f"{name}_{x}_{z}{suffix}{ext}")
        with open(path, "wb") as fh:
            fh.write(data)
        records.append(file_record(path))
    return records


def test_file_records_are_size_and_sha256(tmp_path):
    path = tmp_path / "w_0_0.raw"
    data = bytes(range(256)) * 40
    path.write_bytes(data)
    assert file_record(str(path)) == {
        "name": "w_0_0.raw",
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def test_written_document_reads_back_and_complete_tiles_verify(tmp_path):
    folder = str(tmp_path)
    files = {
        (0, 0): _write_tile(folder, "w", 0, 0, b"\x01\x02" * 500),
        (2, 1): _write_tile(folder, "w", 2, 1, b"\x07" * 64),
    }
    doc = world_json(GRID, name="w", seed=5, recipe_sha256="c" * 64, files=files)
    path = world_json_path(folder, "w")
    assert path == os.path.join(folder, "w_world.json")
    write_world_json(path, doc)
    back = read_world_json(path)
    assert back == json.loads(json.dumps(doc))
    complete = [(t["x"], t["z"]) for t in back["tiles"] if t["complete"]]
    assert complete == [(0, 0), (2, 1)]
    assert [f["name"] for f in back["tiles"][0]["files"]] == ["w_0_0.raw", "w_0_0_splat0.png", "w_0_0_placements.json"]
    assert verify_tiles(folder, back, recipe_sha256="c" * 64) == files
    assert verify_tiles(folder, back) == files  # no digest given: files only


def test_damaged_missing_or_foreign_tiles_do_not_verify(tmp_path):
    folder = str(tmp_path)
    files = {t: _write_tile(folder, "w", *t, bytes([t[0] + 3 * t[1]]) * 200) for t in GRID.tiles()}
    doc = world_json(GRID, name="w", seed=5, recipe_sha256="c" * 64, files=files)
    assert set(verify_tiles(folder, doc, recipe_sha256="c" * 64)) == set(GRID.tiles())
    with open(os.path.join(folder, "w_0_0.raw"), "r+b") as fh:  # truncated RAW
        fh.truncate(100)
    with open(os.path.join(folder, "w_1_0_splat0.png"), "r+b") as fh:  # same size, one byte changed
        fh.seek(5)
        fh.write(b"\xff")
    os.remove(os.path.join(folder, "w_2_0_placements.json"))  # missing
    assert set(verify_tiles(folder, doc, recipe_sha256="c" * 64)) == set(GRID.tiles()) - {(0, 0), (1, 0), (2, 0)}
    assert verify_tiles(folder, doc, recipe_sha256="d" * 64) == {}  # another recipe: nothing is complete
    assert verify_tiles(folder, None) == {}


@pytest.mark.parametrize("bad", ["../w_0_0.raw", "/etc/passwd", "", "sub/w_0_0.raw"])
def test_file_names_outside_the_folder_never_verify(tmp_path, bad):
    doc = world_json(
        GRID, name="w", seed=5, recipe_sha256="c" * 64, files={(0, 0): [{"name": bad, "bytes": 1, "sha256": "0"}]}
    )
    assert verify_tiles(str(tmp_path), doc) == {}


def test_not_a_world_json_reads_as_none(tmp_path):
    path = tmp_path / "w_world.json"
    assert read_world_json(str(path)) is None
    path.write_text("{not json")
    assert read_world_json(str(path)) is None
    path.write_text(json.dumps({"format": "worldseed-world", "version": 99, "tiles": []}))
    assert read_world_json(str(path)) is None


def test_recipe_digest_follows_the_recipe():
    a = core_recipe.loads("[world]\nseed = 1\n")
    assert recipe_digest(a) == recipe_digest(core_recipe.loads(core_recipe.dumps(a)))
    assert recipe_digest(a) != recipe_digest(core_recipe.loads("[world]\nseed = 2\n"))


WORLD = isle(seed=4, tiles=(3, 2), size=64.0, height=20.0, erosion=False, rocks=None)


def test_a_world_run_writes_what_unity_batch_import_expects(tmp_path):
    folder = str(tmp_path)
    run = core_world.run_world(core_recipe.loads(WORLD), folder, name="valley")
    doc = read_world_json(os.path.join(folder, "valley_world.json"))
    assert doc == run.document and doc["grid"] == [3, 2] and doc["unity_import"]["naming"] == "valley_X_Z"
    assert doc["recipe_sha256"] == recipe_digest(core_recipe.loads(WORLD))
    on_disk = {n for n in os.listdir(folder) if not n.startswith(".")}
    listed = set()
    for t in doc["tiles"]:
        base = f"valley_{t['x']}_{t['z']}"
        names = [f["name"] for f in t["files"]]
        assert t["complete"] and t["name"] == base and t["object"] == f"Isle_{t['x']}_{t['z']}"
        assert f"{base}.raw" in names and f"{base}_splat0.png" in names and f"{base}_terrain.json" in names
        assert all(n == f"{base}.raw" or n.startswith(base + "_") for n in names)
        for f in t["files"]:
            assert file_record(os.path.join(folder, f["name"])) == f
        raw = next(f for f in t["files"] if f["name"] == f"{base}.raw")
        assert raw["bytes"] == 2 * 33 * 33  # 16-bit, one sample per heightmap vertex
        listed.update(names)
    assert on_disk == listed | {"valley_world.json"}  # every file listed, nothing else written


def test_the_worlds_own_files_are_listed_verified_and_kept_by_a_resumed_run(tmp_path):
    """The top-level ``files`` (the prop library, recipe.toml): recorded with size and SHA-256, verified
    like a tile's, kept by a run of the same recipe, dropped for another recipe or when damaged."""
    folder = str(tmp_path)
    recipe = core_recipe.loads(isle(tiles=(1, 2), erosion=False, splats=1, rocks=None))
    core_world.run_world(recipe, folder)
    path = core_world.world_json_path(folder, "world")
    (tmp_path / "world_props.fbx").write_bytes(b"props" * 100)
    (tmp_path / "world_0_0.fbx").write_bytes(b"tile" * 100)
    doc = core_world.with_records(
        read_world_json(path),
        tiles={(0, 0): str(tmp_path / "world_0_0.fbx")},
        files=[str(tmp_path / "world_props.fbx")],
    )
    assert doc["files"] == [file_record(str(tmp_path / "world_props.fbx"))]
    assert file_record(str(tmp_path / "world_0_0.fbx")) in doc["tiles"][0]["files"]
    write_world_json(path, doc)
    digest = recipe_digest(recipe)
    assert core_world.verify_world_files(folder, doc, recipe_sha256=digest) == doc["files"]
    assert core_world.verify_world_files(folder, doc, recipe_sha256="d" * 64) == []
    run = core_world.run_world(recipe, folder)  # nothing to build: the document keeps the world's files
    assert run.built == () and run.document["files"] == doc["files"]
    (tmp_path / "world_props.fbx").write_bytes(b"other" * 100)  # same size, other bytes
    assert core_world.verify_world_files(folder, doc, recipe_sha256=digest) == []
    assert core_world.run_world(recipe, folder).document["files"] == []


def test_a_fifo_at_the_world_json_does_not_hang_the_run(tmp_path):
    os.mkfifo(tmp_path / "world_world.json")
    assert read_world_json(str(tmp_path / "world_world.json")) is None
