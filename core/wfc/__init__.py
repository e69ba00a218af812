"""Wave Function Collapse (issue 11, being built): one solver, the models as data builders."""

from ._contract import Contradiction

__all__ = ["Contradiction"]
