"""Run a Worldseed recipe headless.

In Blender:      blender --background --factory-startup --python-exit-code 1 --python worldseed_run.py -- \
                     --recipe world.toml --out DIR
With bpy (pip):  python worldseed_run.py --recipe world.toml --out DIR

A tiled world (a recipe with ``[world] tiles = [nx, nz]`` other than [1, 1])
builds its tiles serially, or with ``--workers N`` on a Dask LocalCluster of N
worker processes on this machine, or with ``--scheduler ADDRESS`` on a running
Dask cluster (whose workers see this folder at the same path); ``--tiles
X0:X1,Z0:Z1`` builds part of the grid.  Tiles already complete (listed in
``<name>_world.json`` with matching sizes and SHA-256) are kept, so a stopped
run picks up where it was.  Two runs into one folder take turns (the second
waits up to ``--wait`` seconds for the folder's lock, then refuses in one line),
single terrain and tiled world alike.

Leave out --recipe to build the embedded demo recipe. The extension is taken
from the folder this script is in (the extension root), so it works from a
checkout and from an installed extension alike. The exit status is 0 when
every file was written, 2 for a bad recipe or a failed write, 130 when
cancelled with Ctrl-C (one line ``worldseed: cancelled``, no traceback; the
files of an earlier run stay whole), 1 for a bug.
"""

import atexit
import importlib
import importlib.util
import os
import shutil
import sys
import traceback


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


def exit_process(status):
    """End the process with ``status`` (an int), also where the bpy module cannot end it itself.

    The bpy module of Blender 4.2 and 4.5 never ends a process whose Python
    registered a class (an operator, a property group with an update
    function): after Python has finalized, C++ static destructors at exit()
    free the registered classes and need the gone interpreter (4.2:
    segfault, status 139, in ``bpy_class_free`` -> ``PyGILState_Ensure``;
    4.5: a static destructor waits for ever on a condition variable). So
    under the bpy module this runs Python's exit handlers (bpy's own among
    them), flushes the output, removes Blender's session temp folder (left
    to those destructors) and leaves at once with ``os._exit``. Every file
    of a run is complete on disk before this is called. In Blender itself
    (``blender --background --python``) it is a plain ``sys.exit``.
    """
    bpy = sys.modules.get("bpy")
    if bpy is None or bpy.app.binary_path:  # not loaded, or Blender's own executable
        sys.exit(status)
    tempdir = bpy.app.tempdir
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    if tempdir and os.path.basename(os.path.normpath(tempdir)).startswith("blender_"):
        shutil.rmtree(tempdir, ignore_errors=True)
    os._exit(status)


def run():
    """:func:`main` as a process: its status, 2 for bad arguments, 1 (and the traceback) for a bug."""
    try:
        status = main()
    except SystemExit as stop:  # argparse's --help (0) and usage errors (2)
        if stop.code is None or isinstance(stop.code, int):
            status = stop.code or 0
        else:
            print(stop.code, file=sys.stderr)
            status = 1
    except KeyboardInterrupt:  # Ctrl-C before (or after) the run proper: batch.main reports its own
        print("worldseed: cancelled", file=sys.stderr)
        status = 130
    except BaseException:
        traceback.print_exc()
        status = 1
    exit_process(status)


if __name__ == "__main__":
    run()
