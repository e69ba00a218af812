"""The tiled world's overview picture (``<name>_overview.png``): every tile's relief from its files."""

import os

import numpy as np
import pytest

from core import recipe as core_recipe
from core import world as core_world
from core.errors import ParameterError
from core.preview import shaded_relief, splat_colours, srgb_bytes
from core.wfc import read_png

from ._world_cases import isle


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("overview")
    recipe = core_recipe.loads(isle(tiles=(3, 2), erosion=False, rocks=None, slope=3.0))
    run = core_world.run_world(recipe, str(out), name="world")
    assert run.complete
    return recipe, run.grid, str(out)


def test_the_overview_is_the_worlds_relief_in_its_layers_colours(built):
    """Tiles side by side as the grid places them (tile x towards -X, z towards -Y; north up), the
    texture layers blended by their weights: the same picture as the relief of the world's heights
    and colours put together from each tile's layers in memory."""
    recipe, grid, out = built
    n = grid.resolution - 1
    heights = np.zeros(grid.shape, np.float32)
    colours = np.zeros((grid.nz * n, grid.nx * n, 3), np.float32)
    for x, z in grid.tiles():
        layers = core_world.tile_layers(recipe, grid, x, z)
        r0, c0 = grid.origin(x, z)
        heights[r0 : r0 + n + 1, c0 : c0 + n + 1] = layers.heights.values
        weights = np.concatenate([p.transpose(2, 0, 1) for p in layers.splats])[: len(recipe.splat)]
        colours[r0 : r0 + n, c0 : c0 + n] = splat_colours(weights, [s.color for s in recipe.splat])
    want = shaded_relief(
        heights,
        cell_size=grid.cell_size,
        height=grid.height,
        sea_level=recipe.terrain.sea_level,
        colours=srgb_bytes(colours),
        max_side=max(grid.shape),
    )
    got = read_png(core_world.overview_png(recipe, grid, out, "world", max_side=128), name="overview")
    assert got.shape == want.shape == (65, 97, 3)
    off = np.abs(got.astype(int) - want)  # the files hold 16-bit heights: a byte of shading here and there
    assert off.max() <= 1 and (off > 0).mean() < 0.005
    # both layers show: grass greens and rock greys
    green = got[..., 1].astype(int) - got[..., 0]
    assert (green > 20).mean() > 0.05 and (np.abs(green) < 8).mean() > 0.05


def test_the_overview_is_the_same_bytes_every_time_and_a_small_world_is_magnified(built):
    recipe, grid, out = built
    a = core_world.overview_png(recipe, grid, out, "world")
    assert a == core_world.overview_png(recipe, grid, out, "world")
    img = read_png(a, name="overview")
    assert img.shape[1] >= core_world.OVERVIEW_SIDE // 2 and img.shape[0] * 3 // 2 - img.shape[1] in (0, 1, -1)


def test_a_large_world_is_drawn_at_a_step(built):
    recipe, grid, out = built
    img = read_png(core_world.overview_png(recipe, grid, out, "world", max_side=48), name="overview")
    assert max(img.shape[:2]) <= 48 + 1


def test_a_missing_or_linked_tile_file_is_named(built, tmp_path):
    recipe, grid, out = built
    for name in os.listdir(out):
        if name.startswith("world_") and not name.startswith("world_1_1"):
            os.link(os.path.join(out, name), tmp_path / name)
    with pytest.raises(ParameterError, match=r"world_1_1\.raw"):
        core_world.overview_png(recipe, grid, str(tmp_path), "world")
    os.symlink(os.path.join(out, "world_1_1.raw"), tmp_path / "world_1_1.raw")
    with pytest.raises(ParameterError, match=r"world_1_1\.raw.*not a regular file"):
        core_world.overview_png(recipe, grid, str(tmp_path), "world")
