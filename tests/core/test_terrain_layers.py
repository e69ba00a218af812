"""The terrain's layers (core.terrain.terrain_layers_steps): erosion, flow, biomes, texture layers."""

import dataclasses

import numpy as np
import pytest

from core import erosion, recipe, scatter, terrain
from core.errors import ParameterError
from core.steps import drive

LAYERED = """
[world]
seed = 4
[terrain]
resolution = 129
size = 256.0
height = 60.0
sea_level = 0.15
[terrain.erosion]
enabled = true
droplets_per_km2 = 100000
[biomes]
enabled = true
[[splat]]
name = "Grass"
[[splat]]
name = "Rock"
slope_range = [30.0, 90.0]
[[splat]]
name = "Sand"
deposits = 1.0
[[splat]]
name = "Snow"
biomes = ["snow", "tundra"]
[[splat]]
name = "Mud"
flow = 1.0
"""


def _implemented(call):
    try:
        call()
    except NotImplementedError:
        return False
    return True


needs_thermal = pytest.mark.skipif(
    not _implemented(lambda: erosion.thermal(np.zeros((4, 4)), cell_size=1.0)), reason="thermal is being written"
)


def _layers(r, **kw):
    h = terrain.terrain_heights(r.terrain, seed=r.world.seed)
    seen = []
    out = drive(
        terrain.terrain_layers_steps(
            h, terrain_spec=r.terrain, biomes_spec=r.biomes, splats=r.splat, seed=r.world.seed, **kw
        ),
        lambda *a: seen.append(a),
    )
    return h, out, seen


@pytest.fixture(scope="module")
def layered():
    return _layers(recipe.loads(LAYERED))


def test_without_erosion_the_heights_are_bit_identical():
    """Erosion off: the very heights heights_steps made, whatever else the layers work out."""
    # (a deposits rule needs erosion: the Sand layer's goes)
    r = recipe.loads(
        LAYERED.replace("enabled = true\ndroplets", "enabled = false\ndroplets").replace("deposits = 1.0\n", "")
    )
    assert not r.terrain.erosion.enabled
    h, out, _ = _layers(r)
    plain = terrain.terrain_heights(dataclasses.replace(r.terrain, erosion=erosion.ErosionSpec()), seed=4)
    assert out.heights is h and out.heights.values.tobytes() == plain.values.tobytes()
    assert out.eroded is None and out.deposited is None and out.ledger is None
    assert out.biomes is not None and len(out.splats) == 2
    # tiles (a margin) too, and with nothing asked nothing is worked out
    tile = dataclasses.replace(r.terrain, normalize="fixed", resolution=33)
    h = terrain.terrain_heights(tile, seed=4)
    bare = drive(terrain.terrain_layers_steps(h, terrain_spec=tile, seed=4))
    assert bare.heights is h and bare.flow is None and bare.biomes is None and bare.splats == ()
    assert list(bare.scatter_maps) == ["deposited"] and not bare.scatter_maps["deposited"].any()


def test_erosion_changes_the_heights_with_an_exact_ledger(layered):
    h, out, seen = layered
    assert out.heights is not h and out.heights.values.dtype == np.float32
    assert out.heights.values.shape == h.values.shape and out.heights.cell_size == h.cell_size
    diff = out.metres - h.values.astype(np.float64) * h.height
    assert np.abs(diff).max() > 0.01
    ledger = out.ledger
    assert ledger["droplets"] == round(100_000 * 0.256**2)
    assert ledger["relative_error"] <= 1e-6
    assert ledger["eroded"] > 0 and ledger["deposited"] > 0
    assert out.eroded.min() >= 0 and out.deposited.min() >= 0 and out.deposited.max() > 0
    # the clipped heights say how far they went
    assert 0.0 <= out.heights.values.min() and out.heights.values.max() <= 1.0
    assert set(out.clipped) == {"below", "above", "lowest_m", "highest_m"}
    # progress: never backwards, ends at the total
    done = [d for d, _, _ in seen]
    assert done == sorted(done) and done[-1] == seen[-1][1]
    assert [label for *_, label in seen][-3:] == ["flow", "biomes", "splats"]


