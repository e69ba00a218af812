"""Render every preset, and the variations the docs show, to small PNGs in ``docs/gallery/``.

    .venv/bin/python tools/gallery.py                    # every picture (``make gallery``)
    .venv/bin/python tools/gallery.py --list             # the pictures it would make, with their sources
    .venv/bin/python tools/gallery.py --only 'terrain_*' --only levels_bsp
    .venv/bin/python tools/gallery.py --core-only        # leave out the pictures that need Blender (bpy)
    .venv/bin/python tools/gallery.py --presets DIR --out DIR   # another presets folder (the test's)

The presets are picked up by folder, so a new preset file, or a new folder of recipes, joins the
gallery without a change here:

- ``presets/<folder>/*.toml`` of a family with its own picture (``FAMILIES``): ``trees`` (each species
  grown and rendered by the bridge's Workbench render, ``operators/bridge/render.render_trees``: needs
  bpy), ``wfc`` (tilesets solved on a 32 x 32 grid and drawn from their sockets; ``samples/*.txt``
  solved on 48 x 48 by the overlapping model), ``ecosystem`` (the preset on the 512 m terrain it is
  tuned on: a plant map and the population chart), ``biomes`` (the table's biome map of an island);
- every other folder (``terrain``, ``worlds``, and any new one, such as ``settlements``) holds whole
  recipes: each is built in core (terrain, erosion, biomes, texture layers, rivers, roads) and drawn
  as a shaded relief (``core.preview.shaded_relief``) in its texture layers' colours, with the
  rivers' and lakes' water and the roads painted on;
- the level generators (``core.levels.GENERATORS``) at their defaults (``core.levels.level_image``);
- the variations (``VARIATIONS``): one setting changed at a time, for the docs' pages;
- ``showcase.png``: the ``make demo`` recipe built by the bridge and rendered as ``preview.png`` is, smaller
  (needs bpy).

Every picture is at most ``MAX_BYTES`` (the run fails naming the one that is not); a file is rewritten
only when its bytes change (atomically).  Core pictures are the same bytes on every machine (the
shaded relief and the level pictures go through ``core.exact``); Blender's renders are the same run to
run on one machine.
"""

from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import functools
import importlib.util
import os
import pathlib
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = pathlib.Path(__file__).resolve().parents[1]
PRESETS = ROOT / "presets"
OUT = ROOT / "docs" / "gallery"
#: The largest picture the gallery keeps (bytes).
MAX_BYTES = 150 * 1024
#: Longest side of a relief map (pixels).
RELIEF_SIDE = 256

# Colours painted on the ground (sRGB bytes).
WATER = (52, 96, 148)
ROAD = (120, 96, 70)
TRAIL = (150, 120, 80)
#: Crown colours of an ecosystem's species, in their order; animals' dots.
SPECIES_COLOURS = ((40, 92, 30), (120, 150, 40), (70, 120, 90), (150, 110, 40), (30, 60, 45), (180, 160, 60))
ANIMAL_COLOURS = ((235, 215, 170), (200, 40, 40), (90, 60, 200), (250, 250, 250))
#: Level classes (wall, floor, corridor, door) for the WFC tile pictures, as core.levels draws them.
CLASS_COLOURS = ((38, 38, 46), (206, 200, 184), (160, 150, 128), (178, 98, 38))
#: Colours of the digits of the WFC samples (the sample files' own values).
DIGIT_COLOURS = (
    (120, 170, 80),
    (170, 160, 140),
    (90, 70, 60),
    (180, 70, 50),
    (40, 110, 40),
    (60, 100, 170),
    (230, 200, 80),
    (200, 120, 200),
    (250, 250, 250),
    (20, 20, 20),
)


def package() -> Any:
    """The extension as the package ``worldseed`` (its root ``__init__`` not run: nothing registered,
    no bpy), as the tests load it; the module already there if one is."""
    if "worldseed" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "worldseed", ROOT / "__init__.py", submodule_search_locations=[str(ROOT)]
        )
        assert spec is not None
        sys.modules["worldseed"] = importlib.util.module_from_spec(spec)
    return sys.modules["worldseed"]


package()
from worldseed.core import biomes, ecosystem, levels, preview, recipe, scatter, settlements, terrain, wfc  # noqa: E402
from worldseed.core import palette as core_palette  # noqa: E402
from worldseed.core import unity as core_unity  # noqa: E402
from worldseed.core import world as core_world  # noqa: E402
from worldseed.core.steps import drive  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Job:
    """One picture: ``name`` (the file is ``<name>.png``), where it comes from, and how it is made."""

    name: str
    source: str
    make: Callable[[], bytes]
    blender: bool = False


# --------------------------------------------------------------------------- pictures in core


