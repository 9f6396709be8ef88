"""Validation of one document: JSON Schema, model shape, semantic rules, then the source checks."""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import DocumentError
from ..expressions.names import declared_names, reading
from ..loader import LoadedDocument, load_text
from ..model import build_document
from ..workspace.inputs import grammar_inputs
from .checker import Checker
from .findings import ERROR, Finding, Report
from .rules import run_rules

_VAGUE = ("does not match any of the allowed forms", "needs exactly one of:")
_BY_WORKSPACE: weakref.WeakKeyDictionary[Any, Report] = weakref.WeakKeyDictionary()
_WITHOUT_SCHEMA: weakref.WeakKeyDictionary[Any, Report] = weakref.WeakKeyDictionary()


def validate_path(
    path: str | os.PathLike[str],
    *,
    schema_only: bool = False,
    strict: bool = False,
    load_sources: bool = True,
    remote: bool = True,
    allow_paths: Iterable[str | os.PathLike[str]] = (),
    shared_sources: Any = None,
) -> Report:
    """Validate the Arazzo document at `path`. Never raises for document problems: a file that cannot be
    read or parsed is a report with `readable=False` and one `document-parse` finding. `allow_paths`: the
    sandbox its sources are read in (see `arazzo_runner.load`). `shared_sources`: a
    `sources.cache.SharedDocuments` that the validations of other documents read their sources through
    too (`arazzo validate FILE...`: a description several of them name is parsed once)."""
    from .stored_document import load

    file = os.fspath(path)
    try:
        loaded, schema_check = load(path)  # through the parsed-source store, with its schema verdict
    except DocumentError as exc:
        return unreadable_report(exc, file, strict)
    location = str(Path(file).resolve())
    return validate_loaded(
        loaded,
        location,
        schema_only=schema_only,
        strict=strict,
        load_sources=load_sources,
        remote=remote,
        allow_paths=allow_paths,
        shared_sources=shared_sources,
        schema_check=schema_check,
    )


def validate_text(
    text: str | bytes,
    file: str = "<string>",
    *,
    schema_only: bool = False,
    strict: bool = False,
    load_sources: bool = True,
    remote: bool = True,
) -> Report:
    """Like `validate_path` for text; relative source URLs resolve against `file`."""
    try:
        loaded = load_text(text, file)
    except DocumentError as exc:
        return unreadable_report(exc, file, strict)
    return validate_loaded(
        loaded, file, schema_only=schema_only, strict=strict, load_sources=load_sources, remote=remote
    )


def validate_loaded(
    loaded: LoadedDocument,
    location: str,
    *,
    schema_only: bool = False,
    strict: bool = False,
    load_sources: bool = True,
    remote: bool = True,
    workspace: Any = None,
    allow_paths: Iterable[str | os.PathLike[str]] = (),
    shared_sources: Any = None,
    schema: bool = True,
    schema_check: Any = None,
) -> Report:
    """`schema=False` leaves the JSON Schema check out (what a run reads: its findings never stop one);
    `schema_check`: what does it instead of `schema.check_schema` (`stored_document.load`'s)."""
    document = workspace.document if workspace is not None else build_document(loaded.data)
    names = declared_names(document, grammar_inputs(document))  # ids and names outside the classes
    with reading(names):
        return _validate(
            loaded, location, document, schema_only, strict, load_sources, remote, workspace, allow_paths,
            shared_sources, schema, schema_check,
        )  # fmt: skip


def _validate(
    loaded: LoadedDocument,
    location: str,
    document: Any,
    schema_only: bool,
    strict: bool,
    load_sources: bool,
    remote: bool,
    workspace: Any,
    allow_paths: Iterable[str | os.PathLike[str]],
    shared_sources: Any,
    schema: bool,
    schema_check: Any,
) -> Report:
    ck = Checker(loaded, document)
    if schema:
        if schema_check is None:
            from .schema import check_schema  # the bundled schemas and their validators: only when asked

            schema_check = check_schema
        for problem in schema_check(loaded.data):
            ck.report("schema", problem.at, problem.message, key=problem.key)
    if not schema_only:
        for at, message in document.problems:
            ck.report("document-shape", at, message)
        run_rules(ck)
        if load_sources:
            from ..sources import SourceCache
            from ..workspace import Workspace
            from .sources import check_sources

            space = workspace
            if space is None:
                cache = SourceCache(shared_sources, remote=remote)
                space = Workspace(loaded, document, location, cache, allow_paths=allow_paths)
            check_sources(ck, space, remote=remote)
    return Report(loaded.file, _arrange(ck.findings), strict=strict)


