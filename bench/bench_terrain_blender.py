"""A 1025 x 1025 terrain from parameters to a finished Blender object, against merely loading a grid.

    .venv/bin/python bench/bench_terrain_blender.py

Ours: noise (6 octaves), shaping, mesh, UVs, material, linked object
(``operators.bridge.terrain.build_terrain``). Anchor, measured in the same run: loading
an already computed grid of the same size by the fastest bulk path we know
(positions, precomputed edges and polygons through the attribute API, no UVs,
no material), and for reference the bulk attribute writes that let Blender
compute the edges, and the classic ``vertices``/``loops.foreach_set`` path. Targets: ours under 0.5 s and
at most 2.5x the anchor.
"""

import importlib

import _loader  # noqa: F401
import bpy
import numpy as np
from _loader import best_of

from worldseed.core import mesh as core_mesh
from worldseed.core import recipe as core_recipe

N = 1025
RUNS = 5


def clear():
    bpy.ops.wm.read_homefile(use_empty=True)


def anchor_fast(positions, topology):
    me = bpy.data.meshes.new("anchor")
    me.vertices.add(len(positions))
    me.attributes["position"].data.foreach_set("vector", positions.ravel())
    me.edges.add(len(topology.edges))
    me.attributes[".edge_verts"].data.foreach_set("value", topology.edges.ravel())
    me.loops.add(len(topology.corner_verts))
    me.attributes[".corner_vert"].data.foreach_set("value", topology.corner_verts)
    me.attributes[".corner_edge"].data.foreach_set("value", topology.corner_edges)
    me.polygons.add(len(topology.loop_starts))
    me.polygons.foreach_set("loop_start", memoryview(topology.loop_starts))  # faster than the array itself
    me.update()
    obj = bpy.data.objects.new("anchor", me)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def anchor_attributes_calc_edges(positions, quads):
    me = bpy.data.meshes.new("attributes")
    me.vertices.add(len(positions))
    me.attributes["position"].data.foreach_set("vector", positions.ravel())
    me.loops.add(quads.size)
    me.attributes[".corner_vert"].data.foreach_set("value", quads.ravel())
    me.polygons.add(len(quads))
    me.polygons.foreach_set("loop_start", np.arange(0, quads.size, 4, dtype=np.int32))
    me.update(calc_edges=True)
    obj = bpy.data.objects.new("attributes", me)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def anchor_classic(positions, quads):
    me = bpy.data.meshes.new("classic")
    me.vertices.add(len(positions))
    me.vertices.foreach_set("co", positions.ravel())
    me.loops.add(quads.size)
    me.loops.foreach_set("vertex_index", quads.ravel())
    me.polygons.add(len(quads))
    me.polygons.foreach_set("loop_start", np.arange(0, quads.size, 4, dtype=np.int32))
    me.update(calc_edges=True)
    obj = bpy.data.objects.new("classic", me)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def main():
    addon = importlib.import_module("worldseed.addon")
    addon.register()
    from worldseed.operators.bridge import terrain as build

    recipe = core_recipe.replace(core_recipe.Recipe(), terrain_resolution=N, terrain_octaves=6, terrain_size=2048.0)

    def make():
        return build.build_terrain(recipe, collection=bpy.context.scene.collection)

    def clear_all():
        clear()
        build.cached_grid.cache_clear()

    cold, root = best_of(RUNS, make, setup=clear_all)  # first build at this resolution
    assert len(root.data.vertices) == N * N and root.data.uv_layers and root.data.materials
    warm, _ = best_of(RUNS, make, setup=clear)  # rebuild at the same resolution (redo, auto update, new seed)

    rng = np.random.default_rng(0)
    xs = np.arange(N, dtype=np.float32)
    positions = (
        np.stack(np.broadcast_arrays(xs[None, :], xs[:, None], rng.random((N, N), np.float32)), axis=-1)
        .reshape(-1, 3)
        .astype(np.float32)
    )
    topology = core_mesh.grid_topology(N, N)
    quads = core_mesh.grid_faces(N, N).astype(np.int32)
    fast, _ = best_of(RUNS, anchor_fast, positions, topology, setup=clear)
    attributes, _ = best_of(RUNS, anchor_attributes_calc_edges, positions, quads, setup=clear)
    classic, _ = best_of(RUNS, anchor_classic, positions, quads, setup=clear)

    print(f"terrain {N}x{N} ({N * N:,} vertices), best of {RUNS}")
    print(f"{'what':<58}{'seconds':>9}{'ratio':>8}")
    print(f"{'ours, first build: parameters -> finished object':<58}{cold:9.3f}{cold / fast:8.2f}")
    print(f"{'ours, rebuild at the same resolution (cached topology)':<58}{warm:9.3f}{warm / fast:8.2f}")
    print(f"{'anchor: load computed grid, fastest bulk path':<58}{fast:9.3f}{1.0:8.2f}")
    print(f"{'reference: position/.corner_vert writes + calc_edges':<58}{attributes:9.3f}{attributes / fast:8.2f}")
    print(f"{'reference: classic foreach_set + calc_edges':<58}{classic:9.3f}{classic / fast:8.2f}")
    for label, ours in (("first build", cold), ("rebuild", warm)):
        print(
            f"{label}: target < 0.5 s {'met' if ours < 0.5 else 'NOT met'}; "
            f"<= 2.5x anchor {'met' if ours <= 2.5 * fast else 'NOT met'} ({ours / fast:.2f}x)"
        )


if __name__ == "__main__":
    main()
