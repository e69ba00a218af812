"""``[terrain.erosion]`` (placeholder: being written)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class ErosionSpec:
    enabled: bool = False


EROSION_LIMITS = {}


def erosion_from_dict(table, *, prefix="terrain.erosion."):
    raise NotImplementedError("erosion_from_dict is being written")


def erosion_to_dict(spec):
    raise NotImplementedError("erosion_to_dict is being written")