def validate_workspace(workspace: Any, *, load_sources: bool = True, schema: bool = True) -> Report:
    """Validate an already loaded `Workspace`, reusing its parsed document and its loaded sources. The
    report is memoised per workspace, so a document run many times is validated once. `schema=False`:
    without the JSON Schema check (a run's admission, `admission.py`; a full report made before
    serves too)."""
    report = _BY_WORKSPACE.get(workspace)
    if report is None and not schema:
        report = _WITHOUT_SCHEMA.get(workspace)
    if report is None:
        report = validate_loaded(
            workspace.loaded,
            workspace.location,
            load_sources=load_sources,
            workspace=workspace,
            schema=schema,
        )
        (_BY_WORKSPACE if schema else _WITHOUT_SCHEMA)[workspace] = report
    return report


def findings_for_run(workspace: Any, workflows: Iterable[Any] | None = None) -> list[Finding]:
    """The findings as a run of `workflows` (Workflow objects or ids; None: all) sees them: an error in
    a workflow that run cannot reach is a warning for it (see `reach.py`)."""
    findings = validate_workspace(workspace).findings
    if workflows is None:
        return findings
    from .reach import for_run

    return for_run(findings, workspace, _workflows(workspace, workflows))


def errors_for_run(workspace: Any, workflows: Iterable[Any] | None = None) -> list[Finding]:
    """The error findings `arazzo run` refuses a document for (warnings never stop a run); with
    `workflows`, only those a run of them can reach."""
    return [f for f in findings_for_run(workspace, workflows) if f.severity == ERROR]


def _workflows(workspace: Any, workflows: Iterable[Any]) -> list[Any]:
    found = []
    for item in workflows:
        workflow = workspace.document.workflow(item) if isinstance(item, str) else item
        if workflow is not None:
            found.append(workflow)
    return found


def unreadable_report(exc: DocumentError, file: str, strict: bool) -> Report:
    """The report of a file that could not be read or parsed: one `document-parse` finding."""
    finding = Finding(
        "document-parse",
        ERROR,
        exc.message,
        exc.file or file,
        exc.pointer or "",
        exc.line or 1,
        exc.column or 1,
    )
    return Report(file, [finding], readable=False, strict=strict)


def _arrange(findings: list[Finding]) -> list[Finding]:
    """Drop schema and shape findings that a more precise rule reports at the same place; document order.
    A step with Respect's `x-operation` has no standard target, which the schema says: the `x-operation`
    rule says it better."""
    precise = [f for f in findings if f.rule not in ("schema", "document-shape") and f.severity == ERROR]
    precise += [f for f in findings if f.rule == "x-operation"]
    exact = {f.path for f in precise} | {
        f.path.rpartition("/x-operation")[0] for f in findings if f.rule == "x-operation"
    }
    kept = []
    for finding in findings:
        if finding.rule == "schema":
            vague = finding.message.startswith(_VAGUE)
            if finding.path in exact or (vague and any(_inside(p.path, finding.path) for p in precise)):
                continue
        elif finding.rule == "document-shape":
            others = [f for f in findings if f.rule != "document-shape"]
            if any(_related(f.path, finding.path) for f in others):
                continue
        kept.append(finding)
    kept.sort(key=lambda f: (f.line, f.column))
    return kept


def _inside(path: str, container: str) -> bool:
    return path.startswith(container + "/")


def _related(a: str, b: str) -> bool:
    return a == b or _inside(a, b) or _inside(b, a)
