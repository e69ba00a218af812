"""Tree meshes from a turtle `Skeleton`: bark tubes, leaves, levels of detail and billboards.

Bark.  Every chain of the skeleton (a node followed by its continuation, the
first child of the same branch order, and so on) becomes one tube, a
generalized cylinder: a ``sides``-gon ring at each node, ring planes that
bisect the two segments meeting there, ring frames carried along the chain
by parallel transport (seeded from the skeleton's ``ups``, so tubes do not
twist), a cone closing the tip and a fan closing the base of a root chain.
A side branch starts with a ring at its parent node, with its own radius
(never more than the parent's), left open inside the parent.

Texture coordinates run continuously along the bark: ``u`` goes once around
a ring (the seam column is duplicated with ``u = 1``), ``v`` is the length
along the chain over ``2 pi`` times the chain's base radius (square texels
at the base), continuing from the parent's ``v`` where a branch starts.

Leaves.  Leaf cards become small flat outlines (`LEAF_SHAPES`) and polygons a
fan of triangles, all single-sided in material slot `LEAVES`.

Levels of detail.  `tree_lods` lowers the ring sides, drops rings along
nearly straight runs (``simplify_angle``), prunes the ends of the thinnest
branches (never the trunk) and keeps fewer, larger leaves
(``keep_leaves``), each level searched by counting triangles so that it
lands near a ratio of the full mesh.  `billboard_mesh` makes crossed quads for the farthest level.

Material slots (`IndexedMesh.materials`): `BARK` 0, `LEAVES` 1, `BILLBOARD` 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._checks import ParameterError, check_array, check_choice, check_float, check_int, make_rng
from ..mesh import IndexedMesh, index_dtype
from ._leaves import (
    PolygonPlan,
    card_arrays,
    card_counts,
    card_frames,
    kept,
    polygon_arrays,
    polygon_counts,
    polygon_plan,
)
from ._tube import MERGE_DISTANCE, RADIUS_FLOOR, TIP_LENGTH, TubePlan, select_rings, tube_arrays, tube_counts, tube_plan
from .skeleton import Skeleton

__all__ = [
    "BARK",
    "LEAVES",
    "BILLBOARD",
    "LEAF_SHAPES",
    "SIDES",
    "LEAF_WIDTH",
    "SIMPLIFY_ANGLE",
    "UV_SCALE",
    "LEVELS",
    "PLANES",
    "MAX_VERTICES",
    "RADIUS_FLOOR",
    "TIP_LENGTH",
    "tree_mesh",
    "tree_lods",
    "billboard_mesh",
]

#: Material slots of the triangles.
BARK, LEAVES, BILLBOARD = 0, 1, 2
#: Outlines of a leaf card: a pointed 6-vertex leaf (4 triangles), a quad (2), a diamond (2).
LEAF_SHAPES = ("leaf", "card", "diamond")
#: Sides of a bark ring.
SIDES = (3, 64)
#: Leaf width as a fraction of its length.
LEAF_WIDTH = (0.01, 4.0)
#: Turning (degrees) a chain may accumulate between kept rings; 0 keeps every ring.
SIMPLIFY_ANGLE = (0.0, 60.0)
#: Texture repeats per ``2 pi`` base radii of bark (the low end is excluded).
UV_SCALE = (0.0, 1e4)
#: Levels `tree_lods` makes.
LEVELS = (1, 8)
#: Crossed quads of a billboard.
PLANES = (1, 16)
#: Most vertices one tree mesh may have (refused before anything is built).
MAX_VERTICES = 2**25
#: A LOD reached by fewer sides and simplification alone is taken when it has at least this
#: fraction of its target triangle count; below, it prunes branch ends to come nearer.
ENOUGH = 0.8


@dataclass(frozen=True, slots=True)
class _Detail:
    """The options that set a mesh's level of detail."""

    sides: int
    min_radius: float = 0.0
    prune: int = 0
    simplify_angle: float = 0.0
    keep_leaves: float = 1.0


@dataclass(frozen=True, slots=True, eq=False)
class _Plan:
    """What a skeleton's meshes share, whatever the level of detail."""

    tubes: TubePlan
    card_positions: np.ndarray
    card_headings: np.ndarray
    card_ups: np.ndarray
    card_across: np.ndarray
    card_sizes: np.ndarray
    card_ok: np.ndarray
    card_keys: np.ndarray
    polygons: PolygonPlan
    polygon_keys: np.ndarray


