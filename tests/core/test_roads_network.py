"""Roads: grades on the edited ground, level across the width, connected networks, detours and
switchbacks, bridges, clearings, files and bad input.

The river valley (presets/worlds/river_valley.toml) is built once (``_network_cases.valley``); the
rest runs on small synthetic terrains.
"""

import json

import numpy as np
import pytest

from worldseed.core import exact, recipe, roads
from worldseed.core.errors import ParameterError, RecipeError

from ._network_cases import across_width, length, switchbacks, valley, worst_grade


def _graph_connected(network):
    n = len(network.nodes)
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for e in network.edges:
        parent[find(e.a)] = find(e.b)
    return len({find(a) for a in range(n)}) == 1


def test_the_valley_network_joins_every_point_with_switchbacks_and_bridges():
    v = valley()
    net = v.roads.network
    points = len(v.recipe.roads.points)
    assert points >= 4
    assert sorted(net.node_point[net.node_point >= 0].tolist()) == list(range(points))
    assert _graph_connected(net)
    assert sum(switchbacks(e) for e in net.edges) >= 1  # the grade limit makes them on the climbs
    assert sum(len(e.spans()) for e in net.edges) >= 1  # the roads cross rivers
    # every edge starts and ends at its nodes
    for e in net.edges:
        assert (e.rows[0], e.cols[0]) == tuple(net.nodes[e.a]) and (e.rows[-1], e.cols[-1]) == tuple(net.nodes[e.b])


def test_the_grade_along_every_road_stays_under_its_class_maximum():
    """Sampled every metre on the edited heightmap (bilinear), away from bridges (the deck is the
    road there; 2 cells around every bridge sample, where deck and ground meet)."""
    v = valley()
    worst, metres = worst_grade(v.roads.network, v.final, v.cell)
    assert metres > 4000
    assert worst <= 1.0


def test_the_ground_is_level_with_the_road_across_its_width():
    """Within 0.1 m of the road's surface at every point across its width (every 0.5 m) whose
    nearest centre line point is the station itself (not another road, nor another leg of a
    hairpin), away from bridges."""
    v = valley()
    worst, points = across_width(v.roads.network, v.final, v.cell)
    assert points > 20_000
    assert worst <= 0.1


def test_embankments_stay_under_the_angle_of_repose():
    v = valley()
    net = v.roads.network
    before, after = v.rivers.maps.heights, v.final
    changed = after != before
    assert changed.sum() > 1000
    # between two neighbouring cells the road's cut and fill made no slope steeper than the angle
    # of repose, unless the ground was that steep there before
    limit = float(exact.tan(net.classes["road"].max_grade * 0 + 33.0 * np.pi / 180.0))
    for axis in (0, 1):
        d_after = np.abs(np.diff(after, axis=axis)) / v.cell
        d_before = np.abs(np.diff(before, axis=axis)) / v.cell
        touched = np.diff(changed, axis=axis) | (changed[1:, :] if axis == 0 else changed[:, 1:])
        steeper = touched & (d_after > limit + 1e-9) & (d_after > d_before + 1e-9)
        # only at a bridge's ends (the ground under a span is left alone) or the edge of the reach
        assert steeper.mean() < 0.002


def test_roads_and_rivers_are_cleared_of_scatter():
    v = valley()
    allowed = ~(v.roads.maps.clearing | v.rivers.maps.exclusion)
    assert not (allowed & (v.roads.maps.road > 0)).any()
    assert not (allowed & (v.rivers.maps.river > 0)).any()
    assert not (allowed & v.rivers.maps.lake).any()
    assert v.roads.maps.clearing.sum() > (v.roads.maps.road > 0).sum()  # the margin beyond the width


def test_a_road_on_flat_ground_goes_nearly_straight():
    h = np.zeros((120, 160))
    for target in ((100.0, -30.0), (80.0, 100.0), (-140.0, 90.0)):
        spec = roads.RoadsSpec(enabled=True, points=((0.0, 0.0), target), curvature=0.0)
        out = roads.build_roads(h, spec, cell_size=2.0, origin=(-159.0, -119.0))
        (edge,) = out.network.edges
        straight = np.hypot(*target)
        assert 1.0 <= length(edge, 2.0) / straight <= 1.03  # the detour index
        assert (out.maps.heights == 0.0).all()  # nothing to cut or fill on the flat


