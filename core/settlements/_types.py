"""The settlement types: size, lots, houses, walls and the biomes each allows (one table)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SiteType", "TYPE_TABLE", "FORBIDDEN", "allowed_biomes", "radius_of"]


@dataclass(frozen=True)
class SiteType:
    """What a settlement type builds (metres unless said).

    ``radius`` of its pad (times the spec's ``scale``); ``frontage`` and ``depth`` of a lot;
    ``house_depth`` (low, high) of a house; ``storeys`` (low, high); ``setback`` of a house from
    its street; ``side_gap`` between a house and its lot's sides; ``streets``: parallel streets
    beside the main one (0: the main street only, 1: one on each side); ``cross``: cross streets
    (0 none, 1 through the centre, 2 two more at ``block`` from it); ``wall``: a wall with gates;
    ``skip``: the share of lots left empty (gardens); ``forbidden``: biomes the type does not take
    besides :data:`FORBIDDEN`."""

    radius: float
    frontage: float
    depth: float
    house_depth: tuple[float, float]
    storeys: tuple[int, int]
    setback: float
    side_gap: float
    streets: int
    cross: int
    wall: bool
    skip: float
    forbidden: tuple[str, ...]


#: Biomes no settlement takes: water, ice, bare rock, and the beach the floods reach.
FORBIDDEN = ("ocean", "snow", "bare rock", "beach")

TYPE_TABLE = {
    "hamlet": SiteType(
        radius=30.0,
        frontage=13.0,
        depth=12.0,
        house_depth=(6.0, 8.0),
        storeys=(1, 1),
        setback=2.5,
        side_gap=2.5,
        streets=0,
        cross=0,
        wall=False,
        skip=0.3,
        forbidden=(),
    ),
    "village": SiteType(
        radius=42.0,
        frontage=11.0,
        depth=13.0,
        house_depth=(7.0, 9.0),
        storeys=(1, 2),
        setback=2.0,
        side_gap=1.5,
        streets=0,
        cross=1,
        wall=False,
        skip=0.15,
        forbidden=("tundra", "rain forest"),
    ),
    "walled_town": SiteType(
        radius=60.0,
        frontage=8.0,
        depth=11.0,
        house_depth=(7.0, 9.5),
        storeys=(2, 3),
        setback=1.0,
        side_gap=0.4,
        streets=1,
        cross=2,
        wall=True,
        skip=0.05,
        forbidden=("tundra", "rain forest", "desert", "taiga"),
    ),
}


def radius_of(kind: str, scale: float) -> float:
    """The pad radius (metres) of type ``kind`` at ``scale``."""
    return TYPE_TABLE[kind].radius * scale


def allowed_biomes(kind: str, names: tuple[str, ...]) -> tuple[bool, ...]:
    """Whether each biome of ``names`` (a table's, in id order) takes a settlement of type ``kind``.

    >>> allowed_biomes("walled_town", ("ocean", "grassland", "taiga"))
    (False, True, False)
    """
    no = set(FORBIDDEN) | set(TYPE_TABLE[kind].forbidden)
    return tuple(name not in no for name in names)
