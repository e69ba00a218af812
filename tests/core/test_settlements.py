"""Settlements (issue 25): sites, pads, streets, lots, houses, walls, roads between them, files.

The terrains are built once (``_settlement_cases``); each test measures the result in the plane
with its own geometry (separating axes, distances), not the engine's."""

import json
import math
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import exact, recipe, settlements, unity
from worldseed.core.errors import ParameterError, RecipeError
from worldseed.core.settlements import SettlementsSpec, allowed_biomes, build_settlements, radius_of

from ._settlement_cases import (
    HILLS,
    cases,
    cell_centres,
    hills,
    inside,
    penetration,
    point_segment,
    polygon_distance,
)

CASES = ["hills", "rivers"]


def _case(name):
    return cases()[name]


def _sites(name):
    return _case(name).built.sites


@pytest.mark.parametrize("name", CASES)
def test_the_cases_hold_settlements_with_houses(name):
    sites = _sites(name)
    assert len(sites) >= 3
    assert all(len(s.buildings) >= 2 for s in sites)
    assert {s.kind for s in _sites("hills")} == {"hamlet", "village", "walled_town"}


@pytest.mark.parametrize("name", CASES)
def test_every_lot_touches_its_street_and_overlaps_none(name):
    for s in _sites(name):
        for lot, k in zip(s.lots, s.lot_streets):
            # touches its street: a corner of the lot on the street's rectangle
            assert polygon_distance(lot, s.streets[k]) < 1e-6, (s.name, k)
            assert (
                min(point_segment(v, s.streets[k][i], s.streets[k][(i + 1) % 4]) for v in lot for i in range(4)) < 1e-6
            )
            for street in s.streets:
                assert penetration(lot, street) < 1e-6
        for i in range(len(s.lots)):
            for j in range(i + 1, len(s.lots)):
                assert penetration(s.lots[i], s.lots[j]) < 1e-6


@pytest.mark.parametrize("name", CASES)
def test_no_building_overlaps_a_street_another_building_a_river_or_a_road(name):
    case = _case(name)
    built = case.built
    blocked = np.zeros(built.heights.shape, bool)
    if built.roads is not None:
        blocked |= built.roads.maps.clearing
    if case.rivers is not None:
        blocked |= case.rivers.maps.water | case.rivers.maps.lake
    points = cell_centres(blocked, built)
    assert len(points) > 100  # there are roads (and rivers) to miss
    feet = [b.footprint for s in built.sites for b in s.buildings]
    for s in built.sites:
        for b in s.buildings:
            for street in s.streets:
                assert penetration(b.footprint, street) < 1e-6
            assert not inside(points, b.footprint).any(), s.name
    for i in range(len(feet)):
        for j in range(i + 1, len(feet)):
            assert penetration(feet[i], feet[j]) < 1e-6


@pytest.mark.parametrize("name", CASES)
def test_every_door_faces_a_street_within_reach(name):
    reach = 3.5  # metres from the door to its street's side
    for s in _sites(name):
        for b in s.buildings:
            door = np.array(b.door[:2])
            look = np.array(b.facing)
            assert abs(np.hypot(*look) - 1.0) < 1e-9
            # the door is on the house's outline and looks out of it
            assert min(point_segment(door, b.footprint[i], b.footprint[(i + 1) % 4]) for i in range(4)) < 1e-6
            assert not inside((door + 0.1 * look)[None], b.footprint)[0]
            ahead = door + look * np.arange(0.05, reach, 0.05)[:, None]
            assert any(inside(ahead, street).any() for street in s.streets), (s.name, b.lot)


