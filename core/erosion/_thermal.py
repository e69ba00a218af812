"""Thermal erosion (placeholder: being written)."""


def thermal(heights, *, cell_size, talus=35.0, iterations=50, rate=0.5):
    raise NotImplementedError("thermal is being written")