def test_a_road_up_a_steep_slope_makes_switchbacks():
    # a 20 % slope rising along +y; a road (10 %) from its foot to its top must zigzag (its knight's
    # moves across the slope climb at 20 % / sqrt(5), under 10 %)
    y = np.arange(100, dtype=np.float64)[:, None] * np.ones((1, 60))
    h = 0.2 * 2.0 * y
    spec = roads.RoadsSpec(enabled=True, points=((0.0, -90.0), (0.0, 90.0)), road_class="road")
    out = roads.build_roads(h, spec, cell_size=2.0, origin=(-59.0, -99.0))
    (edge,) = out.network.edges
    assert switchbacks(edge) >= 3
    assert length(edge, 2.0) / 180.0 > 2.0  # the climb of 36 m at under 10 % takes 360 m at least
    z = edge.z
    run = np.hypot(np.diff(edge.rows), np.diff(edge.cols)) * 2.0
    assert (np.abs(np.diff(z)) <= 0.1 * run + 1e-9).all()


def test_a_road_bridges_a_river_and_leaves_the_ground_under_the_span():
    h = np.zeros((60, 80))
    water = np.zeros(h.shape, bool)
    water[:, 38:43] = True  # a river 10 m wide across the map
    h[water] = -2.0
    net = roads.plan_roads(h, [(30, 5), (30, 75)], cell_size=2.0, water=water, water_width=np.where(water, 10.0, 0.0))
    (edge,) = net.edges
    spans = edge.spans()
    assert len(spans) == 1
    a, b = spans[0]
    assert (edge.cols[a] < 38) and (edge.cols[b] > 42)
    maps = roads.carve_roads(h, net)
    assert (maps.heights[water] == -2.0).all() and (maps.road[water] == 0).all()
    # too wide to bridge: no way across
    with pytest.raises(ParameterError, match=r"roads.points\[1\] cannot be reached from roads.points\[0\]"):
        roads.plan_roads(
            h, [(30, 5), (30, 75)], cell_size=2.0, water=water, water_width=np.where(water, 10.0, 0.0), max_bridge=8.0
        )


def test_the_roads_file_has_the_issue_fields():
    v = valley()
    data = roads.roads_json_bytes(v.roads.network, name="RiverValley", origin=v.origin)
    doc = json.loads(data)
    assert (doc["format"], doc["version"]) == ("worldseed.roads", 1)
    assert set(doc["classes"]) == {"highway", "road", "trail"}
    assert all(set(c) == {"width", "max_grade"} for c in doc["classes"].values())
    ids = {n["id"] for n in doc["nodes"]}
    assert {n["kind"] for n in doc["nodes"]} == {"point", "junction"}
    for n in doc["nodes"]:
        assert len(n["position"]) == 3
    for e in doc["edges"]:
        assert e["a"] in ids and e["b"] in ids and e["class"] in doc["classes"]
        pts = e["points"]
        assert len(pts) >= 2 and all(len(p) == 3 for p in pts)
        for start, end in e["bridges"]:
            assert 0 <= start <= end < len(pts)
        node_a = next(n for n in doc["nodes"] if n["id"] == e["a"])
        assert pts[0][0] == node_a["position"][0] and pts[0][2] == node_a["position"][2]
    assert data == roads.roads_json_bytes(v.roads.network, name="RiverValley", origin=v.origin)
    mesh = roads.road_mesh(v.roads.network, origin=v.origin)
    assert mesh.uvs[:, 1].max() > 10.0  # v runs along the road
    assert set(np.unique(mesh.materials).tolist()) <= {0, 1, 2}
    decks = roads.bridge_mesh(v.roads.network, origin=v.origin)
    assert decks is not None and decks.n_triangles > 0


