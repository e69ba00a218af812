"""A settlement's plan on its pad: streets, lots along them, houses on the lots, a wall with gates.

Everything is laid out in the site's own frame (``u`` along the main street, ``v`` across it,
the origin at the centre) where streets, lots and houses are axis-aligned rectangles, then turned
into Blender's frame by the main street's angle (``core.exact``'s sine and cosine)::

        v ^      lots (depth d) | cross street
          |  +----+----+----+   |   +----+
          |  |    |    |    |   |   |    |       a lot's front edge lies on its street's side,
    ------+--+----+----+----+---+---+----+--> u  its house stands ``setback`` behind it, the
          |  main street (width w)                 door in the middle of the front wall

A lot is kept when it lies inside the pad (inside the wall), overlaps no street and no other lot,
and covers no blocked ground (water, a road and its clearing): so every lot touches its street,
and no house (inside its lot) overlaps a street, another house, a river or a road.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import exact
from ._types import TYPE_TABLE, SiteType
from .spec import SettlementsSpec

__all__ = ["Building", "Site", "lay_out", "circle", "ROOFS", "WALL_THICKNESS", "WALL_HEIGHT", "GATE_WIDTH"]

F64 = npt.NDArray[np.float64]
#: Roof shapes.
ROOFS = ("gable", "hip")
#: A town wall's thickness and height, the width of its gates (metres).
WALL_THICKNESS = 1.2
WALL_HEIGHT = 5.0
GATE_WIDTH = 7.0
#: Sides of a pad's outline and of a town's wall.
OUTLINE_SIDES = 32
WALL_SIDES = 48
_EPS = 1.0e-6


@dataclass(frozen=True, eq=False)
class Building:
    """A house: ``footprint`` (4, 2) Blender x, y corners, counter-clockwise from above; ``base``
    (bottom of its foundation) and ``floor`` (top of it) in metres; ``height`` of its walls;
    ``roof`` (gable or hip) and ``roof_height``; ``door`` (x, y, z) in the middle of the front wall
    and ``facing`` the unit (x, y) it looks along (to its street); ``kind``; ``lot`` its index."""

    footprint: F64
    base: float
    floor: float
    height: float
    roof: str
    roof_height: float
    door: tuple[float, float, float]
    facing: tuple[float, float]
    kind: str
    lot: int
    storeys: int


@dataclass(frozen=True, eq=False)
class Site:
    """One settlement (Blender metres).

    ``name`` (``Village2``), ``kind`` (a type), ``centre`` (x, y) and ``z`` the pad's height,
    ``radius`` of the pad and ``angle`` of its main street (radians); ``outline`` (n, 2) of the pad;
    ``streets`` (k, 4, 2) corners of each street's rectangle, ``street_axes`` (k, 2, 2) its centre
    line's ends, ``street_widths`` (k,); ``lots`` (m, 4, 2) and ``lot_streets`` (m,) the street
    each lot faces; ``buildings``; ``wall`` (s, 2, 2) segments (empty without a wall) and
    ``gates`` (g, 2); ``entry`` (x, y): where the roads reach the settlement (the main street's
    end), or None; ``level`` the level entered here ("" none) and ``entrance`` (x, y, z) its marker
    (the main street's other end, at the pad's edge), or None."""

    name: str
    kind: str
    centre: tuple[float, float]
    z: float
    radius: float
    angle: float
    outline: F64
    streets: F64
    street_axes: F64
    street_widths: F64
    lots: F64
    lot_streets: npt.NDArray[np.int64]
    buildings: tuple[Building, ...]
    wall: F64
    gates: F64
    entry: tuple[float, float] | None
    level: str = ""
    entrance: tuple[float, float, float] | None = None


def circle(cx: float, cy: float, radius: float, sides: int) -> F64:
    """(sides, 2) points of a regular polygon around (cx, cy), counter-clockwise from +x."""
    s, c = exact.sincos(np.arange(sides, dtype=np.float64) * (2.0 * math.pi / sides))
    return np.stack([cx + radius * c, cy + radius * s], axis=1)


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two (u0, u1, v0, v1) rectangles share area (touching edges do not)."""
    return a[0] < b[1] - _EPS and b[0] < a[1] - _EPS and a[2] < b[3] - _EPS and b[2] < a[3] - _EPS


def _rect_world(r: tuple[float, ...], frame: tuple[float, float, float, float]) -> F64:
    """Corners (4, 2) of a local rectangle in Blender's frame, counter-clockwise."""
    cx, cy, c, s = frame
    u = np.array([r[0], r[1], r[1], r[0]])
    v = np.array([r[2], r[2], r[3], r[3]])
    return np.stack([cx + u * c - v * s, cy + u * s + v * c], axis=1)


