"""Settlements of a terrain from its ``[settlements]`` spec: sites, pads, the roads between them,
and each site's streets, lots and houses.

The order: the sites from the interest map (:mod:`._sites`); each site's main street turned toward
its nearest neighbour; the pads levelled and blended into the ground (:mod:`._pad`); with
``[roads]`` on, the roads planned between the main streets' ends (just outside the pads, which the
roads go round) and the user's points, and cut and filled (``core.roads``); the pads levelled
again (the cut and fill does not reach into them); then each site's plan (:mod:`._layout`) on the
final ground.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import exact
from .._checks import check_array, check_float, check_int
from .._polyline import bilinear
from ..biomes import sea_mask
from ..errors import ParameterError
from ..roads import Roads, RoadsSpec, carve_roads, grid_points, plan_kwargs, plan_roads
from ..steps import Steps, drive
from ._layout import Site, lay_out
from ._pad import apply_pad, pad_height, water_hold
from ._sites import choose_sites, site_count
from ._types import radius_of
from .spec import SettlementsSpec

__all__ = ["Settlements", "build_settlements", "build_settlements_steps", "settle_heights", "SALT", "TITLES"]

F64 = npt.NDArray[np.float64]
#: Mixed into the world's seed: the settlements' own random stream.
SALT = 0x5E771E
#: Site names by type: ``Village2``.
TITLES = {"hamlet": "Hamlet", "village": "Village", "walled_town": "WalledTown"}
#: A ramp's grade as a share of the road class's steepest (room for the road's own bends).
RAMP_SHARE = 0.8
#: Most cells a settlement build takes (the interest maps hold several of the terrain's size).
MAX_CELLS = 4097 * 4097


@dataclass(frozen=True, eq=False)
class Settlements:
    """A terrain's settlements: ``sites`` (best first), the ground after the pads and the roads
    (``heights``, metres), ``roads`` (a ``core.roads.Roads`` joining them, or None), the
    ``interest`` map of every type used, and the grid (``cell_size``, ``origin`` Blender x, y of
    cell (0, 0)); ``road_points`` the ``[roads]`` point index of every site (None: not joined);
    ``asked`` how many sites the spec asked for (``count``, or ``density`` over the terrain)."""

    sites: tuple[Site, ...]
    heights: F64
    roads: Roads | None
    interest: dict[str, F64]
    cell_size: float
    origin: tuple[float, float]
    road_points: tuple[int | None, ...]
    asked: int = 0

    def warnings(self) -> list[str]:
        """What the artist should hear: fewer sites than asked, a site no road reaches."""
        out = []
        if len(self.sites) < self.asked:
            out.append(
                f"{len(self.sites)} of the {self.asked} settlements asked for found a place (the others: too steep, "
                "too wet or too close to each other; raise settlements.max_slope or lower settlements.spacing)"
            )
        if self.roads is not None:
            cut = [s.name for s, p in zip(self.sites, self.road_points) if p is None]
            if cut:
                out.append(
                    f"no road reaches {', '.join(cut)} (both ends of its main street are in water or off the map)"
                )
        return out

    def clearing(self) -> npt.NDArray[np.bool_]:
        """Cells kept free of props and plants: every pad and the roads' clearing."""
        rows, cols = self.heights.shape
        x0, y0 = self.origin
        cells = [
            ((s.centre[1] - y0) / self.cell_size, (s.centre[0] - x0) / self.cell_size, s.radius / self.cell_size)
            for s in self.sites
        ]
        out = _disc_mask((rows, cols), cells)
        if self.roads is not None:
            out |= self.roads.maps.clearing
        return out


def _disc_mask(shape: tuple[int, ...], centres: Iterable[tuple[float, float, float]]) -> npt.NDArray[np.bool_]:
    """Cells within ``radius`` cells of (row, col): ``centres`` of ``(row, col, radius)``."""
    rr, cc = np.mgrid[0 : shape[0], 0 : shape[1]]
    out = np.zeros(shape, bool)
    for r, c, k in centres:
        dr, dc = (rr - r).astype(np.float64), (cc - c).astype(np.float64)
        out |= dr * dr + dc * dc <= k * k
    return out


def settle_heights(
    heights: F64,
    pads: Iterable[tuple[float, float, float, float, tuple[float, float, float, float, float] | None]],
    *,
    tan_slope: float,
    cell_size: float,
    hold: F64 | None = None,
) -> F64:
    """``heights`` (metres) with every pad ``(row, col, radius m, z, ramp or None)`` levelled and
    blended in (``ramp``: see :func:`._pad.apply_pad`): the terrain edit of the settlements, as a
    function of the heights (a new array).  ``hold``: the most each cell may move
    (:func:`._pad.water_hold`: the rivers and lakes keep their ground), or None."""
    out = np.asarray(heights, np.float64)
    for row, col, radius, z, ramp in pads:
        out = apply_pad(
            out, row=row, col=col, radius=radius, z=z, tan_slope=tan_slope, cell_size=cell_size, ramp=ramp, hold=hold
        )
    return out


