"""`arazzo run --journal FILE`, `--idempotency-header NAME`, `--rerun-failed REPORT.json`: runs that survive
a crash (`executor/journal/`; docs/semantics.md, *Resuming a run*)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..bounds.json_text import loads
from ..errors import UsageError


def add_flags(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "--journal",
        metavar="FILE",
        help="record each completed exchange in FILE (SQLite, mode 0600: it holds responses, secrets "
        "included); the same command again resumes: what completed is not sent again",
    )
    run.add_argument(
        "--idempotency-header",
        metavar="NAME",
        help="send a key per step execution in header NAME, the same on its retries and when a resumed "
        "run sends it again (with --journal, stable across runs)",
    )
    run.add_argument(
        "--rerun-failed",
        metavar="REPORT.json",
        help="with --inputs-file, run only the rows that failed in REPORT.json (an earlier --report-json "
        "or --format json of the same rows)",
    )


def check_flags(args: argparse.Namespace) -> None:
    if args.rerun_failed and not args.inputs_file:
        raise UsageError("--rerun-failed: it selects rows of --inputs-file, which is not given")
    if args.journal is not None and not args.journal.strip():
        raise UsageError("--journal: an empty file name; give the journal's path")
    if args.journal and args.dry_run:
        raise UsageError("--journal: a dry run sends nothing, so it records nothing; leave one of them out")
    if args.idempotency_header is not None:
        _check_header_name(args.idempotency_header)


def _check_header_name(name: str) -> None:
    import re

    if not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name):
        raise UsageError(f"--idempotency-header {name!r}: not a header name (RFC 9110 token)")


def open_journal(args: argparse.Namespace, workspace: Any, selected: list[Any], inputs: dict[str, Any],
                 rows: str = "") -> Any:  # fmt: skip
    """The journal of `--journal`, checked to belong to this run (else a usage error: nothing is sent);
    None without the flag."""
    if args.journal is None:
        return None
    from ..executor.journal import Journal, identity

    ids = [w.workflow_id for w in selected]
    return Journal(args.journal, identity(workspace.document.raw, ids, inputs, rows))


def resumed_line(journal: Any, finished: int = 0) -> None:
    """On stderr, once the run is over: how much of it the journal answered (`finished`: the rows of an
    `--inputs-file` run that had finished before)."""
    if journal is not None and journal.replayed:
        rows = f"{finished} row(s) had finished, " if finished else ""
        print(
            f"resumed from journal {journal.path}: {rows}{journal.replayed} exchange(s) answered from it, "
            "not sent again",
            file=sys.stderr,
            flush=True,
        )


def broken(journal: Any) -> str | None:
    """Why the run was stopped when its journal could not be written (a full disk), else None."""
    return None if journal is None else journal.file.broken


def failed_lines(path: str) -> set[int]:
    """The lines of the rows that did not pass in an `--inputs-file` run's JSON report (`--report-json`,
    `--format json`): `{"rows": [{"line": N, "result": {"status": ...}}]}`."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = loads(handle.read())  # the one rule for JSON from outside: bounded depth
    except OSError as exc:
        raise UsageError(f"--rerun-failed: cannot read {path!r}: {exc.strerror or exc}") from None
    except ValueError as exc:  # UnicodeDecodeError and TooDeep are ValueErrors too
        raise UsageError(f"--rerun-failed {path}: not valid JSON: {exc}") from None
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise UsageError(f"--rerun-failed {path}: not the report of an --inputs-file run (no 'rows')")
    lines: set[int] = set()
    for entry in rows:
        line = entry.get("line") if isinstance(entry, dict) else None
        result = entry.get("result") if isinstance(entry, dict) else None
        if type(line) is not int or not isinstance(result, dict):
            raise UsageError(f"--rerun-failed {path}: a row without its 'line' and 'result'")
        if result.get("status") != "passed":
            lines.add(line)
    return lines
