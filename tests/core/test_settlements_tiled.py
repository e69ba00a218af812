"""Settlements in a tiled world (core.world): the sites, pads, houses and the roads joining them are
planned once over the whole world; each tile takes the plan's ground where it levelled a pad or cut a
road, so a pad crossing a seam is level on both sides and the tiles' borders agree; every site
belongs to one tile, whose ``<name>_<x>_<z>_settlements.json`` lists it in the world's Unity frame;
the world JSON lists the files; same recipe, same bytes.  With erosion (and the networks planned on
the stitched eroded heights) the tiles agree too."""

import json
import math

import numpy as np
import pytest

from core import recipe as core_recipe
from core import settlements
from core import world as core_world
from core.errors import RecipeError

from ._settlement_cases import TILED
from ._world_cases import digests


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    recipe = core_recipe.loads(TILED)
    grid = core_world.world_grid(recipe)
    plan = core_world.world_settlements(recipe, grid, core_world.recipe_digest(recipe))
    load = core_world.window_loader(recipe, grid)  # the biomes read the flow: the tiles have windows
    layers = {t: core_world.tile_layers(recipe, grid, *t, load=load) for t in grid.tiles()}
    out = tmp_path_factory.mktemp("shire")
    run = core_world.run_world(recipe, str(out), name="Shire")
    return recipe, grid, plan, layers, out, run


def _cell(plan, xy):
    s = plan.settlements
    return (round((xy[1] - s.origin[1]) / s.cell_size), round((xy[0] - s.origin[0]) / s.cell_size))


def test_the_plan_has_sites_joined_by_roads_across_the_seams(world):
    recipe, grid, plan, _layers, _out, _run = world
    s = plan.settlements
    n = grid.resolution - 1
    assert len(s.sites) == recipe.settlements.count and s.warnings() == []
    assert plan.settled[:, n].any() and plan.settled[n, :].any()  # the pads and roads reach over both seams
    # a pad crosses a seam: its level cells stand in two tiles
    crossing = [site for site in s.sites if abs(_cell(plan, site.centre)[1] - n) * s.cell_size < site.radius - 4.0]
    assert crossing


def test_every_tile_takes_the_plans_ground_where_it_settled_and_its_own_elsewhere(world):
    recipe, grid, plan, layers, _out, _run = world
    top = recipe.terrain.height
    want = (plan.settlements.heights / top).astype(np.float32)
    n = grid.resolution
    unsettled = TILED.replace("[settlements]\nenabled = true", "[settlements]\nenabled = false")
    bare = core_recipe.loads(unsettled.replace("[roads]\nenabled = true", "[roads]\nenabled = false"))
    for (x, z), tile in layers.items():
        r0, c0 = grid.origin(x, z)
        box = (slice(r0, r0 + n), slice(c0, c0 + n))
        m = plan.settled[box]
        assert np.array_equal(tile.heights.values[m], want[box][m]), (x, z)
        own = core_world.tile_layers(bare, grid, x, z, load=core_world.window_loader(bare, grid)).heights.values
        assert np.array_equal(tile.heights.values[~m], own[~m]), (x, z)
        assert np.array_equal(tile.heights.margin[1:-1, 1:-1], tile.heights.values)
        assert np.array_equal(tile.roads.maps.road, plan.settlements.roads.maps.road[box])
        assert np.array_equal(tile.clearing & plan.clearing[box], plan.clearing[box])  # pads and roads kept clear


def test_pads_are_level_on_both_sides_of_a_seam_and_the_borders_agree(world):
    recipe, grid, plan, layers, _out, _run = world
    h = {t: tile.heights.values for t, tile in layers.items()}
    # tile (0, 0) is the world's +X / +Y corner: (1, 0) lies at smaller X, (0, 1) at smaller Y
    for a, b in (((0, 0), (1, 0)), ((0, 1), (1, 1))):
        assert np.array_equal(h[a][:, 0], h[b][:, -1])
    for a, b in (((0, 0), (0, 1)), ((1, 0), (1, 1))):
        assert np.array_equal(h[a][0, :], h[b][-1, :])
    s = plan.settlements
    n = grid.resolution - 1
    top = float(recipe.terrain.height)  # metres to [0, 1] in float64, then float32: as the tiles
    level = 0
    for site in s.sites:
        r, c = _cell(plan, site.centre)
        k = int(site.radius / s.cell_size) - 1
        for row in range(r - k, r + k + 1):
            if math.hypot(row - r, c - n) > k:
                continue
            # world column n is the seam between tiles (0, z) and (1, z): both hold the pad's level
            for x, z in grid.tiles():
                r0, c0 = grid.origin(x, z)
                if r0 <= row <= r0 + n and c0 <= n <= c0 + n:
                    assert h[x, z][row - r0, n - c0] == np.float32(site.z / top), (site.name, x, z)
                    level += 1
    assert level > 10


