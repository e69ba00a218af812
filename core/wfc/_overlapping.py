"""The overlapping model: N x N patterns of a sample and their overlaps, handed to the one solver.

As in the reference implementation (mxgmn's ``OverlappingModel.cs``): every N x N window of the
sample (wrapping round when the input is periodic) and its dihedral variants in the reference's
order (identity, reflection, rotation, its reflection, ... ``symmetry`` of them) is a pattern
weighted by how often it occurs; pattern ``q`` may sit one step from ``p`` in a direction when the
two agree where they overlap. Each output cell shows the top-left value of its pattern. Extraction
and the overlap table are whole-array numpy work (sliding windows, ``np.unique`` on rows).
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass

import numpy as np

from .._checks import check_bool, check_int
from ..errors import ParameterError, short
from ..steps import drive
from ._constraints import Connected, Counts, check_bounds, check_points, painted_cells
from ._png import read_png
from ._solver import solve_steps

__all__ = [
    "overlapping",
    "overlapping_steps",
    "OverlappingResult",
    "extract_patterns",
    "overlap_compatible",
    "read_sample",
]

#: Largest sample side: a sample is a small picture of the style wanted.
MAX_SAMPLE_SIDE = 256
#: Most patterns a sample may give (the overlap table is 4 x P x P).
MAX_PATTERNS = 2048
#: Most cells x patterns of the wave (the solver keeps a few arrays of that size).
MAX_WAVE = 2**26
#: Largest output side.
MAX_SIDE = 4096
#: Offsets (dx, dy) of the directions 0 east (+x), 1 south (+y, row + 1), 2 west, 3 north.
DX = (1, 0, -1, 0)
DY = (0, 1, 0, -1)


@dataclass(frozen=True)
class OverlappingResult:
    """An overlapping-model output.

    ``output`` is (height, width) of the sample's dtype, or (height, width, channels) uint8 for an
    image sample; ``palette`` the distinct sample values, sorted ((C,) or (C, channels));
    ``attempts`` and ``backtracks`` the solver's counters; ``patterns`` how many patterns there were.
    """

    output: np.ndarray
    attempts: int
    backtracks: int
    palette: np.ndarray
    patterns: int


def _check_sample(sample):
    arr = np.asarray(sample)
    image = arr.ndim == 3 and arr.dtype == np.uint8 and arr.shape[2] in (3, 4)
    if not (image or (arr.ndim == 2 and arr.dtype.kind in "iu")):
        raise ParameterError(
            f"sample must be an (h, w) integer array or an (h, w, 3) uint8 image, got {arr.dtype} {arr.shape}"
        )
    h, w = arr.shape[:2]
    if not (1 <= h <= MAX_SAMPLE_SIDE and 1 <= w <= MAX_SAMPLE_SIDE):
        raise ParameterError(f"sample must be 1 to {MAX_SAMPLE_SIDE} values a side, got {w} x {h}")
    return arr


def _palette(arr):
    """(palette, (h, w) int32 indices into it): the distinct values, sorted."""
    if arr.ndim == 2:
        palette, inverse = np.unique(arr, return_inverse=True)
    else:
        palette, inverse = np.unique(arr.reshape(-1, arr.shape[2]), axis=0, return_inverse=True)
    return palette, inverse.reshape(arr.shape[:2]).astype(np.int32)


def _variants(windows):
    """The 8 dihedral variants of (..., N, N) windows [y, x], stacked on a new axis -3 in the reference's
    order: ps[0] itself, then alternately ``reflect`` (x mirrored) and ``rotate`` (a quarter turn)."""

    def reflect(p):
        return p[..., :, ::-1]

    def rotate(p):  # the reference's rotate: result[y, x] = p[x, N - 1 - y]
        return np.rot90(p, axes=(-2, -1))

    ps = [windows]
    for k in range(1, 8):
        ps.append(reflect(ps[k - 1]) if k % 2 else rotate(ps[k - 2]))
    return np.stack(ps, axis=-3)


def extract_patterns(indices, *, n=3, symmetry=8, periodic_input=True):
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
    unique, first, counts = np.unique(rows, axis=0, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    return unique[order].reshape(-1, n, n), counts[order].astype(np.float64)


def overlap_compatible(patterns):
    """``compatible[d, p, q]``: pattern ``q`` one step from ``p`` in direction ``d`` agrees with it where they overlap.

    Directions 0 east (+x), 1 south (+y), 2 west, 3 north. Whole-array work: each pattern's overlap
    strips are numbered with ``np.unique`` and the table is one comparison of those numbers.

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
    ids = np.unique(flat, axis=0, return_inverse=True)[1].reshape(4, count)
    east = ids[0][:, None] == ids[1][None, :]
    south = ids[2][:, None] == ids[3][None, :]
    return np.stack([east, south, east.T, south.T])


