"""`make typecheck`: mypy over the extension's four packages, with Blender's API from fake-bpy-module.

The extension's modules import each other relatively (``from ..core import mesh``), so mypy must see them
inside a package; the checkout's folder may have any name (``worldseed-main``), so the repository is checked
as ``worldseed`` through a symbolic link the type checker's venv keeps, one per checkout (a venv shared by
several checkouts checks each as itself, at the same time too): ``.venv-typecheck/root/<key>/worldseed``, with
mypy's cache beside it, ``<key>`` a digest of the checkout's path. Settings live in ``pyproject.toml``
(``[tool.mypy]``). Exits with mypy's status: 0 when there is no error.
"""

import hashlib
import os
import pathlib
import sys

from mypy import api

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("core", "operators", "panels", "addon")


def main() -> int:
    key = hashlib.sha256(str(ROOT).encode()).hexdigest()[:16]
    home = pathlib.Path(sys.prefix) / "root" / key
    home.mkdir(parents=True, exist_ok=True)
    link = home / "worldseed"
    if link.is_symlink() and link.resolve() != ROOT:
        link.unlink()
    if not link.is_symlink():
        link.symlink_to(ROOT, target_is_directory=True)
    args = ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(home / "cache")]
    for package in PACKAGES:
        args += ["-p", f"worldseed.{package}"]
    os.chdir(home)
    out, err, status = api.run(args)
    sys.stdout.write(out.replace(f"worldseed{os.sep}", ""))
    sys.stderr.write(err)
    return status


if __name__ == "__main__":
    sys.exit(main())
