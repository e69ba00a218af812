"""core.world.run_world removes the files of tiles outside its grid that an earlier world run into
the same folder wrote (a 3 x 1 world rebuilt as 2 x 1): Unity's batch import goes by the names, so
``world_2_0.raw`` left behind would come in as a tile.  Only the tile files' names (or the ones the
earlier world JSON lists), of this run's name, regular files: never a link, nothing else."""

import os

import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world

from ._world_cases import isle


def world(nx):
    return core_recipe.loads(isle(tiles=(nx, 1), erosion=False, splats=1))


@pytest.fixture
def three_wide(tmp_path):
    out = tmp_path / "out"
    run = core_world.run_world(world(3), str(out))
    assert run.complete and run.removed == ()
    return out


def test_files_of_tiles_outside_a_smaller_grid_are_removed(three_wide, tmp_path):
    out = three_wide
    stale = sorted(n for n in os.listdir(out) if n.startswith("world_2_0"))
    assert {"world_2_0.raw", "world_2_0_placements.json", "world_2_0_terrain.json", "world_2_0_splat0.png"} <= set(
        stale
    )
    (out / "world_2_0.fbx").write_bytes(b"fbx")  # what the Blender side adds: named as a tile's file
    (out / "world_4_0.raw").write_bytes(b"an older, larger world's")  # not in the JSON: by its name
    keep = {"world_2_0_notes.txt": b"mine", "other_2_0.raw": b"other name", "world_2_0.raw.bak": b"mine"}
    for name, data in keep.items():
        (out / name).write_bytes(data)
    outside = tmp_path / "outside.raw"
    outside.write_bytes(b"not the run's")
    os.symlink(outside, out / "world_7_0.raw")
    run = core_world.run_world(world(2), str(out))
    expected = sorted([*stale, "world_2_0.fbx", "world_4_0.raw"])
    assert sorted(os.path.basename(p) for p in run.removed) == expected
    assert not [n for n in expected if (out / n).exists()]
    assert all((out / n).read_bytes() == data for n, data in keep.items())
    assert os.path.islink(out / "world_7_0.raw") and outside.read_bytes() == b"not the run's"
    doc = core_world.read_world_json(run.path)
    assert doc["grid"] == [2, 1] and sorted((t["x"], t["z"]) for t in doc["tiles"]) == [(0, 0), (1, 0)]


def test_a_run_of_the_same_grid_removes_nothing(three_wide):
    run = core_world.run_world(world(3), str(three_wide), tiles=[(0, 0)])
    assert run.removed == () and run.skipped == ((0, 0),)


def test_files_the_earlier_world_json_lists_go_too(three_wide):
    out = three_wide
    path = core_world.world_json_path(str(out), "world")
    doc = core_world.read_world_json(path)
    entry = next(t for t in doc["tiles"] if (t["x"], t["z"]) == (2, 0))
    (out / "renamed_by_hand.fbx").write_bytes(b"x")
    entry["files"].append({"name": "renamed_by_hand.fbx", "bytes": 1, "sha256": "0" * 64})
    entry["files"].append({"name": "../escape.raw", "bytes": 1, "sha256": "0" * 64})  # never outside the folder
    (out.parent / "escape.raw").write_bytes(b"x")
    core_world.write_world_json(path, doc)
    run = core_world.run_world(world(2), str(out))
    assert "renamed_by_hand.fbx" in {os.path.basename(p) for p in run.removed}
    assert (out.parent / "escape.raw").exists()
