"""What a run checks before it sends anything: the selected workflows, their inputs (and their
dependencies'), and every target, source, base URL and broker the run may reach. Shared by `run`/`arun`,
`plan_requests`, `--inputs-file` batches and load tests."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import ArazzoError, UsageError
from ..records import replace
from ..sources.family import FamilyNames, server_keys
from ..workspace.inputs import check_input_names
from .inputs import validate_inputs
from .options import RunOptions
from .runner import dependency_inputs

if TYPE_CHECKING:
    from ..model import Workflow
    from ..workspace import Workspace


def select_workflows(workspace: Workspace, workflows: str | Iterable[str] | None) -> list[Workflow]:
    document = workspace.document
    if workflows is None:
        return list(document.workflows)
    ids = [workflows] if isinstance(workflows, str) else list(workflows)
    selected = []
    for workflow_id in ids:
        workflow = document.workflow(workflow_id)
        if workflow is None:
            known = ", ".join(w.workflow_id for w in document.workflows)
            raise UsageError(f"no workflow '{workflow_id}' in {workspace.file} (workflows: {known})")
        selected.append(workflow)
    return selected


def inputs_for(workflow: Workflow, given: dict[str, Any], several: bool) -> dict[str, Any]:
    """With several workflows selected, each receives the inputs its own schema declares."""
    schema = workflow.inputs or {}
    props = schema.get("properties") if isinstance(schema, dict) else None
    if several and isinstance(props, dict):
        return {k: v for k, v in given.items() if k in props}
    return given


def preflight(
    workspace: Workspace,
    selected: list[Workflow],
    inputs: dict[str, dict],
    given: dict[str, Any],
    options: RunOptions | None = None,
    kinds: set[str] | None = None,
    refused: dict[str, Any] | None = None,
    checks: BatchChecks | None = None,
) -> set[str]:
    """Everything that can be checked before sending: inputs (also of the dependencies, which receive
    the run's inputs `given`), expressions, targets, sources and their base URLs, which it returns (of
    every operation the run may call). `inputs` (per selected workflow) become the validated inputs,
    defaults applied, which the run then uses as they are. `kinds` receives the step target kinds the
    run may reach (`operation`, `workflow`, `asyncapi`), and `concurrent` when `--parallel` runs steps
    of one side by side.

    Input problems concern the whole run and raise. A problem of what one workflow reaches (a target, a
    source, a base URL, a broker) raises too, unless `refused` is given: then the workflow goes into it
    (workflowId -> the ArazzoError) and the others are checked on. Workflows already in `refused` are
    not checked.

    `checks`: a batch's (`BatchChecks`, the rows of `--inputs-file`: the same workflows and options for
    every run), which keeps what the walk found for the next runs and, once trusted, spares them the
    inputs' second validation."""
    options = options or RunOptions()
    if checks is None or not checks.trusted:  # (a trusted batch checked these names on every row)
        check_input_names(workspace, selected, given)  # `modle` for `model`: a usage error, not ignored
    # those not refused before (a copy either way: `refused` grows below)
    checking = [w for w in selected if w.workflow_id not in refused] if refused else list(selected)
    for workflow in checking:
        key = workflow.workflow_id
        inputs[key] = _validate(workspace, workflow, inputs[key], options.secrets, checks)
    walk = _walk_for(checks, tuple([w.workflow_id for w in checking]), options, workspace)
    for workflow in checking:
        error = walk.check(workspace, workflow)
        if error is not None:
            if refused is None:
                raise error
            refused[workflow.workflow_id] = error
    if kinds is not None:
        kinds.update(walk.kinds)
    checked: set[tuple[int, str]] = set()
    for workflow in checking:
        if workflow.depends_on and (refused is None or workflow.workflow_id not in refused):
            _check_dependency_inputs(workspace, workflow, given, checked, options.secrets, checks)
    if walk.bases:  # operations of a description: validation applies to them
        check_validation_installed(options)
    return set(walk.bases)


