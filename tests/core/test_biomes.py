"""core.biomes: moisture and temperature, biome tables, classification, the [biomes] spec."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import biomes
from worldseed.core.erosion import flow_accumulation
from worldseed.core.errors import ParameterError
from worldseed.core.terrain import TerrainSpec, terrain_heights

WHITTAKER = biomes.load_table("whittaker")


def _reference_classify(h, m, table, sea_level, height):
    """Test every biome's ranges in file order, cell by cell (the rule of classify's Notes)."""
    out = np.empty(h.shape, np.uint8)
    span = height - sea_level
    for idx in np.ndindex(h.shape):
        if sea_level > 0 and h[idx] <= h.dtype.type(sea_level) and table.water >= 0:
            out[idx] = table.water
            continue
        found = table.fallback
        for b in table.land:
            (e0, e1), (m0, m1) = np.float32(table.elevation[b]), np.float32(table.moisture[b])
            inside = (
                (e0 == 0 or h[idx] >= h.dtype.type(sea_level + float(e0) * span))
                and (e1 == 1 or h[idx] < h.dtype.type(sea_level + float(e1) * span))
                and (m0 == 0 or m[idx] >= m0)
                and (m1 == 1 or m[idx] < m1)
            )
            if inside:
                found = b
                break
        out[idx] = found
    return out


# --- moisture and temperature ---------------------------------------------------------------------


def test_moisture_is_deterministic_in_range_and_float32():
    h = np.linspace(0.0, 60.0, 65 * 80, dtype=np.float32).reshape(65, 80)
    a = biomes.moisture(h, cell_size=2.0, seed=5, sea_level=10.0, sea_weight=0.4)
    b = biomes.moisture(h, cell_size=2.0, seed=5, sea_level=10.0, sea_weight=0.4)
    c = biomes.moisture(h, cell_size=2.0, seed=6, sea_level=10.0, sea_weight=0.4)
    assert a.dtype == np.float32 and a.shape == h.shape
    assert a.tobytes() == b.tobytes() and a.tobytes() != c.tobytes()
    assert 0.0 <= a.min() and a.max() <= 1.0


@settings(max_examples=20, deadline=None)
@given(
    sx=st.integers(0, 60),
    sy=st.integers(0, 20),
    ox=st.integers(-300, 300),
    oy=st.integers(-300, 300),
    seed=st.integers(0, 2**31),
)
def test_moisture_of_overlapping_tiles_agrees_on_the_overlap(sx, sy, ox, oy, seed):
    """Tile B starts (sx, sy) cells from tile A's origin (in world metres); both get a margin of the
    reach (cells of the world around them): the overlap is equal, sea and flow terms included."""
    cell, margin = 4.0, 3  # reaches of 12 m and 10 m: 3 cells
    rng = np.random.default_rng(seed)
    world = rng.uniform(0.0, 80.0, (60 + 2 * margin, 140 + 2 * margin)).astype(np.float32)
    flow = rng.choice([10.0, 1.0e5], world.shape, p=[0.97, 0.03])
    kw = dict(cell_size=cell, seed=seed % 1000, sea_level=20.0, sea_weight=0.5, sea_reach=12.0, margin=margin)
    kw.update(flow_weight=0.7, flow_reach=10.0, flow_area=1000.0)
    assert biomes.moisture_margin(cell_size=cell, sea_reach=12.0, flow_reach=10.0) == margin
    win_a = (slice(0, 40 + 2 * margin), slice(0, 70 + 2 * margin))
    win_b = (slice(sy, sy + 40 + 2 * margin), slice(sx, sx + 70 + 2 * margin))
    ma = biomes.moisture(world[win_a], flow=flow[win_a], offset=(ox * cell, oy * cell), **kw)
    mb = biomes.moisture(world[win_b], flow=flow[win_b], offset=((ox + sx) * cell, (oy + sy) * cell), **kw)
    assert ma.shape == mb.shape == (40, 70)
    assert ma[sy:, sx:].tobytes() == mb[: 40 - sy, : 70 - sx].tobytes()


@pytest.mark.parametrize("seed", [3, 11])
def test_two_adjacent_tiles_with_a_margin_equal_the_big_map(seed):
    """Two side-by-side tiles cut (with a margin of the reach) from one big map with a coast and
    rivers have, cell for cell, the big map's moisture; without the margin the sea term near the
    tiles' shared edge would differ."""
    cell, rows, cols = 2.0, 96, 160
    spec = TerrainSpec(resolution=cols, size=cell * (cols - 1), height=80.0, normalize="fixed", sea_level=0.3)
    big = terrain_heights(spec, seed=seed).metres.astype(np.float64)[:rows]
    flow = flow_accumulation(big, cell_size=cell)
    sea = float(np.quantile(big, 0.3))  # a coast across the map
    kw = dict(cell_size=cell, seed=seed, sea_level=sea, sea_weight=0.8, sea_reach=40.0)
    kw.update(flow_weight=0.6, flow_reach=12.0, flow_area=800.0)
    margin = biomes.moisture_margin(cell_size=cell, sea_reach=40.0, flow_reach=12.0)
    assert margin == 20
    whole = biomes.moisture(big, flow=flow, **kw)
    assert biomes.sea_mask(big, sea_level=sea).mean() > 0.2 and (flow >= 800.0).any()  # a coast, rivers
    top, side = margin, 60  # tiles of 56 x 60 cells, the west one starting at column `margin`
    for x0 in (margin, margin + side):
        win = (slice(top - margin, top + 56 + margin), slice(x0 - margin, x0 + side + margin))
        tile = biomes.moisture(big[win], flow=flow[win], offset=(x0 * cell, top * cell), margin=margin, **kw)
        assert tile.tobytes() == whole[top : top + 56, x0 : x0 + side].tobytes()
    # the margin matters: cut without it, the east tile's west edge misses the sea to its west
    east = (slice(top, top + 56), slice(margin + side, margin + 2 * side))
    bare = biomes.moisture(big[east], flow=flow[east], offset=((margin + side) * cell, top * cell), **kw)
    assert bare.tobytes() != whole[east].tobytes()


