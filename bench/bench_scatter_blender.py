"""100,000 prop instances into Blender, against making the same instances as linked duplicates.

    .venv/bin/python bench/bench_scatter_blender.py

Ours: the placements of 100,000 props (already computed) written to one point
object that Geometry Nodes instances (``operators.bridge.scatter``), until the
depsgraph has evaluated every instance; and the whole Scatter Props operator
(terrain heights, Poisson sampling with rules, placement, props, instancing)
on a 1025 x 1025 terrain. Anchor, measured in the same run: the same
placements as linked duplicates (one object per instance sharing the mesh,
unique names, linked to a collection: the classic way), on 20,000 of them and
scaled to 100,000. Target: under 1 s for 100,000 instances. Ours and the anchor
run interleaved (ours, anchor, ours, anchor), each keeping its best, with the
1-minute load average printed; both must make one instance per placement.
"""

import importlib
import time
from functools import partial

import _loader  # noqa: F401
import bpy
import numpy as np
from _loader import interleaved, load

N = 100_000
ANCHOR_N = 20_000
ROUNDS = 2  # interleaved rounds (ours, anchor, ours, anchor)


def clear():
    bpy.ops.wm.read_homefile(use_empty=True)


def placements(n, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return rng.uniform(-1000, 1000, (n, 3)), q, rng.uniform(0.5, 1.5, n), rng.integers(0, 3, n)


def props():
    out = []
    for _ in range(3):
        bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=2)
        out.append(bpy.context.active_object)
    return out


def ours(data):
    from worldseed.operators.bridge import scatter as scatter_build

    obj = scatter_build.scatter_object("Scatter", props(), collection=bpy.context.scene.collection)
    scatter_build.write_points(obj.data, *data)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    count = sum(1 for i in depsgraph.object_instances if i.is_instance)
    assert count == len(data[0]), count
    return count


def anchor(data):
    from mathutils import Matrix, Quaternion

    meshes = [p.data for p in props()]
    coll = bpy.data.collections.new("Duplicates")
    bpy.context.scene.collection.children.link(coll)
    pos, rot, scale, which = data
    for i in range(len(pos)):
        obj = bpy.data.objects.new(f"inst_{i:06d}", meshes[which[i]])
        coll.objects.link(obj)
        obj.matrix_world = Matrix.LocRotScale(pos[i], Quaternion(rot[i]), (scale[i],) * 3)
    bpy.context.view_layer.update()
    return len(coll.objects)


def operator_run():
    bpy.ops.worldseed.terrain_add(resolution=1025, size=2000.0, height=120.0, octaves=6, name="Land")
    root = bpy.context.active_object
    settings = bpy.context.scene.worldseed.scatter
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    layer = settings.layers[0]
    layer.radius, layer.patchiness, layer.variants = 5.3, 0.0, 3
    bpy.context.view_layer.objects.active = root
    t0 = time.perf_counter()
    bpy.ops.worldseed.scatter_add()
    return time.perf_counter() - t0, len(bpy.context.active_object.data.vertices)


def main():
    importlib.import_module("worldseed.addon").register()
    data = placements(N)
    small = tuple(a[:ANCHOR_N] for a in data)
    race = interleaved(ROUNDS, partial(ours, data), partial(anchor, small), setup=clear)
    (t_ours, t_anchor), (count, anchor_count) = race.seconds, race.results
    # equivalent: the same placements become instances on both sides, one per placement
    # (ours counts the depsgraph's instances, the anchor its linked duplicates)
    assert (count, anchor_count) == (N, ANCHOR_N), (count, anchor_count)
    scaled = t_anchor * N / ANCHOR_N
    print(
        f"{count:,} instances into Blender: ours {t_ours:.3f} s; anchor linked duplicates {t_anchor:.2f} s for "
        f"{anchor_count:,} -> {scaled:.1f} s for {N:,} (scaled), ratio {scaled / t_ours:.0f}x; target < 1 s "
        f"(best of {ROUNDS} interleaved rounds, {race.load_text()})"
    )
    clear()
    t_op, n = operator_run()
    print(
        f"Scatter Props operator on a 1025^2 terrain (heights, sampling, rules, placement, props, instancing): "
        f"{n:,} instances in {t_op:.2f} s (load {load():.1f})"
    )


if __name__ == "__main__":
    main()
