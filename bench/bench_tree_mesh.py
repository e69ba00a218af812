"""Benchmark worldseed.core.trees.tree_mesh against a straightforward loop mesher, same run.

Run from the repository root::

    .venv/bin/python bench/bench_tree_mesh.py

The anchor is the mesher one writes first: chains found by a loop over the
nodes, then for every chain a loop over its rings (tangent, one parallel
transport step, the ring's vertices as a small numpy array, its quads as a
list) and a loop over the leaves, everything gathered in Python lists and
stacked at the end.  It builds the same full-detail mesh as ``tree_mesh``
(same chains, rings, tips, caps and leaf outlines; vertex and triangle
counts are checked equal before timing).

Trees: a grown test tree of about 5,000 segments and 3,000 leaf cards (the
issue's size), and ABOP's bush (figure 1.25) and figure 1.24(d) from the
species presets, through the real L-system and turtle.  Targets (printed,
not asserted): the 5,000-segment tree meshed in about 20 ms and its three
LODs in about 50 ms.  Ours and the anchor run interleaved (ours, anchor,
ours, anchor, ...) and each keeps its best of the rounds (the machine is
shared); the 1-minute load average is printed beside each line.
"""

import math
from functools import partial

import _loader  # noqa: F401  (the repo root as package ``worldseed``, as in tests/conftest.py)
import numpy as np
from _loader import best_of, interleaved, load

from worldseed.core.trees import tree_mesh  # noqa: E402
from worldseed.core.trees._leaves import SHAPES  # noqa: E402
from worldseed.core.trees.skeleton import LeafCards, Skeleton  # noqa: E402

REPEATS = 7
ROUNDS = 4  # interleaved rounds against the anchor
SIDES = 8


def _unit(a):
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


