"""Road networks: least-cost routes between points, merged into a graph, with level profiles.

:func:`plan_roads` (the plan; a tiled world plans once over the whole world, then each tile cuts
and fills its part with ``_carve``):

1. the links to build: between consecutive points (``network=False``), or a hierarchical network
   (Galin et al. 2011's idea, simplified): the minimum spanning tree of the least costs between
   every pair of points, found on a grid ``coarse`` times coarser, plus the shortcuts that save
   the most (a pair whose way round the network costs more than ``detour`` times its direct cost,
   the worst first, at most ``shortcuts``), in the shortcut class;
2. each link is routed on the full grid (``_search``: exact least cost over the class's
   :class:`~._search.CostGraph`, 16 or 32 directions), the cheapest first, the moves of the roads
   already built costing ``reuse`` times theirs, so later roads join earlier ones and share
   their cells; steep ground makes switchbacks by itself (no move may climb past the class's
   grade);
3. the union of the routes becomes a graph: nodes at the points and where roads meet or part,
   edges the runs of cells between them (of the widest class using them), their centre lines
   smoothed and resampled every half cell;
4. profiles: over the graph of every sample (edges joined at the nodes, and samples of different
   edges that share the road surface joined at zero distance, so crossings are level), the
   heights are the mean of the largest ``g``-Lipschitz function below the ground and the smallest
   above it (``g`` the class's grade times :data:`PROFILE_GRADE`): within the grade everywhere,
   as close to the ground as that allows.  Samples over water, or more than ``bridge_height``
   above the ground, are bridges: the profile spans them from their ends, and the terrain under
   them is left alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import exact
from .._polyline import bilinear
from ..errors import ParameterError
from ..steps import Steps, drive
from ._cost import build_graph, coarse_graph
from ._search import PAD, CostGraph, move_table, search, trace

__all__ = [
    "RoadClass",
    "RoadEdge",
    "RoadNetwork",
    "plan_roads",
    "plan_roads_steps",
    "DEFAULT_CLASSES",
    "PROFILE_GRADE",
    "SHOULDER_CELLS",
    "turn_table",
]

#: The profile's grade, as a share of the class's maximum (the rest is room for the ground's
#: interpolation between cells and for bends).
PROFILE_GRADE = 0.9
#: Cells of level ground beyond the road's half width on each side (so every point across the
#: road lies in cells that are all level).
SHOULDER_CELLS = 1.5
#: Bends: the grade kept on a bend of radius R cells is ``1 - BEND_CELLS / R``, at least ``MIN_BEND``.
BEND_CELLS = 1.5
MIN_BEND = 0.2
#: Metres below which the profile fit counts as settled.
SETTLED = 1e-9
#: Samples (half cells) either side in the vertical curves' moving average.
VERTICAL_CURVE = 4
#: Rank of the classes (wider first): a shared run of cells takes the widest class using it.
CLASS_RANK = ("highway", "road", "trail")


@dataclass(frozen=True)
class RoadClass:
    """A road class: its width (metres) and steepest grade (rise / run)."""

    name: str
    width: float
    max_grade: float


#: Defaults of the three classes.
DEFAULT_CLASSES = (
    RoadClass("highway", 10.0, 0.06),
    RoadClass("road", 6.0, 0.10),
    RoadClass("trail", 2.5, 0.18),
)


@dataclass(frozen=True, eq=False)
class RoadEdge:
    """One edge of the road graph between nodes ``a`` and ``b``: its class and its centre line
    (``rows``, ``cols`` in cells of the planned grid, ``z`` the road surface in metres, every
    half cell or so, from ``a`` to ``b``); ``bridge`` (bool per point) marks bridge spans."""

    a: int
    b: int
    road_class: str
    rows: npt.NDArray[np.float64]
    cols: npt.NDArray[np.float64]
    z: npt.NDArray[np.float64]
    bridge: npt.NDArray[np.bool_]

    def spans(self) -> list[list[int]]:
        """``[[start, end], ...]``: index ranges (inclusive) of the points on bridges."""
        b = np.concatenate([[False], self.bridge, [False]])
        edges = np.flatnonzero(b[1:] != b[:-1])
        return [[int(s), int(e) - 1] for s, e in zip(edges[0::2], edges[1::2])]


@dataclass(frozen=True, eq=False)
class RoadNetwork:
    """A road graph on a planned grid (``shape``, ``cell_size``): ``nodes`` (n, 2) ``(row, col)``
    with their ``node_z`` (metres) and ``node_kind`` (``"point"`` for the given points, whose
    index is ``node_point``, ``"junction"`` where roads meet or part); ``edges`` (RoadEdge);
    ``classes`` (RoadClass by name); ``carve``: how the ground is cut and filled (lateral slope,
    reach, margin, in metres), kept so every tile does alike; ``links``: the routes built, in order,
    as ``(point i, point j, class)``, and ``cost`` their least costs (turn costs included; a later
    route's with the earlier roads' discount)."""

    shape: tuple[int, int]
    cell_size: float
    nodes: npt.NDArray[np.float64]
    node_z: npt.NDArray[np.float64]
    node_kind: tuple[str, ...]
    node_point: npt.NDArray[np.int64]
    edges: tuple[RoadEdge, ...]
    classes: dict[str, RoadClass]
    carve: dict[str, float]
    links: tuple[tuple[int, int, str], ...] = ()
    cost: tuple[float, ...] = ()


def turn_table(directions: int, cost: float) -> npt.NDArray[np.float64]:
    """``turn[k_in, k_out]``: ``cost (1 - cos angle) / 2`` between two moves (0 straight on, ``cost``
    turning back), float64."""
    moves, lengths = move_table(directions)
    unit = moves / lengths[:, None]
    cos = unit[:, 0][:, None] * unit[:, 0][None, :] + unit[:, 1][:, None] * unit[:, 1][None, :]
    return cost * 0.5 * (1.0 - cos)


def _opposite(moves: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    index = {tuple(m): k for k, m in enumerate(moves.tolist())}
    return np.array([index[(-dy, -dx)] for dy, dx in moves.tolist()], np.int64)


def _smooth(
    rows: npt.NDArray[np.float64], cols: npt.NDArray[np.float64], passes: int = 6
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """A [1, 2, 1] / 4 average of the inner points, ``passes`` times (ends kept)."""
    r, c = rows.astype(np.float64), cols.astype(np.float64)
    for _ in range(passes):
        if r.size < 3:
            break
        r = np.concatenate([r[:1], 0.25 * r[:-2] + 0.5 * r[1:-1] + 0.25 * r[2:], r[-1:]])
        c = np.concatenate([c[:1], 0.25 * c[:-2] + 0.5 * c[1:-1] + 0.25 * c[2:], c[-1:]])
    return r, c


def _resample(
    rows: npt.NDArray[np.float64], cols: npt.NDArray[np.float64], spacing: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Points every ``spacing`` cells (or a little less) along a polyline, ends kept exactly."""
    dr, dc = np.diff(rows), np.diff(cols)
    seg = np.sqrt(dr * dr + dc * dc)
    total = float(seg.sum())
    if total == 0.0:
        return rows[:1].copy(), cols[:1].copy()
    count = max(1, int(np.ceil(total / spacing - 1e-9)))
    s = np.concatenate([[0.0], np.cumsum(seg)])
    t = np.arange(count + 1) * (total / count)
    t[-1] = s[-1]
    r = np.interp(t, s, rows)
    c = np.interp(t, s, cols)
    r[0], c[0], r[-1], c[-1] = rows[0], cols[0], rows[-1], cols[-1]
    return r, c


