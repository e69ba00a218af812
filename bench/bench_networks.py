"""Benchmark core.rivers and core.roads on a 1025^2 heightmap, our least-cost search raced against
scipy's Dijkstra (``scipy.sparse.csgraph``, C) on the same cost graph in the same run.

Run from the repository root::

    .venv/bin/python bench/bench_networks.py            # about 2 minutes on a shared machine
    .venv/bin/python bench/bench_networks.py --quick    # fewer rounds
    .venv/bin/python bench/bench_networks.py --quick --no-network   # rivers and one road only

The terrain is the shipped river valley (``presets/worlds/river_valley.toml``) at resolution 1025
(2048 m square, 2 m cells, eroded), built once, untimed.  Targets (issue 24, printed beside our
figures, in process CPU time: the machine is shared): one road across it <= 1 s, a network between
20 points <= 30 s, rivers <= 2 s.

- **one road** (``plan_roads`` between two points ~2.3 km apart, the [roads] defaults: 16 moves,
  turn cost on): the whole plan (cost graph, search, road graph, profiles, bridges), and its search
  alone with the turn cost off against scipy's ``dijkstra(indices=source, min_only=True)`` on the
  CSR matrix of the very same :class:`~core.roads.CostGraph` (``CostGraph.edges()``; building the
  matrix is not timed).  The costs must agree within 1 % (asserted; they agree to rounding); the
  defaults' route cost (turn costs included) is printed beside that optimum.
- **network of 20 points** (spanning tree on a 4x coarser grid + 2 shortcuts, every link routed on
  the full grid reusing the roads already built; the [roads] defaults with the turn cost off, so
  the graph is scipy's): the whole plan, against scipy computing the 20 one-to-all searches the
  links need on the full graph (what a scipy planner would run); the first link (no road to reuse
  yet) must cost what scipy says within 1 % (asserted).
- **rivers** (``build_rivers``: flow routing, accumulation, lakes, channels, segments, Strahler,
  carving, maps), with its parts, and against ``core.erosion.flow_accumulation`` + ``fill_pits``
  alone (the flow work every river tool starts from).
"""

import os
import sys
import time

import _loader
import numpy as np

from worldseed.core import erosion, recipe, rivers, roads, terrain
from worldseed.core._polyline import grid_origin
from worldseed.core.steps import drive

QUICK = "--quick" in sys.argv
ROUNDS = 1 if QUICK else 3
SKIP_NETWORK = "--no-network" in sys.argv


def valley():
    r = recipe.load(_loader.ROOT / "presets" / "worlds" / "river_valley.toml")
    r = recipe.replace(r, terrain_resolution=1025)
    h0 = terrain.terrain_heights(r.terrain, seed=r.world.seed)
    h = drive(terrain.terrain_layers_steps(h0, terrain_spec=r.terrain, seed=r.world.seed)).metres
    sea = float(np.float32(r.terrain.sea_level) * np.float32(r.terrain.height))
    return r, h, sea


def scipy_graph(graph):
    import scipy.sparse as sp

    u, v, w = graph.edges()
    n = graph.shape[0] * graph.shape[1]
    return sp.csr_matrix((w.astype(np.float64), (u, v)), shape=(n, n))


def scipy_costs(matrix, sources, targets):
    from scipy.sparse.csgraph import dijkstra

    return dijkstra(matrix, indices=sources, min_only=len(np.atleast_1d(sources)) == 1)[..., targets]


