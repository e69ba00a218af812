"""Samples and their patterns for the overlapping model: reading a sample, N x N patterns, their overlaps.

As in the reference implementation (mxgmn's ``OverlappingModel.cs``): every N x N window of the
sample (wrapping round when the input is periodic) and its dihedral variants in the reference's
order (identity, reflection, rotation, its reflection, ... ``symmetry`` of them) is a pattern
weighted by how often it occurs; pattern ``q`` may sit one step from ``p`` in a direction when the
two agree where they overlap. Extraction and the overlap table are whole-array numpy work
(sliding windows, ``np.unique`` on rows).
"""

import os
import pathlib
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError, short
from ..files import MAX_FILE_BYTES, read_checked
from ._png import read_png

__all__ = [
    "extract_patterns",
    "overlap_compatible",
    "read_sample",
    "check_sample",
    "palette_indices",
    "solver_order",
    "ground_allowed",
    "MAX_SAMPLE_SIDE",
]

#: Largest sample side: a sample is a small picture of the style wanted.
MAX_SAMPLE_SIDE = 256


def check_sample(sample: object, name: str = "sample") -> npt.NDArray[Any]:
    """The sample as an array: (h, w) integers, or an (h, w, 3) RGB or (h, w, 4) RGBA uint8 image
    (every distinct colour, alpha included, is one value), 1 to :data:`MAX_SAMPLE_SIDE` a side;
    ``name`` is what messages call it (a file: ``"sample 'rooms.txt'"``).

    >>> check_sample(np.zeros((2, 3, 4), np.uint8)).shape
    (2, 3, 4)
    """
    arr = np.asarray(sample)
    image = arr.ndim == 3 and arr.dtype == np.uint8 and arr.shape[2] in (3, 4)
    if not (image or (arr.ndim == 2 and arr.dtype.kind in "iu")):
        raise ParameterError(
            f"{name} must be an (h, w) integer array or an (h, w, 3) or (h, w, 4) uint8 image (RGB or RGBA),"
            f" got {arr.dtype} {arr.shape}"
        )
    h, w = arr.shape[:2]
    if not (1 <= h <= MAX_SAMPLE_SIDE and 1 <= w <= MAX_SAMPLE_SIDE):
        raise ParameterError(f"{name} must be 1 to {MAX_SAMPLE_SIDE} values a side, got {w} x {h}")
    return arr


def palette_indices(arr: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[np.int32]]:
    """(palette, (h, w) int32 indices into it): the distinct values, sorted."""
    if arr.ndim == 2:
        palette, inverse = np.unique(arr, return_inverse=True)
    else:
        palette, inverse = np.unique(arr.reshape(-1, arr.shape[2]), axis=0, return_inverse=True)
    return palette, inverse.reshape(arr.shape[:2]).astype(np.int32)


