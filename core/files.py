"""Reading the files a recipe names: checked before they are read, and never quoted from elsewhere.

Every file a recipe (or the sidebar) names -- the recipe itself, biome tables, texture images, WFC
tilesets and samples, tree species, a run's own records -- is read through :func:`read_checked`:

* it must be a **regular file** (a folder, a FIFO, ``/dev/zero``, a socket are refused by
  ``stat`` before they are opened, and again by ``fstat`` of what was opened, which is opened
  without blocking, so a FIFO planted after the first look cannot hang the read);
* of at most ``limit`` **bytes** (refused from its size, before a byte is read; a file that grows
  while it is read is cut at ``limit + 1`` bytes and refused);

and TOML through :func:`parse_toml`, which also bounds the **nesting** of arrays and tables (at most
:data:`MAX_DEPTH`, found by a scan of the text before ``tomllib`` recurses into it, and again in the
parsed values, where dotted keys nest too).  Each refusal is one :class:`~core.errors.ParameterError`
line naming the setting and the file.

**Content of files outside the recipe's folder is never quoted.**  A parse error may show a key or
a line of the file it read; for a file that lies outside the recipe's folder (after ``..`` and links
are resolved: ``sample = "leak.txt"`` linked to ``/etc/passwd``), :func:`content_hidden` replaces
such an error by one that names the setting and the file but shows none of its content.  The
extension's own presets are shown.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     path = os.path.join(folder, "t.toml")
...     _ = open(path, "w").write("a = [[1]]\\n")
...     parse_toml(read_checked(path, name="table", limit=100).decode(), source="t.toml")
{'a': [[1]]}
"""

import contextlib
import os
import re
import stat
import tomllib
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from .errors import ParameterError, short

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "PRESETS",
    "read_checked",
    "open_regular",
    "parse_toml",
    "read_toml",
    "check_depth",
    "inside",
    "content_hidden",
]

#: Deepest nesting of arrays and tables a TOML file may have (recipes, tilesets and species hold 5 or 6).
MAX_DEPTH = 32
#: Largest data file a recipe names (tileset, sample, biome table, species) read, in bytes.
MAX_FILE_BYTES = 16 * 2**20
#: The extension's own data (``<extension root>/presets``): its content may always be shown.
PRESETS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "presets")

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
#: What the nesting scan looks at: comments and strings (skipped whole), and brackets.
_TOKENS = re.compile(
    r'#[^\n]*|"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|[\[\]{}]', re.DOTALL
)


def _not_regular(mode: int) -> str | None:
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) else "not a regular file"


