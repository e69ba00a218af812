"""Hydraulic droplet erosion (Beyer 2015, as popularised by Sebastian Lague), many droplets at once.

Each droplet starts at a random point with ``initial_water`` and ``initial_speed``, then steps one
cell at a time downhill (its direction keeps ``inertia`` of the last one), for ``lifetime`` metres.
At every step it compares its sediment with its capacity
``max(slope, min_slope) * speed * water * capacity``: going uphill it fills the hole it climbs out
of (at its four corners, as Lague), above capacity it lays part of the excess, below it erodes; both
with a round brush of ``radius`` metres; then it gains speed from the drop and loses water to
evaporation.

What differs from the well-known implementations, and why:

* **Droplets advance in lock-step** as arrays, ``batch`` droplets at a time; within a step every
  droplet reads the same heights and their changes are summed (``np.add.at``, deterministic in
  index order). The batch size depends on the map's area only (one droplet per 64 m^2, within
  [64, 16384]), never on threads: the same seed gives the same bytes. Droplets whose nodes share a
  block of the brush's radius (plus a cell) in the same step share that step's caps (each cap is
  divided by their count less one), so many droplets meeting in one channel do not dig it many
  times at once (without it, dense batches run away); at the default density the result stays
  within about 5 % of one droplet at a time in eroded volume (blocks of the brush's diameter
  shared too often: 20 % less at 1 m cells).
* **Exact mass ledger.** Sediment is a volume (m^3). A droplet that dies (end of its lifetime, or
  on a flat spot with nowhere to go) deposits what it carries where it dies, spread by the erosion
  brush (the anchors drop it: 34-41 % of the eroded material vanished). Only sediment carried
  across the map edge leaves, and it is counted: ``eroded = deposited + lost_at_edge``.
* **Metres, not cells.** Heights, ``cell_size``, ``radius`` and ``lifetime`` are metres; slopes are
  dimensionless; the rates (``inertia``, ``erosion_rate``, ``deposition_rate``, ``evaporation``) are
  per metre travelled (Lague's per-step values on 1 m cells) and are converted to the step length,
  so a 513^2 and a 1025^2 build of the same terrain erode alike. A step takes at most
  ``drop x 1 m^2`` (Lague's "no more than the height difference", on 1 m cells; the same per metre
  on any cells); an uphill step fills at most the hole it climbs out of (``drop x cell area``).
* **Deposits are spread** with the erosion brush (Lague lays them at the droplet's four corners):
  on 1 m cells point deposits piled up into a speckle of little mounds (about 1,500 new local maxima
  on a 257^2 test map instead of ~16); the brush's radius is metres, so they look alike on any cells.
  The defaults (``evaporation`` 0.03 per metre, ``lifetime`` 100 m) leave a dying droplet about 5 %
  of its water, so it dies nearly empty (what dying droplets carry: ~1-7 % of the eroded material,
  not Lague's ~50 %).
* **Speed** follows Beyer: ``v^2 += drop * gravity``, clamped at 0 (Lague's sign is reversed and
  goes NaN uphill).
* **No new pits.** Afterwards, an interior cell that is lower than all 8 neighbours and was not
  before is levelled with its lowest neighbour (both set to their mean): material moves, the
  ledger counts it as eroded there and deposited here, and the totals still balance.
"""

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import check_float, check_heights, check_int
from ..errors import ParameterError
from ..steps import Steps, drive
from ._droplets import (  # noqa: F401 - EDGE_CHUNK etc. stay importable (and patchable) here
    EDGE_CHUNK,
    PIT_ROUNDS,
    REFERENCE_STEP,
    TINY,
    Simulation,
    brush,
    new_pits,
)

_Simulation = Simulation  # its name here before the engine moved to _droplets

__all__ = [
    "HydraulicResult",
    "hydraulic",
    "hydraulic_steps",
    "SEED_TAG",
    "MAX_DROPLETS",
    "MAX_DENSITY",
    "MAX_DROPLET_STEPS",
    "new_pits",
]

