"""Parsed local source descriptions kept on disk, so the next `validate` or `run` does not parse them again.

Parsing a 4 MB YAML description costs ~0.4 s of CPU even with libyaml; reading back its data costs
~0.03 s. The store holds, for each local description of at least `MIN_BYTES`, the data the loader
produced (`marshal`, plain dict/list/str/int/float/bool/None) and, once a finding needed them, its
position index (nested tuples of ints), so findings are located at the same file:line:col either way.

An entry is used only when it was written for these exact bytes (SHA-256 of the content, which is read
anyway to fetch it: no size/mtime guess can serve a stale parse) by this loader (`_loader_stamp`: the
format, the Python and PyYAML versions, libyaml or not, the limits, and the size and mtime of the loader's
own files). Remote documents are never stored: what a server answers is read and parsed every time.

"No code from data": an entry is a MAC (HMAC-SHA256, with a random key kept in the store's folder, 0600)
followed by the marshalled payload, and `marshal.loads` runs only on a payload whose MAC matches, i.e. one
this user's engine wrote. `marshal` is not safe for data anyone could have crafted (and `pickle` would run
it): a corrupt, truncated, foreign or hostile entry fails the MAC and is ignored (parsed again, then
overwritten). The folder is created 0700 and refused (the store is then not used) when another user owns
it or others may write to it, like the key file; entries are written 0600 to a temporary name and renamed
(a reader never sees half an entry). docs/security.md says why this and not pickle or JSON.

Location: `$ARAZZO_CACHE_DIR/sources`, else `$XDG_CACHE_HOME/arazzo-engine/sources`, else
`~/.cache/arazzo-engine/sources`; `ARAZZO_NO_CACHE=1` (the CLI's `--no-cache`) turns it off. At most
`MAX_ENTRIES` files and about `MAX_BYTES` bytes (the sizes are summed when a big entry is written or
the files are too many): the least recently used entries go first. A store that cannot
be read or written is silently not used: it only ever saves time.
"""

from __future__ import annotations

# hashlib, hmac and marshal are imported where an entry is read or written: a command that reads no
# local description of some size (or only remote ones) never needs them.
import contextlib
import os
import re
import stat
import sys
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

MIN_BYTES = 32 * 1024  # smaller documents parse in a few ms: an entry would cost about as much
MAX_ENTRIES = 4096  # files: a project's small documents each keep an entry or two (and facts) beside
MAX_BYTES = 512 * 2**20  # the big descriptions' few big ones; 256 made a 150-document tree evict its own
_FORMAT = 1  # bump when what an entry holds changes
_MAGIC = b"arazzo-parsed\n"
_MAC_SIZE = 32
_KEY_SIZE = 32
_DATA, _POSITIONS, _FACTS = "data", "positions", "facts"
# the names the store writes (entries, and their temporary files): the only ones eviction removes
_OWN = re.compile(r"[0-9a-f]{40}\.(?:data|positions|facts)(?:\.\d+\.[0-9a-f]{8}\.tmp)?\Z")


def cache_base(environ: Mapping[str, str] | None = None) -> str | None:
    """The engine's cache folder (the validation cache's and this store's parent), or None when
    `ARAZZO_NO_CACHE` is set."""
    from .. import DISTRIBUTION

    env = os.environ if environ is None else environ
    if env.get("ARAZZO_NO_CACHE"):
        return None
    home_cache = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return env.get("ARAZZO_CACHE_DIR") or os.path.join(home_cache, DISTRIBUTION)


