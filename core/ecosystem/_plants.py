"""The plant engine: individual plants on the ground, in yearly steps of whole arrays.

After Deussen et al. 1998 ("Realistic modeling and rendering of plant ecosystems") and Lane &
Prusinkiewicz 2002 ("Generating spatial distributions for multilevel models of plant
communities").  Each plant is a disc: species, position, age, canopy radius and height.  A year:

1. **mortality**: a plant older than its lifespan (``max_age`` times ``1 + age_spread * n``, ``n``
   about normal, drawn at birth) dies; so does one with chance ``mortality + stress * (1 - s)``
   (``s`` the suitability of its ground), and every plant a disturbance patch takes (a fire all of
   them, a windthrow those taller than half their species' height).
2. **seeds**: a plant of at least ``maturity`` of its species' height sheds ``seeds_per_year``
   seeds, of which ``germination`` germinate on ideal ground (drawn first, so the doomed seeds are
   never made); each lands at the parent plus an offset of about normal components with mean
   distance ``dispersal`` (a kernel of bounded reach, ``dispersal_reach``), and germinates with
   chance ``s`` of where it lands.  ``immigrants`` seeds per hectare rain in from outside.
3. **growth**: the effective age ``e`` advances by ``vigour * s * light``, light
   ``UNDERSTOREY + (1 - UNDERSTOREY) * (1 - shade)`` (last year's shade); radius and height are
   ``max * e / (e + growth_years)``, a saturating curve at half the maximum after
   ``growth_years`` good years.
4. **competition**: where two canopies overlap, in the order of height (then radius, then
   identity), from the tallest down: a plant of the same layer as a taller living one (at least
   ``LAYER`` of its height) dies -- the smaller of equals dies; a lower plant is shaded by the
   share ``min(1, (r_lo + r_hi - d) / (2 r_lo))`` of its crown's diameter each taller living
   overlapping canopy covers, and dies when that shade exceeds its ``shade_tolerance``
   (intolerant plants die under any taller canopy, tolerant ones live on as understorey, growing
   slowly).  Decided in rounds: a plant is decided once all the taller plants it overlaps are,
   so the result is that of the sequential rule, in whole-array steps.

Seedlings that die in their first year's competition were never established: ``born`` counts
the plants that germinated and stood at the year's end, ``died`` the established plants that
died, so ``alive[t] - alive[t - 1] == born[t] - died[t]`` holds exactly per species and year.

Every random number is a hash of the plant's identity (or a world block's coordinates) and the key
``SeedSequence([seed, stream, year])`` (:mod:`._random`): a plant draws the same numbers whichever
tile simulates it and wherever it sits in the arrays.  Outcomes are decided with ``+ - * / sqrt``
only, and the shade sums in fixed point (integers: the same total in any order).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._checks import check_float
from ..errors import ParameterError
from . import _random as rnd
from ._habitat import Habitat, cell_index, suitability
from ._neighbours import overlapping_pairs

if TYPE_CHECKING:
    from ..steps import Steps
    from .spec import EcosystemSpec, PlantSpecies

__all__ = [
    "PlantRun",
    "plants_steps",
    "plants_tile_steps",
    "compete",
    "estimate_plants",
    "dispersal_reach",
    "interaction_reach",
    "LAYER",
    "UNDERSTOREY",
    "MAX_PLANTS",
    "MAX_PLANT_YEARS",
    "BYTES_PER_PLANT",
]

#: A lower plant of at least this share of a taller one's height stands in its layer (the smaller dies).
LAYER = 0.75
#: Growth in full shade as a share of the growth in full light.
UNDERSTOREY = 0.25
#: Most plants (living, plus the year's seedlings) a simulation may hold at once.
MAX_PLANTS = 2_000_000
#: Most plant-years a simulation may take (about 10^4 s at 2 x 10^5 plant-years a second).
MAX_PLANT_YEARS = 2_000_000_000
#: Memory per living plant of a century's run: its state, a year's seeds and candidate pairs, the
#: life table of every plant that lived and the yearly snapshots (measured: 312 MB of peak resident
#: memory for 131,585 plants at the peak of a 100-year run on 1 km^2, bench_ecosystem's race).
BYTES_PER_PLANT = 2400
#: Side of the world blocks the initial plants and the immigrants are drawn per (metres).
BLOCK = 32.0
#: Side of the world blocks the disturbance patches are drawn per (metres).
PATCH_BLOCK = 512.0
#: The reach of the dispersal kernel in units of its per-axis spread: four uniforms summed.
_KERNEL_REACH = 2.0 * math.sqrt(3.0) * math.sqrt(2.0)
_SIGMA_PER_MEAN = 1.0 / math.sqrt(math.pi / 2.0)  # a 2-D normal's mean distance is sigma sqrt(pi / 2)
_FIXED = float(1 << 24)  # shade shares in fixed point: integer sums, the same in any order


def dispersal_reach(species: PlantSpecies) -> float:
    """Farthest a seed of ``species`` lands from its parent (metres): the kernel's bounded reach."""
    return species.dispersal * _SIGMA_PER_MEAN * _KERNEL_REACH


