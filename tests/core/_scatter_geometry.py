"""Independent geometry checks for the scatter tests (not collected: the name does not start with test_)."""

import numpy as np

# --- independent geometry helpers ------------------------------------------------------------


def pairs_within(points, dist, queries=None):
    """All ``(q, p)`` index pairs with ``|queries[q] - points[p]| < dist`` (``queries`` defaults to
    ``points``, then ``q != p``), by bucketing on a grid of side ``dist``."""
    points = np.asarray(points, np.float64)
    same = queries is None
    queries = points if same else np.asarray(queries, np.float64)
    if not len(points) or not len(queries):
        return np.empty(0, np.int64), np.empty(0, np.int64)
    lo = np.minimum(points.min(0), queries.min(0)) - dist
    pc = np.floor((points - lo) / dist).astype(np.int64)
    qc = np.floor((queries - lo) / dist).astype(np.int64)
    nx = int(max(pc[:, 0].max(), qc[:, 0].max())) + 3
    key = pc[:, 1] * nx + pc[:, 0]
    order = np.argsort(key, kind="stable")
    sorted_keys = key[order]
    out_q, out_p = [], []
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            k = (qc[:, 1] + dy) * nx + qc[:, 0] + dx
            a, b = np.searchsorted(sorted_keys, k), np.searchsorted(sorted_keys, k, "right")
            counts = b - a
            q = np.repeat(np.arange(len(queries)), counts)
            p = order[a[q] + np.arange(counts.sum()) - (np.cumsum(counts) - counts)[q]]
            keep = np.hypot(*(points[p] - queries[q]).T) < dist
            if same:
                keep &= p != q
            out_q.append(q[keep])
            out_p.append(p[keep])
    return np.concatenate(out_q), np.concatenate(out_p)


def min_pair_distance(points, dist):
    q, p = pairs_within(points, dist)
    return np.hypot(*(points[p] - points[q]).T).min() if len(q) else np.inf


def probes(width, height, step):
    xs = np.arange(step / 2, width, step)
    ys = np.arange(step / 2, height, step)
    return np.stack(np.meshgrid(xs, ys), -1).reshape(-1, 2)


def worst_cover(points, radii, queries, query_radii):
    """Largest, over the queries, of min over samples of ``|q - p| / max(r(q), r_p)`` (< 1: covered)."""
    reach = max(radii.max(initial=0.0), query_radii.max(initial=0.0)) * 1.001
    q, p = pairs_within(points, reach, queries)
    ratio = np.full(len(queries), np.inf)
    d = np.hypot(*(points[p] - queries[q]).T) / np.maximum(query_radii[q], radii[p])
    np.minimum.at(ratio, q, d)
    return ratio.max(initial=0.0)


def bilinear(grid, x, y, width, height):
    rows, cols = grid.shape[:2]
    u = np.clip(x / width * (cols - 1), 0, cols - 1)
    v = np.clip(y / height * (rows - 1), 0, rows - 1)
    j, i = np.minimum(u.astype(int), cols - 2), np.minimum(v.astype(int), rows - 2)
    t, s = u - j, v - i
    if grid.ndim == 3:
        t, s = t[:, None], s[:, None]
    return (grid[i, j] * (1 - t) + grid[i, j + 1] * t) * (1 - s) + (
        grid[i + 1, j] * (1 - t) + grid[i + 1, j + 1] * t
    ) * s


def quat_matrix(q):
    """(N, 3, 3) from (w, x, y, z), written out here rather than imported."""
    w, x, y, z = np.asarray(q, np.float64).T
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )


def fbx_quad_cut(v0, v1, v2, v3):
    """True where ufbx (``ufbx_triangulate_face``) cuts the quads ``v0 v1 v2 v3`` ((N, 3) each)
    along ``v0 -- v2``: the shorter diagonal (``v0 -- v2`` on a tie), unless either cut folds
    the quad (its triangles' normals more than 90 degrees apart), then the one folding less.
    Written out from ufbx's rule with 3-D cross products, not from core."""

    def unit(n):
        return n / np.linalg.norm(n, axis=1, keepdims=True)

    a, b = v2 - v0, v3 - v1
    dot_a = np.einsum("ij,ij->i", unit(np.cross(a, v1 - v0)), unit(np.cross(a, v0 - v3)))
    dot_b = np.einsum("ij,ij->i", unit(np.cross(b, v1 - v0)), unit(np.cross(b, v2 - v1)))
    cut_a = np.einsum("ij,ij->i", a, a) <= np.einsum("ij,ij->i", b, b)
    folded = (dot_a < 0) | (dot_b < 0)
    return np.where(folded, dot_a >= dot_b, cut_a)


def height_on_triangle(p, t0, t1, t2):
    """Height at the (x, y) of ``p`` on the plane of each triangle ``t0 t1 t2`` ((N, 3) each)."""
    n = np.cross(t1 - t0, t2 - t0)
    return t0[:, 2] - (n[:, 0] * (p[:, 0] - t0[:, 0]) + n[:, 1] * (p[:, 1] - t0[:, 1])) / n[:, 2]


def inside_triangle(p, t0, t1, t2, eps=1e-9):
    """True where the (x, y) of ``p`` lies in the triangle's (x, y) projection (edges included)."""

    def side(a, b):
        return (b[:, 0] - a[:, 0]) * (p[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (p[:, 0] - a[:, 0])

    s = np.stack([side(t0, t1), side(t1, t2), side(t2, t0)], axis=1)
    scale = np.abs(s).max(axis=1, keepdims=True) + 1e-300
    return ((s / scale) >= -eps).all(axis=1) | ((s / scale) <= eps).all(axis=1)


def mesh_height(grid, x, y, width, height):
    """Height at points ``[0, width] x [0, height]`` on the triangles of the grid's quads,
    each cut as `fbx_quad_cut` says (row 0 at y = 0)."""
    rows, cols = grid.shape
    dx, dy = width / (cols - 1), height / (rows - 1)
    j = np.minimum(np.clip(x / dx, 0, cols - 1).astype(int), cols - 2)
    i = np.minimum(np.clip(y / dy, 0, rows - 1).astype(int), rows - 2)

    def vertex(r, c):
        return np.stack([c * dx, r * dy, grid[r, c]], axis=1)

    v0, v1, v2, v3 = vertex(i, j), vertex(i, j + 1), vertex(i + 1, j + 1), vertex(i + 1, j)
    cut = fbx_quad_cut(v0, v1, v2, v3)
    p = np.stack([x, y], axis=1)
    out = np.full(len(p), np.nan)
    for tri, use in (
        ((v0, v1, v2), cut),
        ((v0, v2, v3), cut),
        ((v0, v1, v3), ~cut),
        ((v1, v2, v3), ~cut),
    ):
        t = [a for a in tri]
        hit = use & np.isnan(out) & inside_triangle(p, *t)
        out[hit] = height_on_triangle(p[hit], *(a[hit] for a in t))
    return out
