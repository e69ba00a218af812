"""Bark: the chains of a skeleton swept into tapered tubes (generalized cylinders).

Glossary
--------
chain
    A run of nodes in which each node continues the one before (its first
    child, lowest index, of the same branch order).  One chain is one tube.
ring
    A cross-section of a tube: ``sides + 1`` vertices, the last one a copy of
    the first with ``u = 1`` (the UV seam).
base ring
    The ring a side branch starts with, at its parent node's position, with
    the branch's own radius (no larger than the parent's).

Work is split in two: `tube_plan` does everything that does not depend on
the meshing options (chains, rings, radii, v, pruning and bending measures),
once per skeleton; `select_rings` picks the rings for a pruning level and a
``simplify_angle`` and `tube_counts` / `tube_arrays` count or build from that
pick.  LOD searches count many picks and build few.

Pruning: ``min_radius`` removes every node with a radius at or below it on
its way from the root.  LOD searches prune in finer steps, by level: nodes
off the root chains are ranked by that smallest radius, then (among equal
radii) by the bark length from the root, longest first, and the root chains
(the trunk) rank above all of them.  Every node ranks at or below its
parent, so removing the lowest ``prune`` levels removes whole branch ends
-- the thinnest branches, their outermost segments first -- and never the
trunk.  Public through :mod:`.tree_mesh`.
"""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import exact
from .._grid import ScalarT

#: Radii below this (metres) are raised to it, so no ring collapses to a point.
RADIUS_FLOOR = 1e-4
#: Length of the tip cone that closes a chain, in units of its last ring's radius.
TIP_LENGTH = 1.0
#: Consecutive rings of a chain closer than this times the skeleton's size
#: (at least 1 m) are merged; float32 positions could not tell them apart.
MERGE_DISTANCE = 1e-5


@dataclass(frozen=True, slots=True, eq=False)
class TubePlan:
    """Rings of every chain of a skeleton, before pruning and simplification.

    Rings are stored chain after chain, in order along each chain; ``R``
    rings, ``C`` chains.

    Attributes
    ----------
    position : (3, R) float64 -- ring centres, one row per coordinate.
    radius : (R,) float64 -- ring radius, at least `RADIUS_FLOOR`.
    v : (R,) float64 -- texture v at the ring for ``uv_scale = 1``.
    chain : (R,) int64 -- chain of the ring (non-decreasing).
    survive : (R,) float64 -- smallest radius on the way from the root to the
        ring: the ring is kept while ``min_radius < survive``.
    level : (R,) int64 -- pruning level: the ring is kept while
        ``level >= prune``.  Both are non-increasing along a chain, so
        pruning keeps a prefix of every chain.
    branch_survive, branch_level : (R,) -- largest ``survive`` and ``level``
        among the side branches that start at the ring's node (-1 if none):
        when such a branch is kept, simplification keeps the ring.
    prunable : int -- levels below the root chains'.
    turn : (R,) float64 -- turning angle (radians) accumulated along the chain
        up to the ring.
    start : (C,) int64 -- first ring of each chain.
    root : (C,) bool -- the chain starts at a root (its base gets a cap).
    up : (3, C) float64 -- the skeleton's up at the chain's first node (seeds
        the ring frames).
    v_per_metre : (C,) float64 -- ``1 / (2 pi base radius)``.
    """

    position: npt.NDArray[np.float64]
    radius: npt.NDArray[np.float64]
    v: npt.NDArray[np.float64]
    chain: npt.NDArray[np.int64]
    survive: npt.NDArray[np.float64]
    level: npt.NDArray[np.int64]
    branch_survive: npt.NDArray[np.float64]
    branch_level: npt.NDArray[np.int64]
    prunable: int
    turn: npt.NDArray[np.float64]
    start: npt.NDArray[np.int64]
    root: npt.NDArray[np.bool_]
    up: npt.NDArray[np.float64]
    v_per_metre: npt.NDArray[np.float64]


def _unit(a: npt.NDArray[np.float64], eps: float = 1e-300) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    n = np.sqrt(exact.dot_rows(a, a))
    return a / np.maximum(n, eps)[:, None], n