@pytest.mark.parametrize("name", CASES)
def test_pads_are_level_and_the_terrain_meets_them_without_a_step(name):
    case = _case(name)
    built = case.built
    h = built.heights
    cell = built.cell_size
    tan = exact.tan(case.recipe.settlements.pad_slope * math.pi / 180.0)
    rows, cols = np.mgrid[0 : h.shape[0], 0 : h.shape[1]]
    x = built.origin[0] + cols * cell
    y = built.origin[1] + rows * cell
    for s in built.sites:
        d = np.hypot(x - s.centre[0], y - s.centre[1])
        pad = d <= s.radius - cell
        assert pad.sum() > 50
        assert np.all(h[pad] == s.z), s.name
        ring = (d > s.radius) & (d < s.radius + 6 * cell)
        assert np.all(np.abs(h[ring] - s.z) <= (d[ring] - s.radius) * tan + 1e-9), s.name
        # no step, and no steeper than the slope or the ground's own: clipping the ground into the
        # cone keeps neighbours within max(their own difference, a cell of the slope) -- away from the
        # roads' cut and fill
        road = built.roads.maps.distance < 30.0 if built.roads is not None else np.zeros(h.shape, bool)
        for dr, dc in ((0, 1), (1, 0)):
            n0, n1 = h.shape[0] - dr, h.shape[1] - dc
            a, b = h[:n0, :n1], h[dr:, dc:]
            was = np.abs(case.before[:n0, :n1] - case.before[dr:, dc:])
            near = (d[:n0, :n1] < s.radius + 6 * cell) & (d[:n0, :n1] > s.radius - 3 * cell)
            near &= ~(road[:n0, :n1] | road[dr:, dc:])
            assert near.sum() > 50
            assert np.all(np.abs(a - b)[near] <= np.maximum(was[near], cell * tan) + 1e-9), s.name
        # the houses stand on their foundations: the ground under each corner between base and floor
        for b in s.buildings:
            assert b.base < b.floor
    # the pads moved ground (the case is hilly) and the far ground is the case's own
    far = np.ones(h.shape, bool)
    for s in built.sites:
        far &= np.hypot(x - s.centre[0], y - s.centre[1]) > s.radius + 60.0
        if s.entry is not None:  # the ramp the road comes in on
            ux, uy = np.subtract(s.entry, s.centre) / math.dist(s.entry, s.centre)
            along = (x - s.centre[0]) * ux + (y - s.centre[1]) * uy
            far &= ~((along > 0.0) & (np.abs((y - s.centre[1]) * ux - (x - s.centre[0]) * uy) < 30.0))
    if built.roads is not None:
        far &= ~built.roads.maps.clearing & (built.roads.maps.distance > 40.0)
    assert np.array_equal(h[far], case.before[far])
    assert not np.array_equal(h, case.before)


@pytest.mark.parametrize("name", CASES)
def test_sites_keep_their_spacing_and_stand_in_their_biomes(name):
    case = _case(name)
    spec = case.recipe.settlements
    sites = case.built.sites
    for i in range(len(sites)):
        for j in range(i + 1, len(sites)):
            d = math.dist(sites[i].centre, sites[j].centre)
            assert d >= spec.spacing
            assert d >= sites[i].radius + sites[j].radius
    if case.biomes is not None:
        x0, y0 = case.built.origin
        for s in sites:
            r = round((s.centre[1] - y0) / case.built.cell_size)
            c = round((s.centre[0] - x0) / case.built.cell_size)
            assert allowed_biomes(s.kind, case.biome_names)[case.biomes[r, c]], (
                s.name,
                case.biome_names[case.biomes[r, c]],
            )


def test_a_biome_refused_by_a_type_takes_no_site_of_it():
    h = np.zeros((90, 90))
    spec = SettlementsSpec(enabled=True, count=1, types="walled_town", spacing=50.0)
    ids = np.zeros(h.shape, np.uint8)
    names = ("taiga", "grassland")
    s = build_settlements(h, spec, cell_size=2.0, origin=(0.0, 0.0), seed=1, biomes=ids, biome_names=names)
    assert s.sites == ()
    ids[:, 45:] = 1
    s = build_settlements(h, spec, cell_size=2.0, origin=(0.0, 0.0), seed=1, biomes=ids, biome_names=names)
    assert len(s.sites) == 1 and s.sites[0].centre[0] >= 90.0


