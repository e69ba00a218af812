"""The Levels panel's text settings: connect points, painted cells, counts and classes, parsed and written back.

The WFC generators take tables a text field cannot hold as such; the panel (and the Add Level redo
panel) writes them as text (``3,4; 20,10``, ``0,0=rock``, ``door=1-4, junction=2-``, ``0=wall, 1=floor``).
Each ``*_from_text`` turns the text into what ``core.levels.from_dict`` takes, each ``*_to_text`` gives a
spec's table back as text.
"""

from collections.abc import Iterable

from ....core.errors import ParameterError

__all__ = [
    "points_from_text",
    "fixed_from_text",
    "fixed_to_text",
    "points_to_text",
    "counts_from_text",
    "counts_to_text",
    "classes_from_text",
    "classes_to_text",
]


def points_from_text(text: str) -> list[list[int]]:
    """``"3,4; 20,10"`` -> ``[[3, 4], [20, 10]]`` (what ``level.connect_points`` takes).

    >>> points_from_text(" 3, 4;20 ,10; ")
    [[3, 4], [20, 10]]
    """
    points = []
    for item in (t.strip() for t in text.split(";")):
        if not item:
            continue
        parts = [p.strip() for p in item.split(",")]
        if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
            raise ParameterError(
                f"level.connect_points: write cells x,y separated by ';' (3,4; 20,10) with x and y integers >= 0, "
                f"got {item!r}"
            )
        points.append([int(parts[0]), int(parts[1])])
    return points


def fixed_from_text(text: str) -> list[list[int | str]]:
    """``"0,0=rock; 5,2=bend 1"`` -> ``[[0, 0, "rock"], [5, 2, "bend 1"]]`` (what ``level.fixed`` takes).

    >>> fixed_from_text(" 0,0 = rock;5, 2=bend 1; ")
    [[0, 0, 'rock'], [5, 2, 'bend 1']]
    """
    cells: list[list[int | str]] = []
    for item in (t.strip() for t in text.split(";")):
        if not item:
            continue
        where, eq, tile = item.partition("=")
        parts = [p.strip() for p in where.split(",")]
        if not eq or not tile.strip() or len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
            raise ParameterError(
                f"level.fixed: write painted cells x,y=tile separated by ';' (0,0=rock; 5,2=bend 1) with x and y "
                f"integers >= 0, got {item!r}"
            )
        cells.append([int(parts[0]), int(parts[1]), tile.strip()])
    return cells


def fixed_to_text(cells: Iterable[tuple[int, int, str]]) -> str:
    """The inverse of :func:`fixed_from_text` (a spec's painted cells)."""
    return "; ".join(f"{x},{y}={tile}" for x, y, tile in cells)


def points_to_text(points: Iterable[tuple[int, int]]) -> str:
    """The inverse of :func:`points_from_text` (a spec's points)."""
    return "; ".join(f"{x},{y}" for x, y in points)


def _count_bound(text: str, item: str) -> int:
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        raise ParameterError(
            f"level.counts: write name=min-max (door=1-4), name=min- (no maximum) or name=count, with whole "
            f"numbers, got {item!r}"
        )
    return int(text)


def counts_from_text(text: str) -> list[list[str | int]]:
    """``"door=1-4, junction=2-, 3=5"`` -> ``[["door", 1, 4], ["junction", 2, -1], ["3", 5, 5]]`` (what
    ``level.counts`` takes: ``max`` -1 for no bound; ``-4`` alone means 0 to 4).

    >>> counts_from_text("dead end = 1-4, #FF0000=2-, 3=5, x=-2")
    [['dead end', 1, 4], ['#FF0000', 2, -1], ['3', 5, 5], ['x', 0, 2]]
    """
    out: list[list[str | int]] = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        name, eq, bounds = item.partition("=")
        if not eq or not name.strip():
            raise ParameterError(f"level.counts: write name=min-max pairs (door=1-4, junction=2-), got {item!r}")
        low_text, dash, high_text = bounds.partition("-")
        low = _count_bound(low_text, item) if low_text.strip() or not dash else 0
        high = (_count_bound(high_text, item) if high_text.strip() else -1) if dash else low
        out.append([name.strip(), low, high])
    return out


def counts_to_text(counts: Iterable[tuple[str, int, int]]) -> str:
    """The inverse of :func:`counts_from_text` (a spec's sorted ``(name, min, max)``)."""
    return ", ".join(
        f"{name}={low}" if low == high else f"{name}={low}-{high if high >= 0 else ''}" for name, low, high in counts
    )


def classes_from_text(text: str) -> list[list[str]]:
    """``"0=wall, 1=floor"`` -> ``[["0", "wall"], ["1", "floor"]]`` (what ``level.classes`` takes).

    >>> classes_from_text(" 0 = wall, #FF0000=door ")
    [['0', 'wall'], ['#FF0000', 'door']]
    """
    pairs = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        value, eq, cls = item.partition("=")
        if not eq:
            raise ParameterError(f"level.classes: write value=class pairs (0=wall, 1=floor), got {item!r}")
        pairs.append([value.strip(), cls.strip()])
    return pairs


def classes_to_text(classes: Iterable[tuple[str, str]]) -> str:
    """The inverse of :func:`classes_from_text` (a spec's sorted pairs)."""
    return ", ".join(f"{value}={cls}" for value, cls in classes)
