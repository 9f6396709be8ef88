"""The rows of `--inputs-file` (`arazzo run`, `arazzo load`, `ArazzoUser`): one JSON object per line,
blank lines skipped, each merged over the other inputs of its run. A library fact the command line and
the load test read alike: one format, one reader, one set of messages (a line that is not a JSON object
is a usage error naming the file and the line).
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from ..errors import UsageError


def read_rows(path: str, stdin: TextIO | None = None) -> list[tuple[int, dict[str, Any]]]:
    """(line, object) per non-blank line; a line that is not a JSON object is a usage error."""
    if path == "-":
        text = (stdin or sys.stdin).read()
    else:
        try:
            with open(path, encoding="utf-8-sig") as handle:
                text = handle.read()
        except OSError as exc:
            raise UsageError(f"--inputs-file: cannot read {path!r}: {exc.strerror or exc}") from None
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise UsageError(f"--inputs-file {path}, line {number}: not valid JSON: {exc}") from None
        if not isinstance(value, dict):
            raise UsageError(f"--inputs-file {path}, line {number}: a row must be a JSON object")
        rows.append((number, value))
    if not rows:
        raise UsageError(f"--inputs-file {path}: no rows (one JSON object per line)")
    return rows
