"""The shipped WFC presets (presets/wfc/): tilesets load with a class on every tile, the samples have
the pattern counts presets/wfc/README.md gives, and every preset solves at 32 x 32 within the rules."""

import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from core.wfc import extract_patterns, load_tileset, overlapping, read_sample, tiled, tiled3d

PRESETS = Path(__file__).resolve().parents[2] / "presets" / "wfc"
TILESETS = sorted(p.stem for p in PRESETS.glob("*.toml"))
SAMPLES = sorted(p.stem for p in (PRESETS / "samples").glob("*.txt"))
CLASSES = ("wall", "floor", "corridor", "door")  # level classes 0..3 of core.levels


def load(stem):
    return load_tileset(PRESETS / f"{stem}.toml")


def readme_table(heading):
    """{stem: row cells} of the table under ``## heading`` in presets/wfc/README.md."""
    text = (PRESETS / "README.md").read_text()
    section = text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("|")]
    return {cells[0].strip(): [c.strip() for c in cells] for cells in rows[2:]}


def assert_pairs_allowed(tiles, compatible, periodic):
    assert compatible[0][tiles[:, :-1], tiles[:, 1:]].all()
    assert compatible[1][tiles[:-1], tiles[1:]].all()
    if periodic:
        assert compatible[0][tiles[:, -1], tiles[:, 0]].all()
        assert compatible[1][tiles[-1], tiles[0]].all()


def test_the_presets_the_issue_asks_for_ship():
    assert {"dungeon", "pipes", "roads"} <= set(TILESETS)
    assert {"dots", "flowers", "rooms", "hills", "town"} <= set(SAMPLES)
    assert set(readme_table("Tilesets")) == set(TILESETS)
    assert set(readme_table("Samples")) == set(SAMPLES)


@pytest.mark.parametrize("stem", TILESETS)
def test_every_tileset_loads_with_the_variant_count_of_the_readme(stem):
    ts = load(stem)
    assert ts.name == stem
    assert len(ts.names) == int(readme_table("Tilesets")[stem][1])
    assert ts.compatible.shape == (4, len(ts.names), len(ts.names))
    assert (ts.compatible.any(axis=2)).all()  # every variant has a neighbour on every side


@pytest.mark.parametrize("stem", TILESETS)
def test_every_tile_has_a_level_class(stem):
    doc = tomllib.loads((PRESETS / f"{stem}.toml").read_text())
    classes = {t["name"]: t.get("class") for t in doc["tile"]}
    missing = sorted(name for name, c in classes.items() if c is None)
    assert not missing, f"{stem}: tiles without a class: {missing}"
    assert set(classes.values()) <= set(CLASSES)
    ts = load_tileset(PRESETS / f"{stem}.toml")
    want = [CLASSES.index(classes[base]) for base in ts.tile]
    assert ts.classes.tolist() == want
    assert ts.classes.dtype == np.uint8
    assert np.array_equal(ts.walkable, ts.classes != 0)
    assert ts.walkable.any() and not ts.walkable.all()  # a level needs both


@pytest.mark.parametrize("stem", SAMPLES)
def test_every_sample_has_the_pattern_count_of_the_readme(stem):
    sample = read_sample(PRESETS / "samples" / f"{stem}.txt")
    row = readme_table("Samples")[stem]
    w, h = (int(v) for v in row[1].split(" x "))
    assert sample.shape == (h, w)
    patterns, weights = extract_patterns(sample, n=3, symmetry=8)
    assert len(patterns) == int(row[2])
    assert weights.sum() == sample.size * 8
    header = (PRESETS / "samples" / f"{stem}.txt").read_text().split("\n0", 1)[0]
    counts = re.findall(r"(?<!about )\b(\d+) patterns", header)
    assert counts in ([], [row[2]])  # an exact count in the file's own comment agrees too


