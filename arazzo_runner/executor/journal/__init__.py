"""Runs that survive a crash: a journal to resume from (`arazzo run --journal FILE`,
`RunOptions(journal=...)`), and stable idempotency keys (`--idempotency-header NAME`).

`store.py` is the file, `scope.py` names where an exchange is made and answers it from the file or
records it, `replay.py` turns a record back into a response. The executor's hooks (runner, stepping,
the operation step) only call a `Tracker`, and only when the run has one: a run without a journal or
idempotency header pays one attribute test per step.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Iterable
from typing import Any

from .scope import Tracker

__all__ = ["Journal", "Tracker", "identity", "tracker_for"]


class Journal:
    """An open journal file, for one run or for the rows of an `--inputs-file` run (`for_run`)."""

    def __init__(self, path: str | os.PathLike[str], identity: dict[str, str]) -> None:
        from .store import JournalFile

        self.path = os.fspath(path)
        self.file = JournalFile(self.path, identity)

    @property
    def resuming(self) -> bool:
        """Whether the file held exchanges of an earlier run when it was opened."""
        return bool(self.file.resuming)

    @property
    def replayed(self) -> int:
        return self.file.replayed

    def for_run(self, header: str | None = None, row: int | None = None) -> Tracker:
        return Tracker(self.file, self.file.run_id, "" if row is None else f"row:{row}", header)

    def row_finished(self, line: int, passed: bool) -> None:
        self.file.row_finished(line, "passed" if passed else "failed")

    def finished_rows(self) -> int:
        return self.file.finished_rows()

    def close(self) -> None:
        self.file.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def identity(
    document: Any, workflows: Iterable[str], inputs: dict[str, Any], rows: str = ""
) -> dict[str, str]:
    """What a journal belongs to, as digests (secret inputs are never written, only hashed with the
    rest): the document's content, the selected workflows, the inputs, the rows' digest (`rows_digest`)."""
    return {
        "document": _digest(document),
        "workflows": _digest(list(workflows)),
        "inputs": _digest(inputs),
        "rows": rows,
    }


def rows_digest() -> Any:
    """A running digest of the rows of an `--inputs-file` run (`update(line, values)` per row)."""
    return _RowsDigest()


class _RowsDigest:
    def __init__(self) -> None:
        self._hash = hashlib.sha256()

    def update(self, line: int, values: dict[str, Any]) -> None:
        self._hash.update(f"{line}\n{_canonical(values)}\n".encode())

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def tracker_for(
    options: Any, workspace: Any, selected: list[Any], inputs: dict[str, Any], kinds: set[str]
) -> Any:
    """The run's tracker and the journal it opened (to close), from `options.journal` (a path, an open
    `Journal`, or a `Tracker` of one) and `options.idempotency_header`; (None, None) when neither.
    `kinds`: the step kinds the run reaches (a journal records HTTP exchanges only)."""
    given = options.journal
    header = options.idempotency_header
    if given is not None and "asyncapi" in kinds:
        from ...errors import UsageError

        raise UsageError(
            "a journal (--journal) records HTTP exchanges; the run reaches AsyncAPI steps, whose messages "
            "it would send again on resume: run it without a journal"
        )
    if isinstance(given, Tracker):
        return given, None
    if isinstance(given, Journal):
        return given.for_run(header), None
    if given is not None:
        journal = Journal(given, identity(workspace.document.raw, [w.workflow_id for w in selected], inputs))
        return journal.for_run(header), journal
    if header is not None:  # keys without a journal: stable within this run only
        return Tracker(None, secrets.token_hex(16), "", header), None
    return None, None


def _digest(value: Any) -> str:
    return hashlib.sha256(_canonical(value).encode()).hexdigest()


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=repr)