def test_the_layers_are_deterministic(layered):
    _, a, _ = layered
    _, b, _ = _layers(recipe.loads(LAYERED))
    assert a.heights.values.tobytes() == b.heights.values.tobytes()
    assert a.biomes.tobytes() == b.biomes.tobytes()
    assert all(x.tobytes() == y.tobytes() for x, y in zip(a.splats, b.splats))


def test_biomes_splats_and_maps(layered):
    h, out, _ = layered
    n = h.values.shape[0]
    assert out.biomes.shape == (n, n) and out.biomes.dtype == np.uint8
    assert out.biome_names[0] == "ocean" and out.biome_colors.shape == (len(out.biome_names), 3)
    assert int(out.biomes.max()) < len(out.biome_names)
    sea = out.biomes == out.biome_names.index("ocean")  # no flow on the sea's cells
    assert not out.flow[sea].any()
    assert out.flow.shape == (n, n) and out.flow[~sea].min() >= out.heights.cell_size**2 * 0.999
    assert out.weights.shape == (5, n, n)
    np.testing.assert_allclose(out.weights.sum(axis=0), 1.0, atol=1e-5)
    # the splats are the weights at the alphamap's texels: one per heightmap cell, summing to 255
    assert [s.shape for s in out.splats] == [(n - 1, n - 1, 4)] * 2
    total = sum(s.astype(np.int32).sum(axis=2) for s in out.splats)
    assert (total == 255).all()
    assert out.splats[1][..., 1:].max() == 0  # five layers: the second image holds only R
    # a texel is the mean of its cell's four corners
    corners = out.weights[1, :2, :2].mean()
    assert abs(out.splats[0][0, 0, 1] - corners * 255) <= 1.0
    maps = out.scatter_maps
    assert set(maps) == {"biomes", "biome_names", "deposited", "flow"}
    # the maps drive a scatter layer
    rules = scatter.ScatterRules(slope_range=(0, 90), biomes=(("forest", 1.0),))
    (p,) = scatter.scatter_layers(
        out.metres, size=256.0, layers=[scatter.Layer("trees", radius=6.0, rules=rules)], seed=1, maps=maps
    )
    forest = out.biome_names.index("forest")
    cell = out.heights.cell_size
    col = np.rint(p.positions[:, 0] / cell + (n - 1) / 2).astype(int)
    row = np.rint(p.positions[:, 1] / cell + (n - 1) / 2).astype(int)
    assert len(p) > 10 and (out.biomes[row, col] == forest).mean() > 0.9


def test_splats_without_biomes_or_erosion():
    r = recipe.loads(
        "[terrain]\nresolution = 65\nsize = 128.0\n[[splat]]\nname = 'a'\n[[splat]]\nname = 'b'\n"
        "height_range = [40.0, 1000.0]\n"
    )
    _, out, seen = _layers(r)
    assert out.biomes is None and out.flow is None and out.ledger is None
    assert [label for *_, label in seen] == ["splats"]
    assert out.weights.shape == (2, 65, 65) and out.splats[0].shape == (64, 64, 4)


def test_flow_on_request_and_bad_settings():
    r = recipe.loads("[terrain]\nresolution = 33\nsize = 64.0\n")
    h = terrain.terrain_heights(r.terrain, seed=0)
    out = drive(terrain.terrain_layers_steps(h, terrain_spec=r.terrain, seed=0, flow=True))
    assert out.heights is h and out.flow.shape == (33, 33)
    assert set(out.scatter_maps) == {"deposited", "flow"}
    flat = recipe.loads("[terrain]\nresolution = 33\nheight = 0.0\n[terrain.erosion]\nenabled = true\n")
    with pytest.raises(ParameterError, match=r"terrain\.erosion needs terrain\.height > 0"):
        drive(
            terrain.terrain_layers_steps(
                terrain.terrain_heights(flat.terrain, seed=0), terrain_spec=flat.terrain, seed=0
            )
        )
    with pytest.raises(ParameterError, match="TerrainHeights"):
        drive(terrain.terrain_layers_steps(np.zeros((4, 4)), terrain_spec=r.terrain, seed=0))