def interaction_reach(species_list: Sequence[PlantSpecies]) -> float:
    """The largest distance at which one plant affects another in a year: a seed's flight or two
    canopies' overlap (metres); the halo a tile of a world simulates around itself."""
    if not species_list:
        return 0.0
    return max(max(dispersal_reach(s), 2.0 * s.max_radius) for s in species_list)


def estimate_plants(spec: EcosystemSpec, area_m2: float, *, prefix: str = "ecosystem.") -> tuple[int, int, int]:
    """``(plants, bytes, plant_years)`` a simulation of ``area_m2`` starts with, before it runs:
    the initial plants (every species' ``initial_density`` over the area), their memory
    (``BYTES_PER_PLANT`` each) and their plant-years over ``years``.  Refuses (naming the key)
    more than :data:`MAX_PLANTS` plants or :data:`MAX_PLANT_YEARS` plant-years.

    >>> from .spec import EcosystemSpec, PlantSpecies
    >>> estimate_plants(EcosystemSpec(years=10, species=(PlantSpecies(initial_density=100.0, immigrants=0.0),)), 1e6)
    (10000, 24000000, 100000)
    """
    hectares = area_m2 / 1e4
    counts = [s.initial_density * hectares + s.immigrants * hectares for s in spec.species]
    plants = int(round(sum(counts)))
    if plants > MAX_PLANTS:
        k = max(range(len(counts)), key=counts.__getitem__)
        s = spec.species[k]
        raise ParameterError(
            f"{prefix}species[{k}].initial_density {s.initial_density:g} per hectare over {hectares:,.0f} ha gives "
            f"{plants:,} plants at year 0 (about {plants * BYTES_PER_PLANT / 1e9:,.1f} GB and "
            f"{plants * max(spec.years, 1) / 2e5 / 3600:,.1f} h for {spec.years} years); at most {MAX_PLANTS:,} plants"
        )
    plant_years = plants * spec.years
    if plant_years > MAX_PLANT_YEARS:
        raise ParameterError(
            f"{prefix}years {spec.years} with {plants:,} plants is {plant_years:,} plant-years (about "
            f"{plant_years / 2e5 / 3600:,.1f} h); at most {MAX_PLANT_YEARS:,}: fewer years or a lower density"
        )
    return plants, plants * BYTES_PER_PLANT, plant_years