def tree_scan(values: npt.NDArray[ScalarT], parents: npt.NDArray[np.int64], op: np.ufunc) -> npt.NDArray[ScalarT]:
    """``op``-accumulate ``values`` from each root down to every node.

    Pointer jumping: ``log2(depth)`` vectorised rounds.  After a round,
    ``acc[i]`` holds ``op`` over the path from ``i`` up to (not including)
    ``anc[i]``, which then jumps to ``anc[anc[i]]``.
    """
    acc = values.copy()
    anc = parents.copy()
    live = np.flatnonzero(anc >= 0)
    while live.size:
        a = anc[live]
        acc[live] = op(acc[live], acc[a])  # right-hand sides read the previous round
        anc[live] = anc[a]
        live = live[anc[live] >= 0]
    return acc


def _group_max(keys: npt.NDArray[np.int64], values: npt.NDArray[ScalarT], n: int, fill: float) -> npt.NDArray[ScalarT]:
    """``out[k] = max(values[keys == k])``, ``fill`` where no key is ``k``."""
    out = np.full(n, fill)
    if keys.size:
        o = np.lexsort((values, keys))
        k = keys[o]
        last = np.r_[k[1:] != k[:-1], True]
        out[k[last]] = values[o][last]
    return out


def chain_heads(
    parents: npt.NDArray[np.int64], orders: npt.NDArray[np.integer[Any]]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Head (first node) of every node's chain, and which nodes start side branches.

    Returns
    -------
    head : (N,) int64
        The chain's first node: a root or a side-branch head.
    side : (N,) bool
        Heads that have a parent (their tube starts with a base ring).
    """
    n = parents.shape[0]
    index = np.arange(n)
    has_parent = parents >= 0
    p = np.where(has_parent, parents, 0)
    same = np.flatnonzero(has_parent & (orders == orders[p]))
    cont = np.full(n, -1)
    if same.size:
        # np.unique's return_index gives the first occurrence: the lowest-index same-order child
        ps, first = np.unique(parents[same], return_index=True)
        cont[ps] = same[first]
    continues = has_parent & (cont[p] == index)
    head = np.where(continues, parents, index)
    while True:
        nxt = head[head]
        if np.array_equal(nxt, head):
            break
        head = nxt
    return head, has_parent & ~continues


def tube_plan(
    positions: npt.NDArray[np.float64],
    ups: npt.NDArray[np.float64],
    radii: npt.NDArray[np.float64],
    parents: npt.NDArray[np.int64],
    orders: npt.NDArray[np.integer[Any]],
) -> TubePlan:
    """Plan the tubes of a skeleton (see `TubePlan`); arrays as in `Skeleton`."""
    n = positions.shape[0]
    if n == 0:
        e, ei = np.zeros(0), np.zeros(0, np.int64)
        return TubePlan(np.zeros((3, 0)), e, e, ei, e, ei, e, ei, 0, e, ei, np.zeros(0, bool), np.zeros((3, 0)), e)
    radius = np.maximum(radii, RADIUS_FLOOR)
    has_parent = parents >= 0
    p = np.where(has_parent, parents, 0)
    head, side = chain_heads(parents, orders)

    base_radius = np.where(side, np.minimum(radius, radius[p]), radius)  # read at heads
    seg = np.zeros(n)
    d = positions[has_parent] - positions[parents[has_parent]]
    seg[has_parent] = np.sqrt(exact.dot_rows(d, d))
    v = tree_scan(seg / (2 * math.pi * base_radius[head]), parents, np.add)
    survive = tree_scan(radius, parents, np.minimum)
    reach = tree_scan(seg, parents, np.add)
    trunk = parents[head] < 0
    rank = np.lexsort((-reach, survive, trunk))
    new = np.r_[True, (np.diff(survive[rank]) != 0) | (np.diff(reach[rank]) != 0) | (np.diff(trunk[rank]) != 0)]
    level = np.empty(n, np.int64)
    level[rank] = np.cumsum(new) - 1
    prunable = int(level[trunk].min()) if trunk.any() else int(level.max()) + 1
    heads_side = np.flatnonzero(side)
    branch_survive = _group_max(parents[heads_side], survive[heads_side], n, -1.0)
    branch_level = _group_max(parents[heads_side], level[heads_side], n, -1)

    # rings: every node in chain order, a base ring before each side head
    order = np.argsort(head, kind="stable")  # a chain's nodes have increasing indices
    side_o = side[order]
    node_slot = np.arange(n) + np.cumsum(side_o)
    base_slot = node_slot[side_o] - 1
    heads_o = order[side_o]
    n_rings = n + heads_o.size
    node = np.empty(n_rings, np.int64)  # node whose position the ring takes
    key = np.empty(n_rings, np.int64)  # node whose survival decides the ring's
    node[node_slot] = order
    node[base_slot] = parents[heads_o]
    key[node_slot] = order
    key[base_slot] = heads_o
    is_base = np.zeros(n_rings, bool)
    is_base[base_slot] = True
    ring_radius = radius[key]
    ring_radius[base_slot] = base_radius[heads_o]
    ring_branch_survive = np.where(is_base, -1.0, branch_survive[node])
    ring_branch_level = np.where(is_base, -1, branch_level[node])
    chain_head = head[key]
    first = np.r_[True, chain_head[1:] != chain_head[:-1]]

    # merge rings that float32 could not separate from the ring before them
    pos = positions[node]
    size = max(1.0, float(np.abs(positions).max()))
    step = np.zeros(n_rings)
    dd = pos[1:] - pos[:-1]
    step[1:] = np.sqrt(exact.dot_rows(dd, dd))
    keep = first | (step > MERGE_DISTANCE * size)
    pos, node, key = pos[keep], node[keep], key[keep]
    ring_radius, first = ring_radius[keep], first[keep]
    ring_branch_survive, ring_branch_level = ring_branch_survive[keep], ring_branch_level[keep]
    chain = np.cumsum(first) - 1
    start = np.flatnonzero(first)
    heads = chain_head[keep][start]

    # turning angle accumulated along each chain (bends at interior rings)
    last = np.r_[first[1:], True]
    dn, _ = _unit(pos[1:] - pos[:-1])
    bend = np.zeros(pos.shape[0])
    interior = np.flatnonzero(~first & ~last)
    if interior.size:
        a, b = dn[interior - 1], dn[interior]
        bend[interior] = exact.atan2(np.linalg.norm(np.cross(a, b), axis=1), exact.dot_rows(a, b))
    turn = np.cumsum(bend)
    turn -= turn[start][chain]
    return TubePlan(
        position=np.ascontiguousarray(pos.T),
        radius=ring_radius,
        v=v[node],
        chain=chain,
        survive=survive[key],
        level=level[key],
        branch_survive=ring_branch_survive,
        branch_level=ring_branch_level,
        prunable=prunable,
        turn=turn,
        start=start,
        root=parents[heads] < 0,
        up=np.ascontiguousarray(ups[heads].T),
        v_per_metre=1.0 / (2 * math.pi * base_radius[heads]),
    )


def select_rings(plan: TubePlan, min_radius: float, prune: int, simplify_angle: float) -> npt.NDArray[np.bool_]:
    """Rings to mesh: pruned by ``min_radius`` and ``prune`` levels, simplified by ``simplify_angle`` (degrees).

    A ring survives when every radius from the root down to it is above
    ``min_radius`` and its level is ``prune`` or above; a chain needs two
    surviving rings.  Simplification keeps a chain's first and last
    surviving rings, the rings where a surviving side branch starts, and a
    ring wherever the turning accumulated along the chain crosses a multiple
    of ``simplify_angle`` (so a long gentle arc keeps a ring every
    ``simplify_angle`` of turning, where a per-ring test would drop them all).

    Returns
    -------
    (R,) bool ndarray over the plan's rings.
    """
    if plan.start.size == 0:
        return np.zeros(0, bool)
    keep = (plan.survive > min_radius) & (plan.level >= prune)
    kept = np.add.reduceat(keep.astype(np.int64), plan.start)
    ok = kept >= 2
    if simplify_angle > 0:
        ends = np.zeros_like(keep)
        ends[plan.start] = True
        ends[(plan.start + kept - 1)[kept > 0]] = True
        bucket = np.floor(plan.turn / math.radians(simplify_angle))
        crossed = np.r_[False, bucket[1:] > bucket[:-1]]
        branch = (plan.branch_survive > min_radius) & (plan.branch_level >= prune)  # exact with one of the two
        keep &= ends | crossed | branch
    return keep & ok[plan.chain]


def tube_counts(plan: TubePlan, selected: npt.NDArray[np.bool_], sides: int) -> tuple[int, int]:
    """``(vertices, triangles)`` of the tubes of the ``selected`` rings with ``sides`` sides."""
    if not selected.any():
        return 0, 0
    rings = np.add.reduceat(selected.astype(np.int64), plan.start)
    used = rings > 0
    n_chains = int(used.sum())
    n_rings = int(rings.sum())
    caps = int(np.count_nonzero(used & plan.root))
    vertices = n_rings * (sides + 1) + n_chains
    triangles = (n_rings - n_chains) * 2 * sides + n_chains * sides + caps * (sides - 2)
    return vertices, triangles


def _dot(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


def _normalise(a: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Unit columns of a (3, n) array (zero columns stay zero), and the lengths."""
    length = np.sqrt(_dot(a, a))
    return a / np.maximum(length, 1e-300), length


def _qmul(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Hamilton products of (4, n) quaternions ``(w, x, y, z)``."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    out = np.empty(a.shape)
    out[0] = aw * bw - ax * bx - ay * by - az * bz
    out[1] = aw * bx + ax * bw + ay * bz - az * by
    out[2] = aw * by - ax * bz + ay * bw + az * bx
    out[3] = aw * bz + ax * by - ay * bx + az * bw
    return out


def _perpendicular(t: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Some unit vector orthogonal to each unit column of (3, n) ``t``."""
    helper = np.zeros_like(t)
    x_ok = np.abs(t[0]) < 0.9
    helper[0, x_ok] = 1.0
    helper[1, ~x_ok] = 1.0
    return _normalise(_cross(t, helper))[0]


def _transported_frames(
    t: npt.NDArray[np.float64],
    first: npt.NDArray[np.bool_],
    pos_in_chain: npt.NDArray[np.int64],
    up0: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """Rotation-minimising ring frames: ``up0`` carried from ring to ring by minimal rotations.

    The minimal rotation taking tangent ``t[k-1]`` to ``t[k]`` is the
    quaternion ``(1 + t0.t1, t0 x t1)`` normalised.  Frames are running
    products of these along each chain, computed for all chains at once by a
    Hillis-Steele scan (``log2`` of the longest chain rounds).  Vectors are
    (3, n) columns, quaternions (4, n).
    """
    r = t.shape[1]
    q = np.zeros((4, r))
    q[0] = 1.0
    k = np.flatnonzero(~first)
    if k.size:
        a, b = t[:, k - 1], t[:, k]
        qk = np.empty((4, k.size))
        qk[0] = 1.0 + _dot(a, b)
        qk[1:] = _cross(a, b)
        flip = qk[0] < 1e-9  # a U-turn: half a turn about any perpendicular axis
        if flip.any():
            qk[0, flip] = 0.0
            qk[1:, flip] = _perpendicular(a[:, flip])
        q[:, k] = qk / np.sqrt((qk * qk).sum(axis=0))
        s = 1
        longest = int(pos_in_chain.max())
        while s <= longest:
            m = np.flatnonzero(pos_in_chain >= s)
            q[:, m] = _qmul(q[:, m], q[:, m - s])  # right-hand side reads the previous round
            s *= 2
    # rotate up0 by q: v + 2w (q x v) + 2 q x (q x v)
    qv = q[1:]
    c = _cross(qv, up0)
    u = up0 + 2 * q[0] * c + 2 * _cross(qv, c)
    u -= _dot(u, t) * t
    return _normalise(u)[0]


def tube_arrays(
    plan: TubePlan,
    selected: npt.NDArray[np.bool_],
    *,
    sides: int,
    uv_scale: float,
    out: tuple[
        npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.unsignedinteger[Any]]
    ],
    offset: int = 0,
) -> None:
    """Write the vertices, normals, UVs and triangles of the tubes of the ``selected`` rings.

    Vertex ``k * (sides + 1) + j`` is column ``j`` of kept ring ``k``, at angle
    ``2 pi j / sides`` from the ring's frame vector ``u`` toward ``t x u``
    (``t`` the tangent), counter-clockwise seen from the tip; column
    ``sides`` repeats column 0 with ``u = 1``.  One tip apex per chain
    follows all ring vertices.  Triangles: tube quads, then tip cones, then
    base caps, all counter-clockwise seen from outside::

        ring k+1   b_j ---- b_j+1        (a_j, a_j+1, b_j+1), (a_j, b_j+1, b_j)
                    |    /    |
        ring k     a_j ---- a_j+1

    Parameters
    ----------
    out : (vertices, normals, uvs, triangles)
        Arrays of exactly `tube_counts` rows ((V, 3), (V, 3), (V, 2) and
        (F, 3)) to write into; triangle indices get ``offset`` added.
    """
    vertices, normals, uvs, triangles = out
    ring = np.flatnonzero(selected)
    r = ring.size
    if r == 0:
        return
    p = plan.position[:, ring]
    radius = plan.radius[ring]
    chain_of = plan.chain[ring]
    first = np.r_[True, chain_of[1:] != chain_of[:-1]]
    last = np.r_[first[1:], True]
    cid = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    ends = np.flatnonzero(last)
    chains = chain_of[starts]  # plan chain of each meshed chain
    pos_in_chain = np.arange(r) - starts[cid]

    # tangents: the segment direction at the ends, the bisector of the two segments inside
    d, _ = _normalise(p[:, 1:] - p[:, :-1])
    t = np.empty((3, r))
    t[:, :-1] = d
    t[:, ends] = d[:, ends - 1]  # every chain has two rings or more
    inner = np.flatnonzero(~first & ~last)
    if inner.size:
        bis, length = _normalise(d[:, inner - 1] + d[:, inner])
        t[:, inner] = np.where(length > 1e-6, bis, d[:, inner])

    t0 = t[:, starts]
    up0 = plan.up[:, chains]
    up0 = up0 - _dot(up0, t0) * t0
    up0, length = _normalise(up0)
    bad = length < 1e-6
    if bad.any():
        up0[:, bad] = _perpendicular(t0[:, bad])
    u = _transported_frames(t, first, pos_in_chain, up0[:, cid])
    s = _cross(t, u)

    w = sides + 1
    angle = 2 * math.pi * np.arange(sides) / sides
    sin, cos = exact.sincos(angle)
    cos, sin = np.r_[cos, 1.0], np.r_[sin, 0.0]
    n_ring = r * w
    ring_v = vertices[:n_ring].reshape(r, w, 3)
    ring_n = normals[:n_ring].reshape(r, w, 3)
    for c in range(3):  # (w, r) blocks: long inner loops, one transposed write
        radial = np.multiply.outer(cos, u[c])
        radial += np.multiply.outer(sin, s[c])
        ring_n[:, :, c] = radial.T
        radial *= radius
        radial += p[c]
        ring_v[:, :, c] = radial.T
    tip = TIP_LENGTH * radius[ends]
    vertices[n_ring:] = (p[:, ends] + tip * t[:, ends]).T
    normals[n_ring:] = t[:, ends].T

    v = plan.v[ring] * uv_scale
    ring_uv = uvs[:n_ring].reshape(r, w, 2)
    ring_uv[:, :, 0] = np.arange(w) / sides
    ring_uv[:, :, 1] = v[:, None]
    uvs[n_ring:, 0] = 0.5
    uvs[n_ring:, 1] = v[ends] + tip * plan.v_per_metre[chains] * uv_scale

    j = np.arange(sides)
    quad = np.stack([np.stack([j, j + 1, j + 1 + w], 1), np.stack([j, j + 1 + w, j + w], 1)], 1).reshape(-1, 3)
    cone = np.stack([j, j + 1, np.zeros_like(j)], 1)
    jc = np.arange(1, sides - 1)
    fan = np.stack([np.zeros_like(jc), jc + 1, jc], 1)
    pairs = np.flatnonzero(~last)
    caps = starts[plan.root[chains]]
    n_quad = pairs.size * 2 * sides
    n_tip = ends.size * sides
    np.add(
        (pairs * w + offset)[:, None, None],
        quad[None],
        casting="unsafe",
        out=triangles[:n_quad].reshape(pairs.size, 2 * sides, 3),
    )
    tips = triangles[n_quad : n_quad + n_tip].reshape(ends.size, sides, 3)
    np.add((ends * w + offset)[:, None, None], cone[None], casting="unsafe", out=tips)
    tips[:, :, 2] = (n_ring + offset + np.arange(ends.size))[:, None]
    np.add(
        (caps * w + offset)[:, None, None],
        fan[None],
        casting="unsafe",
        out=triangles[n_quad + n_tip :].reshape(caps.size, sides - 2, 3),
    )
