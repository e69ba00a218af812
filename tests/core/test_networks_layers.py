"""Rivers and roads in the terrain's layers (core.terrain.terrain_layers_steps with [rivers] and
[roads]): the carved heights reach everything after them, the splat rules read the networks' maps,
``water`` and ``clearing`` are filled, and the scatter keeps off the clearing."""

import numpy as np
import pytest

from core import recipe, scatter, terrain
from core.errors import ParameterError
from core.steps import drive

NETWORKS = """
[world]
seed = 5
[terrain]
resolution = 129
size = 512.0
height = 60.0
scale = 300.0
octaves = 5
sea_level = 0.05
[rivers]
enabled = true
threshold = 4000.0
width_scale = 20.0
bank_width = 12.0
[roads]
enabled = true
points = [[-200.0, -180.0], [190.0, -150.0], [0.0, 200.0]]
road_class = "road"
[[splat]]
name = "Grass"
[[splat]]
name = "Water"
river = 1.0
[[splat]]
name = "Reeds"
bank = 1.0
[[splat]]
name = "Road"
road = 1.0
"""


def _layers(r, *, networks=True, progress=None):
    h = terrain.terrain_heights(r.terrain, seed=r.world.seed)
    steps = terrain.terrain_layers_steps(
        h,
        terrain_spec=r.terrain,
        splats=r.splat if networks else r.splat[:1],
        seed=r.world.seed,
        rivers_spec=r.rivers if networks else None,
        roads_spec=r.roads if networks else None,
    )
    return drive(steps, progress)


@pytest.fixture(scope="module")
def built():
    r = recipe.loads(NETWORKS)
    seen = []
    layers = _layers(r, progress=lambda d, t, label: seen.append((d, t, label)))
    return r, layers, seen


def test_the_networks_are_built_and_their_carving_is_the_terrains_heights(built):
    r, layers, _ = built
    assert layers.rivers is not None and layers.roads is not None
    assert layers.rivers.network.segment_count > 0 and len(layers.roads.network.edges) >= 2
    top = r.terrain.height
    want = np.clip(layers.roads.maps.heights / top, 0.0, 1.0).astype(np.float32)
    assert np.array_equal(layers.heights.values, want)
    plain = _layers(r, networks=False)
    assert plain.rivers is None and plain.water is None and plain.clearing is None
    # carving lowered river beds and cut roads: the heights differ, by more than rounding
    assert np.abs(layers.heights.values - plain.heights.values).max() * top > 0.5


def test_water_and_clearing_are_plain_bool_maps_covering_rivers_roads_and_sea(built):
    r, layers, _ = built
    shape = layers.heights.values.shape
    for name in ("water", "clearing"):
        arr = getattr(layers, name)
        assert arr.dtype == np.bool_ and arr.shape == shape, name
    assert not (layers.rivers.maps.water & ~layers.water).any()
    assert not (layers.roads.maps.clearing & ~layers.clearing).any()
    assert not (layers.rivers.maps.exclusion & ~layers.clearing).any()
    assert not (layers.water & ~layers.clearing).any()
    assert layers.scatter_maps["clearing"] is layers.clearing


def test_the_splat_rules_follow_the_rivers_banks_and_roads(built):
    _r, layers, _ = built
    w = layers.weights
    river, bank, road = layers.rivers.maps.river, layers.rivers.maps.bank, layers.roads.maps.road
    # each network's layer covers its own ground and stays off ground far from it
    for k, cover in ((1, river), (2, bank), (3, road)):
        assert (cover > 0.5).sum() > 20, k
        assert w[k][cover > 0.5].mean() > 0.5 and w[k][cover == 0.0].max() == 0.0, k


def test_progress_counts_the_rivers_and_roads_and_rises_to_its_total(built):
    _r, _layers_, seen = built
    labels = [label for _, _, label in seen]
    assert labels.index("rivers") < labels.index("roads") < labels.index("splats")
    done = [d for d, _, _ in seen]
    assert done == sorted(done) and done[-1] == seen[-1][1]
    # the roads stage steps route by route (progress, and Esc between routes), not in one block
    roads = [d for d, _, label in seen if label == "roads"]
    assert len(roads) >= 3 and len(set(roads)) >= 3, roads


