"""Writing an output folder safely: its lock, the removal of stale temporaries, and all-or-nothing staging.

**The switch of a run's set of files is atomic.**  A write stages every file in a hidden folder
(:class:`Staging`); :meth:`Staging.commit` checks them all, then writes the *switch record*
``switch.json`` into the staging folder (atomically: a temporary name, fsync, rename) naming every
move (staged file -> its final name) and every file of the earlier set to remove, and only then
moves and removes, one rename at a time, and drops the record.  The record is the commit point: a
run killed before it is written left the folder as it was (the next lock holder removes the staging
folder), one killed after it (at any rename) left a record that the next holder of the folder's
lock (:func:`folder_lock`, which every Worldseed writer and reader of an output folder takes:
headless runs, Build Tiles, Export World, Export for Unity) reads first and finishes
(:func:`finish_switches`: the moves not yet done, then the removals), so the folder holds exactly
the earlier set or exactly the new one, never a mix.
"""

import contextlib
import errno
import json
import os
import re
import shutil
import stat
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ...core.errors import short
from ...core.files import read_checked
from ...core.unity import write_bytes_atomic
from .export import ExportError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt

__all__ = [
    "new_folder",
    "finish_switches",
    "SWITCH_FILE",
    "output_folder",
    "explaining",
    "folder_lock",
    "Staging",
    "is_stale_temporary",
    "writing",
    "LOCK_FILE",
    "LOCK_WAIT",
]

#: The lock file of an output folder while a write holds it.
LOCK_FILE = ".worldseed.lock"
#: Seconds a writer waits for another writer of the same folder before it gives up.
LOCK_WAIT = 300.0
STAGING_PREFIX = ".worldseed-"
STAGING_SUFFIX = ".tmp"
#: The switch record in a staging folder: the moves and removals of a commit under way.
SWITCH_FILE = "switch.json"
SWITCH_FORMAT = ("worldseed-switch", 1)
#: Test hook: with this environment variable set to k, the process ends (``os._exit(KILLED_STATUS)``)
#: right after the k-th rename or removal of a switch (the record's own rename is the first), as a
#: ``kill -9`` there would; the tests loop k over every step.
KILL_AFTER_RENAME = "WORLDSEED_TEST_KILL_AFTER_RENAME"
KILLED_STATUS = 137
_STAGING_NAME = re.compile(r"^\.worldseed-[A-Za-z0-9_]+\.tmp$")
_steps: dict[str, int] = {}

#: Names of the temporaries Worldseed (and the exporters it calls) write next to a target: staging
#: folders, this module's and ``export.py``'s mkstemp names, the render's and the old blend saver's
#: fixed names with Blender's ``@`` save temporary and ``1`` backup of them, and
#: ``core.unity.write_bytes_atomic``'s.  Only hidden names match; a run removes them under the lock.
STALE_TEMPORARY = re.compile(
    r"^\.(?:"
    r"worldseed-[A-Za-z0-9_]+\.tmp"  # staging folder
    r"|.+\.[A-Za-z0-9_]{8}\.tmp\.(?:fbx|glb)"  # export.py's mkstemp
    r"|.+\.png\.tmp\.png"  # render.py
    r"|.+\.blend\.tmp\.blend[1@]?"  # the old blend saver, and what Blender made of it
    r"|.+\.[0-9a-f]{12}\.tmp"  # core.unity.write_bytes_atomic
    r")$"
)


def is_stale_temporary(name: str) -> bool:
    """Whether ``name`` (a file name, no folder) is one of the temporaries a Worldseed write makes.

    >>> [is_stale_temporary(n) for n in (".world.blend.tmp.blend1", ".worldseed-ab_12.tmp", "world.fbx")]
    [True, True, False]
    """
    return bool(STALE_TEMPORARY.match(name))


def _try_lock(fd: int) -> bool | None:
    """True when locked, False when another process holds the lock, None when the file system has no locks."""
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError as err:
        busy = err.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES, getattr(errno, "EDEADLOCK", -1))
        return False if busy else None
    return True