@needs_thermal
def test_thermal_erosion_settles_steep_slopes():
    r = recipe.loads(
        LAYERED.replace(
            "droplets_per_km2 = 100000", "droplets_per_km2 = 0\nthermal = true\ntalus = 20.0\nthermal_iterations = 200"
        )
    )
    h, out, seen = _layers(r)
    assert "thermal" in [label for *_, label in seen]
    from core.heightmap import slope_degrees

    before = slope_degrees(h.values.astype(np.float64) * h.height, cell_size=h.cell_size)
    after = slope_degrees(out.metres, cell_size=h.cell_size)
    assert after.max() < before.max()
    # mass is kept: what slid into the sea is booked there (the sea floor keeps its level)
    in_sea = out.ledger.get("settled_in_sea", 0.0) / h.cell_size**2
    total = out.metres.astype(np.float64).sum() + in_sea
    assert abs(total - (h.values.astype(np.float64) * h.height).sum()) < 1e-6 * total
    assert out.ledger["thermal_moved"] > 0


def test_thermal_in_chunks_gives_the_heights_of_one_call():
    r = recipe.loads(
        "[terrain]\nresolution = 65\nsize = 128.0\nheight = 60.0\nkind = 'ridged'\n"
        "[terrain.erosion]\nenabled = true\ndroplets_per_km2 = 0\nthermal = true\ntalus = 25.0\n"
        "thermal_iterations = 37\n"
    )
    h, out, seen = _layers(r)
    once = erosion.thermal(
        h.values.astype(np.float64) * h.height, cell_size=h.cell_size, **r.terrain.erosion.thermal_kwargs()
    )
    expect = np.clip(once / h.height, 0.0, 1.0).astype(np.float32)
    assert out.heights.values.tobytes() == expect.tobytes()
    thermal_steps = [d for d, _, label in seen if label == "thermal"]
    assert len(thermal_steps) >= 2 and thermal_steps == sorted(thermal_steps)
    assert thermal_steps[-1] == terrain.LAYER_STEPS["erosion"] + terrain.LAYER_STEPS["thermal"]
    assert seen[-1][0] == seen[-1][1] and seen[-1][2] == "flow"


def test_a_flat_sea_is_water():
    """The flattened sea is exactly at the sea level (float32, as the mesh): every such cell is the water biome."""
    r = recipe.loads(
        "[terrain]\nresolution = 65\nsize = 512.0\nheight = 120.0\nsea_level = 0.18\nfalloff = 'radial'\n"
        "[biomes]\nenabled = true\n"
    )
    h, out, _ = _layers(r)
    sea = h.values == np.float32(0.18)
    assert sea.mean() > 0.2
    assert (out.biomes[sea] == out.biome_names.index("ocean")).all()
    assert (out.biomes[~sea] != out.biome_names.index("ocean")).all()


def test_an_eroded_tile_keeps_its_margin_ring():
    """A tile's margin (its neighbours' heights, for seam normals) keeps its ring; inside, the eroded heights."""
    r = recipe.loads(
        "[terrain]\nresolution = 33\nsize = 64.0\nheight = 30.0\nnormalize = 'fixed'\n"
        "[terrain.erosion]\nenabled = true\ndroplets_per_km2 = 500000\n"
    )
    h, out, _ = _layers(r)
    assert h.margin is not None and out.heights.margin is not None
    assert (out.heights.margin[1:-1, 1:-1] == out.heights.values).all()
    ring = np.ones(h.margin.shape, bool)
    ring[1:-1, 1:-1] = False
    assert (out.heights.margin[ring] == h.margin[ring]).all()
    assert (out.heights.values != h.values).any()


