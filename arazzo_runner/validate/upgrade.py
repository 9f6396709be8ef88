"""`arazzo upgrade FILE [--to 1.1.0]`: a 1.0.x document rewritten as 1.1, where forms changed.

What changed between the 1.0.1 and 1.1.0 texts (read side by side; docs/validation.md lists it):
- additions only, for most of it: `$self`, AsyncAPI sources and steps (`channelPath`, `action`,
  `correlationId`, `$message`), step `timeout` and `dependsOn`, `querystring` parameters, `parameters` on
  success and failure actions, Selector Objects, `jsonpointer` and `rfc9535` selector types and
  versions, `targetSelectorType`, JSONPath replacement targets, the `$sourceDescriptions` resolution
  order. A 1.0 document does not use them (its schema forbids the new fields), so nothing to rewrite.
- the `arazzo` version field: rewritten (`1.0.1` -> `1.1.0`), in place, in its own quoting.
- forms that mean something else in 1.1, so no rewrite can keep their meaning: a literal object with
  exactly the keys `context`, `selector` and `type` in a parameter value, payload, replacement value or
  output is data in 1.0 and a Selector Object in 1.1; a step output read before that step can have run
  (`output-forward-reference`) is a warning in 1.0 and an error in 1.1 ("implementations SHOULD produce
  an error"). These, and any other error the 1.1 validation finds that the 1.0 one did not, stop the
  upgrade: nothing is written, each is listed with its place.

Everything else in the file stays byte for byte (the same span edits as `validate --fix`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import DocumentError, UsageError
from ..loader import LoadedDocument, load_text
from ..loader.pointer import format_pointer
from ..model import build_document
from ..records import field
from .checker import Checker
from .core import validate_loaded
from .edit import EditError, apply_edits
from .findings import ERROR, Edit, Finding
from .fix import Rewritten, read_document
from .walk import ValueSite, sites

TARGETS = ("1.1.0",)
_VERSION_1_0 = re.compile(r"^1\.0\.\d+(-.+)?$")
_SELECTOR_KEYS = frozenset({"context", "selector", "type"})


class Upgraded(Rewritten):
    """The outcome for one file (`after` equals `before` when refused or nothing to do): what was changed,
    and what stops the upgrade (nothing is written when `blockers` is not empty)."""

    source_version: str
    target: str
    changes: list[str] = field(default_factory=list)
    blockers: list[Finding] = field(default_factory=list)


def upgrade_path(
    path: str | os.PathLike[str],
    *,
    to: str = "1.1.0",
    remote: bool = True,
    allow_paths: Iterable[str | os.PathLike[str]] = (),
) -> Upgraded:
    """Upgrade the document at `path` in memory; the caller writes `Upgraded.encoded()` when it changed."""
    if to not in TARGETS:
        raise UsageError(f"--to {to}: the documents can be upgraded to {', '.join(TARGETS)}")
    file = os.fspath(path)
    try:
        text, encoding, bom = read_document(path)
    except OSError as exc:  # the loader's words: "No such file or directory", not "[Errno 2] ... 'x.yaml'"
        raise DocumentError(f"cannot read the file: {exc.strerror or exc}", file=file) from None
    except UnicodeDecodeError as exc:
        raise DocumentError(f"cannot read the file: {exc}", file=file) from None
    loaded = load_text(text, file)
    version = loaded.data.get("arazzo") if isinstance(loaded.data, dict) else None
    result = Upgraded(file, text, text, str(version), to, encoding=encoding, bom=bom)
    if isinstance(version, str) and version.startswith("1.1."):
        return result  # already there: nothing to do
    if not isinstance(version, str) or not _VERSION_1_0.match(version):
        raise loaded.error("/arazzo", f"'arazzo: {version}' is not a 1.0.x document: it cannot be upgraded")
    location = str(Path(file).resolve())
    before = validate_loaded(loaded, location, remote=remote, allow_paths=allow_paths)
    edit = Edit("/arazzo", 0, version, to)
    try:
        upgraded = apply_edits(text, loaded.format, loaded.data, [edit])
    except EditError as exc:
        raise loaded.error("/arazzo", f"the version cannot be rewritten in place: {exc}") from None
    result.blockers.extend(_meaning_changes(loaded))
    after_loaded = load_text(upgraded, file)
    after = validate_loaded(after_loaded, location, remote=remote, allow_paths=allow_paths)
    result.blockers.extend(_new_errors(before.findings, after.findings))
    result.blockers.sort(key=lambda f: (f.line, f.column))
    if not result.blockers:
        result.after = upgraded
        result.changes.append(f"arazzo: {version} -> {to}")
    return result


def _meaning_changes(loaded: LoadedDocument) -> Iterator[Finding]:
    """Literal objects a 1.1 engine would read as Selector Objects."""
    ck = Checker(loaded, build_document(loaded.data))
    seen: set[str] = set()
    for site in sites(ck):
        if not isinstance(site, ValueSite):
            continue
        for at, _ in _selector_shaped(site.raw, site.at):
            path = format_pointer(at)
            if path in seen:
                continue
            seen.add(path)
            line, column = loaded.positions.locate(path)
            message = (
                "this literal object has exactly the keys context, selector and type: data in 1.0, a "
                "Selector Object in 1.1 (its value would be selected, not sent); no 1.1 form keeps it "
                "literal, so the document is not upgraded"
            )
            yield Finding("upgrade-meaning-change", ERROR, message, loaded.file, path, line, column)


def _selector_shaped(raw: Any, at: tuple) -> Iterator[tuple[tuple, Any]]:
    pending = [(raw, at)]
    while pending:
        node, where = pending.pop()
        if isinstance(node, dict):
            if node.keys() == _SELECTOR_KEYS:
                yield where, node
            pending.extend((value, (*where, key)) for key, value in node.items())
        elif isinstance(node, list):
            pending.extend((value, (*where, index)) for index, value in enumerate(node))


def _new_errors(before: list[Finding], after: list[Finding]) -> list[Finding]:
    """Errors of the upgraded document the original did not have (by rule and place)."""
    known = {(f.rule, f.path) for f in before if f.severity == ERROR}
    return [f for f in after if f.severity == ERROR and (f.rule, f.path) not in known]
