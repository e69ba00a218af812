"""Scatter rules that read the terrain's layers: biomes (with weights), erosion deposits, water flow."""

import hashlib

import numpy as np
import pytest

from core import recipe, scatter, terrain
from core.errors import ParameterError, RecipeError
from core.scatter import spec as layer_spec

from ._digest_cases import GOLDEN

SIZE = 128.0
N = 65
CELL = SIZE / (N - 1)


def _digest(placements):
    h = hashlib.sha256()
    for p in placements:
        for a in (p.positions, p.rotations, p.scales, p.radii):
            h.update(np.ascontiguousarray(a, np.float64).tobytes())
    return h.hexdigest()[:16]


def _flat():
    return np.zeros((N, N))


def _halves():
    """Biome 0 ("forest") on the west half (x < 0), biome 1 ("desert") on the east half."""
    ids = np.zeros((N, N), np.uint8)
    ids[:, N // 2 :] = 1
    return {"biomes": ids, "biome_names": ("forest", "desert")}


def _layer(name="l", radius=2.0, **rules):
    return scatter.Layer(name, radius=radius, rules=scatter.ScatterRules(slope_range=(0, 90), above_sea=False, **rules))


def test_layers_without_map_rules_place_what_they_placed_before():
    """The digest was taken from the scatter before the map rules existed (same terrain, layers, seed);
    pinned as ``scatter_plain`` in the golden table (re-pinned for issue 21: slopes, distances and
    rotations no longer go through numpy's machine-dependent arctan, hypot, arccos, sin and cos)."""
    t = terrain.TerrainSpec(resolution=129, size=256.0, height=60.0, sea_level=0.2)
    m = terrain.terrain_heights(t, seed=5).metres.astype(np.float64)
    specs = [
        layer_spec.from_dict({"name": "Oaks", "radius": 9.0, "slope_range": [0.0, 30.0], "patchiness": 0.3}),
        layer_spec.from_dict(
            {
                "name": "Rocks",
                "radius": 4.0,
                "radius_max": 8.0,
                "slope_range": [10.0, 90.0],
                "height_range": [5.0, 50.0],
            }
        ),
        layer_spec.from_dict({"name": "Grass", "prop": "grass", "radius": 2.0, "keep_away": 1.0}),
    ]
    layers = [scatter.layer_from_spec(s, sea_level_m=t.sea_level * t.height) for s in specs]
    before = GOLDEN["scatter_plain"]
    assert _digest(scatter.scatter_layers(m, size=t.size, layers=layers, seed=11)) == before
    maps = {
        "biomes": np.zeros(m.shape, np.uint8),
        "biome_names": ("forest",),
        "deposited": np.ones(m.shape),
        "flow": np.ones(m.shape),
    }
    assert _digest(scatter.scatter_layers(m, size=t.size, layers=layers, seed=11, maps=maps)) == before


def test_biomes_rule_keeps_props_in_the_named_biomes():
    maps = _halves()
    (forest,) = scatter.scatter_layers(_flat(), size=SIZE, layers=[_layer(biomes=["forest"])], seed=1, maps=maps)
    (desert,) = scatter.scatter_layers(_flat(), size=SIZE, layers=[_layer(biomes=["desert"])], seed=1, maps=maps)
    assert len(forest) > 300 and len(desert) > 300
    # a prop goes into cells whose four corners allow it: forest ends at the last forest column
    assert forest.positions[:, 0].max() <= -CELL + 1e-9
    assert desert.positions[:, 0].min() >= 0.0
    # the mask itself
    mask = scatter.rule_mask(_flat(), size=SIZE, rules=_layer(biomes={"desert": 0.5}).rules, maps=maps)
    assert set(np.unique(mask[:, : N // 2])) == {0.0} and set(np.unique(mask[:, N // 2 :])) == {0.5}


def test_biome_weights_thin_a_fixed_spacing_and_widen_a_varying_one():
    maps = _halves()
    full = scatter.scatter_layers(_flat(), size=SIZE, layers=[_layer(biomes=["forest", "desert"])], seed=2, maps=maps)
    half = scatter.scatter_layers(
        _flat(), size=SIZE, layers=[_layer(biomes={"forest": 1.0, "desert": 0.3})], seed=2, maps=maps
    )
    west = lambda p: int((p[0].positions[:, 0] < -CELL).sum())  # noqa: E731
    east = lambda p: int((p[0].positions[:, 0] > CELL).sum())  # noqa: E731
    assert west(half) == west(full)  # weight 1 keeps every prop the sampler placed
    assert 0.22 < east(half) / east(full) < 0.38  # weight 0.3 keeps about 30 %
    varying = scatter.Layer("v", radius=2.0, radius_max=6.0, rules=_layer(biomes={"forest": 1.0, "desert": 0.05}).rules)
    (p,) = scatter.scatter_layers(_flat(), size=SIZE, layers=[varying], seed=2, maps=maps)
    assert (p.positions[:, 0] > CELL).sum() < 0.5 * (p.positions[:, 0] < -CELL).sum()


def test_deposits_and_flow_rules_follow_their_maps():
    deposited = np.zeros((N, N))
    deposited[40:60, 40:60] = 0.5  # scree patch north-east
    flow = np.full((N, N), 100.0)
    flow[:, 10:14] = 50_000.0  # a stream along a column in the west
    maps = {"deposited": deposited, "flow": flow}
    scree, reeds = scatter.scatter_layers(
        _flat(),
        size=SIZE,
        layers=[_layer("scree", deposits=(0.2, 1e5)), _layer("reeds", radius=1.0, flow=(5000.0, 1e12))],
        seed=3,
        maps=maps,
    )
    assert len(scree) > 20 and len(reeds) > 20
    col = scree.positions[:, 0] / CELL + (N - 1) / 2
    row = scree.positions[:, 1] / CELL + (N - 1) / 2
    assert col.min() >= 40 and col.max() <= 59 and row.min() >= 40 and row.max() <= 59
    col = reeds.positions[:, 0] / CELL + (N - 1) / 2
    assert col.min() >= 9 and col.max() <= 14  # the stream (columns 10 to 13) and a cell either side


def test_map_rules_without_their_maps_or_with_unknown_biomes_are_one_clear_error():
    with pytest.raises(ParameterError, match="needs maps.*biome_names"):
        scatter.scatter_layers(_flat(), size=SIZE, layers=[_layer(biomes=["forest"])], seed=0)
    # no deposits map: nothing deposited (a terrain without erosion); no flow map: worked out from the heights
    (none,) = scatter.scatter_layers(_flat(), size=SIZE, layers=[_layer(deposits=(0.1, 1.0))], seed=0)
    assert len(none) == 0
    valley = np.abs(np.linspace(-10.0, 10.0, N))[None, :] + np.linspace(0.0, 5.0, N)[:, None]  # a valley along y
    (reeds,) = scatter.scatter_layers(valley, size=SIZE, layers=[_layer(radius=1.0, flow=(2000.0, 1e12))], seed=0)
    assert len(reeds) > 5 and np.abs(reeds.positions[:, 0]).max() <= 2 * CELL
    with pytest.raises(ParameterError, match=r"'forst'.*did you mean 'forest'"):
        scatter.scatter_layers(_flat(), size=SIZE, layers=[_layer(biomes=["forst"])], seed=0, maps=_halves())
    with pytest.raises(ParameterError, match=r"maps\['flow'\] must be a float array of the heights' shape"):
        scatter.scatter_layers(
            _flat(), size=SIZE, layers=[_layer(flow=(1.0, 2.0))], seed=0, maps={"flow": np.zeros((3, 3))}
        )
    with pytest.raises(ParameterError, match=r"biomes.desert must be a finite number in \[0, 1\], got 2"):
        scatter.ScatterRules(biomes={"desert": 2.0})
    with pytest.raises(ParameterError, match="names 'desert' twice"):
        scatter.ScatterRules(biomes=["desert", "desert"])


def test_layer_spec_reads_writes_the_map_rules():
    spec = layer_spec.from_dict(
        {"name": "Reeds", "prop": "grass", "biomes": {"grassland": 1.0, "forest": 0.25}, "flow": [5000.0, 1e12]}
    )
    assert spec.biomes == (("grassland", 1.0), ("forest", 0.25))
    assert layer_spec.from_dict({"biomes": ["taiga"]}).biomes == (("taiga", 1.0),)
    assert layer_spec.from_dict({"biomes": "taiga, forest = 0.5"}).biomes == (("taiga", 1.0), ("forest", 0.5))
    table = layer_spec.to_dict(spec)
    assert table["biomes"] == {"grassland": 1.0, "forest": 0.25}
    assert layer_spec.from_dict(table) == spec
    assert layer_spec.loads_layer(layer_spec.dumps_layer(spec)) == spec
    spaced = layer_spec.from_dict({"biomes": {"bare rock": 0.5, "rain forest": 1.0}})
    assert layer_spec.loads_layer(layer_spec.dumps_layer(spaced)) == spaced
    rules = scatter.layer_from_spec(spec, sea_level_m=0.0).rules
    assert rules.biomes == spec.biomes and rules.flow == (5000.0, 1e12) and rules.deposits is None
    plain = scatter.layer_from_spec(layer_spec.LayerSpec(), sea_level_m=0.0).rules
    assert plain.biomes == () and plain.deposits is None and plain.flow is None
    with pytest.raises(ParameterError, match=r"scatter\.deposits\[1\]"):
        layer_spec.from_dict({"deposits": [0.0, 1e9]})
    with pytest.raises(RecipeError, match=r"did you mean 'biome' -> 'biomes'"):
        recipe.loads('[terrain]\n[[scatter]]\nbiome = ["forest"]\n')


def test_map_rules_are_deterministic():
    maps = _halves()
    layers = [_layer(biomes={"forest": 0.4, "desert": 0.8})]
    a = scatter.scatter_layers(_flat(), size=SIZE, layers=layers, seed=9, maps=maps)
    b = scatter.scatter_layers(_flat(), size=SIZE, layers=layers, seed=9, maps=maps)
    assert _digest(a) == _digest(b)


def test_detail_layers_count_instances_from_the_layers_rules():
    """A layer with unity_detail is also a Unity detail layer: its counts follow its rules (here a biome)."""
    grass = layer_spec.from_dict({"name": "Grass", "prop": "grass", "biomes": ["forest"], "unity_detail": 2.0})
    rocks = layer_spec.from_dict({"name": "Rocks", "radius": 5.0})
    maps = _halves()
    details = scatter.detail_layers(
        _flat(), size=SIZE, specs=[rocks, grass], sea_level_m=-1.0, resolution=32, seed=4, maps=maps
    )
    assert [name for name, _ in details] == ["Grass"]
    counts = details[0][1]
    assert counts.shape == (32, 32) and counts.dtype == np.uint16
    # cells of (128 / 32)^2 = 16 m^2: 32 instances where the rules allow fully, none outside the forest
    assert (counts[:, :15] == 32).all() and (counts[:, 17:] == 0).all()
    again = scatter.detail_layers(
        _flat(), size=SIZE, specs=[rocks, grass], sea_level_m=-1.0, resolution=32, seed=4, maps=maps
    )
    assert again[0][1].tobytes() == counts.tobytes()
    # the resolution by default: one detail cell an alphamap texel (65 vertices: 64), more when dense
    auto = scatter.detail_layers(_flat(), size=SIZE, specs=[rocks, grass], sea_level_m=-1.0, seed=4, maps=maps)
    assert auto[0][1].shape == (64, 64)
    assert scatter.detail_side(64, size=512.0, per_m2=2.0) == 64
    assert scatter.detail_side(64, size=512.0, per_m2=20.0) == 256  # 20 * 4 m^2 = 80 a cell
    with pytest.raises(RecipeError, match=r"scatter\[0\]\.unity_detail 100 per m\^2 .* at most 63\.8 per m\^2"):
        recipe.loads("[terrain]\nsize = 4096.0\n[[scatter]]\nradius = 5.0\nunity_detail = 100.0\n")