def test_steep_ground_and_flooded_ground_take_no_site():
    rows, cols = np.mgrid[0:80, 0:80]
    steep = cols * 2.0 * 0.5  # a 50 % slope everywhere
    spec = SettlementsSpec(enabled=True, count=2, types="hamlet", spacing=40.0, max_slope=10.0)
    assert build_settlements(steep, spec, cell_size=2.0, origin=(0.0, 0.0), seed=0).sites == ()
    gentle = cols * 2.0 * 0.05 + 0.5  # 5 %, but the low ground lies within 2 m of the sea
    s = build_settlements(gentle, spec, cell_size=2.0, origin=(0.0, 0.0), seed=0, sea_level=0.0)
    assert len(s.sites) == 2
    for site in s.sites:
        assert site.z >= spec.flood_height


@pytest.mark.parametrize("name", CASES)
def test_settlements_reach_each_other_by_the_road_graph(name):
    built = _case(name).built
    net = built.roads.network
    assert all(p is not None for p in built.road_points)
    parent = list(range(len(net.nodes)))

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for e in net.edges:
        parent[root(e.a)] = root(e.b)
    node_of = {p: i for i, (kind, p) in enumerate(zip(net.node_kind, net.node_point)) if kind == "point"}
    roots = {root(node_of[p]) for p in built.road_points}
    assert len(roots) == 1
    # each road reaches its settlement at the main street's end, just outside the pad
    for s in built.sites:
        assert s.radius < math.dist(s.entry, s.centre) <= s.radius + 3 * built.cell_size


def test_walled_towns_have_a_wall_with_gates_where_the_road_enters():
    town = [s for s in _sites("hills") if s.kind == "walled_town"][0]
    assert len(town.wall) > 20 and len(town.gates) >= 1
    # a gate faces the road's entry, and no wall segment stands in a gate
    assert min(math.dist(g, town.entry) for g in town.gates) <= (town.radius - (town.radius - 1.2)) + 6.0
    for g in town.gates:
        for a, b in town.wall:
            assert point_segment(g, a, b) > settlements.GATE_WIDTH / 2 - 1.0
    # houses stay inside the wall
    for b in town.buildings:
        assert np.hypot(*(b.footprint - town.centre).T).max() < town.radius - settlements.WALL_THICKNESS


def test_house_meshes_face_outward_and_index_compactly():
    town = [s for s in _sites("hills") if s.kind == "walled_town"][0]
    roofs = set()
    for b in town.buildings[:10] + tuple(s.buildings[0] for s in _sites("hills")):
        m = settlements.house_mesh(b)
        v = m.vertices.astype(np.float64)
        tri = v[m.indices.astype(np.int64)]
        normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        centre = np.array([*b.footprint.mean(axis=0), (b.base + b.floor + b.height) / 2.0])
        out = np.einsum("ij,ij->i", normal, tri.mean(axis=1) - centre)
        assert (out > -1e-6).all()  # a convex house: every face looks away from its middle
        assert m.indices.dtype == np.uint16 and set(np.unique(m.materials)) <= {0, 1, 2}
        assert abs(v[:, 2].max() - (b.floor + b.height + b.roof_height)) < 1e-3
        roofs.add(b.roof)
    assert roofs == {"gable", "hip"}
    parts = settlements.site_meshes(town)
    assert set(parts) == {"Pad", "Streets", "Buildings", "Wall"}
    assert all(p.n_triangles > 0 for p in parts.values())


def test_the_file_holds_the_issues_fields_in_unitys_frame():
    built = hills().built
    raw = settlements.settlements_json_bytes(built, name="Hills")
    doc = json.loads(raw)
    assert doc["format"] == "worldseed.settlements" and doc["version"] == 1
    assert len(doc["sites"]) == len(built.sites)
    for site, s in zip(doc["sites"], built.sites):
        assert site["type"] == s.kind
        want = unity.unity_position([s.centre[0], s.centre[1], s.z]).tolist()
        assert np.allclose(site["position"], want, atol=1e-4)
        assert set(site["pad"]) == {"outline", "height"} and len(site["pad"]["outline"]) == len(s.outline)
        assert len(site["lots"]) == len(s.lots) and all(len(lot["outline"]) == 4 for lot in site["lots"])
        for b, got in zip(s.buildings, site["buildings"]):
            assert {"footprint", "height", "roof", "door"} <= set(got)
            assert np.allclose(got["door"], unity.unity_position(list(b.door)).tolist(), atol=1e-4)
            assert got["roof"] in ("gable", "hip") and got["height"] > 0
        assert (len(site["gates"]) > 0) == (s.kind == "walled_town")