def _lock_problem(folder: str, path: str, reason: object) -> str:
    """The one line of a lock file that cannot be taken: what is at ``path`` and what to do."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        mode = None
    kinds = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"))
    kind = next((k for test, k in kinds if mode is not None and test(mode)), None)
    if kind is None and mode is not None and not stat.S_ISREG(mode):
        kind = "not a plain file"
    if kind is not None:
        return (
            f"cannot lock output folder {folder!r}: {path} is {kind}, where Worldseed keeps a plain lock file "
            f"(never followed or written through); remove it (rm {'-r ' if kind == 'a folder' else ''}'{path}') "
            "and run again"
        )
    return f"cannot lock output folder {folder!r}: {path}: {reason}"


def _lock(folder: str, wait: float) -> int:
    """Lock ``folder`` (its :data:`LOCK_FILE`), polling for up to ``wait`` seconds; returns the file's fd.

    The holder removes the lock file when it is done, so a lock taken on a
    file that has since been removed (or replaced) is let go and taken again
    on the file now at that name.
    """
    path = os.path.join(folder, LOCK_FILE)
    flags = (
        os.O_RDWR
        | os.O_CREAT
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_CLOEXEC", 0)
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_NOCTTY", 0)
    )
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(path, flags, 0o666)
        except OSError as err:
            raise ExportError(_lock_problem(folder, path, err.strerror)) from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise ExportError(_lock_problem(folder, path, None))
        locked = _try_lock(fd)
        if locked is None:  # no locks on this file system (some network shares): the unique names still hold
            return fd
        if locked:
            try:
                same = os.path.samestat(os.fstat(fd), os.lstat(path))
            except FileNotFoundError:
                same = False
            if same:
                return fd
        os.close(fd)
        if time.monotonic() >= deadline:
            raise ExportError(
                f"output folder {folder!r} is in use by another Worldseed run (waited {wait:g} s); "
                "try again when it has finished, or write to another folder"
            )
        time.sleep(0.1)


def _unlock(folder: str, fd: int) -> None:
    with contextlib.suppress(OSError):
        os.remove(os.path.join(folder, LOCK_FILE))  # still ours: nobody else holds it while we do
    os.close(fd)


def _remove_stale(folder: str) -> list[str]:
    """Remove what killed writes left in ``folder``: only our temporaries' names, never through a link."""
    removed = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if not is_stale_temporary(entry.name) or entry.is_symlink():
                continue
            if _STAGING_NAME.match(entry.name) and _read_switch(entry.path) is not None:
                continue  # a switch that could not be finished yet: its files are the folder's new set
            try:
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)  # rmtree removes links inside, never what they point to
                else:
                    os.remove(entry.path)
            except OSError:
                continue  # not ours to remove after all (permissions): leave it
            removed.append(entry.path)
    return removed


def _file_mode(path: str) -> int | None:
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        return None


def _blend_complete(path: str) -> bool:
    """Whether the .blend at ``path`` is whole: a zstd file ends in its seek table's footer, a plain
    one in its ENDB block (a save cut short by a full disk has neither)."""
    with open(path, "rb") as f:
        head = f.read(12)
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 64))
        tail = f.read()
    if head.startswith(b"\x28\xb5\x2f\xfd"):  # zstd (Blender's compressed .blend, the default)
        return tail.endswith(b"\xb1\xea\x92\x8f")
    return head.startswith(b"BLENDER") and b"ENDB" in tail


def _step() -> None:
    """Count one rename or removal of a switch; the test hook :data:`KILL_AFTER_RENAME` ends the process here
    (steps are counted from the time the variable got its value)."""
    kill = os.environ.get(KILL_AFTER_RENAME, "")
    if kill.isdigit():
        _steps[kill] = _steps.get(kill, 0) + 1
        if _steps[kill] == int(kill):
            os._exit(KILLED_STATUS)


def _plain_name(name: object) -> bool:
    return isinstance(name, str) and name not in ("", ".", "..") and os.path.basename(name) == name


def _read_switch(stage_path: str) -> dict[str, Any] | None:
    """The switch record in the staging folder ``stage_path`` (``{"moves": [[staged, target]], "remove":
    [names]}``, names without folders), or None when there is none (or it is not one of ours)."""
    path = os.path.join(stage_path, SWITCH_FILE)
    if os.path.islink(path):
        return None  # never ours: a record is written under its own name
    try:
        data = json.loads(read_checked(path, name="switch", limit=1 << 24))
    except ValueError:  # missing, no regular file, not JSON
        return None
    if not isinstance(data, dict) or (data.get("format"), data.get("version")) != SWITCH_FORMAT:
        return None
    moves, remove = data.get("moves"), data.get("remove")
    if not isinstance(moves, list) or not isinstance(remove, list):
        return None
    if not all(isinstance(m, list) and len(m) == 2 and _plain_name(m[0]) and m[0] == m[1] for m in moves):
        return None  # a staged file keeps its name
    if not all(_plain_name(n) for n in remove):
        return None
    return data


