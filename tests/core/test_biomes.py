"""core.biomes: moisture (noise, sea and flow terms, bounded distances, tiles that agree at their edges)
and temperature.  Tables, classification, the [biomes] spec and the preview: test_biomes_classify.py."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import biomes
from worldseed.core.erosion import flow_accumulation
from worldseed.core.errors import ParameterError
from worldseed.core.terrain import TerrainSpec, terrain_heights

WHITTAKER = biomes.load_table("whittaker")


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