def _perp(d, rng=None):
    helper = np.array([0.0, 0.0, 1.0]) if abs(d[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    if rng is not None:
        helper = helper + rng.normal(0, 1, 3)
    u = helper - helper.dot(d) * d
    return u / np.linalg.norm(u)


def grown_tree(seed=1, *, trunk_segments=26, depth=4, fork=0.5, leaf_chance=0.4, leaves_per_node=2):
    """Tapering, gently bending branches of decreasing order; leaf cards on the two outermost orders."""
    rng = np.random.default_rng(seed)
    pos, par, rad, order, ups = [np.zeros(3)], [-1], [0.3], [0], [np.array([0.0, -1.0, 0.0])]
    spots, heads = [], []
    todo = [(0, np.array([0.0, 0.0, 1.0]), 0.3, 0, trunk_segments, 0.4)]
    while todo:
        node, d, r0, o, segments, step = todo.pop()
        for k in range(segments):
            d = _unit(d + rng.normal(0, 0.1, 3) + [0, 0, 0.04])
            pos.append(pos[node] + step * d)
            par.append(node)
            rad.append(r0 * (1 - 0.85 * (k + 1) / segments))
            order.append(o)
            ups.append(_perp(d))
            node = len(pos) - 1
            if o < depth and k < segments - 1 and rng.random() < fork:
                side = _unit(d + 1.2 * _perp(d, rng))
                todo.append((node, side, rad[-1] * 0.6, o + 1, max(2, int(segments * 0.6)), step * 0.8))
            if o >= depth - 1 and rng.random() < leaf_chance:
                for _ in range(leaves_per_node):
                    spots.append(pos[node])
                    heads.append(_unit(d + rng.normal(0, 0.6, 3)))
    heads = np.array(heads)
    leaf_ups = np.array([_perp(h, rng) for h in heads])
    leaves = LeafCards(
        positions=np.array(spots),
        headings=heads,
        ups=leaf_ups,
        sizes=np.full(len(spots), 0.15),
        orders=np.full(len(spots), depth, np.int16),
    )
    positions = np.array(pos)
    parents = np.array(par, np.int64)
    headings = np.tile([0.0, 0.0, 1.0], (len(pos), 1))
    headings[1:] = _unit(positions[1:] - positions[parents[1:]])
    return Skeleton(
        positions=positions,
        headings=headings,
        ups=np.array(ups),
        radii=np.array(rad),
        parents=parents,
        orders=np.array(order, np.int16),
        leaves=leaves,
    )


def loop_tree_mesh(sk, sides=SIDES, leaf_shape="leaf", leaf_width=0.5):
    """The anchor: per-node chains, per-chain and per-ring loops, per-leaf loop."""
    n = sk.n_nodes
    radius = np.maximum(sk.radii, tree_mesh.RADIUS_FLOOR)
    children = [[] for _ in range(n)]
    for i in range(n):
        if sk.parents[i] >= 0:
            children[sk.parents[i]].append(i)
    cont = [-1] * n
    for p in range(n):
        for c in children[p]:
            if sk.orders[c] == sk.orders[p]:
                cont[p] = c
                break
    v_at = [0.0] * n
    heads = [i for i in range(n) if sk.parents[i] < 0 or cont[sk.parents[i]] != i]
    verts, norms, uvs, tris = [], [], [], []
    count = 0
    angle = 2 * math.pi * np.arange(sides + 1) / sides
    cos, sin = np.cos(angle), np.sin(angle)
    cos[-1], sin[-1] = 1.0, 0.0
    for h in heads:  # heads in index order: parents' v are known first
        p = sk.parents[h]
        if p >= 0:
            base_r = min(radius[h], radius[p])
            rings = [(sk.positions[p], base_r, v_at[p])]
        else:
            base_r = radius[h]
            rings = []
        node, v = h, (v_at[p] if p >= 0 else 0.0)
        prev = sk.positions[p] if p >= 0 else None
        while node >= 0:
            if prev is not None:
                v += np.linalg.norm(sk.positions[node] - prev) / (2 * math.pi * base_r)
            v_at[node] = v
            rings.append((sk.positions[node], radius[node], v))
            prev = sk.positions[node]
            node = cont[node]
        if len(rings) < 2:
            continue
        first = count
        u = None
        t_prev = None
        for k, (c, r, rv) in enumerate(rings):
            d_in = _unit(c - rings[k - 1][0]) if k > 0 else None
            d_out = _unit(rings[k + 1][0] - c) if k + 1 < len(rings) else None
            if d_in is None:
                t = d_out
            elif d_out is None:
                t = d_in
            else:
                t = _unit(d_in + d_out)
            if u is None:
                u = sk.ups[h] - sk.ups[h].dot(t) * t
                u = u / np.linalg.norm(u)
            else:  # rotate u by the minimal rotation t_prev -> t
                axis = np.cross(t_prev, t)
                s, cth = np.linalg.norm(axis), t_prev.dot(t)
                if s > 1e-12:
                    axis /= s
                    u = u * cth + np.cross(axis, u) * s + axis * axis.dot(u) * (1 - cth)
                u = u - u.dot(t) * t
                u /= np.linalg.norm(u)
            t_prev = t
            w = np.cross(t, u)
            radial = cos[:, None] * u + sin[:, None] * w
            verts.append(c + r * radial)
            norms.append(radial)
            uvs.append(np.column_stack([np.arange(sides + 1) / sides, np.full(sides + 1, rv)]))
            if k > 0:
                a, b = count - (sides + 1), count
                for j in range(sides):
                    tris.append((a + j, a + j + 1, b + j + 1))
                    tris.append((a + j, b + j + 1, b + j))
            count += sides + 1
        c, r, rv = rings[-1]
        verts.append((c + tree_mesh.TIP_LENGTH * r * t)[None])
        norms.append(t[None])
        uvs.append(np.array([[0.5, rv + tree_mesh.TIP_LENGTH * r / (2 * math.pi * base_r)]]))
        e = count - (sides + 1)
        for j in range(sides):
            tris.append((e + j, e + j + 1, count))
        count += 1
        if p < 0:
            for j in range(1, sides - 1):
                tris.append((first, first + j + 1, first + j))
    outline, shape_tris = SHAPES[leaf_shape]
    leaves = sk.leaves
    for i in range(len(leaves)):
        hd = _unit(leaves.headings[i])
        up = _unit(leaves.ups[i] - leaves.ups[i].dot(hd) * hd)
        across = np.cross(hd, up)
        size = leaves.sizes[i]
        pts = leaves.positions[i] + size * ((outline[:, :1] - 0.5) * leaf_width * across + outline[:, 1:] * hd)
        verts.append(pts)
        norms.append(np.tile(up, (len(pts), 1)))
        uvs.append(outline)
        tris.extend((shape_tris + count).tolist())
        count += len(pts)
    return (
        np.concatenate(verts).astype(np.float32),
        np.array(tris, np.uint32),
        np.concatenate(uvs).astype(np.float32),
        np.concatenate(norms).astype(np.float32),
    )


def species(name):
    from worldseed.core import trees as tree

    spec = tree.species_spec(name)
    return tree.grow_skeleton(spec)[0]


def main():
    cases = [("grown tree", grown_tree())]
    for name in ("abop_1_25_bush", "abop_1_24d"):
        try:
            cases.append((f"species {name}", species(name)))
        except Exception as err:  # pragma: no cover  (the pipeline is someone else's)
            print(f"{name}: skipped ({type(err).__name__}: {err})")
    print(
        f"{'tree':26s} {'segments':>8s} {'leaves':>7s} {'tris':>7s} {'tree_mesh':>10s} {'anchor':>9s} "
        f"{'speed-up':>8s} {'tree_lods':>10s}  LOD triangles  load"
    )
    for label, sk in cases:
        leaves = len(sk.leaves) + len(sk.polygons)
        if not sk.polygons:
            race = interleaved(
                ROUNDS, partial(tree_mesh.tree_mesh, sk, sides=SIDES), partial(loop_tree_mesh, sk, SIDES)
            )
            (t_ours, t_anchor), (ours, anchor) = race.seconds, race.results
            # equivalent: the same vertex and triangle counts (the same mesh, built two ways)
            assert anchor[0].shape[0] == ours.n_vertices and anchor[1].shape[0] == ours.n_triangles, (
                anchor[0].shape,
                ours.n_vertices,
                anchor[1].shape,
                ours.n_triangles,
            )
            anchor_s = f"{t_anchor * 1e3:7.1f}ms"
            ratio = f"{race.ratio():7.1f}x"
            load_s = race.load_text()
        else:
            t_ours, ours = best_of(REPEATS, tree_mesh.tree_mesh, sk, sides=SIDES)
            anchor_s, ratio, load_s = f"{'-':>9s}", f"{'-':>8s}", f"load {load():.1f}"
        t_lods, lods = best_of(REPEATS, tree_mesh.tree_lods, sk, sides=SIDES)
        counts = [m.n_triangles for m in lods]
        shares = " / ".join(f"{c / counts[0]:.0%}" for c in counts)
        print(
            f"{label:26s} {sk.n_segments:8,d} {leaves:7,d} {ours.n_triangles:7,d} {t_ours * 1e3:8.1f}ms "
            f"{anchor_s} {ratio} {t_lods * 1e3:8.1f}ms  {counts} ({shares})  {load_s}"
        )


if __name__ == "__main__":
    main()