def read_checked(path: str | os.PathLike[str], *, name: str, limit: int, shown: object = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them, checked before it is read.

    ``name`` is the setting the file came from (``"biomes.table"``), ``shown`` the file as the
    user wrote it (default ``path``); both start every error::

        biomes.table 'zero.toml': /recipes/zero.toml is a character device, not a regular file

    A missing or unreadable file, anything but a regular file, and a file of more than ``limit``
    bytes are each one :class:`ParameterError`; nothing is read from a file that is not regular.
    """
    path = os.fspath(path)
    full = path if len(path) <= 300 else f"{path[:280]}... ({len(path):,} characters)"
    head = f"{name} {short(shown, 300)}: {full}" if shown is not None and str(shown) != path else f"{name} {full}"
    try:
        kind = _not_regular(os.stat(path).st_mode)  # before opening: a device is never opened
        if kind is not None:
            raise ParameterError(f"{head} is {kind}, not a regular file")
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise ParameterError(f"{head} cannot be read: no such file") from None
    except OSError as err:
        raise ParameterError(f"{head} cannot be read: {err.strerror or err}") from None
    try:
        info = os.fstat(fd)
        kind = _not_regular(info.st_mode)  # what was opened, if the name changed since the look
        if kind is not None:
            raise ParameterError(f"{head} is {kind}, not a regular file")
        if info.st_size > limit:
            raise ParameterError(f"{head} has {info.st_size:,} bytes, more than the {limit:,} allowed")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as err:
        raise ParameterError(f"{head} cannot be read: {err.strerror or err}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise ParameterError(f"{head} has more than the {limit:,} bytes allowed (it grew while read)")
    return b"".join(chunks)


def open_regular(path: str | os.PathLike[str]) -> BinaryIO | None:
    """``path`` opened for reading in binary (without blocking on a FIFO, never as a controlling
    terminal), or None when what was opened is not a regular file; ``OSError`` as ``open`` raises it."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        os.close(fd)
        raise
    if not regular:
        os.close(fd)
        return None
    return os.fdopen(fd, "rb")


def _scan_depth(text: str) -> int:
    """The deepest nesting of ``[`` / ``{`` outside strings and comments, up to :data:`MAX_DEPTH` + 1."""
    depth = deepest = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    break
        elif token in "]}":
            depth = max(depth - 1, 0)
    return deepest


def check_depth(value: object, *, source: str, error: Callable[[str], Exception] = ParameterError) -> None:
    """Refuse values (dicts and lists) that nest deeper than :data:`MAX_DEPTH` (walked without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if level > MAX_DEPTH:
            raise error(f"{source}: values nest too deeply (more than {MAX_DEPTH} levels)") from None
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)


def parse_toml(text: str, *, source: str, error: Callable[[str], Exception] = ParameterError) -> dict[str, Any]:
    """TOML ``text`` as a dict: nesting bounded (:data:`MAX_DEPTH`) before and after parsing; every
    failure is one ``error`` line starting ``source:``."""
    if _scan_depth(text) > MAX_DEPTH:
        raise error(f"{source}: values nest too deeply (more than {MAX_DEPTH} levels)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise error(f"{source}: not valid TOML: {err}") from None
    except RecursionError:  # a nest the scan missed: tomllib recurses into arrays and inline tables
        raise error(f"{source}: values nest too deeply") from None
    except ValueError:  # tomllib's int() of more than 4,300 digits (Python's limit on int conversion)
        raise error(f"{source}: not valid TOML: a number is too long (more than 4,300 digits)") from None
    check_depth(data, source=source, error=error)
    return data


def read_toml(
    path: str | os.PathLike[str], *, name: str, limit: int, source: str | None = None, shown: object = None
) -> dict[str, Any]:
    """The TOML file ``path`` as a dict (:func:`read_checked`, UTF-8, then :func:`parse_toml`); parse
    errors start with ``source`` (default the file's name)."""
    data = read_checked(path, name=name, limit=limit, shown=shown)
    source = os.path.basename(os.fspath(path)) if source is None else source
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ParameterError(f"{source}: not UTF-8 text (byte {err.start:,})") from None
    return parse_toml(text, source=source)


def inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """Whether ``path`` lies in ``folder`` once ``..`` and links are resolved (both real paths).

    >>> inside("/a/b/../c.txt", "/a"), inside("/a/../etc/passwd", "/a")
    (True, False)
    """
    folder = os.path.realpath(folder)
    try:
        return os.path.commonpath([folder, os.path.realpath(path)]) == folder
    except ValueError:  # another drive (Windows)
        return False


@contextlib.contextmanager
def content_hidden(
    path: str | os.PathLike[str], *, folder: str | os.PathLike[str] | None, what: str, name: str | None = None
) -> Iterator[None]:
    """Let a :class:`ParameterError` about the content of the file ``path`` pass only when the file
    lies in ``folder`` (the recipe's) or in the extension's :data:`PRESETS`; for a file elsewhere it
    becomes one line naming the file (after ``name``, the setting, when given) but quoting nothing
    of it.  ``folder=None`` (no recipe: the sidebar's own pick, a direct call) lets every error pass.

    >>> try:
    ...     with content_hidden("/etc/passwd", folder="/recipes", what="sample", name="level.sample 'a.txt'"):
    ...         raise ParameterError("sample must hold only digits 0-9, got line 1: 'root:x:0:0'")
    ... except ParameterError as err:
    ...     print(str(err).split(" (")[0])
    level.sample 'a.txt': /etc/passwd is not a valid sample
    """
    try:
        yield
    except ParameterError:
        if folder is None or inside(path, folder) or inside(path, PRESETS):
            raise
        path, folder = os.fspath(path), os.fspath(folder)
        raise ParameterError(
            f"{name + ': ' if name else ''}{path if len(path) <= 300 else short(path, 300)} is not a valid {what} "
            f"(the file lies outside the recipe's folder {short(folder, 200)}, so nothing of it is shown; "
            "copy it beside the recipe to see what is wrong)"
        ) from None