def _brute_distance(mask, cell):
    pts = np.argwhere(mask)
    rr, cc = np.mgrid[: mask.shape[0], : mask.shape[1]]
    if not len(pts):
        return np.full(mask.shape, np.inf)
    d2 = ((rr[..., None] - pts[:, 0]) ** 2 + (cc[..., None] - pts[:, 1]) ** 2).min(axis=-1)
    return np.sqrt(d2) * cell


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 40),
    cols=st.integers(1, 40),
    density=st.sampled_from([0.0, 0.005, 0.03, 0.2, 0.9]),
    reach=st.floats(0.3, 70.0),
    cell=st.sampled_from([0.5, 1.0, 3.0]),
    seed=st.integers(0, 2**31),
)
def test_distance_equals_a_brute_force_distance_within_the_reach(rows, cols, density, reach, cell, seed):
    mask = np.random.default_rng(seed).random((rows, cols)) < density
    want = _brute_distance(mask, cell)
    want[want > reach] = np.inf
    got = biomes.bounded_distance(mask, reach=reach, cell_size=cell)
    assert np.array_equal(got, want)
    near = biomes.closeness(mask, cell_size=cell, reach=reach)
    expect = np.where(want < reach, (1.0 - np.minimum(want / reach, 1.0) ** 2) ** 2, 0.0)
    np.testing.assert_allclose(near, expect, atol=2e-6)
    assert near.dtype == np.float32 and (near[mask] == 1.0).all()


def test_a_reach_longer_than_the_map_holds_every_distance():
    mask = np.zeros((9, 14), bool)
    mask[2, 11] = mask[7, 0] = True
    d = biomes.bounded_distance(mask, reach=1.0e9, cell_size=0.001)
    np.testing.assert_array_equal(d, _brute_distance(mask, 0.001))
    assert np.isinf(biomes.bounded_distance(np.zeros((4, 4), bool), reach=1.0e9)).all()
    near = biomes.closeness(mask, cell_size=0.001, reach=1.0e5)
    assert near.min() > 0.99999 and (near[mask] == 1.0).all()


def test_distance_of_a_large_map_with_a_long_reach_equals_brute_force_on_samples():
    """1025 x 700 with a reach of 200 cells (32-bit sums): sampled cells against brute force."""
    rng = np.random.default_rng(7)
    mask = rng.random((1025, 700)) < 2e-5
    mask[0, 0] = mask[1024, 699] = True
    d = biomes.bounded_distance(mask, reach=200.0)
    pts = np.argwhere(mask)
    for r, c in rng.integers(0, [1025, 700], (300, 2)):
        best = np.sqrt(((pts - (r, c)) ** 2).sum(axis=1).min())
        assert d[r, c] == (best if best <= 200.0 else np.inf)


