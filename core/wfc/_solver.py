"""The one WFC solver: argument checks, attempts with seeded restarts, observation and backtracking.

The wave and its propagation live in :mod:`._search` (one attempt's state), the packed pattern
sets, supports and entropies in :mod:`._rules`. Every cell's possible patterns are one packed
bitset (a Python integer of P bits); propagation narrows the neighbours of the cells whose set
shrank, touching only the cells that change.

Observation takes the lowest Shannon-entropy cell and collapses it to a weighted random
pattern (entropies from exact integer sums plus a seeded tie-break noise, then one ``argmin``).
Every change is logged (cell, old set), so a failed choice is undone exactly; the pattern is
then banned and the search goes on, up to ``backtrack_limit`` backtracks, after which the
attempt restarts with the next stream of the seed (attempt ``k``: ``default_rng([seed, k])``).

Extra constraints (connectivity, tile counts: :mod:`._constraints`) plug in through
``constraints``: objects with ``revise(wave, final)`` that see the wave as a read-only
``(cells, P)`` bool array and may narrow cells or raise :class:`~._contract.Unsatisfied`.
A rule about the whole output that no search can steer (the size of a level's walkable region)
plugs in through ``accept``: a solved grid it refuses counts as a failed attempt, and the next
attempt starts.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from functools import reduce
from operator import or_ as _or
from typing import TYPE_CHECKING, cast

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError
from ..steps import Progress, Steps, drive
from ._contract import Contradiction, Unsatisfied
from ._rules import Rules, pack
from ._search import Search

if TYPE_CHECKING:
    from ._constraints import Constraint

__all__ = ["solve", "solve_steps", "SolveResult", "OPPOSITE", "DX", "DY", "DZ", "MAX_CELLS", "solve_seconds"]

#: Most cells one solve takes: its wave, neighbours, undo log and entropies take about 1 KB a cell.
MAX_CELLS = 1 << 20
#: Most cells x patterns of a model's (cells, P) bool masks (the allowed patterns of every cell).
MAX_CELL_PATTERNS = 1 << 26

#: The cost model of one attempt (:func:`solve_seconds`), process CPU seconds: per cell, per cell and
#: pattern, and per cell squared with each global constraint (whose checks read the whole wave every
#: few choices). Fitted to solves of 64^2 to 256^2 cells, 10 to 419 patterns (bench/bench_wfc_cost.py).
SECONDS_PER_CELL = 8e-6
SECONDS_PER_CELL_PATTERN = 0.45e-6
SECONDS_PER_CELL_SQUARED = {"connected": 7e-9, "counts": 3e-9}

#: Offsets of the directions 0 east (+x), 1 south (+y, row + 1), 2 west, 3 north, 4 up (+z), 5 down.
DX = (1, 0, -1, 0, 0, 0)
DY = (0, 1, 0, -1, 0, 0)
DZ = (0, 0, 0, 0, 1, -1)
#: The direction opposite each direction.
OPPOSITE = (2, 3, 0, 1, 5, 4)


@dataclass(frozen=True)
class SolveResult:
    """A solved grid: ``indices`` (height, width) int32 pattern ids ((depth, height, width) in 3-D),
    the attempts made (1 = first try) and the backtracks of the successful attempt."""

    indices: npt.NDArray[np.int32]
    attempts: int
    backtracks: int


def _neighbours(width: int, height: int, depth: int, directions: int, periodic: bool) -> list[tuple[int, ...]]:
    """Per cell, the tuple of its neighbour per direction (``n``, the number of cells, off a
    bounded grid: the search's empty stand-in set). ``periodic`` wraps x and y (never z)."""
    n = width * height * depth
    z, rest = np.divmod(np.arange(n), width * height)
    y, x = np.divmod(rest, width)
    out = np.empty((n, directions), np.int64)
    for d in range(directions):
        nx, ny, nz = x + DX[d], y + DY[d], z + DZ[d]
        if periodic:
            nx, ny = nx % width, ny % height
        inside = (nx >= 0) & (nx < width) & (ny >= 0) & (ny < height) & (nz >= 0) & (nz < depth)
        out[:, d] = np.where(inside, (nz * height + ny) * width + nx, n)
    return list(zip(*out.T.tolist()))


def _is_int(value: object, low: int) -> bool | np.bool_:
    return not isinstance(value, bool) and isinstance(value, (int, np.integer)) and value >= low


def _check(
    weights: npt.ArrayLike,
    compatible: npt.ArrayLike,
    width: int,
    height: int,
    depth: int,
    seed: int,
    attempts: int,
    backtrack_limit: int,
    fixed: npt.ArrayLike | None,
    allowed: npt.ArrayLike | None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.int64] | None, npt.NDArray[np.bool_] | None]:
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 1 or weights.size == 0:
        raise ParameterError(f"weights must be a non-empty (P,) array, got shape {weights.shape}")
    if not (np.all(np.isfinite(weights)) and np.all(weights > 0)):
        raise ParameterError("weights must be finite and > 0")
    sizes = (("width", width, 1), ("height", height, 1), ("depth", depth, 1), ("attempts", attempts, 1))
    for name, value, low in sizes:
        if not _is_int(value, low):
            raise ParameterError(f"{name} must be an integer >= {low}, got {value!r}")
    check_cells(width, height, depth)
    if not _is_int(seed, 0) or seed > 2**63 - 1:
        raise ParameterError(f"seed must be an integer in [0, {2**63 - 1}], got {seed!r}")
    if not _is_int(backtrack_limit, 0):
        raise ParameterError(f"backtrack_limit must be an integer >= 0, got {backtrack_limit!r}")
    p = weights.size
    compatible = np.asarray(compatible, dtype=bool)
    shapes = ((4, p, p), (6, p, p)) if depth == 1 else ((6, p, p),)
    if compatible.shape not in shapes:
        wanted = " or ".join(str(s) for s in shapes)
        raise ParameterError(f"compatible must have shape {wanted}, got {compatible.shape}")
    opposite = list(OPPOSITE[: compatible.shape[0]])
    if not np.array_equal(compatible, compatible[opposite].transpose(0, 2, 1)):
        raise ParameterError(
            "compatible must be symmetric: compatible[d, p, q] == compatible[opposite(d), q, p]"
            " (opposites 0-2, 1-3, 4-5)"
        )
    grid = (height, width) if depth == 1 else (depth, height, width)
    if fixed is not None:
        fixed = np.asarray(fixed)
        if fixed.shape != grid or not np.issubdtype(fixed.dtype, np.integer):
            raise ParameterError(f"fixed must be an integer {grid} array, got {fixed.dtype} {fixed.shape}")
        if fixed.size and (fixed.min() < -1 or fixed.max() >= p):
            raise ParameterError(f"fixed must hold -1 or pattern ids in [0, {p}), got {fixed.min()}..{fixed.max()}")
    if allowed is not None:
        allowed = np.asarray(allowed)
        if allowed.shape != (*grid, p) or allowed.dtype != bool:
            raise ParameterError(f"allowed must be a bool {(*grid, p)} array, got {allowed.dtype} {allowed.shape}")
    return weights, compatible, fixed, allowed