def _solver_order(patterns):
    """The order the solver gets the patterns in: sorted by their values column by column (the
    left column first). The solver's cost is per distinct 64-pattern block of a cell's set, and
    the sets a search meets (patterns that agree with a decided neighbour on a strip) then gather
    in fewer blocks; the output is just as valid, only other choices follow from a seed."""
    count, n = patterns.shape[:2]
    columns = patterns.transpose(0, 2, 1).reshape(count, n * n)  # [x, y]: column-major
    return np.lexsort(columns.T[::-1])


def _windows_at(indices, patterns, n, ys, periodic_input):
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


def _ground(indices, patterns, n, periodic, periodic_input, shape):
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


def overlapping(
    sample,
    width,
    height,
    *,
    n=3,
    symmetry=8,
    periodic=True,
    periodic_input=True,
    ground=False,
    seed=0,
    attempts=10,
    backtrack_limit=1000,
    connected=False,
    walkable=None,
    connect_points=(),
    counts=None,
    fixed=None,
    progress=None,
):
    """Grow an output in the style of a sample with the overlapping model of Wave Function Collapse.

    Parameters
    ----------
    sample : (h, w) int array or (h, w, 3) uint8 image
        A small picture of the style (sides 1 to 256; RGBA (h, w, 4) images too).
    width, height : int
        Output size in cells (at least ``n``).
    n : {2, 3}
        Pattern side.
    symmetry : int in [1, 8]
        How many dihedral variants of each window count (1 the window only, 2 with its mirror, 8 all).
    periodic : bool
        The output wraps round (every window of it, wrapping, is a pattern); otherwise its edges are
        the edges of patterns.
    periodic_input : bool
        The sample's windows wrap round its edges.
    ground : bool
        Pin the sample's bottom to the output's bottom: the patterns of the last row of sample windows
        hold the output's last row of cells, and no other cell. With periodic input and output that
        is the windows whose top row is the sample's bottom row (the reference's ground pattern);
        otherwise the windows whose bottom row it is (and a bounded output refuses windows that
        wrap past the sample's bottom).
    seed : int
        Attempt ``k`` solves with ``seed + k``.
    attempts, backtrack_limit : int
        Passed to the solver: restarts, and backtracks per attempt.
    connected : bool
        The walkable cells of the output form one 4-connected region (across the edges when
        ``periodic``).
    walkable : sequence of sample values, optional
        The values that are walkable (ints, or (r, g, b) colours of an image sample); default
        every value but the most common one on the sample's border (the wall). Used by
        ``connected`` (checked always).
    connect_points : sequence of (x, y)
        Output cells that must be walkable and in that region (needs ``connected``).
    counts : dict, optional
        ``{sample value: (min, max)}`` (``max`` None: no bound): how many output cells may show
        the value. A minimum larger than the output fails at once.
    fixed : dict, optional
        ``{(x, y): sample value}``: painted output cells that must show the value.
    progress : callable, optional
        ``progress(done, total, label)`` now and then (:func:`overlapping_steps` is the step
        generator behind it, for progress bars with cancel).

    Returns
    -------
    OverlappingResult
        ``output`` (height, width) like the sample (or (height, width, 3) for an image), ``attempts``,
        ``backtracks``, ``palette`` and the number of ``patterns``.

    Raises
    ------
    Contradiction
        No output found within ``attempts``; it names the cell.

    >>> r = overlapping(np.array([[0, 0, 1], [0, 0, 1], [1, 1, 1]]), 6, 6, n=2, symmetry=1)
    >>> r.output.shape, r.palette.tolist(), r.patterns
    ((6, 6), [0, 1], 9)
    """
    return drive(
        overlapping_steps(
            sample,
            width,
            height,
            n=n,
            symmetry=symmetry,
            periodic=periodic,
            periodic_input=periodic_input,
            ground=ground,
            seed=seed,
            attempts=attempts,
            backtrack_limit=backtrack_limit,
            connected=connected,
            walkable=walkable,
            connect_points=connect_points,
            counts=counts,
            fixed=fixed,
        ),
        progress,
    )


