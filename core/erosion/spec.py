"""``[terrain.erosion]``: hydraulic (droplets) and thermal erosion of a terrain tile, and their limits.

Every scale is in metres (``radius``, ``lifetime``) or per square kilometre (``droplets_per_km2``),
so a 513^2 and a 1025^2 build of the same recipe erode alike. The rates are per metre travelled.

>>> spec = from_dict({"enabled": True, "droplets_per_km2": 50_000})
>>> spec.enabled, spec.droplets_per_km2, spec.radius
(True, 50000.0, 6.0)
>>> droplet_count(spec, size=512.0)
13107
>>> to_dict(spec)["droplets_per_km2"]
50000.0
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError
from ..spec import check_keys, flag, from_table, integer, number, to_table
from ._hydraulic import (
    DEFAULT_EVAPORATION,
    DEFAULT_LIFETIME,
    DEFAULT_RADIUS,
    MAX_BRUSH_CELLS,
    MAX_DENSITY,
    MAX_DROPLET_STEPS,
    MAX_DROPLETS,
    MAX_STEPS,
)

__all__ = [
    "ErosionSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "droplet_count",
    "check_erosion",
    "erosion_seconds",
    "DROPLETS_PER_KM2",
]

#: The erosion's cost model (:func:`erosion_seconds`), process CPU seconds: per droplet step (a droplet
#: of ``lifetime`` metres takes up to lifetime / cell size steps) and per cell of each thermal pass.
#: Measured with the recipe defaults (``lifetime`` 100 m, 50 thermal passes): 513^2 over 512 m,
#: 5.2 M droplet steps in 2.2 s; 1025^2 over 1024 m, 21 M in 9.4 s, thermal 1.3 s (load 11).
SECONDS_PER_DROPLET_STEP = 0.5e-6
SECONDS_PER_THERMAL_CELL = 30e-9

#: Droplets per square kilometre (the cap on the droplet count itself is ``MAX_DROPLETS``): at most
#: one a square metre (``MAX_DENSITY``); denser rain digs pits without bound (a tester saw -50 km).
DROPLETS_PER_KM2 = (0.0, MAX_DENSITY * 1.0e6)
RADIUS = (0.05, 1000.0)
LIFETIME = (0.1, 100_000.0)
TALUS = (1.0, 89.0)
THERMAL_ITERATIONS = (0, 10_000)

#: Every field of :class:`ErosionSpec`: kind, range, label and description, written once.
LIMITS = {
    "enabled": flag("Erosion", "Erode the terrain (hydraulic droplets, then thermal if asked)"),
    "droplets_per_km2": number(
        DROPLETS_PER_KM2,
        "Droplets per km²",
        "Water droplets per square kilometre of terrain; more erodes deeper valleys "
        f"(at most {MAX_DROPLETS:,} droplets a tile)",
        soft=(0.0, 1_000_000.0),
    ),
    "inertia": number((0.0, 0.99), "Inertia", "How much of its direction a droplet keeps (per metre)"),
    "capacity": number(
        (0.0, 1000.0), "Capacity", "Sediment a droplet can carry: slope x speed x water x capacity", soft=(0.0, 32.0)
    ),
    "min_slope": number((0.0, 10.0), "Minimum Slope", "Slope used for the capacity on flatter ground", soft=(0.0, 0.2)),
    "erosion_rate": number((0.0, 1.0), "Erosion Rate", "Share of the missing sediment a droplet takes per metre"),
    "deposition_rate": number(
        (0.0, 1.0), "Deposition Rate", "Share of the excess sediment a droplet lays down per metre"
    ),
    "evaporation": number((0.0, 1.0), "Evaporation", "Share of its water a droplet loses per metre", soft=(0.0, 0.2)),
    "gravity": number((0.0, 1000.0), "Gravity", "Speed a droplet gains from a drop", soft=(0.0, 20.0)),
    "radius": number(RADIUS, "Brush Radius", "Radius a droplet erodes around itself", unit="m", soft=(0.5, 16.0)),
    "lifetime": number(LIFETIME, "Lifetime", "Distance a droplet runs before it dies", unit="m", soft=(1.0, 500.0)),
    "thermal": flag("Thermal", "Then slide material down slopes steeper than the talus angle"),
    "talus": number(TALUS, "Talus Angle", "Steepest slope loose material rests on", unit="deg"),
    "thermal_rate": number((0.0, 1.0), "Thermal Rate", "Share of the excess moved per iteration"),
    "thermal_iterations": integer(
        THERMAL_ITERATIONS, "Thermal Iterations", "Most thermal iterations (stops early once slopes settle)"
    ),
}


@dataclass(frozen=True)
class ErosionSpec:
    """``[terrain.erosion]``: how the shaped heights are eroded (off by default).

    Hydraulic erosion (:func:`core.erosion.hydraulic`) runs ``droplets_per_km2`` x the tile's
    area in km^2 droplets, rounded; its other fields are that function's arguments (``radius``
    and ``lifetime`` in metres, the rates per metre travelled). With ``thermal``,
    :func:`core.erosion.thermal` then runs up to ``thermal_iterations`` iterations with
    ``talus`` (degrees) and ``thermal_rate``. Ranges: :data:`LIMITS`.
    """

    enabled: bool = False
    droplets_per_km2: float = 100_000.0
    inertia: float = 0.05
    capacity: float = 4.0
    min_slope: float = 0.01
    erosion_rate: float = 0.3
    deposition_rate: float = 0.3
    evaporation: float = DEFAULT_EVAPORATION
    gravity: float = 4.0
    radius: float = DEFAULT_RADIUS
    lifetime: float = DEFAULT_LIFETIME
    thermal: bool = False
    talus: float = 35.0
    thermal_rate: float = 0.5
    thermal_iterations: int = 50

    def hydraulic_kwargs(self) -> dict[str, float]:
        """The keyword arguments of :func:`core.erosion.hydraulic` this spec sets (not the droplet count)."""
        return {
            "inertia": self.inertia,
            "capacity": self.capacity,
            "min_slope": self.min_slope,
            "erosion_rate": self.erosion_rate,
            "deposition_rate": self.deposition_rate,
            "evaporation": self.evaporation,
            "gravity": self.gravity,
            "radius": self.radius,
            "lifetime": self.lifetime,
        }

    def thermal_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of :func:`core.erosion.thermal` this spec sets."""
        return {"talus": self.talus, "rate": self.thermal_rate, "iterations": self.thermal_iterations}


