"""core.scatter: terrain look-ups, rule masks, layers and placements, Unity transforms, recipe layers."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import scatter
from worldseed.core.errors import ParameterError
from worldseed.core.heightmap import slope_degrees

from ._scatter_geometry import (
    bilinear,
    mesh_height,
    min_pair_distance,
    pairs_within,
    probes,
    quat_matrix,
    worst_cover,
)

# --- terrain look-ups -------------------------------------------------------------------------


def _terrain(n=65, size=128.0, seed=0):
    """A bumpy terrain (metres) from a few sinusoids, with a sea at 0 m."""
    y, x = np.mgrid[0:n, 0:n] / (n - 1) * size
    return 8.0 * np.sin(x / 11.0) * np.cos(y / 13.0) + 1.5 * np.sin((x + 2 * y) / 6.0) + 4.0, size


def test_sample_heights_lie_on_the_mesh_triangles_in_centred_metres():
    h, size = _terrain()
    rng = np.random.default_rng(1)
    xy = rng.uniform(-size / 2, size / 2, (400, 2))
    z = scatter.sample_heights(h, xy, size=size)
    expect = mesh_height(h, xy[:, 0] + size / 2, xy[:, 1] + size / 2, size, size)
    np.testing.assert_allclose(z, expect, rtol=0, atol=1e-9)
    # not the bilinear blend of the corners (which floats above or sinks below the triangles)
    blend = bilinear(h, xy[:, 0] + size / 2, xy[:, 1] + size / 2, size, size)
    assert np.abs(z - blend).max() > 0.05
    # at the vertices it returns the heights themselves (row 0 is the smallest y)
    assert scatter.sample_heights(h, [[-size / 2, -size / 2], [size / 2, -size / 2]], size=size).tolist() == [
        h[0, 0],
        h[0, -1],
    ]


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(2, 6),
    cols=st.integers(2, 6),
    cell=st.floats(0.25, 40.0),
    # flat, or with relief enough that the two diagonals' lengths differ beyond rounding: on a near-flat
    # quad (relief ~1e-8 m) the cut is a tie that rounding decides, and both cuts are the same ground
    relief=st.one_of(st.just(0.0), st.floats(1e-3, 200.0)),
    seed=st.integers(0, 2**32 - 1),
)
def test_sample_heights_equal_the_triangle_plane(rows, cols, cell, relief, seed):
    rng = np.random.default_rng(seed)
    h = rng.uniform(-1.0, 1.0, (rows, cols)) * relief
    size = cell * (cols - 1)
    width, height = size, cell * (rows - 1)
    # points anywhere, and on the cells' diagonals and edges
    u = np.concatenate([rng.random((300, 2)), rng.integers(0, 5, (60, 2)) / 4.0])
    x, y = u[:, 0] * width, u[:, 1] * height
    z = scatter.sample_heights(h, np.stack([x - width / 2, y - height / 2], axis=1), size=size)
    np.testing.assert_allclose(z, mesh_height(h, x, y, width, height), rtol=0, atol=1e-9 * (1.0 + relief))


@pytest.mark.parametrize(
    ("corners", "cut_a"),
    [
        ((0.0, 0.0, 4.0, 0.0), False),  # v2 up: v0 -- v2 is the longer diagonal
        ((0.0, 4.0, 0.0, 0.0), True),  # v1 up: v1 -- v3 is the longer one
        ((0.0, 1.0, 2.0, 3.0), True),  # a tie (both diagonals rise 2 m), not flat: v0 -- v2
        ((0.0, 10.0, 0.0, 9.0), False),  # v0 -- v2 is shorter but folds the quad more
    ],
)
def test_the_quad_cut_is_the_fbx_readers(corners, cut_a):
    z0, z1, z2, z3 = corners
    h = np.array([[z0, z1], [z3, z2]])  # row 0 at the smallest y: v0 v1, then v3 v2
    # a point just off the centre, on the v0 side of v1 -- v3 and below v0 -- v2
    t, u = 0.45, 0.3
    z = scatter.sample_heights(h, [[t - 0.5, u - 0.5]], size=1.0)[0]
    on_a = z0 + (z1 - z0) * t + (z2 - z1) * u  # triangle v0 v1 v2
    on_b = z0 + (z1 - z0) * t + (z3 - z0) * u  # triangle v0 v1 v3
    assert on_a != on_b
    assert z == pytest.approx(on_a if cut_a else on_b, abs=1e-12)


def test_terrain_normals_are_exact_on_a_plane_and_unit():
    n, size = 17, 32.0
    y, x = np.mgrid[0:n, 0:n] / (n - 1) * size
    plane = 0.3 * x - 0.5 * y
    xy = np.random.default_rng(2).uniform(-16, 16, (50, 2))
    normals = scatter.terrain_normals_at(plane, xy, size=size)
    expect = np.array([-0.3, 0.5, 1.0]) / np.linalg.norm([-0.3, 0.5, 1.0])
    np.testing.assert_allclose(normals, np.tile(expect, (50, 1)), atol=1e-6)
    h, size = _terrain()
    normals = scatter.terrain_normals_at(h, xy, size=size)
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, rtol=1e-12)
    assert (normals[:, 2] > 0).all()


# --- rule masks -------------------------------------------------------------------------------


def test_rule_mask_rules_and_their_product():
    h, size = _terrain()
    cell = size / (h.shape[1] - 1)
    slope = slope_degrees(h, cell_size=cell)
    sea = scatter.rule_mask(h, size=size, rules=scatter.ScatterRules(slope_range=(0, 90), sea_level_m=2.0))
    assert sea.dtype == np.float32 and sea.shape == h.shape
    assert ((sea > 0) == (h > 2.0)).all()
    steep = scatter.rule_mask(h, size=size, rules=scatter.ScatterRules(slope_range=(0, 20), above_sea=False))
    assert ((steep > 0) == (slope <= 20)).all()
    band = scatter.rule_mask(
        h, size=size, rules=scatter.ScatterRules(height_range=(0.0, 10.0), slope_range=(0, 90), above_sea=False)
    )
    assert ((band > 0) == ((h >= 0) & (h <= 10))).all()
    both = scatter.rule_mask(
        h, size=size, rules=scatter.ScatterRules(height_range=(0.0, 10.0), slope_range=(0, 20), above_sea=False)
    )
    np.testing.assert_array_equal(both, band * steep)


def test_rule_mask_fades_inside_the_range():
    h = np.tile(np.linspace(0.0, 100.0, 101), (3, 1))
    m = scatter.rule_mask(
        h,
        size=100.0,
        rules=scatter.ScatterRules(height_range=(20.0, 80.0), height_fade=10.0, slope_range=(0, 90), above_sea=False),
    )
    row = m[1]
    assert row[19] == 0 and row[20] == 0 and row[25] == pytest.approx(0.5) and row[30] == 1
    assert row[75] == pytest.approx(0.5) and row[81] == 0


def test_patchiness_leaves_that_share_bare():
    h, size = _terrain(n=129)
    for p in (0.25, 0.6):
        m = scatter.rule_mask(
            h,
            size=size,
            rules=scatter.ScatterRules(slope_range=(0, 90), above_sea=False, patchiness=p, patch_scale=20.0),
            seed=4,
        )
        assert abs((m == 0).mean() - p) < 0.01
    a = scatter.rule_mask(h, size=size, rules=scatter.ScatterRules(patchiness=0.5, slope_range=(0, 90)), seed=4)
    b = scatter.rule_mask(h, size=size, rules=scatter.ScatterRules(patchiness=0.5, slope_range=(0, 90)), seed=5)
    assert a.tobytes() != b.tobytes()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(slope_range=(40, 10)), "slope_range"),
        (dict(slope_range=(0, 95)), "slope_range"),
        (dict(patchiness=1.5), "patchiness"),
        (dict(height_range=(1,)), "height_range"),
        (dict(keep_away=-1.0), "keep_away"),
        (dict(patch_fade=2.0), "patch_fade"),
    ],
)
def test_rules_refuse_bad_values(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        scatter.ScatterRules(**kwargs)


# --- layers and placements --------------------------------------------------------------------


def _corner_mask_ok(mask, xy, size):
    """True where all four corners of the heightmap cell holding each point are above 0."""
    n = mask.shape[0]
    u = np.clip((xy + size / 2) / size * (n - 1), 0, n - 1)
    j, i = np.minimum(u[:, 0].astype(int), n - 2), np.minimum(u[:, 1].astype(int), n - 2)
    return (mask[i, j] > 0) & (mask[i, j + 1] > 0) & (mask[i + 1, j] > 0) & (mask[i + 1, j + 1] > 0)


def test_placements_obey_sea_slope_and_height_rules():
    h, size = _terrain()
    cell = size / (h.shape[1] - 1)
    rules = scatter.ScatterRules(slope_range=(0.0, 25.0), height_range=(-5.0, 10.0), sea_level_m=1.0)
    layer = scatter.Layer("rocks", radius=1.5, rules=rules, align=1.0, max_tilt=90.0)
    (p,) = scatter.scatter_layers(h, size=size, layers=[layer], seed=2)
    assert len(p) > 100
    xy = p.positions[:, :2]
    z = p.positions[:, 2]  # on the mesh's triangles (sink 0)
    np.testing.assert_allclose(z, mesh_height(h, xy[:, 0] + size / 2, xy[:, 1] + size / 2, size, size), atol=1e-9)
    assert (z > 1.0).all() and (z <= 10.0).all()  # above the sea, in the range
    slope = bilinear(slope_degrees(h, cell_size=cell), xy[:, 0] + size / 2, xy[:, 1] + size / 2, size, size)
    assert slope.max() <= 25.0 + 1e-4
    normals = scatter.terrain_normals_at(h, xy, size=size)
    assert np.degrees(np.arccos(normals[:, 2])).max() <= 25.0 + 1e-4
    mask = scatter.rule_mask(h, size=size, rules=rules)
    assert _corner_mask_ok(mask, xy, size).all()
    assert min_pair_distance(xy, 3.0) >= 1.5


def test_placement_heights_rotations_and_scales():
    h, size = _terrain()
    layer = scatter.Layer(
        "bush",
        radius=2.0,
        rules=scatter.ScatterRules(slope_range=(0, 90), above_sea=False),
        scale_range=(0.5, 2.0),
        align=0.6,
        max_tilt=12.0,
        sink=0.3,
    )
    (p,) = scatter.scatter_layers(h, size=size, layers=[layer], seed=7)
    n = len(p)
    assert p.positions.shape == (n, 3) and p.rotations.shape == (n, 4) and p.scales.shape == (n,)
    assert p.positions.dtype == p.rotations.dtype == p.scales.dtype == np.float64
    xy = p.positions[:, :2]
    ground = mesh_height(h, xy[:, 0] + size / 2, xy[:, 1] + size / 2, size, size)
    np.testing.assert_allclose(p.positions[:, 2], ground - 0.3 * p.scales, atol=1e-9)
    assert (p.scales >= 0.5).all() and (p.scales <= 2.0).all() and np.ptp(p.scales) > 1.0
    np.testing.assert_allclose(np.linalg.norm(p.rotations, axis=1), 1.0, atol=1e-12)
    up = quat_matrix(p.rotations)[:, :, 2]
    tilt = np.degrees(np.arccos(np.clip(up[:, 2], -1, 1)))
    normals = scatter.terrain_normals_at(h, xy, size=size)
    ground_tilt = np.degrees(np.arccos(normals[:, 2]))
    np.testing.assert_allclose(tilt, np.minimum(0.6 * ground_tilt, 12.0), atol=1e-6)
    assert tilt.max() <= 12.0 + 1e-9 and tilt.max() > 11.0
    # props lean towards the downhill side, like the ground
    lean = up[:, :2][tilt > 1]
    assert (np.einsum("ij,ij->i", lean, normals[tilt > 1, :2]) > 0).all()


def test_align_zero_stands_props_upright_and_yaw_false_keeps_them_unturned():
    h, size = _terrain()
    rules = scatter.ScatterRules(slope_range=(0, 90), above_sea=False)
    a, b = scatter.scatter_layers(
        h,
        size=size,
        seed=1,
        layers=[
            scatter.Layer("a", radius=3.0, rules=rules, align=0.0),
            scatter.Layer("b", radius=3.0, rules=rules, align=0.0, yaw=False),
        ],
    )
    m = quat_matrix(a.rotations)
    np.testing.assert_allclose(m[:, :, 2], np.tile([0.0, 0.0, 1.0], (len(a), 1)), atol=1e-12)
    yaw = np.arctan2(m[:, 1, 0], m[:, 0, 0]) % (2 * np.pi)
    assert np.histogram(yaw, bins=4, range=(0, 2 * np.pi))[0].min() > len(a) / 8  # turned all ways
    np.testing.assert_array_equal(b.rotations, np.tile([1.0, 0.0, 0.0, 0.0], (len(b), 1)))


def test_full_alignment_follows_the_terrain_normal():
    h, size = _terrain()
    layer = scatter.Layer(
        "a", radius=3.0, rules=scatter.ScatterRules(slope_range=(0, 90), above_sea=False), align=1.0, max_tilt=90.0
    )
    (p,) = scatter.scatter_layers(h, size=size, layers=[layer], seed=3)
    up = quat_matrix(p.rotations)[:, :, 2]
    np.testing.assert_allclose(up, scatter.terrain_normals_at(h, p.positions[:, :2], size=size), atol=1e-9)


def test_layers_keep_their_distance_from_earlier_layers():
    h, size = _terrain()
    rules = dict(slope_range=(0, 90), above_sea=False)
    trees = scatter.Layer("trees", radius=6.0, rules=scatter.ScatterRules(patchiness=0.5, **rules))
    rocks = scatter.Layer("rocks", radius=2.0, rules=scatter.ScatterRules(**rules))  # keep_away None
    grass = scatter.Layer("grass", radius=0.8, rules=scatter.ScatterRules(keep_away=1.5, **rules))
    t, r, g = scatter.scatter_layers(h, size=size, layers=[trees, rocks, grass], seed=5)
    assert len(t) and len(r) and len(g)
    # rocks keep max(own radius, the tree's radius) from trees
    q, p = pairs_within(t.positions[:, :2], 6.0, r.positions[:, :2])
    assert not len(q)
    # grass keeps max(0.8, keep_away 1.5) from trees and rocks
    earlier = np.concatenate([t.positions[:, :2], r.positions[:, :2]])
    q, p = pairs_within(earlier, 1.5, g.positions[:, :2])
    assert not len(q)
    assert min_pair_distance(g.positions[:, :2], 1.6) >= 0.8
    # and grass fills what is left: every probe is within 0.8 of grass or 1.5 of an earlier prop
    both = np.concatenate([g.positions[:, :2], earlier])
    radii = np.concatenate([np.full(len(g), 0.8), np.full(len(earlier), 1.5)])
    probe = probes(size, size, 0.2) - size / 2
    assert worst_cover(both, radii, probe, np.full(len(probe), 0.8)) < 1.0


def test_scatter_is_deterministic_and_appending_a_layer_changes_nothing_before_it():
    h, size = _terrain()
    rules = scatter.ScatterRules(slope_range=(0, 30), patchiness=0.3)
    a = scatter.Layer("a", radius=3.0, rules=rules, align=0.5)
    b = scatter.Layer("b", radius=1.5, rules=scatter.ScatterRules(keep_away=0.0))
    one = scatter.scatter_layers(h, size=size, layers=[a], seed=9)
    two = scatter.scatter_layers(h, size=size, layers=[a, b], seed=9)
    again = scatter.scatter_layers(h, size=size, layers=[a, b], seed=9)
    other = scatter.scatter_layers(h, size=size, layers=[a, b], seed=10)
    for name in ("positions", "rotations", "scales", "radii"):
        assert getattr(one[0], name).tobytes() == getattr(two[0], name).tobytes()
        assert getattr(two[1], name).tobytes() == getattr(again[1], name).tobytes()
    assert two[0].positions.tobytes() != other[0].positions.tobytes()


def test_patchiness_reduces_the_count_in_proportion():
    h, size = _terrain(n=129, size=256.0)
    counts = {}
    for p in (0.0, 0.5):
        layer = scatter.Layer(
            "g",
            radius=2.0,
            rules=scatter.ScatterRules(slope_range=(0, 90), above_sea=False, patchiness=p, patch_scale=30.0),
        )
        counts[p] = len(scatter.scatter_layers(h, size=size, layers=[layer], seed=1)[0])
    assert 0.42 < counts[0.5] / counts[0.0] < 0.58


def test_variable_layer_is_denser_where_the_mask_is_high():
    h = np.tile(np.linspace(0.0, 60.0, 65), (65, 1))  # heights rise along x
    rules = scatter.ScatterRules(height_range=(0.0, 60.0), height_fade=30.0, slope_range=(0, 90), above_sea=False)
    layer = scatter.Layer("g", radius=1.0, radius_max=3.0, rules=rules)
    (p,) = scatter.scatter_layers(h, size=64.0, layers=[layer], seed=2)
    x = p.positions[:, 0]
    # the mask is 1 - |h - 30| / 30 with h = (x + 32) * 60 / 64, linear in x, so exact
    height = (x + 32.0) * 60.0 / 64.0
    np.testing.assert_allclose(p.radii, 3.0 - 2.0 * (1.0 - np.abs(height - 30.0) / 30.0), atol=1e-9)
    middle, edge = np.abs(x) < 6, np.abs(x) > 20  # a 12 m strip against two 12 m strips
    assert middle.sum() / 12.0 > 3.0 * edge.sum() / 24.0  # ~ (2.6 / 1.2)^2 = 4.7 times denser


def test_scatter_layers_refuses_bad_input():
    h, size = _terrain()
    with pytest.raises(ParameterError, match="layers"):
        scatter.scatter_layers(h, size=size, layers=[object()])
    with pytest.raises(ParameterError, match="heights"):
        scatter.scatter_layers(np.zeros(5), size=size, layers=[])
    with pytest.raises(ParameterError, match="size"):
        scatter.scatter_layers(h, size=0.0, layers=[])
    with pytest.raises(ParameterError, match="radius_max"):
        scatter.Layer(radius=2.0, radius_max=1.0)
    with pytest.raises(ParameterError, match="radius_max"):
        scatter.Layer(radius=0.5, radius_max=8.0)
    with pytest.raises(ParameterError, match="max_tilt"):
        scatter.Layer(max_tilt=120.0)
    assert scatter.scatter_layers(h, size=size, layers=[]) == ()


def test_a_layer_with_no_room_is_empty():
    h, size = _terrain()
    layer = scatter.Layer("none", radius=2.0, rules=scatter.ScatterRules(height_range=(500.0, 600.0)))
    (p,) = scatter.scatter_layers(h, size=size, layers=[layer])
    assert len(p) == 0 and p.positions.shape == (0, 3) and p.rotations.shape == (0, 4)


# --- Unity -------------------------------------------------------------------------------------

M = np.array([[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])  # Blender (x, y, z) -> (-x, z, -y)


def test_the_axis_map_is_a_reflection():
    assert np.linalg.det(M) == pytest.approx(-1.0)  # so M R M^-1 needs care, but is a rotation


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_unity_transforms_rotate_vectors_like_blender(seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(16, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    pos = rng.normal(size=(16, 3)) * 50
    p = scatter.Placement(scatter.Layer(), pos, q, rng.uniform(0.5, 2, 16), np.ones(16))
    upos, uq, us = scatter.unity_transforms(p)
    np.testing.assert_allclose(upos, pos @ M.T)
    np.testing.assert_array_equal(us, p.scales)
    ru = quat_matrix(uq[:, [3, 0, 1, 2]])  # Unity (x, y, z, w); same matrix formula
    np.testing.assert_allclose(np.linalg.det(ru), 1.0)
    v = rng.normal(size=(16, 3))
    blender_then_map = (M @ np.einsum("nij,nj->ni", quat_matrix(q), v).T).T
    map_then_unity = np.einsum("nij,nj->ni", ru, v @ M.T)
    np.testing.assert_allclose(map_then_unity, blender_then_map, atol=1e-12)
    # the instance's whole transform (scale, rotate, move) agrees point by point
    local = rng.normal(size=(16, 3))
    world_b = pos + p.scales[:, None] * np.einsum("nij,nj->ni", quat_matrix(q), local)
    world_u = upos + us[:, None] * np.einsum("nij,nj->ni", ru, local @ M.T)
    np.testing.assert_allclose(world_u, world_b @ M.T, atol=1e-9)


# --- recipes -----------------------------------------------------------------------------------


def test_layer_from_spec_maps_a_recipe_layer():
    from worldseed.core import scatter as scatter_spec

    spec = scatter_spec.from_dict(
        {
            "name": "Grass",
            "prop": "grass",
            "radius": 1.0,
            "radius_max": 2.5,
            "slope_range": [0.0, 30.0],
            "keep_away": 0.5,
            "sink": 0.1,
        }
    )
    layer = scatter.layer_from_spec(spec, sea_level_m=12.0)
    assert layer.name == "Grass" and layer.r_min == 1.0 and layer.r_max == 2.5 and layer.sink == 0.1
    assert layer.rules.sea_level_m == 12.0 and layer.rules.keep_away == 0.5
    assert layer.rules.slope_range == (0.0, 30.0) and layer.rules.slope_fade > 0
    fixed = scatter.layer_from_spec(scatter_spec.from_dict({"radius": 3.0}), sea_level_m=0.0)
    assert fixed.radius_max is None and fixed.rules.slope_fade == 0.0
