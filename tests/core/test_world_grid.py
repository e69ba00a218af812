"""The tiled world's recipe keys ([world] tiles, halo), its grid, tile names and tile ranges."""

import pytest

from core import recipe as core_recipe
from core.errors import ParameterError, RecipeError
from core.world import WorldGrid, halo_cells, parse_tile_range, tile_base, world_grid

TILED = '[world]\ntiles = [3, 2]\n[terrain]\nnormalize = "fixed"\nresolution = 65\nsize = 128.0\n'


def test_default_world_is_one_tile_and_old_recipes_read_alike():
    r = core_recipe.loads("[world]\nseed = 4\n")
    assert r.world.tiles == (1, 1) and r.world.halo == 0.0
    again = core_recipe.loads(core_recipe.dumps(r))
    assert again == r


def test_tiles_round_trip_through_toml():
    r = core_recipe.loads(TILED)
    assert r.world.tiles == (3, 2)
    assert core_recipe.loads(core_recipe.dumps(r)).world.tiles == (3, 2)


@pytest.mark.parametrize(
    "world, match",
    [
        ("tiles = [0, 2]", r"world\.tiles\[0\] must be an integer in \[1, 64\], got 0"),
        ("tiles = [2, 65]", r"world\.tiles\[1\] must be an integer in \[1, 64\], got 65"),
        ("tiles = [64, 17]", r"world\.tiles \[64, 17\] makes 1,088 tiles; at most 1,024"),
        ("tiles = 4", r"world\.tiles must be a pair of whole numbers \[nx, nz\], got 4"),
        ("tiles = [1, 2, 3]", r"world\.tiles must be a pair"),
        ("tiles = [1.5, 2]", r"world\.tiles\[0\]"),
        ('tiles = ["a", 2]', r"world\.tiles\[0\]"),
        ("halo = -1.0", r"world\.halo must be"),
    ],
)
def test_bad_tile_grids_are_one_clear_error(world, match):
    with pytest.raises(RecipeError, match=match):
        core_recipe.loads(f'[world]\n{world}\n[terrain]\nnormalize = "fixed"\nresolution = 65\n')


@pytest.mark.parametrize(
    "terrain, match",
    [
        (
            'normalize = "stretch"\nresolution = 65',
            r"terrain\.normalize must be 'fixed' in a tiled world.*got 'stretch'",
        ),
        ('normalize = "fixed"\nresolution = 100', r"terrain\.resolution must be one of Unity's 33, 65.*got 100"),
        ('normalize = "fixed"\nresolution = 17', r"terrain\.resolution must be one of Unity's.*got 17"),
        ('normalize = "fixed"\nresolution = 65\nenabled = false', r"world\.tiles \[2, 2\] needs \[terrain\] enabled"),
        (
            'normalize = "fixed"\nresolution = 65\nsize = 128.0\noffset = [1.0, 0.0]',
            r"terrain\.offset\[0\] must be a whole",
        ),
    ],
)
def test_tiled_worlds_need_fixed_normalisation_and_unity_sizes(terrain, match):
    with pytest.raises(RecipeError, match=match):
        core_recipe.loads(f"[world]\ntiles = [2, 2]\n[terrain]\n{terrain}\n")


def test_halo_at_most_half_a_tile():
    with pytest.raises(RecipeError, match=r"world\.halo must be in \[0, 64\] m .*got 64\.5"):
        core_recipe.loads(TILED.replace("tiles = [3, 2]", "tiles = [3, 2]\nhalo = 64.5"))
    assert core_recipe.loads(TILED.replace("tiles = [3, 2]", "tiles = [3, 2]\nhalo = 64.0")).world.halo == 64.0


def test_a_tiled_world_without_normalize_takes_fixed():
    # the one mode whose tiles join; a recipe that writes normalize keeps it (and 'stretch' is refused above)
    r = core_recipe.loads("[world]\ntiles = [2, 1]\n[terrain]\nresolution = 65\n")
    assert r.terrain.normalize == "fixed"
    assert core_recipe.loads(core_recipe.dumps(r)) == r
    assert core_recipe.loads("[world]\ntiles = [2, 1]\n").terrain.normalize == "fixed"


def test_single_tile_keeps_every_old_terrain_setting():
    # a [1, 1] world is today's terrain: stretch normalisation and any resolution stay allowed
    r = core_recipe.loads("[terrain]\nresolution = 100\n")
    assert r.terrain.normalize == "stretch" and r.world.tiles == (1, 1)


def test_grid_geometry_follows_unity():
    g = world_grid(core_recipe.loads(TILED))
    assert (g.nx, g.nz, g.resolution, g.size, g.world_name) == (3, 2, 65, 128.0, "World")
    assert g.tiles() == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]
    assert g.neighbours(1, 0) == {"left": (0, 0), "top": (1, 1), "right": (2, 0), "bottom": None}
    assert g.neighbours(2, 1) == {"left": (1, 1), "top": None, "right": None, "bottom": (2, 0)}
    assert g.unity_position(2, 1) == (256.0, 0.0, 128.0)
    assert g.blender_centre(2, 1) == (-320.0, -192.0, 0.0)
    assert g.object_name(2, 1) == "World_2_1"
    assert g.shape == (129, 193)
    # Blender -> Unity is (-x, z, -y): the centre maps into the tile's Unity square
    bx, by, _ = g.blender_centre(2, 1)
    ux, uz = -bx, -by
    assert 2 * 128.0 < ux < 3 * 128.0 and 1 * 128.0 < uz < 2 * 128.0
    # neighbours share a border: global sample indices of the shared column agree
    (r0, c0), (r1, c1) = g.origin(0, 0), g.origin(1, 0)
    assert r0 == r1 and c0 == c1 + 64  # tile 1 lies at smaller Blender X: its last column is tile 0's first


def test_grid_is_frozen():
    g = world_grid(core_recipe.loads(TILED))
    with pytest.raises(AttributeError):
        g.nx = 5


def test_auto_halo_reaches_a_droplet_and_explicit_halo_rounds_up():
    on = core_recipe.loads(TILED + "[terrain.erosion]\nenabled = true\nlifetime = 30.0\nradius = 3.0\n")
    assert halo_cells(on) == 17  # (30 + 3) / 2 m cells, rounded up
    off = core_recipe.loads(TILED)
    assert halo_cells(off) == 8
    explicit = core_recipe.loads(TILED.replace("tiles = [3, 2]", "tiles = [3, 2]\nhalo = 5.0"))
    assert halo_cells(explicit) == 3  # 2.5 cells -> 3


def test_tile_base():
    assert tile_base("world", 0, 12) == "world_0_12"


def test_parse_tile_range():
    g = WorldGrid(nx=4, nz=3, resolution=33, size=64.0, height=10.0, halo_cells=8, world_name="W")
    assert parse_tile_range("0:2,1:3", g) == ((0, 1), (1, 1), (0, 2), (1, 2))
    assert parse_tile_range("3", g) == ((3, 0), (3, 1), (3, 2))
    assert parse_tile_range(" 1:2 , 2 ", g) == ((1, 2),)


@pytest.mark.parametrize("text", ["", "a:b", "0:5,0:1", "2:2,0:1", "0:1,0:1,0:1", "-1:2", "1:0"])
def test_bad_tile_ranges_name_the_flag(text):
    g = WorldGrid(nx=4, nz=3, resolution=33, size=64.0, height=10.0, halo_cells=8, world_name="W")
    with pytest.raises(ParameterError, match=r"--tiles"):
        parse_tile_range(text, g)
