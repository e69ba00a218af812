"""A terrain tile from a spec: banding, shaping, seams, determinism."""

import numpy as np

from worldseed.core import noise, recipe, terrain


def spec(**kw):
    return recipe.replace(recipe.Recipe(), **{f"terrain_{k}": v for k, v in kw.items()}).terrain


def test_banded_noise_equals_one_call():
    s = spec(resolution=129, octaves=5, warp=0.3)
    gen = terrain.noise_bands(s, seed=3, band_cells=129 * 10)  # 13 bands
    steps = 0
    while True:
        try:
            next(gen)
            steps += 1
        except StopIteration as stop:
            banded = stop.value
            break
    assert steps == 13
    whole = noise.fbm(
        (129, 129),
        scale=s.scale / s.cell_size,
        octaves=5,
        persistence=s.persistence,
        lacunarity=s.lacunarity,
        seed=3,
        basis=s.basis,
        kind=s.kind,
        warp=0.3,
    )
    assert banded.tobytes() == whole.tobytes()


def test_fractional_offsets_give_one_call_exactly():
    s = spec(resolution=65, offset=[3.3, 7.7])
    gen = terrain.noise_bands(s, seed=3, band_cells=65 * 4)
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            banded = stop.value
            break
    cell = s.cell_size
    whole = noise.fbm(
        (65, 65),
        scale=s.scale / cell,
        octaves=s.octaves,
        persistence=s.persistence,
        lacunarity=s.lacunarity,
        seed=3,
        offset=(3.3 / cell, 7.7 / cell),
    )
    assert banded.tobytes() == whole.tobytes()


def test_heights_in_unit_range_and_deterministic():
    s = spec(resolution=65, falloff="radial", terraces=4, sea_level=0.2, curve=[[0.0, 0.0], [0.5, 0.3], [1.0, 1.0]])
    a = terrain.terrain_heights(s, seed=1)
    b = terrain.terrain_heights(s, seed=1)
    c = terrain.terrain_heights(s, seed=2)
    assert a.values.dtype == np.float32 and a.values.shape == (65, 65)
    assert a.values.min() >= 0.2 - 1e-6 and a.values.max() <= 1.0
    assert a.values.tobytes() == b.values.tobytes() and a.values.tobytes() != c.values.tobytes()
    assert np.allclose(a.metres, a.values * s.height)


def test_stretch_uses_the_full_range():
    h = terrain.terrain_heights(spec(resolution=65), seed=5).values
    assert h.min() == 0.0 and h.max() == 1.0


def test_fixed_tiles_join_exactly():
    """Two neighbouring tiles (offsets one tile apart) share their edge bit for bit."""
    size, n = 256.0, 65
    left = terrain.terrain_heights(spec(resolution=n, size=size, normalize="fixed"), seed=8).values
    right = terrain.terrain_heights(spec(resolution=n, size=size, normalize="fixed", offset=[size, 0.0]), seed=8).values
    above = terrain.terrain_heights(spec(resolution=n, size=size, normalize="fixed", offset=[0.0, size]), seed=8).values
    assert left[:, -1].tobytes() == right[:, 0].tobytes()
    assert left[-1, :].tobytes() == above[0, :].tobytes()


def test_falloff_lowers_the_border():
    h = terrain.terrain_heights(spec(resolution=65, falloff="radial", falloff_width=0.5), seed=2).values
    border = np.concatenate([h[0], h[-1], h[:, 0], h[:, -1]])
    assert border.max() <= 1e-6 and h.max() > 0.5


def test_resolution_changes_keep_the_shape():
    """The same size at twice the resolution samples the same landscape (artists expect this)."""
    lo = terrain.terrain_heights(spec(resolution=33, octaves=3, normalize="fixed"), seed=4).values
    hi = terrain.terrain_heights(spec(resolution=65, octaves=3, normalize="fixed"), seed=4).values
    np.testing.assert_allclose(hi[::2, ::2], lo, atol=1e-5)


def test_tile_normals_join_exactly_and_lods_share_them():
    size, n = 256.0, 65
    a = terrain.terrain_heights(spec(resolution=n, size=size, normalize="fixed"), seed=8)
    b = terrain.terrain_heights(spec(resolution=n, size=size, normalize="fixed", offset=[size, 0.0]), seed=8)
    assert a.margin.shape == (n + 2, n + 2)
    np.testing.assert_array_equal(a.margin[1:-1, 1:-1], a.values)
    na, nb = terrain.grid_normals(a).reshape(n, n, 3), terrain.grid_normals(b).reshape(n, n, 3)
    assert na[:, -1].tobytes() == nb[:, 0].tobytes()
    np.testing.assert_allclose(np.linalg.norm(na, axis=-1), 1.0, atol=1e-6)
    lod1 = terrain.grid_normals(a, stride=2).reshape(33, 33, 3)
    assert lod1.tobytes() == na[::2, ::2].tobytes()


def test_margin_does_not_change_the_tile():
    s = spec(resolution=65, normalize="fixed", falloff="square", terraces=3)
    with_margin = terrain.terrain_heights(s, seed=2)
    raw = terrain.noise_bands(s, seed=2)
    while True:
        try:
            next(raw)
        except StopIteration as stop:
            plain = terrain.shape_heights(stop.value, s)
            break
    assert with_margin.values.tobytes() == plain.tobytes()


def test_normals_of_a_plane_without_margin():
    x = np.linspace(0, 1, 9, dtype=np.float32)
    h = terrain.TerrainHeights(np.tile(x, (9, 1)), cell_size=0.125, height=1.0)  # slope 1 along +x
    normals = terrain.grid_normals(h)
    np.testing.assert_allclose(normals, np.tile([-np.sqrt(0.5), 0.0, np.sqrt(0.5)], (81, 1)), atol=1e-6)
