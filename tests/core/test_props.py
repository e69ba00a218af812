"""core.props: the built-in rocks and grass clumps."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core.errors import ParameterError
from worldseed.core.scatter import props


def _areas(m):
    v = m.vertices.astype(np.float64)
    f = m.indices.astype(np.int64)
    return np.linalg.norm(np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]]), axis=1) / 2


def _check_mesh(m):
    assert m.indices.max() < m.n_vertices and np.all(np.isfinite(m.uvs)) and np.all(np.isfinite(m.vertices))
    np.testing.assert_allclose(np.linalg.norm(m.normals, axis=1), 1.0, atol=1e-5)
    assert _areas(m).min() > 1e-8  # no degenerate triangles
    assert abs(float(m.vertices[:, 2].min())) < 1e-6  # resting on z = 0
    assert np.bincount(m.indices.ravel(), minlength=m.n_vertices).min() > 0  # no unused vertices


def test_icosphere_is_a_closed_sphere_without_duplicates():
    for detail in range(4):
        v, f = props.icosphere(detail)
        assert len(v) == 10 * 4**detail + 2 and len(f) == 20 * 4**detail
        np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0)
        assert len(np.unique(np.round(v, 9), axis=0)) == len(v)
        edges = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
        _, counts = np.unique(edges, axis=0, return_counts=True)
        assert np.all(counts == 2)  # closed manifold
        centroids = v[f].mean(axis=1)
        normals = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
        assert np.all(np.einsum("ij,ij->i", normals, centroids) > 0)  # counter-clockwise seen from outside


@given(st.integers(0, 2**31 - 1), st.floats(0.1, 3.0), st.floats(0.0, 1.0))
@settings(max_examples=25, deadline=None)
def test_rocks_are_valid_meshes_of_their_size(seed, radius, roughness):
    m = props.rock_mesh(seed=seed, radius=radius, roughness=roughness)
    _check_mesh(m)
    extent = m.vertices.max(axis=0) - m.vertices.min(axis=0)
    assert extent.max() < 2 * radius * (1 + roughness) * 1.2 and extent.max() > 0.3 * radius


def test_rocks_are_seeded():
    a, b, c = props.rock_mesh(seed=3), props.rock_mesh(seed=3), props.rock_mesh(seed=4)
    assert a.vertices.tobytes() == b.vertices.tobytes() and a.vertices.tobytes() != c.vertices.tobytes()


@given(st.integers(0, 2**31 - 1), st.integers(1, 12))
@settings(max_examples=25, deadline=None)
def test_grass_cards_are_double_sided_and_seeded(seed, cards):
    m = props.grass_mesh(seed=seed, cards=cards, height=0.6)
    _check_mesh(m)
    assert m.n_triangles == 4 * cards and m.n_vertices == 8 * cards
    v, f = m.vertices.astype(np.float64), m.indices.astype(np.int64)
    face_n = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
    face_n /= np.linalg.norm(face_n, axis=1, keepdims=True)
    # each front face has a back face with the opposite normal
    assert np.all(np.einsum("ij,ij->i", face_n, m.normals[f[:, 0]]) > 0.99)
    front, back = face_n.reshape(cards, 4, 3)[:, :2], face_n.reshape(cards, 4, 3)[:, 2:]
    np.testing.assert_allclose(front, -back, atol=1e-6)
    assert 0.6 * 0.75 - 1e-6 <= m.vertices[:, 2].max() <= 0.6 * 1.15 + 1e-6
    assert m.uvs.min() >= 0 and m.uvs.max() <= 1
    assert (
        props.grass_mesh(seed=seed, cards=cards).vertices.tobytes()
        == props.grass_mesh(seed=seed, cards=cards).vertices.tobytes()
    )


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: props.rock_mesh(radius=0), "radius"),
        (lambda: props.rock_mesh(detail=9), "detail"),
        (lambda: props.rock_mesh(roughness=2), "roughness"),
        (lambda: props.grass_mesh(cards=0), "cards"),
        (lambda: props.grass_mesh(seed=-1), "seed"),
    ],
)
def test_bad_props_parameters_name_the_parameter(call, match):
    with pytest.raises(ParameterError, match=match):
        call()
