"""Pit filling and flow accumulation (placeholder: being written)."""


def fill_pits(heights, *, epsilon=None):
    raise NotImplementedError("fill_pits is being written")


def flow_accumulation(heights, *, cell_size):
    raise NotImplementedError("flow_accumulation is being written")