class BatchChecks:
    """What a batch of runs of the same workflows with the same options checks once for all of them
    (`arazzo run --inputs-file`: a run per row, whose options come from the same flags): what each
    workflow reaches (targets, sources, base URLs, brokers: the walk, ~0.1 ms a run), and which
    workflows' inputs it validated on every row of its check pass (`validated`). Once the batch sets
    `trusted` (every row passed, and the rows it runs are the rows it checked), a run's inputs are not
    validated against those schemas again: their defaults are applied and their secret values found
    (per run: each row has its own), the JSON Schema check (~0.3 ms a row) is not made twice. The rest
    that `api._prepare` finds the same for every run (`admission`, the family's server keys) is kept in
    `found`, keyed by what it is of; what the runs find the same (an operation's base URL and parameter
    index, a workflow's secret inputs) in `facts`."""

    def __init__(self) -> None:
        self.walks: dict[tuple[str, ...], _Walk] = {}  # by the workflows checked, in order
        self.validated: set[tuple[int, str]] = set()  # (id(workspace), workflowId)
        self.trusted = False
        self.found: dict[tuple[Any, ...], Any] = {}
        # what stays the same for an operation and a workflow in runs of the same options, found by the
        # first run that needs it (`Runner.operation_facts`; `api.prepare_run`'s runs share theirs too)
        self.facts: dict[tuple[Any, ...], Any] = {}

    def run_facts(self, workspace: Workspace, workflows: Any) -> RunFacts | None:
        """What the first run of the trusted batch found (`keep_run_facts`), for the next runs; None
        before the batch is trusted (each run then checks all, its inputs validated anew)."""
        return self.found.get(_facts_key(workspace, workflows)) if self.trusted else None

    def keep_run_facts(
        self,
        workspace: Workspace,
        workflows: Any,
        selected: list[Workflow],
        stopped: dict[str, Any],
        refused: dict[str, list[dict[str, Any]]],
        bases: set[str],
        kinds: set[str],
    ) -> None:
        """Keep what a run of the trusted batch found (`api._prepare`) for the next (`run_facts`).
        `stopped`: the workflows the admission refused (None: their inputs are not validated) and those
        the walk refused (an error: their dependencies' inputs are not validated)."""
        if not self.trusted:
            return
        checking = [w for w in selected if w.workflow_id not in stopped or stopped[w.workflow_id] is not None]
        deps = [w for w in checking if w.workflow_id not in stopped]
        facts = RunFacts(list(selected), checking, deps, dict(refused), set(bases), set(kinds))
        self.found[_facts_key(workspace, workflows)] = facts

    def trusted_inputs(
        self, workspace: Workspace, facts: RunFacts, given: dict[str, Any], secrets: set[str]
    ) -> dict[str, dict[str, Any]]:
        """The inputs part of `preflight` for a run of the trusted batch whose other checks `facts`
        holds: per selected workflow, its validated inputs (its dependencies' validated too), as
        `preflight` leaves them in its `inputs`."""
        several = len(facts.selected) > 1
        inputs = {w.workflow_id: inputs_for(w, given, several) for w in facts.selected}
        for workflow in facts.checking:
            key = workflow.workflow_id
            inputs[key] = _validate(workspace, workflow, inputs[key], secrets, self)
        checked: set[tuple[int, str]] = set()
        for workflow in facts.with_dependencies:
            if workflow.depends_on:
                _check_dependency_inputs(workspace, workflow, given, checked, secrets, self)
        return inputs

    def once(self, key: tuple[Any, ...], find: Callable[[], Any]) -> Any:
        """`find()`, called for the first run that asks for `key` alone."""
        found = self.found.get(key)
        if found is None:
            found = self.found[key] = find()
        return found


class RunFacts(NamedTuple):
    """What `api._prepare` found for a batch's run that is the same for every run of it once the batch
    is trusted (`BatchChecks.trusted`: the same workflows, options and checked rows): a run then only
    has its inputs validated (`trusted_inputs`: defaults applied, its own secrets found)."""

    selected: list[Workflow]
    checking: list[Workflow]  # those whose inputs are validated (the admission refused none of them)
    with_dependencies: list[Workflow]  # those whose dependencies' inputs are validated (none refused)
    refused: dict[str, list[dict[str, Any]]]
    bases: set[str]
    kinds: set[str]

    def copies(self) -> tuple[set[str], set[str], dict[str, list[dict[str, Any]]]]:
        """A run's own (bases, kinds, refused), as `_prepare` gives each run its own."""
        return set(self.bases), set(self.kinds), dict(self.refused)


def _facts_key(workspace: Workspace, workflows: Any) -> tuple[Any, ...]:
    named = workflows if workflows is None or isinstance(workflows, str) else tuple(workflows)
    return ("run facts", id(workspace), named)


