"""Golden digests of every family core writes: one small case each, their pinned sha256, one table.

Every case is a function of nothing that returns the bytes it pins (arrays' ``tobytes()``, file
contents); :func:`digest` hashes them.  The golden tests of each family (``test_golden_digests``)
compare the digest with :data:`GOLDEN` in this process; ``test_cpu_determinism`` computes them all
again in subprocesses under other CPU settings (numpy without AVX-512, numpy at its baseline,
OpenBLAS with other kernels) and requires the same bytes.  Same recipe + seed = same bytes on any
CPU, as the README promises.

The sizes are small (the whole table takes about 5 s), but every case runs the code a real run
runs, down to the written bytes.  When a change moves bytes on purpose, re-pin: run this module
(``python tests/core/_digest_cases.py``), which prints the table, and say in the commit which
cases moved and why.
"""

import hashlib
import json
import os
import sys
import tempfile

import numpy as np

if __name__ == "__main__":  # run as a script: make the extension root importable as in the tests
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import conftest  # noqa: F401  (the bare ``worldseed`` package)

from worldseed.core import (
    biomes,
    ecosystem,
    erosion,
    exact,
    levels,
    mesh,
    noise,
    palette,
    placement,
    preview,
    recipe,
    rivers,
    roads,
    scatter,
    settlements,
    terrain,
    trees,
    unity_package,
    wfc,
)
from worldseed.core import world as core_world
from worldseed.core.scatter import props
from worldseed.core.scatter import spec as layer_spec
from worldseed.core.steps import drive

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = os.path.join(ROOT, "presets", "wfc", "samples")
TILESETS = os.path.join(ROOT, "presets", "wfc")


def _files(files):
    """The bytes of a ``{name: bytes}`` set, names included, in name order."""
    return b"".join(name.encode() + b"\0" + files[name] for name in sorted(files))


def _mesh(m):
    return b"".join(np.ascontiguousarray(a).tobytes() for a in (m.vertices, m.indices, m.uvs, m.normals))


# -- noise (the grids and points test_noise pinned first) ---------------------------------------------


def noise_grid(basis, seed):
    h = noise.fbm((64, 80), scale=16.0, octaves=5, seed=seed, basis=basis, offset=(-40.0, 1000.0), warp=0.25)
    r = noise.fbm((32, 32), scale=8.0, octaves=3, seed=seed, basis=basis, kind="ridged")
    return h.tobytes() + r.tobytes()


def noise_point_coords(far):
    """20,000 points in grid units; ``far``: beyond ``_perlin.MAGIC_REACH`` (the fmod index path)."""
    rng = np.random.default_rng(2026)
    x, y = rng.uniform(-700.0, 900.0, (2, 20_000))
    return (x * 1e10 + 3e14, y * 1e10 - 2e14) if far else (x, y)


def noise_points(basis, far):
    """The arbitrary-point path (domain warp, scatter)."""
    x, y = noise_point_coords(far)
    scale = 1.0 if far else 41.0
    a = noise.fbm_at(x, y, scale=scale, octaves=6, seed=77, basis=basis, kind="fbm", warp=0.0 if far else 0.5)
    b = noise.fbm_at(x, y, scale=scale, octaves=4, seed=78, basis=basis, kind="ridged")
    return a.tobytes() + b.tobytes()


def noise_shapes():
    """Billow, and persistence and lacunarity whose powers are not exact."""
    a = noise.fbm((40, 40), scale=9.0, octaves=6, seed=3, persistence=0.45, lacunarity=2.2, kind="billow")
    b = noise.fbm((40, 40), scale=9.0, octaves=4, seed=4, basis="simplex", persistence=0.6, lacunarity=1.7)
    return a.tobytes() + b.tobytes()


# -- terrain, erosion, biomes, splats, the Unity package, previews --------------------------------------

