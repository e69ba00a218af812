import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import mesh
from worldseed.core.errors import ParameterError

sides = st.integers(2, 12)


def _random_heights(rows, cols, seed=0):
    return np.random.default_rng(seed).random((rows, cols)).astype(np.float32)


def _face_normals(m):
    tri = m.vertices.astype(np.float64)[m.indices]
    return np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])


# --- index dtype ------------------------------------------------------------------------------


def test_index_dtype_switch():
    assert mesh.index_dtype(0) == np.uint16
    assert mesh.index_dtype(65_535) == np.uint16
    assert mesh.index_dtype(65_536) == np.uint32
    assert mesh.index_dtype(2**32) == np.uint32
    with pytest.raises(ParameterError, match="n_vertices"):
        mesh.index_dtype(-1)


@pytest.mark.parametrize("rows, cols, dtype", [(255, 257, np.uint16), (256, 256, np.uint32)])
def test_grid_index_dtype_switch_exactly_at_65536(rows, cols, dtype):
    m = mesh.grid_mesh(np.zeros((rows, cols), np.float32))
    assert m.n_vertices == rows * cols
    assert m.indices.dtype == dtype
    assert int(m.indices.max()) == rows * cols - 1
    assert mesh.grid_faces(rows, cols).dtype == dtype
    assert mesh.grid_triangles(rows, cols).dtype == dtype


# --- grid mesh invariants ---------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(sides, sides, st.sampled_from(mesh.ORIGINS), st.floats(0.1, 10), st.floats(0, 50))
def test_grid_mesh_invariants(rows, cols, origin, cell_size, height_scale):
    h = _random_heights(rows, cols)
    before = h.copy()
    m = mesh.grid_mesh(h, cell_size=cell_size, height_scale=height_scale, origin=origin)
    np.testing.assert_array_equal(h, before)
    assert m.n_vertices == rows * cols
    assert m.n_triangles == 2 * (rows - 1) * (cols - 1)
    assert m.vertices.dtype == m.uvs.dtype == m.normals.dtype == np.float32
    assert m.vertices.shape == (rows * cols, 3) and m.uvs.shape == (rows * cols, 2)
    assert m.indices.shape == (m.n_triangles, 3)
    assert m.indices.min() >= 0 and m.indices.max() < m.n_vertices
    np.testing.assert_allclose(np.linalg.norm(m.normals, axis=1), 1, atol=1e-6)
    assert (m.normals[:, 2] > 0).all()
    # UVs in [0, 1], corners exactly 0 and 1
    assert m.uvs.min() == 0 and m.uvs.max() == 1
    corners = m.uvs.reshape(rows, cols, 2)[[0, 0, -1, -1], [0, -1, 0, -1]]
    assert corners.tolist() == [[0, 0], [1, 0], [0, 1], [1, 1]]
    # heights, layout and extent
    grid = m.vertices.reshape(rows, cols, 3)
    np.testing.assert_allclose(grid[..., 2], h * np.float32(height_scale), rtol=1e-6)
    assert (np.diff(grid[..., 0], axis=1) > 0).all()  # columns along +X
    assert (np.diff(grid[..., 1], axis=0) > 0).all()  # rows along +Y
    width, depth = (cols - 1) * cell_size, (rows - 1) * cell_size
    lo = (-width / 2, -depth / 2) if origin == "center" else (0, 0)
    np.testing.assert_allclose(grid[0, 0, :2], lo, atol=1e-5)
    np.testing.assert_allclose(grid[-1, -1, :2], (lo[0] + width, lo[1] + depth), rtol=1e-6, atol=1e-5)


def test_counter_clockwise_winding():
    m = mesh.grid_mesh(np.zeros((4, 5), np.float32))
    n = _face_normals(m)
    assert (n[:, 2] > 0).all() and np.allclose(n[:, :2], 0)
    quads = mesh.grid_faces(4, 5).astype(np.int64)
    v = m.vertices[:, :2].astype(np.float64)[quads]
    # shoelace area of each quad is positive: counter-clockwise seen from +Z
    area = 0.5 * np.sum(v[:, :, 0] * np.roll(v[:, :, 1], -1, 1) - np.roll(v[:, :, 0], -1, 1) * v[:, :, 1], 1)
    assert (area > 0).all()