def test_every_site_is_owned_by_one_tile_and_the_tile_files_list_them(world):
    _recipe, grid, plan, layers, out, run = world
    names = [site.name for site in plan.settlements.sites]
    listed = []
    doc = json.loads((out / "Shire_world.json").read_text())
    records = {f["name"]: f for t in doc["tiles"] for f in t["files"]}
    for x, z in grid.tiles():
        file_name = f"Shire_{x}_{z}_settlements.json"
        data = json.loads((out / file_name).read_text())
        assert data["format"] == "worldseed.settlements" and data["name"] == f"Shire_{x}_{z}"
        assert records[file_name]["bytes"] == (out / file_name).stat().st_size
        own = [site.name for site in layers[x, z].settlements.sites]
        assert [site["name"] for site in data["sites"]] == own
        for site in data["sites"]:  # the centre stands in the tile: Unity's frame, tile (x, z) at (x S, z S)
            px, _py, pz = site["position"]
            assert x * grid.size <= px <= (x + 1) * grid.size and z * grid.size <= pz <= (z + 1) * grid.size
        listed += own
    assert sorted(listed) == sorted(names) and len(set(listed)) == len(listed)
    assert len(set(plan.owners)) > 1  # the sites stand in several tiles
    whole = json.loads(settlements.settlements_json_bytes(plan.settlements, name="Shire"))
    per_tile = {
        s["name"]: s
        for t in grid.tiles()
        for s in json.loads((out / f"Shire_{t[0]}_{t[1]}_settlements.json").read_text())["sites"]
    }
    assert all(per_tile[s["name"]] == s for s in whole["sites"])  # the world's positions and ids


def test_sites_keep_their_spacing_across_the_seams_and_stand_in_the_tiles_biomes(world):
    recipe, grid, plan, layers, _out, _run = world
    sites = plan.settlements.sites
    for i in range(len(sites)):
        for j in range(i + 1, len(sites)):
            d = math.dist(sites[i].centre, sites[j].centre)
            assert d >= recipe.settlements.spacing and d >= sites[i].radius + sites[j].radius
    n = grid.resolution - 1
    for site, (x, z) in zip(sites, plan.owners):
        r, c = _cell(plan, site.centre)
        r0, c0 = grid.origin(x, z)
        assert 0 <= r - r0 <= n and 0 <= c - c0 <= n
        tile = layers[x, z]
        assert settlements.allowed_biomes(site.kind, tile.biome_names)[tile.biomes[r - r0, c - c0]]


def test_the_settlements_reach_each_other_by_the_road_graph(world):
    _recipe, grid, plan, _layers, out, _run = world
    s = plan.settlements
    net = s.roads.network
    assert all(p is not None for p in s.road_points)
    parent = list(range(len(net.nodes)))

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for e in net.edges:
        parent[root(e.a)] = root(e.b)
    node_of = {p: i for i, (kind, p) in enumerate(zip(net.node_kind, net.node_point)) if kind == "point"}
    assert len({root(node_of[p]) for p in s.road_points}) == 1
    # the tiles' roads files hold the settlements' roads (the world's ids)
    edges = set()
    for x, z in grid.tiles():
        data = json.loads((out / f"Shire_{x}_{z}_roads.json").read_text())
        edges |= {e["id"] for e in data["edges"]}
    assert len(edges) == len(net.edges)


def test_same_recipe_same_bytes_and_another_seed_other_sites(world, tmp_path):
    recipe, _grid, plan, _layers, out, _run = world
    other = core_recipe.loads(TILED.replace("seed = 2", "seed = 5"))
    core_world.run_world(other, str(tmp_path / "other"), name="Shire")  # another plan, kept in its place
    core_world.run_world(recipe, str(tmp_path / "again"), name="Shire")  # planned again from the recipe
    a, b, c = digests(out), digests(tmp_path / "again"), digests(tmp_path / "other")
    assert a == b
    assert {k: v for k, v in a.items() if "settlements" in k} != {k: v for k, v in c.items() if "settlements" in k}
    assert plan.settlements.sites  # the plan of this module's world


