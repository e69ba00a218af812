"""Benchmark core.biomes: biome classification and splat weights per 1025^2 tile, each
raced against a straightforward numpy version of the same thing in the same run.

Run from the repository root::

    .venv/bin/python bench/bench_biomes.py            # about 30 s on an idle machine
    .venv/bin/python bench/bench_biomes.py --quick    # fewer rounds

Targets (printed, not asserted): classification <= 20 ms and splat weights <= 0.3 s
per 1025^2 tile (8 layers: height, slope, three biome rules, patch noise, deposits).

The tile is the default terrain's shape at 1025^2 (1024 m, 120 m high, a sea at a fifth of the
height), its moisture from :func:`core.biomes.moisture` with the default ``[biomes]`` settings.

- **classify** against the per-biome loop everybody writes first: for each biome (last to first,
  so the first in the table wins) a mask of its ranges, assigned with ``ids[mask] = biome``; the
  ids must be identical (asserted).
- **splat weights** against a plain float64 numpy version of the same rules (``np.where`` ramps,
  a blur by shifted sums, layers composited in order); the weights must agree to 1e-4 (asserted).

Rounds are interleaved (ours, anchor, ours, anchor, ...) and the best of each side is taken: the
machine is shared, and the 1-minute load average is printed beside each figure, with our side's
best process CPU time (steadier than wall time on a loaded machine). Moisture, packing
and detail counts are timed alone (no anchor), for information.

- **distance** (the moisture's closeness to the sea and to flow lines): ours, exact within a
  bounded reach in numpy (64 cells for the sea, the default ``flow_reach`` for the flow lines),
  against scipy's exact Euclidean distance transform (C; bench-only, skipped without scipy); the
  distances must be equal within the reach (asserted). Target <= 60 ms at a reach of 64 cells.
"""

import sys

import _loader
import numpy as np

from worldseed.core import biomes, splat
from worldseed.core.erosion import flow_accumulation
from worldseed.core.heightmap import slope_degrees
from worldseed.core.noise import fbm
from worldseed.core.splat import SplatSpec
from worldseed.core.terrain import TerrainSpec, terrain_heights

SPLAT_STREAM = 0x53504C54  # core.biomes' patch-noise stream (SeedSequence([seed, stream, layer]))

LAYERS = [
    SplatSpec(name="Grass"),
    SplatSpec(name="Sand", height_range=(-1.0e6, 27.0), height_fade=2.0),
    SplatSpec(name="Forest", biomes=(("forest", 1.0), ("rain forest", 0.8)), biome_fade=8.0),
    SplatSpec(name="Taiga", biomes=(("taiga", 1.0), ("tundra", 0.5)), biome_fade=8.0),
    SplatSpec(name="Moss", patchiness=0.55, noise_scale=24.0, noise_fade=0.1, strength=0.6),
    SplatSpec(name="Scree", deposits=1.0, deposit_depth=0.3),
    SplatSpec(name="Rock", slope_range=(32.0, 90.0), slope_fade=6.0),
    SplatSpec(name="Snow", biomes=(("snow", 1.0),), biome_fade=8.0, slope_range=(0.0, 45.0), slope_fade=5.0),
]


def tile():
    spec = TerrainSpec(resolution=1025, size=1024.0, height=120.0, sea_level=0.2)
    h = terrain_heights(spec, seed=1).metres
    sea = spec.sea_level * spec.height
    flow = flow_accumulation(h.astype(np.float64), cell_size=spec.cell_size)
    m = biomes.moisture(h, **moisture_args(spec, sea, flow))
    return spec, h, m, sea, flow


def moisture_args(spec, sea, flow):
    """The default ``[biomes]`` moisture of the tile: noise, the sea and the flow lines."""
    kw = biomes.moisture_kwargs(biomes.BiomesSpec())
    return dict(cell_size=spec.cell_size, seed=1, sea_level=sea, flow=flow, **kw)


# --- anchors ------------------------------------------------------------------------------------


