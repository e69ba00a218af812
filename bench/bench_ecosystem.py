"""Benchmark and statistics of core.ecosystem: plants beside a per-year KD-tree version, animals beside
a plain-Python agent loop, and the figures issue 23 asks for.

Run from the repository root (scipy is a benchmark-only dependency, in requirements-bench.txt)::

    .venv/bin/python bench/bench_ecosystem.py              # plants and animals races (~4 min idle)
    .venv/bin/python bench/bench_ecosystem.py --quick      # smaller races (~40 s)
    .venv/bin/python bench/bench_ecosystem.py --stats      # the statistics the tests check, as figures
    .venv/bin/python bench/bench_ecosystem.py --presets    # coexistence of the shipped presets, 20 seeds
    .venv/bin/python bench/bench_ecosystem.py --tiles      # how well tiles agree, by halo and years

Targets (printed, not asserted):

- plants: 1 km^2, about 100,000 live plants, 100 years (about 10^7 plant-years) in <= 60 s on two
  cores, plant-years per second beside the same yearly engine with its neighbour search done the
  straightforward way: a ``scipy.spatial.cKDTree`` built every year, ``query_pairs`` within twice the
  largest radius, then the exact test ``d < r_i + r_j``.  Both sides give the same pairs, so the same
  plants, byte for byte (checked before any time is printed).
- animals: 10,000 agents, 1,000 steps on a 250 x 250 grid in <= 10 s on two cores, beside a
  plain-Python agent loop doing the same step agent by agent (the same random draws, the same
  float32 and float64 arithmetic in the same order: the populations, positions and energies after
  ``--python-steps`` steps are checked equal, bit for bit), timed per agent-step over those steps.

Times are process CPU time (the machine is shared; ``_loader.interleaved``: ours, anchor, ours, ...,
the 1-minute load average printed beside each figure).
"""

import argparse
import math
import sys
import time

import _loader
import numpy as np
from scipy.spatial import cKDTree

from worldseed.core import biomes, terrain
from worldseed.core import ecosystem as eco
from worldseed.core.ecosystem import _animals, _plants
from worldseed.core.steps import drive

# -- plants ------------------------------------------------------------------------------------------

PIONEER = dict(
    name="Birch", tree="birch", initial_density=30.0, seeds_per_year=40.0, dispersal=30.0, max_age=80,
    max_radius=3.0, max_height=18.0, growth_years=10.0, shade_tolerance=0.0,
)  # fmt: skip
CLIMAX = dict(
    name="Beech", tree="broadleaf", initial_density=5.0, seeds_per_year=30.0, dispersal=8.0, max_age=300,
    max_radius=6.0, max_height=30.0, growth_years=30.0, shade_tolerance=1.0,
)  # fmt: skip


def kdtree_pairs(x, y, r):
    """The straightforward neighbour search: a KD-tree of the year's plants, every pair within twice
    the largest radius, then the exact overlap test; the larger disc first (as ours)."""
    if len(r) < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    tree = cKDTree(np.column_stack([x, y]))
    pairs = tree.query_pairs(2.0 * float(r.max()), output_type="ndarray")
    i, j = pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)
    dx, dy = x[i] - x[j], y[i] - y[j]
    s = r[i] + r[j]
    hit = dx * dx + dy * dy < s * s
    i, j = i[hit], j[hit]
    first = (r[i] > r[j]) | ((r[i] == r[j]) & (i < j))
    i, j = np.where(first, i, j), np.where(first, j, i)
    o = np.lexsort((j, i))
    return i[o], j[o]


