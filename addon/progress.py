"""The headless run's progress: one line on stderr (:class:`TerminalProgress`) rising once through a
single run's build and files (:class:`RunProgress`)."""

import sys
import time

from ..operators.bridge import world


class TerminalProgress:
    """A one-line progress bar on stderr (a line every 10% when not a terminal).

    Calm on a long search: a line (a redraw on a terminal) only when the shown percentage rises (a
    tenth when not a terminal, a hundredth on one) or the stage changes -- a new WFC attempt, say --,
    never a lower percentage within the same stage (a WFC search backtracks: its fraction slides back
    and forth), and at most one every :attr:`interval` seconds but for the last (``done == total``).
    ``clock`` is the seconds' source (the tests give theirs).
    """

    #: Least seconds between two lines (not a terminal) or redraws (a terminal).
    LINE_INTERVAL, REDRAW_INTERVAL = 0.25, 0.1

    def __init__(self, label, stream=None, width=30, clock=time.perf_counter):
        self.label, self.stream, self.width, self.clock = label, stream or sys.stderr, width, clock
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.interval = self.REDRAW_INTERVAL if self.tty else self.LINE_INTERVAL
        self.stage, self.shown = None, -1  # the stage shown last, its highest step shown
        self.start = clock()
        self.last_line = None  # when the last line was written
        self.open = False  # a bar drawn on the terminal's line, not yet ended by a newline

    def end_line(self):
        """End a bar left half-drawn (a run stopped in the middle), so the next message has its own line."""
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False

    def __call__(self, done, total, stage):
        frac = min(done / max(total, 1), 1.0)
        last = done >= total
        if stage != self.stage:  # the next part of the run (an attempt, trees, scatter) may count from 0
            self.stage, self.shown = stage, -1
        step = int(frac * (100 if self.tty else 10))
        now = self.clock()
        if not last and (step <= self.shown or (self.last_line is not None and now - self.last_line < self.interval)):
            return
        self.shown, self.last_line = step, now
        if self.tty:
            fill = int(frac * self.width)
            self.stream.write(f"\r{self.label} [{'#' * fill}{'.' * (self.width - fill)}] {frac:4.0%} {stage:<12}")
            self.open = not last
            if last:
                self.stream.write(f" {now - self.start:.2f}s\n")
        else:
            self.stream.write(f"{self.label}: {frac:4.0%} {stage}\n")
        self.stream.flush()


class RunProgress:
    """One rising progress for a headless single run: the build (``world.build_world``: its sections
    rising once), then the files (``world.write_exports``: the exports and the render), which count as
    one more section's share (``world.SECTION_STEPS``); ``"done"`` at 100 % only at the very end.
    :meth:`build` and :meth:`files` are the two phases' ``progress(done, total, stage)``."""

    def __init__(self, progress):
        self.progress, self.built = progress, 0

    def build(self, done, total, stage):
        self.built = total
        if stage != "done":  # the build's own end: the files follow on the same line
            self.progress(done, total + world.SECTION_STEPS, stage)

    def files(self, done, total, stage):
        steps = world.SECTION_STEPS
        part = min(steps - 1, steps * done // max(total, 1))  # 100 % is the run's end
        self.progress(self.built + part, self.built + steps, stage)

    def end(self):
        total = self.built + world.SECTION_STEPS
        self.progress(total, total, "done")