def _clear_of(
    h: F64, kept: npt.NDArray[np.bool_], *, spec: SettlementsSpec, tan_slope: float, cell_size: float
) -> Callable[[int, int, str], bool]:
    """``accept(row, col, kind)`` for :func:`._sites.choose_sites`: whether the pad there (at the
    median ground under it) and its blend cone ``|h - z| <= (d - R) tan(pad_slope)`` leave every
    ``kept`` cell (a river's water or bed, a lake) as it is, so the terrain can meet the pad without a
    step while the rivers keep their beds (the blend's ``hold``)."""
    kr, kc = np.nonzero(kept)
    kz = h[kr, kc]
    kr_f, kc_f = kr.astype(np.float64), kc.astype(np.float64)

    def accept(row: int, col: int, kind: str) -> bool:
        radius = radius_of(kind, spec.scale)
        z = pad_height(h, row=float(row), col=float(col), radius=radius, cell_size=cell_size)
        dr, dc = kr_f - row, kc_f - col
        d = np.sqrt(dr * dr + dc * dc) * cell_size
        return bool(np.all(np.abs(kz - z) <= np.maximum(d - radius, 0.0) * tan_slope))

    return accept


def build_settlements_steps(
    heights: npt.ArrayLike,
    spec: SettlementsSpec,
    *,
    cell_size: float,
    origin: tuple[float, float],
    seed: int,
    sea_level: float | None = None,
    water: npt.NDArray[np.bool_] | None = None,
    roads: npt.NDArray[np.bool_] | None = None,
    biomes: npt.NDArray[np.integer[Any]] | None = None,
    biome_names: tuple[str, ...] = (),
    roads_spec: RoadsSpec | None = None,
    rivers: Any = None,
    forest: npt.NDArray[np.floating[Any]] | None = None,
) -> Steps[Settlements]:
    """The settlements of one terrain, as a step generator (``core.steps``).

    Parameters
    ----------
    heights : (rows, cols) array, metres
        The ground (after erosion and the rivers' carving).
    spec : SettlementsSpec
    cell_size : float, metres
    origin : (x0, y0)
        Blender metres of cell (0, 0).
    seed : int
        The world's seed (the settlements draw their own stream of it).
    sea_level : float or None
        Metres (``core.biomes.sea_mask``); the sea is water and takes no site.
    water : (rows, cols) bool or None
        Other open water (rivers, lakes): near it is good, on it or below its flood line is not.
    roads : (rows, cols) bool or None
        Roads already on the ground: near them is good, lots do not cover them.
    biomes, biome_names :
        The biome map (ids into ``biome_names``): a site stands where its type's biomes allow.
    roads_spec : core.roads.RoadsSpec or None
        ``[roads]``: when enabled, its roads join the settlements (and its own points).
    rivers : core.rivers.Rivers or None
        Its water is bridged by the roads, its lakes go round.
    forest : (rows, cols) float in [0, 1] or None
        Forest cover (roads cost more through it).

    Yields ``(done, total, label)``; returns :class:`Settlements`.
    """
    h = check_array(heights, name="heights", ndim=2).astype(np.float64, copy=True)
    if h.size > MAX_CELLS:
        raise ParameterError(f"heights has {h.size:,} cells; settlements are built on at most {MAX_CELLS:,}")
    cell_size = check_float(cell_size, name="cell_size", bounds=(0.0, None), open_low=True)
    seed = check_int(seed, name="seed", bounds=(0, None))
    if not isinstance(spec, SettlementsSpec):
        raise ParameterError(f"spec must be a SettlementsSpec, got {type(spec).__name__}")
    rows, cols = h.shape
    x0, y0 = float(origin[0]), float(origin[1])
    base_rng, *_ = np.random.SeedSequence([seed, SALT]).spawn(1)
    rng = np.random.default_rng(base_rng)
    wet = np.zeros(h.shape, bool) if water is None else np.asarray(water, bool)
    level = h.copy()
    sea = np.zeros(h.shape, bool)
    if sea_level is not None:
        sea = sea_mask(h, sea_level=sea_level)
        level[sea] = sea_level
        wet = wet | sea
    if rivers is not None:
        wet = wet | rivers.maps.water | rivers.maps.lake
    road_cells = None if roads is None else np.asarray(roads, bool)
    joined = roads_spec is not None and roads_spec.enabled
    total = 2 + (1 if joined else 0)
    yield 0, total, "settlement sites"
    tan_slope = exact.tan(spec.pad_slope * (math.pi / 180.0))
    hold = accept = None
    if rivers is not None:  # the blends leave the rivers' beds, their banks and the lakes where they are
        kept = rivers.maps.water | rivers.maps.lake  # open water: no site's pad holds any (choose_sites)
        if tuple(rivers.network.shape) == h.shape:  # and every bed cell, however narrow
            bed_r, bed_c = rivers.network.rows_cols()
            kept[bed_r.astype(np.int64), bed_c.astype(np.int64)] = True
        if kept.any():
            reach = min((float(h.max()) - float(h.min())) / tan_slope, float(rows + cols) * cell_size) + 2.0 * cell_size
            hold = water_hold(kept, tan_slope=tan_slope, cell_size=cell_size, reach=reach)
            accept = _clear_of(h, kept, spec=spec, tan_slope=tan_slope, cell_size=cell_size)
    found, interest = choose_sites(
        h,
        spec,
        cell_size=cell_size,
        rng=rng,
        water=wet,
        water_level=level,
        roads=road_cells,
        biomes=biomes,
        biome_names=biome_names,
        accept=accept,
    )
    total += len(found)
    yield 1, total, "settlement sites"
    # the main streets: toward the nearest other site (one site alone: a seeded direction)
    angles = []
    for i, (r, c, _) in enumerate(found):
        others = [(r2, c2) for j, (r2, c2, _) in enumerate(found) if j != i]
        if others:
            d2 = [float((r2 - r) ** 2 + (c2 - c) ** 2) for r2, c2 in others]
            r2, c2 = others[int(np.argmin(d2))]
            angles.append(float(exact.atan2(float(r2 - r), float(c2 - c))))
        else:
            angles.append(float(rng.random()) * 2.0 * math.pi)
    radii = [radius_of(kind, spec.scale) for _, _, kind in found]
    done = 2
    network_roads = None
    road_points: list[int | None] = [None] * len(found)
    entries: list[tuple[float, float] | None] = [None] * len(found)
    ramps: list[tuple[float, float, float, float, float] | None] = [None] * len(found)
    points: list[tuple[float, float]] = []
    # no road through the sea, a lake or a pad (a stream of ``water`` or a river is crossed or bridged)
    blocked = sea.copy() if rivers is None else sea | rivers.maps.lake
    if joined:  # each road comes in at a main street's end, down a ramp at its grade
        assert roads_spec is not None
        grade = RAMP_SHARE * float(getattr(roads_spec, f"{roads_spec.road_class}_max_grade"))
        half = 0.5 * float(getattr(roads_spec, f"{roads_spec.road_class}_width")) + roads_spec.margin + cell_size
        blocked |= _disc_mask(h.shape, [(r, c, radius / cell_size + 1.0) for (r, c, _), radius in zip(found, radii)])
        points = list(roads_spec.points)
        for i, ((r, c, _), radius) in enumerate(zip(found, radii)):
            for a in (angles[i], angles[i] + math.pi):
                s, co = exact.sincos(a)
                reach = radius + 2.0 * cell_size
                x, y = x0 + c * cell_size + reach * co, y0 + r * cell_size + reach * s
                rr, cc = int(round((y - y0) / cell_size)), int(round((x - x0) / cell_size))
                if 0 <= rr < rows and 0 <= cc < cols and not blocked[rr, cc]:
                    angles[i] = float(math.fmod(a, 2.0 * math.pi))
                    road_points[i] = len(points)
                    entries[i] = (float(x), float(y))
                    ramps[i] = (float(co), float(s), grade, half, radius)  # its end: below
                    points.append((float(x), float(y)))
                    break
        for i, (x, y) in enumerate(roads_spec.points):
            rr, cc = int(round((y - y0) / cell_size)), int(round((x - x0) / cell_size))
            if 0 <= rr < rows and 0 <= cc < cols and blocked[rr, cc]:
                raise ParameterError(f"roads.points[{i}] ({x:g}, {y:g}) lies in the sea, a lake or a settlement's pad")
    pads = []
    for i, ((r, c, _), radius, ramp) in enumerate(zip(found, radii, ramps)):
        z = pad_height(h, row=float(r), col=float(c), radius=radius, cell_size=cell_size)
        if ramp is not None:  # as long as the climb to the ground at the entry asks, short of the other pads
            co, s, grade, half, _ = ramp
            x, y = c + (radius + 4.0 * cell_size) * co / cell_size, r + (radius + 4.0 * cell_size) * s / cell_size
            below = abs(z - float(bilinear(h, np.array([y]), np.array([x]))[0]))
            end = radius + below / grade + 4.0 * cell_size
            for j, ((r2, c2, _), radius2) in enumerate(zip(found, radii)):
                if j != i:
                    gap = math.sqrt(float((r2 - r) ** 2 + (c2 - c) ** 2)) * cell_size - radius2 - 2.0 * cell_size
                    end = min(end, gap)
            ramp = (co, s, grade, half, max(end, radius))
        pads.append((float(r), float(c), radius, z, ramp))
    ground = settle_heights(h, pads, tan_slope=tan_slope, cell_size=cell_size, hold=hold)
    if joined:
        assert roads_spec is not None
        if len(points) >= 2:
            pts = grid_points(points, shape=h.shape, cell_size=cell_size, origin=(x0, y0))
            water_ok = width = None
            if rivers is not None:
                water_ok, width = rivers.maps.water & ~rivers.maps.lake, rivers.maps.width
            network = plan_roads(
                ground,
                pts,
                cell_size=cell_size,
                water=water_ok,
                water_width=width,
                blocked=blocked,
                ground=ground,
                forest=forest,
                **plan_kwargs(roads_spec),
            )
            maps = carve_roads(ground, network)
            cut = maps.heights
            if hold is not None:  # the embankments, as the blends, leave the water where it is (not the road)
                limit = np.where(maps.clearing, np.inf, hold)
                cut = ground + np.clip(maps.heights - ground, -limit, limit)
            ground = settle_heights(cut, pads, tan_slope=tan_slope, cell_size=cell_size, hold=hold)
            network_roads = Roads(network, replace(maps, heights=ground))
            road_cells = maps.clearing if road_cells is None else (road_cells | maps.clearing)
        done += 1
        yield done, total, "settlement roads"
    stop = wet | (road_cells if road_cells is not None else np.zeros(h.shape, bool))

    def ground_at(x: F64, y: F64) -> F64:
        out: F64 = bilinear(ground, (np.asarray(y) - y0) / cell_size, (np.asarray(x) - x0) / cell_size)
        return out

    sites = []
    main = spec.street_width  # the main street is as wide as the road that comes in
    if roads_spec is not None and network_roads is not None:
        main = max(main, float(getattr(roads_spec, f"{roads_spec.road_class}_width")))
    for i, ((r, c, kind), radius) in enumerate(zip(found, radii)):
        k = radius / cell_size + 2.0
        r0, r1 = max(0, int(r - k)), min(rows, int(r + k) + 1)
        c0, c1 = max(0, int(c - k)), min(cols, int(c + k) + 1)
        br, bc = np.nonzero(stop[r0:r1, c0:c1])
        blocked_xy = np.stack([x0 + (bc + c0) * cell_size, y0 + (br + r0) * cell_size], axis=1).astype(np.float64)
        site_rng = np.random.default_rng(np.random.SeedSequence([seed, SALT, i]))
        sites.append(
            lay_out(
                name=f"{TITLES[kind]}{i + 1}",
                kind=kind,
                centre=(x0 + c * cell_size, y0 + r * cell_size),
                z=pads[i][3],
                radius=radius,
                angle=angles[i],
                spec=spec,
                rng=site_rng,
                blocked=blocked_xy,
                main_width=main,
                entry=entries[i],
                entries=[angles[i]] if entries[i] is not None else [],
                cell_size=cell_size,
                ground=ground_at,
                level=spec.level if i == 0 else "",
            )
        )
        done += 1
        yield done, total, "settlements"
    return Settlements(
        sites=tuple(sites),
        heights=ground,
        roads=network_roads,
        interest=interest,
        cell_size=cell_size,
        origin=(x0, y0),
        road_points=tuple(road_points),
        asked=site_count(spec, area_m2=(rows - 1) * (cols - 1) * cell_size * cell_size),
    )


def build_settlements(heights: npt.ArrayLike, spec: SettlementsSpec, **kwargs: Any) -> Settlements:
    """:func:`build_settlements_steps` run to the end (same arguments).

    >>> h = np.zeros((80, 80))
    >>> s = build_settlements(h, SettlementsSpec(enabled=True, count=1, types="hamlet"),
    ...                       cell_size=2.0, origin=(-79.0, -79.0), seed=1)
    >>> [site.kind for site in s.sites], len(s.sites[0].lots) > 0
    (['hamlet'], True)
    """
    return drive(build_settlements_steps(heights, spec, **kwargs))