def test_terrain_tiles_share_their_edge_biomes():
    """Two fixed-normalised terrain tiles side by side, each built with a margin of the sea's reach
    (the same terrain spec, grown by the margin on every side): the shared column has the same
    heights, moisture and biomes."""
    cell, margin = 4.0, biomes.moisture_margin(cell_size=4.0, sea_reach=40.0)
    maps = []
    for x in (0.0, 256.0):
        tile = TerrainSpec(resolution=65, size=256.0, height=80.0, normalize="fixed", sea_level=0.5, offset=(x, 0.0))
        grown = TerrainSpec(
            resolution=65 + 2 * margin,
            size=256.0 + 2 * margin * cell,
            height=80.0,
            normalize="fixed",
            sea_level=0.5,
            offset=(x - margin * cell, -margin * cell),
        )
        h = terrain_heights(grown, seed=4).metres
        inner = h[margin:-margin, margin:-margin]
        assert inner.tobytes() == terrain_heights(tile, seed=4).metres.tobytes()
        kw = dict(cell_size=cell, seed=4, sea_level=40.0, sea_weight=0.6, sea_reach=40.0)
        m = biomes.moisture(h, offset=tile.offset, margin=margin, **kw)
        ids = biomes.classify(inner, m, table=WHITTAKER, sea_level=40.0, height=80.0)
        maps.append((inner, m, ids))
    (ha, ma, ia), (hb, mb, ib) = maps
    assert ha[:, -1].tobytes() == hb[:, 0].tobytes()
    assert ma[:, -1].tobytes() == mb[:, 0].tobytes()
    assert ia[:, -1].tobytes() == ib[:, 0].tobytes()
    assert len(np.unique(np.concatenate([ia.ravel(), ib.ravel()]))) >= 4  # not a trivial map
    sea = biomes.sea_mask(np.hstack([ha, hb]), sea_level=40.0)
    assert 0.05 < sea.mean() < 0.95 and sea[:, 48:80].any()  # a sea near the shared edge


def test_terrain_layers_of_adjacent_tiles_share_the_sea_moisture_at_their_edge():
    """The terrain pipeline reads a tile's neighbours' heights within the sea's reach: two tiles
    side by side get the same moisture on their shared column (without the margin they would not:
    the sea of one tile wets the other's edge)."""
    from worldseed.core.terrain import terrain_layers

    settings = biomes.BiomesSpec(enabled=True, sea_weight=0.9, sea_reach=60.0, flow_weight=0.0)
    out = []
    for x in (0.0, 256.0):
        spec = TerrainSpec(resolution=65, size=256.0, height=80.0, normalize="fixed", sea_level=0.5, offset=(x, 0.0))
        layers = terrain_layers(terrain_heights(spec, seed=3), terrain_spec=spec, biomes_spec=settings, seed=3)
        out.append(layers)
        assert layers.moisture.shape == (65, 65)
    a, b = out
    assert a.moisture[:, -1].tobytes() == b.moisture[:, 0].tobytes()
    assert a.biomes[:, -1].tobytes() == b.biomes[:, 0].tobytes()
    sea = np.hstack([a.heights.metres, b.heights.metres]) <= np.float32(40.0)
    assert sea[:, 50:80].any() and not sea.all()
    # the tile alone (no margin) differs near the edge: the margin is what makes them agree
    alone = biomes.moisture(
        b.heights.metres, cell_size=4.0, seed=3, sea_level=40.0, offset=(256.0, 0.0), **biomes.moisture_kwargs(settings)
    )
    assert alone[:, 0].tobytes() != b.moisture[:, 0].tobytes()  # the sea west of b


def test_moisture_noise_is_about_uniform_over_a_large_area():
    h = np.zeros((257, 257), np.float32)
    m = biomes.moisture(h, cell_size=8.0, seed=1, sea_level=-1.0, scale=128.0)
    hist = np.histogram(m, bins=5, range=(0.0, 1.0))[0] / m.size
    assert hist.min() > 0.12 and hist.max() < 0.28, hist


