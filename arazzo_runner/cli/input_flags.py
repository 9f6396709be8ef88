"""Inputs from the environment and from a `.env` file next to the workflow, and the message for missing
required inputs.

Precedence, first found wins: `--input` > `--inputs` > environment (`ARAZZO_INPUT_<NAME>`, prefix
changed by `--inputs-env PREFIX`, off with `--no-inputs-env`) > `.env` (read like the environment; off
with `--no-dotenv`) > the schema's defaults. `<NAME>` matches a declared input name case-insensitively,
other characters than letters and digits written as `_` (`user-id` <- `ARAZZO_INPUT_USER_ID`). Values
are coerced to the input's schema type like `--input`. The `.env` also backs the `ARAZZO_AUTH_*` and
`ARAZZO_SERVER_VAR_*` variables (the real environment wins).
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..model import Workflow
from ..records import Record, field

DEFAULT_PREFIX = "ARAZZO_INPUT_"
DOTENV = ".env"


def add_input_flags(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "--inputs-env",
        metavar="PREFIX",
        default=DEFAULT_PREFIX,
        help=f"read input NAME from the variable PREFIX<NAME> (default {DEFAULT_PREFIX}, always on)",
    )
    run.add_argument(
        "--no-inputs-env", action="store_true", help="do not read inputs from environment variables"
    )
    run.add_argument(
        "--no-dotenv", action="store_true", help=f"do not read the {DOTENV} file next to the workflow"
    )


class Environment(Record):
    """The variables inputs may come from: the process environment over the `.env` file."""

    prefix: str | None  # None: inputs are not read from variables
    dotenv_path: Path | None  # None: `.env` is off
    dotenv: dict[str, str] = field(default_factory=dict)
    environ: Mapping[str, str] = field(default_factory=dict)

    @property
    def merged(self) -> dict[str, str]:
        return {**self.dotenv, **self.environ}

    def variable(self, name: str) -> str:
        """The variable that supplies input `name`: `ARAZZO_INPUT_USERMESSAGE` for `userMessage`."""
        return f"{self.prefix}{env_name(name)}"


def load_environment(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> Environment:
    environ = os.environ if environ is None else environ
    prefix = None if args.no_inputs_env else args.inputs_env
    # the folder the path names (`os.path.abspath` resolves no symlink): a document linked into another
    # folder reads that folder's `.env`, as a relative path in the command line means
    path = None if args.no_dotenv else Path(os.path.abspath(args.file)).parent / DOTENV
    values = {}
    if path is not None and path.is_file():
        from .dotenv import read_dotenv

        values = read_dotenv(path)
    return Environment(prefix or None, path, values, dict(environ))


def env_name(name: str) -> str:
    return re.sub(r"[^A-Z0-9]", "_", name.upper())


def environment_inputs(env: Environment, workspace: Any, workflows: list[Workflow]) -> dict[str, Any]:
    """Inputs named by `PREFIX<NAME>` variables (the environment over `.env`), coerced to their types."""
    from ..executor.inputs import coerce_cli_value

    if env.prefix is None:
        return {}
    declared = _declared(workspace, workflows)
    by_variable: dict[str, str] = {}
    for name in declared:
        other = by_variable.setdefault(env_name(name), name)
        if other != name:
            raise UsageError(f"inputs '{other}' and '{name}' both read {env.variable(name)}; use --input")
    found: dict[str, Any] = {}
    upper_prefix = env.prefix.upper()
    for variable, text in env.merged.items():
        if not variable.upper().startswith(upper_prefix):
            continue
        owner = by_variable.get(env_name(variable[len(env.prefix) :]))
        if owner is not None:
            found[owner] = coerce_cli_value(text, declared[owner])
    return found


def _declared(workspace: Any, workflows: list[Workflow]) -> dict[str, dict]:
    """Input name -> schema, over the workflows and their local dependencies (which get the run's
    inputs too); the first workflow declaring a name gives its schema."""
    from ..executor.inputs import input_schema_for
    from ..workspace.inputs import resolve_schema

    document = workspace.document
    names: dict[str, dict] = {}
    pending, seen = list(workflows), set()
    while pending:
        workflow = pending.pop(0)
        if workflow.workflow_id in seen:
            continue
        seen.add(workflow.workflow_id)
        schema = resolve_schema(workflow.inputs or {}, document.raw)
        props = schema.get("properties") if isinstance(schema, dict) else None
        for name in props if isinstance(props, dict) else {}:
            names.setdefault(name, input_schema_for(workflow.inputs, name, document.raw))
        pending.extend(w for ref in workflow.depends_on if (w := document.workflow(ref)) is not None)
    return names


def missing_inputs(workspace: Any, workflows: list[Workflow], inputs: dict[str, Any]) -> dict[str, list]:
    """Workflow id -> the input entries (as `arazzo list` shows them) it requires and nobody gave."""
    from ..report.listing import input_entries

    missing = {}
    for workflow in workflows:
        absent = [
            entry
            for entry in input_entries(workflow, workspace.document.raw)
            if entry["required"] and entry["name"] not in inputs and "default" not in entry
        ]
        if absent:
            missing[workflow.workflow_id] = absent
    return missing


def missing_message(missing: dict[str, list], env: Environment, where: str = "") -> str:
    """Which inputs are missing and every way to supply each; `where` names a row of --inputs-file."""
    from ..report.listing import type_text

    lines = []
    for workflow_id, entries in missing.items():
        lines.append(f"workflow '{workflow_id}'{where} needs inputs that were not given:")
        for entry in entries:
            about = f" - {entry['description']}" if entry.get("description") else ""
            lines.append(f"  {entry['name']} ({type_text(entry['type'])}){about}")
            lines.append(f"      give it with {', or '.join(supply_hints(entry['name'], env))}")
    lines.append("nothing was sent")
    return "\n".join(lines)


def supply_hints(name: str, env: Environment) -> list[str]:
    """The ways to give input `name`: the flag, and its variable (environment or `.env`) when read."""
    hints = [f"--input {name}=..."]
    if env.prefix is not None:
        places = "the environment" + (f" or {env.dotenv_path}" if env.dotenv_path is not None else "")
        hints.append(f"{env.variable(name)}=... in {places}")
    return hints


def check_missing(
    env: Environment, workspace: Any, workflows: list[Workflow], inputs: dict[str, Any], where: str = ""
) -> None:
    """A usage error (exit 2, nothing sent) listing the required inputs nobody supplied."""
    missing = missing_inputs(workspace, workflows, inputs)
    if missing:
        raise UsageError(missing_message(missing, env, where))