def classify_loop(h, m, table, sea_level, height):
    """The per-biome loop: one mask per biome (last to first, so the first in the table wins), with
    the thresholds of classify's Notes (elevation ends as heights), so the ids must be identical."""
    span = height - sea_level
    ids = np.full(h.shape, table.fallback, np.uint8)
    for b in reversed(table.land):
        (e0, e1), (m0, m1) = np.float32(table.elevation[b]), np.float32(table.moisture[b])
        mask = np.ones(h.shape, bool)
        if e0 > 0:
            mask &= h >= h.dtype.type(sea_level + float(e0) * span)
        if e1 < 1:
            mask &= h < h.dtype.type(sea_level + float(e1) * span)
        if m0 > 0:
            mask &= m >= m0
        if m1 < 1:
            mask &= m < m1
        ids[mask] = b
    if sea_level > 0 and table.water >= 0:
        ids[h <= h.dtype.type(sea_level)] = table.water
    return ids


def _ramp(v, lo, hi, fade, low, high):
    if low and high:
        d = np.minimum(v - lo, hi - v)
    else:
        d = v - lo if low else hi - v
    if not fade:
        return np.where(d >= 0, 1.0, 0.0)
    t = np.clip(d / fade, 0.0, 1.0)
    return t * t * (3 - 2 * t)


def _blur(a, k):
    for _ in range(2):
        for axis in (0, 1):
            pad = [(k, k) if i == axis else (0, 0) for i in (0, 1)]
            p = np.pad(a, pad, mode="edge")
            n = a.shape[axis]
            a = sum(np.take(p, np.arange(d, d + n), axis=axis) for d in range(2 * k + 1)) / (2 * k + 1)
    return a


def splat_plain(layers, h, cell, ids, table, deposited, seed):
    """The same rules in plain float64 numpy."""
    slope = slope_degrees(h, cell_size=cell).astype(np.float64)
    h = h.astype(np.float64)
    factors = []
    for i, layer in enumerate(layers[1:], start=1):
        f = np.full(h.shape, layer.strength)
        lo, hi = layer.height_range
        if lo > -1e7 or hi < 1e7:
            f = f * _ramp(h, lo, hi, layer.height_fade, lo > -1e7, hi < 1e7)
        lo, hi = layer.slope_range
        if lo > 0 or hi < 90:
            f = f * _ramp(slope, lo, hi, layer.slope_fade, lo > 0, hi < 90)
        if layer.biomes:
            b = np.zeros(h.shape)
            for name, weight in layer.biomes:
                b = np.where(ids == table.names.index(name), weight, b)
            k = round(layer.biome_fade / (4 * cell))
            f = f * (_blur(b, k) if k >= 1 else b)
        if layer.deposits:
            t = np.clip(deposited / layer.deposit_depth, 0, 1)
            d = t * t * (3 - 2 * t)
            f = f * (1 - layer.deposits + layer.deposits * d)
        if layer.patchiness:
            rng = np.random.default_rng(np.random.SeedSequence([seed, SPLAT_STREAM, i]))
            n = fbm(h.shape, scale=layer.noise_scale / cell, octaves=4, seed=rng).astype(np.float64)
            u = 1 / (1 + np.exp(-1.702 * n / 0.155))
            f = f * _ramp(u, layer.patchiness, 1.0, layer.noise_fade, True, False)
        factors.append(f)
    out = np.zeros((len(layers),) + h.shape)
    rest = np.ones(h.shape)
    for i in range(len(layers) - 1, 0, -1):
        out[i] = factors[i - 1] * rest
        rest = rest - out[i]
    out[0] = rest
    return out


def distances(rounds, spec, h, sea, flow):
    """The bounded distance (ours) against scipy's exact Euclidean distance transform (C), on the
    tile's sea and its flow lines; equal wherever within the reach (asserted)."""
    try:
        from scipy.ndimage import distance_transform_edt
    except ImportError:  # the anchor is optional: time ours alone
        distance_transform_edt = None
    kw = biomes.moisture_kwargs(biomes.BiomesSpec())
    cell = spec.cell_size
    cases = (
        ("sea", biomes.sea_mask(h, sea_level=sea), 64.0 * cell),
        ("flow lines", flow >= kw["flow_area"], kw["flow_reach"]),
    )
    for name, mask, reach in cases:
        ours = lambda mask=mask, reach=reach: biomes.bounded_distance(mask, reach=reach, cell_size=cell)  # noqa: E731
        cells = round(reach / cell)
        if distance_transform_edt is None:
            t, _ = _loader.best_of(rounds, ours)
            print(f"  distance to the {name:10s} (reach {cells} cells) {t * 1000:6.1f} ms  (no scipy: no anchor)")
            continue
        race = _loader.interleaved(rounds, ours, lambda mask=mask: distance_transform_edt(~mask, sampling=cell))
        mine, edt = race.results
        within = edt <= reach
        assert np.array_equal(mine[within], edt[within]) and np.isinf(mine[~within]).all(), name
        print(
            f"  distance to the {name:10s} (reach {cells} cells) {race.seconds[0] * 1000:6.1f} ms"
            f" (cpu {race.cpu[0] * 1000:.1f})  scipy EDT {race.seconds[1] * 1000:6.1f} ms"
            f"  ratio {race.ratio():.2f}x  target <= 60 ms; equal within the reach  ({race.load_text()})"
        )


