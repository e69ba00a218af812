"""Global constraints of the WFC solver: path connectivity and per-value counts.

A constraint is an object with ``revise(wave, final)`` (the protocol of :func:`core.wfc.solve`'s
``constraints=``): it reads the ``(cells, P)`` bool wave, returns ``None`` or ``(cells, rows)``
narrower rows for the solver to apply and propagate, or raises :class:`Unsatisfied` when the
constraint can no longer hold (the solver then backtracks). Both constraints here only ever remove
patterns that cannot appear in any output satisfying them (sound pruning), so they never lose a
solution; the full check runs at least on the final wave, so an accepted output always satisfies
them.

**Cells and nodes.** The constraints speak about the cells of the *output* ("nodes"). For the
solver's own grid (the tiled model, a periodic overlapping output) a node is a solver cell and its
value is a function of the cell's pattern: ``(P,)`` per pattern. A bounded overlapping output is
``n - 1`` cells wider and taller than the solver's grid: the last row and column of patterns also
show their other rows and columns. Passing a per-pattern window ``(P, n, n)`` instead of ``(P,)``
makes the nodes that output: node ``(x, y)`` reads offset ``(x - cx, y - cy)`` of the pattern at
solver cell ``(cx, cy) = (min(x, width - 1), min(y, height - 1))``.

**Cost.** The solver calls ``revise`` after every observation; the full checks read the whole
wave, so they run every ``min(4, max(1, cells // 512))`` calls (and always on the first call, on
the final wave, and after a failed call). Skipping a check only delays pruning, never accepts a bad
output. A connectivity check that sees the same possibly/surely walkable cells as the last one
that passed is skipped; one that only lost cells since tests the box round them; the search for
cells that must be walkable looks round the cells that changed.
"""

from collections.abc import Mapping, Sequence
from typing import Any, NoReturn, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from .._checks import check_bool
from ..errors import ParameterError, short
from ._contract import Unsatisfied
from ._nodes import Change, Nodes, components, merge_changes

T = TypeVar("T")


class Constraint(Protocol):
    """A global constraint of the solver (:class:`Connected`, :class:`Counts`)."""

    def revise(self, wave: npt.NDArray[np.bool_], final: bool) -> Change | None: ...


__all__ = ["painted_cells", "Connected", "Counts", "Unsatisfied", "check_bounds", "check_points"]

#: A full check every ``min(MAX_EVERY, max(1, cells // CHECK_CELLS))`` calls of ``revise``: a check
#: costs about a cell's share of the grid, but a failure found ``k`` calls late costs about ``k / 2``
#: backtracks, which add up on big grids (dungeon 128 x 128: 70 backtracks checking every 2 calls,
#: 210 every 4, 10 failed attempts every 64).
CHECK_CELLS = 512
MAX_EVERY = 4
#: Most labellings :class:`Connected` spends per check looking for cells that must be walkable.
BRIDGE_TESTS = 30


