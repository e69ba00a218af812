"""core.placement: Blender placements in Unity's coordinates."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import placement, unity

M = np.array([[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])  # Blender point -> Unity point


def _unit_quaternions(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def test_the_point_map_is_core_unity_position():
    p = np.random.default_rng(0).normal(size=(20, 3))
    np.testing.assert_allclose(unity.unity_position(p), p @ M.T)


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_unity_rotation_rotates_mapped_vectors_like_blender(seed):
    rng = np.random.default_rng(seed)
    q = _unit_quaternions(rng, 8)
    rb = placement.quaternion_matrices(q)
    qu = placement.unity_rotation(q)  # (x, y, z, w)
    ru = placement.quaternion_matrices(qu[:, [3, 0, 1, 2]])  # Unity's quaternion -> matrix is the same formula
    v = rng.normal(size=(8, 3))
    blender_then_map = np.einsum("ij,nj->ni", M, np.einsum("nij,nj->ni", rb, v))
    map_then_unity = np.einsum("nij,nj->ni", ru, np.einsum("ij,nj->ni", M, v))
    np.testing.assert_allclose(blender_then_map, map_then_unity, atol=1e-12)
    assert np.allclose(np.linalg.det(ru), 1.0)


def test_yaw_about_blender_up_is_yaw_about_unity_up():
    theta = np.radians(90.0)
    q = np.array([[np.cos(theta / 2), 0.0, 0.0, np.sin(theta / 2)]])
    x, y, z, w = placement.unity_rotation(q)[0]
    assert x == 0.0 and z == 0.0 and np.isclose(abs(y), np.sin(theta / 2)) and np.isclose(w, np.cos(theta / 2))


def test_placement_records_and_errors():
    pos = np.array([[1.0, 2.0, 3.0]])
    recs = placement.placement_records(
        pos, [[1.0, 0, 0, 0]], [1.5], [1], ["Rock", "Oak"], layers=[0], layer_names=["trees"]
    )
    assert recs == [
        {"prop": "Oak", "position": [-1.0, 3.0, -2.0], "rotation": [0.0, 0.0, 0.0, 1.0], "scale": 1.5, "layer": "trees"}
    ]
    with pytest.raises(ValueError, match="props must hold one index"):
        placement.placement_records(pos, [[1.0, 0, 0, 0]], [1.0], [2], ["Rock", "Oak"])
    with pytest.raises(ValueError, match="rotations"):
        placement.placement_records(pos, [[1.0, 0, 0]], [1.0], [0], ["Rock"])


def test_terrain_tree_instances_are_normalised_over_the_terrain():
    size, height = 100.0, 20.0
    terrain_pos = unity.unity_terrain_position(size)  # terrain centred on the Blender origin
    blender = np.array([[-50.0, -50.0, 0.0], [50.0, 50.0, 20.0], [0.0, 0.0, 10.0]])
    theta = np.radians(30.0)
    q = np.tile([np.cos(theta / 2), 0.0, 0.0, np.sin(theta / 2)], (3, 1))
    trees = placement.terrain_tree_instances(
        blender, q, [1.0, 2.0, 0.5], [0, 1, 0], terrain_position=terrain_pos, size=size, height=height
    )
    pos = np.array([t["position"] for t in trees])
    assert np.all((pos >= 0) & (pos <= 1))
    # Blender (-50, -50) is Unity (50, -, 50): the far corner of a Terrain at (-50, 0, -50)
    np.testing.assert_allclose(pos[0], [1.0, 0.0, 1.0]) and np.testing.assert_allclose(pos[1], [0.0, 1.0, 0.0])
    np.testing.assert_allclose(pos[2], [0.5, 0.5, 0.5])
    yaws = {round(abs(t["rotation"]), 6) for t in trees}
    assert yaws == {round(theta, 6)}
    assert [t["width_scale"] for t in trees] == [1.0, 2.0, 0.5] and [t["prototype"] for t in trees] == [0, 1, 0]


def test_matrix_quaternions_inverts_quaternion_matrices():
    q = _unit_quaternions(np.random.default_rng(5), 50)
    q *= np.sign(q[:, :1])  # the same rotation with w >= 0
    np.testing.assert_allclose(placement.matrix_quaternions(placement.quaternion_matrices(q)), q, atol=1e-9)


def test_scatter_entry_lists_every_instance_and_the_tree_layers_as_terrain_trees():
    rng = np.random.default_rng(7)
    n = 300
    pos = rng.uniform(-100.0, 100.0, (n, 3))
    rot = _unit_quaternions(rng, n)
    scale = rng.uniform(0.5, 2.0, n)
    names = ["Rock_P01", "Rock_P02", "Oak_P01", "Oak_P02", "Pine_P01"]
    layer = rng.integers(0, 3, n)
    which = np.where(layer == 0, rng.integers(0, 2, n), np.where(layer == 1, rng.integers(2, 4, n), 4))
    which[layer == 1] = 3  # layer 1 uses Oak_P02 only: Oak_P01 is no prototype
    centre = (256.0, -128.0, 3.0)
    entry = placement.scatter_entry(
        pos, rot, scale, which, names, layers=layer, layer_names=["Rocks", "Oaks", "Pines"], tree_layers=[1, 2],
        object_name="T_{}_{:05d}".format, scatter="T_Scatter", terrain="T", blender_centre=centre,
        size=256.0, height=0.0,
    )  # fmt: skip
    assert entry["instances"] == [
        dict(r, object=f"T_{r['prop']}_{i:05d}")
        for i, r in enumerate(
            placement.placement_records(
                pos, rot, scale, which, names, layers=layer, layer_names=["Rocks", "Oaks", "Pines"]
            )
        )
    ]
    assert entry["terrain"] == {
        "name": "T",
        "position": unity.unity_terrain_position(256.0, blender_centre=centre).tolist(),
        "size": [256.0, 0.0, 256.0],  # as given; the tree heights divide by 1e-6 instead of 0
    }
    assert entry["terrain_trees"]["prototypes"] == ["Oak_P02", "Pine_P01"]
    trees = entry["terrain_trees"]["instances"]
    pick = layer > 0
    assert len(trees) == pick.sum()
    assert [t["prototype"] for t in trees] == [0 if k == 3 else 1 for k in which[pick]]
    expected = placement.terrain_tree_instances(
        pos[pick], rot[pick], scale[pick], [0 if k == 3 else 1 for k in which[pick]],
        terrain_position=unity.unity_terrain_position(256.0, blender_centre=centre), size=256.0, height=1e-6,
    )  # fmt: skip
    assert trees == expected
    assert (entry["props"], entry["layers"], entry["scatter"]) == (names, ["Rocks", "Oaks", "Pines"], "T_Scatter")


def test_scatter_entry_without_instances():
    entry = placement.scatter_entry(
        np.empty((0, 3)), np.empty((0, 4)), np.empty(0), np.empty(0, int), ["Rock_P01"], layers=np.empty(0, int),
        layer_names=["Rocks"], tree_layers=[0], object_name="{}_{}".format, scatter="S", terrain="T",
        blender_centre=(0.0, 0.0, 0.0), size=64.0, height=10.0,
    )  # fmt: skip
    assert entry["instances"] == [] and entry["terrain_trees"] == {"prototypes": [], "instances": []}