def _walk_for(
    checks: BatchChecks | None, checking: tuple[str, ...], options: RunOptions, workspace: Workspace
) -> _Walk:
    """A new walk; in a batch, the one of an earlier run of the same workflows (its outcomes kept)."""
    walk = None if checks is None else checks.walks.get(checking)
    if walk is None:
        walk = _Walk(options, FamilyNames(workspace), set(), set())
        if checks is not None:
            checks.walks[checking] = walk
    return walk


def check_validation_installed(options: RunOptions) -> None:
    """Request validation asked for without openapi-core (the `validation` extra) is a
    usage error before anything is sent, as a missing broker client is: the run could not do what it
    was asked, and failing every step with the same cause would send requests for nothing."""
    if options.validate_requests == "off":  # responses are the contract checks': no extra needed
        return
    asked = [f"--validate-requests {options.validate_requests}"]
    from importlib.util import find_spec

    if find_spec("openapi_core") is None:
        from ..http.openapi_checks import missing_openapi_core

        raise UsageError(f"{', '.join(asked)}: {missing_openapi_core()}; nothing was sent")


def _validate(
    workspace: Workspace,
    workflow: Workflow,
    inputs: dict[str, Any],
    secrets: set[str],
    checks: BatchChecks | None = None,
) -> dict[str, Any]:
    document = workspace.document.raw
    if checks is None:
        return validate_inputs(workflow.workflow_id, workflow.inputs, inputs, document, _schema_at(workflow),
                               secrets, workspace.error)  # fmt: skip
    key = (id(workspace), workflow.workflow_id)
    # a batch: where the schema is, and the schema read (`plain_inputs`), found once
    slot = ("inputs", *key)
    facts = checks.found.get(slot)
    if facts is None:
        facts = checks.found[slot] = _inputs_facts(document, workflow)
    schema_at, plain = facts
    checked = checks.trusted and key in checks.validated
    if plain is not None:  # `validate_inputs`'s own way with a plain schema, without its call (each row)
        valid = plain.filled(inputs)
        if secrets is not None and plain.secret:
            secrets.update(plain.secrets(valid))
        if not checked and not plain.passes(valid):  # the problems worded the usual way
            valid = validate_inputs(workflow.workflow_id, workflow.inputs, inputs, document, schema_at,
                                    secrets, workspace.error, checked, plain)  # fmt: skip
    else:
        valid = validate_inputs(workflow.workflow_id, workflow.inputs, inputs, document, schema_at, secrets,
                                workspace.error, checked, plain)  # fmt: skip
    if not checks.trusted:
        checks.validated.add(key)  # (a row that fails stops the batch: the rows it runs all passed)
    return valid


def _schema_at(workflow: Workflow) -> str:
    """The JSON pointer of the workflow's inputs schema in its document."""
    return "/" + "/".join(str(t) for t in (*workflow.at, "inputs"))


def _inputs_facts(document: dict, workflow: Workflow) -> tuple[str, Any]:
    """(the pointer of the workflow's inputs schema, that schema as a `PlainSchema` when it is one, else
    None: `plain_inputs.py`)."""
    from ..loader.pointer import parse_pointer, resolve_pointer
    from .plain_inputs import plain_schema

    schema_at = _schema_at(workflow)
    schema = resolve_pointer(document, parse_pointer(schema_at))
    # (a schema `validate_inputs` takes as none, `{}`, is left to it: it returns the inputs as given)
    return schema_at, plain_schema(schema) if schema and schema is workflow.inputs else None


def _check_dependency_inputs(
    workspace: Workspace,
    workflow: Workflow,
    given: dict[str, Any],
    checked: set[tuple[int, str]],
    secrets: set[str],
    checks: BatchChecks | None = None,
) -> None:
    for ref in workflow.depends_on:
        target = workspace.resolve_workflow(ref, (*workflow.at, "dependsOn"))
        key = (id(target.workspace), target.workflow.workflow_id)
        if key in checked:
            continue
        checked.add(key)
        given_to = dependency_inputs(target.workflow, given)
        _validate(target.workspace, target.workflow, given_to, secrets, checks)
        _check_dependency_inputs(target.workspace, target.workflow, given, checked, secrets, checks)