SHAPED = (
    "[world]\nseed = 4\n[terrain]\nresolution = 65\nsize = 128.0\nheight = 40.0\nsea_level = 0.15\n"
    'redistribution = 1.7\nterraces = 4\nfalloff = "radial"\n'
)
LAYERED = (
    "[world]\nseed = 2\n[terrain]\nresolution = 65\nsize = 200.0\nheight = 50.0\nsea_level = 0.1\n"
    "[terrain.erosion]\nenabled = true\ndroplets_per_km2 = 50000\n[biomes]\nenabled = true\n"
    "[[splat]]\nname = 'Grass'\nheight_range = [5.0, 1000.0]\npatchiness = 0.4\n"
    "[[splat]]\nname = 'Rock'\nslope_range = [25.0, 90.0]\n"
    "[[splat]]\nname = 'Mud'\nflow = 1.0\n"
    "[[splat]]\nname = 'Sand'\nheight_range = [0.0, 8.0]\ndeposits = 1.0\n"
)


def terrain_shaped():
    """Noise, radial falloff (hypot), redistribution (power), terraces."""
    r = recipe.loads(SHAPED)
    return terrain.terrain_heights(r.terrain, seed=r.world.seed).metres.tobytes()


def terrain_package():
    """Erosion, flow, biomes (moisture: exp), four splats (slope: atan; flow: log) through the Unity
    package: heightmap RAW, splat and biome and flow PNGs, terrain JSON."""
    r = recipe.loads(LAYERED)
    h = terrain.terrain_heights(r.terrain, seed=2)
    layers = drive(
        terrain.terrain_layers_steps(h, terrain_spec=r.terrain, biomes_spec=r.biomes, splats=r.splat, seed=2, flow=True)
    )
    return _files(unity_package.package_files("W", layers, size=200.0, splats=r.splat))


def erosion_direct():
    """Hydraulic droplets (per-step rates: pow), thermal (tan), flow accumulation, on a small hill."""
    y, x = np.mgrid[0:48, 0:48].astype(np.float64)
    h = 20.0 * exact.exp(-((x - 24.0) ** 2 + (y - 20.0) ** 2) / 150.0) + 0.05 * x
    hyd = erosion.hydraulic(h, cell_size=1.5, droplets=3000, seed=9, inertia=0.3, evaporation=0.02)
    th = erosion.thermal(hyd.heights.copy(), cell_size=1.5, talus=33.0, iterations=20)
    flow = erosion.flow_accumulation(th, cell_size=1.5)
    return hyd.heights.tobytes() + th.tobytes() + flow.tobytes()


def previews():
    """The headless pictures core draws: shaded relief (sun: sin/cos; slope; gamma), the biome map,
    colour ramps in linear light."""
    r = recipe.loads(LAYERED)
    h = terrain.terrain_heights(r.terrain, seed=2)
    relief = preview.shaded_relief(h.values, cell_size=h.cell_size, height=h.height, sea_level=0.1)
    table = biomes.load_table("whittaker")
    metres = h.values * np.float32(h.height)
    wet = biomes.moisture(metres, cell_size=h.cell_size, seed=1, sea_level=5.0, sea_weight=0.5)
    ids = biomes.classify(metres, wet, table=table, sea_level=5.0, height=h.height)
    ramp = palette.srgb_to_linear(np.linspace(0.0, 1.0, 257))
    return preview.png_bytes(relief) + biomes.biome_png_bytes(ids, table) + ramp.tobytes()


def terrain_mesh():
    h = terrain.terrain_heights(recipe.loads(SHAPED).terrain, seed=4)
    return b"".join(_mesh(m) for m in mesh.grid_lods(h.values, cell_size=h.cell_size, height_scale=h.height))


# -- scatter and placements ---------------------------------------------------------------------------


def scatter_plain():
    """The scatter test_scatter_biomes pinned before the map rules existed (variable radius, slopes)."""
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
    out = []
    for p in scatter.scatter_layers(m, size=t.size, layers=layers, seed=11):
        out += [np.ascontiguousarray(a, np.float64).tobytes() for a in (p.positions, p.rotations, p.scales, p.radii)]
    return b"".join(out)