def test_same_seed_same_bytes_and_another_seed_other_settlements():
    r = recipe.loads(HILLS)
    from worldseed.core import terrain

    h = terrain.terrain_heights(r.terrain, seed=7).metres.astype(np.float64)

    def run(seed):
        s = build_settlements(h, r.settlements, cell_size=r.terrain.cell_size, origin=(-256.0, -256.0), seed=seed)
        meshes = b"".join(
            m.vertices.tobytes() + m.indices.tobytes() for x in s.sites for m in settlements.site_meshes(x).values()
        )
        return settlements.settlements_json_bytes(s, name="T") + s.heights.tobytes() + meshes

    a, b, c = run(5), run(5), run(6)
    assert a == b
    assert a != c


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[settlements]\ncount = 1000\n", r"settlements\.count must be an integer in \[0, 64\], got 1000"),
        ("[settlements]\ntypes = 'city'\n", r"settlements\.types"),
        ("[settlements]\nspacing = -3\n", r"settlements\.spacing"),
        ("[settlements]\ncuont = 3\n", r"did you mean 'cuont' -> 'count'"),
        ("[settlements]\nenabled = true\ncount = 0\n", r"no site"),
        ("[terrain]\nenabled = false\n[settlements]\nenabled = true\n", r"settlements\.enabled needs \[terrain\]"),
    ],
)
def test_bad_recipes_are_refused_in_one_line(text, match):
    with pytest.raises(RecipeError, match=match) as err:
        recipe.loads(text)
    assert "\n" not in str(err.value)


def test_bad_arguments_are_refused_in_one_line():
    spec = SettlementsSpec(enabled=True, count=1)
    for kwargs, match in (
        ({"heights": np.zeros(5)}, "heights"),
        ({"cell_size": 0.0}, "cell_size"),
        ({"seed": -1}, "seed"),
        ({"spec": "village"}, "spec must be a SettlementsSpec"),
    ):
        args = {
            "heights": np.zeros((40, 40)),
            "spec": spec,
            "cell_size": 2.0,
            "origin": (0.0, 0.0),
            "seed": 0,
            **kwargs,
        }
        with pytest.raises(ParameterError, match=match) as err:
            build_settlements(args.pop("heights"), args.pop("spec"), **args)
        assert "\n" not in str(err.value)