def _variants(windows: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """The 8 dihedral variants of (..., N, N) windows [y, x], stacked on a new axis -3 in the reference's
    order: ps[0] itself, then alternately ``reflect`` (x mirrored) and ``rotate`` (a quarter turn)."""

    def reflect(p: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
        return p[..., :, ::-1]

    def rotate(
        p: npt.NDArray[np.int32],
    ) -> npt.NDArray[np.int32]:  # the reference's rotate: result[y, x] = p[x, N - 1 - y]
        return np.rot90(p, axes=(-2, -1))

    ps = [windows]
    for k in range(1, 8):
        ps.append(reflect(ps[k - 1]) if k % 2 else rotate(ps[k - 2]))
    return np.stack(ps, axis=-3)


def extract_patterns(
    indices: npt.NDArray[np.integer[Any]], *, n: int = 3, symmetry: int = 8, periodic_input: bool = True
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
    """The distinct N x N patterns of a grid of palette indices and how often each occurs.

    Parameters
    ----------
    indices : (h, w) int array
        The sample as indices into its palette.
    n : int
        Pattern side.
    symmetry : int in [1, 8]
        How many of the reference's dihedral variants of each window count.
    periodic_input : bool
        Windows wrap round the sample's edges (one per position) or stay inside it.

    Returns
    -------
    patterns : (P, n, n) int32
        In order of first appearance (rows of windows, then columns, then variants), as the reference.
    weights : (P,) float64
        How many windows (with their variants) show each pattern.

    >>> p, w = extract_patterns(np.array([[0, 1], [1, 0]]), n=2, symmetry=1)
    >>> p.tolist(), w.tolist()
    ([[[0, 1], [1, 0]], [[1, 0], [0, 1]]], [2.0, 2.0])
    """
    grid = np.asarray(indices, dtype=np.int32)
    h, w = grid.shape
    if periodic_input:
        grid = np.pad(grid, ((0, n - 1), (0, n - 1)), mode="wrap")
    elif h < n or w < n:
        raise ParameterError(f"sample must be at least n x n = {n} x {n} when periodic_input is false, got {w} x {h}")
    windows = np.lib.stride_tricks.sliding_window_view(grid, (n, n))[: h if periodic_input else None]
    windows = windows[:, : w if periodic_input else None]
    rows = np.ascontiguousarray(_variants(windows)[:, :, :symmetry].reshape(-1, n * n))
    _, first, counts = np.unique(_row_keys(rows), return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    return rows[first[order]].reshape(-1, n, n), counts[order].astype(np.float64)


def _row_keys(rows: npt.NDArray[np.int32]) -> npt.NDArray[np.int64]:
    """One integer per row of a (k, m) array of indices >= 0, equal exactly for equal rows (sorted
    like the rows, lexicographically): the row as digits of base max + 1 when that fits in int64,
    else the row's rank among the distinct rows."""
    k, m = rows.shape
    base = int(rows.max()) + 1 if rows.size else 1
    if rows.size and rows.min() >= 0 and base**m < 2**62:
        return rows.astype(np.int64) @ (base ** np.arange(m - 1, -1, -1, dtype=np.int64))
    return np.unique(rows, axis=0, return_inverse=True)[1].reshape(k)


def overlap_compatible(patterns: npt.NDArray[np.int32]) -> npt.NDArray[np.bool_]:
    """``compatible[d, p, q]``: pattern ``q`` one step from ``p`` in direction ``d`` agrees with it where they overlap.

    Directions 0 east (+x), 1 south (+y), 2 west, 3 north. Whole-array work: each pattern's overlap
    strips are numbered (one integer per strip) and the table is one comparison of those numbers.

    >>> c = overlap_compatible(np.array([[[0, 1], [0, 1]], [[1, 0], [1, 0]]]))
    >>> c[0].tolist()  # east of a pattern ending in column 1 comes one starting with column 1
    [[False, True], [True, False]]
    """
    p = np.asarray(patterns)
    count, n = p.shape[:2]
    strips = [
        p[:, :, 1:],  # east: p's columns 1.. must equal q's columns ..n-2
        p[:, :, :-1],
        p[:, 1:, :],  # south: p's rows 1.. must equal q's rows ..n-2
        p[:, :-1, :],
    ]
    flat = np.concatenate([s.reshape(count, -1) for s in strips], axis=0)
    ids = _row_keys(flat).reshape(4, count)
    east = ids[0][:, None] == ids[1][None, :]
    south = ids[2][:, None] == ids[3][None, :]
    return np.stack([east, south, east.T, south.T])


def solver_order(patterns: npt.NDArray[np.int32]) -> npt.NDArray[np.int64]:
    """The order the solver gets the patterns in: sorted by their values column by column (the
    left column first). Chosen when the solver's cost was per distinct 64-pattern block of a set
    (the sets a search meets then gathered in fewer blocks); its byte-table look-ups no longer
    depend on the order, which is kept so that a seed gives the output it gave."""
    count, n = patterns.shape[:2]
    columns = patterns.transpose(0, 2, 1).reshape(count, n * n)  # [x, y]: column-major
    return np.lexsort(columns.T[::-1])


def _windows_at(
    indices: npt.NDArray[np.integer[Any]],
    patterns: npt.NDArray[np.int32],
    n: int,
    ys: Iterable[int],
    periodic_input: bool,
) -> npt.NDArray[np.bool_]:
    """(P,) bool: which patterns are (unturned) windows of the sample with their top row in ``ys``."""
    h, w = indices.shape
    cols = w if periodic_input else w - n + 1
    grid = np.pad(indices, ((0, 0), (0, n - 1)), mode="wrap") if periodic_input else indices
    found = np.zeros(len(patterns), bool)
    for y in ys:
        band = grid[np.arange(y, y + n) % h]
        windows = np.lib.stride_tricks.sliding_window_view(band, (n, n))[0, :cols].reshape(cols, 1, n * n)
        found |= (windows == patterns.reshape(1, -1, n * n)).all(axis=2).any(axis=0)
    return found


def ground_allowed(
    indices: npt.NDArray[np.integer[Any]],
    patterns: npt.NDArray[np.int32],
    n: int,
    periodic: bool,
    periodic_input: bool,
    shape: tuple[int, int],
) -> npt.NDArray[np.bool_]:
    """The solver's ``allowed`` mask for ``ground``: the ground patterns only in the last row, and nowhere else.

    The ground windows are those whose top row is the sample's bottom row (periodic input and output,
    the reference's choice) or else those whose bottom row it is. A bounded output also refuses the
    windows that wrap past the sample's bottom: below the ground there is nothing.
    """
    h = indices.shape[0]
    if h < n or (not periodic_input and indices.shape[1] < n):
        raise ParameterError(f"ground needs a sample at least n x n = {n} x {n}, got {indices.shape[1]} x {h}")
    row = h - 1 if (periodic and periodic_input) else h - n
    ground = _windows_at(indices, patterns, n, [row], periodic_input)
    refused = ground.copy()
    if periodic_input and not periodic:
        refused |= _windows_at(indices, patterns, n, range(h - n + 1, h), periodic_input)
    allowed = np.broadcast_to(~refused, (*shape, len(patterns))).copy()
    allowed[-1] = ground
    return allowed


def read_sample(path: str | os.PathLike[str]) -> npt.NDArray[Any]:
    """A sample from a file: a PNG picture (:func:`read_png`: (h, w) grey, (h, w, 3) RGB or palette,
    (h, w, 4) RGBA uint8), or a ``.txt`` grid of digits (one row a line, blank lines and ``#``
    comments skipped) as an (h, w) int32 array; 1 to :data:`MAX_SAMPLE_SIDE` a side (a bigger PNG
    is refused from its header, before decompressing). Every error names the file; a bad row of a
    ``.txt`` names its line (1-based).

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "s.txt")
    ...     _ = open(p, "w").write("# two rows\\n012\\n210\\n")
    ...     read_sample(p).tolist()
    [[0, 1, 2], [2, 1, 0]]
    """
    path = pathlib.Path(path)
    name = f"sample {short(str(path))}"
    data = read_checked(path, name="sample", limit=MAX_FILE_BYTES)
    if path.suffix.lower() != ".txt":
        return check_sample(read_png(data, name=name, max_side=MAX_SAMPLE_SIDE), name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ParameterError(f"{name} is not UTF-8 text") from None
    lines = [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1)]
    lines = [(i, r) for i, r in lines if r and not r.startswith("#")]
    if not lines:
        raise ParameterError(f"{name} must be rows of digits of one length, got no row")
    first, top = lines[0]
    for i, r in lines:
        if len(r) != len(top):
            raise ParameterError(
                f"{name} must be rows of digits of one length: line {i} has {len(r)}, line {first} has {len(top)}"
            )
        if not (r.isascii() and r.isdigit()):
            raise ParameterError(f"{name} must hold only digits 0-9, got line {i}: {short(r)}")
    if not (len(lines) <= MAX_SAMPLE_SIDE and len(top) <= MAX_SAMPLE_SIDE):
        raise ParameterError(f"{name} must be 1 to {MAX_SAMPLE_SIDE} values a side, got {len(top)} x {len(lines)}")
    return np.array([[int(c) for c in r] for _, r in lines], dtype=np.int32)