def _check_skeleton(skeleton):
    """The skeleton's polygon vertices stacked ((K, 3) float64) and counted per polygon, after checks."""
    if not isinstance(skeleton, Skeleton):
        raise ParameterError(f"skeleton must be a Skeleton, got {type(skeleton).__name__}")
    for name in ("positions", "ups", "radii"):
        if not np.isfinite(getattr(skeleton, name)).all():
            raise ParameterError(f"skeleton.{name} must contain only finite values (found NaN or inf)")
    for name in ("positions", "headings", "ups", "sizes"):
        if not np.isfinite(getattr(skeleton.leaves, name)).all():
            raise ParameterError(f"skeleton.leaves.{name} must contain only finite values (found NaN or inf)")
    lists = [getattr(p, "vertices", None) for p in skeleton.polygons]
    if not all(isinstance(v, np.ndarray) and v.ndim == 2 and v.shape[1] == 3 and v.dtype.kind in "fiu" for v in lists):
        for i, v in enumerate(lists):  # name the first bad one
            check_array(v, name=f"skeleton.polygons[{i}].vertices", ndim=2, shape=(None, 3))
    counts = np.array([v.shape[0] for v in lists], np.int64)
    stacked = np.concatenate(lists).astype(np.float64, copy=False) if lists else np.zeros((0, 3))
    if not np.isfinite(stacked).all():
        bad = int(np.repeat(np.arange(len(lists)), counts)[~np.isfinite(stacked).all(axis=1)][0])
        raise ParameterError(f"skeleton.polygons[{bad}].vertices must contain only finite values (found NaN or inf)")
    return stacked, counts


def _check_common(sides, leaf_shape, leaf_width, uv_scale):
    sides = check_int(sides, name="sides", bounds=SIDES)
    check_choice(leaf_shape, name="leaf_shape", choices=LEAF_SHAPES)
    leaf_width = check_float(leaf_width, name="leaf_width", bounds=LEAF_WIDTH)
    uv_scale = check_float(uv_scale, name="uv_scale", bounds=UV_SCALE, open_low=True)
    return sides, leaf_width, uv_scale


def _plan(skeleton, poly_vertices, poly_counts, *, leaf_width, seed):
    rng = make_rng(seed)
    sk, leaves = skeleton, skeleton.leaves
    scale = max(1.0, *(float(np.abs(a).max(initial=0.0)) for a in (sk.positions, leaves.positions, poly_vertices)))
    tiny = MERGE_DISTANCE * scale
    h, up, across, ok = card_frames(leaves.headings, leaves.ups, leaves.sizes, leaf_width=leaf_width, tiny=tiny)
    return _Plan(
        tubes=tube_plan(sk.positions, sk.ups, sk.radii, sk.parents, sk.orders),
        card_positions=leaves.positions,
        card_headings=h,
        card_ups=up,
        card_across=across,
        card_sizes=leaves.sizes,
        card_ok=ok,
        card_keys=rng.random(len(leaves)),
        polygons=polygon_plan(poly_vertices, poly_counts, tiny=tiny),
        polygon_keys=rng.random(poly_counts.shape[0]),
    )


def _chosen_leaves(plan, keep):
    """Indices of the kept cards (drawable ones only) and polygons."""
    cards = kept(plan.card_keys, keep)
    return cards[plan.card_ok[cards]], kept(plan.polygon_keys, keep)


def _leaf_counts(plan, keep, shape):
    """``(vertices, triangles)`` of the leaves kept with ``keep``."""
    cards, polygons = _chosen_leaves(plan, keep)
    cv, ct = card_counts(cards.size, shape)
    pv, pt = polygon_counts(plan.polygons, polygons)
    return cv + pv, ct + pt


def _bark_counts(plan, detail):
    selected = select_rings(plan.tubes, detail.min_radius, detail.prune, detail.simplify_angle)
    return tube_counts(plan.tubes, selected, detail.sides)