class ParsedStore:
    """Parsed documents by location, on disk; see the module doc. Methods never raise for the store's
    own problems: a miss is the worst that can happen."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self._key: bytes | None = None
        self._usable: bool | None = None  # checked on first use

    @classmethod
    def default(cls, environ: Mapping[str, str] | None = None) -> ParsedStore | None:
        base = cache_base(environ)
        return None if base is None else cls(os.path.join(base, "sources"))

    # -- reading and writing ------------------------------------------------------------------------

    def data(self, location: str, content: bytes, floor: int = MIN_BYTES) -> tuple[Any, str] | None:
        """(data, "yaml" or "json") stored for exactly `content` read from `location`, or None. `floor`:
        the size below which nothing is stored (0 for a document whose parse would import PyYAML,
        which costs far more than a small entry: `validate/stored_document.py`)."""
        found = self._read(location, _DATA, content, floor)
        if not (isinstance(found, tuple) and len(found) == 2 and found[1] in ("yaml", "json")):
            return None
        return found

    def keep_data(self, location: str, content: bytes, data: Any, kind: str, floor: int = MIN_BYTES) -> None:
        self._write(location, _DATA, content, (data, kind), floor)

    def positions(self, location: str, content: bytes, floor: int = MIN_BYTES) -> Any:
        """The root entry of the position index stored for `content`, or None."""
        found = self._read(location, _POSITIONS, content, floor)
        return found if isinstance(found, tuple) and len(found) == 3 else None

    def keep_positions(self, location: str, content: bytes, root: Any, floor: int = MIN_BYTES) -> None:
        self._write(location, _POSITIONS, content, root, floor)

    def facts(self, location: str, content: bytes, floor: int = MIN_BYTES) -> dict[str, Any]:
        """What was worked out once about exactly `content` (each fact's name says what it depends on
        beyond the bytes: `validate/stored_document.py`, `validate/sources.py`), {} when nothing."""
        found = self._read(location, _FACTS, content, floor)
        return found if isinstance(found, dict) else {}

    def keep_fact(self, location: str, content: bytes, name: str, value: Any, floor: int = MIN_BYTES) -> None:
        """Add one fact about `content` to those stored (read again just before: another process's stay)."""
        if self.worth_it(location, content, floor):
            known = self.facts(location, content, floor)
            self._write(location, _FACTS, content, {**known, name: value}, floor)

    def worth_it(self, location: str, content: bytes, floor: int = MIN_BYTES) -> bool:
        """Only local files of some size: a remote answer may change while its bytes stay unknown."""
        return len(content) >= floor and not _remote(location) and self._ready()

    def _read(self, location: str, kind: str, content: bytes, floor: int = MIN_BYTES) -> Any:
        if not self.worth_it(location, content, floor):
            return None
        path = self._entry(location, kind)
        try:
            with open(path, "rb") as stream:
                size = os.fstat(stream.fileno()).st_size
                if size > MAX_BYTES:
                    return None
                raw = stream.read(size + 1)
        except OSError:
            return None
        payload = self._verified(raw)
        if payload is None:
            return None
        import marshal

        from ..loader.load import gc_paused

        try:
            with gc_paused():  # hundreds of thousands of containers, none of them garbage
                header, value = marshal.loads(payload)
        except Exception:  # a payload we wrote always loads (the MAC says we did): anything else, a miss
            return None
        if header != (_FORMAT, kind, _loader_stamp(), _digest(content)):
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: evicted last
        return value

    def _write(self, location: str, kind: str, content: bytes, value: Any, floor: int = MIN_BYTES) -> None:
        if not self.worth_it(location, content, floor) or self._key is None:
            return
        import hashlib
        import hmac
        import marshal

        header = (_FORMAT, kind, _loader_stamp(), _digest(content))
        try:
            payload = marshal.dumps((header, value))
        except ValueError:  # a value marshal cannot write (never from the loader): not stored
            return
        mac = hmac.new(self._key, payload, hashlib.sha256).digest()
        path = self._entry(location, kind)
        partial = path.with_name(f"{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            _write_private(partial, _MAGIC + mac + payload)
            os.replace(partial, path)  # atomic: a concurrent reader sees the old entry or the new one
        except OSError:
            with contextlib.suppress(OSError):
                partial.unlink()
            return
        self._evict(len(payload))

    def _verified(self, raw: bytes) -> bytes | None:
        import hashlib
        import hmac

        head = len(_MAGIC) + _MAC_SIZE
        if self._key is None or len(raw) < head or not raw.startswith(_MAGIC):
            return None
        payload = raw[head:]
        expected = hmac.new(self._key, payload, hashlib.sha256).digest()
        return payload if hmac.compare_digest(expected, raw[len(_MAGIC) : head]) else None

    def _entry(self, location: str, kind: str) -> Path:
        import hashlib

        name = hashlib.sha256(location.encode("utf-8", "surrogatepass")).hexdigest()[:40]
        return self.folder / f"{name}.{kind}"

    # -- the folder ---------------------------------------------------------------------------------

    def _ready(self) -> bool:
        """The folder exists, is private to this user, and the key is read (or made): once a process."""
        if self._usable is None:
            try:
                self._usable = self._prepare()
            except OSError:
                self._usable = False
        return self._usable

    def _prepare(self) -> bool:
        """A folder made here is 0700 (mkdir's mode, which a umask only narrows). One that was there and is
        not private is narrowed back only when it is the store's own (this user's, holding its private
        key); any other is left as it is and not used: `ARAZZO_CACHE_DIR` may name a folder holding the
        user's own `sources/` (and eviction deletes only the store's own names)."""
        if not self.folder.is_dir():
            self.folder.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):
                self.folder.mkdir(mode=0o700)
        if not _private(os.stat(self.folder), folder=True):
            with contextlib.suppress(OSError):
                if _owned(os.stat(self.folder)) and _private(os.lstat(self.folder / "key"), folder=False):
                    os.chmod(self.folder, 0o700)  # the store's own, widened since: narrowed back
            if not _private(os.stat(self.folder), folder=True):
                return False
        self._key = self._read_key()
        return self._key is not None

    def _read_key(self) -> bytes | None:
        """The folder's key, made if there is none. It appears whole (written aside, then linked into
        place), so a reader never sees half of it; one of the wrong size (a full disk or a kill before
        that was so) is made again rather than turning the store off for good."""
        path = self.folder / "key"
        for _ in range(2):
            if not path.exists():
                self._make_key(path)
            with open(path, "rb") as stream:
                if not _private(os.fstat(stream.fileno()), folder=False):
                    return None
                key = stream.read(_KEY_SIZE + 1)
            if len(key) == _KEY_SIZE:
                return key
            with contextlib.suppress(OSError):
                os.unlink(path)
        return None

    def _make_key(self, path: Path) -> None:
        aside = path.with_name(f"key.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            _write_private(aside, os.urandom(_KEY_SIZE), exclusive=True)  # what `secrets` uses
            with contextlib.suppress(FileExistsError):  # another process's key came first: that one
                os.link(aside, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(aside)

    def _evict(self, written: int) -> None:
        """Least recently used entries out until the store holds at most MAX_ENTRIES and MAX_BYTES;
        temporary files a killed process left are removed too. The sizes are read (a stat a file) only
        when there are more files than MAX_ENTRIES or the entry just `written` is a big one (MAX_BYTES /
        MAX_ENTRIES or more): small entries alone stay under MAX_BYTES by their number, and a run
        writing many small documents' entries pays a listing a write, not thousands of stats. With big
        entries beside, the sum is checked again at the next big write (or when the files are too many)."""
        try:
            if written < MAX_BYTES // MAX_ENTRIES and len(os.listdir(self.folder)) <= MAX_ENTRIES + 1:
                return  # + 1: the key file
            with os.scandir(self.folder) as scan:
                files = [(e.stat().st_mtime_ns, e.stat().st_size, e.path) for e in scan if _OWN.match(e.name)]
        except OSError:
            return
        files.sort(reverse=True)  # newest first
        total = 0
        for index, (_, size, path) in enumerate(files):
            total += size
            if index >= MAX_ENTRIES or total > MAX_BYTES:
                with contextlib.suppress(OSError):
                    os.unlink(path)


_LAST: list[tuple[bytes | None, str]] = [(None, "")]  # the last content hashed, its digest (one tuple)


def _digest(content: bytes) -> str:
    """SHA-256 of `content`, once for the entries of one document (~10 M instructions for 4 MB); the pair
    read and replaced whole, so a thread never takes another content's digest."""
    last = _LAST[0]
    if last[0] is content:
        return last[1]
    import hashlib

    digest = hashlib.sha256(content).hexdigest()
    _LAST[0] = (content, digest)
    return digest


class Facts:
    """What was worked out once about the bytes of one stored document (`ParsedStore.facts`), for the
    code that works it out: each fact is kept with a stamp saying what it depends on beyond the bytes
    (the engine's files, a library's version), and is worked out again when the stamp differs."""

    def __init__(self, store: ParsedStore, location: str, content: bytes, floor: int = MIN_BYTES) -> None:
        self.store, self.location, self.content, self.floor = store, location, content, floor

    def get(self, name: str, stamp: str, make: Any) -> Any:
        """The fact `name` stamped `stamp`, else `make()`, kept (unless `make` says `Facts.UNKEPT`)."""
        found = self.store.facts(self.location, self.content, self.floor).get(name)
        if isinstance(found, tuple) and len(found) == 2 and found[0] == stamp:
            return found[1]
        value = make()
        if value is not Facts.UNKEPT:
            self.store.keep_fact(self.location, self.content, name, (stamp, value), self.floor)
        return value

    UNKEPT: Any = None  # what `make` returns for "nothing to keep"


def _remote(location: str) -> bool:
    return location.startswith(("http://", "https://", "<")) or "://" in location


def _owned(info: os.stat_result) -> bool:
    getuid = getattr(os, "getuid", None)
    return getuid is None or info.st_uid == getuid()  # no owners to compare on Windows


def _private(info: os.stat_result, *, folder: bool) -> bool:
    """Owned by this user, and no one else may read or write it (descriptions may be private too)."""
    if os.name == "nt":
        return True  # the folder is in the user's profile; Windows modes do not say more
    kind = stat.S_ISDIR(info.st_mode) if folder else stat.S_ISREG(info.st_mode)
    return kind and _owned(info) and info.st_mode & 0o077 == 0


def _write_private(path: Path, content: bytes, *, exclusive: bool = False) -> None:
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as stream:
        stream.write(content)


@lru_cache(maxsize=1)
def _loader_stamp() -> str:
    """What the loader's output depends on, beyond the bytes: a change of any means parsing again."""
    import hashlib
    import importlib.util

    from ..loader import DEFAULT_LIMITS

    folder = Path(__file__).resolve().parents[1] / "loader"
    stamps = [str(_FORMAT), sys.version, repr(DEFAULT_LIMITS)]
    spec = importlib.util.find_spec("yaml")
    for origin in [spec.origin if spec else None, *sorted(str(p) for p in folder.glob("*.py"))]:
        with contextlib.suppress(OSError, TypeError):
            info = os.stat(origin)  # type: ignore[arg-type]
            stamps.append(f"{os.path.basename(str(origin))}:{info.st_size}:{info.st_mtime_ns}")
    return hashlib.sha256("\n".join(stamps).encode()).hexdigest()