def _switch(folder: str, stage_path: str, record: dict[str, Any]) -> list[str]:
    """Do (or finish) the switch ``record`` of the staging folder ``stage_path`` into ``folder``: each
    move whose staged file is still there (keeping an earlier file's permissions), then each removal
    of a regular file (never a link), then drop the record.  Each step can be done again: a switch
    killed half-way is finished by doing it again.  Returns the names removed."""
    for staged, target in record["moves"]:
        source, final = os.path.join(stage_path, staged), os.path.join(folder, target)
        if not os.path.lexists(source):
            continue  # moved already
        mode = _file_mode(final)
        if mode is not None:
            os.chmod(source, mode)
        os.replace(source, final)  # atomic: a reader sees the old file or the new one, never none
        _step()
    removed = []
    for name in record["remove"]:
        path = os.path.join(folder, name)
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            os.remove(path)
        except FileNotFoundError:
            continue  # removed already
        except OSError:
            continue  # not ours to remove after all (permissions): leave it
        removed.append(path)
        _step()
    os.remove(os.path.join(stage_path, SWITCH_FILE))
    _step()
    return removed


def finish_switches(folder: str) -> list[str]:
    """Finish every switch a killed write left in ``folder`` (a staging folder with its switch record,
    see the module docstring); the caller holds the folder's lock.  Returns the paths moved into
    place or removed.  Staging folders without a record are left for :func:`_remove_stale`."""
    done = []
    with os.scandir(folder) as entries:
        stages = sorted(e.path for e in entries if _STAGING_NAME.match(e.name) and e.is_dir(follow_symlinks=False))
    for stage_path in stages:
        record = _read_switch(stage_path)
        if record is None:
            continue
        try:
            done += [os.path.join(folder, target) for _, target in record["moves"]]
            done += _switch(folder, stage_path, record)
        except OSError:
            continue  # cannot be finished now (permissions?): left for the next holder
    return done


class Staging:
    """A hidden folder inside ``folder`` that one write puts its files in; :meth:`commit` moves them
    into ``folder`` when every one is complete.  Made by :func:`output_folder`."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.removed: list[str] = []
        try:
            self.path = tempfile.mkdtemp(prefix=STAGING_PREFIX, suffix=STAGING_SUFFIX, dir=folder)
        except OSError as err:
            raise ExportError(f"cannot write in output folder {folder!r}: {err.strerror}") from None

    def target(self, staged: str) -> str:
        """The final path of the staged file ``staged``."""
        return os.path.join(self.folder, os.path.basename(staged))

    def commit(self, staged: Sequence[str], *, remove: Iterable[str] = ()) -> list[str]:
        """Check every file in ``staged`` (paths in :attr:`path`), then switch the folder to them at once.

        A file that is missing or empty, or a .blend without its end, stops
        the commit before anything is moved.  Then the switch record is
        written (naming the moves and the files of ``remove``: paths in the
        folder of an earlier set that this one does not hold), the files are
        moved into the folder (one that replaces an earlier one keeps the
        earlier one's permissions) and ``remove`` removed (regular files only,
        never through a link; see the module docstring: a kill at any step is
        finished by the next lock holder).  Returns the final paths, in
        order; :attr:`removed` holds the paths removed.
        """
        for path in staged:
            target = self.target(path)
            if not os.path.isfile(path) or os.path.getsize(path) == 0:
                raise ExportError(f"{os.path.basename(target)} was not written completely; kept the earlier files")
            if path.endswith(".blend") and not _blend_complete(path):
                raise ExportError(
                    f"{os.path.basename(target)} was cut short (disk full or file-size limit?); kept the earlier files"
                )
            if os.path.isdir(target) and not os.path.islink(target):
                raise ExportError(f"cannot write {target!r}: a folder of that name is in the way")
        targets = [self.target(p) for p in staged]
        folder = os.path.abspath(self.folder)
        gone = {os.path.basename(p) for p in remove if os.path.dirname(os.path.abspath(p)) == folder}
        record = {
            "format": SWITCH_FORMAT[0],
            "version": SWITCH_FORMAT[1],
            "moves": [[os.path.basename(p), os.path.basename(p)] for p in staged],
            "remove": sorted(gone - {os.path.basename(t) for t in targets}),  # never a file just moved in
        }
        journal = os.path.join(self.path, SWITCH_FILE)
        try:
            write_bytes_atomic(journal, json.dumps(record, indent=1).encode("utf-8"))
        except OSError as err:
            raise ExportError(
                f"writing the switch record in {self.folder!r} failed: {err.strerror}; kept the earlier files"
            ) from None
        _step()
        try:
            self.removed = _switch(self.folder, self.path, record)
        except OSError as err:  # a rename in one folder hardly fails; the next run into the folder finishes it
            raise ExportError(
                f"moving the new files into {self.folder!r} failed: {err.strerror}; the next Worldseed run into "
                "this folder finishes the move (the staging folder holds the rest)"
            ) from None
        return targets

    def discard(self) -> None:
        """Remove the staging folder, unless a switch from it is under way (its record is there): that
        is for the next holder of the folder's lock to finish."""
        if not os.path.lexists(os.path.join(self.path, SWITCH_FILE)):
            shutil.rmtree(self.path, ignore_errors=True)

    def explain(self, err: object) -> str:
        """``err``'s message with staged paths shown as the files they stand for."""
        return str(err).replace(self.path + os.sep, self.folder + os.sep)