def windows_of(grid, n):
    grid = np.pad(grid, ((0, n - 1), (0, n - 1)), mode="wrap")
    w = np.lib.stride_tricks.sliding_window_view(grid, (n, n))
    return {tuple(v.ravel().tolist()) for v in w.reshape(-1, n, n)}


@pytest.mark.parametrize("stem", SAMPLES)
def test_every_sample_grows_a_32_square_made_of_its_patterns(stem):
    sample = read_sample(PRESETS / "samples" / f"{stem}.txt")
    result = overlapping(sample, 32, 32, seed=1)
    patterns, _ = extract_patterns(sample, n=3, symmetry=8)
    got = windows_of(result.output, 3)
    assert got <= {tuple(p.ravel().tolist()) for p in patterns}
    assert len(got) > 1 and result.patterns == len(patterns)


@pytest.mark.parametrize("stem", TILESETS)
@pytest.mark.parametrize("periodic", [False, True])
def test_every_tileset_tiles_a_32_square_within_its_rules(stem, periodic):
    ts = load(stem)
    result = tiled(ts, 32, 32, periodic=periodic, seed=2)
    assert result.tiles.shape == (32, 32)
    assert_pairs_allowed(result.tiles, ts.compatible, periodic)
    assert len(np.unique(result.tiles)) > 4


def stacks(stem):
    ts = load(stem)
    return all(u is not None for u in ts.up) and all(d is not None for d in ts.down)


@pytest.mark.parametrize("stem", [s for s in TILESETS if stacks(s)])
def test_every_3d_tileset_stacks_16_by_16_by_8_within_its_rules(stem):
    ts = load(stem)
    result = tiled3d(ts, 16, 16, 8, seed=3)
    t = result.tiles
    assert t.shape == (8, 16, 16)
    for layer in t:
        assert_pairs_allowed(layer, ts.compatible, False)
    vertical = np.array([[bool(set(u) & set(d)) for d in ts.down] for u in ts.up])  # q on p
    assert vertical[t[:-1], t[1:]].all()
    base = np.array(ts.base_names)
    if ts.ground:
        assert set(base[t[0]].ravel()) <= set(ts.ground)
    if ts.sky:
        assert set(base[t[-1]].ravel()) <= set(ts.sky)
    assert len(np.unique(t)) > 8


def test_a_3d_tileset_ships():
    assert any(stacks(s) for s in TILESETS)


# what crosses each side of the roads tiles in their base orientation (east, south, west, north):
# g grass, r road, w river
ROAD_SIDES = {
    "grass": "gggg",
    "road": "grgr",
    "road bend": "rggr",
    "road junction": "rrrg",
    "crossroads": "rrrr",
    "river": "gwgw",
    "river bend": "wggw",
    "bridge": "wrwr",
}


def variant_sides(ts, i):
    sides = list(ROAD_SIDES[ts.tile[i]])
    if ts.mirrored[i]:
        sides[0], sides[2] = sides[2], sides[0]
    t = int(ts.turns[i])
    return [sides[(d - t) % 4] for d in range(4)]  # a clockwise turn moves east to south


def test_roads_and_rivers_connect_and_cross_only_at_bridges():
    ts = load("roads")
    sides = np.array([variant_sides(ts, i) for i in range(len(ts.names))])
    assert set(ts.tile) == set(ROAD_SIDES)
    assert len({"".join(s) for s in sides}) == len(ts.names) == 20  # no variant twice, none missing
    for periodic in (False, True):
        t = tiled(ts, 40, 30, seed=4, periodic=periodic).tiles
        s = sides[t]
        east, south = np.roll(t, -1, 1), np.roll(t, -1, 0)
        cut = slice(None) if periodic else slice(None, -1)
        assert np.array_equal(s[:, cut, 0], sides[east][:, cut, 2])  # a road meets a road, a river a river
        assert np.array_equal(s[cut, :, 1], sides[south][cut, :, 3])
        names = set(np.array(ts.tile)[t].ravel().tolist())
        assert {"road", "river", "bridge", "grass"} <= names