def scatter_placed():
    """Tilted rocks (align: arccos, sin, cos) as placement records and Unity tree instances (yaw:
    arctan2), and the rock and grass props' meshes (sin, cos)."""
    t = terrain.TerrainSpec(resolution=65, size=96.0, height=30.0, sea_level=0.0)
    m = terrain.terrain_heights(t, seed=8).metres.astype(np.float64)
    spec = layer_spec.from_dict({"name": "Rocks", "prop": "rock", "radius": 3.0, "align": 0.7, "max_tilt": 35.0})
    (p,) = scatter.scatter_layers(m, size=t.size, layers=[scatter.layer_from_spec(spec, sea_level_m=0.0)], seed=2)
    n = len(p.positions)
    entry = placement.scatter_entry(
        p.positions,
        p.rotations,
        p.scales,
        np.zeros(n, np.int64),
        ["Rock_P01"],
        layers=np.zeros(n, np.int64),
        layer_names=["Rocks"],
        tree_layers=[0],
        object_name="R_{}_{:05d}".format,
        scatter="R_Scatter",
        terrain="R",
        blender_centre=(0.0, 0.0, 0.0),
        size=t.size,
        height=t.height,
    )
    meshes = _mesh(props.rock_mesh(seed=5)) + _mesh(props.grass_mesh(seed=6))
    return json.dumps(entry, sort_keys=True).encode() + meshes


# -- trees ----------------------------------------------------------------------------------------------


def tree(name):
    """A species grown from its preset: L-system rules (sin, powers), turtle (sin, cos, tropism),
    tubes (arctan2 simplifies rings), leaves, LODs and billboard."""
    t = trees.grow_tree(trees.species_spec(name), seed=3)
    parts = [_mesh(m) for m in t.lods] + ([_mesh(t.billboard)] if t.billboard is not None else [])
    return b"".join(parts)


# -- levels and WFC -------------------------------------------------------------------------------------


def level_grid(generator, kwargs, markers):
    """The grids (and markers) the level tests pinned first."""
    level = getattr(levels, generator)(**kwargs)
    return level.grid.tobytes() + (repr(level.markers).encode() if markers else b"")


def level_files():
    """A BSP level through every file it writes: mesh, Tiled map and sheets, JSON record, picture."""
    level = levels.bsp_dungeon(40, 32, seed=3)
    files = dict(levels.tiled_files(level, name="L", cell_size=2.0))
    files["L.json"] = levels.level_json_bytes(level, name="L", cell_size=2.0)
    files["L.png"] = preview.png_bytes(levels.level_image(level))
    return _mesh(levels.level_mesh(level, cell_size=2.0, ceiling=True)) + _files(files)


def wfc_runs():
    """Overlapping (entropy: log), simple tiled and 3-D tiled WFC."""
    sample = wfc.read_sample(os.path.join(SAMPLES, "rooms.txt"))
    over = wfc.overlapping(sample, 24, 20, n=3, seed=4, periodic=False)
    flat = wfc.tiled(os.path.join(TILESETS, "roads.toml"), 16, 12, seed=5)
    cube = wfc.tiled3d(os.path.join(TILESETS, "blocks3d.toml"), 8, 6, 4, seed=7)
    return over.output.tobytes() + flat.tiles.tobytes() + cube.tiles.tobytes()


# -- tiled worlds ---------------------------------------------------------------------------------------

WORLD = (
    '[world]\nname = "Isle"\nseed = 5\ntiles = [2, 2]\n'
    '[terrain]\nresolution = 33\nsize = 128.0\nheight = 40.0\nnormalize = "fixed"\n'
    "[terrain.erosion]\nenabled = true\ndroplets_per_km2 = 20000.0\n[biomes]\nenabled = true\n"
    '[[splat]]\nname = "Grass"\ncolor = [0.1, 0.3, 0.1]\n'
    '[[splat]]\nname = "Rock"\ncolor = [0.4, 0.4, 0.4]\nslope_range = [20.0, 90.0]\n'
    '[[scatter]]\nname = "Rocks"\nprop = "rock"\nradius = 8.0\nalign = 0.5\n'
)