def overlapping_steps(
    sample,
    width,
    height,
    *,
    n=3,
    symmetry=8,
    periodic=True,
    periodic_input=True,
    ground=False,
    seed=0,
    attempts=10,
    backtrack_limit=1000,
    connected=False,
    walkable=None,
    connect_points=(),
    counts=None,
    fixed=None,
):
    """:func:`overlapping` as a step generator (:mod:`core.steps`): the arguments are checked and
    the patterns found at the call; the generator yields ``(done, total, label)`` while solving and
    returns the :class:`OverlappingResult`."""
    arr = _check_sample(sample)
    n = check_int(n, name="n", bounds=(2, 3))
    symmetry = check_int(symmetry, name="symmetry", bounds=(1, 8))
    width = check_int(width, name="width", bounds=(n, MAX_SIDE))
    height = check_int(height, name="height", bounds=(n, MAX_SIDE))
    periodic = check_bool(periodic, name="periodic")
    periodic_input = check_bool(periodic_input, name="periodic_input")
    ground = check_bool(ground, name="ground")
    seed = check_int(seed, name="seed", bounds=(0, 2**63 - 1))
    attempts = check_int(attempts, name="attempts", bounds=(1, 1000))
    backtrack_limit = check_int(backtrack_limit, name="backtrack_limit", bounds=(0, 10**7))

    palette, indices = _palette(arr)
    patterns, weights = extract_patterns(indices, n=n, symmetry=symmetry, periodic_input=periodic_input)
    order = _solver_order(patterns)
    patterns, weights = patterns[order], weights[order]
    count = len(patterns)
    if count > MAX_PATTERNS:
        raise ParameterError(
            f"sample gives {count:,} patterns of {n} x {n} with symmetry {symmetry}, more than the "
            f"{MAX_PATTERNS:,} allowed: use a smaller or plainer sample, or a smaller n or symmetry"
        )
    solve_w, solve_h = (width, height) if periodic else (width - n + 1, height - n + 1)
    if solve_w * solve_h * count > MAX_WAVE:
        raise ParameterError(
            f"width x height {width} x {height} with {count:,} patterns is more than the {MAX_WAVE:,} "
            "cell-patterns the solver may hold: make the output or the sample smaller"
        )
    allowed = None
    if ground:
        allowed = _ground(indices, patterns, n, periodic, periodic_input, (solve_h, solve_w))
    if fixed is not None:
        allowed = _painted(fixed, palette, patterns, width, height, solve_w, solve_h, allowed)
    constraints = []
    # the value each pattern shows in the output: its top-left one, or with a bounded output the
    # whole window for the last row and column (the constraints read (P, n, n) windows then)
    shown = patterns[:, :1, :1].reshape(-1) if periodic else patterns
    walk = None
    if walkable is not None:  # checked even unused: a typo should not wait for connected=True
        walk = np.zeros(len(palette), bool)
        if isinstance(walkable, (str, bytes)) or not hasattr(walkable, "__iter__"):
            raise ParameterError(f"walkable must be a sequence of sample values, got {short(walkable)}")
        for value in walkable:
            walk[_value_index(palette, value, "walkable")] = True
    if check_points(connected, connect_points):
        if walk is None:  # every value but the most common one on the sample's border
            walk = np.ones(len(palette), bool)
            border = np.concatenate([indices[0], indices[-1], indices[:, 0], indices[:, -1]])
            walk[np.bincount(border).argmax()] = False
        constraints.append(
            Connected(
                walk[shown], solve_w, solve_h, points=connect_points, periodic=periodic, points_name="connect_points"
            )
        )
    if counts is not None:
        if not isinstance(counts, dict):
            raise ParameterError(f"counts must be a dict {{sample value: (min, max)}}, got {short(counts)}")
        limits, names = {}, {}
        for value, bounds in counts.items():
            i = _value_index(palette, value, "counts")
            limits[i] = check_bounds(bounds, f"counts[{value!r}]")
            names[i] = f"value {value!r}"
        if limits:
            constraints.append(Counts(shown, limits, solve_w, solve_h, names=names))

    return _grow(
        weights,
        patterns,
        palette,
        count,
        width,
        height,
        solve_w,
        solve_h,
        periodic,
        seed,
        attempts,
        backtrack_limit,
        allowed,
        constraints,
    )


