"""Regions and walking distances on a grid of walkable cells (4-connected), vectorised.

First version (correct, simple); the cave helper of issue 10 makes it fast.
"""

from __future__ import annotations

import numpy as np

__all__ = ["label_regions", "walk_distances"]


def label_regions(walkable):
    """(labels, count): int32 (h, w) labels 0..count-1 of the 4-connected walkable regions, -1 on walls.

    Labels are numbered in raster order of each region's first cell.
    """
    w = np.asarray(walkable, bool)
    h_, w_ = w.shape
    idx = np.arange(w.size, dtype=np.int64).reshape(w.shape)
    parent = idx.ravel().copy()
    right = (w[:, :-1] & w[:, 1:])
    down = (w[:-1, :] & w[1:, :])
    a = np.concatenate([idx[:, :-1][right], idx[:-1, :][down]])
    b = np.concatenate([idx[:, 1:][right], idx[1:, :][down]])
    while a.size:
        pa, pb = parent[a], parent[b]
        lo, hi = np.minimum(pa, pb), np.maximum(pa, pb)
        np.minimum.at(parent, hi, lo)
        while True:  # pointer jumping to the roots
            nxt = parent[parent]
            if np.array_equal(nxt, parent):
                break
            parent = nxt
        keep = parent[a] != parent[b]
        a, b = a[keep], b[keep]
    roots = parent.reshape(h_, w_)
    labels = np.full(w.shape, -1, np.int32)
    if w.any():
        uniq, inv = np.unique(roots[w], return_inverse=True)
        labels[w] = inv.ravel().astype(np.int32)
        return labels, int(uniq.size)
    return labels, 0


def walk_distances(walkable, start):
    """int32 (h, w) steps from ``start`` = (x, y) over walkable cells (4-connected); -1 where unreachable."""
    w = np.asarray(walkable, bool)
    dist = np.full(w.shape, -1, np.int32)
    x, y = start
    if not w[y, x]:
        return dist
    dist[y, x] = 0
    frontier = np.zeros(w.shape, bool)
    frontier[y, x] = True
    seen = frontier.copy()
    step = 0
    while frontier.any():
        step += 1
        nxt = np.zeros_like(frontier)
        nxt[1:, :] |= frontier[:-1, :]
        nxt[:-1, :] |= frontier[1:, :]
        nxt[:, 1:] |= frontier[:, :-1]
        nxt[:, :-1] |= frontier[:, 1:]
        nxt &= w
        nxt &= ~seen
        seen |= nxt
        dist[nxt] = step
        frontier = nxt
    return dist
