"""core.tree_mesh LODs: triangle ratios, coarsening, the real species pipeline."""

import numpy as np
import pytest

from worldseed.core.trees import tree_mesh
from worldseed.core.trees.tree_mesh import LEAVES, tree_lods

from ._tree_skeletons import check_manifold, check_mesh, grown_tree, side_branch_count

# --- levels of detail -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def leafy():
    return grown_tree(1)


@pytest.fixture(scope="module")
def bare():
    return grown_tree(2, leaves=False, trunk_segments=20)


@pytest.mark.parametrize("which", ["leafy", "bare"])
def test_lod_ratios_land_near_the_targets(which, request):
    sk = request.getfixturevalue(which)
    lods = tree_lods(sk, sides=8)
    counts = [m.n_triangles for m in lods]
    assert counts[0] > 5_000
    assert 0.30 <= counts[1] / counts[0] <= 0.50
    assert 0.10 <= counts[2] / counts[0] <= 0.20
    assert counts[0] > counts[1] > counts[2]
    full = tree_mesh.tree_mesh(sk, sides=8)
    assert lods[0].vertices.tobytes() == full.vertices.tobytes()
    for m in lods:
        check_mesh(m)
        # the crown stays about the same size
        np.testing.assert_allclose(m.vertices.max(axis=0)[2], full.vertices.max(axis=0)[2], rtol=0.25)
    if which == "leafy":
        leaves = [int(np.count_nonzero(m.materials == LEAVES)) for m in lods]
        assert leaves[0] > leaves[1] > leaves[2] > 0


@pytest.mark.parametrize("name", ["abop_1_25_bush", "abop_1_24a", "abop_1_24d"])
def test_species_through_the_real_pipeline(name):
    """ABOP's bush (polygon leaves) and two bare figures, grown by core.lsystem and core.turtle."""
    from worldseed.core import trees as tree

    spec = tree.species_spec(name)
    sk, _ = tree.grow_skeleton(spec)
    lods = tree_lods(sk, sides=spec.sides, leaf_shape=spec.leaf_shape, leaf_width=spec.leaf_width)
    counts = [m.n_triangles for m in lods]
    assert 0.30 <= counts[1] / counts[0] <= 0.50
    assert 0.10 <= counts[2] / counts[0] <= 0.20
    for m in lods:
        check_mesh(m)
    check_manifold(lods[0], side_branch_count(sk), spec.sides)
    if sk.polygons:
        assert (lods[0].materials == LEAVES).sum() >= len(sk.polygons)


def test_lod_levels_coarsen_every_option(leafy):
    plan = tree_mesh.tree_plan(leafy, np.zeros((0, 3)), np.zeros(0, np.int64), leaf_width=0.5, seed=0)
    details = tree_mesh._lod_details(plan, levels=4, sides=12, ratios=(1.0, 0.5, 0.25, 0.1), leaf_shape="leaf")
    for a, b in zip(details, details[1:]):
        assert b.sides <= a.sides and b.prune >= a.prune
        assert b.simplify_angle >= a.simplify_angle and b.keep_leaves <= a.keep_leaves
    assert details[-1].sides < 12 and details[-1].prune > 0


def test_lods_keep_the_trunk_and_are_deterministic(bare):
    a = tree_lods(bare, levels=2, ratios=(1.0, 0.01))
    b = tree_lods(bare, levels=2, ratios=(1.0, 0.01))
    assert [m.vertices.tobytes() for m in a] == [m.vertices.tobytes() for m in b]
    assert a[1].n_triangles > 0
    z = a[1].vertices[:, 2]
    assert z.min() <= 0.0 + 1e-6 < 0.3 < z.max()
