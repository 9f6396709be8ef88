"""The options `arazzo tools`, `arazzo mcp` and `arazzo agent` share, and the tool sources they make.

Every command takes documents (`FILE...`), `--workflow ID` (repeatable, in any of them), `--sandbox`, and
the inputs that shape the schema: `--inputs`, `--input`, the environment and the `.env` next to each
document (as `arazzo run`; an input given so is fixed where the tools run, and leaves the schema). The
commands that run the workflows (`runs=True`) take `arazzo run`'s run options too: `--server`,
`--server-var`, `--timeout`, `--max-steps`, `--auth`, `--input-file`, `--validate-*` and the bounds.

With several documents, a name must mean something in one of them at least (`--server NAME`, an input),
and a credential goes only to the source it is for: an `--auth` key that the sources of two documents
define is ambiguous, and refused.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError
from . import limit_flags, sandbox_flags
from .common import pairs
from .http_flags import add_run_flags, check_scheme_key, file_inputs, run_options, scheme_owners
from .input_flags import Environment, add_input_flags, environment_inputs, load_environment, supply_hints
from .run_flags import (
    add_input_values,
    add_max_steps,
    add_target_flags,
    check_server_urls,
    gather_inputs,
    refuse_invalid,
    source_names,
)


def add_tool_flags(parser: argparse.ArgumentParser, *, runs: bool) -> None:
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="Arazzo documents whose workflows become tools"
    )
    sandbox_flags.add_flags(parser)
    parser.add_argument(
        "--workflow",
        "-w",
        action="append",
        dest="workflows",
        metavar="ID",
        help="offer this workflow (repeatable; default: every workflow of every document)",
    )
    add_input_values(parser)
    add_input_flags(parser)
    if runs:
        add_target_flags(parser)
        add_max_steps(parser, "per tool call")
        add_run_flags(parser)
        limit_flags.add_flags(parser)


def tool_sources(args: argparse.Namespace, *, runs: bool) -> list[Any]:
    """A `ToolSource` per document: its selected workflows, the inputs fixed for them, and (`runs`) the
    options of their runs. UsageError when a document has errors in a workflow it offers."""
    from ..api import load
    from ..tools import ToolSource

    allow = sandbox_flags.folders(args)
    workspaces = [load(path, allow_paths=allow) for path in args.files]
    selected = [_selected(workspace, args.workflows) for workspace in workspaces]
    _check_workflow_ids(workspaces, args.workflows)
    for workspace, workflows in zip(workspaces, selected, strict=True):
        if workflows and refuse_invalid(workspace, workflows):
            raise UsageError(f"{workspace.file} offers no tools while it has errors (listed above)")
    envs = [load_environment(_with(args, file=path)) for path in args.files]
    extra = file_inputs(args) if runs else {}
    inputs, given_names = [], set()
    for workspace, workflows, env in zip(workspaces, selected, envs, strict=True):
        ids = [w.workflow_id for w in workflows]
        given = {**gather_inputs(_with(args, workflows=ids), workspace), **extra}
        given_names |= set(given)
        inputs.append({**environment_inputs(env, workspace, workflows), **given})
    _check_input_names(workspaces, selected, given_names)
    options = _options(args, workspaces, envs) if runs else [None] * len(workspaces)
    ids = args.workflows or None
    return [
        ToolSource(workspace, given, opts, ids)
        for workspace, given, opts in zip(workspaces, inputs, options, strict=True)
    ]


def environments(args: argparse.Namespace) -> list[Environment]:
    return [load_environment(_with(args, file=path)) for path in args.files]


def check_credentials(catalog: Any, args: argparse.Namespace) -> None:
    """Every required credential input is supplied where the tools run (a model is never asked for one):
    a UsageError naming each missing one and how to give it."""
    by_file = dict(zip(args.files, environments(args), strict=True))
    lines = []
    for tool in catalog.tools:
        env = by_file.get(tool.file) or next(iter(by_file.values()))
        for name in tool.missing_credentials():
            why = tool.credentials[name]
            lines.append(f"tool '{tool.name}' needs the credential input '{name}' ({why}), which is never")
            lines.append(f"  asked of a model: give it with {', or '.join(supply_hints(name, env))}")
    if lines:
        raise UsageError("\n".join([*lines, "nothing was started"]))


def _with(args: argparse.Namespace, **changes: Any) -> argparse.Namespace:
    return argparse.Namespace(**{**vars(args), **changes})


def _selected(workspace: Any, ids: list[str] | None) -> list[Any]:
    workflows = workspace.document.workflows
    return list(workflows) if not ids else [w for w in workflows if w.workflow_id in ids]


def _check_workflow_ids(workspaces: list[Any], ids: list[str] | None) -> None:
    known = {w.workflow_id for ws in workspaces for w in ws.document.workflows}
    for workflow_id in ids or []:
        if workflow_id not in known:
            files = ", ".join(ws.file for ws in workspaces)
            raise UsageError(
                f"no workflow '{workflow_id}' in {files} (workflows: {', '.join(sorted(known))})"
            )


def _check_input_names(workspaces: list[Any], selected: list[list[Any]], names: set[str]) -> None:
    """An input given on the command line must be one some offered workflow declares (or accepts)."""
    from ..executor.input_names import check_input_names, declared_input_names

    declared = [
        declared_input_names(ws, wfs) if wfs else frozenset()
        for ws, wfs in zip(workspaces, selected, strict=True)
    ]
    unknown = {n for n in names if all(d is not None and n not in d for d in declared)}
    if unknown:
        index = next(i for i, wfs in enumerate(selected) if wfs) if any(selected) else 0
        check_input_names(workspaces[index], selected[index], dict.fromkeys(unknown))


def _options(args: argparse.Namespace, workspaces: list[Any], envs: list[Environment]) -> list[Any]:
    """The RunOptions each document's tool runs start from."""
    from ..executor.options import RunOptions

    servers = pairs(args.server, "--server")
    check_server_urls(servers, workspaces)
    for name in servers:
        if not any(name in source_names(ws, [name]) for ws in workspaces):
            known = ", ".join(dict.fromkeys(n for ws in workspaces for n in source_names(ws, [name])))
            raise UsageError(
                f"--server {name}=...: no source description named '{name}' (sources: {known or 'none'})"
            )
    auth_items = _auth_by_document(args.auth, workspaces)
    found = []
    for workspace, env, items in zip(workspaces, envs, auth_items, strict=True):
        found.append(
            RunOptions(
                servers=servers,
                server_variables=pairs(args.server_var, "--server-var"),
                timeout=args.timeout,
                max_steps=args.max_steps,
                environ=env.merged,
                **run_options(_with(args, auth=items), workspace),
                **limit_flags.options(args),
                trace=bool(getattr(args, "report_json", None)),  # `arazzo agent --report-json`
            )
        )
    return found


def _auth_by_document(items: list[str], workspaces: list[Any]) -> list[list[str]]:
    """The `--auth` items each document's runs get: those naming a scheme of its sources. An item no
    document knows, or whose scheme sources of two documents define, is a usage error."""
    if not items:
        return [[] for _ in workspaces]
    if len(workspaces) == 1:
        return [list(items)]
    owners = [scheme_owners(ws) for ws in workspaces]
    given: list[list[str]] = [[] for _ in workspaces]
    for item in items:
        key = item.partition("=")[0]
        found, first_error = [], None
        for index, known in enumerate(owners):
            try:
                check_scheme_key(key, known)
            except UsageError as exc:
                first_error = first_error or exc
                continue
            found.append(index)
        if not found:
            raise first_error or UsageError(f"--auth {key}=...: no security scheme named so")
        if len(found) > 1:
            files = " and ".join(workspaces[i].file for i in found)
            raise UsageError(
                f"--auth {key}=...: sources of {files} define that scheme; a credential goes to one "
                "origin only: offer their tools from separate commands"
            )
        given[found[0]].append(item)
    return given