@dataclass(frozen=True, eq=False)
class PlantRun:
    """The outcome of a plant simulation: the living plants at the end, the history and snapshots.

    Positions are metres in the habitat's frame (terrain-local for one terrain, world metres for a
    world's tiles); only the plants owned (trunk inside ``own``) are kept and counted.

    Attributes
    ----------
    species : tuple of str
        The species' names; ``kind`` indexes them.
    max_radius, max_height : (S,) float64 ndarray
        Per species (the snapshots store sizes as shares of them).
    years : int
    area_m2 : float
        The owned area.
    own : (x0, y0, x1, y1)
    x, y : (N,) float64 ndarray
    kind : (N,) int16 ndarray
    age : (N,) int32 ndarray
        Years since establishment.
    radius, height : (N,) float64 ndarray
        Metres.
    uid : (N,) uint64 ndarray
        The plants' identities (the same in every tile that simulates them).
    history : dict
        ``alive``, ``born``, ``died`` (int64) and ``mean_radius``, ``mean_height`` (float64), each
        ``(years + 1, S)``: row ``t`` is year ``t``.
    life : dict
        Every plant that stood at a year's end: ``uid``, ``kind``, ``x``, ``y`` (float32), ``born``,
        ``died`` (int32; ``years + 1`` while alive), in the order they were established.
    snapshot_years : tuple of int
    snapshot_sizes : tuple of ((M,) uint16, (M,) uint16)
        Per snapshot year, the radius and height of the plants alive then (the ``life`` rows with
        ``born <= year < died``, in order) as shares of their species' maximum, times 65535.
    """

    species: tuple[str, ...]
    max_radius: npt.NDArray[np.float64]
    max_height: npt.NDArray[np.float64]
    years: int
    area_m2: float
    own: tuple[float, float, float, float]
    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    kind: npt.NDArray[np.int16]
    age: npt.NDArray[np.int32]
    radius: npt.NDArray[np.float64]
    height: npt.NDArray[np.float64]
    uid: npt.NDArray[np.uint64]
    history: dict[str, npt.NDArray[Any]]
    life: dict[str, npt.NDArray[Any]]
    snapshot_years: tuple[int, ...]
    snapshot_sizes: tuple[tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint16]], ...]

    def __len__(self) -> int:
        return len(self.x)

    def snapshot(self, year: int) -> dict[str, npt.NDArray[Any]]:
        """The plants alive at the end of ``year`` (a snapshot year): ``{x, y, kind, age, radius,
        height}`` arrays, sizes to 1/65535 of the species' maximum."""
        if year not in self.snapshot_years:
            raise ParameterError(f"year must be one of the snapshot years {list(self.snapshot_years)}, got {year!r}")
        rq, hq = self.snapshot_sizes[self.snapshot_years.index(year)]
        life = self.life
        rows = np.flatnonzero((life["born"] <= year) & (life["died"] > year))
        kind = life["kind"][rows]
        return {
            "x": life["x"][rows].astype(np.float64),
            "y": life["y"][rows].astype(np.float64),
            "kind": kind,
            "age": (year - life["born"][rows]).astype(np.int32),
            "radius": rq.astype(np.float64) / 65535.0 * self.max_radius[kind],
            "height": hq.astype(np.float64) / 65535.0 * self.max_height[kind],
        }


class _Table:
    """Per-species parameters as arrays indexed by species."""

    def __init__(self, species: Sequence[PlantSpecies]) -> None:
        def col(name: str, dtype: npt.DTypeLike = np.float64) -> npt.NDArray[Any]:
            return np.array([getattr(s, name) for s in species], dtype)

        self.R = col("max_radius")
        self.H = col("max_height")
        self.G = col("growth_years")
        self.tol = col("shade_tolerance")
        self.mort = col("mortality")
        self.stress = col("stress")
        self.var = col("variation")
        self.max_age = col("max_age")
        self.spread = col("age_spread")
        self.seeds = col("seeds_per_year") * col("germination")
        self.sigma = col("dispersal") * _SIGMA_PER_MEAN
        self.mature = col("maturity") * self.H
        self.density = col("initial_density")
        self.immigrants = col("immigrants")