def test_no_prop_stands_on_a_road_or_in_a_river(built):
    r, layers, _ = built
    h = layers.metres
    layer = scatter.Layer("rocks", radius=3.0, rules=scatter.ScatterRules(slope_range=(0.0, 90.0), above_sea=False))
    (placed,) = scatter.scatter_layers(h, size=r.terrain.size, layers=[layer], seed=3, maps=layers.scatter_maps)
    (free,) = scatter.scatter_layers(h, size=r.terrain.size, layers=[layer], seed=3)
    cell, half = r.terrain.cell_size, r.terrain.size / 2
    clearing = layers.clearing

    def on_cleared(positions):
        c = (positions[:, 0] + half) / cell
        rr = (positions[:, 1] + half) / cell
        c0, r0 = np.floor(c).astype(int), np.floor(rr).astype(int)
        c1, r1 = np.minimum(c0 + 1, clearing.shape[1] - 1), np.minimum(r0 + 1, clearing.shape[0] - 1)
        return clearing[r0, c0] | clearing[r0, c1] | clearing[r1, c0] | clearing[r1, c1]

    assert len(placed.positions) > 100
    assert on_cleared(free.positions).sum() > 10  # without the clearing, props do stand there
    assert not on_cleared(placed.positions).any()


def test_a_clearing_that_is_no_bool_map_is_refused(built):
    r, layers, _ = built
    layer = scatter.Layer("rocks", radius=3.0)
    with pytest.raises(ParameterError, match=r"maps\['clearing'\] must be a bool array"):
        scatter.scatter_layers(
            layers.metres,
            size=r.terrain.size,
            layers=[layer],
            maps={"clearing": layers.clearing.astype(np.float32)},
        )


def test_same_recipe_same_bytes(built):
    r, layers, _ = built
    again = _layers(r)
    assert again.heights.values.tobytes() == layers.heights.values.tobytes()
    assert again.clearing.tobytes() == layers.clearing.tobytes()
    assert [s.tobytes() for s in again.splats] == [s.tobytes() for s in layers.splats]


def test_a_road_point_in_the_sea_is_refused_in_one_line():
    text = NETWORKS.replace("sea_level = 0.05", "sea_level = 0.95")
    r = recipe.loads(text)
    with pytest.raises(ParameterError, match=r"roads\.points\[\d\] .* lies in the sea") as err:
        _layers(r)
    assert "\n" not in str(err.value)


def test_repainting_the_splats_for_trails_keeps_the_networks_rules(built):
    """The ecosystem repaints the splat maps with its trails (core.terrain.repaint_splats): the river,
    bank and road rules still read the networks' maps, so no wear gives the same weights and images."""
    r, layers, _ = built
    again = terrain.repaint_splats(
        layers,
        terrain_spec=r.terrain,
        biomes_spec=None,
        splats=r.splat,
        seed=r.world.seed,
        trail=np.zeros(layers.heights.values.shape, np.float32),
    )
    assert np.array_equal(again.weights, layers.weights)
    assert all(np.array_equal(a, b) for a, b in zip(again.splats, layers.splats, strict=True))


# The demo's sea: 0.12 of 160 m.  The flat sea floor is float32(0.12) of the height; its float64
# metres (what the rivers and roads are planned on) lie a hair above the float32-rounded level, so a
# level taken as that float32 product lost the whole sea: the rivers ran on along the coast and
# straight across the sea floor to the map's edge, carving channels into it.
ROUNDED_SEA = """
[world]
seed = 20261202
[terrain]
resolution = 65
size = 256.0
height = 160.0
scale = 120.0
octaves = 4
falloff = "radial"
sea_level = 0.12
[rivers]
enabled = true
threshold = 2000.0
"""


def test_rivers_end_at_a_sea_whose_level_rounds_down_in_float32():
    r = recipe.loads(ROUNDED_SEA)
    h = terrain.terrain_heights(r.terrain, seed=r.world.seed)
    sea = h.metres <= np.float32(r.terrain.sea_level) * np.float32(h.height)
    assert sea.mean() > 0.2  # a flat sea round the island
    assert np.float64(np.float32(r.terrain.sea_level)) * h.height > float(
        np.float32(r.terrain.sea_level) * np.float32(h.height)
    )  # the rounding this case is about
    layers = terrain.terrain_layers(h, terrain_spec=r.terrain, seed=r.world.seed, rivers_spec=r.rivers)
    net = layers.rivers.network
    assert net.segment_count > 0
    wet = sea.reshape(-1)[net.cells]
    wet[net.starts[1:] - 1] = False  # a segment's last point may be its mouth's sea cell
    assert not wet.any()  # no channel runs over the sea
    mouths = [m for m in net.mouth if m]
    assert "sea" in mouths and "edge" not in mouths