class _Walk:
    """The check of what each selected workflow reaches (targets, sources, base URLs, brokers, the
    workflows it calls or depends on), once per workflow however many reach it: a workflow's outcome is
    the first problem in it or in what it reaches (None: none)."""

    def __init__(self, options: RunOptions, names: FamilyNames, bases: set[str], kinds: set[str]) -> None:
        self.options, self.names, self.bases, self.kinds = options, names, bases, kinds
        self.outcome: dict[tuple[int, str], ArazzoError | None] = {}

    def check(self, workspace: Workspace, workflow: Workflow) -> ArazzoError | None:
        key = (id(workspace), workflow.workflow_id)
        if key in self.outcome:
            return self.outcome[key]  # checked, or being checked (a cycle of gotos: fine so far)
        self.outcome[key] = None
        try:
            self._walk(workspace, workflow)
        except ArazzoError as exc:
            self.outcome[key] = exc
        return self.outcome[key]

    def _reach(self, workspace: Workspace, ref: str, at: Any) -> None:
        target = workspace.resolve_workflow(ref, at)
        error = self.check(target.workspace, target.workflow)
        if error is not None:
            raise error

    def _walk(self, workspace: Workspace, workflow: Workflow) -> None:
        plan = workspace.compiled(workflow)
        if plan.concurrent and self.options.parallel > 1:  # steps side by side: a run that takes asyncio
            self.kinds.add("concurrent")
        for ref in workflow.depends_on:
            self._reach(workspace, ref, (*workflow.at, "dependsOn"))
        servers_checked: set[int] = set()  # one check per operation, however many steps call it
        for cstep in plan.steps:
            step = cstep.step
            self.kinds.add(step.target_kind)
            if step.target_kind == "operation":
                target = workspace.resolve_operation(step)
                if target.source is None:  # an x-operation: its URL is checked when the step builds it
                    pass
                elif id(target.operation) not in servers_checked:
                    servers_checked.add(id(target.operation))
                    family = self.names.key(workspace, target.source)
                    self.bases.add(_check_server(target, self.options, family, self.names.root))
                    # read now what the request is built from (each read once, on first use): a
                    # malformed piece of the description (`in: None`) stops the workflows calling
                    # this operation, before anything is sent, and no other
                    _ = target.operation.parameters, target.operation.request_body, target.operation.security
            elif step.target_kind == "workflow":
                self._reach(workspace, step.workflow_id or "", (*step.at, "workflowId"))
            else:
                target = workspace.resolve_message(step)
                _check_broker(target, self.options, self.names.key(workspace, target.source))
            for action in (*cstep.on_success, *cstep.on_failure):
                if action.workflow_id:
                    self._reach(workspace, action.workflow_id, action.at)


def _check_broker(target: Any, options: RunOptions, family: str) -> None:
    """An AsyncAPI step's broker must be known, and its transport installed, before anything is sent."""
    from ..messages import TransportError
    from .brokers import BrokerError, check_broker

    try:
        check_broker(options, target, family)
    except (BrokerError, TransportError) as exc:
        raise UsageError(str(exc)) from None


def _check_server(target: Any, options: RunOptions, family: str, root: Any) -> str:
    """A base URL must exist before anything is sent (a relative server URL needs `--server`)."""
    from .servers import ServerError, base_url, top_description

    same = top_description(root, target.source, family, options.servers)
    args = (target.source, target.description, target.operation, options, target.server, family, same)
    try:
        return base_url(*args)
    except ServerError as exc:
        raise UsageError(str(exc)) from None


def replay_opened(options: RunOptions) -> RunOptions:
    """`http_replay` given as a path: the HAR file read now (a file that is not one is a UsageError
    before anything runs); the run's client answers from it (`api._own_client`)."""
    given = options.http_replay
    if given is None:
        return options
    if options.client is not None:
        raise UsageError("http_replay answers the run's own client's requests: give no client with it")
    if not isinstance(given, (str, os.PathLike)):
        return options
    from ..http.har_replay import HttpReplay

    opened: RunOptions = replace(options, http_replay=HttpReplay.open(os.fspath(given)))
    return opened


def family_servers(
    options: RunOptions, workspace: Workspace, checks: BatchChecks | None = None
) -> RunOptions:
    """`servers` keyed by family name (`a`, `kid/a`; a bare name only one nested document has stands for
    its source, several make a UsageError): `sources/family.py`. A name of no source matches nothing.
    In a batch (`checks`) found once for the servers its runs share."""
    if not options.servers:
        return options
    servers = options.servers
    found = None if checks is None else checks.found.get(("servers", id(workspace)))
    if found is None or found[0] is not servers:  # (the same mapping, kept: the same keys)
        found = (servers, server_keys(servers, workspace, strict=False))
        if checks is not None:
            checks.found["servers", id(workspace)] = found
    keyed = found[1]
    return options if keyed == options.servers else replace(options, servers=keyed)