#: Mixed into the seed so erosion has its own random stream ("EROD").
SEED_TAG = 0x45524F44
#: Most droplets one call may simulate (about 10 minutes at 1025^2 on one core, 30 steps each).
MAX_DROPLETS = 50_000_000
#: Most droplets x steps one call may simulate (10 to 15 minutes on one core).
MAX_DROPLET_STEPS = 1_500_000_000
#: Default brush radius and droplet lifetime in metres. Lague's 3 and 30 cells (on 1 m cells) with his
#: evaporation 0.01 left a dying droplet ~74 % of its water, so it still carried ~half the eroded
#: material, dropped in a mound where it died (the land came out speckled). 100 m at 0.03 per metre
#: leaves it ~5 %: it lays its load along the way (fans, filled valleys) and dies nearly empty.
DEFAULT_RADIUS = 6.0
DEFAULT_LIFETIME = 100.0
#: Default share of its water a droplet loses per metre (see DEFAULT_LIFETIME).
DEFAULT_EVAPORATION = 0.03
#: Longest lifetime in steps (cells) a droplet may take.
MAX_STEPS = 10_000
#: Most droplets a square metre of the map in one run: denser rain digs pits without bound (on 1 m
#: cells 8 a square metre dug 50 m below the lowest point; 1 stays within the relief at 1-4 m cells).
MAX_DENSITY = 1.0
#: Largest brush radius, in cells (a brush of 32 cells' radius covers about 3,200 cells).
MAX_BRUSH_CELLS = 32
#: Droplets advance together in batches of one droplet per this many m^2 of the map (8 m x 8 m),
#: within [MIN_BATCH, MAX_BATCH]: the droplets of a batch share their caps where they crowd, so the
#: batch follows the area, not the cells (a 1 m map erodes like a 2 m one of the same land).
BATCH_AREA = 64.0
MIN_BATCH = 64
MAX_BATCH = 16_384


@dataclass(frozen=True)
class HydraulicResult:
    """What :func:`hydraulic` returns.

    Attributes
    ----------
    heights : (h, w) float64
        Heights after erosion, metres.
    eroded, deposited : (h, w) float64
        Material taken from and laid on each cell, metres of height (>= 0);
        ``heights - input == deposited - eroded`` (to rounding).
    ledger : dict
        Volumes in m^3: ``eroded``, ``deposited`` (everything laid down, including what droplets
        carried when they died and the pit levelling), ``carried_at_death`` (the part of
        ``deposited`` dropped by dying droplets), ``lost_at_edge`` (carried across the map edge),
        ``pit_moves`` (volume moved to level new pits, inside both ``eroded`` and ``deposited``),
        ``relative_error`` ``|eroded - deposited - lost_at_edge| / eroded``.
    droplets : int
        Droplets simulated.
    seconds : float
        Wall time of the simulation.
    """

    heights: npt.NDArray[np.float64]
    eroded: npt.NDArray[np.float64]
    deposited: npt.NDArray[np.float64]
    ledger: dict[str, float] = field(default_factory=dict)
    droplets: int = 0
    seconds: float = 0.0