def test_sea_and_flow_make_the_ground_wetter_by_distance():
    h = np.full((33, 33), 100.0, np.float32)
    h[:, :5] = 0.0  # a strip of sea
    flow = np.full(h.shape, 100.0)
    flow[16] = 1.0e6  # a river along row 16
    kw = dict(cell_size=2.0, seed=2, sea_level=1.0)
    dry = biomes.moisture(h, **kw)
    wet = biomes.moisture(
        h, sea_weight=1.0, sea_reach=8.0, flow=flow, flow_weight=1.0, flow_reach=6.0, flow_area=1.0e5, **kw
    )
    assert (wet >= dry).all()
    assert (wet[:, :5] == 1.0).all() and (wet[16] == 1.0).all()
    # 4 cells from the sea (8 m) and 3 from the river (6 m) the wetness has faded out exactly
    assert wet[:13, 9:].tobytes() == dry[:13, 9:].tobytes()
    assert wet[20:, 9:].tobytes() == dry[20:, 9:].tobytes()
    assert (wet[:13, 5:8] > dry[:13, 5:8]).all()  # within reach of the shore: wetter
    # the sea's share falls with the distance (same noise: compare what the sea adds)
    sea_only = biomes.moisture(h, sea_weight=1.0, sea_reach=8.0, **kw)
    gain = (sea_only - dry) / (1.0 - dry)
    assert (np.diff(gain[:, 4:10], axis=1) <= 1e-6).all()
    np.testing.assert_allclose(gain[:, 6], (1.0 - (4.0 / 8.0) ** 2) ** 2, atol=1e-5)
    # the flow lines are the cells whose upstream area reaches flow_area
    higher = biomes.moisture(h, flow=flow, flow_weight=1.0, flow_reach=6.0, flow_area=2.0e6, **kw)
    assert higher.tobytes() == dry.tobytes()


def test_no_sea_without_a_sea_level_above_the_floor():
    h = np.zeros((16, 16), np.float32)
    h[:, 8:] = 50.0
    kw = dict(cell_size=2.0, seed=2, sea_weight=1.0)
    assert (
        biomes.moisture(h, sea_level=0.0, **kw).tobytes()
        == biomes.moisture(h, sea_level=0.0, seed=2, cell_size=2.0).tobytes()
    )
    assert (biomes.moisture(h, sea_level=0.5, **kw)[:, :8] == 1.0).all()  # at the sea level: sea


def test_moisture_refuses_bad_parameters_by_name():
    h = np.zeros((8, 8), np.float32)
    with pytest.raises(ParameterError, match="flow is needed"):
        biomes.moisture(h, cell_size=1.0, seed=0, sea_level=0.0, flow_weight=0.5)
    with pytest.raises(ParameterError, match="sea_weight"):
        biomes.moisture(h, cell_size=1.0, seed=0, sea_level=0.0, sea_weight=2.0)
    with pytest.raises(ParameterError, match="scale"):
        biomes.moisture(h, cell_size=1.0, seed=0, sea_level=0.0, scale=0.0)
    with pytest.raises(ParameterError, match=r"sea_reach must be .*\[0.01, 100000\], got 0"):
        biomes.moisture(h, cell_size=1.0, seed=0, sea_level=0.0, sea_reach=0.0)
    with pytest.raises(ParameterError, match="flow_reach"):
        biomes.moisture(h, cell_size=1.0, seed=0, sea_level=0.0, flow_reach=-1.0)
    with pytest.raises(ParameterError, match="flow_area"):
        biomes.moisture(h, cell_size=1.0, seed=0, sea_level=0.0, flow_area=0.0)
    with pytest.raises(ParameterError, match=r"margin \(4 cells on every side\) must leave a tile"):
        biomes.moisture(h, cell_size=1.0, seed=0, sea_level=0.0, margin=4)
    with pytest.raises(ParameterError, match="flow must have shape"):
        biomes.moisture(h, cell_size=1.0, seed=0, sea_level=0.0, flow=np.ones((8, 7)), flow_weight=0.5)


def test_temperature_falls_with_height_at_the_lapse_rate():
    h = np.array([[-5.0, 0.0, 500.0, 3000.0]])
    t = biomes.temperature(h, sea_level=0.0, lapse=6.0, sea_temperature=20.0)
    assert t.dtype == np.float32
    np.testing.assert_allclose(t[0], [20.0, 20.0, 17.0, 2.0], atol=1e-5)


# --- tables -------------------------------------------------------------------------------------


