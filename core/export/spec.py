"""``[export]``: what a world writes besides the .blend, for the headless run and Export for Unity alike.

::

    [export]
    fbx = true               # <name>.fbx for Unity
    glb = false              # also <name>.glb
    heightmap_raw = false    # also a 16-bit RAW heightmap for Unity's Terrain
    placements = false       # the scattered props' Unity positions, rotations and scales as JSON

The files themselves are written on the Blender side (``operators/bridge/world.py``).
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..spec import flag, from_table, to_table

__all__ = ["ExportSpec", "LIMITS", "from_dict", "to_dict"]


@dataclass(frozen=True)
class ExportSpec:
    """``[export]``: what a world writes besides the .blend (the batch run and Export for Unity alike).

    >>> ExportSpec().fbx, ExportSpec().glb
    (True, False)
    """

    fbx: bool = True
    glb: bool = False
    per_object: bool = False
    heightmap_raw: bool = False
    preview: bool = True
    render: bool = False
    placements: bool = False


#: Every field of :class:`ExportSpec`.
LIMITS = {
    "fbx": flag("FBX", "Write an FBX file for Unity"),
    "glb": flag("glTF Binary", "Also write a .glb file"),
    "per_object": flag("One File per Object", "Write one file per object instead of one for all"),
    "heightmap_raw": flag("Unity RAW Heightmap", "Also write a 16-bit RAW heightmap for Unity's Terrain"),
    "preview": flag("Relief Map", "Write a shaded-relief map, relief.png"),
    "render": flag("Render", "Write a 3-D preview render, preview.png (Workbench; needs OpenGL)"),
    "placements": flag("Placement File", "Write the scattered props' Unity positions, rotations and scales as JSON"),
}


def from_dict(table: Mapping[str, Any], *, prefix: str = "export.") -> ExportSpec:
    """A validated :class:`ExportSpec` from an ``[export]`` table.

    >>> from_dict({"glb": True}).glb
    True
    """
    return from_table(ExportSpec, LIMITS, table, prefix=prefix)


def to_dict(spec: ExportSpec) -> dict[str, Any]:
    """The spec as a table of plain TOML values."""
    return to_table(spec)
