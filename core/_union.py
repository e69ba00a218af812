"""Union-find in numpy, for labelling regions of grids (levels' regions, WFC's connectivity)."""

import numpy as np
import numpy.typing as npt

__all__ = ["join_roots"]


def join_roots(
    parent: npt.NDArray[np.int64], a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """Join the sets of ``a[i]`` and ``b[i]`` for every ``i``: ``parent`` (a forest of int64 parent
    indices, every root its own parent) comes back flattened, each element pointing at the smallest
    element of its set.  Vectorised: hook the larger root on the smaller, jump pointers to the roots,
    repeat while some pair still differs.

    >>> join_roots(np.arange(5), np.array([3, 1]), np.array([4, 3])).tolist()
    [0, 1, 2, 1, 1]
    """
    while a.size:
        pa, pb = parent[a], parent[b]
        differ = pa != pb
        if not differ.any():
            break
        a, b, pa, pb = a[differ], b[differ], pa[differ], pb[differ]
        np.minimum.at(parent, np.maximum(pa, pb), np.minimum(pa, pb))
        while True:
            nxt = parent[parent]
            if np.array_equal(nxt, parent):
                break
            parent = nxt
    return parent