def check_cells(width: int, height: int, depth: int = 1, patterns: int | None = None) -> int:
    """Refuse a grid of more than :data:`MAX_CELLS` cells (sides already checked to be ints >= 1),
    or with ``patterns`` one whose (cells, patterns) bool mask would pass :data:`MAX_CELL_PATTERNS`:
    a :class:`ParameterError` naming the sizes and the limit, before anything is allocated.

    >>> check_cells(64, 64, 8, patterns=47)
    32768
    >>> try:
    ...     check_cells(4096, 4096, 4096)
    ... except ParameterError as err:
    ...     print(str(err)[:80])
    width x height x depth = 4096 x 4096 x 4096 = 68,719,476,736 cells, more than th
    """
    cells = int(width) * int(height) * int(depth)
    names = "width x height" + (" x depth" if depth > 1 else "")
    size = f"{width} x {height}" + (f" x {depth}" if depth > 1 else "")
    if cells > MAX_CELLS:
        raise ParameterError(
            f"{names} = {size} = {cells:,} cells, more than the {MAX_CELLS:,} the solver takes"
            " (about 1 KB of memory a cell): solve a smaller grid"
        )
    if patterns is not None and cells * int(patterns) > MAX_CELL_PATTERNS:
        raise ParameterError(
            f"{names} = {size} = {cells:,} cells with {int(patterns):,} tile variants is "
            f"{cells * int(patterns):,} cell-patterns, more than the {MAX_CELL_PATTERNS:,} the solver"
            " holds (one byte each): solve a smaller grid or use fewer tiles"
        )
    return cells