def test_winding_agrees_with_normals_on_rough_terrain():
    m = mesh.grid_mesh(_random_heights(9, 7, seed=5), height_scale=0.3)
    face = _face_normals(m)
    assert (np.einsum("ij,ij->i", face, m.normals[m.indices[:, 0]]) > 0).all()


def test_flat_grid_normals_point_up():
    m = mesh.grid_mesh(np.full((6, 7), 0.4, np.float32), height_scale=30)
    assert (m.normals == np.array([0, 0, 1], np.float32)).all()


@pytest.mark.parametrize("a, b", [(0.3, -0.2), (2.0, 0.5), (0.0, -4.0)])
def test_tilted_plane_has_analytic_normal(a, b):
    rows, cols, cell, scale = 7, 9, 0.5, 4.0
    y, x = np.mgrid[0:rows, 0:cols] * cell
    h = ((a * x + b * y) / scale).astype(np.float32)  # z = a x + b y after scaling
    m = mesh.grid_mesh(h, cell_size=cell, height_scale=scale)
    expected = np.array([-a, -b, 1.0]) / np.sqrt(1 + a * a + b * b)
    np.testing.assert_allclose(m.normals, np.broadcast_to(expected, m.normals.shape), atol=2e-6)
    # and vertex_normals of the same triangles agrees on a plane
    np.testing.assert_allclose(mesh.vertex_normals(m.vertices, m.indices), m.normals, atol=2e-6)


