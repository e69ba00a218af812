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

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from .. import exact
from .._checks import Seed, check_array, check_float, check_int
from ..errors import ParameterError
from ..mesh import IndexedMesh, index_dtype
from ._tree_parts import (
    BARK,
    BILLBOARD,
    LEAF_SHAPES,
    LEAF_WIDTH,
    LEAVES,
    MAX_VERTICES,
    SIDES,
    UV_SCALE,
    Detail,
    Plan,
    bark_counts,
    build,
    check_common,
    check_skeleton,
    leaf_counts,
    tree_plan,
)
from ._tube import RADIUS_FLOOR, TIP_LENGTH
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

#: Turning (degrees) a chain may accumulate between kept rings; 0 keeps every ring.
SIMPLIFY_ANGLE = (0.0, 60.0)
#: Levels `tree_lods` makes.
LEVELS = (1, 8)
#: Crossed quads of a billboard.
PLANES = (1, 16)
#: A LOD reached by fewer sides and simplification alone is taken when it has at least this
#: fraction of its target triangle count; below, it prunes branch ends to come nearer.
ENOUGH = 0.8


def tree_mesh(
    skeleton: Skeleton,
    *,
    sides: int = 8,
    leaf_shape: str = "leaf",
    leaf_width: float = 0.5,
    min_radius: float = 0.0,
    keep_leaves: float = 1.0,
    simplify_angle: float = 0.0,
    uv_scale: float = 1.0,
    seed: Seed = 0,
) -> IndexedMesh:
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
    poly_vertices, poly_counts = check_skeleton(skeleton)
    sides, leaf_width, uv_scale = check_common(sides, leaf_shape, leaf_width, uv_scale)
    min_radius = check_float(min_radius, name="min_radius", bounds=(0.0, None))
    keep_leaves = check_float(keep_leaves, name="keep_leaves", bounds=(0.0, 1.0))
    simplify_angle = check_float(simplify_angle, name="simplify_angle", bounds=SIMPLIFY_ANGLE)
    plan = tree_plan(skeleton, poly_vertices, poly_counts, leaf_width=leaf_width, seed=seed)
    return build(
        plan,
        Detail(sides, min_radius, 0, simplify_angle, keep_leaves),
        leaf_shape=leaf_shape,
        leaf_width=leaf_width,
        uv_scale=uv_scale,
    )


def _check_ratios(ratios: Iterable[float], levels: int) -> tuple[float, ...]:
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


def _more_sides(
    count: Callable[[int, float, int], int], n_sides: int, most: int, angle: float, prune: int, target: float
) -> int:
    """Take ring sides back, up to ``most``, while the count stays within ``target``."""
    while n_sides < most and count(n_sides + 1, angle, prune) <= target:
        n_sides += 1
    return n_sides


def _lod_details(plan: Plan, *, levels: int, sides: int, ratios: Sequence[float], leaf_shape: str) -> list[Detail]:
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
    full = Detail(sides)
    total = bark_counts(plan, full)[1] + leaf_counts(plan, 1.0, leaf_shape)[1]
    details, counts = [full], [total]
    for ratio in ratios[1:]:
        prev = details[-1]
        goal = ratio * total
        target = min(goal, counts[-1] - 1)
        keep = min(prev.keep_leaves, ratio)
        leaves = leaf_counts(plan, keep, leaf_shape)[1]

        def count(
            n_sides: int, angle: float, prune: int, leaves: int = leaves
        ) -> int:  # this ratio's leaves, bound now
            return leaves + bark_counts(plan, Detail(n_sides, 0.0, prune, angle))[1]

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
        details.append(Detail(n_sides, 0.0, prune, angle, keep))
        counts.append(c)
    return details


def _prune_to(
    count: Callable[[int, float, int], int],
    n_sides: int,
    angle: float,
    prune: int,
    most: int,
    target: float,
    goal: float,
) -> int:
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
    skeleton: Skeleton,
    *,
    levels: int = 3,
    sides: int = 8,
    ratios: Iterable[float] = (1.0, 0.4, 0.15),
    leaf_shape: str = "leaf",
    leaf_width: float = 0.5,
    uv_scale: float = 1.0,
    seed: Seed = 0,
) -> tuple[IndexedMesh, ...]:
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
    poly_vertices, poly_counts = check_skeleton(skeleton)
    levels = check_int(levels, name="levels", bounds=LEVELS)
    sides, leaf_width, uv_scale = check_common(sides, leaf_shape, leaf_width, uv_scale)
    ratios = _check_ratios(ratios, levels)
    plan = tree_plan(skeleton, poly_vertices, poly_counts, leaf_width=leaf_width, seed=seed)
    details = _lod_details(plan, levels=levels, sides=sides, ratios=ratios, leaf_shape=leaf_shape)
    return tuple(build(plan, d, leaf_shape=leaf_shape, leaf_width=leaf_width, uv_scale=uv_scale) for d in details)


def billboard_mesh(vertices: npt.ArrayLike, *, planes: int = 2) -> IndexedMesh:
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
    sin, cos = exact.sincos(phi)
    along = np.column_stack([cos, sin, np.zeros(planes)])
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
