"""What every tree mesh is built from, whatever its level of detail: the checked skeleton, the plan
its meshes share (tubes, leaf cards and polygons), the counts and the arrays of one level of
detail (:func:`build`).  :mod:`.tree_mesh` makes the meshes, LODs and billboards from them."""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import Seed, check_array, check_choice, check_float, check_int, make_rng
from ..errors import ParameterError
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
from ._tube import MERGE_DISTANCE, TubePlan, select_rings, tube_arrays, tube_counts, tube_plan
from .skeleton import Skeleton

__all__ = [
    "BARK",
    "LEAVES",
    "BILLBOARD",
    "LEAF_SHAPES",
    "SIDES",
    "LEAF_WIDTH",
    "UV_SCALE",
    "MAX_VERTICES",
    "Detail",
    "Plan",
    "check_skeleton",
    "check_common",
    "tree_plan",
    "chosen_leaves",
    "leaf_counts",
    "bark_counts",
    "build",
]

#: Material slots of the triangles.
BARK, LEAVES, BILLBOARD = 0, 1, 2
#: Outlines of a leaf card: a pointed 6-vertex leaf (4 triangles), a quad (2), a diamond (2).
LEAF_SHAPES = ("leaf", "card", "diamond")
#: Sides of a bark ring.
SIDES = (3, 64)
#: Leaf width as a fraction of its length.
LEAF_WIDTH = (0.01, 4.0)
#: Texture repeats per ``2 pi`` base radii of bark (the low end is excluded).
UV_SCALE = (0.0, 1e4)
#: Most vertices one tree mesh may have (refused before anything is built).
MAX_VERTICES = 2**25


@dataclass(frozen=True, slots=True)
class Detail:
    """The options that set a mesh's level of detail."""

    sides: int
    min_radius: float = 0.0
    prune: int = 0
    simplify_angle: float = 0.0
    keep_leaves: float = 1.0


@dataclass(frozen=True, slots=True, eq=False)
class Plan:
    """What a skeleton's meshes share, whatever the level of detail."""

    tubes: TubePlan
    card_positions: npt.NDArray[np.float64]
    card_headings: npt.NDArray[np.float64]
    card_ups: npt.NDArray[np.float64]
    card_across: npt.NDArray[np.float64]
    card_sizes: npt.NDArray[np.float64]
    card_ok: npt.NDArray[np.bool_]
    card_keys: npt.NDArray[np.float64]
    polygons: PolygonPlan
    polygon_keys: npt.NDArray[np.float64]


def check_skeleton(skeleton: object) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """The skeleton's polygon vertices stacked ((K, 3) float64) and counted per polygon, after checks."""
    if not isinstance(skeleton, Skeleton):
        raise ParameterError(f"skeleton must be a Skeleton, got {type(skeleton).__name__}")
    for name in ("positions", "ups", "radii"):
        if not np.isfinite(getattr(skeleton, name)).all():
            raise ParameterError(f"skeleton.{name} must contain only finite values (found NaN or inf)")
    for name in ("positions", "headings", "ups", "sizes"):
        if not np.isfinite(getattr(skeleton.leaves, name)).all():
            raise ParameterError(f"skeleton.leaves.{name} must contain only finite values (found NaN or inf)")
    lists: list[Any] = [getattr(p, "vertices", None) for p in skeleton.polygons]
    if not all(isinstance(v, np.ndarray) and v.ndim == 2 and v.shape[1] == 3 and v.dtype.kind in "fiu" for v in lists):
        for i, v in enumerate(lists):  # name the first bad one
            check_array(v, name=f"skeleton.polygons[{i}].vertices", ndim=2, shape=(None, 3))
    counts = np.array([v.shape[0] for v in lists], np.int64)
    stacked = np.concatenate(lists).astype(np.float64, copy=False) if lists else np.zeros((0, 3))
    if not np.isfinite(stacked).all():
        bad = int(np.repeat(np.arange(len(lists)), counts)[~np.isfinite(stacked).all(axis=1)][0])
        raise ParameterError(f"skeleton.polygons[{bad}].vertices must contain only finite values (found NaN or inf)")
    return stacked, counts


def check_common(sides: int, leaf_shape: str, leaf_width: float, uv_scale: float) -> tuple[int, float, float]:
    sides = check_int(sides, name="sides", bounds=SIDES)
    check_choice(leaf_shape, name="leaf_shape", choices=LEAF_SHAPES)
    leaf_width = check_float(leaf_width, name="leaf_width", bounds=LEAF_WIDTH)
    uv_scale = check_float(uv_scale, name="uv_scale", bounds=UV_SCALE, open_low=True)
    return sides, leaf_width, uv_scale


def tree_plan(
    skeleton: Skeleton,
    poly_vertices: npt.NDArray[np.float64],
    poly_counts: npt.NDArray[np.int64],
    *,
    leaf_width: float,
    seed: Seed,
) -> Plan:
    rng = make_rng(seed)
    sk, leaves = skeleton, skeleton.leaves
    scale = max(1.0, *(float(np.abs(a).max(initial=0.0)) for a in (sk.positions, leaves.positions, poly_vertices)))
    tiny = MERGE_DISTANCE * scale
    h, up, across, ok = card_frames(leaves.headings, leaves.ups, leaves.sizes, leaf_width=leaf_width, tiny=tiny)
    return Plan(
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


def chosen_leaves(plan: Plan, keep: float) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Indices of the kept cards (drawable ones only) and polygons."""
    cards = kept(plan.card_keys, keep)
    return cards[plan.card_ok[cards]], kept(plan.polygon_keys, keep)


def leaf_counts(plan: Plan, keep: float, shape: str) -> tuple[int, int]:
    """``(vertices, triangles)`` of the leaves kept with ``keep``."""
    cards, polygons = chosen_leaves(plan, keep)
    cv, ct = card_counts(cards.size, shape)
    pv, pt = polygon_counts(plan.polygons, polygons)
    return cv + pv, ct + pt


def bark_counts(plan: Plan, detail: Detail) -> tuple[int, int]:
    selected = select_rings(plan.tubes, detail.min_radius, detail.prune, detail.simplify_angle)
    return tube_counts(plan.tubes, selected, detail.sides)


def build(plan: Plan, detail: Detail, *, leaf_shape: str, leaf_width: float, uv_scale: float) -> IndexedMesh:
    """The mesh of ``detail``: counted first, refused if too big, then written part by part into its arrays."""
    selected = select_rings(plan.tubes, detail.min_radius, detail.prune, detail.simplify_angle)
    cards, polygons = chosen_leaves(plan, detail.keep_leaves)
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
