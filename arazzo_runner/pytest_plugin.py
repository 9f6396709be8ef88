"""pytest plugin: Arazzo documents as test files, one test item per workflow.

Collected files: `*.arazzo.yaml`, `*.arazzo.yml`, `*.arazzo.json` under the paths pytest collects (or the
globs of the `arazzo_files` ini option). Inputs and servers come, later winning, from:

- ini options `arazzo_inputs` (a JSON object or a JSON/YAML file) and `arazzo_servers` (lines NAME=URL);
- command-line options `--arazzo-inputs JSON|PATH`, `--arazzo-input KEY=VALUE`, `--arazzo-server NAME=URL`;
- the fixtures `arazzo_inputs` and `arazzo_servers`, which a conftest.py may override (they receive
  `request`; `request.node.workflow_id` tells which workflow asks).

Credentials: `--arazzo-auth [SOURCE:]SCHEME[.FIELD]=VALUE` (repeatable; `arazzo run --auth`'s syntax)
and the ini option `arazzo_auth` (one item per line; the option wins for a key both give), over the
inputs named like a scheme and the `ARAZZO_AUTH_*` variables (`docs/security.md`). Each document gets
the items naming a scheme of its sources; an item no collected document knows is a usage error.

Sources are read wherever the documents point, as with `arazzo run`. For documents you do not trust,
`--arazzo-sandbox DIR` (repeatable) and the ini option `arazzo_sandbox` (folders, relative to the ini
file) together form the sandbox: a local read outside those folders fails the workflow's test.

The inputs serve every collected workflow: each workflow that declares its inputs receives those it (or
a workflow it depends on) declares, the others all of them (`arazzo run` refuses an undeclared one).

A failed workflow fails its test with the failing step, its error and failed criteria, and the
engine's warnings (a step sent without its credentials says which variable or `--arazzo-auth` item
to give; an `ARAZZO_AUTH_*` variable no scheme reads is named with the closest one that is).

Each further concern has its module, whose options, hooks and fixtures this entry point gathers:
contract checks (`pytest_contract.py`: `--arazzo-contract`, `ContractWarning`), API coverage
(`pytest_coverage.py`: `--arazzo-coverage`, `--arazzo-min-coverage`), offline runs from a HAR file
(`pytest_http.py`: `--arazzo-http-replay`, the `arazzo_http_replay` fixture) and agent scenarios from
their recordings (`pytest_agent.py`: the `arazzo_agent_replay` fixture); `docs/testing.md` and
`docs/agents.md` say how each is used.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

import pytest

# each concern's options, state, hooks and fixtures in its own module; the hooks and fixtures are
# imported here, where pytest finds them (this module is the plugin's entry point)
from .pytest_agent import add_options as add_agent_options
from .pytest_agent import arazzo_agent_replay
from .pytest_contract import CONTRACT, ContractWarning, contract_mode, warn_contract
from .pytest_contract import add_options as add_contract_options
from .pytest_coverage import COVERAGE, coverage_state, pytest_sessionfinish, pytest_terminal_summary
from .pytest_coverage import add_options as add_coverage_options
from .pytest_coverage import record as record_coverage
from .pytest_http import add_options as add_http_replay_options
from .pytest_http import arazzo_http_replay, replay_for

__all__ = [
    "ContractWarning",
    "arazzo_agent_replay",
    "arazzo_http_replay",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
]

DEFAULT_PATTERNS = ("*.arazzo.yaml", "*.arazzo.yml", "*.arazzo.json")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("arazzo", "Arazzo workflows as tests")
    group.addoption("--arazzo-inputs", metavar="JSON|PATH", help="inputs for every collected workflow")
    group.addoption(
        "--arazzo-input", action="append", default=[], metavar="KEY=VALUE", help="one input (repeatable)"
    )
    group.addoption(
        "--arazzo-server", action="append", default=[], metavar="NAME=URL", help="base URL of a source"
    )
    group.addoption("--arazzo-timeout", type=float, default=30.0, metavar="SECONDS", help="HTTP timeout")
    group.addoption(
        "--arazzo-parallel",
        type=int,
        default=None,
        metavar="N",
        help="steps side by side, up to N requests at once (as `arazzo run --parallel`; default 1)",
    )
    group.addoption(
        "--arazzo-auth",
        action="append",
        default=[],
        metavar="[SOURCE:]SCHEME[.FIELD]=VALUE",
        help="credential for a security scheme, as `arazzo run --auth` (repeatable; `arazzo auth FILE` "
        "lists the names)",
    )
    group.addoption(
        "--arazzo-sandbox",
        action="append",
        default=[],
        metavar="DIR",
        help="refuse local reads of the documents outside DIR (repeatable)",
    )
    add_contract_options(group, parser)
    add_agent_options(group)
    add_coverage_options(group, parser)
    add_http_replay_options(group, parser)
    parser.addini("arazzo_files", "glob patterns of Arazzo documents to collect", type="args")
    parser.addini("arazzo_inputs", "inputs: a JSON object or a JSON/YAML file")
    parser.addini("arazzo_servers", "source base URLs, one NAME=URL per line", type="linelist")
    parser.addini(
        "arazzo_sandbox", "folders local reads are confined to (relative to the ini file)", type="paths"
    )
    parser.addini("arazzo_parallel", "steps side by side, up to N requests at once (default 1)")
    parser.addini(
        "arazzo_auth",
        "credentials, one [SOURCE:]SCHEME[.FIELD]=VALUE per line (as --arazzo-auth)",
        type="linelist",
    )


SANDBOX = pytest.StashKey[list[Path]]()
PARALLEL = pytest.StashKey[int]()
AUTH = pytest.StashKey[dict[str, str]]()
WORKSPACES = pytest.StashKey[list[Any]]()  # the collected documents: the variables any of them reads
AUTH_FLAG = "--arazzo-auth"


def pytest_configure(config: pytest.Config) -> None:
    """The sandbox folders, checked once: the ini's (relative to the ini file) and the command line's
    (relative to where pytest was started); empty: no sandbox. A missing folder is a usage error. The
    parallel bound and the credential items are read once too."""
    start = config.invocation_params.dir
    folders = [*config.getini("arazzo_sandbox"), *(start / p for p in config.getoption("arazzo_sandbox"))]
    for folder in folders:
        if not folder.is_dir():
            raise pytest.UsageError(f"arazzo sandbox: {folder} is not an existing folder")
    config.stash[SANDBOX] = folders
    config.stash[PARALLEL] = _parallel(config)
    config.stash[CONTRACT] = contract_mode(config)
    config.stash[AUTH] = _auth(config)
    config.stash[COVERAGE] = coverage_state(config)


def _auth(config: pytest.Config) -> dict[str, str]:
    """The ini's `arazzo_auth` items, then `--arazzo-auth`'s (later winning for a key); a malformed item
    is a usage error that never shows its value."""
    from .errors import UsageError
    from .http.auth_keys import parse_auth_items

    items = [*config.getini("arazzo_auth"), *config.getoption("arazzo_auth")]
    try:
        return parse_auth_items(items, AUTH_FLAG)
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A credential item must name a scheme of some collected document: a typo is a usage error, not a
    credential silently never sent (the documents' own checks are each run's)."""
    auth = config.stash.get(AUTH, {})
    workspaces = list({id(i.workspace): i.workspace for i in items if isinstance(i, ArazzoItem)}.values())
    config.stash[WORKSPACES] = workspaces
    config.stash[COVERAGE]["workspaces"] = workspaces  # a document none of whose workflows ran counts too
    if not auth or not workspaces:
        return
    from .errors import ArazzoError
    from .http.auth_keys import check_scheme_key, scheme_named, scheme_owners

    owners: dict[str, set[str]] = {}
    for workspace in workspaces:
        try:
            found = scheme_owners(workspace)
        except ArazzoError:  # a source that cannot be loaded: its workflows' tests say so
            continue
        for name, sources in found.items():
            owners.setdefault(name, set()).update(sources)
    for key in auth:
        if scheme_named(key, owners) is None:
            try:
                check_scheme_key(key, owners, AUTH_FLAG)  # says which schemes there are
            except ArazzoError as exc:
                raise pytest.UsageError(str(exc)) from None