def _build(plan, detail, *, leaf_shape, leaf_width, uv_scale):
    """The mesh of ``detail``: counted first, refused if too big, then written part by part into its arrays."""
    selected = select_rings(plan.tubes, detail.min_radius, detail.prune, detail.simplify_angle)
    cards, polygons = _chosen_leaves(plan, detail.keep_leaves)
    sizes = [
        tube_counts(plan.tubes, selected, detail.sides),
        card_counts(cards.size, leaf_shape),
        polygon_counts(plan.polygons, polygons),
    ]
    n = sum(v for v, _ in sizes)
    if n > MAX_VERTICES:
        raise ParameterError(
            f"the tree mesh would have {n:,} vertices, more than the {MAX_VERTICES:,} allowed "
            f"(it would exhaust memory); use fewer sides (got {detail.sides}) or a smaller skeleton"
        )
    f = sum(t for _, t in sizes)
    vertices = np.empty((n, 3), np.float32)
    normals = np.empty((n, 3), np.float32)
    uvs = np.empty((n, 2), np.float32)
    indices = np.empty((f, 3), index_dtype(n))
    materials = np.full(f, LEAVES, np.uint8)
    materials[: sizes[0][1]] = BARK
    v0 = np.cumsum([0] + [v for v, _ in sizes])
    t0 = np.cumsum([0] + [t for _, t in sizes])
    out = [
        (vertices[v0[i] : v0[i + 1]], normals[v0[i] : v0[i + 1]], uvs[v0[i] : v0[i + 1]], indices[t0[i] : t0[i + 1]])
        for i in range(3)
    ]
    grow = 1.0 / math.sqrt(detail.keep_leaves) if 0.0 < detail.keep_leaves < 1.0 else 1.0
    tube_arrays(plan.tubes, selected, sides=detail.sides, uv_scale=uv_scale, out=out[0])
    card_arrays(
        plan.card_positions[cards],
        plan.card_headings[cards],
        plan.card_ups[cards],
        plan.card_across[cards],
        plan.card_sizes[cards] * grow,
        shape=leaf_shape,
        leaf_width=leaf_width,
        out=out[1],
        offset=int(v0[1]),
    )
    polygon_arrays(plan.polygons, polygons, grow, out=out[2], offset=int(v0[2]))
    return IndexedMesh(vertices, indices, uvs, normals, materials)


def tree_mesh(
    skeleton,
    *,
    sides=8,
    leaf_shape="leaf",
    leaf_width=0.5,
    min_radius=0.0,
    keep_leaves=1.0,
    simplify_angle=0.0,
    uv_scale=1.0,
    seed=0,
):
    """Mesh a skeleton: bark tubes (slot `BARK`) and leaves (slot `LEAVES`).

    Parameters
    ----------
    skeleton : Skeleton
        The turtle's drawing.  Radii below `RADIUS_FLOOR` (1e-4 m) are raised
        to it; positions, ups, radii, leaves and polygons must be finite.
    sides : int, optional
        Sides of a bark ring, within `SIDES`.
    leaf_shape : {'leaf', 'card', 'diamond'}, optional
        Outline of a leaf card: a pointed leaf (6 vertices, 4 triangles), a
        quad covering the whole texture (for alpha-cut leaf atlases), or a
        diamond (4 vertices, 2 triangles).
    leaf_width : float, optional
        Leaf width over its length, within `LEAF_WIDTH`.
    min_radius : float, optional
        Prune the bark where the radius is at or below this (metres, >= 0):
        a chain ends with its tip at its last node above it, and every branch
        beyond is dropped.
    keep_leaves : float, optional
        Fraction of the leaves (cards and polygons) to keep, in [0, 1]; a
        seeded random subset, kept leaves scaled by ``1 / sqrt(keep_leaves)``
        so the crown covers about as much.  Smaller fractions keep subsets
        of larger ones (same seed).
    simplify_angle : float, optional
        Degrees, within `SIMPLIFY_ANGLE`: drop rings inside a chain while the
        turning accumulated since the last kept ring stays below this (ends
        and the starts of surviving branches are kept).  0 keeps all rings.
    uv_scale : float, optional
        Multiplies the bark's ``v`` (texture repeats along the bark), within
        `UV_SCALE`.
    seed : int or numpy.random.Generator, optional
        Picks the ``keep_leaves`` subset; the same seed gives the same bytes.

    Returns
    -------
    IndexedMesh
        Bark vertices first: ``sides + 1`` per ring (``u = j / sides``, the
        last repeating the first), ring after ring along each chain, then one
        tip apex per chain; then leaf cards, then polygons.  ``materials`` is
        `BARK` or `LEAVES` per triangle.  Normals: radial on the bark, along
        the chain at a tip apex, the leaf's up on cards, the Newell normal on
        polygons.  Leaf UVs lie in [0, 1]^2 (``u`` across, ``v`` along).

    Raises
    ------
    ParameterError
        An option out of range, a skeleton with non-finite values, or a mesh
        of more than `MAX_VERTICES` vertices.

    Examples
    --------
    >>> n = 4                                     # a straight trunk of 3 segments
    >>> trunk = Skeleton(positions=np.column_stack([np.zeros(n), np.zeros(n), np.arange(n, dtype=float)]),
    ...                  headings=np.tile([0.0, 0.0, 1.0], (n, 1)), ups=np.tile([0.0, -1.0, 0.0], (n, 1)),
    ...                  radii=np.linspace(0.2, 0.05, n), parents=np.arange(-1, n - 1),
    ...                  orders=np.zeros(n, np.int16))
    >>> m = tree_mesh(trunk, sides=6)
    >>> m.n_vertices, m.n_triangles              # 4 rings of 7 + apex; 3 x 12 tube + 6 tip + 4 cap
    (29, 46)
    >>> m.indices.dtype, int(m.materials.max()) == BARK
    (dtype('uint16'), True)
    """
    poly_vertices, poly_counts = _check_skeleton(skeleton)
    sides, leaf_width, uv_scale = _check_common(sides, leaf_shape, leaf_width, uv_scale)
    min_radius = check_float(min_radius, name="min_radius", bounds=(0.0, None))
    keep_leaves = check_float(keep_leaves, name="keep_leaves", bounds=(0.0, 1.0))
    simplify_angle = check_float(simplify_angle, name="simplify_angle", bounds=SIMPLIFY_ANGLE)
    plan = _plan(skeleton, poly_vertices, poly_counts, leaf_width=leaf_width, seed=seed)
    return _build(
        plan,
        _Detail(sides, min_radius, 0, simplify_angle, keep_leaves),
        leaf_shape=leaf_shape,
        leaf_width=leaf_width,
        uv_scale=uv_scale,
    )


