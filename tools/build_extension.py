"""Build dist/worldseed-<version>.zip with Blender's own extension tool, then validate it.

Blender's tool ships inside the bpy wheel (bl_pkg/cli/blender_ext.py) and runs
with plain Python. Tags are checked against Blender's own tag list.

    python tools/build_extension.py --out dist
"""

import argparse
import pathlib
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def blender_scripts_dir():
    """The wheel's ``<version>/scripts`` folder, found without starting Blender."""
    import importlib.util

    spec = importlib.util.find_spec("bpy")
    if spec is None or spec.origin is None:
        sys.exit("build: the bpy module is not installed (run `make venv`)")
    base = pathlib.Path(spec.origin).resolve().parent
    found = sorted(base.glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py"))
    if not found:
        sys.exit(f"build: Blender's extension tool not found under {base}")
    return found[-1].parents[3]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="dist", help="output folder (default: dist)")
    args = parser.parse_args(argv)
    scripts = blender_scripts_dir()
    tool = scripts / "addons_core/bl_pkg/cli/blender_ext.py"
    tags = scripts / "modules/_bpy_internal/extensions/tags.py"
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    out_dir = (ROOT / args.out).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    zip_path = out_dir / f"{manifest['id']}-{manifest['version']}.zip"
    zip_path.unlink(missing_ok=True)
    for cmd in (
        [
            sys.executable,
            str(tool),
            "build",
            "--source-dir",
            str(ROOT),
            "--output-filepath",
            str(zip_path),
            f"--valid-tags={tags}",
        ],
        [sys.executable, str(tool), "validate", f"--valid-tags={tags}", str(zip_path)],
    ):
        subprocess.run(cmd, check=True)
    print(zip_path)
    return zip_path


if __name__ == "__main__":
    main()