def _world_run(text):
    """The digest of every file (not the dot folders) a tiled world of recipe ``text`` writes."""
    with tempfile.TemporaryDirectory() as out:
        core_world.run_world(recipe.loads(text), out)
        files = {}
        for name in sorted(os.listdir(out)):
            path = os.path.join(out, name)
            if os.path.isfile(path) and not name.startswith("."):
                with open(path, "rb") as fh:
                    files[name] = fh.read()
    return _files(files)


def world_files():
    """Every file of a 2 x 2 tiled world with erosion, biomes, splats and a tilted rock scatter."""
    return _world_run(WORLD)


WORLD_NETWORKS = (
    '[world]\nname = "Vale"\nseed = 11\ntiles = [2, 2]\n'
    '[terrain]\nresolution = 33\nsize = 128.0\nheight = 30.0\nscale = 160.0\nnormalize = "fixed"\n'
    "[terrain.erosion]\nenabled = true\ndroplets_per_km2 = 20000.0\n"
    "[rivers]\nenabled = true\nthreshold = 300.0\nlake_min_area = 50.0\n"
    '[roads]\nenabled = true\nroad_class = "trail"\n'
    "points = [[-236.0, -236.0], [-216.0, -20.0], [-56.0, -68.0], [-36.0, -216.0]]\n"
)


def world_network_files():
    """Every file of a 2 x 2 tiled world with erosion, rivers and roads: the windows eroded, the world's
    eroded heights stitched, the networks planned on them once and carved by every tile."""
    return _world_run(WORLD_NETWORKS)


WORLD_ANIMALS = (
    '[world]\nname = "Isle"\nseed = 5\ntiles = [2, 2]\n'
    '[terrain]\nresolution = 33\nsize = 128.0\nheight = 40.0\nnormalize = "fixed"\nsea_level = 0.1\n'
    '[[splat]]\nname = "Grass"\ncolor = [0.1, 0.3, 0.1]\n'
    '[[splat]]\nname = "Trail"\ncolor = [0.5, 0.4, 0.3]\ntrail = 1.0\n'
    '[[scatter]]\nname = "Rocks"\nprop = "rock"\nradius = 6.0\n'
    "[ecosystem]\nyears = 6\nseed = 3\nsteps = 40\nburn_in = 5\ntrampled = 0.3\n"
    '[[ecosystem.species]]\nname = "Pine"\ntree = "conifer"\ninitial_density = 60.0\n'
    '[[ecosystem.animals]]\nname = "Deer"\neats = "plants"\ncount = 30\n'
    '[[ecosystem.animals]]\nname = "Wolf"\neats = ["Deer"]\ncount = 3\n'
)


def world_animals_files():
    """Every file of a 2 x 2 tiled world whose animals roam it whole (their trails in the tiles' splat
    maps, clearings and trails PNGs; the world's spawns, history and chart), plants per tile."""
    return _world_run(WORLD_ANIMALS)


# -- rivers and roads ----------------------------------------------------------------------------------

NETWORKS = (
    "[world]\nseed = 6\n[terrain]\nresolution = 97\nsize = 192.0\nheight = 24.0\nscale = 120.0\n"
    "persistence = 0.55\nsea_level = 0.05\n[terrain.erosion]\nenabled = true\ndroplets_per_km2 = 40000.0\n"
    "[rivers]\nenabled = true\nthreshold = 300.0\nlake_min_area = 40.0\n"
    '[roads]\nenabled = true\nroad_class = "trail"\n'
    "points = [[-70.0, -60.0], [70.0, -50.0], [40.0, 70.0], [-60.0, 60.0]]\n"
)