class _Throttle:
    """Counts calls of ``revise``: a full check on the first call, every ``every`` calls, on the final
    wave and after a failure."""

    def _setup_throttle(self, cells: int) -> None:
        self.every = min(MAX_EVERY, max(1, cells // CHECK_CELLS))
        self._calls = 0
        self._failed = False

    def _due(self, final: bool) -> bool:
        self._calls += 1
        return final or self._failed or self._calls == 1 or self._calls % self.every == 0

    def _fail(self, cell: int | np.integer[Any], reason: str) -> NoReturn:
        self._failed = True
        raise Unsatisfied(int(cell), reason)


class Connected(_Throttle):
    """All walkable cells form one 4-connected region (6-connected with depth), and ``points`` are
    walkable and in it.

    Parameters
    ----------
    walkable : (P,) bool, or (P, n, n) bool
        Which patterns make their cell walkable; the window form for a bounded overlapping output
        (see the module notes).
    width, height, depth : int
        The solver's grid.
    points : sequence of (x, y) or (x, y, z)
        Output cells that must be walkable and joined to every other walkable cell.
    periodic : bool
        The grid wraps in x and y (an output that tiles).
    wrap : bool
        With ``periodic``, paths may cross the grid's edges (default; the output is read as a
        tile of an endless plane). ``wrap=False`` counts connectivity as on a finite grid even
        when the output is periodic: every walkable cell must be reached without crossing an
        edge (a level cut from a periodic output). No effect without ``periodic``.
    points_name : str
        What error messages call ``points`` (the caller's parameter name).

    Notes
    -----
    During the search a cell is *possibly walkable* while one of its walkable patterns remains and
    *surely walkable* when only walkable patterns remain. The surely walkable cells and the points
    must lie in one component of the possibly walkable cells, else :class:`Unsatisfied`
    ("walkable cells cannot all be connected" / "point (x, y) cannot be reached"). Then every
    possibly walkable cell outside that component can never join it and loses its walkable
    patterns, and the points lose their unwalkable ones. An undecided cell of the component
    without which the surely walkable cells would fall apart must be walkable (as DeBroglie's path
    constraint does: its articulation points between required cells; found among the local cuts,
    see :meth:`_bridges`). An empty set of walkable cells counts as connected.

    The rule is met by small regions too: once the walkable cells decided so far are closed in
    (a room walled round without a door), everything else becomes unwalkable. Samples whose
    walkable cells form closed rooms can give mostly-wall outputs; a minimum count of a walkable
    value (:class:`Counts`) rules those out, at the price of more backtracking.

    >>> c = Connected([True, False], 3, 1)
    >>> wave = np.array([[1, 0], [1, 1], [1, 0]], bool)  # walkable, undecided, walkable
    >>> cells, rows = c.revise(wave, False)  # the middle cell joins the ends: it must be walkable
    >>> cells.tolist(), rows.tolist()
    ([1], [[True, False]])
    >>> try:
    ...     c.revise(np.array([[1, 0], [0, 1], [1, 0]], bool), True)
    ... except Unsatisfied as err:
    ...     print("walkable cells cannot all be connected" in str(err))
    True
    """

    def __str__(self) -> str:
        return "connected" + (f" with {len(self.points)} point(s)" if len(self.points) else "")

    def __init__(
        self,
        walkable: npt.ArrayLike,
        width: int,
        height: int,
        *,
        depth: int = 1,
        points: Sequence[tuple[int, int]] = (),
        periodic: bool = False,
        wrap: bool = True,
        points_name: str = "points",
    ) -> None:
        walkable = np.asarray(walkable)
        if walkable.dtype != bool:
            raise ParameterError(f"walkable must be a bool array, got {walkable.dtype}")
        periodic, wrap = check_bool(periodic, name="periodic"), check_bool(wrap, name="wrap")
        periodic = periodic and wrap  # the edges join only when paths may cross them
        self.nodes = Nodes(walkable, width, height, depth, periodic, "walkable")
        self.walk = self.nodes.values  # (K, P)
        if isinstance(points, np.ndarray):
            points = points.tolist()
        try:
            points = list(points)
        except TypeError:
            raise ParameterError(f"{points_name} must be a sequence of (x, y) pairs, got {short(points)}") from None
        self.points = np.array([self.nodes.node(p, points_name) for p in points], np.int64)
        self.point_set = np.zeros(self.nodes.size, bool)
        self.point_set[self.points] = True
        self.walk_masks = self.nodes.masks(self.walk)
        self.wall_masks = self.nodes.masks(~self.walk)
        self.region: npt.NDArray[np.bool_] | None = (
            None  # the possibly walkable cells at the last check, when they were one region
        )
        self.periodic = periodic and self.nodes.plain  # paths cross the edges
        self._seen: tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None = (
            None  # (possible, sure) of the last check that passed
        )
        self._setup_throttle(self.nodes.cells)

    def revise(self, wave: npt.NDArray[np.bool_], final: bool) -> Change | None:
        """The solver's hook: see the class notes."""
        nodes = self.nodes
        wave = wave[: nodes.cells]
        forced = nodes.restrict(wave, self.points, self.walk[nodes.node_kind[self.points]])
        if not self._due(final):
            return forced
        read = nodes.read(wave)
        possible = nodes.hits(read, self.walk_masks)
        sure = possible & ~nodes.hits(read, self.wall_masks)
        cut = self.points[~possible[self.points]]
        if cut.size:
            self._fail(nodes.node_cell[cut[0]], f"point {nodes.xy(cut[0])} cannot be walkable")
        seen, self._seen = self._seen, None
        if seen is not None and np.array_equal(seen[0], possible) and np.array_equal(seen[1], sure):
            self._failed, self._seen = False, seen  # the check is a function of these: it passed
            return forced
        required = np.flatnonzero(sure | self.point_set)
        if required.size == 0:
            self._failed, self.region, self._seen = False, None, (possible, sure)
            return forced
        if self._still_one(possible):
            self._failed, self.region, self._seen = False, possible, (possible, sure)
            changed = None if seen is None else (seen[0] ^ possible) | (seen[1] ^ sure)
            return merge_changes(forced, self._bridges(wave, possible, required, changed))
        label = components(possible, nodes.a, nodes.b, row=nodes.node_width)
        root = label[self.points[0] if self.points.size else required[0]]
        apart = required[label[required] != root]
        if apart.size:
            bad = apart[0]
            if self.point_set[bad]:
                self._fail(nodes.node_cell[bad], f"point {nodes.xy(bad)} cannot be reached")
            self._fail(
                nodes.node_cell[bad], f"walkable cells cannot all be connected (cell {nodes.xy(bad)} is cut off)"
            )
        self._failed, self._seen = False, (possible, sure)
        inside = label == root
        self.region = inside
        outside = np.flatnonzero(possible & ~inside)
        pruned = nodes.restrict(wave, outside, ~self.walk[nodes.node_kind[outside]])
        return merge_changes(forced, pruned, self._bridges(wave, inside, required, None))

    def _bridges(
        self,
        wave: npt.NDArray[np.bool_],
        region: npt.NDArray[np.bool_],
        required: npt.NDArray[np.int64],
        changed: npt.NDArray[np.bool_] | None,
    ) -> Change | None:
        """Rows making walkable the undecided cells of ``region`` (one region of possibly walkable
        cells holding the ``required`` ones) without which the required cells would fall apart.

        Only a *local cut* can be such a cell: one whose walkable neighbours do not join round it
        (Yokoi's 4-connectivity number, from its 8 neighbours, is 2 or more); the others always
        have a way round. If the required cells stay joined with every local cut removed, none is
        needed; else halves of the cuts are tested in turn (at most ``BRIDGE_TESTS`` labellings).
        With ``changed`` (the cells whose state changed since the last check) only the local cuts
        near them are looked at: the others were looked at before. 2-D grids only."""
        nodes = self.nodes
        if nodes.depth > 1 or required.size < 2:
            return None
        h, w = nodes.node_height, nodes.node_width
        y0 = x0 = 0
        grid = region.reshape(h, w)
        mode: str | None = "wrap" if self.periodic else "constant"
        if changed is not None:
            moved = np.flatnonzero(changed)
            if moved.size == 0:
                return None
            (_, ys, xs), edge = nodes.box(moved, 2)
            if not (edge and self.periodic):  # the box and a ring of one more cell (False off the grid)
                y0, x0 = ys.start, xs.start
                crop = np.zeros((ys.stop - ys.start + 2, xs.stop - xs.start + 2), bool)
                top, left = max(y0 - 1, 0), max(x0 - 1, 0)
                part = grid[top : min(ys.stop + 1, h), left : min(xs.stop + 1, w)]
                crop[top - y0 + 1 : top - y0 + 1 + part.shape[0], left - x0 + 1 : left - x0 + 1 + part.shape[1]] = part
                grid, mode = crop, None
        ring = grid if mode is None else np.pad(grid, 1, mode=mode)  # type: ignore[call-overload]
        # the 8 neighbours counter-clockwise from east: E NE N NW W SW S SE (rows go down = south)
        x = [ring[1:-1, 2:], ring[:-2, 2:], ring[:-2, 1:-1], ring[:-2, :-2]]
        x += [ring[1:-1, :-2], ring[2:, :-2], ring[2:, 1:-1], ring[2:, 2:]]
        x.append(x[0])
        x.append(x[1])
        crossings = sum((x[k] & ~(x[k + 1] & x[k + 2])).astype(np.int8) for k in (0, 2, 4, 6))
        local = np.zeros((h, w), bool)
        local[y0 : y0 + crossings.shape[0], x0 : x0 + crossings.shape[1]] = crossings >= 2  # type: ignore[union-attr]
        local = local.ravel()
        local[required] = False
        cuts = np.flatnonzero(region & local)
        if cuts.size == 0:
            return None

        def apart(removed: npt.NDArray[np.int64]) -> bool:
            keep = region.copy()
            keep[removed] = False
            label = components(keep, nodes.a, nodes.b, row=w)[required]
            return bool((label != label[0]).any())

        bridges, groups, tests = [], [cuts], 0
        while groups and tests < BRIDGE_TESTS:
            group = groups.pop()
            tests += 1
            if not apart(group):
                continue
            if group.size == 1:
                bridges.append(group[0])
            else:
                groups += [group[group.size // 2 :], group[: group.size // 2]]
        if not bridges:
            return None
        picked = np.array(bridges)
        return nodes.restrict(wave, picked, self.walk[nodes.node_kind[picked]])

    def _still_one(self, possible: npt.NDArray[np.bool_]) -> bool:
        """Whether the possibly walkable cells are surely one region without labelling them all:
        the last check left them one region ``self.region``, none came back since, and the cells
        next to those lost since are joined within three steps of them (any path through a lost
        cell can then go round it). The test runs on the box round the lost cells."""
        region = self.region
        if region is None or (possible & ~region).any():
            return False
        lost = np.flatnonzero(region & ~possible)
        if lost.size == 0:
            return True
        nodes = self.nodes
        box, edge = nodes.box(lost, 3)
        if edge and nodes.periodic:  # neighbours across the grid's edge: the whole grid
            near = nodes.dilate(region & ~possible)
            rim = near & possible
            window = nodes.dilate(nodes.dilate(near)) & possible
            label = components(window, nodes.a, nodes.b, row=nodes.node_width)[rim]
            return bool((label == label[0]).all()) if label.size else True
        here = possible.reshape(nodes.shape)[box]
        near = nodes.grow((region & ~possible).reshape(nodes.shape)[box])
        rim = (near & here).ravel()
        window = nodes.grow(nodes.grow(near)) & here
        a, b = nodes.local_edges(here.shape)
        label = components(window.ravel(), a, b, row=here.shape[2])[rim]
        return bool((label == label[0]).all()) if label.size else True


class Counts(_Throttle):
    """How many output cells may show each value: ``limits`` {value: (min, max)}.

    Parameters
    ----------
    values : (P,) int, or (P, n, n) int
        The value each pattern shows in its cell (a tile's base index, a sample value's palette
        index, or ``arange(P)`` for the patterns themselves); the window form for a bounded
        overlapping output (see the module notes).
    limits : dict
        ``{value: (min, max)}``, ``max`` None for no bound; 0 <= min <= max.
    width, height, depth : int
        The solver's grid.
    names : dict, optional
        ``{value: label}`` for messages (default ``"value 3"``).

    Notes
    -----
    A cell *may* show a value while a pattern showing it remains, and *does* when only such
    patterns remain. More cells doing so than ``max``, or fewer that may than ``min``, is
    :class:`Unsatisfied`. When ``max`` cells do, the value leaves every other cell; when exactly
    ``min`` cells may, they must. The minimums together may not exceed the cells.

    >>> c = Counts(np.arange(2), {1: (0, 1)}, 3, 1)
    >>> cells, rows = c.revise(np.array([[0, 1], [1, 1], [1, 1]], bool), False)
    >>> cells.tolist(), rows.astype(int).tolist()  # one cell shows 1: the others may not
    ([1, 2], [[1, 0], [1, 0]])
    """

    def __init__(
        self,
        values: npt.ArrayLike,
        limits: Mapping[Any, Any],
        width: int,
        height: int,
        *,
        depth: int = 1,
        names: Mapping[Any, str] | None = None,
    ) -> None:
        values = np.asarray(values)
        if values.dtype.kind not in "iu":
            raise ParameterError(f"values must be an integer array, got {values.dtype}")
        self.nodes = Nodes(values, width, height, depth, False, "values")
        if not isinstance(limits, dict):
            raise ParameterError(f"limits must be a dict {{value: (min, max)}}, got {short(limits)}")
        names = names or {}
        self.limits: list[Any] = []
        total = 0
        for value, bounds in limits.items():
            label = names.get(value, f"value {value!r}")
            low, high = check_bounds(bounds, f"limits[{value!r}]")
            masks = self.nodes.values == value  # (K, P)
            total += low
            self.limits.append((label, masks, (self.nodes.masks(masks), self.nodes.masks(~masks)), low, high))
        self.total = total
        self._setup_throttle(self.nodes.cells)

    def __str__(self) -> str:
        parts = [f"{label} {low}-{'' if high is None else high}" for label, _, _, low, high in self.limits]
        return "counts " + ", ".join(parts)

    def revise(self, wave: npt.NDArray[np.bool_], final: bool) -> Change | None:
        """The solver's hook: see the class notes."""
        nodes = self.nodes
        wave = wave[: nodes.cells]
        if self.total > nodes.size:
            self._fail(0, f"the minimum counts add up to {self.total}, more than the {nodes.size} cells")
        due = self._due(final)
        changes = []
        read = nodes.read(wave)
        for label, masks, (yes, no), low, high in self.limits:
            possible = nodes.hits(read, yes)
            count = int(possible.sum())
            if count < low:
                missing = np.flatnonzero(~possible)
                self._fail(
                    nodes.node_cell[missing[0]] if missing.size else 0,
                    f"{label} must fill at least {low} cells, only {count} can",
                )
            if count == low and low:
                where = np.flatnonzero(possible)
                changes.append(nodes.restrict(wave, where, masks[nodes.node_kind[where]]))
            if high is not None and count > high and due:
                sure_all = possible & ~nodes.hits(read, no)
                where = np.flatnonzero(possible)
                sure = sure_all[where]
                done = int(sure.sum())
                if done > high:
                    self._fail(nodes.node_cell[where[sure][high]], f"{label} may fill at most {high} cells, {done} do")
                if done == high:
                    rest = where[~sure]
                    changes.append(nodes.restrict(wave, rest, ~masks[nodes.node_kind[rest]]))
        if due:
            self._failed = False
        return merge_changes(*changes)


def check_bounds(bounds: Any, name: str) -> tuple[int, int | None]:
    """``(min, max)`` of a count limit: ints with 0 <= min <= max (max None: unbounded).

    >>> check_bounds((2, None), "counts['door']")
    (2, None)
    """
    try:
        low, high = bounds
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a (min, max) pair, got {short(bounds)}") from None
    for part, value in (("min", low), ("max", high)):
        if part == "max" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ParameterError(f"{name} {part} must be an integer >= 0, got {short(value)}")
    if high is not None and high < low:
        raise ParameterError(f"{name} must have min <= max, got ({low}, {high})")
    return int(low), None if high is None else int(high)


def painted_cells(
    fixed: Mapping[tuple[int, int], T], width: int, height: int, what: str
) -> list[tuple[tuple[int, int], T]]:
    """The ``((x, y), item)`` pairs of a ``fixed`` dict ``{(x, y): item}`` (painted cells of a model's
    output), each cell checked to be a pair of integers on the ``width`` x ``height`` grid.

    >>> painted_cells({(1, 2): "rock"}, 4, 4, "tile")
    [((1, 2), 'rock')]
    """
    if not isinstance(fixed, dict):
        raise ParameterError(f"fixed must be a dict {{(x, y): {what}}}, got {short(fixed)}")
    out = []
    for cell, item in fixed.items():
        try:
            x, y = (int(v) for v in cell)
        except (TypeError, ValueError):
            raise ParameterError(f"fixed keys must be (x, y) cells, got {short(cell)}") from None
        if not (0 <= x < width and 0 <= y < height):
            raise ParameterError(f"fixed cell {(x, y)} is off the grid: x in [0, {width - 1}], y in [0, {height - 1}]")
        out.append(((x, y), item))
    return out


def check_points(connected: bool, connect_points: Sequence[tuple[int, int]]) -> bool:
    """Whether a model's ``connected`` / ``connect_points`` ask for a :class:`Connected`; points
    without ``connected`` are refused.

    >>> check_points(False, ()), check_points(True, [(0, 0)])
    (False, True)
    """
    connected = check_bool(connected, name="connected")
    if isinstance(connect_points, np.ndarray):
        connect_points = connect_points.tolist()
    try:
        count = len(connect_points)
    except TypeError:
        raise ParameterError(
            f"connect_points must be a sequence of (x, y) pairs, got {short(connect_points)}"
        ) from None
    if count and not connected:
        raise ParameterError(f"connect_points needs connected=True, got {count} point(s) with connected=False")
    return connected