def _streets(t: SiteType, radius: float, width: float, main_width: float) -> list[tuple[str, float, float, float]]:
    """Streets ``(axis, offset, half length, width)``: ``"u"`` along the main street at ``v =
    offset``, ``"v"`` across it at ``u = offset``; each reaches the pad's (or wall's) circle.
    Parallel streets stand two lots' depth from the main street (back to back); cross streets
    through the centre and, for a town, a block further on each side."""
    out = [("u", 0.0, radius, main_width)]
    for k in range(1, t.streets + 1):
        for sign in (1.0, -1.0):
            off = sign * (main_width / 2.0 + k * 2.0 * t.depth + (2 * k - 1) * width / 2.0)
            if abs(off) + width < radius:
                out.append(("u", off, math.sqrt(radius * radius - off * off), width))
    cross = [0.0] if t.cross >= 1 else []
    if t.cross >= 2:
        step = width + 3.0 * t.frontage  # three lots between two cross streets
        cross += [step, -step]
    for off in cross:
        if abs(off) + width < radius:
            out.append(("v", off, math.sqrt(radius * radius - off * off), width))
    return out


def _lot_rects(
    street: tuple[str, float, float, float],
    t: SiteType,
    rng: np.random.Generator,
    crossing: list[tuple[float, float]],
) -> list[tuple[tuple[float, float, float, float], float]]:
    """Candidate lots along both sides of ``street``: ``((u0, u1, v0, v1), side)``, side +1 or -1
    (the lot lies on the street's + or - side across it).  They run in the free stretches between
    the streets ``crossing`` it (``(low, high)`` along this street), from each stretch's start (a
    hamlet's from a seeded offset: its houses straggle)."""
    axis, off, half, width = street
    out = []
    cuts = sorted((lo, hi) for lo, hi in crossing if hi > -half and lo < half)
    stretches, at = [], -half
    for lo, hi in cuts:
        if lo > at:
            stretches.append((at, lo))
        at = max(at, hi)
    if at < half:
        stretches.append((at, half))
    for side in (1.0, -1.0):
        front = off + side * width / 2.0
        back = off + side * (width / 2.0 + t.depth)
        lo_v, hi_v = (front, back) if side > 0 else (back, front)
        for start, end in stretches:
            a = start + (float(rng.random()) * t.frontage * 0.5 if t.skip >= 0.3 else 0.0)
            while a + t.frontage <= end + _EPS:
                rect = (a, a + t.frontage, lo_v, hi_v) if axis == "u" else (lo_v, hi_v, a, a + t.frontage)
                out.append((rect, side))
                a += t.frontage
    return out


def _gate_angles(angle: float, entries: list[float], wall: bool) -> list[float]:
    if not wall:
        return []
    out: list[float] = []
    for a in [*entries, angle, angle + math.pi]:
        a = math.fmod(a, 2.0 * math.pi) + (2.0 * math.pi if math.fmod(a, 2.0 * math.pi) < 0.0 else 0.0)
        if all(abs(math.remainder(a - b, 2.0 * math.pi)) > 0.2 for b in out):
            out.append(a)
    return out