def solve_seconds(cells: int, patterns: int, *, connected: bool = False, counts: bool = False) -> float:
    """About how many seconds of CPU one attempt of a solve of ``cells`` cells with ``patterns``
    patterns takes (the machine of the bench; a solve that backtracks or restarts takes longer):
    ``cells x (SECONDS_PER_CELL + patterns x SECONDS_PER_CELL_PATTERN)``, plus ``cells**2`` times
    :data:`SECONDS_PER_CELL_SQUARED` of each global constraint asked for (``connected``, ``counts``).
    Measured against it (bench/bench_wfc_cost.py, process CPU at load 11-13): 0.5x to 1.1x at 256^2
    without constraints (pipes, roads, dungeon, blocks3d, flowers, rooms, hills, town; 1024^2 pipes
    took 14 s, the model says 16 s), 0.4x to 0.9x at 256^2 with connected or counts (up to 1.75x at
    64^2, where a few backtracks weigh more).

    >>> round(solve_seconds(1024 * 1024, 16)), round(solve_seconds(256 * 256, 32, connected=True))
    (16, 32)
    """
    cells = int(cells)
    seconds = cells * (SECONDS_PER_CELL + int(patterns) * SECONDS_PER_CELL_PATTERN)
    for name, asked in (("connected", connected), ("counts", counts)):
        if asked:
            seconds += cells * cells * SECONDS_PER_CELL_SQUARED[name]
    return seconds


def _cell_xy(cell: int, width: int, height: int, depth: int) -> tuple[int, ...]:
    z, rest = divmod(int(cell), width * height)
    y, x = divmod(rest, width)
    return (x, y) if depth == 1 else (x, y, z)


def solve(
    weights: npt.ArrayLike,
    compatible: npt.ArrayLike,
    width: int,
    height: int,
    *,
    depth: int = 1,
    periodic: bool = False,
    seed: int = 0,
    attempts: int = 10,
    backtrack_limit: int = 1000,
    fixed: npt.ArrayLike | None = None,
    allowed: npt.ArrayLike | None = None,
    constraints: Sequence[Constraint] = (),
    accept: Callable[[npt.NDArray[np.int32]], object] | None = None,
    progress: Callable[[int, int, str], object] | None = None,
) -> SolveResult:
    """Fill a ``height`` x ``width`` grid (``depth`` layers of it in 3-D) with patterns so that
    every neighbouring pair is compatible.

    Parameters
    ----------
    weights : (P,) float
        Relative frequency of each pattern, > 0.
    compatible : (4, P, P) or (6, P, P) bool
        ``compatible[d, p, q]``: pattern ``q`` may sit next to ``p`` in direction ``d``
        (0 east +x, 1 south +y = row + 1, 2 west, 3 north, 4 up +z, 5 down); symmetric under
        ``compatible[OPPOSITE[d]].T``. Six directions are needed when ``depth > 1``.
    width, height, depth : int
        Grid size in cells.
    periodic : bool
        Wrap around the x and y edges (never z).
    seed : int
        Attempt ``k`` (0-based) uses ``numpy.random.default_rng([seed, k])``: every
        (seed, attempt) pair has its own stream, so neighbouring seeds never share an attempt.
    attempts : int
        Restarts allowed before giving up.
    backtrack_limit : int
        Backtracks allowed per attempt (0: restart at the first contradiction).
    fixed : (height, width) int, optional
        -1 for a free cell, else the pattern the cell must hold ((depth, height, width) in 3-D).
    allowed : (height, width, P) bool, optional
        Patterns each cell may hold ((depth, height, width, P) in 3-D).
    constraints : sequence
        Objects with ``revise(wave, final)`` (see the module docstring).
    accept : callable, optional
        ``accept(indices)`` is called with each solved grid (the ``indices`` of the result) and
        returns nothing to take it, or raises :class:`~._contract.Unsatisfied` (the flat index of a
        cell and the reason) to refuse it: the attempt counts as failed and the next one starts
        (its own stream, as always). When the last attempt's grid is refused, the
        :class:`Contradiction` quotes the reason; else it counts the refusals and quotes the last.
    progress : callable, optional
        ``progress(decided_cells, cells, label)`` now and then.

    Returns
    -------
    SolveResult

    Raises
    ------
    Contradiction
        No output within the attempts (or none that ``accept`` takes), or the fixed/allowed cells
        contradict the rules (at once).

    Examples
    --------
    >>> same = np.ones((4, 2, 2), bool)
    >>> stripes = np.zeros((4, 2, 2), bool)
    >>> stripes[[0, 2]] = np.eye(2, dtype=bool)  # east-west: same pattern
    >>> stripes[[1, 3]] = ~np.eye(2, dtype=bool)  # north-south: the other one
    >>> solve([1.0, 1.0], stripes, 3, 2, fixed=[[0, -1, -1], [-1, -1, -1]]).indices.tolist()
    [[0, 0, 0], [1, 1, 1]]
    """
    steps = solve_steps(
        weights,
        compatible,
        width,
        height,
        depth=depth,
        periodic=periodic,
        seed=seed,
        attempts=attempts,
        backtrack_limit=backtrack_limit,
        fixed=fixed,
        allowed=allowed,
        constraints=constraints,
        accept=accept,
    )
    return drive(steps, progress)