def _link_costs(
    points: npt.NDArray[np.int64], coarse_graphs: dict[str, CostGraph], order_class: str, factor: int
) -> npt.NDArray[np.float64]:
    """Least coarse costs between every pair of points (inf where unreachable), per class graph."""
    k = len(points)
    graph = coarse_graphs[order_class]
    cells = graph.index(
        np.minimum(points[:, 0] // factor, graph.shape[0] - 1), np.minimum(points[:, 1] // factor, graph.shape[1] - 1)
    )
    costs = np.full((k, k), np.inf)
    for i in range(k):
        dist, _, _ = search(graph, [cells[i]], targets=cells)
        costs[i] = dist[cells]
    costs = np.minimum(costs, costs.T)
    np.fill_diagonal(costs, 0.0)
    return costs


def _mst(costs: npt.NDArray[np.float64], name: str = "the") -> list[tuple[int, int]]:
    """Prim's minimum spanning tree over a dense cost matrix: list of (i, j) with i < j; raises
    when some point cannot be reached."""
    k = len(costs)
    inside = np.zeros(k, bool)
    inside[0] = True
    best = costs[0].copy()
    link = np.zeros(k, np.int64)
    out = []
    for _ in range(k - 1):
        cand = np.where(inside, np.inf, best)
        j = int(np.argmin(cand))
        if not np.isfinite(cand[j]):
            missing = int(np.flatnonzero(~inside)[0])
            raise ParameterError(
                f"roads.points[{missing}] cannot be reached from roads.points[0] under {name} class's max grade "
                "(too steep, or cut off by water); move it or raise the max grade"
            )
        i = int(link[j])
        out.append((min(i, j), max(i, j)))
        inside[j] = True
        closer = costs[j] < best
        best[closer] = costs[j][closer]
        link[closer] = j
    return out


def _network_distance(costs: npt.NDArray[np.float64], links: list[tuple[int, int]]) -> npt.NDArray[np.float64]:
    k = len(costs)
    d = np.full((k, k), np.inf)
    np.fill_diagonal(d, 0.0)
    for i, j in links:
        d[i, j] = d[j, i] = min(d[i, j], costs[i, j])
    for m in range(k):  # Floyd-Warshall (k is small)
        d = np.minimum(d, d[:, m : m + 1] + d[m : m + 1, :])
    return d


def _shortcuts(
    costs: npt.NDArray[np.float64], links: list[tuple[int, int]], count: int, detour: float
) -> list[tuple[int, int]]:
    chosen: list[tuple[int, int]] = []
    for _ in range(count):
        d = _network_distance(costs, links + chosen)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(np.isfinite(costs) & (costs > 0), d / costs, 0.0)
        iu = np.triu_indices(len(costs), 1)
        r = ratio[iu]
        if not r.size:
            break
        best = int(np.argmax(r))
        if not r[best] > detour:
            break
        chosen.append((int(iu[0][best]), int(iu[1][best])))
    return chosen


def plan_roads_steps(
    heights: npt.ArrayLike,
    points: npt.ArrayLike,
    *,
    cell_size: float,
    classes: Sequence[RoadClass] = DEFAULT_CLASSES,
    road_class: str = "road",
    shortcut_class: str = "trail",
    network: bool = True,
    shortcuts: int = 3,
    detour: float = 1.5,
    directions: int = 16,
    grade_weight: float = 4.0,
    curvature: float = 0.0,
    bridge_cost: float = 8.0,
    max_bridge: float = 60.0,
    forest: npt.ArrayLike | None = None,
    forest_weight: float = 1.0,
    reuse: float = 0.6,
    coarse: int = 4,
    water: npt.ArrayLike | None = None,
    water_width: npt.ArrayLike | None = None,
    blocked: npt.ArrayLike | None = None,
    ground: npt.ArrayLike | None = None,
    bridge_height: float = 6.0,
    repose: float = 33.0,
    embankment: float = 20.0,
    margin: float = 2.0,
    links: Sequence[tuple[int, int]] | None = None,
) -> Steps[RoadNetwork]:
    """Plan a road network (see the module's notes), as a step generator (``core.steps``):
    yields ``(done, total, "roads")`` after the links are chosen, after every route and at the
    end; returns a :class:`RoadNetwork`.  :func:`plan_roads` runs it to the end.

    Parameters
    ----------
    heights : (rows, cols) array of float, metres
        The ground the costs read (before rivers are carved: the banks do not stop a bridge).
    points : (k, 2) array of float
        ``(row, col)`` cells of the points to join (rounded to the nearest cell).
    cell_size : float, metres
    classes : sequence of RoadClass
    road_class, shortcut_class : str
        Class of the links (the spanning tree, or the chain) and of the shortcuts.
    network : bool
        A spanning tree with shortcuts (True) or a chain through the points in order (False).
    shortcuts : int
        Most shortcuts added; ``detour``: a pair gets one when the way round costs more than
        ``detour`` times the direct way.
    directions : {16, 32}
    grade_weight, curvature, bridge_cost, forest_weight, reuse : float
        The cost's weights (:func:`~._cost.build_graph`), the turn cost (metres of flat road for
        turning back) and the factor on the moves of roads already built.
    max_bridge : float, metres
        Widest river a bridge spans.
    forest : (rows, cols) float in [0, 1] or None
    coarse : int
        Coarsening of the grid the network's links are chosen on.
    water : (rows, cols) bool or None
        River water (bridged).  ``water_width`` (metres, per cell) blocks rivers wider than
        ``max_bridge``; ``blocked``: cells no road enters (the sea, lakes).
    ground : (rows, cols) array or None
        The ground the profiles follow (after rivers are carved); None: ``heights``.
    bridge_height : float, metres
        A profile further above the ground than this is a bridge.
    repose : float, degrees
        Steepest embankment (the angle of repose).
    embankment : float, metres
        How far beyond the road's shoulder the cut and fill reach.
    margin : float, metres
        Clearing beyond the road's width (no scatter).
    links : list of (i, j) or None
        The links to build, overriding ``network``.
    """
    h = np.asarray(heights, np.float64)
    rows, cols = h.shape
    pts = np.rint(np.asarray(points, np.float64)).astype(np.int64).reshape(-1, 2)
    by_name = {c.name: c for c in classes}
    for name in (road_class, shortcut_class):
        if name not in by_name:
            raise ParameterError(f"road class {name!r} is not one of {sorted(by_name)}")
    block = np.zeros(h.shape, bool) if blocked is None else np.asarray(blocked, bool).copy()
    wet = None if water is None else np.asarray(water, bool)
    if wet is not None and water_width is not None:
        block |= wet & (np.asarray(water_width, np.float64) > max_bridge)
    for i, (r, c) in enumerate(pts.tolist()):
        if block[r, c]:
            raise ParameterError(f"roads.points[{i}] lies in water no road may enter (sea, lake or a wide river)")

    def fine(name: str) -> CostGraph:
        return build_graph(
            h,
            cell_size=cell_size,
            max_grade=by_name[name].max_grade,
            directions=directions,
            grade_weight=grade_weight,
            blocked=block,
            water=wet,
            bridge_cost=bridge_cost,
            forest=forest,
            forest_weight=forest_weight,
        )

    # 1. the links
    graphs = {}
    k = len(pts)
    if links is not None:
        plan = [(int(i), int(j), road_class) for i, j in links]
    elif not network or k <= 2:
        plan = [(i, i + 1, road_class) for i in range(k - 1)]
    else:
        coarse_graphs = {
            road_class: coarse_graph(
                h,
                factor=coarse,
                cell_size=cell_size,
                max_grade=by_name[road_class].max_grade,
                directions=directions,
                grade_weight=grade_weight,
                blocked=block,
                water=wet,
                bridge_cost=bridge_cost,
                forest=forest,
                forest_weight=forest_weight,
                keep=pts,
            )
        }
        costs = _link_costs(pts, coarse_graphs, road_class, coarse)
        if not np.isfinite(costs).all():  # cut off on the coarse grid: ask the full one
            graphs[road_class] = fine(road_class)
            costs = np.minimum(costs, _link_costs(pts, graphs, road_class, 1))
        tree = _mst(costs, f"the {road_class}")
        tree.sort(key=lambda ij: (costs[ij], ij))
        extra = _shortcuts(costs, tree, shortcuts, detour)
        plan = [(i, j, road_class) for i, j in tree] + [(i, j, shortcut_class) for i, j in extra]
    # 2. route every link on the full grid, the widest classes first, reusing earlier roads
    total = len(plan) + 2
    yield 1, total, "roads"
    plan.sort(key=lambda t: CLASS_RANK.index(t[2]) if t[2] in CLASS_RANK else len(CLASS_RANK))
    road = None
    turn = None if curvature <= 0.0 else turn_table(directions, curvature * cell_size)
    routes = []
    costs_out = []
    for i, j, name in plan:
        if name not in graphs:
            graphs[name] = fine(name)
        g = graphs[name]
        if road is None:
            road = np.zeros(g.weights.shape, bool)
            opposite = _opposite(g.moves)
        src, dst = g.index(*pts[i]), g.index(*pts[j])
        dist, move, _ = search(g, [src], goal=dst, road=road if road.any() else None, reuse=reuse, turn=turn)
        if not np.isfinite(dist[dst]):
            raise ParameterError(
                f"roads.points[{j}] cannot be reached from roads.points[{i}] under the {name} class's max grade "
                f"{by_name[name].max_grade:g} (too steep, or cut off by water)"
            )
        path = trace(g, move, dst)
        ks = move[path[1:]].astype(np.int64)
        road[path[:-1], ks] = True
        road[path[1:], opposite[ks]] = True
        routes.append((i, j, name, path))
        costs_out.append(float(dist[dst]))
        yield 1 + len(routes), total, "roads"
    # 3. the graph of the routes
    width = cols + 2 * PAD
    nodes_cells, kinds, node_point, edges_cells = _graph(routes, pts, width)
    nr, nc = np.divmod(np.array(nodes_cells, np.int64), width)
    nodes = np.stack([nr - PAD, nc - PAD], 1).astype(np.float64)
    ground = h if ground is None else np.asarray(ground, np.float64)
    edges = []
    for a, b, name, cells in edges_cells:
        r, c = np.divmod(np.array(cells, np.int64), width)
        r, c = _smooth((r - PAD).astype(np.float64), (c - PAD).astype(np.float64))
        r, c = _resample(r, c, 0.5)
        edges.append((a, b, name, r, c))
    # 4. profiles and bridges
    wet_ground = wet
    z_edges, node_z, bridges = _profiles(edges, nodes, ground, by_name, wet_ground, bridge_height, cell_size)
    road_edges = tuple(
        RoadEdge(a, b, name, r, c, z, br) for (a, b, name, r, c), z, br in zip(edges, z_edges, bridges, strict=True)
    )
    yield total, total, "roads"
    tan = float(exact.tan(repose * (math.pi / 180.0)))  # it shapes the heights: core.exact's tan
    return RoadNetwork(
        shape=(rows, cols),
        cell_size=float(cell_size),
        nodes=nodes,
        node_z=node_z,
        node_kind=tuple(kinds),
        node_point=np.array(node_point, np.int64),
        edges=road_edges,
        classes={c.name: c for c in classes},
        carve={"repose_slope": tan, "embankment": float(embankment), "margin": float(margin)},
        links=tuple((int(i), int(j), name) for i, j, name, _path in routes),
        cost=tuple(costs_out),
    )


def plan_roads(heights: npt.ArrayLike, points: npt.ArrayLike, **kwargs: Any) -> RoadNetwork:
    """:func:`plan_roads_steps` run to the end: the :class:`RoadNetwork` (same arguments)."""
    return drive(plan_roads_steps(heights, points, **kwargs))


def _graph(
    routes: list[tuple[int, int, str, npt.NDArray[np.int64]]], pts: npt.NDArray[np.int64], width: int
) -> tuple[list[int], list[str], list[int], list[tuple[int, int, str, list[int]]]]:
    """Nodes (padded cells), their kinds, their point index, and edges ``(a, b, class, cells)``."""
    adjacency: dict[int, list[int]] = {}
    classes: dict[tuple[int, int], str] = {}
    point_cells: dict[int, int] = {}
    for i, (r, c) in enumerate(pts.tolist()):
        point_cells.setdefault((r + PAD) * width + c + PAD, i)
    for _i, _j, name, path in routes:
        p = path.tolist()
        for u, v in zip(p[:-1], p[1:]):
            adjacency.setdefault(u, [])
            adjacency.setdefault(v, [])
            if v not in adjacency[u]:
                adjacency[u].append(v)
                adjacency[v].append(u)
            key = (min(u, v), max(u, v))
            old = classes.get(key)
            if old is None or _rank(name) < _rank(old):
                classes[key] = name
    nodes = [u for u in adjacency if len(adjacency[u]) != 2 or u in point_cells]
    for u in point_cells:
        if u not in adjacency:
            adjacency[u] = []
            nodes.append(u)
    nodes = sorted(set(nodes))
    index = {u: n for n, u in enumerate(nodes)}
    kinds = ["point" if u in point_cells else "junction" for u in nodes]
    node_point = [point_cells.get(u, -1) for u in nodes]
    seen = set()
    edges = []
    for u in nodes:
        for v in adjacency[u]:
            if (u, v) in seen:
                continue
            chain = [u, v]
            seen.add((u, v))
            seen.add((v, u))
            while chain[-1] not in index:
                a, b = chain[-2], chain[-1]
                nxt = adjacency[b][0] if adjacency[b][0] != a else adjacency[b][1]
                seen.add((b, nxt))
                seen.add((nxt, b))
                chain.append(nxt)
            names = {classes[(min(x, y), max(x, y))] for x, y in zip(chain[:-1], chain[1:])}
            name = min(names, key=_rank)
            edges.append((index[chain[0]], index[chain[-1]], name, chain))
    return nodes, kinds, node_point, edges


def _rank(name: str) -> int:
    return CLASS_RANK.index(name) if name in CLASS_RANK else len(CLASS_RANK)


def _lipschitz(
    values: npt.NDArray[np.float64],
    edges_idx: list[npt.NDArray[np.int64]],
    edges_cost: list[npt.NDArray[np.float64]],
    zero_pairs: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]],
    lower: bool,
) -> npt.NDArray[np.float64]:
    """The largest (``lower`` False: smallest) function on the samples that is below (above) the
    finite ``values`` and changes along every edge's run by at most its cost between the samples
    (``edges_cost``: cumulative allowed rise, metres) and not at all across ``zero_pairs``.
    Sweeps along each run (a running minimum of ``u - cost``) and across the zero pairs, until
    nothing moves by more than :data:`SETTLED`."""
    sign = -1.0 if lower else 1.0
    u = sign * np.where(np.isfinite(values), values, -np.inf if lower else np.inf)
    for _ in range(10_000):
        before = u.copy()
        for idx, gs in zip(edges_idx, edges_cost, strict=True):
            seg = u[idx]
            fwd = np.minimum.accumulate(seg - gs) + gs
            seg = np.minimum(seg, fwd)
            rs = gs[-1] - gs
            back = (np.minimum.accumulate((seg - rs)[::-1]) + rs[::-1])[::-1]
            seg = np.minimum(seg, back)
            np.minimum.at(u, idx, seg)
        if zero_pairs[0].size:
            a, b = zero_pairs
            m = np.minimum(u[a], u[b])
            np.minimum.at(u, a, m)
            np.minimum.at(u, b, m)
        # settled: nothing moved by more than a nanometre (a running minimum of u - cost plus cost
        # can round an ulp below u, round after round, and would never stop moving at all)
        with np.errstate(invalid="ignore"):
            if not (before - u > SETTLED).any():
                break
    return sign * u


