"""The overlapping model: N x N patterns of a sample and their overlaps, handed to the one solver.

The patterns, their weights and the overlap table come from :mod:`._patterns` (as in mxgmn's
``OverlappingModel.cs``); here the arguments are checked, the painted cells, the ground and the
constraints become the solver's ``allowed`` mask and constraint objects, and each output cell
shows the top-left value of its pattern (a bounded output's last rows and columns: the last
cells' whole windows).
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import check_bool, check_int
from ..errors import ParameterError, short
from ..steps import Steps, drive
from ._constraints import Connected, Constraint, Counts, check_bounds, check_points, painted_cells
from ._contract import Unsatisfied
from ._patterns import (
    check_sample,
    extract_patterns,
    ground_allowed,
    overlap_compatible,
    palette_indices,
    solver_order,
)
from ._solver import SolveResult, solve_steps

__all__ = [
    "overlapping",
    "overlapping_steps",
    "OverlappingResult",
]

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

    output: npt.NDArray[Any]
    attempts: int
    backtracks: int
    palette: npt.NDArray[Any]
    patterns: int


def overlapping(
    sample: npt.ArrayLike,
    width: int,
    height: int,
    *,
    n: int = 3,
    symmetry: int = 8,
    periodic: bool = True,
    periodic_input: bool = True,
    ground: bool = False,
    seed: int = 0,
    attempts: int = 10,
    backtrack_limit: int = 1000,
    connected: bool = False,
    walkable: Sequence[Any] | None = None,
    connect_points: Sequence[tuple[int, int]] = (),
    wrap: bool = True,
    counts: Mapping[Any, tuple[int, int | None]] | None = None,
    fixed: Mapping[tuple[int, int], Any] | None = None,
    accept: Callable[[npt.NDArray[Any]], object] | None = None,
    progress: Callable[[int, int, str], object] | None = None,
) -> OverlappingResult:
    """Grow an output in the style of a sample with the overlapping model of Wave Function Collapse.

    Parameters
    ----------
    sample : (h, w) int array, or (h, w, 3) RGB or (h, w, 4) RGBA uint8 image
        A small picture of the style, 1 to 256 values (pixels) a side. Every distinct value or
        colour (alpha included) is one value of the output; an RGBA sample gives an RGBA output.
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
        Attempt ``k`` solves with ``numpy.random.default_rng([seed, k])`` (see :func:`.solve`).
    attempts, backtrack_limit : int
        Passed to the solver: restarts, and backtracks per attempt.
    connected : bool
        The walkable cells of the output form one 4-connected region (across the edges when
        ``periodic``, unless ``wrap=False``).
    walkable : sequence of sample values, optional
        The values that are walkable (ints, or (r, g, b) colours of an image sample); default
        every value but the most common one on the sample's border (the wall). Used by
        ``connected`` (checked always).
    connect_points : sequence of (x, y)
        Output cells that must be walkable and in that region (needs ``connected``).
    wrap : bool
        With ``periodic``, whether paths of ``connected`` may cross the output's edges (default
        True); ``wrap=False`` asks for one region on the finite grid (:class:`Connected`'s ``wrap``).
    counts : dict, optional
        ``{sample value: (min, max)}`` (``max`` None: no bound): how many output cells may show
        the value. A minimum larger than the output fails at once.
    fixed : dict, optional
        ``{(x, y): sample value}``: painted output cells that must show the value.
    accept : callable, optional
        ``accept(output)`` is called with each solved output (as ``output`` of the result); raising
        :class:`Unsatisfied` (a flat output cell ``y * width + x`` and the reason) refuses it and
        the next attempt starts (:func:`.solve`'s ``accept``).
    progress : callable, optional
        ``progress(done, total, label)`` now and then (:func:`overlapping_steps` is the step
        generator behind it, for progress bars with cancel).

    Returns
    -------
    OverlappingResult
        ``output`` (height, width) like the sample (or (height, width, 3 or 4) for an RGB or RGBA
        image), ``attempts``,
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
            wrap=wrap,
            counts=counts,
            fixed=fixed,
            accept=accept,
        ),
        progress,
    )


