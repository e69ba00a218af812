"""Drive a modal build by hand: background Blender delivers no events, so the tests' operators
(sharing ``operators.common.ModalBuild``) are fed TIMER events, and ESC at tick ``op.cancel_after``."""

import types

import bpy


def drive_modal(op, context, steps, label, result, *, count_objects=False):
    """Start ``op``'s modal run of ``steps`` and feed it events to its end; ``result`` gets the final
    ``state`` and the ``ticks`` (and, with ``count_objects``, the object count after every tick)."""
    assert op.start_modal(context, steps, label, handler=False) == {"RUNNING_MODAL"}
    ticks, state = 0, {"RUNNING_MODAL"}
    while state == {"RUNNING_MODAL"}:
        kind = "ESC" if ticks == op.cancel_after else "TIMER"
        state = op.modal(context, types.SimpleNamespace(type=kind, value="PRESS"))
        ticks += 1
        if count_objects:
            result.setdefault("objects", []).append(len(bpy.data.objects))
    result["state"], result["ticks"] = state, ticks
    return {"FINISHED"}
