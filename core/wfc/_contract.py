"""The solver's contract: what every WFC model hands the one solver, and its failures."""

from ..errors import ParameterError

__all__ = ["Contradiction", "Unsatisfied"]


class Contradiction(ParameterError):
    """No output satisfies the constraints within the attempts: ``cell`` (x, y) ((x, y, z) in 3-D)
    is where the last attempt ran out of patterns, ``attempts`` how many were made."""

    def __init__(self, message: str, *, cell: tuple[int, ...] | None, attempts: int) -> None:
        super().__init__(message)
        self.cell = tuple(cell)  # type: ignore[arg-type]  # None only with no cell to name (a TypeError)
        self.attempts = int(attempts)


class Unsatisfied(Exception):
    """Raised by a constraint's ``revise`` when it can no longer hold: ``cell`` is the flat index
    of a cell where it fails and ``reason`` says which rule (the solver backtracks, and a final
    :class:`Contradiction` quotes the reason)."""

    def __init__(self, cell: int, reason: str) -> None:
        super().__init__(f"cell {cell}: {reason}")
        self.cell = int(cell)
        self.reason = str(reason)