def networks():
    """Rivers (flow, Strahler order, hydraulic geometry: exact.pow; beds, banks: exact.tan) and roads
    (costs, search, profiles, cut and fill) on an eroded terrain: the carved heights, the maps, both
    JSON files and the water, road and bridge meshes."""
    r = recipe.loads(NETWORKS)
    h0 = terrain.terrain_heights(r.terrain, seed=r.world.seed)
    h = drive(terrain.terrain_layers_steps(h0, terrain_spec=r.terrain, seed=r.world.seed)).metres
    cell = r.terrain.cell_size
    sea = float(np.float32(r.terrain.sea_level) * np.float32(r.terrain.height))
    riv = rivers.build_rivers(h, r.rivers, cell_size=cell, sea_level=sea)
    origin = (-0.5 * r.terrain.size, -0.5 * r.terrain.size)
    rd = roads.build_roads(h, r.roads, cell_size=cell, origin=origin, sea_level=sea, rivers=riv)
    m, rm = riv.maps, rd.maps
    parts = [m.heights, m.river, m.width, m.bank, m.water_distance, rm.heights, rm.road, rm.clearing, rm.distance]
    files = {
        "N_rivers.json": rivers.rivers_json_bytes(riv.network, name="N", origin=origin),
        "N_roads.json": roads.roads_json_bytes(rd.network, name="N", origin=origin),
    }
    meshes = [rivers.water_mesh(riv.network, origin=origin), roads.road_mesh(rd.network, origin=origin)]
    decks = roads.bridge_mesh(rd.network, origin=origin)
    return (
        b"".join(np.ascontiguousarray(a).tobytes() for a in parts)
        + _files(files)
        + b"".join(_mesh(x) for x in meshes + ([decks] if decks is not None else []))
    )


def networks_layers():
    """The networks in the terrain's layers (``terrain_layers_steps`` with [rivers] and [roads]): the
    carved heights, the clearing and water maps, the splat images of the river, bank and road rules,
    and both files as a build writes them (``core.terrain.network_files``)."""
    text = NETWORKS + '[[splat]]\nname = "Grass"\n[[splat]]\nname = "Water"\nriver = 1.0\n'
    text += '[[splat]]\nname = "Reeds"\nbank = 1.0\n[[splat]]\nname = "Road"\nroad = 1.0\n'
    r = recipe.loads(text)
    h0 = terrain.terrain_heights(r.terrain, seed=r.world.seed)
    layers = drive(
        terrain.terrain_layers_steps(
            h0, terrain_spec=r.terrain, splats=r.splat, seed=r.world.seed, rivers_spec=r.rivers, roads_spec=r.roads
        )
    )
    parts = [layers.heights.values, layers.clearing, layers.water, *layers.splats]
    return b"".join(np.ascontiguousarray(a).tobytes() for a in parts) + _files(terrain.network_files(layers, "N"))


SETTLEMENTS = """
[world]
seed = 11
[terrain]
resolution = 129
size = 384.0
height = 40.0
[roads]
enabled = true
[settlements]
enabled = true
count = 2
spacing = 120.0
"""


def settlement_files():
    """Settlements (interest map, pads, roads between them, streets, lots, houses, a wall: exact.tan,
    exact.sincos, exact.atan2) through the terrain's layers: the edited heights, the JSON file and
    every site's meshes."""
    r = recipe.loads(SETTLEMENTS)
    h0 = terrain.terrain_heights(r.terrain, seed=r.world.seed)
    layers = terrain.terrain_layers(
        h0, terrain_spec=r.terrain, seed=r.world.seed, settlements_spec=r.settlements, roads_spec=r.roads
    )
    built = layers.settlements
    meshes = b"".join(_mesh(m) for s in built.sites for m in settlements.site_meshes(s).values())
    return layers.heights.values.tobytes() + settlements.settlements_json_bytes(built, name="S") + meshes


# -- ecosystem ---------------------------------------------------------------------------------------


