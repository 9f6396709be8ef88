"""The journal file (`--journal FILE`, `RunOptions(journal=...)`): one SQLite database, from the standard
library, that a run writes as its exchanges complete and a later run with the same file resumes from.

What it holds (docs/semantics.md, *Resuming a run*): the run it belongs to (digests of the document, the
selected workflows, the inputs and the rows, never the values themselves), a random run id (the seed of
`--idempotency-header` keys), and each completed HTTP exchange of an operation step: keyed by where it
was made (`scope.py`), with a digest of the request and the whole response (status, headers, body) or
where the exchange was sent and where it completed in the run's order of events (`sent`, `seq`: one
counter of sends and completions, by which a resumed `--parallel` run delivers its answers). A
transport failure, a deadline or a step timeout is not recorded: as far as the run knows the exchange
did not complete, so a resumed run sends it again. Responses may carry secrets (a token, a
Set-Cookie): the file is created with mode 0600, an existing one readable by others is set to 0600
before anything is written, and nothing of it is printed (docs/security.md).

Before the first exchange is sent, `sent` is committed in meta: a journal holding no exchange was
taken over by a run with other inputs only if its run never sent (a request in flight when it was
killed carries its run's idempotency key). A write that fails (a full disk) stops the run as Ctrl-C
does (`Unwritable`): going on would send exchanges a resume could not know of.

Each exchange is committed as it completes (WAL, `synchronous=NORMAL`): a process killed at any point
(SIGKILL included) loses at most the exchanges in flight; a power failure may lose the last commits too,
which are then sent again. One run at a time holds the file (an exclusive lock taken when it is opened).
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
from typing import Any

from ...errors import UsageError

FORMAT = "2"  # the layout below; another one is refused, not read
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS exchanges (key TEXT PRIMARY KEY, request TEXT NOT NULL, "
    "status INTEGER, headers TEXT, content BLOB, content_type TEXT, elapsed_ms REAL, notes TEXT, "
    "error TEXT, oversize TEXT, sent INTEGER, seq INTEGER)",
    "CREATE TABLE IF NOT EXISTS rows (line INTEGER PRIMARY KEY, status TEXT NOT NULL)",
)
# what a run is, in the order a mismatch is named: (meta name, how the message says it)
_IDENTITY = (
    ("document", "document"),
    ("workflows", "selected workflows"),
    ("inputs", "inputs"),
    ("rows", "rows of --inputs-file"),
)


class Unwritable(KeyboardInterrupt):
    """The journal could not be written: the run stops as at Ctrl-C (a KeyboardInterrupt, so every level
    records what ran, as far as it went), and `arazzo run` says why (`JournalFile.broken`) and exits 2."""


class JournalFile:
    """An open journal: checked to belong to the run described by `identity` before anything is sent."""

    def __init__(self, path: str, identity: dict[str, str]) -> None:
        self.path = path
        self.replayed = 0  # exchanges answered from the file in this process, not sent
        self.recorded = 0  # exchanges written to it in this process
        self.broken: str | None = None  # why a write failed: the run was stopped (`Unwritable`)
        self._sent = False  # `sent` is committed in meta
        _create(path)
        try:
            self._db = sqlite3.connect(path, timeout=0, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise UsageError(f"--journal {path}: cannot open it: {exc}") from None
        try:
            self._prepare()
            self.run_id, self.resuming = self._claim(identity)
            self.seq = int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM exchanges").fetchone()[0])
            # (a completion comes after its send: the largest seq is the last event recorded)
        except sqlite3.DatabaseError as exc:
            self._db.close()
            why = "another run is using it" if "locked" in str(exc) else f"not a journal ({exc})"
            raise UsageError(f"--journal {path}: {why}; nothing was sent") from None
        except BaseException:
            self._db.close()
            raise

    def _prepare(self) -> None:
        db = self._db
        db.execute("PRAGMA locking_mode=EXCLUSIVE")  # one run at a time; the lock goes with the process
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # a commit survives the process, not always the machine
        db.execute("BEGIN IMMEDIATE")  # takes the lock now: a second run is refused before it sends
        for statement in _SCHEMA:
            db.execute(statement)
        db.execute("COMMIT")

    def _claim(self, identity: dict[str, str]) -> tuple[str, bool]:
        """(the run id, whether the file holds exchanges of an earlier run); a file of another run is a
        usage error naming what differs."""
        meta = dict(self._db.execute("SELECT name, value FROM meta").fetchall())
        if not meta:
            run_id = secrets.token_hex(16)
            rows = [("format", FORMAT), ("run", run_id), *identity.items()]
            self._db.executemany("INSERT INTO meta VALUES (?, ?)", rows)
            return run_id, False
        if meta.get("format") != FORMAT:
            raise UsageError(
                f"--journal {self.path}: written in format {meta.get('format')!r}, this version reads "
                f"format {FORMAT}; nothing was sent (use another journal file)"
            )
        differ = [said for name, said in _IDENTITY if meta.get(name) != identity.get(name)]
        found = self._db.execute("SELECT 1 FROM exchanges LIMIT 1").fetchone() is not None
        self._sent = "sent" in meta
        if differ and not found and not self._sent:  # its run sent nothing (refused before it): taken,
            run_id = secrets.token_hex(16)  # with a run id of its own: no key of it was ever sent
            rows = [("run", run_id), *identity.items()]
            self._db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", rows)
            self._db.execute("DELETE FROM rows")
            return run_id, False
        if differ:
            raise UsageError(
                f"--journal {self.path}: it belongs to another run (not the same {_and(differ)}); "
                "nothing was sent. Run with the same document, workflows and inputs to resume it, or "
                "give another journal file (delete this one to start afresh)"
            )
        return meta["run"], found

    # -- exchanges -----------------------------------------------------------------------------------

    def exchange(self, key: str) -> tuple[Any, ...] | None:
        """The recorded exchange at `key`: (request digest, status, headers, content, content type,
        elapsed ms, notes, error, oversize), or None."""
        if not self.resuming:  # a new journal answers nothing: no query per request
            return None
        return self._db.execute(  # type: ignore[no-any-return]
            "SELECT request, status, headers, content, content_type, elapsed_ms, notes, error, oversize "
            "FROM exchanges WHERE key = ?",
            (key,),
        ).fetchone()

    def has(self, key: str) -> bool:
        if not self.resuming:
            return False
        return self._db.execute("SELECT 1 FROM exchanges WHERE key = ?", (key,)).fetchone() is not None

    def events_of(self, key: str) -> tuple[int, int] | None:
        """Where the exchange at `key` was sent and completed in the run's events (None: not recorded)."""
        if not self.resuming:
            return None
        found = self._db.execute("SELECT sent, seq FROM exchanges WHERE key = ?", (key,)).fetchone()
        return None if found is None else (int(found[0] or 0), int(found[1] or 0))

    def events_under(self, prefix: str) -> list[int]:
        """The recorded events (sends, completions) of a run (its keys' prefix: `row:7/`; '' all), sorted."""
        if not self.resuming:
            return []
        if not prefix:
            rows = self._db.execute("SELECT sent, seq FROM exchanges WHERE key LIKE '/%'").fetchall()
        else:  # the keys starting with `prefix` (no LIKE: a prefix may hold `%` or `_`)
            bound = prefix[:-1] + chr(ord(prefix[-1]) + 1)
            sql = "SELECT sent, seq FROM exchanges WHERE key >= ? AND key < ?"
            rows = self._db.execute(sql, (prefix, bound)).fetchall()
        return sorted(int(event or 0) for row in rows for event in row)

    def next_event(self) -> int:
        """The next place in the run's events (a send, a completion)."""
        self.seq += 1
        return self.seq

    def mark_sent(self) -> None:
        """Commit `sent` before the run's first exchange leaves (module doc)."""
        if not self._sent:
            self._write("INSERT OR REPLACE INTO meta VALUES ('sent', '1')", ())
            self._sent = True

    def record(self, key: str, request: str, response: Any, sent: int) -> None:
        """Commit one completed exchange, with where it was sent (`sent`) and completed in the events."""
        values = (
            key,
            request,
            response.status_code,
            json.dumps(response.headers.items(), ensure_ascii=False),
            response.content,
            response.content_type,
            response.elapsed_ms,
            json.dumps(response.notes, ensure_ascii=False),
            response.error,
            response.oversize,
            sent,
            self.next_event(),
        )
        self._write("INSERT OR REPLACE INTO exchanges VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", values)
        self.recorded += 1

    def _write(self, sql: str, values: tuple[Any, ...]) -> None:
        """One committed write; when it fails (a full disk, an I/O error) the run is stopped
        (`Unwritable`), and once stopped nothing more is written."""
        if self.broken is not None:
            raise Unwritable(self.broken)
        try:
            self._db.execute(sql, values)
        except sqlite3.Error as exc:
            self.broken = f"--journal {self.path}: cannot record: {exc}; resume with the same command"
            raise Unwritable(self.broken) from None

    # -- rows ----------------------------------------------------------------------------------------

    def row_finished(self, line: int, status: str) -> None:
        self._write("INSERT OR REPLACE INTO rows VALUES (?, ?)", (line, status))

    def finished_rows(self) -> int:
        """How many rows an earlier run finished (counted, not read: a journal may hold millions)."""
        return int(self._db.execute("SELECT COUNT(*) FROM rows").fetchone()[0])

    def close(self) -> None:
        self._db.close()


def _create(path: str) -> bool:
    """Create the file, readable by its owner only (it holds responses: tokens, cookies), when it does
    not exist; True when it was created."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if not os.path.isfile(path):
            raise UsageError(f"--journal {path}: not a regular file") from None
        _owner_only(path)
        return False
    except OSError as exc:
        raise UsageError(f"--journal {path}: cannot create it: {exc.strerror or exc}") from None
    os.close(fd)
    return True


def _owner_only(path: str) -> None:
    """An existing journal that others may read is made the owner's only (0600) before a response is
    written to it: what it held already was as readable as it was (docs/security.md)."""
    try:
        mode = os.stat(path).st_mode
        if mode & 0o077:
            os.chmod(path, 0o600)
    except OSError as exc:
        raise UsageError(
            f"--journal {path}: others may read it and its mode cannot be set to 0600 "
            f"({exc.strerror or exc}); nothing was sent"
        ) from None


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