def overlapping_steps(
    sample: npt.ArrayLike,
    width: int,
    height: int,
    *,
    n: int = 3,
    symmetry: int = 8,
    periodic: bool = True,
    periodic_input: bool = True,
    ground: bool = False,
    seed: int = 0,
    attempts: int = 10,
    backtrack_limit: int = 1000,
    connected: bool = False,
    walkable: Sequence[Any] | None = None,
    connect_points: Sequence[tuple[int, int]] = (),
    wrap: bool = True,
    counts: Mapping[Any, tuple[int, int | None]] | None = None,
    fixed: Mapping[tuple[int, int], Any] | None = None,
    accept: Callable[[npt.NDArray[Any]], object] | None = None,
) -> Steps[OverlappingResult]:
    """:func:`overlapping` as a step generator (:mod:`core.steps`): the arguments are checked and
    the patterns found at the call; the generator yields ``(done, total, label)`` while solving and
    returns the :class:`OverlappingResult`."""
    arr = check_sample(sample)
    n = check_int(n, name="n", bounds=(2, 3))
    symmetry = check_int(symmetry, name="symmetry", bounds=(1, 8))
    width = check_int(width, name="width", bounds=(n, MAX_SIDE))
    height = check_int(height, name="height", bounds=(n, MAX_SIDE))
    periodic = check_bool(periodic, name="periodic")
    periodic_input = check_bool(periodic_input, name="periodic_input")
    ground = check_bool(ground, name="ground")
    wrap = check_bool(wrap, name="wrap")
    seed = check_int(seed, name="seed", bounds=(0, 2**63 - 1))
    attempts = check_int(attempts, name="attempts", bounds=(1, 1000))
    backtrack_limit = check_int(backtrack_limit, name="backtrack_limit", bounds=(0, 10**7))

    palette, indices = palette_indices(arr)
    patterns, weights = extract_patterns(indices, n=n, symmetry=symmetry, periodic_input=periodic_input)
    order = solver_order(patterns)
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
        allowed = ground_allowed(indices, patterns, n, periodic, periodic_input, (solve_h, solve_w))
    if fixed is not None:
        allowed = _painted(fixed, palette, patterns, width, height, solve_w, solve_h, allowed)
    constraints: list[Constraint] = []
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
                walk[shown],
                solve_w,
                solve_h,
                points=connect_points,
                periodic=periodic,
                wrap=wrap,
                points_name="connect_points",
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

    if accept is not None and not callable(accept):
        raise ParameterError(f"accept must be a callable or None, got {type(accept).__name__}")
    grid = _Grid(patterns, palette, width, height, solve_w, solve_h, periodic)
    steps = solve_steps(
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
        accept=None if accept is None else grid.accept(accept),
    )
    return _grow(steps, grid, count)


def _grow(steps: Steps[SolveResult], grid: "_Grid", count: int) -> Steps[OverlappingResult]:
    result = yield from steps
    return OverlappingResult(
        output=grid.output(result.indices),
        attempts=result.attempts,
        backtracks=result.backtracks,
        palette=grid.palette,
        patterns=count,
    )


@dataclass(frozen=True)
class _Grid:
    """The output of the solver's pattern ids: the top-left value of each cell's pattern (a bounded
    output's last n - 1 rows and columns: the last cells' whole windows)."""

    patterns: npt.NDArray[np.int32]
    palette: npt.NDArray[Any]
    width: int
    height: int
    solve_w: int
    solve_h: int
    periodic: bool

    def output(self, indices: npt.NDArray[np.int32]) -> npt.NDArray[Any]:
        """The output (height, width) of sample values ((height, width, channels) of an image)."""
        cells = self.patterns[indices]  # (solve_h, solve_w, n, n)
        if self.periodic:
            out = cells[:, :, 0, 0]
        else:  # the last cells' patterns fill the last n - 1 rows and columns
            sh, sw = self.solve_h, self.solve_w
            out = np.empty((self.height, self.width), np.int32)
            out[:sh, :sw] = cells[:, :, 0, 0]
            out[sh:, :sw] = cells[-1, :, 1:, 0].T
            out[:sh, sw:] = cells[:, -1, 0, 1:]
            out[sh:, sw:] = cells[-1, -1, 1:, 1:]
        return self.palette[out]

    def accept(self, accept: Callable[[npt.NDArray[Any]], object]) -> Callable[[npt.NDArray[np.int32]], None]:
        """The solver's ``accept`` of the caller's ``accept(output)``: its refusal's output cell as
        the solver cell that shows it."""

        def on_indices(indices: npt.NDArray[np.int32]) -> None:
            try:
                accept(self.output(indices))
            except Unsatisfied as failure:
                y, x = divmod(int(failure.cell), self.width)
                cell = min(y, self.solve_h - 1) * self.solve_w + min(x, self.solve_w - 1)
                raise Unsatisfied(cell, failure.reason) from None

        return on_indices


def _painted(
    fixed: Mapping[tuple[int, int], Any],
    palette: npt.NDArray[Any],
    patterns: npt.NDArray[np.int32],
    width: int,
    height: int,
    solve_w: int,
    solve_h: int,
    allowed: npt.NDArray[np.bool_] | None,
) -> npt.NDArray[np.bool_]:
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


def _value_index(palette: npt.NDArray[Any], value: object, name: str) -> int:
    """Index in ``palette`` of a sample value (an int, or a colour of an image sample)."""
    if palette.ndim == 1:
        ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
        found = np.flatnonzero(palette == value) if ok else ()
    else:
        colour: npt.NDArray[Any]
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
    return int(found[0])  # type: ignore[misc]  # one found