def ecosystem_plants():
    """Two species on hills by the sea for 30 years, with windthrow: the plants CSV (ground heights on
    the triangles), the JSON history (mean sizes), the chart, the placements (turns: sin, cos)."""
    h = noise.fbm((66, 66), scale=48.0, octaves=4, seed=3).astype(np.float64) * 40.0
    hab = ecosystem.habitat(h, cell_size=2.0, sea_level=8.0)
    spec = ecosystem.from_dict(
        {
            "years": 30,
            "seed": 5,
            "disturbance": 20.0,
            "species": [
                {"name": "Birch", "tree": "birch", "initial_density": 40.0, "dispersal": 20.0, "max_radius": 3.0},
                {"name": "Beech", "tree": "broadleaf", "shade_tolerance": 1.0, "moisture": 0.7, "max_slope": 40.0},
            ],
        }
    )
    run = drive(ecosystem.plants_steps(spec, hab))
    entry = ecosystem.plant_placements(
        run, hab, trees=["birch", "broadleaf"], scatter="S", terrain="T", size=130.0, height=40.0
    )
    files = {
        "plants.csv": ecosystem.plants_csv_bytes(run, hab),
        "ecosystem.json": ecosystem.ecosystem_json_bytes(run),
        "population.png": ecosystem.population_png_bytes(run),
        "placements.json": json.dumps(entry, separators=(",", ":")).encode(),
    }
    return _files(files)


def ecosystem_animals():
    """Deer and wolves on hills by the sea for 150 steps, drinking, in home ranges, on trails: the
    JSON history, the chart, the trails PNG (16-bit), the spawns JSON (Poisson-disk spawn points)."""
    h = noise.fbm((66, 66), scale=48.0, octaves=4, seed=3).astype(np.float64) * 40.0
    hab = ecosystem.habitat(h, cell_size=2.0, sea_level=8.0)
    spec = ecosystem.from_dict(
        {
            "steps": 150,
            "seed": 4,
            "burn_in": 50,
            "trail_attraction": 10.0,
            "animals": [
                {"name": "Deer", "count": 60, "drink_every": 15, "home_range": 40.0, "mutation": 0.1},
                {"name": "Wolf", "eats": ["Deer"], "count": 6, "energy_gain": 20.0, "speed": 6.0, "vision": 30.0},
            ],
        }
    )
    run = drive(ecosystem.ecosystem_steps(spec, hab))
    return _files(ecosystem.ecosystem_files("Hills", run))


def pictures():
    """The pictures of the texture layers: a relief in the splat-blended colours (splat weights x layer
    colours, cell colours, sRGB table, bilinear sampling) and the overview of a tiled world, read back
    from its tiles' files."""
    r = recipe.loads(LAYERED)
    h = terrain.terrain_heights(r.terrain, seed=2)
    layers = drive(terrain.terrain_layers_steps(h, terrain_spec=r.terrain, splats=r.splat, seed=2, flow=True))
    weights = np.concatenate([image.transpose(2, 0, 1) for image in layers.splats])  # the splat PNGs' bytes
    colours = [(0.1, 0.3, 0.1), (0.4, 0.4, 0.4), (0.3, 0.2, 0.1), (0.8, 0.7, 0.5)]
    ground = preview.srgb_bytes(preview.splat_colours(weights, colours))
    palette_ground = preview.cell_colours(palette.terrain_colours(h.values, height_m=h.height, sea_level=0.1))
    relief = preview.shaded_relief(h.values, cell_size=h.cell_size, height=h.height, sea_level=0.1, colours=ground)
    world = recipe.loads(WORLD)
    with tempfile.TemporaryDirectory() as out:
        core_world.run_world(world, out)
        overview = core_world.overview_png(world, core_world.world_grid(world), out, "world", max_side=96)
    return preview.png_bytes(relief) + palette_ground.tobytes() + overview


# -- core.exact itself ---------------------------------------------------------------------------------


