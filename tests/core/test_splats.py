"""core.biomes splats: layer weights from rules, packing into RGBA8 images that sum to 255, [[splat]]."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from worldseed.core import biomes, splat
from worldseed.core.errors import ParameterError
from worldseed.core.preview import png_bytes
from worldseed.core.splat import SplatSpec

WHITTAKER = biomes.load_table("whittaker")


def _hills(n=65, size=128.0):
    y, x = np.mgrid[0:n, 0:n] / (n - 1) * size
    return (20.0 + 15.0 * np.sin(x / 17.0) * np.cos(y / 11.0) + 0.05 * x * np.sin(y / 5.0)).astype(np.float32)


LAYERS = [
    SplatSpec(name="Grass", color=(0.1, 0.3, 0.05)),
    SplatSpec(name="Sand", height_range=(-1000.0, 10.0), height_fade=3.0),
    SplatSpec(name="Rock", slope_range=(25.0, 90.0), slope_fade=6.0),
    SplatSpec(name="Forest floor", biomes=(("forest", 1.0), ("rain forest", 0.5)), biome_fade=6.0),
    SplatSpec(name="Moss", patchiness=0.6, noise_scale=20.0, noise_fade=0.2, strength=0.7),
    SplatSpec(name="Scree", deposits=1.0, deposit_depth=0.2),
    SplatSpec(name="Mud", flow=1.0, flow_range=(50.0, 5000.0)),
]


def _maps(h, cell=2.0):
    m = biomes.moisture(h, cell_size=cell, seed=1, sea_level=0.0)
    ids = biomes.classify(h, m, table=WHITTAKER, sea_level=0.0, height=40.0)
    deposited = np.clip(np.sin(np.arange(h.size).reshape(h.shape) / 50.0), 0.0, None) * 0.3
    flow = np.full(h.shape, 4.0)
    flow[:, 30] = 1.0e5
    return dict(biomes=ids, table=WHITTAKER, deposited=deposited, flow=flow)


# --- weights ------------------------------------------------------------------------------------


def test_weights_sum_to_one_lie_in_unit_range_and_are_deterministic():
    h = _hills()
    w = splat.splat_weights(LAYERS, heights=h, cell_size=2.0, seed=3, **_maps(h))
    assert w.shape == (len(LAYERS),) + h.shape and w.dtype == np.float32
    assert w.min() >= 0.0 and w.max() <= 1.0
    np.testing.assert_allclose(w.sum(axis=0), 1.0, atol=2e-6)
    again = splat.splat_weights(LAYERS, heights=h, cell_size=2.0, seed=3, **_maps(h))
    assert w.tobytes() == again.tobytes()
    other = splat.splat_weights(LAYERS, heights=h, cell_size=2.0, seed=4, **_maps(h))
    assert other[4].tobytes() != w[4].tobytes()  # the patch noise follows the seed
    for k in range(1, len(LAYERS)):
        assert w[k].max() > 0.2, LAYERS[k].name  # every rule claims some ground


def test_later_layers_paint_over_earlier_ones():
    h = _hills()
    full = [SplatSpec(name="A"), SplatSpec(name="B"), SplatSpec(name="C", strength=0.25)]
    w = splat.splat_weights(full, heights=h, cell_size=2.0)
    np.testing.assert_allclose(w[:, 5, 5], [0.0, 0.75, 0.25], atol=1e-7)


def test_each_rule_follows_its_map():
    h = _hills()
    maps = _maps(h)
    w = splat.splat_weights(LAYERS, heights=h, cell_size=2.0, **maps)
    sand = splat.splat_weights(LAYERS[:2], heights=h, cell_size=2.0)[1]
    assert (sand[h > 10.0 + 1e-3] == 0.0).all() and sand[h < 7.0].min() > 0.0  # sand below 10 m only
    assert (sand[h < 6.9] == 1.0).all()  # full 3 m inside its limit
    slope = splat.splat_weights(LAYERS[:3], heights=h, cell_size=2.0)[2]
    from worldseed.core.heightmap import slope_degrees

    s = slope_degrees(h, cell_size=2.0)
    assert (slope[s < 25.0] == 0.0).all() and (slope[s > 31.0] == 1.0).all()
    # the flow layer is on top: along the river it takes everything, elsewhere nothing
    assert np.allclose(w[6][:, 30], 1.0) and (w[6][:, :25] == 0.0).all()
    # the scree layer follows the deposits where the mud leaves room
    dep = maps["deposited"] >= 0.2
    assert np.allclose(w[5][:, :25][dep[:, :25]], 1.0) and (w[5][:, :25][maps["deposited"][:, :25] == 0.0] == 0.0).all()


def test_biome_layers_blend_smoothly_across_borders():
    h = _hills()
    maps = _maps(h)
    forest = WHITTAKER.index("forest")
    layers = [SplatSpec(name="Ground"), SplatSpec(name="Forest", biomes=(("forest", 1.0),), biome_fade=16.0)]
    w = splat.splat_weights(layers, heights=h, cell_size=2.0, biomes=maps["biomes"], table=WHITTAKER)[1]
    assert 0.0 < w.max() and (maps["biomes"] == forest).any()
    assert np.abs(np.diff(w, axis=1)).max() < 0.35  # no hard 0/1 step
    hard = splat.splat_weights(
        [layers[0], SplatSpec(name="Forest", biomes=(("forest", 1.0),), biome_fade=0.0)],
        heights=h,
        cell_size=2.0,
        biomes=maps["biomes"],
        table=WHITTAKER,
    )[1]
    assert ((hard == 1.0) == (maps["biomes"] == forest)).all()


def test_patch_noise_is_seamless_across_tiles():
    h = _hills(n=65)
    layer = [SplatSpec(name="Ground"), SplatSpec(name="Moss", patchiness=0.5, noise_scale=16.0)]
    a = splat.splat_weights(layer, heights=h[:, :40], cell_size=2.0, seed=9, offset=(100.0, -50.0))
    b = splat.splat_weights(layer, heights=h[:, 30:], cell_size=2.0, seed=9, offset=(160.0, -50.0))
    assert a[:, :, 30:].tobytes() == b[:, :, :10].tobytes()


def test_splat_weights_name_what_is_missing_or_wrong():
    h = _hills(n=9)
    with pytest.raises(ParameterError, match=r"layers\[1\] \('Forest'\) has a biome rule"):
        splat.splat_weights(
            [SplatSpec(), SplatSpec(name="Forest", biomes=(("forest", 1.0),))], heights=h, cell_size=1.0
        )
    with pytest.raises(ParameterError, match="did you mean 'forest'"):
        ids = np.zeros(h.shape, np.uint8)
        splat.splat_weights(
            [SplatSpec(), SplatSpec(name="F", biomes=(("forrest", 1.0),))],
            heights=h,
            cell_size=1.0,
            biomes=ids,
            table=WHITTAKER,
        )
    with pytest.raises(ParameterError, match="deposited is needed"):
        splat.splat_weights([SplatSpec(), SplatSpec(name="S", deposits=0.5)], heights=h, cell_size=1.0)
    with pytest.raises(ParameterError, match="flow is needed"):
        splat.splat_weights([SplatSpec(), SplatSpec(name="S", flow=-0.5)], heights=h, cell_size=1.0)
    with pytest.raises(ParameterError, match="1 to 32"):
        splat.splat_weights([], heights=h, cell_size=1.0)


# --- packing ------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    w=hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 11), st.integers(1, 6), st.integers(1, 6)),
        elements=st.one_of(st.just(0.0), st.just(0.25), st.floats(0.0, 1.0), st.floats(0.0, 1e-6)),
    )
)
def test_pack_sums_exactly_255_and_rounds_by_largest_remainder(w):
    images = splat.pack_splats(w)
    layers = w.shape[0]
    assert len(images) == -(-layers // 4)
    assert all(im.dtype == np.uint8 and im.shape == w.shape[1:] + (4,) for im in images)
    stack = np.concatenate(images, axis=-1).astype(np.int64)  # (rows, cols, 4 * images): layer order
    assert (stack.sum(axis=-1) == 255).all()
    assert (stack[..., layers:] == 0).all()  # padding channels
    total = w.sum(axis=0)
    share = np.where(total > 0, w / np.where(total > 0, total, 1.0) * 255.0, 0.0)
    share[0][total == 0] = 255.0
    got = np.moveaxis(stack[..., :layers], -1, 0)
    assert (np.abs(got - share) < 1.0 + 1e-9).all()  # within one unit of the exact share
    assert (got >= np.floor(share - 1e-9)).all()
    single = np.concatenate(splat.pack_splats(w.astype(np.float32)), axis=-1).astype(np.int64)
    assert (single.sum(axis=-1) == 255).all()  # float32 weights (splat_weights') are rounded in float32


@settings(max_examples=25, deadline=None)
@given(
    specs=st.lists(
        st.builds(
            SplatSpec,
            height_range=st.tuples(st.floats(-5.0, 20.0), st.floats(20.0, 60.0)),
            height_fade=st.floats(0.0, 10.0),
            slope_range=st.tuples(st.floats(0.0, 30.0), st.floats(30.0, 90.0)),
            slope_fade=st.floats(0.0, 20.0),
            patchiness=st.sampled_from([0.0, 0.3, 0.9]),
            noise_fade=st.floats(0.0, 0.5),
            strength=st.floats(0.0, 1.0),
        ),
        min_size=1,
        max_size=9,
    ),
    seed=st.integers(0, 2**31),
)
def test_any_layers_give_weights_that_sum_to_one_and_pack_to_255(specs, seed):
    h = _hills(n=33)
    w = splat.splat_weights(specs, heights=h, cell_size=3.0, seed=seed)
    assert w.shape == (len(specs), 33, 33) and w.min() >= 0.0 and w.max() <= 1.0
    np.testing.assert_allclose(w.sum(axis=0), 1.0, atol=2e-6)
    packed = np.concatenate(splat.pack_splats(w), axis=-1).astype(np.int64)
    assert (packed.sum(axis=-1) == 255).all()


def test_pack_channel_order_and_ties():
    w = np.zeros((6, 1, 2))
    for k in range(6):
        w[k, 0, 0] = k + 1.0  # distinct shares
    w[:, 0, 1] = 1.0  # six equal shares: 42.5 each -> three get 43, the lowest layers first
    r0, r1 = splat.pack_splats(w)
    exact = w[:, 0, 0] / w[:, 0, 0].sum() * 255
    layer_values = list(r0[0, 0]) + list(r1[0, 0, :2])
    assert np.abs(np.array(layer_values) - exact).max() < 1.0
    assert list(r0[0, 1]) == [43, 43, 43, 42] and list(r1[0, 1]) == [42, 42, 0, 0]
    # a layer alone lands in its channel: layer 5 is image 1, G
    solo = np.zeros((6, 2, 2))
    solo[5] = 1.0
    images = splat.pack_splats(solo)
    assert (images[1][..., 1] == 255).all() and images[0].sum() == 0 and images[1][..., [0, 2, 3]].sum() == 0


def test_pack_is_linear_and_round_trips_within_one_unit():
    rng = np.random.default_rng(4)
    w = rng.random((5, 16, 16)) ** 3
    back = splat.unpack_splats(splat.pack_splats(w), 5)
    assert np.abs(back - w / w.sum(axis=0)).max() <= 1 / 255 + 1e-7
    mid = np.zeros((2, 1, 1))
    mid[:, 0, 0] = (0.5, 0.5)
    assert splat.pack_splats(mid)[0][0, 0].tolist() == [128, 127, 0, 0]  # no sRGB curve (0.5 -> 188)


def test_pack_refuses_bad_weights():
    with pytest.raises(ParameterError, match="negative"):
        splat.pack_splats(-np.ones((2, 2, 2)))
    with pytest.raises(ParameterError, match="finite"):
        splat.pack_splats(np.full((2, 2, 2), np.nan))
    with pytest.raises(ParameterError, match="3-dimensional"):
        splat.pack_splats(np.ones((2, 2)))


def test_splat_png_puts_row_zero_at_the_bottom():
    img = np.zeros((3, 2, 4), np.uint8)
    img[0, 0] = (255, 0, 0, 0)  # south-west corner
    data = splat.splat_png_bytes(img)
    assert data == png_bytes(img[::-1].copy())
    assert data[25] == 6  # colour type RGBA


# --- the [[splat]] section ----------------------------------------------------------------------


def test_splat_spec_round_trips_and_refuses_bad_values():
    spec = splat.from_dict(
        {"name": "Rock", "color": [0.3, 0.3, 0.3], "slope_range": [30, 90], "biomes": {"taiga": 0.5, "tundra": 1}},
        prefix="splat[1].",
    )
    assert spec.biomes == (("taiga", 0.5), ("tundra", 1.0)) and spec.slope_range == (30.0, 90.0)
    table = splat.to_dict(spec)
    assert table["biomes"] == {"taiga": 0.5, "tundra": 1.0}
    assert splat.from_dict(table) == spec
    plain = splat.from_dict({"biomes": ["forest"]})
    assert splat.to_dict(plain)["biomes"] == ["forest"]
    with pytest.raises(ParameterError, match=r"splat\[2\].strength must be a finite number in \[0, 1\]"):
        splat.from_dict({"strength": 2.0}, prefix="splat[2].")
    with pytest.raises(ParameterError, match="'colour' -> 'color'"):
        splat.from_dict({"colour": [1, 1, 1]})
    with pytest.raises(ParameterError, match="used by splat"):
        splat.splats_from_list([{"name": "A"}, {"name": "A"}])
    assert set(splat.LIMITS) == set(SplatSpec.__dataclass_fields__)


# --- detail layers ------------------------------------------------------------------------------


def test_detail_counts_follow_the_density_on_average_and_are_deterministic():
    n = 129
    density = np.tile(np.linspace(0.0, 1.0, n), (n, 1))  # 0 in the west, 1 in the east
    kw = dict(cell_size=1.0, per_m2=3.0, detail_resolution=64, seed=5)
    c = biomes.detail_counts(density, **kw)
    assert c.shape == (64, 64) and c.dtype == np.uint16
    assert c.tobytes() == biomes.detail_counts(density, **kw).tobytes()
    assert c.tobytes() != biomes.detail_counts(density, **{**kw, "seed": 6}).tobytes()
    area = (128 / 64) ** 2
    expected = 3.0 * area * (np.arange(64) + 0.5) / 64  # density at each detail cell's centre
    np.testing.assert_allclose(c.mean(axis=0), expected, atol=0.35)
    assert c.sum() == pytest.approx(3.0 * 128 * 128 * 0.5, rel=0.02)
    assert (c[:, 0] <= 1).all()  # the west edge is nearly bare
    weights = np.stack([1.0 - density, density])
    assert biomes.detail_counts(weights, layer=1, **kw).tobytes() == c.tobytes()


def test_detail_counts_refuse_more_than_unity_holds_per_cell():
    with pytest.raises(ParameterError, match="more than 255"):
        biomes.detail_counts(np.ones((65, 65)), cell_size=4.0, per_m2=10.0, detail_resolution=16)
    with pytest.raises(ParameterError, match="layer is needed"):
        biomes.detail_counts(np.ones((2, 9, 9)), cell_size=1.0, per_m2=1.0, detail_resolution=8)
    with pytest.raises(ParameterError, match="detail_resolution"):
        biomes.detail_counts(np.ones((9, 9)), cell_size=1.0, per_m2=1.0, detail_resolution=0)


def _world(x, y):
    """Heights (m) of a made-up world at world coordinates (m): tiles cut from it join."""
    return (30.0 + 22.0 * np.sin(x / 23.0) * np.cos(y / 17.0) + 6.0 * np.sin((x - 2 * y) / 7.0)).astype(np.float32)


@pytest.mark.parametrize("fade", [8.0, 80.0])  # blur radius 1 (shifted sums) and 10 (cumulative sum)
def test_tiles_with_a_margin_share_their_edge_weights(fade):
    cell, n = 2.0, 33
    layers = [
        SplatSpec(name="Ground"),
        SplatSpec(name="Rock", slope_range=(20.0, 90.0), slope_fade=5.0),
        SplatSpec(name="Forest", biomes=(("forest", 1.0), ("rain forest", 0.6)), biome_fade=fade),
        SplatSpec(name="Moss", patchiness=0.4, noise_scale=10.0),
    ]
    margin = splat.splat_margin(layers, cell_size=cell)
    assert margin == max(1, 2 * round(fade / (4 * cell)))
    tiles = []
    for tile_x in (0.0, (n - 1) * cell):  # two tiles side by side, sharing a column of vertices
        idx = np.arange(-margin, n + margin) * cell
        x, y = np.meshgrid(tile_x + idx, 100.0 + idx)
        h = _world(x, y)
        corner = (tile_x - margin * cell, 100.0 - margin * cell)
        m = biomes.moisture(h, cell_size=cell, seed=2, sea_level=0.0, scale=30.0, offset=corner)
        ids = biomes.classify(h, m, table=WHITTAKER, sea_level=0.0, height=60.0)
        w = splat.splat_weights(
            layers,
            heights=h,
            cell_size=cell,
            biomes=ids,
            table=WHITTAKER,
            seed=5,
            offset=(tile_x, 100.0),
            margin=margin,
        )
        assert w.shape == (4, n, n)
        tiles.append(w)
    west, east = tiles
    assert west[2].max() > 0.3 and west[1].max() > 0.3  # the rules do something near the edge
    if round(fade / (4 * cell)) <= 8:  # shifted sums: bit for bit
        assert west[:, :, -1].tobytes() == east[:, :, 0].tobytes()
    np.testing.assert_allclose(west[:, :, -1], east[:, :, 0], atol=1e-6)
