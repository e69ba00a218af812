"""Work that reports progress: generators that ``yield (done, total, label)`` and return a result.

Long builds are written as such generators so that one piece of code serves
the UI (a modal operator advancing on a timer, with Esc to cancel), the
headless batch (a terminal progress bar) and plain scripts (run to the end).
"""

from collections.abc import Callable, Generator
from typing import TypeAlias, TypeVar

__all__ = ["drive", "Progress", "Steps"]

T = TypeVar("T")
#: What a step generator yields: ``(done, total, label)``.
Progress: TypeAlias = tuple[int, int, str]
#: A step generator whose result is a ``T``: ``Steps[TerrainHeights]``.
Steps: TypeAlias = Generator[Progress, None, T]


def drive(steps: Steps[T], progress: Callable[[int, int, str], object] | None = None) -> T:
    """Run a step generator to its end and return its result.

    ``progress(done, total, label)`` is called after every step.

    >>> def count():
    ...     for i in range(3):
    ...         yield i + 1, 3, "counting"
    ...     return "done"
    >>> seen = []
    >>> drive(count(), lambda d, t, label: seen.append(d))
    'done'
    >>> seen
    [1, 2, 3]
    """
    while True:
        try:
            done, total, label = next(steps)
        except StopIteration as stop:
            result: T = stop.value
            return result
        if progress is not None:
            progress(done, total, label)
