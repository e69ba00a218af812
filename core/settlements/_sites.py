"""Where settlements go: an interest map after Emilien et al. 2012 and a greedy, spaced choice.

A cell's interest for a type is zero where the type cannot stand (its pad would be too steep,
hold water, lie below the flood line, leave the terrain, or the biome refuses it) and otherwise a
weighted mean of its flatness, nearby water, nearby roads and a sunny (south-facing) aspect.  The
sites are taken one at a time, best first, each at least ``spacing`` from the others; a seeded
jitter of 1e-6 breaks ties.  Only exact operations (min, max, + - * /, sqrt, comparisons) decide.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import exact
from ..biomes import bounded_distance
from ._types import allowed_biomes, radius_of
from .spec import MAX_SITES, SettlementsSpec, site_types

__all__ = ["window_max", "interest_map", "choose_sites", "site_count"]

F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]
#: Most cells a flood window reaches each way (bounds the work of the window maximum).
FLOOD_CELLS = 48
#: Most of the best cells ``choose_sites``' ``accept`` may refuse for one site before it gives up on it.
MAX_REFUSED = 4096


def _running_max(a: npt.NDArray[Any], k: int, fill: Any) -> npt.NDArray[Any]:
    """The maximum over ``2k + 1`` values along the last axis, centred (outside: ``fill``), in O(1) a
    value whatever ``k`` (van Herk / Gil-Werman: blocks of the window's length, their running
    maxima from the left and from the right; a window spans at most two blocks)."""
    n, w = a.shape[-1], 2 * k + 1
    blocks = -(-(n + 2 * k) // w)
    padded = np.full(a.shape[:-1] + (blocks * w,), fill, dtype=a.dtype)
    padded[..., k : k + n] = a
    cut = padded.reshape(a.shape[:-1] + (blocks, w))
    left = np.maximum.accumulate(cut, axis=-1).reshape(padded.shape)
    right = np.maximum.accumulate(cut[..., ::-1], axis=-1)[..., ::-1].reshape(padded.shape)
    out: npt.NDArray[Any] = np.maximum(right[..., :n], left[..., w - 1 : w - 1 + n])
    return out


def window_max(a: npt.NDArray[Any], k: int, fill: Any) -> npt.NDArray[Any]:
    """The maximum of ``a`` over the (2k + 1)² window around every cell (outside: ``fill``); exact
    (maxima only), as ``scipy.ndimage.maximum_filter(a, 2k + 1, mode="constant", cval=fill)``.

    >>> window_max(np.array([[0, 0, 5, 0, 0]]), 1, 0).tolist()
    [[0, 5, 5, 5, 0]]
    """
    rows = _running_max(np.asarray(a), k, fill)
    return _running_max(rows.T, k, fill).T


def site_count(spec: SettlementsSpec, *, area_m2: float) -> int:
    """How many sites: ``count``, or ``density`` per km² of ``area_m2`` (at most :data:`MAX_SITES`)."""
    if spec.density > 0.0:
        return min(MAX_SITES, int(math.floor(spec.density * area_m2 / 1.0e6 + 0.5)))
    return spec.count


def interest_map(
    heights: F64,
    *,
    kind: str,
    spec: SettlementsSpec,
    cell_size: float,
    water: Bool,
    water_level: F64,
    roads: Bool | None,
    biome_ok: Bool | None,
) -> F64:
    """The interest (0 where a site of type ``kind`` cannot stand, else in (0, 1]) of every cell.

    ``water``: open water (sea, rivers, lakes); ``water_level``: the water's surface on its cells
    (metres); ``roads``: cells on a road (None: no roads); ``biome_ok``: cells whose biome takes
    the type (None: every cell)."""
    h = heights
    rows, cols = h.shape
    radius = radius_of(kind, spec.scale)
    k = max(1, int(math.ceil(radius / cell_size)))
    tan_max = exact.tan(spec.max_slope * (math.pi / 180.0))
    relief = window_max(h, k, -np.inf) + window_max(-h, k, -np.inf)  # max - min over the pad
    flat = 1.0 - relief / (2.0 * radius * tan_max)
    hard = flat >= 0.0
    hard &= ~window_max(water, k, True)  # no water on the pad (nor past the terrain's edge)
    # the flood line: the water beside the pad (a stream far up the hill within the water's reach
    # draws a site, it does not flood it), a margin of four flood heights round the pad
    kf = min(FLOOD_CELLS, k + max(2, int(math.ceil(4.0 * spec.flood_height / cell_size))))
    level = window_max(np.where(water, water_level, -np.inf), kf, -np.inf)
    hard &= h - level >= spec.flood_height
    if biome_ok is not None:
        hard &= biome_ok
    edge = np.zeros(h.shape, bool)
    edge[k + 1 : rows - k - 1, k + 1 : cols - k - 1] = True
    hard &= edge
    near_water = bounded_distance(water, reach=spec.water_reach, cell_size=cell_size)
    score_water = np.maximum(0.0, 1.0 - near_water / spec.water_reach)
    if roads is not None and roads.any():
        near_road = bounded_distance(roads, reach=spec.road_reach, cell_size=cell_size)
        score_road = np.maximum(0.0, 1.0 - near_road / spec.road_reach)
    else:
        score_road = np.zeros(h.shape)
    north = np.pad(h, ((0, k), (0, 0)), mode="edge")[k:]
    south = np.pad(h, ((k, 0), (0, 0)), mode="edge")[:rows]
    rise_north = (north - south) / (2.0 * k * cell_size)  # > 0: the ground faces south (row 0 at -Y)
    sun = np.clip(0.5 + 0.5 * rise_north / tan_max, 0.0, 1.0)
    total = 1.0 + spec.water_weight + spec.road_weight + spec.sun_weight
    score = (np.clip(flat, 0.0, 1.0) + spec.water_weight * score_water + spec.road_weight * score_road) + (
        spec.sun_weight * sun
    )
    out: F64 = np.where(hard, np.maximum(score / total, 1.0e-3), 0.0)
    return out


def choose_sites(
    heights: F64,
    spec: SettlementsSpec,
    *,
    cell_size: float,
    rng: np.random.Generator,
    water: Bool,
    water_level: F64,
    roads: Bool | None = None,
    biomes: npt.NDArray[np.integer[Any]] | None = None,
    biome_names: tuple[str, ...] = (),
    accept: Callable[[int, int, str], bool] | None = None,
) -> tuple[list[tuple[int, int, str]], dict[str, F64]]:
    """The sites ``[(row, col, type), ...]``, best first, and the interest map of every type used.

    ``accept(row, col, kind)``: a last check of the best cell left (the settlements': its pad's blend
    would move no river); a refused cell is passed over for the next best, at most
    :data:`MAX_REFUSED` times a site.  Fewer sites than asked when no cell is left that takes one
    (too steep, too wet, too close)."""
    rows, cols = heights.shape
    n = site_count(spec, area_m2=(rows - 1) * (cols - 1) * cell_size * cell_size)
    kinds = site_types(spec, n)
    jitter = rng.random(heights.shape) * 1.0e-6
    maps: dict[str, F64] = {}
    rr, cc = np.mgrid[0:rows, 0:cols]
    sites: list[tuple[int, int, str]] = []
    for kind in kinds:
        if kind not in maps:
            ok = None
            if biomes is not None and biome_names:
                table = np.array(allowed_biomes(kind, biome_names) + (False,) * 256, bool)[:256]
                ok = table[np.asarray(biomes, np.int64)]
            maps[kind] = interest_map(
                heights,
                kind=kind,
                spec=spec,
                cell_size=cell_size,
                water=water,
                water_level=water_level,
                roads=roads,
                biome_ok=ok,
            )
        score = maps[kind]
        for r0, c0, k0 in sites:  # spacing, and never two pads (nor their blends) on each other
            reach = max(spec.spacing, radius_of(k0, spec.scale) + radius_of(kind, spec.scale) + 4.0 * cell_size)
            dr, dc = rr - r0, cc - c0
            d2 = (dr * dr + dc * dc).astype(np.float64) * (cell_size * cell_size)
            score = np.where(d2 < reach * reach, 0.0, score)
        ranked = score + np.where(score > 0.0, jitter, 0.0)
        for _ in range(MAX_REFUSED):
            if not (ranked > 0.0).any():
                break
            best = int(np.argmax(ranked))
            r, c = divmod(best, cols)
            if accept is None or accept(r, c, kind):
                sites.append((r, c, kind))
                break
            ranked[r, c] = 0.0
    return sites, maps