def droplet_count(spec: ErosionSpec, *, size: float, prefix: str = "terrain.erosion.") -> int:
    """Droplets for a square tile of ``size`` metres: ``round(droplets_per_km2 * (size / 1000)^2)``.

    Refuses more than :data:`core.erosion._hydraulic.MAX_DROPLETS` (a run of many minutes),
    naming ``droplets_per_km2`` and the largest density the tile allows.
    """
    side_km = float(size) / 1000.0
    area_km2 = side_km * side_km  # not ** 2: a Python float's ** is the C library's pow
    count = int(round(spec.droplets_per_km2 * area_km2))
    if count > MAX_DROPLETS:
        raise ParameterError(
            f"{prefix}droplets_per_km2 {spec.droplets_per_km2:g} gives {count:,} droplets on this "
            f"{size:g} m tile; at most {MAX_DROPLETS:,} droplets a tile "
            f"(droplets_per_km2 <= {MAX_DROPLETS / area_km2:,.0f} here)"
        )
    return count


def check_erosion(spec: ErosionSpec, *, size: float, cell_size: float, prefix: str = "terrain.erosion.") -> int:
    """Checks of an enabled erosion against the tile: the brush at most 32 cells across its radius,
    the lifetime at most 10,000 cells, droplets x steps within a run of minutes (not hours).
    Returns the droplet count (0 when erosion is off; nothing is checked then).

    >>> check_erosion(ErosionSpec(enabled=True), size=512.0, cell_size=2.0)
    26214
    >>> try:
    ...     check_erosion(ErosionSpec(enabled=True, radius=500.0), size=512.0, cell_size=2.0)
    ... except ParameterError as err:
    ...     print(err)
    terrain.erosion.radius 500 m is 250 cells of 2 m; at most 32 cells (64 m here)
    """
    if not spec.enabled:
        return 0
    if spec.radius > MAX_BRUSH_CELLS * cell_size:
        raise ParameterError(
            f"{prefix}radius {spec.radius:g} m is {spec.radius / cell_size:g} cells of {cell_size:g} m; "
            f"at most {MAX_BRUSH_CELLS} cells ({MAX_BRUSH_CELLS * cell_size:g} m here)"
        )
    if spec.lifetime > MAX_STEPS * cell_size:
        raise ParameterError(
            f"{prefix}lifetime {spec.lifetime:g} m is {spec.lifetime / cell_size:g} cells of {cell_size:g} m; "
            f"at most {MAX_STEPS:,} cells ({MAX_STEPS * cell_size:g} m here)"
        )
    count = droplet_count(spec, size=size, prefix=prefix)
    steps = max(1, int(round(spec.lifetime / cell_size)))
    if count * steps > MAX_DROPLET_STEPS:
        raise ParameterError(
            f"{prefix}droplets_per_km2 {spec.droplets_per_km2:g} with lifetime {spec.lifetime:g} m gives "
            f"{count:,} droplets of {steps:,} steps on this tile (hours of work); at most "
            f"{MAX_DROPLET_STEPS:,} droplet steps: lower droplets_per_km2 or lifetime"
        )
    return count


