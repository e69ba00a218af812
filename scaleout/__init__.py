"""Scale-out backends for tiled worlds: the world's tasks on a Dask cluster (``dask_executor``).

Only the headless run imports this package, and only when asked to
(``worldseed_run.py --workers N`` or ``--scheduler ADDRESS``): the extension
inside Blender never needs Dask.  It imports core and nothing else of the
extension.
"""

#: The backends are modules of their own (``scaleout.dask_executor``), imported when asked for.
__all__ = []