def test_grid_faces_and_triangles_share_vertices():
    quads = mesh.grid_faces(3, 4).astype(np.int64)
    tris = mesh.grid_triangles(3, 4).astype(np.int64).reshape(-1, 2, 3)
    np.testing.assert_array_equal(tris[:, 0], quads[:, [0, 1, 2]])
    np.testing.assert_array_equal(tris[:, 1], quads[:, [0, 2, 3]])


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"cell_size": 0}, "cell_size"),
        ({"height_scale": -1}, "height_scale"),
        ({"origin": "middle"}, "origin"),
    ],
)
def test_grid_mesh_bad_options(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        mesh.grid_mesh(np.zeros((3, 3)), **kwargs)


@pytest.mark.parametrize(
    "heights, match",
    [
        (np.zeros((1, 5)), "rows"),
        (np.zeros((5, 1)), "cols"),
        (np.zeros(5), "2-dimensional"),
        (np.array([[0.0, np.inf], [0, 0]]), "finite"),
    ],
)
def test_grid_mesh_bad_heights(heights, match):
    with pytest.raises(ParameterError, match="heights") as info:
        mesh.grid_mesh(heights)
    assert info.match(match)


def test_grid_mesh_refuses_oversized_grid_before_allocating():
    big = np.broadcast_to(np.float32(0), (4098, 4097))  # no memory behind it
    with pytest.raises(ParameterError, match="4097 x 4097"):
        mesh.grid_mesh(big)
    with pytest.raises(ParameterError, match="rows"):
        mesh.grid_faces(1, 4)
    with pytest.raises(ParameterError, match="cols"):
        mesh.grid_triangles(4, 10_000)


def test_grid_mesh_accepts_float64_and_int():
    m64 = mesh.grid_mesh(np.arange(12.0).reshape(3, 4))
    mi = mesh.grid_mesh(np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(m64.vertices, mi.vertices)
    assert m64.vertices.dtype == np.float32


# --- LODs -------------------------------------------------------------------------------------


def test_lods_of_power_of_two_grid_halve_cleanly():
    h = _random_heights(33, 33)
    lods = mesh.grid_lods(h, strides=(1, 2, 4, 8))
    assert [m.n_vertices for m in lods] == [33 * 33, 17 * 17, 9 * 9, 5 * 5]
    assert [m.n_triangles for m in lods] == [2 * 32 * 32, 2 * 16 * 16, 2 * 8 * 8, 2 * 4 * 4]
    full = lods[0].vertices.reshape(33, 33, 3)
    for s, m in zip((1, 2, 4, 8), lods):
        np.testing.assert_array_equal(m.vertices.reshape(-1, 32 // s + 1, 3), full[::s, ::s])
        np.testing.assert_array_equal(
            m.normals.reshape(-1, 32 // s + 1, 3), lods[0].normals.reshape(33, 33, 3)[::s, ::s]
        )
    # stride 1 is exactly grid_mesh
    ref = mesh.grid_mesh(h)
    for field in ("vertices", "indices", "uvs", "normals"):
        np.testing.assert_array_equal(getattr(ref, field), getattr(lods[0], field))


@given(st.integers(2, 30), st.integers(2, 30), st.integers(1, 12))
def test_lod_keeps_edges(rows, cols, stride):
    (m,) = mesh.grid_lods(np.zeros((rows, cols), np.float32), strides=(stride,), origin="corner")
    nr = len(range(0, rows, stride)) + (1 if (rows - 1) % stride else 0)
    nc = len(range(0, cols, stride)) + (1 if (cols - 1) % stride else 0)
    assert m.n_vertices == nr * nc
    assert m.n_triangles == 2 * (nr - 1) * (nc - 1)
    grid = m.vertices.reshape(nr, nc, 3)
    assert grid[-1, -1, 0] == cols - 1 and grid[-1, -1, 1] == rows - 1
    assert m.uvs.min() == 0 and m.uvs.max() == 1
    assert (_face_normals(m)[:, 2] > 0).all()


def test_lods_bad_strides():
    h = np.zeros((5, 5))
    with pytest.raises(ParameterError, match="strides"):
        mesh.grid_lods(h, strides=())
    with pytest.raises(ParameterError, match="strides"):
        mesh.grid_lods(h, strides=(1, 0))
    with pytest.raises(ParameterError, match="strides"):
        mesh.grid_lods(h, strides=3)


# --- IndexedMesh ------------------------------------------------------------------------------


def _parts(n=4):
    return dict(
        vertices=np.zeros((n, 3), np.float32),
        indices=np.array([[0, 1, 2]], np.uint16),
        uvs=np.zeros((n, 2), np.float32),
        normals=np.tile(np.float32([0, 0, 1]), (n, 1)),
    )


def test_indexed_mesh_accepts_valid_parts():
    m = mesh.IndexedMesh(**_parts())
    assert m.n_vertices == 4 and m.n_triangles == 1
    with pytest.raises(AttributeError):
        m.vertices = None  # frozen


@pytest.mark.parametrize(
    "field, value, match",
    [
        ("vertices", np.zeros((4, 3), np.float64), "vertices must have dtype float32"),
        ("vertices", np.zeros((4, 2), np.float32), r"vertices must have shape \(n, 3\)"),
        ("vertices", [[0, 0, 0]] * 4, "vertices must be a numpy array"),
        ("indices", np.array([[0, 1, 2]], np.uint32), "indices must have dtype uint16"),
        ("indices", np.array([[0, 1, 2]], np.int32), "indices must have dtype uint16"),
        ("indices", np.array([0, 1, 2], np.uint16), r"indices must have shape \(n, 3\)"),
        ("indices", np.array([[0, 1, 4]], np.uint16), r"indices must be in \[0, 4\)"),
        ("uvs", np.zeros((3, 2), np.float32), "uvs must have one row per vertex"),
        ("uvs", np.zeros((4, 3), np.float32), r"uvs must have shape \(n, 2\)"),
        ("normals", np.zeros((4, 3), np.float16), "normals must have dtype float32"),
        ("normals", np.zeros((5, 3), np.float32), "normals must have one row per vertex"),
    ],
)
def test_indexed_mesh_rejects_bad_parts(field, value, match):
    parts = _parts()
    parts[field] = value
    with pytest.raises(ValueError, match=match):
        mesh.IndexedMesh(**parts)


def test_indexed_mesh_requires_uint32_beyond_65535():
    n = 65_536
    parts = dict(
        vertices=np.zeros((n, 3), np.float32),
        indices=np.array([[0, 1, n - 1]], np.uint16),
        uvs=np.zeros((n, 2), np.float32),
        normals=np.zeros((n, 3), np.float32),
    )
    with pytest.raises(ValueError, match="indices must have dtype uint32 for 65,536 vertices"):
        mesh.IndexedMesh(**parts)
    parts["indices"] = parts["indices"].astype(np.uint32)
    assert mesh.IndexedMesh(**parts).indices.dtype == np.uint32


# --- vertex_normals ---------------------------------------------------------------------------


def test_vertex_normals_area_weighted():
    # two faces share vertex 0: a big one facing +Z and a small one facing +X
    v = np.array([[0, 0, 0], [10, 0, 0], [0, 10, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    f = np.array([[0, 1, 2], [0, 3, 4]])
    n = mesh.vertex_normals(v, f)
    assert n.dtype == np.float32 and n.shape == (5, 3)
    expected = np.array([1.0, 0, 100.0]) / np.hypot(1, 100)
    np.testing.assert_allclose(n[0], expected, rtol=1e-6)
    np.testing.assert_allclose(n[3], [1, 0, 0])


def test_vertex_normals_degenerate_safe():
    v = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 3, 3]], np.float32)
    n = mesh.vertex_normals(v, np.array([[0, 1, 2]]))  # collinear: zero area
    assert np.isfinite(n).all()
    np.testing.assert_array_equal(n, np.tile([0, 0, 1], (4, 1)))
    assert mesh.vertex_normals(v, np.zeros((0, 3), np.int64)).shape == (4, 3)


def test_vertex_normals_bad_input():
    with pytest.raises(ParameterError, match="indices"):
        mesh.vertex_normals(np.zeros((3, 3)), [[0, 1, 3]])
    with pytest.raises(ParameterError, match="indices"):
        mesh.vertex_normals(np.zeros((3, 3)), [[0.0, 1.0, 2.0]])
    with pytest.raises(ParameterError, match="vertices"):
        mesh.vertex_normals(np.zeros((3, 2)), [[0, 1, 2]])


def test_vertex_normals_of_closed_cube_point_outwards():
    v = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], np.float32) - 0.5
    f = np.array(
        [
            [0, 2, 1],
            [1, 2, 3],
            [4, 5, 6],
            [5, 7, 6],
            [0, 1, 4],
            [1, 5, 4],
            [2, 6, 3],
            [3, 6, 7],
            [0, 4, 2],
            [2, 4, 6],
            [1, 3, 5],
            [3, 7, 5],
        ]
    )
    n = mesh.vertex_normals(v, f)
    np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1, atol=1e-6)
    assert (np.einsum("ij,ij->i", n, v) > 0).all()


# --- topology ---------------------------------------------------------------------------------


def _check_topology(t, polygons):
    polygons = np.asarray(polygons, dtype=np.int64)
    p, k = polygons.shape
    for name in ("loop_starts", "corner_verts", "edges", "corner_edges"):
        assert getattr(t, name).dtype == np.int32
    assert t.polygon_size == k and t.n_polygons == p
    np.testing.assert_array_equal(t.loop_starts, np.arange(0, p * k, k))
    np.testing.assert_array_equal(t.corner_verts, polygons.ravel())
    # every corner edge joins corner i and corner i + 1 of its polygon
    cv = t.corner_verts.reshape(p, k)
    nxt = np.roll(cv, -1, axis=1)
    e = t.edges[t.corner_edges].reshape(p, k, 2)
    np.testing.assert_array_equal(np.sort(e, axis=2), np.sort(np.stack([cv, nxt], 2), axis=2))
    # each undirected edge appears once, and every edge is used by some corner
    assert len(np.unique(np.sort(t.edges, axis=1), axis=0)) == t.n_edges
    assert (t.edges[:, 0] != t.edges[:, 1]).all()
    assert np.array_equal(np.unique(t.corner_edges), np.arange(t.n_edges))


def _edge_set(t):
    return set(map(tuple, np.sort(t.edges, axis=1).tolist()))


@settings(max_examples=30, deadline=None)
@given(sides, sides)
def test_grid_topology(rows, cols):
    t = mesh.grid_topology(rows, cols)
    quads = mesh.grid_faces(rows, cols)
    _check_topology(t, quads)
    assert t.n_edges == rows * (cols - 1) + (rows - 1) * cols
    # the analytic result equals the generic sort/unique computation up to edge order
    g = mesh.polygon_topology(quads)
    assert _edge_set(t) == _edge_set(g)
    np.testing.assert_array_equal(np.sort(t.edges[t.corner_edges], 1), np.sort(g.edges[g.corner_edges], 1))
    # Euler characteristic of a disc: V - E + F = 1
    assert rows * cols - t.n_edges + t.n_polygons == 1


@settings(max_examples=30, deadline=None)
@given(sides, sides)
def test_triangle_topology_of_grid(rows, cols):
    tris = mesh.grid_triangles(rows, cols)
    t = mesh.triangle_topology(tris)
    _check_topology(t, tris)
    q = (rows - 1) * (cols - 1)
    assert t.n_edges == rows * (cols - 1) + (rows - 1) * cols + q  # plus one diagonal per quad
    assert _edge_set(mesh.grid_topology(rows, cols)) < _edge_set(t)


def test_triangle_topology_arbitrary_mesh():
    f = np.array(
        [
            [0, 2, 1],
            [1, 2, 3],
            [4, 5, 6],
            [5, 7, 6],
            [0, 1, 4],
            [1, 5, 4],
            [2, 6, 3],
            [3, 6, 7],
            [0, 4, 2],
            [2, 4, 6],
            [1, 3, 5],
            [3, 7, 5],
        ],
        np.uint16,
    )
    t = mesh.triangle_topology(f)
    _check_topology(t, f)
    assert t.n_edges == 18  # closed cube: E = 3F/2


def test_topology_bad_input():
    with pytest.raises(ParameterError, match="indices"):
        mesh.triangle_topology(np.zeros((2, 4), np.int32))
    with pytest.raises(ParameterError, match="polygons must not repeat a vertex, polygon 1"):
        mesh.polygon_topology([[0, 1, 2], [2, 2, 3]])
    with pytest.raises(ParameterError, match="polygons"):
        mesh.polygon_topology([[0, 1, -2]])
    with pytest.raises(ParameterError, match="polygons"):
        mesh.polygon_topology(np.zeros((2, 5), np.int32))


def test_polygon_topology_dataclass_checks():
    t = mesh.grid_topology(3, 3)
    with pytest.raises(ValueError, match="corner_edges must be an int32"):
        mesh.PolygonTopology(t.loop_starts, t.corner_verts, t.edges, t.corner_edges.astype(np.int64))
    with pytest.raises(ValueError, match="corner_edges must have one entry per corner"):
        mesh.PolygonTopology(t.loop_starts, t.corner_verts, t.edges, t.corner_edges[:-1])
    with pytest.raises(ValueError, match="corner_edges must be in"):
        mesh.PolygonTopology(t.loop_starts, t.corner_verts, t.edges[:-1], t.corner_edges)
    with pytest.raises(ValueError, match="3 or 4 corners per polygon"):
        mesh.PolygonTopology(t.loop_starts[:-1], t.corner_verts, t.edges, t.corner_edges)


@pytest.mark.parametrize("rows, cols", [(2, 2), (3, 5), (17, 9)])
def test_grid_corner_uvs_are_the_vertex_uvs_by_corner(rows, cols):
    m = mesh.grid_mesh(np.zeros((rows, cols), np.float32))
    corners = mesh.grid_faces(rows, cols).ravel()
    expected = m.uvs[corners]
    got = mesh.grid_corner_uvs(rows, cols)
    assert got.dtype == np.float32 and got.tobytes() == expected.tobytes()