def _check(
    heights: npt.ArrayLike, cell_size: float, droplets: int, seed: int, settings: Mapping[str, float | None]
) -> tuple[npt.NDArray[np.floating[Any]], float, int, int, dict[str, Any]]:
    h = check_heights(heights, name="heights")
    if h.shape[0] < 2 or h.shape[1] < 2:
        raise ParameterError(f"heights must be at least 2 x 2 cells, got {h.shape[0]} x {h.shape[1]}")
    cell = check_float(cell_size, name="cell_size", bounds=(1e-6, 1e6))
    n = check_int(droplets, name="droplets", bounds=(0, MAX_DROPLETS))
    seed = check_int(seed, name="seed", bounds=(0, 2**63 - 1))
    s: dict[str, Any] = dict(settings)
    s["inertia"] = check_float(s["inertia"], name="inertia", bounds=(0.0, 1.0), open_high=True)
    s["capacity"] = check_float(s["capacity"], name="capacity", bounds=(0.0, 1e6))
    s["min_slope"] = check_float(s["min_slope"], name="min_slope", bounds=(0.0, 1e3))
    for key in ("erosion_rate", "deposition_rate", "evaporation"):
        s[key] = check_float(s[key], name=key, bounds=(0.0, 1.0))
    s["gravity"] = check_float(s["gravity"], name="gravity", bounds=(0.0, 1e3))
    s["initial_water"] = check_float(s["initial_water"], name="initial_water", bounds=(0.0, 1e6), open_low=True)
    s["initial_speed"] = check_float(s["initial_speed"], name="initial_speed", bounds=(0.0, 1e6))
    radius = DEFAULT_RADIUS if s["radius"] is None else s["radius"]
    s["radius"] = check_float(radius, name="radius", bounds=(0.0, MAX_BRUSH_CELLS * cell), open_low=True)
    lifetime = DEFAULT_LIFETIME if s["lifetime"] is None else s["lifetime"]
    s["lifetime"] = check_float(lifetime, name="lifetime", bounds=(0.0, MAX_STEPS * cell), open_low=True)
    steps = max(1, int(round(s["lifetime"] / cell)))
    if n * steps > MAX_DROPLET_STEPS:
        raise ParameterError(
            f"droplets {n:,} of {steps:,} steps (lifetime {s['lifetime']:g} m / cell_size {cell:g} m) is "
            f"{n * steps:,} droplet steps, hours of work; at most {MAX_DROPLET_STEPS:,}"
        )
    area = (h.shape[0] - 1) * (h.shape[1] - 1) * cell * cell
    if n > max(1.0, MAX_DENSITY * area):
        raise ParameterError(
            f"droplets {n:,} on {area:,.6g} m^2 is {n / area:.3g} a square metre; at most {MAX_DENSITY:g} "
            f"({int(max(1.0, MAX_DENSITY * area)):,} here): denser rain digs pits without bound"
        )
    batch = s["batch"]
    if batch is None:  # one droplet per BATCH_AREA m^2 of the map: the same crowding on any cells
        s["batch"] = min(max(int(area // BATCH_AREA), MIN_BATCH), MAX_BATCH)
    else:
        s["batch"] = check_int(batch, name="batch", bounds=(1, 10**7))
    return h, cell, n, seed, s


def hydraulic_steps(
    heights: npt.ArrayLike,
    *,
    cell_size: float,
    droplets: int,
    seed: int = 0,
    inertia: float = 0.05,
    capacity: float = 4.0,
    min_slope: float = 0.01,
    erosion_rate: float = 0.3,
    deposition_rate: float = 0.3,
    evaporation: float = DEFAULT_EVAPORATION,
    gravity: float = 4.0,
    radius: float | None = None,
    lifetime: float | None = None,
    initial_water: float = 1.0,
    initial_speed: float = 1.0,
    batch: int | None = None,
) -> Steps[HydraulicResult]:
    """:func:`hydraulic` as a step generator: yields ``(done, total, "erosion")`` after every batch
    (``done`` droplets of ``total``) and returns the :class:`HydraulicResult`.

    >>> from core.steps import drive
    >>> h = np.add.outer(np.arange(32.0), np.arange(32.0))
    >>> seen = []
    >>> r = drive(hydraulic_steps(h, cell_size=1.0, droplets=600, batch=256), lambda *a: seen.append(a))
    >>> seen
    [(256, 600, 'erosion'), (512, 600, 'erosion'), (600, 600, 'erosion')]
    """
    settings = dict(
        inertia=inertia,
        capacity=capacity,
        min_slope=min_slope,
        erosion_rate=erosion_rate,
        deposition_rate=deposition_rate,
        evaporation=evaporation,
        gravity=gravity,
        radius=radius,
        lifetime=lifetime,
        initial_water=initial_water,
        initial_speed=initial_speed,
        batch=batch,
    )
    h0, cell, total, seed, s = _check(heights, cell_size, droplets, seed, settings)
    t0 = time.perf_counter()
    rows, cols = h0.shape
    original = np.asarray(h0, dtype=np.float64)
    sim = Simulation(original, cell, s, EDGE_CHUNK)  # this module's EDGE_CHUNK, read at call time
    rng = np.random.default_rng(np.random.SeedSequence([seed, SEED_TAG]))
    done = 0
    while done < total:
        n = min(s["batch"], total - done)
        start = rng.random((n, 2))
        sim.run(start[:, 1] * (cols - 1), start[:, 0] * (rows - 1))
        done += n
        yield done, total, "erosion"
    result = sim.finish(original)
    return HydraulicResult(
        heights=result[0],
        eroded=result[1],
        deposited=result[2],
        ledger=result[3],
        droplets=total,
        seconds=time.perf_counter() - t0,
    )


def hydraulic(
    heights: npt.ArrayLike,
    *,
    cell_size: float,
    droplets: int,
    seed: int = 0,
    inertia: float = 0.05,
    capacity: float = 4.0,
    min_slope: float = 0.01,
    erosion_rate: float = 0.3,
    deposition_rate: float = 0.3,
    evaporation: float = DEFAULT_EVAPORATION,
    gravity: float = 4.0,
    radius: float | None = None,
    lifetime: float | None = None,
    initial_water: float = 1.0,
    initial_speed: float = 1.0,
    batch: int | None = None,
    progress: Callable[[int, int, str], object] | None = None,
) -> HydraulicResult:
    """Erode ``heights`` (metres) with ``droplets`` water droplets; returns a :class:`HydraulicResult`.

    Parameters
    ----------
    heights : (h, w) float array
        Heights in metres, row ``i`` along +Y, column ``j`` along +X; not modified.
    cell_size : float
        Metres between neighbouring samples.
    droplets : int
        How many droplets (at most :data:`MAX_DROPLETS`); a recipe gives droplets per km^2.
    seed : int
        Start points come from ``default_rng(SeedSequence([seed, SEED_TAG]))``: erosion's own stream.
    inertia : float in [0, 1)
        Share of the previous direction kept per metre (0: straight down the slope).
    capacity : float
        Sediment capacity factor: a droplet carries up to
        ``max(slope, min_slope) * speed * water * capacity`` m^3.
    min_slope : float
        Slope used for the capacity on flatter ground (keeps droplets eroding on flats).
    erosion_rate, deposition_rate : float in [0, 1]
        Share of the missing (or excess) sediment taken (or laid) per metre.
    evaporation : float in [0, 1]
        Share of the water lost per metre.
    gravity : float
        Speed gained from the drop: ``speed^2 += drop * gravity``.
    radius : float, optional
        Erosion brush radius in metres (default 6 m); what a droplet lays over capacity and what
        it carries when it dies are spread with the same brush.
    lifetime : float, optional
        Distance a droplet travels before it dies, in metres (default 100 m): ``lifetime / cell_size``
        steps of one cell.
    initial_water, initial_speed : float
        A droplet's water and speed when it starts.
    batch : int, optional
        Droplets simulated together (default one per 64 m^2 of the map, within [64, 16384]); the result depends
        on it, never on the machine.
    progress : callable, optional
        ``progress(done, total, "erosion")`` after every batch.

    Examples
    --------
    >>> y, x = np.mgrid[0:64, 0:64]
    >>> h = 20.0 * np.exp(-((x - 32.0) ** 2 + (y - 32.0) ** 2) / 400.0)
    >>> r = hydraulic(h, cell_size=2.0, droplets=2000, seed=1)
    >>> r.ledger["relative_error"] < 1e-9 and r.ledger["eroded"] > 0
    True
    >>> bool(np.allclose(r.heights - h, r.deposited - r.eroded))
    True
    """
    return drive(
        hydraulic_steps(
            heights,
            cell_size=cell_size,
            droplets=droplets,
            seed=seed,
            inertia=inertia,
            capacity=capacity,
            min_slope=min_slope,
            erosion_rate=erosion_rate,
            deposition_rate=deposition_rate,
            evaporation=evaporation,
            gravity=gravity,
            radius=radius,
            lifetime=lifetime,
            initial_water=initial_water,
            initial_speed=initial_speed,
            batch=batch,
        ),
        progress,
    )
