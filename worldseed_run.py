"""Run a Worldseed recipe headless.

In Blender:      blender --background --factory-startup --python-exit-code 1 --python worldseed_run.py -- \
                     --recipe world.toml --out DIR
With bpy (pip):  python worldseed_run.py --recipe world.toml --out DIR

Leave out --recipe to build the embedded demo recipe. The extension is taken
from the folder this script is in (the extension root), so it works from a
checkout and from an installed extension alike.
"""

import importlib
import importlib.util
import os
import sys


def load_package():
    """Import the extension in this script's folder as ``worldseed`` (or find it already loaded)."""
    root = os.path.dirname(os.path.abspath(__file__))
    for _name, module in list(sys.modules.items()):  # already loaded, e.g. as bl_ext.user_default.worldseed
        if getattr(module, "__file__", None) == os.path.join(root, "__init__.py"):
            return module
    spec = importlib.util.spec_from_file_location(
        "worldseed", os.path.join(root, "__init__.py"), submodule_search_locations=[root]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["worldseed"] = module
    spec.loader.exec_module(module)
    return module


def _argv():
    return sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else sys.argv[1:]


def main():
    import bpy

    package = load_package()
    if not hasattr(bpy.types.Scene, "worldseed"):
        package.register()
    batch = importlib.import_module(package.__name__ + ".addon.batch")
    return batch.main(_argv())


if __name__ == "__main__":
    sys.exit(main())
