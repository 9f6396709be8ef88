"""The options `arazzo tools`, `arazzo mcp` and `arazzo agent` share, and the tool sources they make.

Every command takes documents (`FILE...`), `--workflow ID` (repeatable, in any of them), `--sandbox`, and
the inputs that shape the schema: `--inputs`, `--input`, `--input-file`, the environment and the
`.env` next to each document (as `arazzo run`; an input given so is fixed where the tools run, and
leaves the schema), and `arazzo run`'s run options: `--server`, `--server-var`, `--timeout`,
`--max-steps`, `--auth`, `--validate-*` and the bounds. The commands that run the workflows
(`runs=True`) apply them to every tool call; `arazzo tools` checks them (a `--server` must name a
source, an `--auth` key a scheme) and says they do not change the definitions (`ignored_flags`), so
one command line serves `tools`, `mcp` and `agent` alike.

With several documents, a name must mean something in one of them at least (`--server NAME`, an input),
and a credential goes only to the source it is for: an `--auth` key that the sources of two documents
define is ambiguous, and refused.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from ..errors import UsageError
from ..http.auth_keys import check_scheme_key, scheme_owners
from . import limit_flags, sandbox_flags
from .common import pairs
from .http_flags import add_run_flags, file_inputs, run_options, warn_unread_variables
from .input_flags import Environment, add_input_flags, environment_inputs, load_environment, supply_hints
from .run_flags import (
    add_input_values,
    add_step_flags,
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
    before = len(parser._actions)
    add_target_flags(parser)
    add_step_flags(parser, "per tool call")
    add_run_flags(parser)
    limit_flags.add_flags(parser)
    if not runs:  # accepted, so that an `arazzo mcp` command line works here too; said to be ignored
        added = parser._actions[before:]
        untouched = [(a.dest, a.default, a.option_strings[0]) for a in added if a.dest != "input_file"]
        parser.set_defaults(ignored_flags=untouched)
        for action in added:
            if action.dest != "input_file":
                action.help = f"{action.help}; ignored here: it does not change the tool definitions"


def ignored_flags(args: argparse.Namespace) -> list[str]:
    """The run options given to `arazzo tools` (they apply where the tools run, not to definitions)."""
    return [
        flag for dest, default, flag in getattr(args, "ignored_flags", []) if getattr(args, dest) != default
    ]


def add_tool_call_flags(parser: argparse.ArgumentParser, *, per_answer: bool) -> None:
    """`--max-tool-calls-in-flight` (`arazzo agent`, `arazzo mcp`) and, for a model's answers
    (`per_answer`), `--max-tool-calls`."""
    from ..bounds.limits import MAX_TOOL_CALLS, TOOL_CALLS_IN_FLIGHT
    from .common import positive_int

    if per_answer:
        parser.add_argument(
            "--max-tool-calls",
            type=positive_int,
            default=MAX_TOOL_CALLS,
            metavar="N",
            help=f"tool calls of one answer that run (default {MAX_TOOL_CALLS}); the others are answered "
            "with an error the model reads",
        )
    parser.add_argument(
        "--max-tool-calls-in-flight",
        type=positive_int,
        default=TOOL_CALLS_IN_FLIGHT,
        metavar="N",
        help=f"tool calls running at once (default {TOOL_CALLS_IN_FLIGHT}); the others wait their turn",
    )


def tool_sources(args: argparse.Namespace, *, runs: bool) -> list[Any]:
    """A `ToolSource` per document: its selected workflows, the inputs fixed for them, and (`runs`) the
    options of their runs. A workflow that cannot run with one meaning is not offered (named on stderr
    with its findings); a UsageError when none of them can run."""
    from ..agents.tools import ToolSource
    from ..api import load

    allow = sandbox_flags.folders(args)
    workspaces = [load(path, allow_paths=allow) for path in args.files]
    selected = [_selected(workspace, args.workflows) for workspace in workspaces]
    _check_workflow_ids(workspaces, args.workflows)
    offered = [
        _offered(workspace, workflows) for workspace, workflows in zip(workspaces, selected, strict=True)
    ]
    if any(selected) and not any(offered):
        files = ", ".join(ws.file for ws in workspaces)
        raise UsageError(f"{files} offer no tools: no workflow can run with one meaning (listed above)")
    envs = [load_environment(_with(args, file=path)) for path in args.files]
    extra = file_inputs(args)  # `--input-file` gives an input: fixed where the tools run, out of the schema
    inputs, given_names = [], set()
    for workspace, workflows, env in zip(workspaces, selected, envs, strict=True):
        ids = [w.workflow_id for w in workflows]
        given = {**gather_inputs(_with(args, workflows=ids), workspace), **extra}
        given_names |= set(given)
        inputs.append({**environment_inputs(env, workspace, workflows), **given})
    _check_input_names(workspaces, selected, given_names)
    options = _options(args, workspaces, envs)  # checked for `tools` too: a typo is named, not ignored
    if not runs:
        options = [None] * len(workspaces)
    return [
        ToolSource(workspace, given, opts, _ids(args.workflows, chosen, workflows))
        for workspace, given, opts, chosen, workflows in zip(
            workspaces, inputs, options, selected, offered, strict=True
        )
    ]


def _offered(workspace: Any, workflows: list[Any]) -> list[Any]:
    """The selected workflows a tool may run: those that can run with one meaning (the others are named
    on stderr with their findings, and not offered)."""
    if not workflows:
        return []
    from ..validate.admission import admit

    refuse_invalid(workspace, workflows, refusing="is not offered as a tool")
    refused = admit(workspace, workflows).refused
    return [w for w in workflows if w.workflow_id not in refused]


def _ids(asked: list[str] | None, selected: list[Any], offered: list[Any]) -> list[str] | None:
    """The workflow ids a `ToolSource` offers (None: all of its document)."""
    if len(offered) == len(selected):
        return asked or None
    return [w.workflow_id for w in offered]


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


def warn_credentials(catalog: Any) -> None:
    """Said once at start, on stderr (the tools' client sees only their answers: a 401): each security
    scheme that operations of the tools need and no credential meets (once per scheme, naming the
    tools), and each `ARAZZO_AUTH_*` variable no scheme reads (a near miss, with the name it misses)."""
    import sys

    from ..executor.credential_preflight import unmet_security
    from ..executor.options import RunOptions

    sources = list({id(tool.source): tool.source for tool in catalog.tools}.values())
    environs: dict[str, str] = {}  # each document's environment: the process's over its `.env`
    for source in sources:
        environ = (source.options or RunOptions()).environ
        environs.update(os.environ if environ is None else environ)
    warn_unread_variables([source.workspace for source in sources], environs)
    unmet: dict[tuple[str, str, str], tuple[str, list[str]]] = {}
    for tool in catalog.tools:
        options = tool.source.options or RunOptions()
        for found in unmet_security(tool.source.workspace, tool.workflow, options, tool.fixed):
            key = (tool.file, found.source, found.scheme)
            unmet.setdefault(key, (found.hint, []))[1].append(tool.name)
    for (_, source, scheme), (hint, tools) in unmet.items():
        which = f"tool {tools[0]}" if len(tools) == 1 else f"tools {', '.join(tools)}"
        print(
            f"warning: no credentials for security scheme '{scheme}' of source {source} (used by "
            f"{which}): requests go without them; {hint}",
            file=sys.stderr,
        )


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
    from ..workspace.inputs import check_input_names, declared_input_names

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
    from ..executor.preflight import check_validation_installed

    found = []
    for workspace, env, items in zip(workspaces, envs, auth_items, strict=True):
        found.append(
            RunOptions(
                servers=servers,
                server_variables=pairs(args.server_var, "--server-var"),
                timeout=args.timeout,
                max_steps=args.max_steps,
                parallel=args.parallel,
                environ=env.merged,
                **run_options(_with(args, auth=items), workspace),
                **limit_flags.options(args),
                trace=bool(getattr(args, "report_json", None)),  # `arazzo agent --report-json`
            )
        )
        check_validation_installed(found[-1])  # before a tool is offered, not at each call
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