def exact_functions():
    rng = np.random.default_rng(12)
    x = np.concatenate([rng.uniform(-30, 30, 4000), exact.exp(rng.uniform(-700, 700, 1000))])
    u = rng.uniform(-1, 1, 2000)
    parts = [f(x) for f in (exact.exp, exact.sin, exact.cos, exact.atan, exact.degrees_atan)]
    parts += [exact.log(np.abs(x)), exact.log2(np.abs(x)), exact.asin(u), exact.acos(u), exact.tan(u)]
    parts += [exact.atan2(x[:2000], u), exact.pow(np.abs(x[:2000]), u * 3), exact.hypot(x[:2000], u)]
    return b"".join(np.asarray(p, np.float64).tobytes() for p in parts)


#: name -> the function computing the bytes it pins
CASES = {
    **{f"noise_grid[{b}-{s}]": (lambda b=b, s=s: noise_grid(b, s)) for b in ("perlin", "simplex") for s in (0, 12345)},
    **{f"noise_points[{b}-{f}]": (lambda b=b, f=f: noise_points(b, f)) for b in ("perlin", "simplex") for f in (0, 1)},
    "noise_shapes": noise_shapes,
    "terrain_shaped": terrain_shaped,
    "terrain_mesh": terrain_mesh,
    "terrain_package": terrain_package,
    "erosion": erosion_direct,
    "previews": previews,
    "scatter_plain": scatter_plain,
    "scatter_placed": scatter_placed,
    **{f"tree[{n}]": (lambda n=n: tree(n)) for n in trees.species_names()},
    "bsp[64x48]": lambda: level_grid("bsp_dungeon", {"width": 64, "height": 48, "seed": 7}, True),
    "bsp[120x90]": lambda: level_grid(
        "bsp_dungeon", {"width": 120, "height": 90, "seed": 1, "corridor_width": 2, "loop_fraction": 0.5}, True
    ),
    "rooms_caves[64x48]": lambda: level_grid("rooms_caves", {"width": 64, "height": 48, "seed": 7}, True),
    "rooms_caves[120x90]": lambda: level_grid(
        "rooms_caves", {"width": 120, "height": 90, "seed": 1, "corridor_width": 2, "loop_fraction": 0.5}, True
    ),
    "cave[64x48]": lambda: level_grid("cave", {"width": 64, "height": 48, "seed": 7}, False),
    "cave[100x70]": lambda: level_grid("cave", {"width": 100, "height": 70, "fill": 0.5, "seed": 5}, False),
    "cave[100x70-largest]": lambda: level_grid(
        "cave", {"width": 100, "height": 70, "fill": 0.5, "seed": 5, "connect": "largest"}, False
    ),
    "walk[64x48]": lambda: level_grid("random_walk", {"width": 64, "height": 48, "seed": 7}, False),
    "walk[64x48-4]": lambda: level_grid(
        "random_walk", {"width": 64, "height": 48, "seed": 7, "walkers": 4, "bias": 0.6}, False
    ),
    "maze[33x25]": lambda: level_grid("maze", {"width": 33, "height": 25, "seed": 2, "loops": 3, "rooms": 2}, True),
    "level_files": level_files,
    "wfc": wfc_runs,
    "world": world_files,
    "world_networks": world_network_files,
    "world_animals": world_animals_files,
    "networks": networks,
    "networks_layers": networks_layers,
    "settlements": settlement_files,
    "ecosystem_plants": ecosystem_plants,
    "ecosystem_animals": ecosystem_animals,
    "pictures": pictures,
    "exact": exact_functions,
}