def _parallel(config: pytest.Config) -> int:
    """`--arazzo-parallel`, else the ini's `arazzo_parallel`, else 1; anything but a whole number of at
    least 1 is a usage error."""
    given = config.getoption("arazzo_parallel")
    text = str(given) if given is not None else (config.getini("arazzo_parallel") or "1")
    try:
        count = int(text.strip())
    except ValueError:
        count = 0
    if count < 1:
        raise pytest.UsageError(f"arazzo parallel: {text.strip()!r} is not a whole number of at least 1")
    return count


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    patterns = parent.config.getini("arazzo_files") or DEFAULT_PATTERNS
    if any(fnmatch.fnmatch(file_path.name, p) or fnmatch.fnmatch(str(file_path), p) for p in patterns):
        return ArazzoFile.from_parent(parent, path=file_path)
    return None


class ArazzoFile(pytest.File):
    def collect(self) -> Any:
        from .api import load
        from .errors import ArazzoError

        try:
            sandbox: list[Path] = self.config.stash[SANDBOX]
            workspace = load(self.path, allow_paths=sandbox)
        except ArazzoError as exc:
            raise self.CollectError(str(exc)) from None
        for workflow in workspace.document.workflows:
            item = ArazzoItem.from_parent(self, name=workflow.workflow_id, callobj=_runner(workspace))
            item.workflow_id = workflow.workflow_id
            item.workspace = workspace
            yield item


