"""Grow species and render each (LOD0, front view, Workbench) to a PNG, for tuning species files.

    .venv/bin/python tools/render_species.py --out /tmp/species broadleaf conifer
    .venv/bin/python tools/render_species.py --out /tmp/species --all --lods

Prints per tree: modules, nodes, triangles per LOD, vertices, height and the time to grow.
"""

import argparse
import os
import pathlib
import runpy
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
runpy.run_path(str(ROOT / "tests" / "conftest.py"))


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("species", nargs="*")
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--variants", type=int, default=1, help="render this many seeds side by side")
    parser.add_argument("--lods", action="store_true", help="also render LOD1, LOD2 side by side")
    args = parser.parse_args(argv)
    import importlib

    import bpy

    importlib.import_module("worldseed.addon").register()
    from worldseed.core import trees as core_tree
    from worldseed.operators.bridge import render
    from worldseed.operators.bridge import trees as tree_build

    names = core_tree.species_names() if args.all else args.species
    os.makedirs(args.out, exist_ok=True)
    for name in names:
        bpy.ops.wm.read_homefile(use_empty=True)
        scene = bpy.context.scene
        spec = core_tree.species_spec(name)
        roots = []
        for k in range(args.variants):
            seed = (spec.seed if args.seed is None else args.seed) + k
            t0 = time.perf_counter()
            tree = core_tree.grow_tree(spec, seed=seed)
            grow = time.perf_counter() - t0
            root = tree_build.tree_objects(tree, collection=scene.collection)
            roots.append(root)
            tris = [m.n_triangles for m in tree.lods]
            print(
                f"{name} seed {seed}: {tree.modules:,} modules, {tree.skeleton.n_nodes:,} nodes, "
                f"{len(tree.skeleton.leaves):,} leaves, tris {tris} "
                f"({', '.join(f'{t / tris[0]:.0%}' for t in tris)}), verts {tree.lods[0].n_vertices:,}, "
                f"height {tree.height:.1f} m, grow {grow * 1000:.0f} ms"
            )
        if args.lods:  # show LOD1 and LOD2 beside LOD0 by making copies of the first tree's LODs
            lods = sorted(roots[0].children, key=lambda o: o.name)
            width = max(lods[0].dimensions.x, 1.0) * 1.2
            for i, lod in enumerate(lods[1:3], start=1):
                fake = bpy.data.objects.new(f"show_{i}", None)
                scene.collection.objects.link(fake)
                copy = bpy.data.objects.new(f"show_{i}_LOD0", lod.data)
                scene.collection.objects.link(copy)
                copy.parent = fake
                fake.location = (i * width, 0, 0)
                roots.append(fake)
        width = 0.0
        for i, root in enumerate(roots[: args.variants]):
            root.location.x = i * max(8.0, spec.step * 20)
        bpy.context.view_layer.update()
        path = os.path.join(args.out, f"{name}.png")
        render.render_trees(scene, roots, path)
        print(f"  -> {path}")


if __name__ == "__main__":
    sys.exit(main())