def test_points_outside_the_terrain_or_in_the_sea_are_named():
    h = np.zeros((50, 50))
    h[:, :10] = -5.0  # the sea on the west
    spec = roads.RoadsSpec(enabled=True, points=((0.0, 0.0), (500.0, 3.0)))
    with pytest.raises(
        ParameterError, match=r"^roads.points\[1\] \(500, 3\) lies outside the terrain \(x in \[-49, 49\]"
    ):
        roads.build_roads(h, spec, cell_size=2.0, origin=(-49.0, -49.0))
    spec = roads.RoadsSpec(enabled=True, points=((0.0, 0.0), (-45.0, 3.0)))
    with pytest.raises(ParameterError, match=r"^roads.points\[1\] \(-45, 3\) lies in the sea \(ground -5.00 m"):
        roads.build_roads(h, spec, cell_size=2.0, origin=(-49.0, -49.0), sea_level=0.0)
    text = "[terrain]\nsize = 512.0\n[roads]\nenabled = true\npoints = [[0.0, 0.0], [300.0, 0.0]]\n"
    with pytest.raises(
        RecipeError, match=r"roads.points\[1\] \(300, 0\) lies outside the terrain \(x in \[-256, 256\]"
    ):
        recipe.loads(text)


def test_a_point_the_grade_limit_cannot_reach_is_named():
    h = np.zeros((40, 60))
    h[:, 30:] = 50.0  # a cliff across the map
    spec = roads.RoadsSpec(enabled=True, points=((-40.0, 0.0), (40.0, 0.0)))
    with pytest.raises(
        ParameterError,
        match=r"roads.points\[1\] cannot be reached from roads.points\[0\] under the road class's max grade 0.1",
    ):
        roads.build_roads(h, spec, cell_size=2.0, origin=(-59.0, -39.0))


def test_a_million_points_are_refused_before_any_work():
    import time

    t0 = time.process_time()
    with pytest.raises(ParameterError, match="^roads.points has 1,000,000 points; at most 64 are allowed$"):
        roads.from_dict({"enabled": True, "points": [[0.0, 0.0]] * 1_000_000})
    assert time.process_time() - t0 < 1.0
    with pytest.raises(ParameterError, match=r"roads.points\[2\] must be a pair"):
        roads.from_dict({"points": [[0, 0], [1, 1], [1, 2, 3]]})
    with pytest.raises(ParameterError, match="roads.road_class must be one of 'highway', 'road', 'trail'"):
        roads.from_dict({"road_class": "motorway"})


def test_the_spec_round_trips_and_directions_may_be_a_number():
    spec = roads.from_dict({"enabled": True, "points": [[1, 2], [3, 4]], "directions": 32})
    assert spec.directions == "32" and roads.plan_kwargs(spec)["directions"] == 32
    assert roads.from_dict(roads.to_dict(spec)) == spec
    r = recipe.load(recipe.__file__.replace("core/recipe.py", "presets/worlds/river_valley.toml"))
    assert recipe.loads(recipe.dumps(r)) == r


def test_river_bank_and_road_splat_rules_paint_the_networks():
    from worldseed.core import splat

    v = valley()
    layers = [
        splat.SplatSpec(name="Grass"),
        splat.SplatSpec(name="Reeds", bank=1.0),
        splat.SplatSpec(name="Gravel", river=1.0),
        splat.SplatSpec(name="Road", road=1.0),
    ]
    m, rm = v.rivers.maps, v.roads.maps
    w = splat.splat_weights(layers, heights=v.final, cell_size=v.cell, river=m.river, bank=m.bank, road=rm.road)
    assert np.allclose(w.sum(axis=0), 1.0)
    assert (w[3][rm.road == 1.0] == 1.0).all() and (w[3][rm.road == 0.0] == 0.0).all()
    on_water = (m.river == 1.0) & (rm.road == 0.0)
    assert (w[2][on_water] == 1.0).all()
    assert (w[1][(m.bank > 0) & (m.river == 0) & (rm.road == 0)] > 0).all()
    with pytest.raises(ParameterError, match=r"road is needed: layers\[3\] \('Road'\) has a road rule"):
        splat.splat_weights(layers, heights=v.final, cell_size=v.cell, river=m.river, bank=m.bank)