def _picture_grid(n: int, side: int = RELIEF_SIDE) -> tuple[int, int]:
    """``(resampled, pixels)``: the side a map of ``n`` vertices a side is resampled to first (small maps
    grow to the next Unity resolution of at least ``side + 1``) and the relief's side in pixels."""
    grown = n if n > side else min(s for s in core_unity.UNITY_HEIGHTMAP_RESOLUTIONS if s > side)
    step = -(-grown // (side + 1))
    return grown, len(range(0, grown, step))


def _at(image: npt.NDArray[Any], m: int) -> npt.NDArray[Any]:
    """``image`` (rows, cols, ...) at ``m`` x ``m`` points spanning it corner to corner (nearest)."""
    r = np.rint(np.linspace(0.0, image.shape[0] - 1, m)).astype(np.int64)
    c = np.rint(np.linspace(0.0, image.shape[1] - 1, m)).astype(np.int64)
    return np.ascontiguousarray(image[r][:, c])


def _pool(mask: npt.NDArray[Any], m: int) -> npt.NDArray[np.float32]:
    """``mask`` (a cover in [0, 1]) at ``m`` x ``m`` points, each the largest value within half a pixel:
    thin lines (rivers, roads) stay visible in a smaller picture."""
    v = np.asarray(mask, np.float32)
    reach = max(1, int(np.ceil((v.shape[0] - 1) / max(m - 1, 1) / 2)))
    out = np.zeros((m, m), np.float32)
    for dr in range(-reach, reach + 1):
        for dc in range(-reach, reach + 1):
            shifted = np.roll(np.roll(v, dr, axis=0), dc, axis=1)
            np.maximum(out, _at(shifted, m), out=out)
    return out


def _relief(
    metres: npt.NDArray[Any], *, cell: float, height: float, sea_level: float, colours=None, side: int = RELIEF_SIDE
) -> npt.NDArray[np.uint8]:
    """Shaded relief of ``metres`` (row 0 south; north at the top of the picture) in ``colours`` (sRGB
    bytes, row 0 south, best at :func:`_picture_grid`'s pixels) or the palette's."""
    h01 = np.clip(np.asarray(metres, np.float64) / max(height, 1e-9), 0.0, 1.0).astype(np.float32)
    n = h01.shape[0]
    grown, _pixels = _picture_grid(n, side)
    if grown != n:
        h01 = core_unity.resample_square(h01, side=grown)
        cell = cell * (n - 1) / (grown - 1)
    return preview.shaded_relief(
        h01, cell_size=cell, height=height, sea_level=sea_level, max_side=side + 1, colours=colours
    )


def _ground(r: Any, layers: Any, metres: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """The ground's sRGB bytes at the vertices (row 0 south): the texture layers' colours, else the
    biome colours, else the palette's."""
    if layers.weights is not None:
        linear = np.asarray([tuple(s.color) for s in r.splat], np.float32)
        return preview.srgb_bytes(preview.splat_colours(layers.weights, linear))
    top = r.terrain.height
    srgb = core_palette.terrain_colours(
        np.clip(metres / max(top, 1e-9), 0.0, 1.0),
        height_m=top,
        sea_level=r.terrain.sea_level,
        palette=r.terrain.palette,
    )
    if layers.biomes is not None and layers.biome_colors is not None:
        table = np.asarray(layers.biome_colors, np.float32)
        table = table / 255.0 if table.max() > 1.0 else table
        srgb = table[layers.biomes]
    return np.clip(np.rint(np.asarray(srgb) * 255.0), 0, 255).astype(np.uint8)


def _paint(image: npt.NDArray[np.uint8], mask: npt.NDArray[Any], colour, amount: float = 1.0) -> None:
    """Blend ``colour`` into ``image`` where ``mask`` (bool, or a cover in [0, 1]) is set, in place."""
    cover = np.clip(np.asarray(mask, np.float32) * np.float32(amount), 0.0, 1.0)[..., None]
    mixed = image.astype(np.float32) * (1.0 - cover) + np.asarray(colour, np.float32) * cover
    image[...] = np.clip(np.rint(mixed), 0, 255).astype(np.uint8)


def build_recipe(r: Any) -> dict[str, Any]:
    """A recipe's single terrain built in core as a world build makes it: the layers (erosion, the rivers
    and roads carved in, biomes, settlements, texture layers). ``{"layers", "metres" (final), "rivers",
    "roads", "settlements", "sea"}``."""
    seed = r.world.seed
    h0 = terrain.terrain_heights(r.terrain, seed=seed)
    on = {k: getattr(r, k) if getattr(r, k).enabled else None for k in ("rivers", "roads", "settlements")}
    layers = drive(
        terrain.terrain_layers_steps(
            h0,
            terrain_spec=r.terrain,
            biomes_spec=r.biomes,
            splats=r.splat,
            seed=seed,
            rivers_spec=on["rivers"],
            roads_spec=on["roads"],
            settlements_spec=on["settlements"],
        )
    )
    top = r.terrain.height
    sea = float(np.float32(r.terrain.sea_level) * np.float32(top)) if r.terrain.sea_level > 0 else None
    return {
        "layers": layers,
        "metres": layers.metres,
        "rivers": layers.rivers,
        "roads": layers.roads,
        "settlements": layers.settlements,
        "sea": sea,
    }


#: More drawing steps of a recipe's relief map, after the water and the roads: ``overlay(recipe, built,
#: ground, pixels)`` paints on ``ground`` (sRGB bytes, (pixels, pixels, 3), row 0 south, pixel ``(i, j)``
#: at Blender ``(-size / 2 + j * size / (pixels - 1), -size / 2 + i * size / (pixels - 1))``) in place;
#: ``built`` is :func:`build_recipe`'s.  A new family (settlements: pads, lots, buildings) adds its own.
def _settlement_plans(r: Any, built: dict[str, Any], ground: npt.NDArray[np.uint8], pixels: int) -> None:
    """The settlements' pads, lots, streets, houses and walls (``core.settlements.draw_settlements``)."""
    if built["settlements"] is not None:
        ground[:] = settlements.draw_settlements(ground, built["settlements"], south_first=True)


OVERLAYS: list[Callable[[Any, dict[str, Any], npt.NDArray[np.uint8], int], None]] = [_settlement_plans]


def recipe_png(r: Any) -> bytes:
    """A whole recipe as a relief map: its ground colours with the water and the roads painted on."""
    built = build_recipe(r)
    layers = built["layers"]
    _grown, m = _picture_grid(layers.metres.shape[0])
    ground = _at(_ground(r, layers, layers.metres), m)
    if built["rivers"] is not None:
        maps = built["rivers"].maps
        _paint(ground, _pool(np.maximum(maps.river, maps.lake.astype(np.float32)), m), WATER)
    if built["roads"] is not None:
        _paint(ground, _pool(built["roads"].maps.road > 0.25, m), ROAD)
    for overlay in OVERLAYS:
        overlay(r, built, ground, m)
    image = _relief(
        built["metres"],
        cell=r.terrain.cell_size,
        height=r.terrain.height,
        sea_level=r.terrain.sea_level,
        colours=ground,
    )
    return preview.png_bytes(image)


def world_png(r: Any, *, max_side: int = 384) -> bytes:
    """A tiled world (``[world] tiles``) built tile by tile in core (``core.world.run_world``, serially)
    and drawn as its ``<name>_overview.png``."""
    with tempfile.TemporaryDirectory() as tmp:
        core_world.run_world(r, tmp, name="world")
        return bytes(core_world.overview_png(r, core_world.world_grid(r), tmp, "world", max_side=max_side))


def _any_recipe_png(r: Any) -> bytes:
    return world_png(r) if list(r.world.tiles) != [1, 1] else recipe_png(r)


def recipe_file_png(path: pathlib.Path) -> bytes:
    return _any_recipe_png(recipe.load(path))


def recipe_text_png(text: str) -> bytes:
    return _any_recipe_png(recipe.loads(text, source="gallery variation"))


def scatter_png(text: str) -> bytes:
    """A recipe's terrain with its scatter layers' props as dots (one colour per layer)."""
    r = recipe.loads(text, source="gallery variation")
    built = build_recipe(r)
    layers, size = built["layers"], r.terrain.size
    ground = _ground(r, layers, layers.metres)
    sea_m = r.terrain.sea_level * r.terrain.height
    specs = [scatter.layer_from_spec(s, sea_level_m=sea_m) for s in r.scatter]
    placed = scatter.scatter_layers(layers.metres, size=size, layers=specs, seed=r.world.seed, maps=layers.scatter_maps)
    _grown, m = _picture_grid(layers.metres.shape[0])
    big = _at(ground, m)
    dots = ((230, 230, 230), (30, 70, 25), (200, 60, 40), (60, 90, 200))
    for k, p in enumerate(placed):
        col = np.clip(np.rint((p.positions[:, 0] / size + 0.5) * (m - 1)).astype(np.int64), 0, m - 1)
        row = np.clip(np.rint((p.positions[:, 1] / size + 0.5) * (m - 1)).astype(np.int64), 0, m - 1)
        big[row, col] = dots[k % len(dots)]
    image = _relief(
        layers.metres, cell=r.terrain.cell_size, height=r.terrain.height, sea_level=r.terrain.sea_level, colours=big
    )
    return preview.png_bytes(image)


def level_png(spec: Any, *, pixels_per_cell: int = 4) -> bytes:
    level = levels.generate(spec)
    return preview.png_bytes(levels.level_image(level, pixels_per_cell=pixels_per_cell))


def _letter_colours(tileset: Any) -> dict[str, tuple[int, int, int]]:
    """A colour per socket letter: the class colour of the first tile (heaviest first) all of whose sides
    show only that letter, else of the first tile showing it."""
    out: dict[str, tuple[int, int, int]] = {}
    order = np.argsort(-np.asarray(tileset.weights), kind="stable")
    classes = tileset.classes if tileset.classes is not None else np.ones(len(tileset.names), np.uint8)
    for full in (True, False):
        for k in order:
            sockets = tileset.sockets[k] if tileset.sockets is not None else None
            if not sockets:
                continue
            letters = set("".join(sockets))
            if full and len(letters) != 1:
                continue
            for letter in letters:
                out.setdefault(letter, CLASS_COLOURS[int(classes[k]) % 4])
    return out


def tileset_png(path: pathlib.Path, *, side: int = 32, cell: int = 9, seed: int = 1) -> bytes:
    """A tileset solved on ``side`` x ``side`` cells (the simple tiled model), each cell drawn as a 3 x 3
    mini-tile: its class colour in the middle, each side the colour of its socket."""
    tileset = wfc.load_tileset(str(path))
    # as a WFC level (its retries keep a walkable region worth the name); a 3-D set without Connected
    connected = tileset.up is None
    spec = levels.LevelSpec(
        generator="wfc_tiled", wfc_tileset=str(path), width=side, height=side, seed=seed, connected=connected
    )
    level = levels.generate(spec)
    assert level.wfc is not None
    letters = _letter_colours(tileset)
    classes = tileset.classes if tileset.classes is not None else np.ones(len(tileset.names), np.uint8)
    minis = np.empty((len(tileset.names), 3, 3, 3), np.uint8)
    background = letters.get(min(letters, key=lambda c: 0), CLASS_COLOURS[1]) if letters else CLASS_COLOURS[1]
    heaviest = int(np.argmax(tileset.weights))
    if tileset.sockets is not None and tileset.sockets[heaviest]:
        background = letters[tileset.sockets[heaviest][0][len(tileset.sockets[heaviest][0]) // 2]]
    for k in range(len(tileset.names)):
        mini = np.empty((3, 3, 3), np.uint8)
        mini[:] = background
        mini[1, 1] = CLASS_COLOURS[int(classes[k]) % 4]
        sockets = tileset.sockets[k] if tileset.sockets is not None else None
        if sockets:  # east, south, west, north
            for (r, c), profile in zip(((1, 2), (2, 1), (1, 0), (0, 1)), sockets):
                mini[r, c] = letters[profile[len(profile) // 2]]
            for r, c in ((0, 0), (0, 2), (2, 0), (2, 2)):  # a corner joins two sides of one colour
                if (mini[r, 1] == mini[1, c]).all():
                    mini[r, c] = mini[r, 1]
        else:
            mini[:] = mini[1, 1]
        minis[k] = mini
    tiles = np.asarray(level.wfc.ids)
    grid = minis[tiles]  # (rows, cols, 3, 3, 3)
    rows, cols = tiles.shape
    image = grid.transpose(0, 2, 1, 3, 4).reshape(rows * 3, cols * 3, 3)
    scale = max(1, cell // 3)
    image = np.repeat(np.repeat(image, scale, axis=0), scale, axis=1)
    return preview.png_bytes(np.ascontiguousarray(image))


def sample_png(
    path: pathlib.Path,
    *,
    side: int = 48,
    cell: int = 5,
    seed: int = 1,
    n: int = 3,
    symmetry: int = 8,
    ground: bool = False,
) -> bytes:
    """A sample's style on ``side`` x ``side`` cells (the overlapping model, 3 x 3 patterns, all
    symmetries), each value in its colour; the sample itself beside it, at the same scale."""
    sample = wfc.read_sample(str(path))
    result = wfc.overlapping(sample, side, side, n=n, symmetry=symmetry, periodic=True, ground=ground, seed=seed)
    out = np.asarray(result.output)
    pal = np.asarray(DIGIT_COLOURS, np.uint8)
    gap = np.full((side, 2, 3), 255, np.uint8)
    src = pal[np.asarray(sample) % len(pal)]
    pad = np.full((side, src.shape[1], 3), 255, np.uint8)
    pad[: min(side, src.shape[0])] = src[:side]
    image = np.concatenate([pal[out % len(pal)], gap, pad], axis=1)
    image = np.repeat(np.repeat(image, cell, axis=0), cell, axis=1)
    return preview.png_bytes(np.ascontiguousarray(image))


#: The terrain the shipped ecosystems are tuned on (tests/core/_ecosystem_cases.terrain_habitat).
ECO_TERRAIN = terrain.TerrainSpec(resolution=129, size=512.0, height=60.0, scale=256.0, octaves=5, sea_level=0.12)


@functools.cache
def _eco_run(spec: Any) -> tuple[Any, Any, Any]:
    """The ecosystem ``spec`` on :data:`ECO_TERRAIN` (once per spec: the map and the chart share it)."""
    heights = terrain.terrain_heights(ECO_TERRAIN, seed=1)
    layers = terrain.terrain_layers(
        heights, terrain_spec=ECO_TERRAIN, biomes_spec=biomes.BiomesSpec(enabled=True), seed=1
    )
    sea = ECO_TERRAIN.sea_level * ECO_TERRAIN.height
    hab = ecosystem.terrain_habitat(layers, sea_level=sea)
    return layers, hab, drive(ecosystem.ecosystem_steps(spec, hab))


def _eco_spec(path: pathlib.Path) -> Any:
    with open(path, "rb") as f:
        return ecosystem.from_dict(tomllib.load(f).get("ecosystem", {}))


def ecosystem_map_png(spec: Any) -> bytes:
    """The ecosystem grown on its terrain: trails worn into the ground, every plant's crown (its
    species' colour; tallest drawn last), the animals alive at the end as dots (deer pale, wolves red)."""
    layers, hab, run = _eco_run(spec)
    size, top = ECO_TERRAIN.size, ECO_TERRAIN.height
    srgb = core_palette.terrain_colours(
        layers.heights.values, height_m=top, sea_level=ECO_TERRAIN.sea_level, palette=ECO_TERRAIN.palette
    )
    _grown, m = _picture_grid(layers.metres.shape[0])
    big = _at(np.clip(np.rint(np.asarray(srgb) * 255.0), 0, 255).astype(np.uint8), m)
    texel = size / (m - 1)  # metres a pixel; pixel (i, j) is the point (x0 + j texel, y0 + i texel)
    x0, y0 = hab.origin
    if run.animals is not None:
        wear = np.asarray(run.animals.wear, np.float64)
        w = _at(wear, m)
        _paint(big, np.clip(w / max(float(np.percentile(w, 99.5)), 1e-9), 0.0, 1.0), TRAIL, 0.9)
    yy, xx = np.mgrid[0:m, 0:m]
    if run.plants is not None:
        p = run.plants
        for i in np.argsort(p.height, kind="stable"):
            cx, cy, rad = (p.x[i] - x0) / texel, (p.y[i] - y0) / texel, max(p.radius[i] / texel, 0.6)
            r0, r1 = max(int(cy - rad), 0), min(int(cy + rad) + 2, m)
            c0, c1 = max(int(cx - rad), 0), min(int(cx + rad) + 2, m)
            if r0 >= r1 or c0 >= c1:
                continue
            d2 = (yy[r0:r1, c0:c1] - cy) ** 2 + (xx[r0:r1, c0:c1] - cx) ** 2
            colour = SPECIES_COLOURS[int(p.kind[i]) % len(SPECIES_COLOURS)]
            big[r0:r1, c0:c1][d2 <= rad * rad] = colour
    if run.animals is not None:
        a = run.animals
        for k in range(len(a.names)):
            pick = a.kind == k
            cols = np.clip(np.rint((a.x[pick] - x0) / texel).astype(np.int64), 0, m - 2)
            rows = np.clip(np.rint((a.y[pick] - y0) / texel).astype(np.int64), 0, m - 2)
            for dr in (0, 1):
                for dc in (0, 1):
                    big[rows + dr, cols + dc] = ANIMAL_COLOURS[k % len(ANIMAL_COLOURS)]
    image = _relief(layers.metres, cell=ECO_TERRAIN.cell_size, height=top, sea_level=ECO_TERRAIN.sea_level, colours=big)
    return preview.png_bytes(image & np.uint8(0xF8))  # 5 bits a channel: a busy forest stays under MAX_BYTES


def ecosystem_chart_png(spec: Any) -> bytes:
    """The population chart the ecosystem writes (``<name>_population.png``)."""
    _layers, _hab, run = _eco_run(spec)
    return ecosystem.population_png_bytes(run.plants, animals=run.animals)


def biomes_png(path: pathlib.Path) -> bytes:
    """A biome table's map of an island (the table's colours, shaded)."""
    text = ISLAND + f'\n[biomes]\nenabled = true\ntable = "{path.as_posix()}"\n'
    return recipe_text_png(text)


# --------------------------------------------------------------------------- pictures through Blender


_BLENDER: dict[str, Any] = {}


def _blender() -> Any:
    """bpy with the add-on registered (once)."""
    if "bpy" not in _BLENDER:
        import importlib

        import bpy

        addon = importlib.import_module("worldseed.addon")
        if not hasattr(bpy.types.Scene, "worldseed"):
            addon.register()
        _BLENDER["bpy"] = bpy
    return _BLENDER["bpy"]


def _recode(data: bytes) -> bytes:
    """A Blender render's PNG again as 8-bit RGB (``core.wfc.read_png`` reads any PNG; ``core.preview``
    writes it): a third of the bytes of Blender's RGBA."""
    image = np.asarray(wfc.read_png(data, name="render"))
    return preview.png_bytes(np.ascontiguousarray(image[..., :3]) if image.ndim == 3 else image)


def _tree_spec(path: pathlib.Path) -> Any:
    from worldseed.core import trees

    with open(path, "rb") as f:
        table = dict(tomllib.load(f).get("tree", {}))
    table.pop("species", None)
    return trees.from_dict(table, prefix=f"species {path.stem}: tree.")


def tree_png(path: pathlib.Path, *, size: tuple[int, int] = (400, 300), **changes: Any) -> bytes:
    """The species grown from its own seed (with ``changes`` to its settings) and rendered from the front
    (the bridge's tree render)."""
    bpy = _blender()
    from worldseed.core import trees
    from worldseed.operators.bridge import render
    from worldseed.operators.bridge import trees as tree_build

    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    spec = dataclasses.replace(_tree_spec(path), **changes)
    tree = trees.grow_tree(spec, seed=spec.seed)
    root = tree_build.tree_objects(tree, collection=scene.collection)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "tree.png")
        with render.quiet_stdio():
            render.render_trees(scene, [root], out, size=size)
        return _recode(pathlib.Path(out).read_bytes())


def showcase_png(*, size: tuple[int, int] = (480, 270)) -> bytes:
    """The ``make demo`` recipe built as the headless run builds it, rendered as its ``preview.png``."""
    bpy = _blender()
    from worldseed.addon import batch
    from worldseed.operators.bridge import render, world
    from worldseed.operators.bridge.terrain_export import terrain_lods

    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    built = world.build_world(recipe.loads(batch.DEFAULT_RECIPE, source="demo"), scene=scene)
    terrains = [o for o in built.roots if terrain_lods([o, *o.children])]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "showcase.png")
        with render.quiet_stdio():
            render.render_preview(scene, terrains[0], out, size=size)
        return _recode(pathlib.Path(out).read_bytes())


# --------------------------------------------------------------------------- the variations

#: The island of the variations (a 512 m terrain, 257 vertices, fast to build).
ISLAND = """\
[world]
seed = 4
[terrain]
resolution = 257
size = 512.0
height = 60.0
scale = 220.0
octaves = 6
falloff = "radial"
falloff_width = 0.5
sea_level = 0.15
"""
#: A valley for the rivers and roads variations (1 km, 257 vertices, eroded).
VALLEY = """\
[world]
seed = 7
[terrain]
resolution = 257
size = 1024.0
height = 80.0
scale = 420.0
octaves = 6
persistence = 0.55
warp = 0.3
sea_level = 0.06
[terrain.erosion]
enabled = true
droplets_per_km2 = 60000.0
"""
RIVERS = "[rivers]\nenabled = true\nthreshold = {}\nlake_min_area = 20000.0\nlake_min_depth = 2.0\n"
VALLEY_POINTS = "points = [[-400.0, -420.0], [350.0, -350.0], [0.0, -100.0], [380.0, 330.0], [-420.0, 200.0]]\n"


def _terrain(**keys: Any) -> str:
    """ISLAND with ``[terrain]`` keys replaced."""
    lines = [ln for ln in ISLAND.splitlines() if ln.split(" = ")[0] not in keys]
    at = lines.index("[terrain]") + 1
    lines[at:at] = [f"{k} = {_toml(v)}" for k, v in keys.items()]
    return "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


SPLATS = """
[biomes]
enabled = true
[[splat]]
name = "Grass"
color = [0.16, 0.30, 0.07]
[[splat]]
name = "Sand"
color = [0.62, 0.55, 0.36]
height_range = [-100.0, 10.5]
[[splat]]
name = "Rock"
color = [0.30, 0.28, 0.26]
slope_range = [28.0, 90.0]
"""

TREES = '[[scatter]]\nname = "Trees"\nprop = "conifer"\nradius = 8.0\nheight_range = [12.0, 45.0]\n' + (
    "slope_range = [0.0, 25.0]\n"
)
ROCKS = '[[scatter]]\nname = "Rocks"\nprop = "rock"\nradius = 6.0\nslope_range = [20.0, 90.0]\n'

#: ``(name, what it shows, kind, argument)``: kind ``recipe`` (relief), ``scatter`` (dots), ``level``.
VARIATIONS: tuple[tuple[str, str, str, Any], ...] = (
    ("terrain_octaves_2", "[terrain] octaves = 2", "recipe", _terrain(octaves=2)),
    ("terrain_octaves_8", "[terrain] octaves = 8", "recipe", _terrain(octaves=8)),
    ("terrain_kind_fbm", 'kind = "fbm"', "recipe", _terrain(kind="fbm")),
    ("terrain_kind_ridged", 'kind = "ridged"', "recipe", _terrain(kind="ridged")),
    ("terrain_kind_billow", 'kind = "billow"', "recipe", _terrain(kind="billow")),
    ("terrain_warp_0", "warp = 0", "recipe", _terrain(warp=0.0)),
    ("terrain_warp_1", "warp = 1", "recipe", _terrain(warp=1.0)),
    ("terrain_falloff_none", 'falloff = "none"', "recipe", _terrain(falloff="none")),
    ("terrain_terraces_6", "terraces = 6", "recipe", _terrain(terraces=6, terrace_sharpness=0.8)),
    ("terrain_redistribution_2", "redistribution = 2", "recipe", _terrain(redistribution=2.0)),
    ("erosion_off", "[terrain.erosion] off", "recipe", VALLEY.replace("enabled = true", "enabled = false")),
    ("erosion_on", "[terrain.erosion] on (60,000 droplets/km2)", "recipe", VALLEY),
    (
        "erosion_thermal",
        "erosion with thermal = true, talus = 30",
        "recipe",
        VALLEY + "thermal = true\ntalus = 30.0\n",
    ),
    ("splat_off", "palette colours, no texture layers", "recipe", ISLAND),
    ("splat_biomes", "[biomes] on: the Whittaker biome map", "recipe", ISLAND + "[biomes]\nenabled = true\n"),
    ("splat_layers", "three [[splat]] layers: grass, sand below 10.5 m, rock over 28 deg", "recipe", ISLAND + SPLATS),
    ("scatter_rules", "trees by height (green), rocks on slopes over 20 deg (red)", "scatter", ISLAND + TREES + ROCKS),
    (
        "scatter_patchiness",
        "the same trees with patchiness = 0.6",
        "scatter",
        ISLAND + TREES + "patchiness = 0.6\npatch_scale = 80.0\n" + ROCKS,
    ),
    ("rivers_threshold_50000", "[rivers] threshold = 50000", "recipe", VALLEY + RIVERS.format(50000.0)),
    ("rivers_threshold_5000", "[rivers] threshold = 5000", "recipe", VALLEY + RIVERS.format(5000.0)),
    (
        "roads_network",
        "[roads] network = true (spanning tree plus shortcuts)",
        "recipe",
        VALLEY + RIVERS.format(8000.0) + "[roads]\nenabled = true\n" + VALLEY_POINTS,
    ),
    (
        "roads_chain",
        "[roads] network = false (a chain in the given order)",
        "recipe",
        VALLEY + RIVERS.format(8000.0) + "[roads]\nenabled = true\nnetwork = false\n" + VALLEY_POINTS,
    ),
    ("trees_iterations_3", "ABOP 1.24a, iterations = 3", "tree", ("abop_1_24a", {"iterations": 3})),
    ("trees_iterations_5", "ABOP 1.24a, iterations = 5 (its own)", "tree", ("abop_1_24a", {})),
    ("trees_angle_15", "ABOP 1.24a, angle = 15", "tree", ("abop_1_24a", {"angle": 15.0})),
    ("trees_angle_40", "ABOP 1.24a, angle = 40", "tree", ("abop_1_24a", {"angle": 40.0})),
    ("trees_tropism_0", "broadleaf, tropism_strength = 0", "tree", ("broadleaf", {"tropism_strength": 0.0})),
    ("trees_tropism_04", "broadleaf, tropism_strength = 0.4", "tree", ("broadleaf", {"tropism_strength": 0.4})),
    ("wfc_flowers_n2", "flowers, n = 2", "sample", ("flowers", {"n": 2, "symmetry": 2, "ground": True})),
    ("wfc_flowers_n3", "flowers, n = 3", "sample", ("flowers", {"n": 3, "symmetry": 2, "ground": True})),
    ("wfc_town_symmetry_1", "town, symmetry = 1 (patterns as drawn)", "sample", ("town", {"symmetry": 1})),
    ("wfc_town_symmetry_8", "town, symmetry = 8 (all rotations and mirrors)", "sample", ("town", {"symmetry": 8})),
    (
        "world_tiles_3x3",
        "a tiled world: 3 x 3 tiles of 256 m, one island over the whole world, eroded, seamless",
        "recipe",
        "[world]\nseed = 5\ntiles = [3, 3]\n[terrain]\nresolution = 129\nsize = 256.0\nheight = 120.0\nwarp = 0.3\n"
        'normalize = "fixed"\nscale = 180.0\noctaves = 7\nfalloff = "radial"\nfalloff_width = 0.6\nsea_level = 0.3\n'
        "[terrain.erosion]\nenabled = true\ndroplets_per_km2 = 40000.0\n" + SPLATS,
    ),
    (
        "levels_bsp_leaf_6",
        "bsp min_leaf = 6, max_leaf = 12",
        "level",
        {"generator": "bsp", "min_leaf": 6, "max_leaf": 12, "room_max": 8},
    ),
    (
        "levels_bsp_leaf_14",
        "bsp min_leaf = 14, max_leaf = 30",
        "level",
        {"generator": "bsp", "min_leaf": 14, "max_leaf": 30},
    ),
    ("levels_cave_fill_40", "cave fill = 0.40", "level", {"generator": "cave", "fill": 0.40}),
    ("levels_cave_fill_52", "cave fill = 0.52", "level", {"generator": "cave", "fill": 0.52}),
    *(
        (
            f"levels_maze_{a}",
            f'maze algorithm = "{a}"',
            "level",
            {"generator": "maze", "algorithm": a, "width": 24, "height": 24},
        )
        for a in ("dfs", "prim", "kruskal", "wilson")
    ),
    ("levels_walk_1", "walk walkers = 1", "level", {"generator": "walk", "walkers": 1}),
    ("levels_walk_8", "walk walkers = 8, bias = 0.5", "level", {"generator": "walk", "walkers": 8, "bias": 0.5}),
)


def _variation(kind: str, arg: Any) -> Callable[[], bytes]:
    if kind == "recipe":
        return lambda: recipe_text_png(arg)
    if kind == "scatter":
        return lambda: scatter_png(arg)
    if kind == "sample":
        stem, changes = arg
        return lambda: sample_png(PRESETS / "wfc" / "samples" / f"{stem}.txt", **changes)
    if kind == "tree":
        stem, changes = arg
        return lambda: tree_png(PRESETS / "trees" / f"{stem}.toml", size=(320, 240), **changes)
    table = {"seed": 3, **arg}
    return lambda: level_png(
        levels.from_dict(table, prefix="level."), pixels_per_cell=4 if "algorithm" not in table else 5
    )


# --------------------------------------------------------------------------- the jobs

#: Preset folders with a picture of their own (every other folder holds whole recipes).
FAMILIES = ("trees", "wfc", "ecosystem", "biomes")


def jobs(presets: pathlib.Path = PRESETS, *, extras: bool = True) -> list[Job]:
    """Every picture of the presets in ``presets`` (by folder), plus, with ``extras``, the level
    generators, the variations and the showcase."""
    out: list[Job] = []
    folders = sorted(p for p in presets.iterdir() if p.is_dir()) if presets.is_dir() else []
    for folder in folders:
        family = folder.name
        files = sorted(folder.glob("*.toml"))
        if family == "trees":
            out += [Job(f"trees_{f.stem}", str(f), lambda f=f: tree_png(f), blender=True) for f in files]
        elif family == "wfc":
            out += [Job(f"wfc_tileset_{f.stem}", str(f), lambda f=f: tileset_png(f)) for f in files]
            out += [
                Job(f"wfc_sample_{f.stem}", str(f), lambda f=f: sample_png(f))
                for f in sorted((folder / "samples").glob("*.txt"))
            ]
        elif family == "ecosystem":
            for f in files:
                out.append(Job(f"ecosystem_{f.stem}_map", str(f), lambda f=f: ecosystem_map_png(_eco_spec(f))))
                out.append(Job(f"ecosystem_{f.stem}_chart", str(f), lambda f=f: ecosystem_chart_png(_eco_spec(f))))
        elif family == "biomes":
            out += [Job(f"biomes_{f.stem}", str(f), lambda f=f: biomes_png(f)) for f in files]
        else:  # terrain, worlds, and any new folder of whole recipes (settlements ...)
            out += [Job(f"{family}_{f.stem}", str(f), lambda f=f: recipe_file_png(f)) for f in files]
    if extras:
        for gen in levels.GENERATORS:
            if gen == "wfc":  # tiles and sample in one: the two above show both
                continue
            spec = levels.LevelSpec(generator=gen, seed=3)
            out.append(Job(f"levels_{gen}", f"core.levels generator {gen!r}", lambda s=spec: level_png(s)))
        for name, what, kind, arg in VARIATIONS:
            out.append(Job(f"var_{name}", what, _variation(kind, arg), blender=kind == "tree"))
        out.append(Job("showcase", "make demo's recipe (addon/batch.py DEFAULT_RECIPE)", showcase_png, blender=True))
    return out


def write(job: Job, out: pathlib.Path) -> tuple[str, int, bool]:
    """Make ``job``'s picture and write it into ``out`` unless the file already has its bytes; returns
    ``(path, bytes, changed)``.  A picture over :data:`MAX_BYTES` is an error."""
    data = job.make()
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        raise RuntimeError(f"{job.name}: not a PNG")
    if len(data) > MAX_BYTES:
        raise RuntimeError(f"{job.name}.png is {len(data):,} bytes, over the gallery's {MAX_BYTES:,}")
    path = out / f"{job.name}.png"
    if path.is_file() and path.read_bytes() == data:
        return str(path), len(data), False
    core_unity.write_bytes_atomic(path, data)
    return str(path), len(data), True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(OUT), help="folder of the pictures (default docs/gallery)")
    parser.add_argument("--presets", default=str(PRESETS), help="presets folder (default presets/)")
    parser.add_argument("--only", action="append", default=[], help="picture names (glob), may repeat")
    parser.add_argument("--core-only", action="store_true", help="leave out the pictures that need bpy")
    parser.add_argument("--list", action="store_true", help="list the pictures and their sources")
    args = parser.parse_args(argv)
    presets = pathlib.Path(args.presets)
    todo = jobs(presets)
    if args.only:
        todo = [j for j in todo if any(fnmatch.fnmatch(j.name, p) for p in args.only)]
        if not todo:
            print(f"gallery: no picture matches {', '.join(args.only)}", file=sys.stderr)
            return 2
    if args.core_only:
        todo = [j for j in todo if not j.blender]
    if args.list:
        for j in todo:
            print(f"{j.name}.png\t{j.source}{'  (bpy)' if j.blender else ''}")
        return 0
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    total = time.perf_counter()
    for j in todo:
        t0 = time.perf_counter()
        path, size, changed = write(j, out)
        note = "wrote" if changed else "same"
        print(f"gallery: {note} {os.path.relpath(path)} ({size / 1024:.0f} KB, {time.perf_counter() - t0:.1f} s)")
    print(f"gallery: {len(todo)} pictures in {time.perf_counter() - total:.0f} s")
    if _BLENDER:
        sys.stdout.flush()
        import worldseed_run  # bpy 4.2/4.5 cannot end a process that registered an add-on by itself

        worldseed_run.exit_process(0)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