def test_recipes_read_and_write_the_section():
    r = recipe.loads("[settlements]\nenabled = true\ntypes = 'walled_town'\ndensity = 2.5\n")
    assert recipe.loads(recipe.dumps(r)) == r
    assert "[settlements]" not in recipe.dumps(recipe.loads("[world]\nseed = 1\n"))  # left out at its defaults
    assert settlements.site_types(r.settlements, 3) == ("walled_town",) * 3


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    kind=st.sampled_from(settlements.TYPES),
    scale=st.floats(0.6, 1.6),
    width=st.floats(2.0, 8.0),
    ponds=st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99), st.integers(1, 6)), max_size=6),
)
def test_layouts_keep_their_rules_on_any_ground(seed, kind, scale, width, ponds):
    """Random ponds (water) near the site, any type, scale and street width: lots inside the pad,
    touching a street, apart from each other and the water; houses inside their lots."""
    rows, cols = np.mgrid[0:100, 0:100]
    h = 0.02 * cols + 0.01 * rows + 5.0
    water = np.zeros(h.shape, bool)
    for r, c, k in ponds:
        water |= (rows - r) ** 2 + (cols - c) ** 2 <= k * k
    spec = SettlementsSpec(enabled=True, count=1, types=kind, scale=scale, street_width=width, flood_height=0.0)
    s = build_settlements(h, spec, cell_size=2.0, origin=(0.0, 0.0), seed=seed, water=water)
    wet = cell_centres(water, s)
    for site in s.sites:
        assert np.all(np.hypot(*(site.lots.reshape(-1, 2) - site.centre).T) <= site.radius + 1e-9)
        for lot, k in zip(site.lots, site.lot_streets):
            assert polygon_distance(lot, site.streets[k]) < 1e-6
            assert not inside(wet, lot).any()
        for b in site.buildings:
            lot = site.lots[b.lot]
            assert inside(b.footprint, np.vstack([lot])).all() or np.all([polygon_distance(b.footprint, lot) == 0.0])
            assert penetration(b.footprint, lot) > 2.0  # well inside
    assert radius_of(kind, scale) == pytest.approx(settlements.TYPE_TABLE[kind].radius * scale)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    radius=st.floats(6.0, 30.0),
    slope=st.floats(5.0, 60.0),
    ramp=st.one_of(st.none(), st.tuples(st.floats(0.0, 6.2831), st.floats(0.02, 0.3), st.floats(1.0, 6.0))),
    rough=st.floats(0.0, 4.0),
)
def test_a_pad_is_level_and_its_blend_bounded_on_any_ground(seed, radius, slope, ramp, rough):
    """Any ground, any pad and ramp: level inside, within the cone (no step) outside, and neighbours never
    further apart than the ground's own difference or a cell of the steeper of the two slopes."""
    from worldseed.core.settlements import settle_heights

    rng = np.random.default_rng(seed)
    h = rng.random((60, 60)) * rough * 4.0 + np.linspace(0.0, 20.0 * rough, 60)[None, :]
    cell, z = 2.0, float(h[30, 30])
    tan = exact.tan(slope * math.pi / 180.0)
    ramp_t = None
    grade = tan
    if ramp is not None:
        s, c = exact.sincos(ramp[0])
        grade = ramp[1]
        ramp_t = (float(c), float(s), ramp[1], ramp[2], radius + 20.0)
    out = settle_heights(h, [(30.0, 30.0, radius, z, ramp_t)], tan_slope=tan, cell_size=cell)
    rows, cols = np.mgrid[0:60, 0:60]
    d = np.hypot(rows - 30.0, cols - 30.0) * cell
    assert np.all(out[d <= radius] == z)
    assert np.all(np.abs(out - z) <= np.maximum(d - radius, 0.0) * tan + 1e-9)
    # one cell's step: the cone's slope, or the ramp's (its grade along, the cone's slope across and past its end)
    steep = cell * tan if ramp is None else cell * (math.sqrt(2.0) * tan + grade)
    for a, b, was in (
        (out[:, 1:], out[:, :-1], np.abs(h[:, 1:] - h[:, :-1])),
        (out[1:], out[:-1], np.abs(h[1:] - h[:-1])),
    ):
        assert np.all(np.abs(a - b) <= np.maximum(was, steep) + 1e-9)


def test_a_level_is_entered_at_the_edge_of_the_best_site():
    r = recipe.loads(HILLS + '\n[[level]]\nname = "Crypt"\ngenerator = "bsp"\n')
    r = recipe.replace(r, settlements_level="Crypt")
    from worldseed.core import terrain

    h = terrain.terrain_heights(r.terrain, seed=7).metres.astype(np.float64)
    s = build_settlements(h, r.settlements, cell_size=r.terrain.cell_size, origin=(-256.0, -256.0), seed=7)
    best, *others = s.sites
    assert best.level == "Crypt" and all(o.entrance is None for o in others)
    x, y, z = best.entrance
    assert z == best.z and best.radius - 6.0 < math.dist((x, y), best.centre) < best.radius
    assert any(inside(np.array([[x, y]]), street)[0] for street in best.streets)  # on a street, free of houses
    doc = json.loads(settlements.settlements_json_bytes(s, name="T"))
    assert doc["sites"][0]["level"]["name"] == "Crypt" and doc["sites"][1]["level"] is None
    with pytest.raises(RecipeError, match=r"settlements\.level 'Cript' names no \[\[level\]\].*did you mean") as err:
        recipe.replace(r, settlements_level="Cript")
    assert "\n" not in str(err.value)


