"""What `arazzo run` shares with the commands that run workflows as tools (`arazzo mcp`, `arazzo agent`)
and with `arazzo tools`: the input flags (`--inputs`, `--input`), the target flags (`--server`,
`--server-var`, `--timeout`), and the checks made before anything is sent (source names, documents
with errors).

    add_input_values(parser); add_target_flags(parser)
    inputs = gather_inputs(args, workspace)
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import DocumentError, UsageError
from .common import positive_float, positive_int, read_json_or_file


def add_batch_flags(run: argparse.ArgumentParser) -> None:
    """`--inputs-file` and `--concurrency` (`batch.py` runs them; imported only when a run has rows)."""
    run.add_argument(
        "--inputs-file",
        metavar="PATH",
        help="JSON Lines: run once per row, each row an object merged over the other inputs ('-': stdin)",
    )
    run.add_argument(
        "--concurrency",
        type=positive_int,
        default=1,
        metavar="N",
        help="with --inputs-file, run up to N rows at the same time (default 1)",
    )


def add_input_values(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--inputs", metavar="JSON|PATH", help="inputs as a JSON object or a JSON/YAML file")
    parser.add_argument(
        "--input",
        "-i",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="one input, coerced to the type its schema declares (repeatable)",
    )


def add_target_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="NAME=URL",
        help="base URL for the source description NAME (repeatable)",
    )
    parser.add_argument(
        "--server-var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="value of an OpenAPI server variable, NAME or SOURCE.NAME (repeatable)",
    )
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=30.0,
        metavar="SECONDS",
        help="timeout of each HTTP exchange (default 30)",
    )


def add_step_flags(parser: argparse.ArgumentParser, what: str = "per run") -> None:
    """`--max-steps` and `--parallel`: how many steps a run takes, and how many at once."""
    from ..bounds.limits import DEFAULT_MAX_STEPS

    parser.add_argument(
        "--max-steps",
        type=positive_int,
        default=DEFAULT_MAX_STEPS,
        metavar="N",
        help=f"step executions {what}, a guard against goto loops (default {DEFAULT_MAX_STEPS})",
    )
    parser.add_argument(
        "--parallel",
        type=positive_int,
        default=1,
        metavar="N",
        help="run steps whose prerequisites have completed side by side, up to N requests at once, where "
        "the outcome cannot differ from a sequential run (docs/semantics.md); default 1: one at a time",
    )


def gather_inputs(args: argparse.Namespace, workspace: Any) -> dict[str, Any]:
    """`--inputs` then `--input KEY=VALUE` (coerced to the type the inputs schema declares, of the
    workflows `args.workflows` names in this document, else of all of them)."""
    from ..executor.inputs import coerce_cli_value, input_schema_for

    inputs: dict[str, Any] = {}
    if args.inputs:
        inputs.update(read_json_or_file(args.inputs, "--inputs"))
    document = workspace.document
    named = [w for w in (document.workflow(w) for w in (args.workflows or [])) if w is not None]
    workflows = named or document.workflows
    for item in args.input:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--input expects KEY=VALUE, got {item!r}")
        schemas = (input_schema_for(w.inputs, key, document.raw) for w in workflows)
        inputs[key] = coerce_cli_value(text, next((s for s in schemas if s), {}))
    return inputs


def leave_out_others_inputs(
    args: argparse.Namespace, workspace: Any, selected: list[Any], inputs: dict[str, Any]
) -> dict[str, Any]:
    """`--inputs FILE` may hold the inputs of the whole document (`arazzo generate --inputs-out` writes
    one): with `--workflow`, a name from it that the selected workflows do not declare but another
    workflow of the document does is left out, said on stderr, not refused. A name no workflow declares
    is still a typo (`check_input_names`), and `--input KEY=VALUE` is always meant for the selection."""
    if not args.inputs or not args.workflows:
        return inputs
    from ..workspace.inputs import declared_input_names

    mine = declared_input_names(workspace, selected)
    if mine is None:  # a selected workflow accepts any input
        return inputs
    chosen = {w.workflow_id for w in selected}
    others: set[str] = set()
    for workflow in workspace.document.workflows:
        if workflow.workflow_id not in chosen:
            others |= declared_input_names(workspace, [workflow]) or set()
    flagged = {item.partition("=")[0] for item in args.input}
    left = sorted(n for n in inputs if n not in mine and n in others and n not in flagged)
    if not left:
        return inputs
    source = "--inputs" if args.inputs.lstrip().startswith("{") else f"--inputs {args.inputs}"
    whose = "workflow does" if len(selected) == 1 else "workflows do"
    print(
        f"note: {source}: not sent: {', '.join(left)} (the selected {whose} not declare them; other "
        "workflows of the document do)",
        file=sys.stderr,
    )
    return {k: v for k, v in inputs.items() if k not in left}


def check_server_urls(servers: dict[str, str], workspaces: Any = (), brokers: Any = None) -> None:
    """Each `--server` URL is an absolute http(s) URL, or for an asyncapi source (of `workspaces`, or
    the family names in `brokers`) a broker URL (`mqtt://host:port`)."""
    if brokers is None:
        brokers = {e.name for ws in workspaces for e in ws.document.sources if e.type == "asyncapi"}
    for name, url in servers.items():
        if name in brokers:
            scheme, sep, rest = url.partition("://")
            if not (sep and scheme and rest.strip("/")):
                raise UsageError(f"--server {name}={url}: expected a broker URL, PROTOCOL://HOST[:PORT]")
        elif not url.lower().startswith(("http://", "https://")):
            raise UsageError(f"--server {name}={url}: expected an absolute http:// or https:// URL")


def source_names(workspace: Any, wanted: Any = ()) -> list[str]:
    """The source names `--server` may give: the document's own, and (read only when `wanted` names
    another) those of its arazzo sources, bare and by their family names (`kid/a`)."""
    own = [entry.name for entry in workspace.document.sources]
    if set(wanted) <= set(own):
        return own  # nothing fetched: the sources of arazzo sources are read only for a name not found here
    from ..sources.family import family_entries

    keys = list(family_entries(workspace))
    return list(dict.fromkeys([*keys, *(key.rpartition("/")[2] for key in keys)]))


def check_source_names(servers: dict[str, str], workspace: Any) -> dict[str, str]:
    """`--server NAME=URL` must name a source description of this document (`a`) or of one of its arazzo
    sources (`kid/a`, or a bare name only one of them has) and give an absolute http(s) URL, or for an
    asyncapi source a broker URL (`mqtt://host:port`). Returns the pairs keyed by family name."""
    from ..sources.family import family_entries, server_keys

    keyed = server_keys(servers, workspace)
    own = {e.name: e for e in workspace.document.sources}
    entries = own if set(keyed) <= set(own) else family_entries(workspace)
    brokers = {key for key, entry in entries.items() if entry.type == "asyncapi"}
    check_server_urls(keyed, brokers=brokers)
    return keyed


def refuse_invalid(workspace: Any, selected: list[Any], refusing: str = "is not run") -> list[Any]:
    """Commands that run workflows validate first, and refuse only what cannot run with one meaning,
    workflow by workflow (`validate/admission.py`): each selected workflow that a blocking finding
    stops (its own, or one of a workflow it reaches) is named on stderr with the first of those findings
    on the same line (`error: workflow 'x' is not run: <why> (<rule> at file:line:col)`), the others
    after it, and is not run; the errors that do not stop a run are warning lines. Errors in workflows
    the run does not reach are not mentioned: a run of `-w good` says nothing of a workflow it never
    touches (`arazzo validate` lists them). Returns the blocking findings when no selected workflow can
    run (the command then exits 2), else []. `refusing`: how the refused ones are named (`is not offered
    as a tool`). A document that validated clean before, unchanged with all it reads, is not validated
    again; only a document without any error is remembered so."""
    from ..validate.admission import admit
    from ..validate.cache import ValidationCache

    cache = ValidationCache.default()
    if cache is not None and cache.is_clean(workspace):
        admit(workspace, selected, clean=True)  # the run's own admission: nothing to refuse
        return []
    from ..bounds.budget import BudgetExceeded
    from ..validate import validate_workspace
    from ..validate.format import format_findings

    try:
        report = validate_workspace(workspace)
    except BudgetExceeded as exc:  # the run's deadline, spent before anything was sent (a slow pattern)
        raise DocumentError(
            f"validation was stopped: {exc.cause()}; nothing was sent", file=workspace.loaded.file
        ) from None
    dialect = _note_dialect(workspace, report, selected)
    if not report.errors:
        if cache is not None and not dialect:  # a document in a dialect gets its note on every run
            cache.remember_clean(workspace)
        return []
    admission = admit(workspace, selected)
    for finding in admission.warnings:
        print(f"{_as_warning(finding)} (an error for `arazzo validate`; the run goes on)", file=sys.stderr)
    everything = len(admission.refused) == len(selected)
    for workflow_id, findings in admission.refused.items():
        if everything and len(selected) == 1:  # the one workflow: the last line says it all
            sys.stderr.write(format_findings(findings))
            continue
        print(_refusal(workspace, workflow_id, findings[0], refusing), file=sys.stderr)
        sys.stderr.write(format_findings(findings[1:]))
    if not everything:
        return []
    stops = list(dict.fromkeys(f for findings in admission.refused.values() for f in findings))
    print(f"error: {workspace.file} has {len(stops)} error(s); nothing was run", file=sys.stderr)
    return stops


def _refusal(workspace: Any, workflow_id: str, finding: Any, refusing: str) -> str:
    """One line: the workflow refused and why, located (`(output-value at flow.arazzo.yaml:25:26)`); a
    finding in another workflow names the workflow it reaches."""
    reason = finding.message
    owner = _owner(workspace, finding)
    if owner is not None and owner != workflow_id:
        reason = f"it reaches workflow '{owner}', which cannot run: {reason}"
    where = f"{finding.file}:{finding.line}:{finding.column}" if finding.line else finding.file
    return f"error: workflow '{workflow_id}' {refusing}: {reason} ({finding.rule} at {where})"


def _owner(workspace: Any, finding: Any) -> str | None:
    """The workflowId of the workflow of this document a finding is located in (None: elsewhere)."""
    import re

    if finding.file != workspace.file:
        return None
    match = re.match(r"^/workflows/(\d+)(?:/|$)", finding.path)
    if match is None:
        return None
    index = int(match.group(1))
    found = (w.workflow_id for w in workspace.document.workflows if len(w.at) == 2 and w.at[1] == index)
    return next(found, None)


def _as_warning(finding: Any) -> str:
    return f"{finding.file}:{finding.line}:{finding.column}: warning {finding.rule}: {finding.message}"


def _note_dialect(workspace: Any, report: Any, selected: list[Any]) -> bool:
    """Forms of other tools run as the standard forms they stand for, never silently: one line on stderr
    names those in what the run of `selected` reaches (the workflows it may execute, and everything
    outside the workflows) and the command that rewrites them. Whether the document has any (such a
    document is never remembered clean: each run says what it reaches)."""
    import collections

    from ..validate import RULES

    forms = [f for f in report.findings if RULES[f.rule].area == "dialect"]
    if not forms:
        return False
    from ..validate.reach import reachable

    runs = reachable(workspace, selected)
    found = collections.Counter(f.rule for f in forms if _owner(workspace, f) in (None, *runs))
    if found:
        counted = ", ".join(f"{rule} {count}" for rule, count in found.most_common())
        print(
            f"note: {workspace.file} uses forms of other tools ({counted}); they run as the standard forms "
            f"they stand for (`arazzo validate --fix {workspace.file}` rewrites them)",
            file=sys.stderr,
        )
    return True