class ArazzoItem(pytest.Function):
    """A workflow run as a test; fixtures `arazzo_inputs` and `arazzo_servers` feed it."""

    workflow_id: str = ""
    workspace: Any = None

    def repr_failure(self, excinfo: Any) -> Any:  # type: ignore[override]
        if isinstance(excinfo.value, WorkflowFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"workflow {self.workflow_id}"


class WorkflowFailed(AssertionError):
    """A workflow that did not pass, explained step by step."""


def _runner(workspace: Any) -> Any:
    def run_workflow(
        request: pytest.FixtureRequest,
        arazzo_inputs: dict[str, Any],
        arazzo_servers: dict[str, Any],
        arazzo_http_replay: Any,
    ) -> None:
        import os

        from .api import run
        from .errors import ArazzoError
        from .executor.options import RunOptions
        from .http.auth_keys import auth_for, auth_secrets, scheme_owners
        from .http.auth_variables import unread_variables
        from .masking.secrets import Masker
        from .report.terminal import escape

        item = request.node
        timeout = request.config.getoption("arazzo_timeout")
        parallel = request.config.stash[PARALLEL]
        given = request.config.stash[AUTH]
        secrets = auth_secrets(given)
        contract = request.config.stash[CONTRACT]
        options = RunOptions(
            servers=dict(arazzo_servers),
            timeout=timeout,
            parallel=parallel,
            secrets=secrets,
            contract=contract,
            http_replay=replay_for(request.config, arazzo_http_replay),  # None: the network
        )
        masker = Masker.for_run(options, workspace)  # test reports end up in CI logs: masked like the CLI
        try:
            options.auth = auth_for(given, scheme_owners(workspace), AUTH_FLAG) if given else {}
            inputs = _inputs_of(workspace, item.workflow_id, arazzo_inputs)
            result = run(workspace, item.workflow_id, inputs, options=options)
            record_coverage(request.config, workspace, result)
        except ArazzoError as exc:  # it cannot run (its findings), invalid inputs: nothing was sent
            text = masker.text(str(exc))
            raise WorkflowFailed("\n".join(escape(line) for line in text.splitlines())) from None
        if not result.ok:
            # a near miss: why no credential went (a variable another collected document reads is used)
            documents: list[Any] = request.config.stash.get(WORKSPACES, [workspace])
            unread = unread_variables(documents, os.environ)
            raise WorkflowFailed(explain(masker.data(result.to_dict()), unread))
        warn_contract(masker.data(result.to_dict()))

    return run_workflow


def _inputs_of(workspace: Any, workflow_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """The plugin's inputs serve every collected workflow: each receives those it (or a workflow it
    depends on) declares, so that `run` does not refuse another workflow's input as unknown."""
    from .workspace.inputs import declared_input_names

    workflow = workspace.document.workflow(workflow_id)
    names = declared_input_names(workspace, [workflow]) if workflow is not None else None
    return dict(inputs) if names is None else {k: v for k, v in inputs.items() if k in names}


def explain(result: dict[str, Any], notes: list[str] | None = None) -> str:
    """A readable account of a failed run: every step with its status and the engine's warnings (the
    missing-credential hint says why a 401 came), then the error, then `notes` (warnings of the whole
    run); the workflows it depends on and those its steps run, indented under it, likewise (the 401 may
    be theirs); a server's text escaped: pytest prints it to the terminal."""
    lines: list[str] = []
    for workflow in result["workflows"]:
        _account(workflow, "", lines)
    lines.extend(f"warning: {_escape(note)}" for note in notes or ())
    return "\n".join(lines)


def _account(workflow: dict[str, Any], pad: str, lines: list[str], depth: int = 0) -> None:
    nested = depth < 8  # a deeper chain of runs: its top says enough
    for dependency in workflow.get("dependencies") or () if nested else ():
        _account(dependency, pad + "  ", lines, depth + 1)
    lines.append(f"{pad}workflow {workflow['workflowId']}: {workflow['status']}")
    for step in workflow.get("steps") or ():
        status = f" HTTP {step['statusCode']}" if step.get("statusCode") is not None else ""
        attempts = f" ({step['attempts']} attempts)" if step.get("attempts", 1) > 1 else ""
        lines.append(f"{pad}  {step['status']:6} {step['stepId']}{status}{attempts}")
        lines.extend(f"{pad}         warning: {_escape(_flag(w))}" for w in step.get("warnings", ()))
        if step.get("error"):
            lines.append(f"{pad}         {_escape(step['error'])}")
        runs = [*(step.get("earlierWorkflows") or ()), *([step["workflow"]] if step.get("workflow") else [])]
        for run in runs if nested else ():
            _account(run, pad + "    ", lines, depth + 1)
    if workflow.get("error"):
        error = workflow["error"]
        dependency = f"dependency {error['dependency']}" if error.get("dependency") else None
        where = error.get("stepId") or dependency or "workflow"
        lines.append(f"{pad}  error at {where}: {_escape(workflow['error']['message'])}")


def _escape(text: str) -> str:
    from .report.terminal import escape

    return escape(text)


def _flag(warning: str) -> str:
    """An engine warning as the plugin's user gives credentials: `--arazzo-auth` where the run's
    warnings name `arazzo run --auth` (the same items)."""
    import re

    return re.sub(r"(?<![\w-])--auth(?= )", AUTH_FLAG, warning)


@pytest.fixture
def arazzo_inputs(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Inputs for the workflow under test; override in conftest.py for per-workflow inputs."""
    config = request.config
    inputs: dict[str, Any] = {}
    for source in (config.getini("arazzo_inputs"), config.getoption("arazzo_inputs")):
        if source:
            inputs.update(_read_inputs(source, config.rootpath))
    for item in config.getoption("arazzo_input"):
        key, sep, value = item.partition("=")
        if not sep:
            raise pytest.UsageError(f"--arazzo-input expects KEY=VALUE, got {item!r}")
        inputs[key] = _coerce(request.node, key, value)
    return inputs


@pytest.fixture
def arazzo_servers(request: pytest.FixtureRequest) -> dict[str, str]:
    """Base URLs by source name; override in conftest.py (e.g. to point at a server fixture)."""
    config = request.config
    servers: dict[str, str] = {}
    for line in [*config.getini("arazzo_servers"), *config.getoption("arazzo_server")]:
        name, sep, url = line.partition("=")
        if not sep:
            raise pytest.UsageError(f"arazzo servers expect NAME=URL, got {line!r}")
        servers[name.strip()] = url.strip()
    return servers


def _read_inputs(source: str, root: Path) -> dict[str, Any]:
    text = source.strip()
    if text.startswith("{"):
        from .bounds import json_text

        data = json_text.loads(text)  # the rule for JSON from outside (a ValueError: pytest says it)
    else:
        from .loader import load_path

        path = Path(text) if Path(text).is_absolute() else root / text
        data = load_path(path).data
    if not isinstance(data, dict):
        raise pytest.UsageError("arazzo inputs must be a JSON object")
    return data


def _coerce(node: Any, key: str, value: str) -> Any:
    """`--arazzo-input n=3` is coerced to the type the workflow's inputs schema declares for `n`."""
    from .executor.inputs import coerce_cli_value, input_schema_for

    workspace = getattr(node, "workspace", None)
    if workspace is None:
        return value
    workflow = workspace.document.workflow(node.workflow_id)
    schema = input_schema_for(workflow.inputs if workflow else None, key, workspace.document.raw)
    return coerce_cli_value(value, schema)