def lay_out(
    *,
    name: str,
    kind: str,
    centre: tuple[float, float],
    z: float,
    radius: float,
    angle: float,
    spec: SettlementsSpec,
    rng: np.random.Generator,
    blocked: F64,
    main_width: float,
    entry: tuple[float, float] | None,
    entries: list[float],
    cell_size: float,
    ground: Any,
    level: str = "",
) -> Site:
    """The plan of one site.

    ``blocked`` (b, 2): Blender x, y of blocked cell centres near the site (water, roads);
    ``main_width`` the main street's width (the road's when a road comes in); ``entries`` angles
    (radians) where roads cross the pad's edge; ``ground(x, y) -> z`` the ground (metres) at arrays
    of points (the foundations follow it); ``level``: a level entered from this site (its entrance
    at the main street's far end, inside the pad's edge)."""
    t = TYPE_TABLE[kind]
    width = spec.street_width
    s, c = exact.sincos(angle)
    cx, cy = centre
    frame = (cx, cy, float(c), float(s))
    inner = radius - (WALL_THICKNESS + 2.5 if t.wall else 1.0)
    streets = _streets(t, inner, width, main_width)
    street_rects = []
    for axis, off, half, w in streets:
        street_rects.append(
            (-half, half, off - w / 2, off + w / 2) if axis == "u" else (off - w / 2, off + w / 2, -half, half)
        )
    # blocked cells in the site's frame, grown by three quarters of a cell (a cell is a square)
    bx, by = blocked[:, 0] - cx, blocked[:, 1] - cy
    bu, bv = bx * c + by * s, -bx * s + by * c
    grow = 0.75 * cell_size
    lots: list[tuple[float, float, float, float]] = []
    lot_streets: list[int] = []
    facing: list[tuple[str, float]] = []
    for k, street in enumerate(streets):
        crossing = [(o - w / 2.0, o + w / 2.0) for a, o, _, w in streets if a != street[0]]
        for rect, side in _lot_rects(street, t, rng, crossing):
            keep = float(rng.random()) >= t.skip
            corners_u = np.array([rect[0], rect[1]])
            corners_v = np.array([rect[2], rect[3]])
            far = corners_u[:, None] ** 2 + corners_v[None, :] ** 2
            if not keep or bool((far > inner * inner).any()):
                continue
            if any(_overlap(rect, r) for r in street_rects) or any(_overlap(rect, r) for r in lots):
                continue
            hit = (bu > rect[0] - grow) & (bu < rect[1] + grow) & (bv > rect[2] - grow) & (bv < rect[3] + grow)
            if bool(hit.any()):
                continue
            lots.append(rect)
            lot_streets.append(k)
            facing.append((street[0], side))
    buildings = []
    roofs = ROOFS if spec.roofs == "mixed" else (spec.roofs,)
    for i, rect in enumerate(lots):
        axis, side = facing[i]
        u0, u1, v0, v1 = rect
        depth_draw = t.house_depth[0] + float(rng.random()) * (t.house_depth[1] - t.house_depth[0])
        storeys = int(rng.integers(t.storeys[0], t.storeys[1] + 1))
        roof = roofs[int(rng.integers(len(roofs)))]
        if axis == "u":  # front on v = (v0 if side > 0 else v1); frontage along u
            front = v0 if side > 0 else v1
            along = (u0 + t.side_gap, u1 - t.side_gap)
            deep = min(depth_draw, (v1 - v0) - t.setback - 0.5)
            near, far_v = front + side * t.setback, front + side * (t.setback + deep)
            b = (along[0], along[1], min(near, far_v), max(near, far_v))
            door_uv, look = ((b[0] + b[1]) / 2.0, near), (0.0, -side)
        else:  # front on u = (u0 if side > 0 else u1); frontage along v
            front = u0 if side > 0 else u1
            along = (v0 + t.side_gap, v1 - t.side_gap)
            deep = min(depth_draw, (u1 - u0) - t.setback - 0.5)
            near, far_u = front + side * t.setback, front + side * (t.setback + deep)
            b = (min(near, far_u), max(near, far_u), along[0], along[1])
            door_uv, look = (near, (b[2] + b[3]) / 2.0), (-side, 0.0)
        if along[1] - along[0] < 3.0 or deep < 3.0:
            continue
        foot = _rect_world(b, frame)
        zs = np.asarray(ground(foot[:, 0], foot[:, 1]), np.float64)
        floor = float(zs.max()) + 0.15
        dx = cx + door_uv[0] * c - door_uv[1] * s
        dy = cy + door_uv[0] * s + door_uv[1] * c
        short_side = min(b[1] - b[0], b[3] - b[2])
        area = (b[1] - b[0]) * (b[3] - b[2])
        house = (
            "townhouse"
            if kind == "walled_town"
            else "cottage"
            if area < 50.0
            else "house"
            if area < 90.0
            else "longhouse"
        )
        buildings.append(
            Building(
                footprint=foot,
                base=float(zs.min()) - 0.3,
                floor=floor,
                height=storeys * spec.storey_height,
                roof=roof,
                roof_height=0.35 * short_side,
                door=(float(dx), float(dy), floor),
                facing=(float(look[0] * c - look[1] * s), float(look[0] * s + look[1] * c)),
                kind=house,
                lot=i,
                storeys=storeys,
            )
        )
    wall = np.zeros((0, 2, 2))
    gates = np.zeros((0, 2))
    if t.wall:
        rw = radius - WALL_THICKNESS
        gate_angles = _gate_angles(angle, entries, True)
        if gate_angles:
            gs, gc = exact.sincos(np.array(gate_angles))
            gates = np.stack([cx + rw * gc, cy + rw * gs], axis=1)
        ring = circle(cx, cy, rw, WALL_SIDES)
        half_gap = GATE_WIDTH / 2.0 / rw + math.pi / WALL_SIDES
        segs = []
        for k in range(WALL_SIDES):
            mid = (k + 0.5) * (2.0 * math.pi / WALL_SIDES)
            if all(abs(math.remainder(mid - g, 2.0 * math.pi)) > half_gap for g in gate_angles):
                segs.append((ring[k], ring[(k + 1) % WALL_SIDES]))
        wall = np.array(segs, np.float64).reshape(-1, 2, 2)
    entrance = None
    if level:
        back = -(inner - 1.0)  # the main street's end away from the road
        entrance = (cx + back * frame[2], cy + back * frame[3], z)
    return Site(
        name=name,
        kind=kind,
        centre=(cx, cy),
        z=z,
        radius=radius,
        angle=angle,
        outline=circle(cx, cy, radius, OUTLINE_SIDES),
        streets=np.array([_rect_world(r, frame) for r in street_rects]).reshape(-1, 4, 2),
        street_axes=np.array(
            [_rect_world((-h, h, o, o) if a == "u" else (o, o, -h, h), frame)[[0, 2]] for a, o, h, _ in streets]
        ).reshape(-1, 2, 2),
        street_widths=np.array([w for *_, w in streets], np.float64),
        lots=np.array([_rect_world(r, frame) for r in lots]).reshape(-1, 4, 2),
        lot_streets=np.array(lot_streets, np.int64),
        buildings=tuple(buildings),
        wall=wall,
        gates=gates,
        entry=entry,
        level=level,
        entrance=entrance,
    )