def test_the_default_table_has_about_a_dozen_whittaker_biomes():
    names = set(WHITTAKER.names)
    assert {"ocean", "beach", "desert", "grassland", "shrubland", "forest", "rain forest"} <= names
    assert {"taiga", "tundra", "snow", "bare rock"} <= names
    assert 10 <= len(names) <= 16
    assert WHITTAKER.names[WHITTAKER.water] == "ocean"
    assert "whittaker" in biomes.table_names()


def test_table_errors_name_the_file_and_the_key(tmp_path):
    bad = tmp_path / "mine.toml"
    bad.write_text('[[biome]]\nname = "a"\nelevaton = [0.0, 1.0]\n')
    with pytest.raises(ParameterError, match=r"mine.toml: biome\[0\]: unknown key 'elevaton' \(did you mean"):
        biomes.load_table(bad)
    bad.write_text('[[biome]]\nname = "a"\nelevation = [0.0, 0.5]\n')
    with pytest.raises(ParameterError, match="no biome holds elevation 0.5"):
        biomes.load_table(bad)
    bad.write_text('[[biome]]\nname = "a"\nmoisture = [0.6, 0.2]\n')
    with pytest.raises(ParameterError, match=r"biome 'a'.moisture must have low < high"):
        biomes.load_table(bad)
    with pytest.raises(ParameterError, match="did you mean 'whittaker'"):
        biomes.load_table("whitaker")
    with pytest.raises(ParameterError, match="cannot be read"):
        biomes.load_table(tmp_path / "missing.toml")


def test_a_table_path_is_relative_to_the_base_folder(tmp_path):
    (tmp_path / "two.toml").write_text(
        'fallback = "low"\n[[biome]]\nname = "high"\nelevation = [0.5, 1.0]\n[[biome]]\nname = "low"\n'
    )
    table = biomes.load_table("two.toml", base=tmp_path)
    assert table.names == ("high", "low") and table.water == -1


# --- classification -----------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), sea=st.sampled_from([0.0, 12.0]), dtype=st.sampled_from([np.float32, np.float64]))
def test_classify_follows_the_table_cell_by_cell(seed, sea, dtype):
    rng = np.random.default_rng(seed)
    h = rng.uniform(-5.0, 85.0, (9, 11)).astype(dtype)
    m = rng.uniform(-0.1, 1.1, (9, 11)).astype(np.float32)
    # values exactly on the table's range ends, where the half-open rule decides
    ends = WHITTAKER.lookup[0]
    h.flat[:4] = [dtype(sea + float(e) * (80.0 - sea)) for e in rng.choice(ends[0], 4)]
    h.flat[4] = sea
    m.flat[5:9] = rng.choice(ends[1], 4)
    ids = biomes.classify(h, m, table=WHITTAKER, sea_level=sea, height=80.0)
    assert ids.dtype == np.uint8
    assert ids.tobytes() == _reference_classify(h, m, WHITTAKER, sea, 80.0).tobytes()


ENDS = [0.0, 0.1, 0.25, 0.3, 0.5, 0.62, 0.75, 0.9, 1.0]
TEMPS = [-100.0, -10.0, 0.0, 5.0, 12.0, 100.0]


@st.composite
def tables(draw):
    """A random table: land biomes with random boxes (some with temperature), maybe a water one."""
    n = draw(st.integers(1, 6))
    entries = []
    for i in range(n):
        entry = {"name": f"b{i}"}
        for key, values in (("elevation", ENDS), ("moisture", ENDS), ("temperature", TEMPS)):
            if key == "temperature" and not draw(st.booleans()):
                continue
            lo, hi = sorted(draw(st.lists(st.sampled_from(values), min_size=2, max_size=2, unique=True)))
            entry[key] = [lo, hi]
        entries.append(entry)
    if draw(st.booleans()):
        entries.insert(draw(st.integers(0, n)), {"name": "sea", "water": True})
    return {"fallback": "b0", "biome": entries}


