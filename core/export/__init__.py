"""Export settings (``[export]``): which files a world writes for Unity besides the .blend.

The section is :mod:`.spec`; the files are written on the Blender side.
"""

from .spec import LIMITS, ExportSpec, from_dict, to_dict

__all__ = ["ExportSpec", "LIMITS", "from_dict", "to_dict"]