def solve_steps(
    weights: npt.ArrayLike,
    compatible: npt.ArrayLike,
    width: int,
    height: int,
    *,
    depth: int = 1,
    periodic: bool = False,
    seed: int = 0,
    attempts: int = 10,
    backtrack_limit: int = 1000,
    fixed: npt.ArrayLike | None = None,
    allowed: npt.ArrayLike | None = None,
    constraints: Sequence[Constraint] = (),
    accept: Callable[[npt.NDArray[np.int32]], object] | None = None,
) -> Steps[SolveResult]:
    """:func:`solve` as a step generator (:mod:`core.steps`): the arguments are checked at the call;
    it yields ``(decided_cells, cells, label)`` about a hundred times per attempt and returns the
    :class:`SolveResult`.

    >>> from core.steps import drive
    >>> drive(solve_steps([1.0], np.ones((4, 1, 1), bool), 2, 2)).indices.tolist()
    [[0, 0], [0, 0]]
    """
    weights, compatible, fixed, allowed = _check(
        weights, compatible, width, height, depth, seed, attempts, backtrack_limit, fixed, allowed
    )
    if accept is not None and not callable(accept):
        raise ParameterError(f"accept must be a callable or None, got {type(accept).__name__}")
    return _solve(
        weights,
        compatible,
        width,
        height,
        depth,
        periodic,
        seed,
        attempts,
        backtrack_limit,
        fixed,
        allowed,
        tuple(constraints),
        accept,
    )


