"""Writing a document back (`validate --fix`, `upgrade`): in place of the file the user named, as it is.

- A symlink is written through: its target gets the new text, the link stays a link (replacing it with
  a regular file would make the relative paths inside resolve against the link's folder instead).
- A file with one name is replaced atomically: the new text goes to a temporary file beside it
  (`.arazzo-XXXX`, the file's own mode, and its owner when this process may set it), renamed over it:
  an interrupted write never leaves half a document.
- A file with several names (hard links), or in a folder this process may not add a file to, is
  rewritten in place, so that every name still shows the same file; its old content is kept in memory
  and written back if the write fails or is interrupted.
- The temporary file is removed on every exit path: an error, Ctrl-C (KeyboardInterrupt), and SIGTERM or
  SIGHUP, which are turned into an exception while the file is written, then honoured (the process ends
  by that signal, as it was asked to). A SIGKILL cannot be caught by any program: what it can leave is a
  `.arazzo-` file beside the document, never a half-written document.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
from collections.abc import Iterator

_CAUGHT = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Interrupted(BaseException):
    """A signal that ends the process arrived while a file was written (re-sent once it is cleaned up)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def write_in_place(file: str, content: bytes) -> None:
    """Write `content` as the new content of `file` (see the module doc)."""
    target = os.path.realpath(file)  # through symlinks, to the file itself
    try:
        with _signals_raise():
            if os.stat(target).st_nlink > 1:
                _rewrite(target, content)
            else:
                _replace(target, content)
    except Interrupted as exc:  # cleaned up: now end as the signal asked
        signal.signal(exc.signum, signal.SIG_DFL)
        os.kill(os.getpid(), exc.signum)
        raise


def _replace(target: str, content: bytes) -> None:
    folder = os.path.dirname(target)
    before = os.stat(target)
    try:
        handle, temporary = tempfile.mkstemp(prefix=".arazzo-", dir=folder)
    except PermissionError:  # a folder this process may not add to, a file it may write: in place
        _rewrite(target, content)
        return
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, before.st_mode & 0o7777)
        if hasattr(os, "chown") and (before.st_uid, before.st_gid) != _owner(temporary):
            with contextlib.suppress(OSError):  # only the owner's group, or root, may set these
                os.chown(temporary, before.st_uid, before.st_gid)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _rewrite(target: str, content: bytes) -> None:
    """Write over the file's own bytes (every hard link shows them); its old bytes back on any failure."""
    with open(target, "r+b") as stream:
        old = stream.read()
        try:
            stream.seek(0)
            stream.write(content)
            stream.truncate()
            stream.flush()
            os.fsync(stream.fileno())
        except BaseException:
            with _signals_raise(deferred=True):
                stream.seek(0)
                stream.write(old)
                stream.truncate()
                stream.flush()
            raise


def _owner(path: str) -> tuple[int, int]:
    found = os.stat(path)
    return found.st_uid, found.st_gid


@contextlib.contextmanager
def _signals_raise(deferred: bool = False) -> Iterator[None]:
    """SIGTERM and SIGHUP raise `Interrupted` inside the block (with `deferred`, they wait until it ends:
    a write that puts the old bytes back is not interrupted). Only in the main thread, where Python runs
    signal handlers; elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread() or not _CAUGHT:
        yield
        return
    pending: list[int] = []

    def handle(signum: int, frame: object) -> None:
        if deferred:
            pending.append(signum)
            return
        raise Interrupted(signum)

    previous = {signum: signal.signal(signum, handle) for signum in _CAUGHT}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if pending:
        raise Interrupted(pending[0])