def test_erosion_progress_comes_batch_by_batch_through_hydraulic_steps(monkeypatch):
    """With core.erosion.hydraulic_steps (the generator form), the erosion reports every batch and erodes
    the same heights as hydraulic() in one go."""
    import importlib

    steps = (
        getattr(erosion, "hydraulic_steps", None) or importlib.import_module("core.erosion._hydraulic").hydraulic_steps
    )
    r = recipe.loads(
        "[terrain]\nresolution = 65\nsize = 256.0\nheight = 40.0\n[terrain.erosion]\nenabled = true\n"
        "droplets_per_km2 = 300000\n"
    )
    monkeypatch.setattr(erosion, "hydraulic_steps", steps, raising=False)
    _, stepped, seen = _layers(r)
    monkeypatch.delattr(erosion, "hydraulic_steps")
    _, whole, _ = _layers(r)
    assert stepped.heights.values.tobytes() == whole.heights.values.tobytes()
    erosion_steps = [d for d, _, label in seen if label == "erosion"]
    assert len(erosion_steps) >= 3 and erosion_steps == sorted(erosion_steps) and erosion_steps[-1] == 100


def test_the_sea_stays_sea_after_erosion():
    """Sediment laid on the flat sea floor would lift its cells a hair above the sea level and turn
    them into beach: the sea keeps its level, and what settled there is booked in the ledger."""
    from core import erosion as core_erosion
    from core import terrain as core_terrain

    spec = core_terrain.TerrainSpec(
        resolution=129,
        size=256.0,
        height=60.0,
        sea_level=0.35,
        erosion=core_erosion.ErosionSpec(enabled=True, droplets_per_km2=400_000.0, thermal=True),
    )
    heights = core_terrain.terrain_heights(spec, seed=2)
    sea = heights.values <= np.float32(spec.sea_level)
    assert 0.05 < sea.mean() < 0.9
    layers = core_terrain.terrain_layers(heights, terrain_spec=spec, seed=2)
    assert np.array_equal(layers.heights.values[sea], heights.values[sea])
    assert not layers.deposited[sea].any() and not layers.eroded[sea].any()
    assert layers.ledger["settled_in_sea"] > 0.0
    land = ~sea
    assert not np.array_equal(layers.heights.values[land], heights.values[land])


def test_no_flow_over_the_sea():
    """The flat sea floor routes water in straight parallel lines to the edge: the flow map and the
    flow rules (texture layer, scatter) see no flow on the sea's cells, the land keeps its flow."""
    from core import unity_package

    r = recipe.loads(
        "[terrain]\nresolution = 65\nsize = 512.0\nheight = 120.0\nsea_level = 0.18\nfalloff = 'radial'\n"
        '[[splat]]\nname = "Ground"\n[[splat]]\nname = "Mud"\nflow = 1.0\nflow_range = [1000.0, 5000.0]\n'
    )
    h, out, _ = _layers(r, flow=True)
    sea = h.values <= np.float32(0.18)
    assert sea.mean() > 0.2
    metres = h.values.astype(np.float64) * h.height
    raw = erosion.flow_accumulation(metres, cell_size=h.cell_size)
    assert raw[sea].max() > 5000.0  # the routing itself still runs lines across the sea floor
    assert not out.flow[sea].any()
    assert np.array_equal(out.flow[~sea], raw[~sea])
    assert out.scatter_maps["flow"][sea].max() == 0.0
    assert out.weights[1][sea].max() == 0.0  # the flow layer paints nothing on the sea
    grey = unity_package.flow_png_bytes(out.flow, cell_size=h.cell_size)
    assert grey == unity_package.flow_png_bytes(np.where(sea, 0.0, raw), cell_size=h.cell_size)
