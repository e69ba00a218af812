"""Export for Unity of a scatter, against Blender's own FBX writer alone on the same objects.

    .venv/bin/python bench/bench_export.py            # 1k, 5k, 10k, 25k instances
    .venv/bin/python bench/bench_export.py 1000 5000  # chosen sizes

Ours: ``operators.bridge.export.export_unity`` of the scatter object with
``scatter_mode="objects"`` -- everything it does: an object per instance (a
tree with its three LODs), the FBX, the cleanup. Anchor, measured in the same
run on the same instances: the same objects already real (Make Real's
placement, linked to a collection, made untimed) written by Blender's FBX
operator alone with the same settings (``collection=``, so no selection is
needed). Runs interleaved (ours, anchor, ours, anchor), best of two each;
both files are read back with ufbx and must hold the same number of objects.
Half the instances are trees (root + LOD0..2), half rocks, on a 1 km terrain.
Target: linear, and 10,000 instances in at most 2x the anchor.
Before (quadratic): 1k 1.4 s, 5k 8.2 s, 10k 32.9 s, 20k 263 s.
"""

import importlib
import os
import sys
import tempfile
import time

import _loader  # noqa: F401
import bpy
import numpy as np
import ufbx

SIZES = (1_000, 5_000, 10_000, 25_000)


def scene(n, seed=0):
    """A terrain and a scatter of exactly ``n`` instances (trees and rocks at random); returns the scatter."""
    from worldseed.core import scatter as core_scatter
    from worldseed.operators.bridge import scatter as scatter_build

    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.worldseed.terrain_add(resolution=33, size=1000.0, height=60.0, name="Land")
    root = bpy.context.active_object
    specs = [core_scatter.suggested_layer("broadleaf"), core_scatter.suggested_layer("rock")]
    per_layer = scatter_build.layer_props(specs, [("BUILTIN", None)] * 2)
    props = [p for layer in per_layer for p in layer]
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    pos = np.c_[rng.uniform(-480.0, 480.0, (n, 2)), rng.uniform(0.0, 50.0, n)]
    layer = rng.integers(0, 2, n)
    which = np.where(layer == 0, rng.integers(0, len(per_layer[0]), n), len(per_layer[0]) + rng.integers(0, 2, n))
    obj = scatter_build.scatter_object("Land_Scatter", props, collection=bpy.context.scene.collection, parent=root)
    scatter_build.write_points(obj.data, pos, q, rng.uniform(0.7, 1.3, n), which)
    attr = obj.data.attributes.new("ws_layer", "INT", "POINT")
    attr.data.foreach_set("value", layer.astype(np.int32))
    obj[scatter_build.LAYERS_KEY] = [core_scatter.dumps_layer(s) for s in specs]
    return obj


def anchor_objects(obj):
    """The same instances as real objects in a collection "Anchor" (untimed), LODs not hidden."""
    from worldseed.operators.bridge import scatter as scatter_build

    coll = bpy.data.collections.new("Anchor")
    bpy.context.scene.collection.children.link(coll)
    made, children = [], []
    tops = None
    steps = scatter_build.instance_steps(obj, made, children, name_format="A_{prop}_{index:05d}")
    while tops is None:
        try:
            next(steps)
        except StopIteration as stop:
            tops = stop.value
    mats = scatter_build.instance_matrices(obj)
    from mathutils import Matrix

    for top, m in zip(tops, mats):
        top.matrix_world = Matrix(m.tolist())
    for c, top, child in children:
        c.parent = top
        c.matrix_parent_inverse = child.matrix_parent_inverse
        c.matrix_basis = child.matrix_basis
    for o in made:
        coll.objects.link(o)
    bpy.context.view_layer.update()
    return len(made)


def ours(obj, path):
    from worldseed.operators.bridge import export

    export.export_unity([obj], path, scatter_mode="objects", quiet=True)


def anchor(path):
    from worldseed.operators.bridge import fbx

    result = bpy.ops.export_scene.fbx(filepath=path, collection="Anchor", **fbx.FBX_UNITY)
    assert result == {"FINISHED"}, result


def count(path):
    scene = ufbx.load_file(path)
    return sum(1 for node in scene.nodes if not node.is_root)


def timed(fn, *args):
    t0 = time.perf_counter()
    with open(os.devnull, "w") as quiet, _stdout_to(quiet):
        fn(*args)
    return time.perf_counter() - t0


class _stdout_to:
    """Silence the FBX writer's progress lines (a C-level redirect is not needed: it prints from Python)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        self.saved, sys.stdout = sys.stdout, self.stream

    def __exit__(self, *exc):
        sys.stdout = self.saved


def main(sizes):
    print(f"{'instances':>9} {'objects':>8} {'ours s':>8} {'anchor s':>9} {'ratio':>6}  load (1, 5, 15 min)")
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            obj = scene(n)
            objects = anchor_objects(obj)
            a, b = os.path.join(folder, "ours.fbx"), os.path.join(folder, "anchor.fbx")
            t_ours, t_anchor = [], []
            for _ in range(2):  # interleaved: ours, anchor, ours, anchor
                t_ours.append(timed(ours, obj, a))
                t_anchor.append(timed(anchor, b))
            n_ours, n_anchor = count(a), count(b)
            assert n_ours == n_anchor == objects, (n_ours, n_anchor, objects)
            load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
            best_ours, best_anchor = min(t_ours), min(t_anchor)
            print(
                f"{n:>9,} {objects:>8,} {best_ours:>8.2f} {best_anchor:>9.2f} {best_ours / best_anchor:>6.2f}  {load}",
                flush=True,
            )


if __name__ == "__main__":
    importlib.import_module("worldseed.addon").register()
    main([int(a) for a in sys.argv[1:]] or SIZES)
