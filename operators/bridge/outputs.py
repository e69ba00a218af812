"""Writing an output folder safely: its lock, the removal of stale temporaries, and all-or-nothing staging."""

import contextlib
import errno
import os
import re
import shutil
import tempfile
import threading
import time

from ...core.errors import short
from .export import ExportError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt

__all__ = [
    "new_folder",
    "output_folder",
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


def is_stale_temporary(name):
    """Whether ``name`` (a file name, no folder) is one of the temporaries a Worldseed write makes.

    >>> [is_stale_temporary(n) for n in (".world.blend.tmp.blend1", ".worldseed-ab_12.tmp", "world.fbx")]
    [True, True, False]
    """
    return bool(STALE_TEMPORARY.match(name))


def _try_lock(fd):
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


def _lock(folder, wait):
    """Lock ``folder`` (its :data:`LOCK_FILE`), polling for up to ``wait`` seconds; returns the file's fd.

    The holder removes the lock file when it is done, so a lock taken on a
    file that has since been removed (or replaced) is let go and taken again
    on the file now at that name.
    """
    path = os.path.join(folder, LOCK_FILE)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(path, flags, 0o666)
        except OSError as err:
            raise ExportError(f"cannot lock output folder {folder!r}: {err.strerror}") from None
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


def _unlock(folder, fd):
    with contextlib.suppress(OSError):
        os.remove(os.path.join(folder, LOCK_FILE))  # still ours: nobody else holds it while we do
    os.close(fd)


def _remove_stale(folder):
    """Remove what killed writes left in ``folder``: only our temporaries' names, never through a link."""
    removed = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if not is_stale_temporary(entry.name) or entry.is_symlink():
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)  # rmtree removes links inside, never what they point to
                else:
                    os.remove(entry.path)
            except OSError:
                continue  # not ours to remove after all (permissions): leave it
            removed.append(entry.path)
    return removed


def _file_mode(path):
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        return None


def _blend_complete(path):
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


class Staging:
    """A hidden folder inside ``folder`` that one write puts its files in; :meth:`commit` moves them
    into ``folder`` when every one is complete.  Made by :func:`output_folder`."""

    def __init__(self, folder):
        self.folder = folder
        try:
            self.path = tempfile.mkdtemp(prefix=STAGING_PREFIX, suffix=STAGING_SUFFIX, dir=folder)
        except OSError as err:
            raise ExportError(f"cannot write in output folder {folder!r}: {err.strerror}") from None

    def target(self, staged):
        """The final path of the staged file ``staged``."""
        return os.path.join(self.folder, os.path.basename(staged))

    def commit(self, staged):
        """Check every file in ``staged`` (paths in :attr:`path`), then move them all into the folder.

        A file that is missing or empty, or a .blend without its end, stops
        the commit before anything is moved.  A file that replaces an
        earlier one keeps the earlier one's permissions.  Returns the final
        paths, in order.
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
        done = []
        for path in staged:
            target = self.target(path)
            try:
                mode = _file_mode(target)
                if mode is not None:
                    os.chmod(path, mode)
                os.replace(path, target)  # atomic: a reader sees the old file or the new one, never none
            except OSError as err:  # a rename in one folder hardly fails; say exactly what the folder holds
                new = ", ".join(os.path.basename(p) for p in done) or "none"
                raise ExportError(
                    f"moving {os.path.basename(target)} into {self.folder!r} failed: {err.strerror}; "
                    f"files from this run: {new}; the others are the earlier ones"
                ) from None
            done.append(target)
        return done

    def discard(self):
        shutil.rmtree(self.path, ignore_errors=True)

    def explain(self, err):
        """``err``'s message with staged paths shown as the files they stand for."""
        return str(err).replace(self.path + os.sep, self.folder + os.sep)


@contextlib.contextmanager
def writing(path):
    """Turn an ``OSError`` while writing ``path`` into an :class:`ExportError` that names it."""
    try:
        yield
    except OSError as err:
        raise ExportError(f"writing {path} failed: {err.strerror or err}; kept the earlier files") from None


#: The folders whose lock this thread holds (real paths): a nested :func:`folder_lock` of one of
#: them (a tiled world's run that writes its FBX through :func:`output_folder`) takes it again at once.
_HELD = threading.local()


def _held():
    if not hasattr(_HELD, "folders"):
        _HELD.folders = {}
    return _HELD.folders


@contextlib.contextmanager
def folder_lock(folder, *, wait=LOCK_WAIT):
    """Hold ``folder``'s lock (:data:`LOCK_FILE`) for the duration; yields True when this call took it,
    False when this thread held it already (then nothing else is done: a nested hold).

    Another writer of the same folder (another process, or another thread of this one) waits up
    to ``wait`` seconds, then gets a one-line :class:`ExportError`.  Taking the lock first removes
    what killed writes left in the folder (:func:`is_stale_temporary` names, never through a link).
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
        _remove_stale(folder)
        yield True
    finally:
        held.pop(key, None)
        _unlock(folder, fd)


@contextlib.contextmanager
def new_folder(folder):
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
def output_folder(folder, *, wait=LOCK_WAIT):
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
            yield stage
        except ExportError as err:
            raise ExportError(stage.explain(err)) from None
        except OSError as err:
            what = f"writing {err.filename} failed: {err.strerror}" if err.filename else str(err)
            raise ExportError(stage.explain(f"{what}; kept the earlier files")) from None
        finally:
            stage.discard()