def _reference_with_temperature(h, m, t, table, sea_level, height):
    out = np.empty(h.shape, np.uint8)
    span = height - sea_level
    for idx in np.ndindex(h.shape):
        if sea_level > 0 and h[idx] <= h.dtype.type(sea_level) and table.water >= 0:
            out[idx] = table.water
            continue
        found = table.fallback
        for b in table.land:
            (e0, e1), (m0, m1) = np.float32(table.elevation[b]), np.float32(table.moisture[b])
            t0, t1 = np.float32(table.temperature[b])
            inside = (
                (e0 == 0 or h[idx] >= h.dtype.type(sea_level + float(e0) * span))
                and (e1 == 1 or h[idx] < h.dtype.type(sea_level + float(e1) * span))
                and (m0 == 0 or m[idx] >= m0)
                and (m1 == 1 or m[idx] < m1)
                and (not table.uses_temperature or ((t0 == -100 or t[idx] >= t0) and (t1 == 100 or t[idx] < t1)))
            )
            if inside:
                found = b
                break
        out[idx] = found
    return out


@settings(max_examples=40, deadline=None)
@given(doc=tables(), seed=st.integers(0, 2**31), sea=st.sampled_from([0.0, 30.0]))
def test_classify_follows_random_tables(doc, seed, sea):
    table = biomes.table_from_dict(doc)
    rng = np.random.default_rng(seed)
    h = rng.uniform(-10.0, 2100.0, (7, 9)).astype(np.float32)
    m = rng.uniform(-0.2, 1.2, h.shape).astype(np.float32)
    t = rng.uniform(-30.0, 30.0, h.shape).astype(np.float32)
    t.flat[:3] = rng.choice(TEMPS[1:-1], 3)
    m.flat[3:6] = rng.choice(ENDS, 3)
    ids = biomes.classify(h, m, table=table, sea_level=sea, height=2000.0, temperature=t)
    assert ids.tobytes() == _reference_with_temperature(h, m, t, table, sea, 2000.0).tobytes()


def test_classify_with_a_temperature_table(tmp_path):
    (tmp_path / "t.toml").write_text(
        'fallback = "warm"\n[[biome]]\nname = "ice"\ntemperature = [-100.0, 0.0]\n[[biome]]\nname = "warm"\n'
    )
    table = biomes.load_table(tmp_path / "t.toml")
    h = np.array([[0.0, 1000.0, 2000.0, 3000.0]], np.float32)
    m = np.full(h.shape, 0.5, np.float32)
    ids = biomes.classify(h, m, table=table, sea_level=0.0, height=4000.0, lapse=6.5)  # 15, 8.5, 2, -4.5 C
    assert [table.names[i] for i in ids[0]] == ["warm", "warm", "warm", "ice"]
    ids = biomes.classify(h, m, table=table, sea_level=0.0, height=4000.0, temperature=np.full(h.shape, -1.0))
    assert (ids == table.index("ice")).all()


def test_classify_refuses_bad_input():
    h = np.zeros((4, 4), np.float32)
    with pytest.raises(ParameterError, match="height"):
        biomes.classify(h, h, table=WHITTAKER, sea_level=0.0)
    with pytest.raises(ParameterError, match="must be above sea_level"):
        biomes.classify(h, h, table=WHITTAKER, sea_level=10.0, height=5.0)
    with pytest.raises(ParameterError, match="moisture must have shape"):
        biomes.classify(h, h[:2], table=WHITTAKER, sea_level=0.0, height=5.0)
    with pytest.raises(ParameterError, match="table must be a BiomeTable"):
        biomes.classify(h, h, table="whittaker", sea_level=0.0, height=5.0)


def _coverage(spec, seed, flow):
    """Biome shares of the default terrain with the default [biomes] settings (flow lines wetting the
    ground as the terrain pipeline does when ``flow``)."""
    settings = biomes.BiomesSpec()
    h = terrain_heights(spec, seed=seed).metres.astype(np.float64)
    sea = spec.sea_level * spec.height
    kw = biomes.moisture_kwargs(settings)
    if not flow:
        kw["flow_weight"] = 0.0
    m = biomes.moisture(
        h,
        cell_size=spec.cell_size,
        seed=seed,
        sea_level=sea,
        flow=flow_accumulation(h, cell_size=spec.cell_size) if flow else None,
        **kw,
    )
    ids = biomes.classify(h, m, table=WHITTAKER, sea_level=sea, height=spec.height)
    return np.bincount(ids.ravel(), minlength=len(WHITTAKER.names)) / ids.size