def main():
    print(f"bench_networks: load {_loader.load():.1f}, {os.cpu_count()} CPUs, numpy {np.__version__}")
    t0 = time.process_time()
    r, h, sea = valley()
    cell = r.terrain.cell_size
    origin = grid_origin(h.shape, cell)
    built = time.process_time() - t0
    print(f"river valley at {h.shape[0]}^2 ({r.terrain.size:g} m, {cell:g} m cells) built in {built:.1f} s CPU")

    # -- rivers ------------------------------------------------------------------------------------
    race = _loader.interleaved(
        ROUNDS,
        lambda: rivers.build_rivers(h, r.rivers, cell_size=cell, sea_level=sea),
        lambda: (erosion.flow_accumulation(h, cell_size=cell), erosion.fill_pits(h, epsilon=0.0)),
    )
    riv = race.results[0]
    net = riv.network
    print(
        f"rivers 1025^2: {race.cpu[0]:.2f} s CPU ({race.seconds[0]:.2f} s wall; target <= 2 s), "
        f"flow accumulation + pit filling alone {race.cpu[1]:.2f} s CPU; {race.load_text()}"
    )
    orders = np.bincount(net.order)[1:].tolist()
    print(
        f"  {net.segment_count} segments, Strahler orders {orders}, {len(net.lakes)} lakes; "
        f"Horton R_b {rivers.horton_ratio(net):.2f}, Hack h {rivers.hack_exponent(net, h):.3f}"
    )

    # -- one road across the map -------------------------------------------------------------------
    pts_xy = (r.roads.points[0], r.roads.points[3])  # ~2.2 km apart, across the map
    pts = roads.grid_points(pts_xy, shape=h.shape, cell_size=cell, origin=origin)
    blocked = (h <= sea) | riv.maps.lake
    water, width = riv.maps.water & ~riv.maps.lake, riv.maps.width
    kwargs = roads.plan_kwargs(r.roads)
    kwargs.update(network=False)
    graph = roads.build_graph(
        h, cell_size=cell, max_grade=r.roads.road_max_grade, water=water, blocked=blocked | (water & (width > 60.0))
    )
    matrix = scipy_graph(graph)
    src, dst = np.rint(pts).astype(np.int64)
    s_flat, d_flat = src[0] * h.shape[1] + src[1], dst[0] * h.shape[1] + dst[1]
    race = _loader.interleaved(
        ROUNDS,
        lambda: roads.search(graph, [graph.index(*src)], goal=graph.index(*dst)),
        lambda: scipy_costs(matrix, s_flat, d_flat),
    )
    ours = race.results[0][0][graph.index(*dst)]
    optimum = float(race.results[1])
    assert abs(ours - optimum) <= 0.01 * optimum, (ours, optimum)
    straight = float(np.hypot(*(dst - src))) * cell
    print(
        f"one road, search alone (turn cost off), {straight:.0f} m apart: ours {race.cpu[0]:.2f} s CPU, "
        f"scipy dijkstra {race.cpu[1]:.2f} s CPU (ratio {race.cpu_ratio():.2f}); cost {ours:.2f} vs optimum "
        f"{optimum:.2f} ({100 * (ours / optimum - 1):+.4f} %); {race.load_text()}"
    )
    race = _loader.interleaved(
        ROUNDS,
        lambda: roads.plan_roads(
            h, pts, cell_size=cell, water=water, water_width=width, blocked=blocked, ground=riv.maps.heights, **kwargs
        ),
        lambda: scipy_costs(matrix, s_flat, d_flat),
    )
    plan = race.results[0]
    print(
        f"one road, whole plan_roads (defaults: 16 moves, turn cost {r.roads.curvature:g}): {race.cpu[0]:.2f} s CPU "
        f"({race.seconds[0]:.2f} s wall; target <= 1 s), scipy dijkstra alone {race.cpu[1]:.2f} s CPU; "
        f"{len(plan.edges)} edge(s), route cost with its turns {plan.cost[0]:.2f} "
        f"(optimum without turns {optimum:.2f}); {race.load_text()}"
    )

    # -- a network between 20 points ---------------------------------------------------------------
    if SKIP_NETWORK:
        return
    rng = np.random.default_rng(20)
    reach, _, _ = roads.search(graph, [graph.index(*src)])
    chosen = [tuple(src)]
    while len(chosen) < 20:
        p = tuple(rng.integers(20, h.shape[0] - 20, 2).tolist())
        if np.isfinite(reach[graph.index(*p)]) and not blocked[p] and not water[p]:
            if all(np.hypot(p[0] - q[0], p[1] - q[1]) > 60 for q in chosen):
                chosen.append(p)
    chosen = np.array(chosen, np.float64)
    flat = (chosen[:, 0] * h.shape[1] + chosen[:, 1]).astype(np.int64)
    kwargs_net = roads.plan_kwargs(r.roads)
    kwargs_net.update(curvature=0.0)  # the very graph scipy searches (turn costs are on top of it)
    race = _loader.interleaved(
        1,
        lambda: roads.plan_roads(
            h,
            chosen,
            cell_size=cell,
            water=water,
            water_width=width,
            blocked=blocked,
            ground=riv.maps.heights,
            **kwargs_net,
        ),
        lambda: scipy_costs(matrix, flat, flat),
        warmup=False,
    )
    network = race.results[0]
    table = race.results[1]
    # the first routed link had no road to reuse: its cost is the graph's optimum between its ends
    i, j, _name = network.links[0]
    first, best = network.cost[0], float(table[i, j])
    print(
        f"network of 20 points (defaults, turn cost off): ours {race.cpu[0]:.1f} s CPU ({race.seconds[0]:.1f} s wall; "
        f"target <= 30 s), scipy's 20 one-to-all searches {race.cpu[1]:.1f} s CPU; {len(network.edges)} edges, "
        f"{network.node_kind.count('junction')} junctions, {sum(len(e.spans()) for e in network.edges)} bridges; "
        f"first link {i}-{j} cost {first:.2f} vs scipy's optimum {best:.2f} ({100 * (first / best - 1):+.4f} %); "
        f"{race.load_text()}"
    )
    assert abs(first - best) <= 0.01 * best


if __name__ == "__main__":
    main()