def _check_ratios(ratios, levels):
    try:
        ratios = tuple(ratios)
    except TypeError:
        raise ParameterError(f"ratios must be a sequence of numbers, got {ratios!r}") from None
    if len(ratios) < levels:
        raise ParameterError(f"ratios must hold at least levels = {levels} entries, got {len(ratios)}")
    ratios = tuple(check_float(r, name="ratios", bounds=(0.0, 1.0), open_low=True) for r in ratios[:levels])
    if ratios[0] != 1.0 or any(b >= a for a, b in zip(ratios, ratios[1:])):
        raise ParameterError(f"ratios must start at 1.0 and decrease strictly, got {ratios!r}")
    return ratios


def _more_sides(count, n_sides, most, angle, prune, target):
    """Take ring sides back, up to ``most``, while the count stays within ``target``."""
    while n_sides < most and count(n_sides + 1, angle, prune) <= target:
        n_sides += 1
    return n_sides


def _lod_details(plan, *, levels, sides, ratios, leaf_shape):
    """The detail of each level: level 0 full, the others searched by counting triangles.

    A level with ratio ``r`` keeps the fraction ``r`` of the leaves and has
    ``round(sides * sqrt(r))`` ring sides (8 -> 5 -> 3 for 1, 0.4, 0.15).
    Then it coarsens only as far as needed to come down to ``goal = r``
    times the full triangle count:

    1. if fewer sides are enough, sides come back one at a time while the
       count stays within the goal;
    2. else if simplifying nearly straight runs by up to ``45 (1 - sqrt(r))``
       degrees is enough, the least angle that is (bisection), sides taken
       back as in 1, is taken when it reaches `ENOUGH` of the goal;
    3. otherwise branch ends are pruned, one pruning level at a time
       (bisection over the levels, never the root chains), until the count
       is nearest the goal; of this and step 2's result, the nearer wins.

    Options only ever coarsen from one level to the next, and each level has
    fewer triangles than the one before whenever any option can still cut.
    """
    full = _Detail(sides)
    total = _bark_counts(plan, full)[1] + _leaf_counts(plan, 1.0, leaf_shape)[1]
    details, counts = [full], [total]
    for ratio in ratios[1:]:
        prev = details[-1]
        goal = ratio * total
        target = min(goal, counts[-1] - 1)
        keep = min(prev.keep_leaves, ratio)
        leaves = _leaf_counts(plan, keep, leaf_shape)[1]

        def count(n_sides, angle, prune, leaves=leaves):  # this ratio's leaves, bound now
            return leaves + _bark_counts(plan, _Detail(n_sides, 0.0, prune, angle))[1]

        n_sides = min(prev.sides, max(SIDES[0], round(sides * math.sqrt(ratio))))
        angle, prune = prev.simplify_angle, prev.prune
        simplified = max(angle, 45.0 * (1.0 - math.sqrt(ratio)))
        found = []  # (sides, angle, prune) candidates
        if count(n_sides, angle, prune) <= target:
            found.append((_more_sides(count, n_sides, prev.sides, angle, prune, target), angle, prune))
        else:
            if count(n_sides, simplified, prune) <= target:
                lo, hi = angle, simplified  # count(lo) > target >= count(hi)
                while hi - lo > 0.25:
                    mid = (lo + hi) / 2
                    lo, hi = (lo, mid) if count(n_sides, mid, prune) <= target else (mid, hi)
                found.append((_more_sides(count, n_sides, prev.sides, hi, prune, target), hi, prune))
                angle = lo  # straight runs may collapse all at once: try pruning too
            else:
                angle = simplified
            if not found or count(*found[0]) < ENOUGH * target:
                found.append(
                    (n_sides, angle, _prune_to(count, n_sides, angle, prune, plan.tubes.prunable, target, goal))
                )
        counted = [(count(*f), f) for f in found]
        fewer = [cf for cf in counted if cf[0] < counts[-1]] or [min(counted)]
        c, (n_sides, angle, prune) = min(fewer, key=lambda cf: abs(cf[0] - goal))
        details.append(_Detail(n_sides, 0.0, prune, angle, keep))
        counts.append(c)
    return details


