"""Levels into Blender: a 512 x 512 level to a finished object, 10,000 kit modules instanced.

    .venv/bin/python bench/bench_levels_blender.py

1. A 512 x 512 cave level (generated beforehand, timed on its own) to a finished Blender object:
   the quad mesh with its world-scaled UVs and three materials, the marker empties and the 2-D map
   image (``operators.bridge.levels.build_level``).  Target: <= 0.5 s.
2. 10,000 kit modules (a 100 x 100 level of floor cells) instanced through Geometry Nodes, until
   the depsgraph has evaluated every instance.  Target: <= 0.2 s.  Anchor, in the same run and
   interleaved: the same 10,000 modules as linked duplicates (one object per module sharing the
   mesh, the classic way).  Both must make 10,000 instances.

Best of a few runs each, with the 1-minute load average printed.
"""

import dataclasses
import importlib
import time
from functools import partial

import _loader  # noqa: F401
import bpy
import numpy as np
from _loader import best_of, interleaved, load

SIDE = 512
KIT_SIDE = 100
ROUNDS = 3


def clear():
    bpy.ops.wm.read_homefile(use_empty=True)


def kit_collection():
    coll = bpy.data.collections.new("Kit")
    for k, role in enumerate(("floor", "wall", "outer corner", "inner corner", "wall end", "door", "pillar")):
        me = bpy.data.meshes.new(role)
        me.from_pydata([(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, k * 0.1)], [], [(0, 1, 2, 3)])
        coll.objects.link(bpy.data.objects.new(role, me))
    return coll


def level_object(spec, level):
    from worldseed.operators.bridge import levels as bridge_levels

    root = bridge_levels.build_level(spec, collection=bpy.context.scene.collection, level=level)
    me = root.data
    assert len(me.materials) == 3 and me.uv_layers and len(me.polygons) > 0
    return len(me.polygons), len(me.vertices), len(root.children)


def kit_ours(spec, level):
    from worldseed.operators.bridge import levels as bridge_levels

    kit = kit_collection()
    root = bridge_levels.build_level(
        spec, collection=bpy.context.scene.collection, geometry="KIT", kit=kit, level=level
    )
    kit_obj = bridge_levels.level_kit_of(root)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    return sum(1 for i in depsgraph.object_instances if i.is_instance and i.parent.original == kit_obj)


def kit_anchor(placed):
    from mathutils import Matrix

    mesh = kit_collection().objects["floor"].data
    coll = bpy.data.collections.new("Duplicates")
    bpy.context.scene.collection.children.link(coll)
    for i, (pos, yaw) in enumerate(zip(placed.positions, placed.yaw)):
        obj = bpy.data.objects.new(f"floor_{i:05d}", mesh)
        coll.objects.link(obj)
        obj.matrix_world = Matrix.LocRotScale(pos, Matrix.Rotation(float(yaw), 3, "Z").to_quaternion(), (1, 1, 1))
    bpy.context.view_layer.update()
    return len(coll.objects)


def main():
    importlib.import_module("worldseed.addon").register()
    from worldseed.core import levels as core_levels

    spec = core_levels.LevelSpec(generator="cave", width=SIDE, height=SIDE, seed=7)
    t_gen, level = best_of(ROUNDS, core_levels.generate, spec)
    t_obj, (faces, verts, markers) = best_of(ROUNDS, level_object, spec, level, setup=clear)
    few = dataclasses.replace(level, markers=level.markers_of("spawn") + level.markers_of("exit"))
    t_few, _ = best_of(ROUNDS, level_object, spec, few, setup=clear)
    cs, wh = spec.cell_size, spec.wall_height
    t_quads, quads = best_of(ROUNDS, core_levels.level_quads, level, cell_size=cs, wall_height=wh)
    t_topo, _ = best_of(ROUNDS, quads.topology)
    print(
        f"{SIDE}x{SIDE} cave level to a finished Blender object (quad mesh, UVs, 3 materials, map image): "
        f"{t_few:.3f} s with its spawn and exit, {t_obj:.3f} s with all {markers:,} marker empties, for "
        f"{faces:,} quads / {verts:,} vertices; target <= 0.5 s. Of it in core: quads {t_quads:.3f} s, "
        f"their Blender topology (edges) {t_topo:.3f} s (generation before it {t_gen:.3f} s; "
        f"best of {ROUNDS}, load {load():.1f})"
    )

    kit_spec = core_levels.LevelSpec(width=KIT_SIDE, height=KIT_SIDE)
    kit_level = core_levels.Level(
        grid=np.ones((KIT_SIDE, KIT_SIDE), np.uint8), markers=(core_levels.Marker("spawn", 0, 0),)
    )
    placed = core_levels.kit_placements(kit_level, cell_size=kit_spec.cell_size)
    race = interleaved(ROUNDS, partial(kit_ours, kit_spec, kit_level), partial(kit_anchor, placed), setup=clear)
    (t_kit, t_dup), (n_kit, n_dup) = race.seconds, race.results
    assert n_kit == n_dup == KIT_SIDE * KIT_SIDE, (n_kit, n_dup)
    print(
        f"{n_kit:,} kit modules instanced (Geometry Nodes, evaluated): {t_kit:.3f} s; target <= 0.2 s; "
        f"anchor linked duplicates {t_dup:.2f} s, ratio {t_dup / t_kit:.0f}x "
        f"(best of {ROUNDS} interleaved rounds, {race.load_text()})"
    )
    t0 = time.perf_counter()
    clear()
    print(f"(clean-up {time.perf_counter() - t0:.2f} s)")


if __name__ == "__main__":
    main()
