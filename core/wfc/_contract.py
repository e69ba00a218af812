"""The solver's contract (issue 11): what every WFC model hands the one solver, and its failure."""

from __future__ import annotations

from ..errors import ParameterError

__all__ = ["Contradiction"]


class Contradiction(ParameterError):
    """No output satisfies the constraints within the attempts: ``cell`` (x, y) is where the last
    attempt ran out of patterns, ``attempts`` how many were made."""

    def __init__(self, message, *, cell, attempts):
        super().__init__(message)
        self.cell = tuple(cell)
        self.attempts = int(attempts)