def test_an_eroded_tiled_world_with_settlements_rivers_and_roads_agrees_at_the_seams(tmp_path):
    """Erosion on: the networks are planned on the stitched eroded heights (the world task), the
    settlements on every tile's eroded layers; the tiles' RAW borders agree and every site has one owner."""
    recipe = core_recipe.loads(TILED + "[terrain.erosion]\nenabled = true\ndroplets_per_km2 = 20000.0\n")
    grid = core_world.world_grid(recipe)
    run = core_world.run_world(recipe, str(tmp_path), name="Shire")
    assert run.complete
    cache = core_world.cache_folder(str(tmp_path), "Shire")
    plan = core_world.world_settlements(recipe, grid, core_world.recipe_digest(recipe), cache)
    assert len(plan.settlements.sites) == recipe.settlements.count
    n = grid.resolution
    raw = {}
    for x, z in grid.tiles():
        data = (tmp_path / f"Shire_{x}_{z}.raw").read_bytes()
        raw[x, z] = np.frombuffer(data, "<u2").reshape(n, n)[::-1, ::-1]  # Unity's turn undone
    for a, b in (((0, 0), (1, 0)), ((0, 1), (1, 1))):
        assert np.array_equal(raw[a][:, 0], raw[b][:, -1])
    for a, b in (((0, 0), (0, 1)), ((1, 0), (1, 1))):
        assert np.array_equal(raw[a][0, :], raw[b][-1, :])
    owned = []
    for x, z in grid.tiles():
        owned += [s["name"] for s in json.loads((tmp_path / f"Shire_{x}_{z}_settlements.json").read_text())["sites"]]
    assert sorted(owned) == sorted(site.name for site in plan.settlements.sites)
    flat = core_recipe.loads(TILED)
    other = core_world.world_settlements(flat, grid, core_world.recipe_digest(flat))
    assert not np.array_equal(other.settlements.heights, plan.settlements.heights)  # erosion moved the ground


def test_without_rivers_and_roads_the_tiles_still_agree(tmp_path):
    text = TILED.replace("[rivers]\nenabled = true", "[rivers]\nenabled = false").replace(
        "[roads]\nenabled = true", "[roads]\nenabled = false"
    )
    recipe = core_recipe.loads(text)
    grid = core_world.world_grid(recipe)
    plan = core_world.world_settlements(recipe, grid, core_world.recipe_digest(recipe))
    assert plan.settlements.sites and plan.settlements.roads is None  # the streams of the flow draw them
    load = core_world.window_loader(recipe, grid)
    h = {t: core_world.tile_layers(recipe, grid, *t, load=load).heights.values for t in grid.tiles()}
    assert np.array_equal(h[0, 0][:, 0], h[1, 0][:, -1]) and np.array_equal(h[0, 0][0, :], h[0, 1][-1, :])
    assert np.array_equal(h[0, 1][:, 0], h[1, 1][:, -1]) and np.array_equal(h[1, 0][0, :], h[1, 1][-1, :])
    core_world.run_world(recipe, str(tmp_path), name="Shire")
    listed = [
        s["name"]
        for x, z in grid.tiles()
        for s in json.loads((tmp_path / f"Shire_{x}_{z}_settlements.json").read_text())["sites"]
    ]
    assert sorted(listed) == sorted(s.name for s in plan.settlements.sites)
    assert not list(tmp_path.glob("*_roads.json"))


def test_a_world_too_big_to_plan_whole_is_refused_before_any_tile():
    text = TILED.replace("tiles = [2, 2]", "tiles = [5, 4]").replace("resolution = 129", "resolution = 1025")
    with pytest.raises(RecipeError, match=r"settlements\.enabled in a tiled world plans the whole world at once: "):
        core_recipe.loads(text)
    assert core_recipe.loads(text.replace("tiles = [5, 4]", "tiles = [4, 4]")).settlements.enabled
    assert core_world.MAX_NETWORK_CELLS == 4097 * 4097  # the limit the recipe check states