# --- the bench ----------------------------------------------------------------------------------


def main(quick=False):
    rounds = 3 if quick else 7
    spec, h, m, sea, flow = tile()
    table = biomes.load_table("whittaker")
    n = h.shape[0]
    print(f"core.biomes on a {n}^2 tile ({spec.size:g} m, {spec.height:g} m high, sea at {sea:g} m)")

    distances(rounds, spec, h, sea, flow)
    kw = moisture_args(spec, sea, flow)
    race = _loader.interleaved(
        rounds,
        lambda: biomes.moisture(h, **kw),
        lambda: biomes.moisture(h, cell_size=spec.cell_size, seed=1, sea_level=sea),
    )
    print(
        f"  moisture (noise, sea {kw['sea_reach']:g} m, flow lines {kw['flow_reach']:g} m)"
        f" {race.seconds[0] * 1000:6.1f} ms (cpu {race.cpu[0] * 1000:.1f});"
        f" noise alone {race.seconds[1] * 1000:.1f} ms (cpu {race.cpu[1] * 1000:.1f})  ({race.load_text()})"
    )
    race = _loader.interleaved(
        rounds,
        lambda: biomes.classify(h, m, table=table, sea_level=sea, height=spec.height),
        lambda: classify_loop(h, m, table, sea, spec.height),
    )
    ours, anchor = race.results
    assert ours.tobytes() == anchor.tobytes(), "classify differs from the per-biome loop"
    print(
        f"  classify                 {race.seconds[0] * 1000:7.1f} ms (cpu {race.cpu[0] * 1000:.1f})"
        f"  per-biome loop {race.seconds[1] * 1000:6.1f} ms"
        f"  ratio {race.ratio():.1f}x  target <= 20 ms  ({race.load_text()})"
    )

    ids = ours
    deposited = np.clip(fbm(h.shape, scale=40.0, octaves=3, seed=7), 0.0, None).astype(np.float32)
    kw = dict(heights=h, cell_size=spec.cell_size, biomes=ids, table=table, deposited=deposited, seed=1)
    race = _loader.interleaved(
        max(2, rounds // 2),
        lambda: splat.splat_weights(LAYERS, **kw),
        lambda: splat_plain(LAYERS, h, spec.cell_size, ids, table, deposited, 1),
    )
    weights, plain = race.results
    err = float(np.abs(weights - plain).max())
    assert err < 1e-4, f"splat weights differ from the plain version by {err:g}"
    print(
        f"  splat weights ({len(LAYERS)} layers) {race.seconds[0] * 1000:7.1f} ms (cpu {race.cpu[0] * 1000:.1f})"
        f"  plain numpy {race.seconds[1] * 1000:6.1f} ms"
        f"  ratio {race.ratio():.1f}x  target <= 300 ms  (max difference {err:.1e}; {race.load_text()})"
    )

    t, images = _loader.best_of(max(2, rounds // 2), splat.pack_splats, weights)
    sums = sum(im.astype(np.int32).sum(axis=-1) for im in images)
    assert (sums == 255).all()
    print(
        f"  pack_splats ({len(images)} images)   {t * 1000:7.1f} ms  every pixel sums to 255"
        f"  (load {_loader.load():.1f})"
    )
    t, counts = _loader.best_of(
        rounds, biomes.detail_counts, weights[0], cell_size=spec.cell_size, per_m2=4.0, detail_resolution=1024, seed=1
    )
    print(
        f"  detail_counts 1024^2     {t * 1000:7.1f} ms  {int(counts.sum()):,} instances  (load {_loader.load():.1f})"
    )


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
