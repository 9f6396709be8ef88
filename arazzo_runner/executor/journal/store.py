"""The journal file (`--journal FILE`, `RunOptions(journal=...)`): one SQLite database, from the standard
library, that a run writes as its exchanges complete and a later run with the same file resumes from.

What it holds (docs/semantics.md, *Resuming a run*): the run it belongs to (digests of the document, the
selected workflows, the inputs and the rows, never the values themselves), a random run id (the seed of
`--idempotency-header` keys), and each completed HTTP exchange of an operation step: keyed by where it
was made (`scope.py`), with a digest of the request and the whole response (status, headers, body) or
the transport failure. Responses may carry secrets (a token, a Set-Cookie): the file is created with mode
0600, and nothing of it is printed (docs/security.md).

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

FORMAT = "1"  # the layout below; another one is refused, not read
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS exchanges (key TEXT PRIMARY KEY, request TEXT NOT NULL, "
    "status INTEGER, headers TEXT, content BLOB, content_type TEXT, elapsed_ms REAL, notes TEXT, "
    "error TEXT, oversize TEXT, failure TEXT)",
    "CREATE TABLE IF NOT EXISTS rows (line INTEGER PRIMARY KEY, status TEXT NOT NULL)",
)
# what a run is, in the order a mismatch is named: (meta name, how the message says it)
_IDENTITY = (
    ("document", "document"),
    ("workflows", "selected workflows"),
    ("inputs", "inputs"),
    ("rows", "rows of --inputs-file"),
)


class JournalFile:
    """An open journal: checked to belong to the run described by `identity` before anything is sent."""

    def __init__(self, path: str, identity: dict[str, str]) -> None:
        self.path = path
        self.replayed = 0  # exchanges answered from the file in this process, not sent
        self.recorded = 0  # exchanges written to it in this process
        _create(path)
        try:
            self._db = sqlite3.connect(path, timeout=0, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise UsageError(f"--journal {path}: cannot open it: {exc}") from None
        try:
            self._prepare()
            self.run_id, self.resuming = self._claim(identity)
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
        if differ and not found:  # it recorded nothing (a run refused before its first request): taken
            self._db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(identity.items()))
            self._db.execute("DELETE FROM rows")
            return meta["run"], False
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
        elapsed ms, notes, error, oversize, transport failure), or None."""
        if not self.resuming:  # a new journal answers nothing: no query per request
            return None
        return self._db.execute(  # type: ignore[no-any-return]
            "SELECT request, status, headers, content, content_type, elapsed_ms, notes, error, oversize, "
            "failure FROM exchanges WHERE key = ?",
            (key,),
        ).fetchone()

    def has(self, key: str) -> bool:
        if not self.resuming:
            return False
        return self._db.execute("SELECT 1 FROM exchanges WHERE key = ?", (key,)).fetchone() is not None

    def record(self, key: str, request: str, response: Any = None, failure: str | None = None) -> None:
        """Commit one completed exchange (a response, or the transport failure that ended it)."""
        if response is None:
            values: tuple[Any, ...] = (key, request, None, None, None, None, None, None, None, None, failure)
        else:
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
                None,
            )
        self._db.execute("INSERT OR REPLACE INTO exchanges VALUES (?,?,?,?,?,?,?,?,?,?,?)", values)
        self.recorded += 1

    # -- rows ----------------------------------------------------------------------------------------

    def row_finished(self, line: int, status: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO rows VALUES (?, ?)", (line, status))

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
        return False
    except OSError as exc:
        raise UsageError(f"--journal {path}: cannot create it: {exc.strerror or exc}") from None
    os.close(fd)
    return True


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