def _grow(
    weights,
    patterns,
    palette,
    count,
    width,
    height,
    solve_w,
    solve_h,
    periodic,
    seed,
    attempts,
    backtrack_limit,
    allowed,
    constraints,
):
    result = yield from solve_steps(
        weights,
        overlap_compatible(patterns),
        solve_w,
        solve_h,
        periodic=periodic,
        seed=seed,
        attempts=attempts,
        backtrack_limit=backtrack_limit,
        allowed=allowed,
        constraints=constraints,
    )
    cells = patterns[result.indices]  # (solve_h, solve_w, n, n)
    if periodic:
        out = cells[:, :, 0, 0]
    else:  # the last cells' patterns fill the last n - 1 rows and columns
        out = np.empty((height, width), np.int32)
        out[:solve_h, :solve_w] = cells[:, :, 0, 0]
        out[solve_h:, :solve_w] = cells[-1, :, 1:, 0].T
        out[:solve_h, solve_w:] = cells[:, -1, 0, 1:]
        out[solve_h:, solve_w:] = cells[-1, -1, 1:, 1:]
    return OverlappingResult(
        output=palette[out],
        attempts=result.attempts,
        backtracks=result.backtracks,
        palette=palette,
        patterns=count,
    )


def _painted(fixed, palette, patterns, width, height, solve_w, solve_h, allowed):
    """The solver's ``allowed`` mask with the painted cells of ``fixed`` ``{(x, y): value}``: the
    solver cell covering output cell (x, y) keeps the patterns that show the value there (a
    bounded output's last n - 1 rows and columns are shown by the last cells' windows)."""
    cells = painted_cells(fixed, width, height, "sample value")
    if allowed is None:
        allowed = np.ones((solve_h, solve_w, len(patterns)), bool)
    for (x, y), value in cells:
        k = _value_index(palette, value, f"fixed[{(x, y)}]")
        sx, sy = min(x, solve_w - 1), min(y, solve_h - 1)
        allowed[sy, sx] &= patterns[:, y - sy, x - sx] == k
    return allowed


def _value_index(palette, value, name):
    """Index in ``palette`` of a sample value (an int, or a colour of an image sample)."""
    if palette.ndim == 1:
        ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
        found = np.flatnonzero(palette == value) if ok else ()
    else:
        try:
            colour = np.array(value, dtype=np.int64)
        except (TypeError, ValueError, OverflowError):
            colour = np.zeros(0)
        ok = colour.shape == palette.shape[1:]
        found = np.flatnonzero((palette == colour).all(1)) if ok else ()
    if len(found) != 1:
        kind = "values" if palette.ndim == 1 else "colours"
        shown = ", ".join(str(v.tolist()) for v in palette[:16]) + (", ..." if len(palette) > 16 else "")
        raise ParameterError(f"{name}: {short(value)} is not a value of the sample (its {kind}: {shown})")
    return int(found[0])


def read_sample(path):
    """A sample from a file: a PNG picture (:func:`read_png`), or a ``.txt`` grid of digits (one row a line,
    blank lines and ``#`` comments skipped) as an (h, w) int32 array.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "s.txt")
    ...     _ = open(p, "w").write("# two rows\\n012\\n210\\n")
    ...     read_sample(p).tolist()
    [[0, 1, 2], [2, 1, 0]]
    """
    path = pathlib.Path(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ParameterError(f"sample {short(str(path))} cannot be read: {err.strerror or err}") from None
    if path.suffix.lower() != ".txt":
        return read_png(data, name=f"sample {short(str(path))}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ParameterError(f"sample {short(str(path))} is not UTF-8 text") from None
    rows = [line.strip() for line in text.splitlines()]
    rows = [r for r in rows if r and not r.startswith("#")]
    if not rows or any(len(r) != len(rows[0]) for r in rows):
        raise ParameterError(f"sample {short(str(path))} must be rows of digits of one length")
    if not all(r.isascii() and r.isdigit() for r in rows):
        bad = next(r for r in rows if not (r.isascii() and r.isdigit()))
        raise ParameterError(f"sample {short(str(path))} must hold only digits 0-9, got the row {short(bad)}")
    return np.array([[int(c) for c in r] for r in rows], dtype=np.int32)