@pytest.mark.parametrize("flow", [False, True], ids=["noise-and-sea", "with-flow"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_land_biome_covers_at_least_one_percent_of_a_typical_map(seed, flow):
    """The default terrain with a sea (a fifth of its height): every land biome >= 1 %; without a
    sea every land biome but the beach (a shore needs a sea)."""
    with_sea = _coverage(TerrainSpec(sea_level=0.2), seed, flow)
    low = {WHITTAKER.names[b]: round(100 * with_sea[b], 2) for b in WHITTAKER.land if with_sea[b] < 0.01}
    assert not low, low
    assert with_sea[WHITTAKER.water] > 0.01
    dry = _coverage(TerrainSpec(), seed, flow)
    low = {
        WHITTAKER.names[b]: round(100 * dry[b], 2)
        for b in WHITTAKER.land
        if dry[b] < 0.01 and WHITTAKER.names[b] != "beach"
    }
    assert not low, low


# --- the [biomes] section -----------------------------------------------------------------------


def test_biomes_spec_round_trips_and_refuses_bad_keys():
    spec = biomes.biomes_from_dict({"enabled": True, "table": "mine.toml", "moisture_scale": 300.0})
    assert spec.enabled and spec.table == "mine.toml" and spec.moisture_scale == 300.0
    assert biomes.biomes_from_dict(biomes.biomes_to_dict(spec)) == spec
    with pytest.raises(ParameterError, match="'sea_weigth' -> 'sea_weight'"):
        biomes.biomes_from_dict({"sea_weigth": 0.5})
    with pytest.raises(ParameterError, match=r"biomes.flow_weight must be a finite number in \[0, 1\], got 3"):
        biomes.biomes_from_dict({"flow_weight": 3})
    with pytest.raises(ParameterError, match="biomes.table"):
        biomes.biomes_from_dict({"table": ""})
    assert set(biomes.BIOMES_LIMITS) == {f for f in biomes.BiomesSpec.__dataclass_fields__}


def test_biomes_spec_reaches_and_flow_area_reach_the_moisture():
    spec = biomes.biomes_from_dict({"sea_reach": 120.0, "flow_reach": 9.5, "flow_area": 1500.0})
    assert (spec.sea_reach, spec.flow_reach, spec.flow_area) == (120.0, 9.5, 1500.0)
    assert biomes.biomes_from_dict(biomes.biomes_to_dict(spec)) == spec
    kw = biomes.moisture_kwargs(spec)
    assert kw["sea_reach"] == 120.0 and kw["flow_reach"] == 9.5 and kw["flow_area"] == 1500.0
    old = biomes.biomes_from_dict({"enabled": True, "sea_weight": 0.4, "flow_weight": 0.2})  # older recipes
    assert (old.sea_reach, old.flow_reach, old.flow_area) == (64.0, 16.0, 20000.0)
    with pytest.raises(ParameterError, match=r"biomes.sea_reach must be a finite number in \[0.01, 100000\], got 0"):
        biomes.biomes_from_dict({"sea_reach": 0})
    with pytest.raises(ParameterError, match=r"biomes.flow_reach must be a finite number in \[0.01, 100000\]"):
        biomes.biomes_from_dict({"flow_reach": 1.0e6})
    with pytest.raises(ParameterError, match=r"biomes.flow_area must be a finite number"):
        biomes.biomes_from_dict({"flow_area": -1.0})
    with pytest.raises(ParameterError, match="'sea_rech' -> 'sea_reach'"):
        biomes.biomes_from_dict({"sea_rech": 10.0})


# --- preview ------------------------------------------------------------------------------------


def test_biome_preview_colours_ids_by_the_table_with_north_at_the_top():
    ids = np.zeros((3, 4), np.uint8)
    ids[0, 0] = WHITTAKER.index("snow")  # south-west corner
    img = biomes.biome_preview(ids, WHITTAKER)
    assert img.shape == (3, 4, 3) and img.dtype == np.uint8
    snow = np.round(WHITTAKER.colors[WHITTAKER.index("snow")] * 255).astype(np.uint8)
    assert img[-1, 0].tolist() == snow.tolist()  # bottom-left of the picture
    assert img[0, 0].tolist() == biomes.biome_colours(WHITTAKER)[0].tolist()
    png = biomes.biome_png_bytes(ids, WHITTAKER)
    assert png.startswith(b"\x89PNG") and png[25] == 2  # RGB
    with pytest.raises(ParameterError, match="ids must lie in"):
        biomes.biome_preview(np.full((2, 2), 99), WHITTAKER)
    assert len(set(map(tuple, biomes.biome_colours(WHITTAKER).tolist()))) == len(WHITTAKER.names)
