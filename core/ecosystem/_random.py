"""Counter-based random numbers keyed by what they are about, not by the order they are drawn in.

A tile of a tiled world simulates its own area plus a halo; the plants in the strip two tiles
share must draw the same numbers in both tiles, whichever tile is built first and whatever order
its arrays hold them in.  So no draw comes from a generator's running state: every number is a
hash of a 64-bit key -- the plant's identity, or a world block's coordinates -- and the key of
its purpose and year, ``SeedSequence([seed, stream, year])`` (:func:`stream_key`).  The hash is
SplitMix64's finaliser (Steele, Lea & Flood 2014), integer operations only, so the numbers are
the same bits on every CPU.

>>> key = stream_key(7, GERMINATE, 3)
>>> u = uniform(np.arange(4, dtype=np.uint64), key)
>>> u.dtype, bool(((u >= 0.0) & (u < 1.0)).all())
(dtype('float64'), True)
>>> bool((uniform(np.arange(4, dtype=np.uint64)[::-1], key)[::-1] == u).all())   # order does not matter
True
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "INITIAL",
    "IMMIGRANTS",
    "SEEDS",
    "GERMINATE",
    "DEATH",
    "DISTURB",
    "BIRTH",
    "ANIMALS",
    "stream_key",
    "mix",
    "uniform",
    "block_ids",
    "irwin_hall",
]

# the streams: one per kind of draw
INITIAL, IMMIGRANTS, SEEDS, GERMINATE, DEATH, DISTURB, BIRTH, ANIMALS = range(1, 9)

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_S30, _S27, _S31, _S11 = (np.uint64(s) for s in (30, 27, 31, 11))
_TWO_M53 = 1.0 / 9007199254740992.0  # 2**-53


def stream_key(seed: int, stream: int, year: int, *extra: int) -> np.uint64:
    """The 64-bit key of one stream of draws in one year: ``SeedSequence([seed, stream, year, *extra])``.

    >>> bool(stream_key(0, SEEDS, 1) == stream_key(0, SEEDS, 1) != stream_key(0, SEEDS, 2))
    True
    """
    state = np.random.SeedSequence([int(seed), int(stream), int(year), *map(int, extra)]).generate_state(1, np.uint64)
    return np.uint64(state[0])


def mix(z: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """SplitMix64's finaliser of uint64 values (a bijection of 64-bit integers)."""
    z = np.asarray(z, np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> _S30)) * _M1
        z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def uniform(ids: npt.NDArray[np.uint64], key: np.uint64, k: int = 0) -> npt.NDArray[np.float64]:
    """Uniform floats in [0, 1) of ``ids`` (uint64) under ``key``: the ``k``-th number of each id.

    53 random bits each (the top bits of the hash), like ``Generator.random``.
    """
    ids = np.asarray(ids, np.uint64)
    with np.errstate(over="ignore"):
        z = mix(ids ^ key) + np.uint64(k) * _GOLDEN
    return (mix(z) >> _S11).astype(np.float64) * _TWO_M53


def block_ids(bx: npt.NDArray[np.int64], by: npt.NDArray[np.int64]) -> npt.NDArray[np.uint64]:
    """One uint64 per world block ``(bx, by)`` (integers of either sign, |b| < 2**31)."""
    bx = np.asarray(bx, np.int64) + (1 << 31)
    by = np.asarray(by, np.int64) + (1 << 31)
    return (bx.astype(np.uint64) << np.uint64(32)) | by.astype(np.uint64)


def irwin_hall(ids: npt.NDArray[np.uint64], key: np.uint64, k0: int) -> npt.NDArray[np.float64]:
    """Approximately normal numbers (mean 0, standard deviation 1) of ``ids``: the sum of four
    uniforms (numbers ``k0 .. k0 + 3``), centred and scaled by ``sqrt(3)``; they lie within
    ``[-2 sqrt(3), 2 sqrt(3)]``, so kernels built on them have a bounded reach.
    """
    s = uniform(ids, key, k0) + uniform(ids, key, k0 + 1) + uniform(ids, key, k0 + 2) + uniform(ids, key, k0 + 3)
    return (s - 2.0) * 1.7320508075688772