def plants_race(side, years, rounds):
    hab = eco.habitat(np.full((int(side / 4) + 1,) * 2, 50.0), cell_size=4.0)
    spec = eco.from_dict({"years": years, "seed": 1, "snapshot_every": 10, "species": [PIONEER, CLIMAX]})

    def ours():
        return drive(eco.plants_steps(spec, hab))

    def anchor():
        grid = _plants.overlapping_pairs
        _plants.overlapping_pairs = kdtree_pairs
        try:
            return drive(eco.plants_steps(spec, hab))
        finally:
            _plants.overlapping_pairs = grid

    race = _loader.interleaved(rounds, ours, anchor, warmup=False)
    a, b = race.results
    same = all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("x", "y", "kind", "age", "radius", "uid"))
    same &= all(np.array_equal(a.history[k], b.history[k]) for k in a.history)
    if not same:
        sys.exit("plants: the KD-tree version differs from ours; no figures")
    plant_years = int(a.history["alive"].sum())
    cpu_ours, cpu_kd = race.cpu
    print(
        f"plants {side / 1000:g} km x {side / 1000:g} km, {years} years: {len(a):,} live plants at the end "
        f"(peak {int(a.history['alive'].sum(axis=1).max()):,}), {plant_years:,} plant-years; same plants both sides"
    )
    print(
        f"  ours      {cpu_ours:7.1f} s CPU ({race.seconds[0]:.1f} s wall)  "
        f"{plant_years / cpu_ours:11,.0f} plant-years/s"
    )
    print(
        f"  KD-tree   {cpu_kd:7.1f} s CPU ({race.seconds[1]:.1f} s wall)  {plant_years / cpu_kd:11,.0f} plant-years/s"
        f"   ours {race.cpu_ratio():.2f}x  ({race.load_text()})"
    )


# -- animals: a plain-Python agent loop ----------------------------------------------------------------


