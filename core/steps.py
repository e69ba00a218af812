"""Work that reports progress: generators that ``yield (done, total, label)`` and return a result.

Long builds are written as such generators so that one piece of code serves
the UI (a modal operator advancing on a timer, with Esc to cancel), the
headless batch (a terminal progress bar) and plain scripts (run to the end).
"""

__all__ = ["drive"]


def drive(steps, progress=None):
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
            return stop.value
        if progress is not None:
            progress(done, total, label)