def test_the_file_follows_a_terrain_standing_elsewhere():
    """``blender_offset`` (the terrain object's location) moves every position and height of the file,
    and nothing else (sizes, directions, names)."""
    built = hills().built
    home = json.loads(settlements.settlements_json_bytes(built, name="Hills"))
    away = json.loads(settlements.settlements_json_bytes(built, name="Hills", blender_offset=(30.0, -12.5, 4.0)))
    shift = np.array([-30.0, 4.0, 12.5])  # Unity's frame of the move

    def walk(a, h, key=""):
        if isinstance(a, dict):
            assert a.keys() == h.keys()
            for k in a:
                walk(a[k], h[k], k)
        elif isinstance(a, list) and a and isinstance(a[0], (int, float)) and len(a) == 3 and key != "facing":
            assert np.allclose(a, np.array(h) + shift, atol=1e-4), key
        elif isinstance(a, list):
            assert len(a) == len(h)
            for x, y in zip(a, h):
                walk(x, y, key)
        elif key not in ("height", "base"):  # heights: below
            assert a == h, key

    walk(away, home)
    for a, h in zip(away["sites"], home["sites"]):
        assert a["pad"]["height"] == pytest.approx(h["pad"]["height"] + 4.0, abs=1e-4)
        for x, y in zip(a["buildings"], h["buildings"]):
            assert x["height"] == y["height"] and x["base"] == pytest.approx(y["base"] + 4.0, abs=1e-4)


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 12), cols=st.integers(1, 12), k=st.integers(0, 7), seed=st.integers(0, 2**31))
def test_the_window_maximum_is_the_brute_force_one(rows, cols, k, seed):
    a = np.random.default_rng(seed).integers(-50, 50, (rows, cols)).astype(np.float64)
    got = settlements.window_max(a, k, -np.inf)
    want = np.array(
        [[a[max(0, r - k) : r + k + 1, max(0, c - k) : c + k + 1].max() for c in range(cols)] for r in range(rows)]
    )
    assert np.array_equal(got, want)
    wet = a > 30
    assert np.array_equal(
        settlements.window_max(wet, k, True)[k : -k or None, k : -k or None],
        (
            np.array(
                [
                    [wet[max(0, r - k) : r + k + 1, max(0, c - k) : c + k + 1].any() for c in range(cols)]
                    for r in range(rows)
                ]
            )
        )[k : -k or None, k : -k or None],
    )


def test_fewer_sites_than_asked_are_said():
    h = np.zeros((90, 90))
    spec = SettlementsSpec(enabled=True, count=5, types="village", spacing=100.0)
    s = build_settlements(h, spec, cell_size=2.0, origin=(0.0, 0.0), seed=1)
    assert s.asked == 5 and 1 <= len(s.sites) < 5  # 180 m square: two villages 100 m apart at most
    assert len(s.warnings()) == 1 and s.warnings()[0].startswith(f"{len(s.sites)} of the 5 settlements")
    assert build_settlements(h, replace_count(spec, 1), cell_size=2.0, origin=(0.0, 0.0), seed=1).warnings() == []


ONE_SITE_WITH_A_ROAD_LAYER = """
[world]
seed = 3
[terrain]
resolution = 65
size = 256.0
height = 60.0
scale = 300.0
octaves = 3
[roads]
enabled = true
road_class = "trail"
[settlements]
enabled = true
count = 3
types = "village"
spacing = 180.0
[[splat]]
name = "Grass"
[[splat]]
name = "Road"
road = 1.0
"""


