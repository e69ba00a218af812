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