def _solve(
    weights: npt.NDArray[np.float64],
    compatible: npt.NDArray[np.bool_],
    width: int,
    height: int,
    depth: int,
    periodic: bool,
    seed: int,
    attempts: int,
    backtrack_limit: int,
    fixed: npt.NDArray[np.int64] | None,
    allowed: npt.NDArray[np.bool_] | None,
    constraints: Sequence[Constraint],
    accept: Callable[[npt.NDArray[np.int32]], object] | None = None,
) -> Steps[SolveResult]:
    """The body of :func:`solve_steps` (a generator), its arguments checked."""
    p, n = weights.size, width * height * depth
    rules = Rules(weights, compatible)
    nbrs = _neighbours(width, height, depth, compatible.shape[0], periodic)
    if allowed is not None or fixed is not None:
        start = np.ones((n, p), bool)
        if allowed is not None:
            start &= allowed.reshape(n, p)
        if fixed is not None:
            flat = fixed.ravel()
            pinned = np.flatnonzero(flat >= 0)
            hold = start[pinned, flat[pinned]]
            start[pinned] = False
            start[pinned, flat[pinned]] = hold
        wave0 = pack(start)
    else:
        wave0 = [rules.full] * n
    state = Search(rules, nbrs, wave0, [0.0] * n, constraints, consistent=False)
    uniform = allowed is None and fixed is None
    empty = -1 if uniform else next((c for c, m in enumerate(wave0) if not m), -1)
    if empty >= 0:
        failed = empty
    elif uniform and not constraints and reduce(_or, rules.support_rows) == (1 << p * rules.directions) - 1:
        failed = -1  # every pattern has a neighbour every way: the full start wave is already consistent
    else:
        failed = state.propagate(list(range(n)))
    if failed >= 0:
        xy = _cell_xy(failed, width, height, depth)
        raise Contradiction(
            f"cell {xy} fails before any choice: {state.reason}"
            if state.reason
            else f"no pattern fits cell {xy} before any choice: the rules contradict themselves"
            " or the fixed/allowed cells",
            cell=_cell_xy(failed, width, height, depth),
            attempts=1,
        )
    wave0 = state.wave[:n]
    every = max(1, n // 100)
    refused, refusals = None, 0  # the last refusal of accept, and how many there were
    for k in range(attempts):
        rng = np.random.default_rng([seed, k])  # attempt k of seed s: its own stream, never seed s + 1's
        noise = (rng.random(n) * 1e-6).tolist()  # seeded tie-break among equal entropies
        state = Search(rules, nbrs, list(wave0), noise, constraints)
        outcome = yield from _attempt(state, rng, backtrack_limit, every, f"attempt {k + 1}")
        solved = isinstance(outcome, int)
        if solved:
            indices = np.array([m.bit_length() - 1 for m in state.wave[:n]], np.int32)
            shape = (height, width) if depth == 1 else (depth, height, width)
            indices = indices.reshape(shape)
            try:
                if accept is not None:
                    accept(indices)
            except Unsatisfied as failure:
                refused, refusals = failure, refusals + 1
            else:
                return SolveResult(indices=indices, attempts=k + 1, backtracks=cast(int, outcome))
            continue
        last, exhausted = cast("tuple[int, bool]", outcome)  # not solved
        if exhausted:  # the whole search tree failed: more seeds cannot help
            break
    if solved:  # the last attempt solved the grid, and accept refused it
        assert refused is not None
        raise Contradiction(
            f"{refused.reason} (after {k + 1} attempt(s))",
            cell=_cell_xy(refused.cell, width, height, depth),
            attempts=k + 1,
        )
    xy = _cell_xy(last, width, height, depth)
    why = f": {state.reason}" if state.reason else " next to its neighbours"
    held = f"; constraints: {'; '.join(str(c) for c in constraints)}" if constraints else ""
    if refusals:
        assert refused is not None
        held += f"; {refusals} solved grid(s) refused, the last: {refused.reason}"
    raise Contradiction(
        f"no pattern fits cell {xy}{why} after {k + 1} attempt(s)"
        f" with backtrack_limit={backtrack_limit}" + (" (no tiling exists)" if exhausted else "") + held,
        cell=xy,
        attempts=k + 1,
    )


def _attempt(
    state: Search, rng: np.random.Generator, backtrack_limit: int, every: int, label: str
) -> Generator[Progress, None, int | tuple[int, bool]]:
    """Run one attempt (a step generator): backtracks (int) on success, else (cell, exhausted)."""
    pick, lowest, narrow, propagate = state.rules.pick, state.lowest, state.narrow, state.propagate
    wave, log = state.wave, state.log
    stack: list[tuple[int, int, int]] = []  # (log mark, cell, pattern)
    backtracks = observed = 0
    randoms, used = rng.random(state.n + 64).tolist(), 0
    while True:
        cell = lowest()
        if cell < 0:
            return backtracks
        observed += 1
        if observed % every == 0:
            yield state.decided, state.n, label
        if used == len(randoms):
            randoms, used = rng.random(state.n + 64).tolist(), 0
        pattern = pick(wave[cell], randoms[used])
        used += 1
        stack.append((len(log), cell, pattern))
        state.reason = None
        narrow(cell, 1 << pattern)
        failed = propagate([cell])
        if failed < 0:
            continue
        # backtrack: undo the choice, ban it, propagate; on failure go one level up
        while True:
            if not stack:
                return failed, True
            if backtracks >= backtrack_limit:
                return failed, False
            backtracks += 1
            mark, cell, pattern = stack.pop()
            state.undo(mark)
            state.reason = None
            banned = state.wave[cell] & ~(1 << pattern)
            if not banned:
                failed = cell
                continue
            state.narrow(cell, banned)
            failed = state.propagate([cell])
            if failed < 0:
                break