def _blocks(
    window: tuple[float, float, float, float], side: float
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    x0, y0, x1, y1 = window
    bx = np.arange(math.floor(x0 / side), math.floor(x1 / side) + 1, dtype=np.int64)
    by = np.arange(math.floor(y0 / side), math.floor(y1 / side) + 1, dtype=np.int64)
    gx, gy = np.meshgrid(bx, by)
    return gx.ravel(), gy.ravel()


def _rain(
    window: tuple[float, float, float, float], per_m2: float, key: np.uint64
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Points raining on the world blocks over ``window`` at ``per_m2``: ``(ids, x, y)`` inside it.

    Each block of side ``BLOCK`` draws its count (``floor(mean + u)``) and points from its own
    coordinates and ``key``, so two windows agree on the blocks they share."""
    bx, by = _blocks(window, BLOCK)
    if not len(bx) or per_m2 <= 0.0:
        return np.empty(0, np.uint64), np.empty(0), np.empty(0)
    ids = rnd.mix(rnd.block_ids(bx, by) ^ key)
    n = np.floor(per_m2 * BLOCK * BLOCK + rnd.uniform(ids, key, 0)).astype(np.int64)
    total = int(n.sum())
    if not total:
        return np.empty(0, np.uint64), np.empty(0), np.empty(0)
    owner = np.repeat(np.arange(len(ids)), n)
    j = np.arange(total) - np.repeat(np.cumsum(n) - n, n)
    with np.errstate(over="ignore"):
        uid = rnd.mix(ids[owner] + j.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    x = (bx[owner] + rnd.uniform(uid, key, 1)) * BLOCK
    y = (by[owner] + rnd.uniform(uid, key, 2)) * BLOCK
    x0, y0, x1, y1 = window
    inside = (x >= x0) & (x < x1) & (y >= y0) & (y < y1)
    return uid[inside], x[inside], y[inside]


def _patches(
    window: tuple[float, float, float, float], spec: EcosystemSpec, key: np.uint64
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Disturbance patches over ``window`` (and within a patch radius of it): centres ``(x, y)``."""
    rate = spec.disturbance / 1e6
    if rate <= 0.0:
        return np.empty(0), np.empty(0)
    x0, y0, x1, y1 = window
    r = spec.patch_radius
    bx, by = _blocks((x0 - r, y0 - r, x1 + r, y1 + r), PATCH_BLOCK)
    ids = rnd.mix(rnd.block_ids(bx, by) ^ key)
    n = np.floor(rate * PATCH_BLOCK * PATCH_BLOCK + rnd.uniform(ids, key, 0)).astype(np.int64)
    owner = np.repeat(np.arange(len(ids)), n)
    j = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    with np.errstate(over="ignore"):
        pid = rnd.mix(ids[owner] + j.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    return (bx[owner] + rnd.uniform(pid, key, 1)) * PATCH_BLOCK, (by[owner] + rnd.uniform(pid, key, 2)) * PATCH_BLOCK


def compete(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    r: npt.NDArray[np.float64],
    h: npt.NDArray[np.float64],
    uid: npt.NDArray[np.uint64],
    tolerance: npt.ArrayLike,
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """One year's competition: ``(alive, shade)`` of every plant (module notes, step 4).

    ``tolerance`` per plant; ``shade`` is the share of the crown under taller living canopies
    (capped at 1), from fixed-point sums.
    """
    n = len(x)
    alive = np.ones(n, bool)
    shade = np.zeros(n)
    i, j = overlapping_pairs(x, y, r)
    if not len(i):
        return alive, shade
    order = np.lexsort((uid, r, h))
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    hi_first = rank[i] > rank[j]
    hi = np.where(hi_first, i, j)
    lo = np.where(hi_first, j, i)
    same = h[lo] >= LAYER * h[hi]
    dx = x[lo] - x[hi]
    dy = y[lo] - y[hi]
    d = np.sqrt(dx * dx + dy * dy)
    share = np.minimum((r[lo] + r[hi] - d) / (2.0 * r[lo]), 1.0)
    q = np.floor(share * _FIXED + 0.5)
    # 0 undecided, 1 alive, 2 dead; decided from the tallest down, in rounds
    status = np.zeros(n, np.int8)
    tol_fixed = np.floor(np.asarray(tolerance) * _FIXED + 0.5)
    sums = np.zeros(n)
    while len(lo):
        open_hi = status[hi] == 0
        blocked = np.zeros(n, bool)
        blocked[lo[open_hi]] = True
        ready = (status == 0) & ~blocked
        live_hi = status[hi] == 1
        at_ready = ready[lo] & live_hi
        killers = at_ready & same
        dead = np.zeros(n, bool)
        dead[lo[killers]] = True
        shaders = at_ready & ~same
        part = np.bincount(lo[shaders], weights=q[shaders], minlength=n)
        sums += part
        dead |= ready & (np.minimum(sums, _FIXED) > tol_fixed)
        status[ready] = 1
        status[dead] = 2
        keep = status[lo] == 0
        lo, hi, same, q = lo[keep], hi[keep], same[keep], q[keep]
    status[status == 0] = 1
    alive = status == 1
    shade = np.minimum(sums / _FIXED, 1.0)
    return alive, shade


def _check_window(window: Any, name: str) -> tuple[float, float, float, float]:
    try:
        x0, y0, x1, y1 = (check_float(v, name=f"{name}[{k}]") for k, v in enumerate(window))
    except TypeError:
        raise ParameterError(f"{name} must be (x0, y0, x1, y1), got {window!r}") from None
    if not (x1 > x0 and y1 > y0):
        raise ParameterError(f"{name} must have x1 > x0 and y1 > y0, got {window!r}")
    return (x0, y0, x1, y1)


def plants_steps(
    spec: EcosystemSpec,
    hab: Habitat,
    *,
    window: tuple[float, float, float, float] | None = None,
    own: tuple[float, float, float, float] | None = None,
    clearings: Sequence[tuple[int, float, float, float]] = (),
    prefix: str = "ecosystem.",
) -> Steps[PlantRun]:
    """Simulate the plants of ``spec`` on ``hab`` for ``spec.years`` years, as steps.

    Parameters
    ----------
    spec : EcosystemSpec
    hab : Habitat
    window : (x0, y0, x1, y1), optional
        The area simulated (default: the habitat's extent); seeds landing outside are lost.
    own : (x0, y0, x1, y1), optional
        The plants kept and counted: trunk in ``[x0, x1) x [y0, y1)`` (default: the window).
    clearings : sequence of (year, x, y, radius)
        Fires at given years besides the random disturbance: every plant within ``radius`` of
        ``(x, y)`` dies at the start of ``year``.

    Yields ``(year, years, "plants")``; returns a :class:`PlantRun`.
    """
    if not isinstance(hab, Habitat):
        raise ParameterError(f"hab must be a Habitat, got {type(hab).__name__}")
    window = hab.extent if window is None else _check_window(window, "window")
    own = window if own is None else _check_window(own, "own")
    species = spec.species
    ns = len(species)
    years = spec.years
    ox0, oy0, ox1, oy1 = own
    own_area = (ox1 - ox0) * (oy1 - oy0)
    wx0, wy0, wx1, wy1 = window
    estimate_plants(spec, (wx1 - wx0) * (wy1 - wy0), prefix=prefix)
    t = _Table(species)
    suit_maps = suitability(species, hab).reshape(ns, -1).astype(np.float64) if ns else np.zeros((0, 1))
    seed = spec.seed

    hist: dict[str, npt.NDArray[Any]] = {k: np.zeros((years + 1, ns), np.int64) for k in ("alive", "born", "died")}
    hist.update({k: np.zeros((years + 1, ns)) for k in ("mean_radius", "mean_height")})
    life_parts: dict[str, list[npt.NDArray[Any]]] = {k: [] for k in ("uid", "kind", "x", "y", "born")}
    died_rows, died_years = [], []
    n_rows = 0
    snap_years, snap_sizes = [], []

    # the living plants (struct of arrays), in the order of their life-table rows
    S: dict[str, npt.NDArray[Any]] = {
        "uid": np.empty(0, np.uint64),
        "kind": np.empty(0, np.int16),
        "x": np.empty(0),
        "y": np.empty(0),
        "born": np.empty(0, np.int32),
        "e": np.empty(0),
        "vig": np.empty(0),
        "life": np.empty(0),
        "suit": np.empty(0),
        "shade": np.empty(0),
        "row": np.empty(0, np.int64),
    }

    def newborn(
        uid: npt.NDArray[np.uint64],
        kind: npt.NDArray[np.int64],
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
        year: int,
    ) -> dict[str, npt.NDArray[Any]]:
        """Germinated seeds: suitability, vigour, lifespan (draws from their identities)."""
        inside = (x >= wx0) & (x < wx1) & (y >= wy0) & (y < wy1)
        uid, kind, x, y = uid[inside], kind[inside], x[inside], y[inside]
        cells = cell_index(hab, x, y)
        suit = suit_maps[kind, cells]
        key = rnd.stream_key(seed, rnd.GERMINATE, year)
        ok = rnd.uniform(uid, key, 0) < suit
        uid, kind, x, y, suit = uid[ok], kind[ok], x[ok], y[ok], suit[ok]
        bkey = rnd.stream_key(seed, rnd.BIRTH, 0)
        vig = 1.0 + t.var[kind] * (2.0 * rnd.uniform(uid, bkey, 0) - 1.0)
        lifespan = np.maximum(t.max_age[kind] * (1.0 + t.spread[kind] * rnd.irwin_hall(uid, bkey, 1)), 1.0)
        return {
            "uid": uid,
            "kind": kind.astype(np.int16),
            "x": x,
            "y": y,
            "born": np.full(len(uid), year, np.int32),
            "e": np.zeros(len(uid)),
            "vig": vig,
            "life": lifespan,
            "suit": suit,
            "shade": np.zeros(len(uid)),
            "row": np.full(len(uid), -1, np.int64),
        }

    def check_count(count: int, year: int, per_species: npt.NDArray[np.int64] | npt.NDArray[np.float64]) -> None:
        """Refuse, before allocating, a year that would hold more than MAX_PLANTS plants."""
        if count > MAX_PLANTS:
            k = int(np.argmax(per_species))
            raise ParameterError(
                f"{prefix}species[{k}].seeds_per_year {species[k].seeds_per_year:g} makes {count:,} plants in year "
                f"{year} (about {count * BYTES_PER_PLANT / 1e9:,.1f} GB); at most {MAX_PLANTS:,}: fewer seeds, a lower "
                "germination or a smaller area"
            )

    for year in range(years + 1):
        died_now = np.zeros(ns, np.int64)
        if year == 0:
            parts = []
            for k in range(ns):
                key = rnd.stream_key(seed, rnd.INITIAL, 0, k)
                uid, x, y = _rain(window, t.density[k] / 1e4, key)
                parts.append((uid, np.full(len(uid), k, np.int16), x, y))
        else:
            # 1. mortality
            kind = S["kind"]
            age = year - S["born"]
            u = rnd.uniform(S["uid"], rnd.stream_key(seed, rnd.DEATH, year), 0)
            dies = (age > S["life"]) | (u < t.mort[kind] + t.stress[kind] * (1.0 - S["suit"]))
            px, py = _patches(window, spec, rnd.stream_key(seed, rnd.DISTURB, year))
            patches = [(a, b, spec.patch_radius, spec.disturbance_kind) for a, b in zip(px.tolist(), py.tolist())]
            patches += [(cx, cy, cr, "fire") for cy_year, cx, cy, cr in clearings if cy_year == year]
            if patches:
                height = t.H[kind] * S["e"] / (S["e"] + t.G[kind])
                for cx, cy, cr, what in patches:
                    dx, dy = S["x"] - cx, S["y"] - cy
                    hit = dx * dx + dy * dy < cr * cr
                    if what == "windthrow":
                        hit &= height > 0.5 * t.H[kind]
                    dies |= hit
            if dies.any():
                gone = dies & (S["row"] >= 0)
                died_now += np.bincount(kind[gone], minlength=ns)
                died_rows.append(S["row"][gone])
                died_years.append(np.full(int(gone.sum()), year, np.int32))
                S = {k: v[~dies] for k, v in S.items()}
                kind = S["kind"]
            # 2. seeds of the mature plants, 3. immigrants
            e = S["e"]
            height = t.H[kind] * e / (e + t.G[kind])
            key = rnd.stream_key(seed, rnd.SEEDS, year)
            mature = (height >= t.mature[kind]) & (t.seeds[kind] > 0.0)
            parents = np.flatnonzero(mature)
            pu = S["uid"][parents]
            n = np.floor(t.seeds[kind[parents]] + rnd.uniform(pu, key, 0)).astype(np.int64)
            total = int(n.sum())
            check_count(len(S["x"]) + total, year, np.bincount(kind[parents], weights=n, minlength=ns))
            parent = np.repeat(parents, n)
            j = np.arange(total) - np.repeat(np.cumsum(n) - n, n)
            with np.errstate(over="ignore"):
                cu = rnd.mix(rnd.mix(S["uid"][parent] ^ key) + j.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
            ck = kind[parent]
            sigma = t.sigma[ck]
            cx = S["x"][parent] + sigma * rnd.irwin_hall(cu, key, 1)
            cy = S["y"][parent] + sigma * rnd.irwin_hall(cu, key, 5)
            parts = [(cu, ck, cx, cy)]
            for k in range(ns):
                ikey = rnd.stream_key(seed, rnd.IMMIGRANTS, year, k)
                uid, x, y = _rain(window, t.immigrants[k] / 1e4, ikey)
                parts.append((uid, np.full(len(uid), k, np.int16), x, y))
        uid = np.concatenate([p[0] for p in parts])
        kinds = np.concatenate([p[1] for p in parts]).astype(np.int64)
        new = newborn(uid, kinds, np.concatenate([p[2] for p in parts]), np.concatenate([p[3] for p in parts]), year)
        n_old = len(S["x"])
        check_count(n_old + len(new["x"]), year, np.bincount(new["kind"], minlength=ns))
        S = {k: np.concatenate([S[k], new[k]]) for k in S}
        # 4. growth
        kind = S["kind"]
        light = UNDERSTOREY + (1.0 - UNDERSTOREY) * (1.0 - S["shade"])
        S["e"] = S["e"] + S["vig"] * S["suit"] * light
        grow = S["e"] / (S["e"] + t.G[kind])
        radius = t.R[kind] * grow
        height = t.H[kind] * grow
        # 5. competition
        alive, shade = compete(S["x"], S["y"], radius, height, S["uid"], t.tol[kind])
        S["shade"] = shade
        is_new = np.arange(len(alive)) >= n_old
        gone = ~alive & ~is_new & (S["row"] >= 0)
        died_now += np.bincount(kind[gone], minlength=ns)
        died_rows.append(S["row"][gone])
        died_years.append(np.full(int(gone.sum()), year, np.int32))
        S = {k: v[alive] for k, v in S.items()}
        radius, height, is_new = radius[alive], height[alive], is_new[alive]
        kind = S["kind"]
        owned_new = is_new & (S["x"] >= ox0) & (S["x"] < ox1) & (S["y"] >= oy0) & (S["y"] < oy1)
        rows = np.arange(n_rows, n_rows + int(owned_new.sum()))
        S["row"][owned_new] = rows
        n_rows += len(rows)
        for name in life_parts:
            life_parts[name].append(S[name][owned_new])
        # 6. the ledger
        owned = S["row"] >= 0
        ko = kind[owned]
        alive_k = np.bincount(ko, minlength=ns)
        hist["alive"][year] = alive_k
        hist["born"][year] = np.bincount(kind[owned_new], minlength=ns)
        hist["died"][year] = died_now
        denom = np.maximum(alive_k, 1)
        hist["mean_radius"][year] = np.bincount(ko, weights=radius[owned], minlength=ns) / denom
        hist["mean_height"][year] = np.bincount(ko, weights=height[owned], minlength=ns) / denom
        if year % spec.snapshot_every == 0 or year == years:
            rq = np.floor(radius[owned] / t.R[ko] * 65535.0 + 0.5).astype(np.uint16)
            hq = np.floor(height[owned] / t.H[ko] * 65535.0 + 0.5).astype(np.uint16)
            snap_years.append(year)
            snap_sizes.append((rq, hq))
        yield year, years, "plants"

    life = {k: np.concatenate(v) if v else np.empty(0) for k, v in life_parts.items()}
    life["x"] = life["x"].astype(np.float32)
    life["y"] = life["y"].astype(np.float32)
    life["kind"] = life["kind"].astype(np.int16)
    life["uid"] = life["uid"].astype(np.uint64)
    life["born"] = life["born"].astype(np.int32)
    died = np.full(n_rows, years + 1, np.int32)
    if died_rows:
        died[np.concatenate(died_rows)] = np.concatenate(died_years)
    life["died"] = died
    owned = S["row"] >= 0
    kind = S["kind"][owned]
    grow = S["e"][owned] / (S["e"][owned] + t.G[kind])
    return PlantRun(
        species=tuple(s.name for s in species),
        max_radius=t.R,
        max_height=t.H,
        years=years,
        area_m2=own_area,
        own=own,
        x=S["x"][owned],
        y=S["y"][owned],
        kind=kind,
        age=(years - S["born"][owned]).astype(np.int32),
        radius=t.R[kind] * grow,
        height=t.H[kind] * grow,
        uid=S["uid"][owned],
        history=hist,
        life=life,
        snapshot_years=tuple(snap_years),
        snapshot_sizes=tuple(snap_sizes),
    )


def plants_tile_steps(
    spec: EcosystemSpec,
    hab: Habitat,
    *,
    tile: tuple[float, float, float, float],
    halo: float | None = None,
    prefix: str = "ecosystem.",
) -> Steps[PlantRun]:
    """One tile of a world: the plants of ``tile`` (``(x0, y0, x1, y1)``, world metres), simulated
    with a ``halo`` around it, as steps (yields and returns as :func:`plants_steps`).

    The plants owned are those whose trunk stands in ``[x0, x1) x [y0, y1)``; the tiles of a world
    partition it, so every plant belongs to exactly one tile.  A tile's result is a function of its
    window alone (the draws are keyed by plant identities and world blocks, not by the tile or the
    order the tiles are built in), so whichever tile is built first, two tiles simulate the plants
    of the strip they share alike -- up to the halo's outer edge: plants beyond it are not
    simulated, and their seeds and shade are missing there.  That error enters at the halo's edge
    and travels inward, by at most a seed's flight or two canopies a year (:func:`interaction_reach`),
    in practice far slower.  ``bench/bench_ecosystem.py --tiles`` measures it (two 60 m tiles against
    one simulation of both, the plants within 10 m of the seam, Jaccard index of their identities):
    with a halo of one interaction reach 1.000 after 30 years, 0.993 after 60, 0.778 after 100,
    0.361 after 150; with two reaches 1.000 after each of those.  So the default ``halo`` is twice
    :func:`interaction_reach`.  ``hab`` must cover the window (points beyond it take the nearest
    edge's fields).
    """
    tile = _check_window(tile, "tile")
    reach = 2.0 * interaction_reach(spec.species)
    halo = reach if halo is None else check_float(halo, name="halo", bounds=(0.0, 1e5))
    x0, y0, x1, y1 = tile
    window = (x0 - halo, y0 - halo, x1 + halo, y1 + halo)
    return (yield from plants_steps(spec, hab, window=window, own=tile, prefix=prefix))