#: name -> pinned sha256 (a prefix: 16 hex digits, or all 64 for the noise pinned first)
GOLDEN = {
    "noise_grid[perlin-0]": "5abeaf442fe1be61d5453271cd0c62adc521fdd72e39f1b79b20725e2ac58c51",
    "noise_grid[perlin-12345]": "5026b207db02d9f8f2a245cb5b689d1d34ba02216012f71c9f8c8dc2fbaeeab3",
    "noise_grid[simplex-0]": "52be8d84658620005c6726b12892ae107967a4de0ffcd1b3bdd9d1c3e00a658b",
    "noise_grid[simplex-12345]": "941bc3952325f72cd2fd6560c87524922a323829db8ff21478bc9a218b8837ed",
    "noise_points[perlin-0]": "ede58cd5b16a26a69902c0cb0b4f72f4c35cacc9458cbe6ee66716cfc74d238a",
    "noise_points[perlin-1]": "37c4eedf2c81bfb646c8a63f0c5d1fa26fbd0243eb5b45e80fdffbe47739f158",
    "noise_points[simplex-0]": "b276b0fbcb8844ebc3dd9055d1a9ca963c4f962414d74e8a9f89b9a199f7b998",
    "noise_points[simplex-1]": "3d317ffbdb49fd49f9d9acf26d064de7b4b9b81f385724ac4709e9c20a08c0a0",
    "noise_shapes": "efee9818fa30bfe9",
    "terrain_shaped": "534f82c76d9838c1",
    "terrain_mesh": "416c3a684f46289a",
    "terrain_package": "93a6db5702dedb44",
    "erosion": "67b4de28eb8e362a",
    "previews": "3fa3ac0dd447170b",
    "scatter_plain": "7e6089a871264ea9",
    "scatter_placed": "f8b19d8b5b5c4147",
    "tree[birch]": "a4cb33dac09f0c6e",
    "tree[broadleaf]": "124e45d10009837a",
    "tree[bush]": "9aba06cd96a85f45",
    "tree[conifer]": "ea06e458ad75fd6c",
    "tree[dead_tree]": "194d68db95592b98",
    "tree[palm]": "31764c93429c2b6c",
    "tree[abop_1_24a]": "0391762b07ef1b14",
    "tree[abop_1_24b]": "e2db4364a326190e",
    "tree[abop_1_24c]": "f99cee98956685c4",
    "tree[abop_1_24d]": "a2847a4aeebce8e5",
    "tree[abop_1_24e]": "f2cbcb79f2e27dfa",
    "tree[abop_1_24f]": "2c03826d98e4622c",
    "tree[abop_1_25_bush]": "5c3463e8bdbf70e0",
    "tree[abop_1_27_stochastic]": "ab27d1cfc6cf5fa6",
    "bsp[64x48]": "62649284ce6fa87e",
    "bsp[120x90]": "d0676e0834ae4824",
    "rooms_caves[64x48]": "faa65fd313c6b154",
    "rooms_caves[120x90]": "28b0c928e9700f7f",
    "cave[64x48]": "450fe9428a243180",
    "cave[100x70]": "a30f4af6c6a4d884",
    "cave[100x70-largest]": "475fb5ba6ff2fefc",
    "walk[64x48]": "ada5fa4bea08a575",
    "walk[64x48-4]": "618f3c0d13956885",
    "maze[33x25]": "61639840992d4144",
    "level_files": "d8543a498cca4417",
    "wfc": "a67a6af3453e43c3",
    "world": "87a4ade54ff1f0a9",
    "world_networks": "03d06d828189c047",
    "world_animals": "6477bdd5b0bc793e",
    "networks": "5f6872509212f75e",
    "networks_layers": "337a62bafae90a85",
    "settlements": "79b816ba881ec421",
    "ecosystem_plants": "a776bab24ac099e6",
    "ecosystem_animals": "353a340e418d5013",
    "pictures": "319dd02e9bde1518",
    "exact": "c4d517d627309994",
}


def digest(name):
    """sha256 (hex) of case ``name``'s bytes."""
    return hashlib.sha256(CASES[name]()).hexdigest()


def all_digests():
    """``{name: sha256}`` of every case, in table order."""
    return {name: digest(name) for name in CASES}


if __name__ == "__main__":
    if "--json" in sys.argv:  # what test_cpu_determinism's subprocesses print
        try:
            from numpy._core import _multiarray_umath as umath  # numpy 2
        except ImportError:  # numpy 1.x
            from numpy.core import _multiarray_umath as umath
        print(json.dumps({"digests": all_digests(), "features": dict(umath.__cpu_features__)}))
    else:
        for name, value in all_digests().items():
            width = len(GOLDEN.get(name, "")) or 16
            print(f"    {name!r}: {value[:width]!r},")