@contextlib.contextmanager
def writing(path: str) -> Iterator[None]:
    """Turn an ``OSError`` while writing ``path`` into an :class:`ExportError` that names it."""
    try:
        yield
    except OSError as err:
        raise ExportError(f"writing {path} failed: {err.strerror or err}; kept the earlier files") from None


#: The folders whose lock this thread holds (real paths): a nested :func:`folder_lock` of one of
#: them (a tiled world's run that writes its FBX through :func:`output_folder`) takes it again at once.
_HELD = threading.local()


def _held() -> dict[str, int]:
    if not hasattr(_HELD, "folders"):
        _HELD.folders = {}
    return _HELD.folders


@contextlib.contextmanager
def folder_lock(folder: str, *, wait: float = LOCK_WAIT) -> Iterator[bool]:
    """Hold ``folder``'s lock (:data:`LOCK_FILE`) for the duration; yields True when this call took it,
    False when this thread held it already (then nothing else is done: a nested hold).

    Another writer of the same folder (another process, or another thread of this one) waits up
    to ``wait`` seconds, then gets a one-line :class:`ExportError`.  Taking the lock first finishes
    a switch of files a killed write began (:func:`finish_switches`), then removes what killed writes
    left in the folder (:func:`is_stale_temporary` names, never through a link).
    """
    if not os.path.isdir(folder):
        raise ExportError(f"output folder {folder!r} does not exist")
    key = os.path.realpath(folder)
    held = _held()
    if held.get(key):
        held[key] += 1
        try:
            yield False
        finally:
            held[key] -= 1
        return
    if not os.access(folder, os.W_OK):
        raise ExportError(f"output folder {folder!r} is not writable")
    fd = _lock(folder, wait)
    held[key] = 1
    try:
        finish_switches(folder)  # a switch a killed run began: finished before anything else reads the folder
        _remove_stale(folder)
        yield True
    finally:
        held.pop(key, None)
        _unlock(folder, fd)


@contextlib.contextmanager
def new_folder(folder: str) -> Iterator[None]:
    """Make ``folder`` (and its parents) if missing, for a run to write into; if the run inside fails,
    a folder made here is removed again when still empty: a failed first run leaves no empty folder.
    ``OSError`` while making it is a one-line :class:`ExportError`."""
    created = not os.path.exists(folder)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise ExportError(f"output folder {short(folder)} cannot be created: {err.strerror}") from None
    try:
        yield
    except BaseException:
        if created:
            with contextlib.suppress(OSError):
                os.rmdir(folder)
        raise


@contextlib.contextmanager
def output_folder(folder: str, *, wait: float = LOCK_WAIT) -> Iterator[Staging]:
    """Write into ``folder`` safely: yields a :class:`Staging` to write the files into.

    Holds ``folder``'s lock file for the duration (another writer of the
    same folder waits up to ``wait`` seconds, then gets a one-line
    :class:`ExportError`), first removes what killed writes left behind,
    and at the end removes the staging folder and whatever was not
    committed.  Errors raised inside name the final files, not the staged.  Inside a
    :func:`folder_lock` of the same folder (this thread's) it uses that hold.
    """
    with folder_lock(folder, wait=wait):
        stage = Staging(folder)
        try:
            with explaining(stage):
                yield stage
        finally:
            stage.discard()


@contextlib.contextmanager
def explaining(stage: Staging) -> Iterator[Staging]:
    """Errors raised inside name the final files of the :class:`Staging` ``stage``, not the staged
    ones, and an ``OSError`` becomes a one-line :class:`ExportError` (what :func:`output_folder` does
    for its own; for a caller that holds a staging folder across other work, a tiled world's run)."""
    try:
        yield stage
    except ExportError as err:
        raise ExportError(stage.explain(err)) from None
    except OSError as err:
        what = f"writing {err.filename} failed: {err.strerror}" if err.filename else str(err)
        raise ExportError(stage.explain(f"{what}; kept the earlier files")) from None