def erosion_seconds(spec: ErosionSpec, *, size: float, resolution: int) -> float:
    """About how many seconds of CPU the erosion of a square tile of ``resolution`` vertices a side
    over ``size`` metres takes, before it starts: its droplets (:func:`droplet_count`) times their
    steps (lifetime over the cell size) times :data:`SECONDS_PER_DROPLET_STEP`, plus, with
    ``thermal``, its passes over every cell times :data:`SECONDS_PER_THERMAL_CELL`; 0 when off.
    Droplets that run dry end sooner, so the figure leans high.

    >>> spec = ErosionSpec(enabled=True, droplets_per_km2=894_069.0)  # the most a 4 km tile allows
    >>> round(erosion_seconds(spec, size=4096.0, resolution=4097) / 60)  # 1.5 billion droplet steps
    12
    """
    if not spec.enabled:
        return 0.0
    cell_size = float(size) / (int(resolution) - 1)
    steps = max(1, int(round(spec.lifetime / cell_size)))
    seconds = droplet_count(spec, size=size) * steps * SECONDS_PER_DROPLET_STEP
    if spec.thermal:
        seconds += int(resolution) ** 2 * spec.thermal_iterations * SECONDS_PER_THERMAL_CELL
    return seconds


def from_dict(table: Mapping[str, Any], *, prefix: str = "terrain.erosion.") -> ErosionSpec:
    """A validated :class:`ErosionSpec` from a ``[terrain.erosion]`` table (unknown keys refused).

    >>> try:
    ...     from_dict({"radius": 0.0})
    ... except ParameterError as err:
    ...     print(err)
    terrain.erosion.radius must be a finite number in [0.05, 1000], got 0
    """
    if isinstance(table, dict):  # the sub-table named as TOML writes it: [terrain.erosion]
        check_keys(table, list(LIMITS), where=f"[{prefix.rstrip('.')}]")
    return from_table(ErosionSpec, LIMITS, table, prefix=prefix)


def to_dict(spec: ErosionSpec) -> dict[str, Any]:
    """The spec as a table of plain TOML values (every field).

    >>> from_dict(to_dict(ErosionSpec(enabled=True))) == ErosionSpec(enabled=True)
    True
    """
    return to_table(spec)