class PythonAnimals:
    """The animal step of ``core.ecosystem._animals.animals_steps``, agent by agent in plain Python
    (numpy's scalars where the engine rounds to float32), from the same set-up and the same draws."""

    def __init__(self, spec, hab):
        # the set-up is the engine's own (not timed): run it for zero steps and take its state
        self.spec = spec
        f32 = np.float32
        a = _animals
        heights, water = a.cell_fields(hab)
        rows, cols = water.shape
        cell = hab.cell_size
        animals = spec.animals
        na = len(animals)
        names = [x.name for x in animals]

        def col(name):
            return np.array([getattr(x, name) for x in animals], np.float64)

        self.gain, self.repro, self.metab, self.max_age = (
            col("energy_gain"), col("reproduce"), col("metabolism"), col("max_age"),
        )  # fmt: skip
        self.mutation, self.drink, self.catches = col("mutation"), col("drink_every"), col("catch")
        self.home = col("home_range") / cell
        self.fastest = 2.0 * float(col("speed").max(initial=cell)) / cell
        pad = int(math.ceil(self.fastest)) + 1
        nr, nc = rows + 2 * pad, cols + 2 * pad
        self.cell, self.nc = cell, nc

        def padded(values, fill, dtype):
            out = np.full((nr, nc), fill, dtype)
            out[pad : pad + rows, pad : pad + cols] = values
            return out.ravel()

        free = padded(~water, False, bool)
        self.allowed = free.astype(f32).tolist()
        self.allowed = [f32(v) for v in self.allowed]
        ground = padded(heights, 0.0, np.float32)
        self.ground = [f32(v) for v in ground]
        self.capacity = padded((~water).astype(np.float64), 0.0, np.float64).tolist()
        self.deficit = [0.0] * (nr * nc)
        self.deficit_scale = 1.0
        self.to_water = [math.inf] * (nr * nc)  # the race has no water
        self.wear = [0.0] * (nr * nc)
        self.wear_scale, self.wear_total = 1.0, 0.0
        self.n_land = max(int(free.sum()), 1)
        self.grazer = [x.eats == "plants" for x in animals]
        self.wears = [x.trails for x in animals]
        web = eco.food_web(animals)
        self.prey_of = [[names.index(p) for p in web[n]] for n in names]
        self.hunting = [k for k in range(na) if self.prey_of[k]]
        self.na = na
        rng = np.random.default_rng(np.random.SeedSequence([spec.seed, eco_random_animals(), 0]))
        self.rng = rng
        land = np.flatnonzero(free)
        counts = [x.count for x in animals]
        n0 = sum(counts)
        kind = np.repeat(np.arange(na), counts).astype(np.int64)
        start = land[rng.integers(0, len(land), n0)]
        fx = (start % nc) + rng.random(n0)
        fy = (start // nc) + rng.random(n0)
        energy = rng.random(n0) * 2.0 * self.gain[kind]
        age = np.floor(rng.random(n0) * self.max_age[kind]).astype(np.int64)
        speed = col("speed")[kind] / cell
        vision = col("vision")[kind] / cell
        heading = rng.integers(0, 8, n0)
        thirst = np.floor(rng.random(n0) * np.maximum(self.drink[kind], 1.0)).astype(np.int64)
        # struct of lists: one agent is the index i into each
        self.fx, self.fy = fx.tolist(), fy.tolist()
        self.den_x, self.den_y = list(self.fx), list(self.fy)
        self.kind, self.energy, self.age = kind.tolist(), energy.tolist(), age.tolist()
        self.speed, self.vision, self.heading, self.thirst = (
            speed.tolist(),
            vision.tolist(),
            heading.tolist(),
            thirst.tolist(),
        )
        self.dx32 = [f32(v) for v in a.DX]
        self.dy32 = [f32(v) for v in a.DY]
        self.turn = [[f32(1.0 + a.PERSISTENCE * max(c, 0.0)) for c in row] for row in a._COS.tolist()]
        self.graze_pull = [f32(a.GRAZE) if g else f32(0.0) for g in self.grazer]
        self.population = [np.bincount(kind, minlength=na)]

    def step(self):
        f32, one = np.float32, np.float32(1.0)
        a, spec, rng, nc = _animals, self.spec, self.rng, self.nc
        fx, fy, kind, energy, speed, vision = self.fx, self.fy, self.kind, self.energy, self.speed, self.vision
        n = len(fx)
        gain = self.gain.tolist()
        here = [int(fy[i]) * nc + int(fx[i]) for i in range(n)]
        gx, gy, goal = [0.0] * n, [0.0] * n, [False] * n
        home = self.home.tolist()
        for i in range(n):
            h = home[kind[i]]
            if h > 0.0:
                hx, hy = self.den_x[i] - fx[i], self.den_y[i] - fy[i]
                hd = math.sqrt(hx * hx + hy * hy)
                if hd > h:
                    gx[i], gy[i], goal[i] = hx / hd, hy / hd, True
        hungry = [energy[i] < a.SATIETY * gain[kind[i]] for i in range(n)]
        chased, threat, threat_d2 = [-1] * n, [-1] * n, [math.inf] * n
        for k in self.hunting:
            hunters = [i for i in range(n) if kind[i] == k]
            prey = [i for i in range(n) if kind[i] in self.prey_of[k]]
            if not hunters or not prey:
                continue
            reach = max(max(vision[i] for i in hunters), max(vision[i] for i in prey))
            grid = {}
            for p in prey:
                grid.setdefault((int(fx[p] / reach), int(fy[p] / reach)), []).append(p)
            near = {}  # prey -> [(d2, hunter)]
            for hnt in hunters:
                cx, cy = int(fx[hnt] / reach), int(fy[hnt] / reach)
                best = None
                for ox in (-1, 0, 1):
                    for oy in (-1, 0, 1):
                        for p in grid.get((cx + ox, cy + oy), ()):
                            dx, dy = fx[p] - fx[hnt], fy[p] - fy[hnt]
                            d2 = dx * dx + dy * dy
                            if hungry[hnt] and d2 <= vision[hnt] * vision[hnt] and (best is None or (d2, p) < best):
                                best = (d2, p)
                            if d2 <= vision[p] * vision[p]:
                                near.setdefault(p, []).append((d2, hnt))
                if best is not None:
                    chased[hnt] = best[1]
            for p, seen in near.items():
                d2, hnt = min(seen)
                if d2 < threat_d2[p]:
                    threat[p], threat_d2[p] = hnt, d2
        walks = [chased[i] < 0 and threat[i] < 0 for i in range(n)]
        for tgt, sign in ((chased, 1.0), (threat, -1.0)):
            for i in range(n):
                t = tgt[i]
                if t >= 0:
                    ddx, ddy = fx[t] - fx[i], fy[t] - fy[i]
                    dd = max(math.sqrt(ddx * ddx + ddy * ddy), 1e-9)
                    gx[i], gy[i], goal[i] = sign * ddx / dd, sign * ddy / dd, True
        any_goal = any(goal)
        attract = f32(spec.trail_attraction)
        use_trails = spec.trail_attraction > 0.0 and any(walks)
        half32 = f32(max(a.TRAIL_HALF * self.wear_total / self.n_land, spec.trail_wear, 1e-12))
        u_walk = rng.random(n)
        slope = f32(1.0 / a.SLOPE)
        for i in range(n):
            s32 = f32(speed[i])
            px, py = f32(fx[i]), f32(fy[i])
            ratio = slope / s32
            g_here = self.ground[here[i]]
            gx32, gy32 = f32(gx[i]), f32(gy[i])
            cum, total = [], f32(0.0)
            for k in range(8):
                qx = px + s32 * self.dx32[k]
                qy = py + s32 * self.dy32[k]
                qc = int(qy) * nc + int(qx)
                grade = (self.ground[qc] - g_here) * ratio
                w = self.allowed[qc] / (one + grade * grade)
                w = w * self.turn[self.heading[i]][k]
                if use_trails:
                    worn = f32(self.wear[qc] * self.wear_scale)
                    w = w * (one + (attract * f32(walks[i])) * (worn / (worn + half32)))
                grass = f32(self.capacity[qc] - self.deficit[qc] * self.deficit_scale)
                w = w * (one + (self.graze_pull[kind[i]] * f32(hungry[i] and not goal[i])) * grass)
                if any_goal:
                    cos = max(self.dx32[k] * gx32 + self.dy32[k] * gy32, f32(0.0))
                    w = w * (one + (f32(a.GOAL) * f32(goal[i])) * cos)
                total = f32(total + w) if k else w
                cum.append(total)
            u = f32(u_walk[i]) * total
            pick = min(sum(1 for c in cum if c <= u), 7)
            if total > 0.0:
                self.heading[i] = pick
                fx[i] = fx[i] + speed[i] * a.DX[pick]
                fy[i] = fy[i] + speed[i] * a.DY[pick]
        here = [int(fy[i]) * nc + int(fx[i]) for i in range(n)]
        for i in range(n):
            if self.wears[kind[i]]:
                self.wear[here[i]] += spec.trail_wear / self.wear_scale
                self.wear_total += spec.trail_wear
        fade = 1.0 - spec.trail_decay
        self.wear_total *= fade
        self.wear_scale *= fade  # (the race never runs the scale down to 1e-150)
        metab, max_age = self.metab.tolist(), self.max_age.tolist()
        for i in range(n):
            energy[i] = energy[i] - metab[kind[i]]
            self.age[i] += 1
            self.thirst[i] = 0 if self.to_water[here[i]] <= speed[i] + 1.0 else self.thirst[i] + 1
        order = rng.permutation(n).tolist()
        lucky_u = rng.random(n)
        catches = self.catches.tolist()
        lucky = [lucky_u[i] < catches[kind[i]] for i in range(n)]
        hungry = [energy[i] < a.SATIETY * gain[kind[i]] for i in range(n)]
        dead = [False] * n
        eaten = set()
        for i in order:
            if self.grazer[kind[i]] and hungry[i] and here[i] not in eaten:
                c = here[i]
                eaten.add(c)
                energy[i] += gain[kind[i]] * (self.capacity[c] - self.deficit[c] * self.deficit_scale)
        for c in eaten:
            self.deficit[c] = self.capacity[c] / self.deficit_scale
        claimed = set()
        for i in order:
            p = chased[i]
            if p >= 0 and lucky[i]:
                ddx, ddy = fx[p] - fx[i], fy[p] - fy[i]
                if ddx * ddx + ddy * ddy <= speed[i] * speed[i] and p not in claimed:
                    claimed.add(p)
                    dead[p] = True
                    energy[i] += gain[kind[i]]
        u_birth = rng.random(n)
        repro = self.repro.tolist()
        mothers = [i for i in range(n) if not dead[i] and energy[i] > gain[kind[i]] and u_birth[i] < repro[kind[i]]]
        m = len(mothers)
        for i in mothers:
            energy[i] *= 0.5
        us, uv, heads = rng.random(m), rng.random(m), rng.integers(0, 8, m).tolist()
        mutation = self.mutation.tolist()
        children = []
        for j, i in enumerate(mothers):
            mu = mutation[kind[i]]
            cs = min(max(speed[i] * (1.0 + mu * (2.0 * us[j] - 1.0)), 0.1 / self.cell), self.fastest)
            cv = min(max(vision[i] * (1.0 + mu * (2.0 * uv[j] - 1.0)), 0.0), 10_000.0 / self.cell)
            children.append((fx[i], fy[i], kind[i], energy[i], cs, cv, heads[j]))
        for i in range(n):
            if energy[i] <= 0.0 or self.age[i] > max_age[kind[i]]:
                dead[i] = True
        keep = [i for i in range(n) if not dead[i]]
        for name in ("fx", "fy", "den_x", "den_y", "kind", "energy", "age", "speed", "vision", "heading", "thirst"):
            old = getattr(self, name)
            setattr(self, name, [old[i] for i in keep])
        for cfx, cfy, ck, ce, cs, cv, ch in children:
            self.fx.append(cfx)
            self.fy.append(cfy)
            self.den_x.append(cfx)
            self.den_y.append(cfy)
            self.kind.append(ck)
            self.energy.append(ce)
            self.age.append(0)
            self.speed.append(cs)
            self.vision.append(cv)
            self.heading.append(ch)
            self.thirst.append(0)
        self.deficit_scale *= 1.0 - spec.grass_regrowth
        self.population.append(np.bincount(self.kind, minlength=self.na))


def eco_random_animals():
    """The animals' stream number (``core.ecosystem._random.ANIMALS``)."""
    from worldseed.core.ecosystem import _random

    return _random.ANIMALS


def race_spec(agents, steps):
    """Wolf-Sheep 'large': grazers and hunters on 250 x 250 cells, about ``agents`` all along."""
    deer = dict(name="Deer", eats="plants", count=int(agents * 0.93), energy_gain=4.0, reproduce=0.04, speed=4.0,
                vision=20.0, metabolism=1.0, max_age=300)  # fmt: skip
    wolf = dict(name="Wolf", eats=["Deer"], count=agents - int(agents * 0.93), energy_gain=20.0, reproduce=0.01,
                speed=6.0, vision=40.0, metabolism=1.0, max_age=500, catch=0.3)  # fmt: skip
    return eco.from_dict({"steps": steps, "seed": 3, "grass_regrowth": 0.1, "trail_attraction": 3.0,
                          "trail_decay": 0.002, "animals": [deer, wolf]})  # fmt: skip


def animals_race(agents, steps, python_steps, rounds):
    hab = eco.habitat(np.full((251, 251), 50.0), cell_size=4.0)
    spec = race_spec(agents, steps)
    race = _loader.interleaved(rounds, lambda: drive(eco.animals_steps(spec, hab)), warmup=False)
    run = race.results[0]
    agent_steps = int(run.history["population"][:-1].sum())  # the agents each step starts with
    cpu = race.cpu[0]
    print(
        f"animals 250 x 250 cells, {agents:,} agents at step 0, {steps:,} steps: {agent_steps:,} agent-steps "
        f"(population {int(run.history['population'][0].sum()):,} -> {int(run.history['population'][-1].sum()):,}, "
        f"min {int(run.history['population'].sum(axis=1).min()):,})"
    )
    print(
        f"  ours      {cpu:7.2f} s CPU ({race.seconds[0]:.2f} s wall)  {agent_steps / cpu:11,.0f} agent-steps/s  "
        f"({race.load_text()})"
    )
    # the Python loop: the same first python_steps steps, checked equal, then per agent-step
    short = eco.from_dict({**eco.to_dict(spec), "steps": python_steps})
    t0 = time.process_time()
    ours = drive(eco.animals_steps(short, hab))
    cpu_ours = time.process_time() - t0
    py = PythonAnimals(short, hab)
    t0 = time.process_time()
    for _ in range(python_steps):
        py.step()
    cpu_py = time.process_time() - t0
    same = np.array_equal(np.array(py.population), ours.history["population"])
    same &= np.array_equal(np.array(py.kind), ours.kind)
    same &= np.array_equal(np.array(py.energy), ours.energy)
    cell, x0, pad = hab.cell_size, hab.origin[0], int(math.ceil(py.fastest)) + 1
    same &= np.array_equal(x0 + (np.array(py.fx) - pad) * cell, ours.x)
    if not same:
        sys.exit("animals: the plain-Python loop differs from ours; no figures")
    steps_py = int(ours.history["population"][:-1].sum())
    print(
        f"  ours      {cpu_ours:7.2f} s CPU for the first {python_steps} steps ({steps_py:,} agent-steps): "
        f"{steps_py / cpu_ours:11,.0f} agent-steps/s; same animals as the Python loop, bit for bit"
    )
    print(
        f"  Python    {cpu_py:7.2f} s CPU for them: {steps_py / cpu_py:11,.0f} agent-steps/s   "
        f"ours {cpu_py / cpu_ours:.0f}x"
    )


# -- the statistics ----------------------------------------------------------------------------------


def clark_evans(x, y, window, buffer):
    x0, y0, x1, y1 = window
    density = len(x) / ((x1 - x0) * (y1 - y0))
    inner = (x >= x0 + buffer) & (x < x1 - buffer) & (y >= y0 + buffer) & (y < y1 - buffer)
    d, _ = cKDTree(np.column_stack([x, y])).query(np.column_stack([x[inner], y[inner]]), k=2)
    return float(d[:, 1].mean() / (0.5 / math.sqrt(density)))


def statistics(seeds):
    flat = eco.habitat(np.full((81, 81), 50.0), cell_size=2.0)
    print("statistics (the tests' cases, more seeds):")
    slopes = []
    for seed in range(seeds):
        pine = {**PIONEER, "name": "Pine", "initial_density": 3000.0, "seeds_per_year": 0.0, "immigrants": 0.0,
                "mortality": 0.0, "stress": 0.0, "max_age": 1000, "max_radius": 5.0, "growth_years": 30.0,
                "variation": 0.3}  # fmt: skip
        hab = eco.habitat(np.full((51, 51), 50.0), cell_size=2.0)
        r = drive(eco.plants_steps(eco.from_dict({"years": 200, "seed": seed, "species": [pine]}), hab))
        density = r.history["alive"][:, 0] / r.area_m2
        r3 = np.array([np.mean(r.snapshot(y)["radius"] ** 3) for y in r.snapshot_years])
        thin = density < 0.5 * density[0]
        slopes.append(np.polyfit(np.log(density[thin]), np.log(r3[thin]), 1)[0])
    print(f"  self-thinning slope (log mean r^3 vs log density; Yoda: -1.5): {np.round(slopes, 3).tolist()}")
    canopy, saplings, shares = [], [], []
    for seed in range(seeds):
        spec = eco.from_dict({"years": 120, "seed": seed, "species": [{**PIONEER, "dispersal": 20.0},
                                                                       {**CLIMAX, "dispersal": 4.0}]})  # fmt: skip
        r = drive(eco.plants_steps(spec, flat))
        i, j = eco.overlapping_pairs(r.x, r.y, r.radius)
        under = np.zeros(len(r), bool)
        under[np.where(r.height[i] < r.height[j], i, j)] = True
        top = ~under & (r.height > 5.0)
        sap = (r.kind == 1) & (r.height < 3.0)
        canopy.append(clark_evans(r.x[top], r.y[top], r.own, 15.0))
        saplings.append(clark_evans(r.x[sap], r.y[sap], r.own, 15.0))
        spec = eco.from_dict({"years": 170, "seed": seed, "snapshot_every": 10,
                              "species": [{**PIONEER, "dispersal": 20.0}, {**CLIMAX, "dispersal": 12.0}]})  # fmt: skip
        r = drive(eco.plants_steps(spec, flat, clearings=[(100, 0.0, 0.0, 30.0)]))
        share = []
        for year in (110, 140, 170):
            s = r.snapshot(year)
            inside = np.hypot(s["x"], s["y"]) < 25.0
            share.append(round(float((s["kind"][inside] == 1).mean()), 2))
        shares.append(share)
    print(f"  Clark-Evans index of the canopy trees (>= 1.2 regular): {np.round(canopy, 2).tolist()}")
    print(f"  Clark-Evans index of the short-dispersal saplings (<= 0.9 clustered): {np.round(saplings, 2).tolist()}")
    print(f"  shade-tolerant share in a clearing 10, 40, 70 years after it: {shares}")
    moisture = np.tile(np.linspace(0.0, 1.0, 81), (81, 1))
    hab = eco.habitat(np.full((81, 81), 50.0), cell_size=2.0, moisture=moisture)
    wet = {**PIONEER, "name": "Alder", "moisture": 0.9, "moisture_tolerance": 0.5}
    dry = {**PIONEER, "name": "Pine", "moisture": 0.1, "moisture_tolerance": 0.5}
    r = drive(eco.plants_steps(eco.from_dict({"years": 40, "species": [wet, dry]}), hab))
    under = moisture[0, np.rint((r.x + 80.0) / 2.0).astype(int)]
    wet_mean, dry_mean = under[r.kind == 0].mean(), under[r.kind == 1].mean()
    print(f"  mean moisture under the wet-loving / dry-loving species: {wet_mean:.3f} / {dry_mean:.3f}")
    hills = hills_habitat()
    deer = dict(name="Deer", eats="plants", count=300, energy_gain=4.0, reproduce=0.04, vision=20.0, max_age=300,
                drink_every=20, home_range=100.0)  # fmt: skip
    ratios = []
    for seed in range(min(seeds, 5)):
        spec = eco.from_dict({"steps": 1000, "seed": seed, "grass_regrowth": 0.03, "trail_decay": 0.001,
                              "trail_attraction": 40.0, "animals": [deer]})  # fmt: skip
        a = drive(eco.animals_steps(spec, hills))
        b = drive(eco.animals_steps(spec, hills, trail_attraction=0.0))
        ratios.append(round(share_on_top(a) / share_on_top(b), 2))
    print(f"  trails: steps on the 5 % most worn cells, with feedback over without (>= 3): {ratios}")


def share_on_top(run):
    wear, steps = run.wear.ravel(), run.steps_on.ravel()
    top = np.argsort(-wear, kind="stable")[: wear.size // 20]
    return steps[top].sum() / steps.sum()


def hills_habitat():
    ts = terrain.TerrainSpec(resolution=129, size=512.0, height=60.0, scale=256.0, octaves=5, sea_level=0.12)
    h = terrain.terrain_heights(ts, seed=1)
    layers = terrain.terrain_layers(h, terrain_spec=ts, biomes_spec=biomes.BiomesSpec(enabled=True), seed=1)
    return eco.terrain_habitat(layers, sea_level=0.12 * 60.0)


def high_pass(v, width=151):
    v = np.asarray(v, np.float64)
    padded = np.concatenate([np.full(width // 2, v[0]), v, np.full(width // 2, v[-1])])
    return v - np.convolve(padded, np.ones(width) / width, mode="valid")


def presets(seeds):
    hab = hills_habitat()
    lags = np.arange(-120, 121)
    print(f"presets on 512 m of hills with lakes, {seeds} seeds, 1,000 steps:")
    for name in eco.preset_names():
        spec = eco.load_preset(name)
        t0 = time.process_time()
        forest = drive(eco.plants_steps(spec, hab))
        grass = eco.grass_capacity(forest, hab)
        t_plants = time.process_time() - t0
        for label, vegetation in (("bare ground", None), (f"grass under its {spec.years}-year forest", grass)):
            alive, best, pooled = 0, [], []
            for seed in range(seeds):
                s = eco.from_dict({**eco.to_dict(spec), "seed": seed})
                p = drive(eco.animals_steps(s, hab, vegetation=vegetation)).history["population"]
                if (p[-1] > 0).all():
                    alive += 1
                    a, b = high_pass(p[100:, 0]), high_pass(p[100:, 1])
                    a, b = (a - a.mean()) / a.std(), (b - b.mean()) / b.std()
                    n = len(a)
                    c = np.array(
                        [
                            np.dot(a[: n - g], b[g:]) / (n - g) if g >= 0 else np.dot(a[-g:], b[: n + g]) / (n + g)
                            for g in lags
                        ]
                    )
                    pooled.append(c)
                    best.append(int(lags[np.argmax(c)]))
            lag = int(lags[np.argmax(np.mean(pooled, axis=0))]) if pooled else None
            print(
                f"  {name:9s} {label:32s} both alive {alive}/{seeds}; hunters lag grazers by {lag} steps "
                f"(pooled), positive lag in {sum(g > 0 for g in best)}/{len(best)} seeds"
            )
        print(f"  {name:9s} its forest: {len(forest):,} plants on {forest.area_m2 / 1e4:.1f} ha, {t_plants:.1f} s CPU")


def tiles():
    west, east, both = (0.0, 0.0, 60.0, 60.0), (60.0, 0.0, 120.0, 60.0), (0.0, 0.0, 120.0, 60.0)
    hab = eco.habitat(np.full((301, 301), 50.0), cell_size=2.0)
    print("tiles: two 60 m tiles against one simulation of both (plants of both tiles near the seam, +-10 m):")
    for years in (30, 60, 100, 150):
        row = []
        spec = eco.from_dict({"years": years, "species": [{**PIONEER, "dispersal": 8.0}, {**CLIMAX, "dispersal": 4.0}]})
        reach = eco.interaction_reach(spec.species)
        for reaches in (1.0, 2.0, 3.0):
            runs = [drive(eco.plants_tile_steps(spec, hab, tile=t, halo=reaches * reach)) for t in (west, east, both)]
            near = [set(r.uid[np.abs(r.x - 60.0) < 10.0].tolist()) for r in runs]
            joined = near[0] | near[1]
            row.append(f"halo {reaches:g} x {reach:.0f} m: {len(joined & near[2]) / max(1, len(joined | near[2])):.3f}")
        print(f"  {years:3d} years  " + "   ".join(row))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--stats", action="store_true")
    parser.add_argument("--presets", action="store_true")
    parser.add_argument("--tiles", action="store_true")
    parser.add_argument("--python-steps", type=int, default=5)
    args = parser.parse_args()
    print(f"load {_loader.load():.1f} at the start")
    if args.stats:
        statistics(3 if args.quick else 5)
    if args.presets:
        presets(5 if args.quick else 20)
    if args.tiles:
        tiles()
    if not (args.stats or args.presets or args.tiles):
        if args.quick:
            plants_race(500.0, 50, 1)
            animals_race(10_000, 200, args.python_steps, 1)
        else:
            plants_race(1000.0, 100, 1)
            animals_race(10_000, 1000, args.python_steps, 1)


if __name__ == "__main__":
    main()