def test_one_site_and_so_no_road_leaves_a_road_layer_empty_and_says_why():
    """The settlements lay the roads between the sites; when one site alone finds a place there is no
    road, and the texture layer with a ``road`` rule paints nothing (it stopped the build with 'road is
    needed', before the settlements' own warning was heard)."""
    from worldseed.core import terrain as core_terrain

    r = recipe.loads(ONE_SITE_WITH_A_ROAD_LAYER)
    h = core_terrain.terrain_heights(r.terrain, seed=r.world.seed)
    layers = core_terrain.terrain_layers(
        h,
        terrain_spec=r.terrain,
        splats=r.splat,
        seed=r.world.seed,
        roads_spec=r.roads,
        settlements_spec=r.settlements,
    )
    assert len(layers.settlements.sites) == 1 and layers.settlements.roads is None
    assert layers.settlements.warnings()[0].startswith("1 of the 3 settlements")
    assert layers.weights is not None and not layers.weights[1].any() and layers.weights[0].all()
    # and again when the ecosystem's trails repaint the layers
    trail = np.ones(layers.heights.values.shape, np.float32)
    again = core_terrain.repaint_splats(
        layers, terrain_spec=r.terrain, biomes_spec=None, splats=r.splat, seed=r.world.seed, trail=trail
    )
    assert not again.weights[1].any()


def replace_count(spec, count):
    import dataclasses

    return dataclasses.replace(spec, count=count)


PRESETS = sorted((pathlib.Path(__file__).resolve().parents[2] / "presets" / "settlements").glob("*.toml"))


@pytest.mark.parametrize("path", PRESETS, ids=[p.stem for p in PRESETS])
def test_every_settlement_preset_builds_its_sites_joined_by_roads(path):
    from worldseed.core import terrain

    r = recipe.load(path)
    h0 = terrain.terrain_heights(r.terrain, seed=r.world.seed)
    layers = terrain.terrain_layers(
        h0,
        terrain_spec=r.terrain,
        biomes_spec=r.biomes,
        seed=r.world.seed,
        settlements_spec=r.settlements,
        roads_spec=r.roads,
    )
    built = layers.settlements
    assert len(built.sites) == built.asked >= 3 and built.warnings() == []
    assert all(p is not None for p in built.road_points) and len(built.roads.network.edges) >= len(built.sites) - 1
    plan = settlements.draw_settlements(np.zeros((256, 256, 3), np.uint8), built)
    flipped = settlements.draw_settlements(np.zeros((256, 256, 3), np.uint8), built, south_first=True)
    assert np.array_equal(plan[::-1], flipped)
    for part in ("pad", "street", "lot", "gable"):
        assert (plan == settlements.PLAN_COLOURS[part]).all(axis=2).any(), part


def test_the_pads_and_their_roads_leave_the_rivers_in_their_beds():
    """No site's blend cone holds a river's water or bed (such a site is passed over), and the blends,
    the ramps and the roads' cut and fill leave the water and its ring of cells (the banks the bed lies
    below) where the rivers carved them; only a road's own clearing (its fords) may change them."""
    case = _case("rivers")
    built, riv = case.built, case.rivers
    rows, cols = riv.network.rows_cols()
    water = riv.maps.water | riv.maps.lake
    water[rows.astype(int), cols.astype(int)] = True
    tan = exact.tan(case.recipe.settlements.pad_slope * math.pi / 180.0)
    wr, wc = np.nonzero(water)
    cell = built.cell_size
    for s in built.sites:
        d = np.hypot(built.origin[0] + wc * cell - s.centre[0], built.origin[1] + wr * cell - s.centre[1])
        assert np.all(np.abs(case.before[wr, wc] - s.z) <= np.maximum(d - s.radius, 0.0) * tan + 1e-9), s.name
    ring = water.copy()
    ring[1:] |= water[:-1]
    ring[:-1] |= water[1:]
    ring[:, 1:] |= ring[:, :-1].copy()
    ring[:, :-1] |= ring[:, 1:].copy()
    free = ring & ~built.roads.maps.clearing
    assert free.sum() > 500
    np.testing.assert_array_equal(built.heights[free], case.before[free])