def _bend_factor(rows: npt.NDArray[np.float64], cols: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Per piece of a polyline: the share of the grade kept on a bend of radius ``R`` cells,
    ``1 - BEND_CELLS / R`` (at least ``MIN_BEND``): the ground across a bend is sampled on the
    inside, where the road's length shrinks by that factor; a hairpin gets a landing."""
    m = rows.size
    if m < 3:
        return np.ones(max(m - 1, 0))
    k = 2  # the points a cell apart either side
    i = np.arange(m)
    a, b = np.maximum(i - k, 0), np.minimum(i + k, m - 1)

    def dist(
        p: npt.NDArray[np.int64], q: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float64]:  # sqrt, not np.hypot (the C library's: not the same bits on every machine)
        dr, dc = rows[p] - rows[q], cols[p] - cols[q]
        return np.sqrt(dr * dr + dc * dc)

    ab, ai, ib = dist(b, a), dist(i, a), dist(b, i)
    cross = np.abs((rows[i] - rows[a]) * (cols[b] - cols[a]) - (cols[i] - cols[a]) * (rows[b] - rows[a]))
    # circumradius abc / (4 area) = abc / (2 |cross|)
    with np.errstate(divide="ignore", invalid="ignore"):
        radius = np.where(cross > 0.0, ab * ai * ib / (2.0 * cross), np.inf)
    keep = np.clip(1.0 - BEND_CELLS / radius, MIN_BEND, 1.0)
    return np.minimum(keep[:-1], keep[1:])


def _profiles(
    edges: list[tuple[int, int, str, npt.NDArray[np.float64], npt.NDArray[np.float64]]],
    nodes: npt.NDArray[np.float64],
    ground: npt.NDArray[np.float64],
    classes: dict[str, RoadClass],
    water: npt.ArrayLike | None,
    bridge_height: float,
    cell_size: float,
) -> tuple[list[npt.NDArray[np.float64]], npt.NDArray[np.float64], list[npt.NDArray[np.bool_]]]:
    """Heights of every edge's samples (and the nodes), and which samples are bridges."""
    node_count = len(nodes)
    ids, offsets = [], [node_count]
    for a, b, _name, r, _c in edges:
        n_inner = max(r.size - 2, 0)
        inner = np.arange(offsets[-1], offsets[-1] + n_inner)
        offsets.append(offsets[-1] + n_inner)
        ids.append(np.concatenate([[a], inner, [b]]) if r.size >= 2 else np.array([a]))
    total = offsets[-1]
    pos_r = np.zeros(total)
    pos_c = np.zeros(total)
    pos_r[:node_count], pos_c[:node_count] = nodes[:, 0], nodes[:, 1]
    edge_of = np.full(total, -1, np.int64)
    edge_of[:node_count] = -2 - np.arange(node_count)  # each node its own: level with what meets there
    half = np.zeros(total)
    for e, ((_a, _b, name, r, c), idx) in enumerate(zip(edges, ids, strict=True)):
        pos_r[idx], pos_c[idx] = r, c
        edge_of[idx[1:-1]] = e
        half[idx] = np.maximum(half[idx], 0.5 * classes[name].width)
    lengths = []
    for _a, _b, _name, r, c in edges:
        dr, dc = np.diff(r), np.diff(c)
        lengths.append(np.concatenate([[0.0], np.cumsum(np.sqrt(dr * dr + dc * dc))]) * cell_size)
    costs = []
    for (_a, _b, name, r, c), s_len in zip(edges, lengths, strict=True):
        g = classes[name].max_grade * PROFILE_GRADE * _bend_factor(r, c)
        costs.append(np.concatenate([[0.0], np.cumsum(g * np.diff(s_len))]))
    # samples whose road surfaces overlap (different edges: crossings and junctions; one edge: the
    # legs of a tight switchback) get one height: level across, a landing at a hairpin
    along = np.zeros(total)
    for idx, s_len in zip(ids, lengths, strict=True):
        along[idx[1:-1]] = s_len[1:-1] / cell_size
    zero_a, zero_b = _overlaps(pos_r, pos_c, edge_of, half, cell_size, along)
    f = bilinear(ground, pos_r, pos_c)
    free = np.zeros(total, bool)
    if water is not None:
        wr = np.clip(np.rint(pos_r).astype(np.int64), 0, ground.shape[0] - 1)
        wc = np.clip(np.rint(pos_c).astype(np.int64), 0, ground.shape[1] - 1)
        free |= np.asarray(water, bool)[wr, wc]
    free[:node_count] = False
    for _ in range(4):
        target = np.where(free, np.nan, f)
        upper = _lipschitz(target, ids, costs, (zero_a, zero_b), lower=False)
        lower = _lipschitz(target, ids, costs, (zero_a, zero_b), lower=True)
        z = 0.5 * (upper + lower)
        gorge = (z - f > bridge_height) & ~free
        gorge[:node_count] = False
        if not gorge.any():
            break
        free |= gorge
    # vertical curves: a moving average along every edge (nodes kept) rounds the kinks the fit
    # leaves where the profile leaves the ground (a heightmap cannot hold a sharp kink across a
    # cell), then one more fit to it puts back the grades and level junctions the average bent
    smooth = z.copy()
    for idx in ids:
        if idx.size > 2:
            smooth[idx[1:-1]] = _average(z[idx], VERTICAL_CURVE)[1:-1]
    upper = _lipschitz(smooth, ids, costs, (zero_a, zero_b), lower=False)
    lower = _lipschitz(smooth, ids, costs, (zero_a, zero_b), lower=True)
    z = 0.5 * (upper + lower)
    z_edges = [z[idx] for idx in ids]
    bridges = []
    for idx in ids:
        br = free[idx].copy()
        # a span's abutments: the samples on either side of it carry the deck too
        grown = br.copy()
        grown[1:] |= br[:-1]
        grown[:-1] |= br[1:]
        grown[0] = grown[-1] = False
        bridges.append(grown)
    return z_edges, z[:node_count], bridges


def _average(values: npt.NDArray[np.float64], half: int) -> npt.NDArray[np.float64]:
    """A moving average of ``2 half + 1`` points, the window shrinking symmetrically at the ends."""
    n = values.size
    c = np.concatenate([[0.0], np.cumsum(values)])
    i = np.arange(n)
    w = np.minimum(np.minimum(i, n - 1 - i), half)
    return (c[i + w + 1] - c[i - w]) / (2 * w + 1)


def _overlaps(
    rows: npt.NDArray[np.float64],
    cols: npt.NDArray[np.float64],
    edge_of: npt.NDArray[np.int64],
    half: npt.NDArray[np.float64],
    cell_size: float,
    along: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Pairs of samples closer than their half widths plus the shoulders (the road surfaces overlap
    there): of different edges, or of one edge when they lie more than twice as far apart along it
    as across, plus a cell (a hairpin's legs; not neighbours along the road).  A node counts as an
    edge of its own (level with the roads that meet there)."""
    reach = (half + SHOULDER_CELLS * cell_size) / cell_size  # cells
    limit = float(2.0 * reach.max()) if reach.size else 0.0
    if limit <= 0.0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    key_r = np.floor(rows / limit).astype(np.int64)
    key_c = np.floor(cols / limit).astype(np.int64)
    buckets: dict[tuple[int, int], list[int]] = {}
    for i, (kr, kc) in enumerate(zip(key_r.tolist(), key_c.tolist())):
        buckets.setdefault((kr, kc), []).append(i)
    pairs_a, pairs_b = [], []
    for (kr, kc), members in buckets.items():
        mine = np.array(members, np.int64)
        near = [buckets.get((kr + dy, kc + dx), []) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
        other = np.array(sorted(x for lst in near for x in lst), np.int64)
        if not other.size:
            continue
        dr = rows[mine][:, None] - rows[other][None, :]
        dc = cols[mine][:, None] - cols[other][None, :]
        d = np.sqrt(dr * dr + dc * dc)
        close = d < reach[mine][:, None] + reach[other][None, :]
        # along the road more than twice as far as across plus a cell: the turn of a hairpin
        far_along = np.abs(along[mine][:, None] - along[other][None, :]) > 2.0 * d + 1.0
        diff = (edge_of[mine][:, None] != edge_of[other][None, :]) | far_along
        ia, ib = np.nonzero(close & diff & (mine[:, None] < other[None, :]))
        pairs_a.append(mine[ia])
        pairs_b.append(other[ib])
    if not pairs_a:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(pairs_a), np.concatenate(pairs_b)
