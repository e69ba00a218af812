"""The animal engine: agents as arrays (struct of arrays) that walk, graze, hunt, breed and die.

After the Wolf-Sheep-Grass model (Wilensky 1997) and EcoSim (Gras et al. 2009), on the terrain's
grid of cells (one per heightmap cell).  Grazers (``eats = "plants"``) eat the grass of their
cell, which grows back; hunters eat the animals they list.  A step, for every agent at once:

1. **look**: the nearest hunter within ``vision`` (flee from it), else the nearest prey (chase it,
   while hungry: energy below ``SATIETY`` meals),
   else water when thirsty (``drink_every`` steps after the last drink; the way down the distance
   to the nearest water), else the den when farther than ``home_range`` from it: a goal direction.
2. **walk**: one of eight compass steps of ``speed`` metres, drawn with weights that multiply a
   correlated random walk (``1 + PERSISTENCE * max(0, cos)`` of the turn), gentle ground
   (``1 / (1 + (grade / SLOPE)^2)``: on steep slopes the animals zig-zag), worn ground
   (``1 + trail_attraction * w / (w + TRAIL_HALF * mean wear)``: the active walkers of Helbing et al.
   1997), grass for a grazer (``1 + GRAZE * grass``) and the goal
   (``1 + GOAL * max(0, cos)`` of the angle to it); never into water or off the map.  Each step
   wears the ground by ``trail_wear`` where the animal stands; wear fades by ``trail_decay``.
3. **live**: ``metabolism`` energy spent, then a meal: the first grazer (in a random order) on a
   cell eats its grass (``energy_gain`` for a full cell), a hunter catches the prey it chased when
   that is within one step after both moved (with chance ``catch``; each prey once), gaining
   ``energy_gain``.  With more than ``energy_gain`` energy, an
   animal has one young with chance ``reproduce``, sharing its energy; the young inherit speed and
   vision, each times ``1 + mutation * (2u - 1)``.  Animals die of hunger (energy <= 0), of age
   (past ``max_age``) or caught.  The grass regrows by ``grass_regrowth`` of what is missing.

Every draw comes from one ``numpy.random.Generator`` of ``SeedSequence([seed, ANIMALS, 0])``
(uniforms and permutations only: the same bits on every CPU); outcomes are decided with
``+ - * / sqrt``.  The ledger is exact: ``population[t] - population[t - 1] == born[t] - died[t]``
per animal and step (step 0: the animals placed count as born).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..biomes import bounded_distance
from ..errors import ParameterError
from . import _random as rnd
from ._habitat import Habitat
from ._sight import nearest_of, pairs_within
from .spec import food_web

if TYPE_CHECKING:
    from ..steps import Steps
    from .spec import EcosystemSpec

__all__ = [
    "AnimalRun",
    "animals_steps",
    "cell_fields",
    "GOAL",
    "PERSISTENCE",
    "GRAZE",
    "SLOPE",
    "TRAIL_HALF",
    "SATIETY",
    "MAX_AGENTS",
    "MAX_AGENT_STEPS",
    "MAX_PAIRS",
    "MAX_ANIMAL_CELLS",
    "MAX_ANIMAL_BYTES",
    "estimate_world_animals",
]

#: Pull of a goal on a step straight toward it.
GOAL = 8.0
#: Pull of the heading on a step straight on (the correlated random walk).
PERSISTENCE = 2.0
#: Pull of a full cell of grass on a grazer's step.
GRAZE = 4.0
#: Grade (rise over run) at which a step is half as likely as on the flat.
SLOPE = 0.35
#: Wear at which a trail pulls with half its attraction, as a multiple of the mean wear of the land
#: (and at least ``trail_wear``): trails are the ground worn well above the rest.
TRAIL_HALF = 2.0
#: An animal eats only while its energy is below this many meals (``energy_gain``): a full hunter rests.
SATIETY = 2.0
#: Most animals alive at once.
MAX_AGENTS = 2_000_000
#: Most agent-steps a run may take (about 10^3 s).
MAX_AGENT_STEPS = 2_000_000_000
#: Most hunter-prey pairs within sight a step may hold at the start (80 bytes each while searched).
MAX_PAIRS = 20_000_000

_H = math.sqrt(0.5)
#: The eight compass steps (east first, anticlockwise).
DX = np.array([1.0, _H, 0.0, -_H, -1.0, -_H, 0.0, _H])
DY = np.array([0.0, _H, 1.0, _H, 0.0, -_H, -1.0, -_H])
#: Cosines between the compass steps.
_COS = DX[:, None] * DX[None, :] + DY[:, None] * DY[None, :]


@dataclass(frozen=True, eq=False)
class AnimalRun:
    """The outcome of an animal simulation.

    Attributes
    ----------
    names : tuple of str
    steps : int
    history : dict
        ``population``, ``born``, ``died``: ``(steps + 1, A)`` int64, row ``t`` step ``t``.
    x, y : (N,) float64 ndarray
        The animals alive at the end (the habitat's frame, metres).
    kind : (N,) int16 ndarray
    den_x, den_y : (N,) float64 ndarray
        Each animal's den: where it was placed or born (the centre of its home range).
    energy, speed, vision : (N,) float64 ndarray
    wear : (rows - 1, cols - 1) float64 ndarray
        Trail wear per heightmap cell at the end.
    visits : (A, rows - 1, cols - 1) int64 ndarray
        Steps each animal kind spent on each cell after the burn-in (the spawn density).
    steps_on : (rows - 1, cols - 1) int64 ndarray
        Every animal's steps on each cell (all steps).
    travel_on : (rows - 1, cols - 1) int64 ndarray
        The steps of animals on their way (neither foraging nor chasing nor fleeing) on each cell:
        the traffic the trails carry (and that wears them).
    home_range : (A,) float64 ndarray
        Per kind, the distance from its den within which an animal spent 95 % of its steps after
        the burn-in (metres; 0 when none lived then).
    grass : (rows - 1, cols - 1) float64 ndarray
        The grass at the end, in [0, 1].
    """

    names: tuple[str, ...]
    steps: int
    history: dict[str, npt.NDArray[np.int64]]
    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    kind: npt.NDArray[np.int16]
    den_x: npt.NDArray[np.float64]
    den_y: npt.NDArray[np.float64]
    energy: npt.NDArray[np.float64]
    speed: npt.NDArray[np.float64]
    vision: npt.NDArray[np.float64]
    wear: npt.NDArray[np.float64]
    visits: npt.NDArray[np.int64]
    steps_on: npt.NDArray[np.int64]
    travel_on: npt.NDArray[np.int64]
    home_range: npt.NDArray[np.float64]
    grass: npt.NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.x)


def cell_fields(hab: Habitat) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """The cells' fields: ``(heights, water)`` at the centres of the heightmap's cells (the mean of
    the four corners; water where at least two corners are)."""
    h = hab.heights
    centre = (h[:-1, :-1] + h[1:, :-1] + h[:-1, 1:] + h[1:, 1:]) * 0.25
    w = hab.water.astype(np.int8)
    wet = (w[:-1, :-1] + w[1:, :-1] + w[:-1, 1:] + w[1:, 1:]) >= 2
    return centre, wet


#: Most samples of a tiled world whose animals roam it whole (a 4097 x 4097 world: the engine's limit).
MAX_ANIMAL_CELLS = 4097 * 4097
#: Most memory the world's animal pass may take (estimated before it starts).
MAX_ANIMAL_BYTES = 4 << 30
#: Bytes a world sample costs the pass beside each animal's visit counts (8 B an animal) and each
#: species' suitability (4 B a species): the world's heights and habitat (~45 B), the rivers' maps
#: (~35 B), the engine's padded fields (~90 B), the trail maps (~12 B), with room for temporaries.
BYTES_PER_CELL = 220


def estimate_world_animals(
    spec: EcosystemSpec,
    shape: tuple[int, int],
    *,
    cell_size: float | None = None,
    prefix: str = "ecosystem.",
) -> int:
    """The bytes the animal pass over a world of ``shape`` samples takes (about); a one-line
    ``ParameterError`` with the figure when it is more than :data:`MAX_ANIMAL_CELLS` samples or
    :data:`MAX_ANIMAL_BYTES`.  With ``cell_size`` (metres) the animals, their agent-steps (the time)
    and the pairs in sight on the world's area are checked too (as :func:`animals_steps` checks them
    on the land, before its first step).

    Measured (``core.world.world_animals`` of the temperate preset, 1,000 steps, on a
    2,049 x 2,049 world, numpy 1.26, load 3-5 on 2 cores): estimated 1,041 MB, peak RSS 958 MB above
    the start, 63 s CPU for 54 million agent-steps.

    >>> from .spec import AnimalSpecies, EcosystemSpec
    >>> spec = EcosystemSpec(animals=(AnimalSpecies(name="Deer"),))
    >>> estimate_world_animals(spec, (129, 129)) // 1000
    3794
    >>> try:
    ...     estimate_world_animals(spec, (8193, 8193))
    ... except ValueError as err:
    ...     print(str(err)[:59])
    ecosystem.animals roam the whole tiled world: 8,193 x 8,193
    """
    rows, cols = shape
    cells = rows * cols
    if cells > MAX_ANIMAL_CELLS:
        raise ParameterError(
            f"{prefix}animals roam the whole tiled world: {rows:,} x {cols:,} samples is more than "
            f"{MAX_ANIMAL_CELLS:,}; use fewer or smaller tiles"
        )
    if cell_size is not None:
        _check_size(spec, float(rows - 1) * float(cols - 1) * cell_size * cell_size, prefix)
    need = cells * (BYTES_PER_CELL + 8 * len(spec.animals) + 4 * len(spec.species))
    if need > MAX_ANIMAL_BYTES:
        raise ParameterError(
            f"{prefix}animals roam the whole tiled world: {rows:,} x {cols:,} samples with "
            f"{len(spec.animals)} animals and {len(spec.species)} species need about {need / 1e9:,.1f} GB; "
            f"at most {MAX_ANIMAL_BYTES / 1e9:,.1f} GB: use fewer or smaller tiles"
        )
    return need


def _check_size(spec: EcosystemSpec, land_m2: float, prefix: str) -> None:
    """Refuse, before any work, more animals, agent-steps or pairs within sight than the bounds allow."""
    counts = [a.count for a in spec.animals]
    total = sum(counts)
    if total > MAX_AGENTS:
        k = max(range(len(counts)), key=counts.__getitem__)
        raise ParameterError(f"{prefix}animals[{k}].count gives {total:,} animals; at most {MAX_AGENTS:,} in all")
    if total * spec.steps > MAX_AGENT_STEPS:
        raise ParameterError(
            f"{prefix}steps {spec.steps:,} with {total:,} animals is {total * spec.steps:,} agent-steps (about "
            f"{total * spec.steps / 1e6 / 3600:,.1f} h); at most {MAX_AGENT_STEPS:,}"
        )
    names = [a.name for a in spec.animals]
    for k, a in enumerate(spec.animals):
        if a.eats == "plants" or not a.count:
            continue
        prey = sum(spec.animals[names.index(p)].count for p in a.eats)
        reach = max([a.vision] + [spec.animals[names.index(p)].vision for p in a.eats])
        pairs = a.count * prey * min(1.0, math.pi * reach * reach / max(land_m2, 1e-9))
        if pairs > MAX_PAIRS:
            raise ParameterError(
                f"{prefix}animals[{k}].count {a.count:,} hunting {prey:,} prey within {reach:g} m on "
                f"{land_m2:,.0f} m^2 of land makes about {pairs:,.0f} pairs in sight a step (about "
                f"{pairs * 80 / 1e9:,.1f} GB); at most {MAX_PAIRS:,}: fewer animals, less vision or more land"
            )


def animals_steps(
    spec: EcosystemSpec,
    hab: Habitat,
    *,
    vegetation: npt.ArrayLike | None = None,
    trail_attraction: float | None = None,
    prefix: str = "ecosystem.",
) -> Steps[AnimalRun]:
    """Simulate the animals of ``spec`` on ``hab`` for ``spec.steps`` steps, as steps.

    Parameters
    ----------
    spec : EcosystemSpec
    hab : Habitat
    vegetation : (rows - 1, cols - 1) array_like of float in [0, 1], optional
        The grass each cell grows at most (default: 1 on land); e.g. less under a closed canopy
        (:func:`grass_capacity`).
    trail_attraction : float, optional
        Overrides ``spec.trail_attraction`` (0: walkers ignore the trails).

    Yields ``(step, steps, "animals")``; returns an :class:`AnimalRun`.

    Internally positions are in cells of a grid padded by a ring of forbidden cells at least a step
    wide (a step never leaves the map or enters water: its weight is 0 there), and the step weights
    are float32 (rounded alike on every CPU).
    """
    if not isinstance(hab, Habitat):
        raise ParameterError(f"hab must be a Habitat, got {type(hab).__name__}")
    web = food_web(spec.animals, prefix=prefix)
    attraction = spec.trail_attraction if trail_attraction is None else float(trail_attraction)
    animals = spec.animals
    na = len(animals)
    names = [a.name for a in animals]
    steps = spec.steps
    heights, water = cell_fields(hab)
    rows, cols = water.shape
    cell = hab.cell_size
    if rows * cols > 4097 * 4097:
        raise ParameterError(f"the habitat must have at most {4097 * 4097:,} cells, got {rows * cols:,}")
    _check_size(spec, float((~water).sum()) * cell * cell, prefix)
    x0, y0 = hab.origin
    if vegetation is None:
        capacity = (~water).astype(np.float64)
    else:
        capacity = np.asarray(vegetation, np.float64)
        if capacity.shape != water.shape or not np.isfinite(capacity).all() or capacity.min() < 0 or capacity.max() > 1:
            raise ParameterError(f"vegetation must be a {water.shape} map of values in [0, 1]")
        capacity = np.where(water, 0.0, capacity)

    def col(name: str) -> npt.NDArray[np.float64]:
        return np.array([getattr(a, name) for a in animals], np.float64)

    gain, repro, metab, max_age = col("energy_gain"), col("reproduce"), col("metabolism"), col("max_age")
    mutation, drink, catches = col("mutation"), col("drink_every"), col("catch")
    home = col("home_range") / cell
    fastest = 2.0 * float(col("speed").max(initial=cell)) / cell  # a young's speed stays below this (cells)
    pad = int(math.ceil(fastest)) + 1
    nr, nc = rows + 2 * pad, cols + 2 * pad

    def padded(values: npt.NDArray[Any], fill: float, dtype: npt.DTypeLike) -> npt.NDArray[Any]:
        out: npt.NDArray[Any] = np.full((nr, nc), fill, dtype)
        out[pad : pad + rows, pad : pad + cols] = values
        return out.ravel()

    free = padded(~water, False, bool)
    allowed = free.astype(np.float32)  # the weight of a step onto the cell: 0 on water and off the map
    ground = padded(heights, 0.0, np.float32)
    capacity = padded(capacity, 0.0, np.float64)
    # grass = capacity - deficit * deficit_scale: the regrowth of every cell is one multiplication
    # of the scale a step (the deficit array is scaled only when the scale grows tiny)
    ncell = nr * nc
    deficit = np.zeros(ncell)
    deficit_scale = 1.0
    # how far animals know the water: their sight plus their home range
    known = max([a.vision + a.home_range for a in animals] + [cell]) / cell
    if water.any():
        d = bounded_distance(water, reach=(known + 2.0) * cell, cell_size=cell) / cell
        gy, gx = np.gradient(np.where(np.isfinite(d), d, known + 4.0))
        norm = np.sqrt(gx * gx + gy * gy)
        norm[norm == 0.0] = 1.0
        to_water = padded(d, np.inf, np.float64)
        water_dx, water_dy = padded(-gx / norm, 0.0, np.float64), padded(-gy / norm, 0.0, np.float64)
    else:
        to_water = np.full(ncell, np.inf)
        water_dx = water_dy = np.zeros(ncell)
    wears = np.array([a.trails for a in animals], bool)
    grazer = np.array([a.eats == "plants" for a in animals], bool)
    prey_of = [np.array([names.index(p) for p in web[n]], np.int64) for n in names]
    is_prey = [np.isin(np.arange(na), prey_of[k]) for k in range(na)]  # by kind: is it prey of k?
    hunting = [k for k in range(na) if len(prey_of[k])]
    rng = np.random.default_rng(np.random.SeedSequence([spec.seed, rnd.ANIMALS, 0]))

    # the animals at step 0, on land cells at random (positions in cells of the padded grid)
    land = np.flatnonzero(free)
    counts = [a.count for a in animals]
    n0 = sum(counts)
    kind = np.repeat(np.arange(na), counts).astype(np.int64)
    if n0 and not len(land):
        raise ParameterError(f"{prefix}animals need land to stand on; the habitat is all water")
    start = land[rng.integers(0, len(land), n0)] if n0 else np.empty(0, np.int64)
    fx = (start % nc) + rng.random(n0)
    fy = (start // nc) + rng.random(n0)
    energy = rng.random(n0) * 2.0 * gain[kind]
    age = np.floor(rng.random(n0) * max_age[kind]).astype(np.int64)
    speed = col("speed")[kind] / cell
    vision = col("vision")[kind] / cell
    heading = rng.integers(0, 8, n0)
    thirst = np.floor(rng.random(n0) * np.maximum(drink[kind], 1.0)).astype(np.int64)
    den_x, den_y = fx.copy(), fy.copy()

    history = {k: np.zeros((steps + 1, na), np.int64) for k in ("population", "born", "died")}
    history["population"][0] = np.bincount(kind, minlength=na)
    history["born"][0] = history["population"][0]
    # wear = wear_stored * wear_scale, likewise: the fading is one multiplication of the scale a step
    wear = np.zeros(ncell)
    wear_scale = 1.0
    wear_total = 0.0
    visits = np.zeros((na, ncell), np.int64)
    steps_on = np.zeros(ncell, np.int64)
    travel_on = np.zeros(ncell, np.int64)
    # the cells stood on, counted in batches (a whole-map count per batch, not per step)
    stood: list[npt.NDArray[np.int64]]
    travelled: list[npt.NDArray[np.int64]]
    visited: list[npt.NDArray[np.int64]]
    stood, travelled, visited = [], [], []

    def count_batches() -> None:
        nonlocal steps_on, travel_on, visits
        if stood:
            steps_on += np.bincount(np.concatenate(stood), minlength=ncell)
            travel_on += np.bincount(np.concatenate(travelled), minlength=ncell)
            stood.clear()
            travelled.clear()
        if visited:
            visits += np.bincount(np.concatenate(visited), minlength=na * ncell).reshape(na, ncell)
            visited.clear()

    bins = 256
    ranges = np.zeros((na, bins), np.int64)
    dx32, dy32 = DX.astype(np.float32), DY.astype(np.float32)
    turn = (1.0 + PERSISTENCE * np.maximum(_COS, 0.0)).astype(np.float32)
    one = np.float32(1.0)
    slope = np.float32(1.0 / SLOPE)
    attract = np.float32(attraction)
    graze_pull = (np.float32(GRAZE) * grazer).astype(np.float32)
    n_land = max(int(free.sum()), 1)

    box = (0.0, 0.0, float(nc), float(nr))  # every position, in cells of the padded grid

    yield 0, steps, "animals"
    for step in range(1, steps + 1):
        n = len(fx)
        here = fy.astype(np.int64) * nc + fx.astype(np.int64)
        # 1. goals: flee > chase > drink > home
        gx = np.zeros(n)
        gy = np.zeros(n)
        goal = np.zeros(n, bool)
        roams = home[kind] > 0.0
        if roams.any():
            hx, hy = den_x - fx, den_y - fy
            hd = np.sqrt(hx * hx + hy * hy)
            out = roams & (hd > home[kind])
            gx[out], gy[out], goal[out] = hx[out] / hd[out], hy[out] / hd[out], True
        # the water of its range an animal knows: within its sight plus its home range
        thirsty = (drink[kind] > 0.0) & (thirst >= drink[kind]) & (to_water[here] <= vision + home[kind])
        gx[thirsty], gy[thirsty], goal[thirsty] = water_dx[here[thirsty]], water_dy[here[thirsty]], True
        # hunters chase the nearest prey they see (when hungry), prey flee the nearest hunter they see:
        # one search of the pairs within sight per hunting kind
        hungry = energy < SATIETY * gain[kind]
        chased = np.full(n, -1, np.int64)
        threat = np.full(n, -1, np.int64)
        threat_d2 = np.full(n, np.inf)
        for k in hunting:
            hunters = np.flatnonzero(kind == k)
            prey = np.flatnonzero(is_prey[k][kind])
            if not len(hunters) or not len(prey):
                continue
            reach = max(float(vision[hunters].max()), float(vision[prey].max()))
            if reach <= 0.0:
                continue
            ih, ip, d2 = pairs_within(fx[hunters], fy[hunters], fx[prey], fy[prey], reach, box)
            vh, vp = vision[hunters][ih], vision[prey][ip]
            sees = hungry[hunters][ih] & (d2 <= vh * vh)
            best, _ = nearest_of(ih[sees], ip[sees], d2[sees], len(hunters))
            found = best >= 0
            chased[hunters[found]] = prey[best[found]]
            seen = d2 <= vp * vp
            best, low = nearest_of(ip[seen], ih[seen], d2[seen], len(prey))
            closer = (best >= 0) & (low < threat_d2[prey])  # the nearest hunter of every kind
            threat[prey[closer]] = hunters[best[closer]]
            threat_d2[prey[closer]] = low[closer]
        # an animal that neither chases nor flees prefers worn ground (a chase or a flight goes straight)
        walks = (chased < 0) & (threat < 0)
        for who, tgt, sign in ((np.flatnonzero(chased >= 0), chased, 1.0), (np.flatnonzero(threat >= 0), threat, -1.0)):
            if len(who):
                t = tgt[who]
                ddx, ddy = fx[t] - fx[who], fy[t] - fy[who]
                dd = np.maximum(np.sqrt(ddx * ddx + ddy * ddy), 1e-9)
                gx[who], gy[who], goal[who] = sign * ddx / dd, sign * ddy / dd, True
        # 2. walk: the weights of the eight steps (float32)
        s32 = speed.astype(np.float32)
        qx = fx.astype(np.float32)[:, None] + s32[:, None] * dx32
        qy = fy.astype(np.float32)[:, None] + s32[:, None] * dy32
        qc = qy.astype(np.int64) * nc + qx.astype(np.int64)
        grade = (ground[qc] - ground[here][:, None]) * (slope / s32)[:, None]
        w = allowed[qc] / (one + grade * grade)
        w *= turn[heading]
        if attraction > 0.0 and walks.any():
            worn = (wear[qc] * wear_scale).astype(np.float32)
            half32 = np.float32(max(TRAIL_HALF * wear_total / n_land, spec.trail_wear, 1e-12))
            w *= one + (attract * walks)[:, None] * (worn / (worn + half32))
        # grass pulls a hungry grazer that forages (no goal); one on its way walks past it
        grass_q = (capacity[qc] - deficit[qc] * deficit_scale).astype(np.float32)
        w *= one + (graze_pull[kind] * (hungry & ~goal))[:, None] * grass_q
        if goal.any():
            cos = np.maximum(dx32 * gx.astype(np.float32)[:, None] + dy32 * gy.astype(np.float32)[:, None], 0.0)
            w *= one + (np.float32(GOAL) * goal)[:, None] * cos
        cum = np.cumsum(w, axis=1)
        total = cum[:, -1]
        u = rng.random(n).astype(np.float32) * total
        pick = np.minimum((cum <= u[:, None]).sum(axis=1), 7)
        move = total > 0.0
        heading = np.where(move, pick, heading)
        fx = np.where(move, fx + speed * DX[pick], fx)
        fy = np.where(move, fy + speed * DY[pick], fy)
        here = fy.astype(np.int64) * nc + fx.astype(np.int64)
        # trails: wear where the animals stand, then fading
        stood.append(here)
        travelled.append(here[walks])
        wearing = here[wears[kind]]
        if len(wearing):
            np.add.at(wear, wearing, spec.trail_wear / wear_scale)
            wear_total += spec.trail_wear * len(wearing)
        fade = 1.0 - spec.trail_decay
        wear_total *= fade
        if wear_scale * fade < 1e-150:
            wear *= wear_scale * fade
            wear_scale = 1.0
        else:
            wear_scale *= fade
        if step > spec.burn_in:
            visited.append(kind * ncell + here)
            hx, hy = fx - den_x, fy - den_y
            ring = np.minimum(np.sqrt(hx * hx + hy * hy), bins - 1).astype(np.int64)
            ranges += np.bincount(kind * bins + ring, minlength=na * bins).reshape(na, bins)
        # 3. live: metabolism, drinking, meals
        energy = energy - metab[kind]
        age = age + 1
        thirst = np.where(to_water[here] <= speed + 1.0, 0, thirst + 1)
        order = rng.permutation(n)
        lucky = rng.random(n) < catches[kind]
        hungry = energy < SATIETY * gain[kind]
        dead = np.zeros(n, bool)
        if grazer.any():
            eaters = order[grazer[kind[order]] & hungry[order]]
            _, first = np.unique(here[eaters], return_index=True)  # the first grazer (in the order) of a cell
            eat = eaters[first]
            cells_eaten = here[eat]
            energy[eat] += gain[kind[eat]] * (capacity[cells_eaten] - deficit[cells_eaten] * deficit_scale)
            deficit[cells_eaten] = capacity[cells_eaten] / deficit_scale
        # a hunter catches the prey it chased when it is within a step now (each prey by the first
        # hunter in the order)
        hunters = order[(chased[order] >= 0) & lucky[order]]
        if len(hunters):
            prey = chased[hunters]
            ddx, ddy = fx[prey] - fx[hunters], fy[prey] - fy[hunters]
            near = ddx * ddx + ddy * ddy <= speed[hunters] * speed[hunters]
            hunters, prey = hunters[near], prey[near]
            _, first = np.unique(prey, return_index=True)
            first = np.sort(first)
            hunters, prey = hunters[first], prey[first]
            dead[prey] = True
            energy[hunters] += gain[kind[hunters]]
        # births
        u_birth = rng.random(n)
        mother = np.flatnonzero(~dead & (energy > gain[kind]) & (u_birth < repro[kind]))
        m = len(mother)
        if n + m > MAX_AGENTS:
            k = int(np.argmax(np.bincount(kind[mother], minlength=na)))
            raise ParameterError(
                f"{prefix}animals[{k}].reproduce {animals[k].reproduce:g} makes {n + m:,} animals at step "
                f"{step}; at most {MAX_AGENTS:,}"
            )
        energy[mother] *= 0.5
        ck = kind[mother]
        mut = mutation[ck]
        child_speed = np.clip(speed[mother] * (1.0 + mut * (2.0 * rng.random(m) - 1.0)), 0.1 / cell, fastest)
        child_vision = np.clip(vision[mother] * (1.0 + mut * (2.0 * rng.random(m) - 1.0)), 0.0, 10_000.0 / cell)
        child_heading = rng.integers(0, 8, m)
        dead |= (energy <= 0.0) | (age > max_age[kind])
        died = np.bincount(kind[dead], minlength=na)
        keep = ~dead
        fx = np.concatenate([fx[keep], fx[mother]])
        fy = np.concatenate([fy[keep], fy[mother]])
        den_x = np.concatenate([den_x[keep], fx[len(fx) - m :]])  # the young's den: where they were born
        den_y = np.concatenate([den_y[keep], fy[len(fy) - m :]])
        kind = np.concatenate([kind[keep], ck])
        energy = np.concatenate([energy[keep], energy[mother]])
        age = np.concatenate([age[keep], np.zeros(m, np.int64)])
        speed = np.concatenate([speed[keep], child_speed])
        vision = np.concatenate([vision[keep], child_vision])
        heading = np.concatenate([heading[keep], child_heading])
        thirst = np.concatenate([thirst[keep], np.zeros(m, np.int64)])
        # the grass grows back: the deficit shrinks by the regrowth
        shrink = 1.0 - spec.grass_regrowth
        if deficit_scale * shrink < 1e-150:
            deficit *= deficit_scale * shrink
            deficit_scale = 1.0
        else:
            deficit_scale *= shrink
        if step % 64 == 0:
            count_batches()
        history["population"][step] = np.bincount(kind, minlength=na)
        history["born"][step] = np.bincount(ck, minlength=na)
        history["died"][step] = died
        yield step, steps, "animals"

    count_batches()
    cum = np.cumsum(ranges, axis=1)
    home_range = np.zeros(na)
    for k in range(na):
        if cum[k, -1]:
            home_range[k] = (int(np.searchsorted(cum[k], 0.95 * cum[k, -1])) + 1) * cell

    def crop(grid: npt.NDArray[Any]) -> npt.NDArray[Any]:
        return grid.reshape(*grid.shape[:-1], nr, nc)[..., pad : pad + rows, pad : pad + cols]

    return AnimalRun(
        names=tuple(names),
        steps=steps,
        history=history,
        x=x0 + (fx - pad) * cell,
        y=y0 + (fy - pad) * cell,
        kind=kind.astype(np.int16),
        den_x=x0 + (den_x - pad) * cell,
        den_y=y0 + (den_y - pad) * cell,
        energy=energy,
        speed=speed * cell,
        vision=vision * cell,
        wear=crop(wear * wear_scale).copy(),
        visits=crop(visits).copy(),
        steps_on=crop(steps_on).copy(),
        travel_on=crop(travel_on).copy(),
        home_range=home_range,
        grass=crop(capacity - deficit * deficit_scale).copy(),
    )
