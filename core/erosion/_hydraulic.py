"""Hydraulic droplet erosion (placeholder: being written)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class HydraulicResult:
    heights: object
    eroded: object
    deposited: object
    ledger: dict


def hydraulic(heights, *, cell_size, droplets, seed=0, **settings):
    raise NotImplementedError("hydraulic is being written")