def _prune_to(count, n_sides, angle, prune, most, target, goal):
    """The pruning level in ``[prune, most]`` whose count is nearest ``goal`` without a first count
    above ``target`` being passed over (bisection for the least level within ``target``)."""
    lo, hi = prune, most
    if count(n_sides, angle, lo) <= target:
        return lo
    if count(n_sides, angle, hi) > target:
        return hi
    while hi - lo > 1:  # count(lo) > target >= count(hi)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if count(n_sides, angle, mid) <= target else (mid, hi)
    return hi if abs(count(n_sides, angle, hi) - goal) <= abs(count(n_sides, angle, lo) - goal) else lo


def tree_lods(
    skeleton, *, levels=3, sides=8, ratios=(1.0, 0.4, 0.15), leaf_shape="leaf", leaf_width=0.5, uv_scale=1.0, seed=0
):
    """Levels of detail of a tree: the full mesh, then coarser ones near ``ratios`` of its triangles.

    Parameters
    ----------
    skeleton : Skeleton
        As for `tree_mesh`.
    levels : int, optional
        Number of meshes, within `LEVELS`.
    sides : int, optional
        Ring sides of level 0, within `SIDES`; coarser levels use fewer.
    ratios : sequence of float, optional
        Target triangle count of each level over level 0's: at least
        ``levels`` entries (the first ``levels`` are used), starting at 1.0
        and strictly decreasing, each in (0, 1].
    leaf_shape, leaf_width, uv_scale, seed
        As for `tree_mesh`; every level uses the same leaf subset order, so a
        coarser level's leaves are a subset of a finer one's.

    Returns
    -------
    tuple of IndexedMesh
        Level 0 (``tree_mesh`` with ``sides``) first.  Each coarser level keeps
        the fraction ``ratio`` of the leaves (scaled up to cover as much),
        uses fewer ring sides, simplifies nearly straight runs and prunes the
        thinnest branches until its triangle count is nearest
        ``ratio * level 0's`` (see Notes).

    Notes
    -----
    The search only counts triangles (no mesh is built until the end); a
    skeleton of 5,000 segments and 3,000 leaves takes a few milliseconds.
    Exact ratios are not always reachable: the root chains (the trunk) are
    never pruned, a straight run simplifies all at once, and a level never
    has more triangles than the one before.  Leaves are not tied to
    branches, so those of pruned branch ends stay (as bigger, fewer cards).

    Examples
    --------
    >>> n = 9
    >>> trunk = Skeleton(positions=np.column_stack([np.zeros(n), np.zeros(n), np.arange(n, dtype=float)]),
    ...                  headings=np.tile([0.0, 0.0, 1.0], (n, 1)), ups=np.tile([0.0, -1.0, 0.0], (n, 1)),
    ...                  radii=np.linspace(0.2, 0.05, n), parents=np.arange(-1, n - 1),
    ...                  orders=np.zeros(n, np.int16))
    >>> [m.n_triangles for m in tree_lods(trunk)]   # 8 x 16 + 8 + 6; then one segment: 16 + 8 + 6, 10 + 5 + 3
    [142, 30, 18]

    A lone straight trunk cannot be pruned and simplifies to one segment, so
    its levels fall below 40 % and take back sides (8, then 5) instead.
    """
    poly_vertices, poly_counts = _check_skeleton(skeleton)
    levels = check_int(levels, name="levels", bounds=LEVELS)
    sides, leaf_width, uv_scale = _check_common(sides, leaf_shape, leaf_width, uv_scale)
    ratios = _check_ratios(ratios, levels)
    plan = _plan(skeleton, poly_vertices, poly_counts, leaf_width=leaf_width, seed=seed)
    details = _lod_details(plan, levels=levels, sides=sides, ratios=ratios, leaf_shape=leaf_shape)
    return tuple(_build(plan, d, leaf_shape=leaf_shape, leaf_width=leaf_width, uv_scale=uv_scale) for d in details)


