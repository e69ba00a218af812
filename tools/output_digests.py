"""Build every preset and the demo headless and print the SHA-256 of every file each writes.

A refactor of the Blender side must not change a byte of what a world writes: run this on the commit
before and on the commit after, and compare the two JSON files::

    python tools/output_digests.py --root /tmp/base --json /tmp/before.json
    python tools/output_digests.py --json /tmp/after.json --compare /tmp/before.json

Each terrain preset (``presets/terrain/*.toml``) is built with every export on but the render
(``[export]`` fbx, glb, heightmap_raw, preview, placements), the demo (``make demo``: the embedded
recipe, render included) as it is, one recipe with every other family (trees of each shipped
species kind, scatter, levels of every generator) so the sections the presets leave out are covered
too, and a small tiled world (its tiles' files, tile FBX, prop library, trees built once, overview and
world JSON).  The ``.blend`` is left out of the comparison because it differs between two runs of one commit
already (Blender writes memory addresses into it).  The demo's Workbench render ``preview.png`` is
compared: its bytes leave out Blender's date and render-time metadata (``operators/bridge/render.py``)
and its pixels are nearly always the same run to run -- once, on a loaded machine, 14 pixels of foliage
at the coast differed between two runs of one commit (cause not found: software OpenGL's threads over
overlapping plants are the suspect), so a difference there alone is reported, not hidden; it may differ
from another machine's (another OpenGL).  ``--root`` is the extension checkout whose ``worldseed_run.py`` runs (this
one by default); every run uses this interpreter (bpy).
"""

import argparse
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parents[1]
#: Files whose bytes differ between two runs of the same recipe, on the same commit: the .blend
#: (Blender writes memory addresses into it).
UNSTABLE_SUFFIXES = (".blend",)
UNSTABLE_NAMES = ()
EXPORT_ALL = "\n[export]\nfbx = true\nglb = true\nheightmap_raw = true\npreview = true\nplacements = true\n"
#: A recipe with every family the terrain presets leave out: trees, scatter, levels of each generator.
FAMILIES = """\
[world]
name = "Families"
seed = 11

[terrain]
resolution = 129
size = 256.0
height = 40.0

[[trees]]
species = "broadleaf"
name = "Oak"
seed = 3

[[trees]]
species = "conifer"
name = "Pine"
seed = 4

[[scatter]]
name = "Rocks"
prop = "rock"
variants = 2
radius = 12.0

[[scatter]]
name = "Grass"
prop = "grass"
radius = 6.0

[[level]]
generator = "bsp"
name = "Keep"
width = 32
height = 24

[[level]]
generator = "cave"
name = "Grotto"
width = 30
height = 20
origin = [300.0, 0.0, 0.0]

[[level]]
generator = "maze"
name = "Maze"
width = 21
height = 21
origin = [0.0, 300.0, 0.0]

[[level]]
generator = "wfc_tiled"
name = "Roads"
tileset = "roads"
width = 12
height = 12
origin = [300.0, 300.0, 0.0]

[[level]]
generator = "wfc_overlapping"
name = "Rooms"
sample = "rooms"
width = 16
height = 16
origin = [600.0, 0.0, 0.0]

[[level]]
generator = "walk"
name = "Walk"
width = 24
height = 24
origin = [600.0, 300.0, 0.0]

[[level]]
generator = "rooms_caves"
name = "Mixed"
width = 32
height = 32
origin = [900.0, 0.0, 0.0]

[export]
fbx = true
glb = true
heightmap_raw = true
preview = true
placements = true
"""


#: A small tiled world: every tile's files, the tile FBX, the prop library, the trees built once, the
#: overview picture and the world JSON listing them.
TILED = """\
[world]
name = "Tiled"
seed = 5
tiles = [2, 2]

[terrain]
resolution = 65
size = 128.0
height = 40.0
normalize = "fixed"
sea_level = 0.1

[terrain.erosion]
enabled = true
droplets_per_km2 = 20000.0

[[splat]]
name = "Grass"
color = [0.1, 0.3, 0.1]

[[splat]]
name = "Rock"
color = [0.4, 0.4, 0.4]
slope_range = [20.0, 90.0]

[[scatter]]
name = "Rocks"
prop = "rock"
radius = 8.0
align = 0.5

[[trees]]
species = "bush"
name = "Shrub"

[export]
fbx = true
preview = true
"""


def recipes(root):
    """``{label: recipe text or None}`` (None: the embedded demo recipe)."""
    out = {}
    for path in sorted((root / "presets" / "terrain").glob("*.toml")):
        out[f"preset:{path.stem}"] = path.read_text() + EXPORT_ALL
    out["demo"] = None
    out["families"] = FAMILIES
    out["tiled"] = TILED
    return out


def digests(folder):
    """``{file name: sha256}`` of every file in ``folder`` but the unstable ones."""
    found = {}
    for path in sorted(pathlib.Path(folder).rglob("*")):
        if path.is_file() and path.suffix not in UNSTABLE_SUFFIXES and path.name not in UNSTABLE_NAMES:
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def run(root, label, text, work):
    folder = os.path.join(work, label.replace(":", "_"))
    cmd = [sys.executable, str(root / "worldseed_run.py"), "--out", folder]
    if text is not None:
        recipe = os.path.join(work, label.replace(":", "_") + ".toml")
        pathlib.Path(recipe).write_text(text)
        cmd += ["--recipe", recipe]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=work)
    if proc.returncode != 0:
        raise SystemExit(f"{label}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    print(f"{label}: {time.perf_counter() - start:.1f}s", file=sys.stderr)
    return digests(folder)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(HERE), help="the extension checkout to run (default: this one)")
    parser.add_argument("--json", required=True, help="write the digests here")
    parser.add_argument("--compare", help="digests of another run: fail on any difference")
    parser.add_argument("--only", help="build only the labels containing this text")
    args = parser.parse_args(argv)
    root = pathlib.Path(args.root).resolve()
    result = {}
    with tempfile.TemporaryDirectory(prefix="worldseed-digests-") as work:
        for label, text in recipes(root).items():
            if args.only and args.only not in label:
                continue
            result[label] = run(root, label, text, work)
    pathlib.Path(args.json).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    files = sum(len(v) for v in result.values())
    print(f"{len(result)} builds, {files} files -> {args.json}")
    if args.compare:
        other = json.loads(pathlib.Path(args.compare).read_text())
        differ = [
            f"{label}/{name}"
            for label in sorted(set(result) | set(other))
            for name in sorted(set(result.get(label, {})) | set(other.get(label, {})))
            if result.get(label, {}).get(name) != other.get(label, {}).get(name)
        ]
        if differ:
            print(f"{len(differ)} files differ:\n  " + "\n  ".join(differ))
            return 1
        print(f"identical to {args.compare}: {files} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