def billboard_mesh(vertices, *, planes=2):
    """Crossed vertical quads around points (a tree's far LOD), material slot `BILLBOARD`.

    Parameters
    ----------
    vertices : (V, 3) array_like of float
        Points to cover, e.g. ``tree_lods(...)[0].vertices``; finite, spanning
        some width and height.
    planes : int, optional
        Number of quads, within `PLANES`, at angles ``180 k / planes`` degrees
        about the vertical axis through the centre of the points' X/Y bounds.

    Returns
    -------
    IndexedMesh
        ``8 * planes`` vertices and ``4 * planes`` triangles: each plane is a
        front quad and a back quad (same corners, opposite normals and
        winding), so it shows from every side.  Each quad is ``width`` wide,
        the larger of the X and Y extents, and spans the points' Z range.
        Corner UVs are 0 and 1 (``u`` along the quad, the same on both faces,
        ``v`` up).

    Examples
    --------
    >>> b = billboard_mesh([[0, 0, 0], [2, 1, 5]])
    >>> b.n_vertices, b.n_triangles, b.materials.tolist() == [BILLBOARD] * 8
    (16, 8, True)
    >>> b.vertices.min(axis=0).tolist(), b.vertices.max(axis=0).tolist()
    ([0.0, -0.5, 0.0], [2.0, 1.5, 5.0])
    """
    points = check_array(vertices, name="vertices", ndim=2, shape=(None, 3))
    planes = check_int(planes, name="planes", bounds=PLANES)
    if points.shape[0] == 0:
        raise ParameterError("vertices must hold at least one point, got none")
    lo = points.min(axis=0).astype(np.float64)
    hi = points.max(axis=0).astype(np.float64)
    width = float(max(hi[0] - lo[0], hi[1] - lo[1]))
    if width <= 0.0 or hi[2] <= lo[2]:
        raise ParameterError(f"vertices must span some width and height, got extents {(hi - lo).tolist()}")
    centre = (lo + hi) / 2
    phi = math.pi * np.arange(planes) / planes
    along = np.column_stack([np.cos(phi), np.sin(phi), np.zeros(planes)])
    front = np.cross(along, [0.0, 0.0, 1.0])  # along x up: quads below are CCW seen from here
    corner_u = np.array([0.0, 1.0, 1.0, 0.0])
    corner_v = np.array([0.0, 0.0, 1.0, 1.0])
    quad = centre[None, None, :2] + (corner_u - 0.5)[None, :, None] * width * along[:, None, :2]
    quad = np.concatenate(
        [quad, np.broadcast_to((lo[2] + corner_v * (hi[2] - lo[2]))[None, :, None], (planes, 4, 1))], axis=2
    )
    verts = np.concatenate([quad, quad], axis=1)  # (planes, 8, 3)
    normals = np.concatenate([np.repeat(front[:, None], 4, 1), np.repeat(-front[:, None], 4, 1)], axis=1)
    uvs = np.broadcast_to(np.tile(np.column_stack([corner_u, corner_v]), (2, 1)), (planes, 8, 2))
    tris = np.array([[0, 1, 2], [0, 2, 3], [4, 6, 5], [4, 7, 6]])
    indices = (np.arange(planes) * 8)[:, None, None] + tris[None]
    n = planes * 8
    return IndexedMesh(
        verts.reshape(n, 3).astype(np.float32),
        indices.reshape(-1, 3).astype(index_dtype(n)),
        uvs.reshape(n, 2).astype(np.float32),
        normals.reshape(n, 3).astype(np.float32),
        np.full(planes * 4, BILLBOARD, np.uint8),
    )
