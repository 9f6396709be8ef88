"""What every user of one load test shares: the document (loaded and compiled once per process), the
workflows with their weights, the inputs and the rows, and the options each run is given.

A user (one `ArazzoUser` instance) keeps its own `RunOptions`, client and secrets; an iteration runs one
workflow, chosen by weight, with the inputs of its row. Everything a run could refuse (unknown or invalid
inputs, of every row; relative servers without `servers`) is checked by `check()` before the first user
starts, so a load test never sends a thousand requests to learn that row 7 is missing a field.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..executor.options import RunOptions
from ..executor.preflight import inputs_for
from ..workspace import Workspace

ROWS_PER = ("user", "iteration")
_OWN_FIELDS = ("client", "on_event")  # every user sets its own


class LoadPlan:
    """The shared, read-only part of a load test (one per user class and process)."""

    def __init__(
        self,
        workspace: Workspace,
        weights: dict[str, int],
        inputs: dict[str, Any],
        rows: list[dict[str, Any]] | None = None,
        rows_per: str = "user",
        options: dict[str, Any] | None = None,
        mask: bool = True,
    ) -> None:
        self.workspace = workspace
        self.weights = weights  # workflow id -> weight, in the order given
        self.inputs = inputs
        self.rows = rows
        self.rows_per = rows_per
        self.options = dict(options or {})
        self.mask = mask
        self._ids = list(weights)
        self._cumulative = _cumulative(weights.values())
        self._several = len(weights) > 1
        self._workflows = {w.workflow_id: w for w in workspace.document.workflows}  # a task may run any
        self._next_row = 0
        self.coverage: Any = None  # `arazzo load --coverage`: a `report.coverage.Tally` of the runs

    @classmethod
    def build(
        cls,
        document: str | os.PathLike | Workspace,
        workflows: str | Sequence[str] | Mapping[str, int] | None = None,
        *,
        inputs: Mapping[str, Any] | None = None,
        inputs_file: str | os.PathLike | None = None,
        rows: Iterable[Mapping[str, Any]] | None = None,
        rows_per: str = "user",
        servers: Mapping[str, str] | None = None,
        auth: Mapping[str, str] | None = None,
        options: Mapping[str, Any] | None = None,
        host: str | None = None,
        mask: bool = True,
        base: str | os.PathLike | None = None,
    ) -> LoadPlan:
        """A plan from an `ArazzoUser`'s settings; relative paths are read against `base` (the folder of
        the locustfile), else the working directory. `host` (Locust's `--host`) is the base URL of the
        document's one source description, unless `servers` names it."""
        from ..api import load

        folder = Path(base) if base is not None else Path.cwd()
        workspace = document if isinstance(document, Workspace) else load(folder / Path(document))
        if rows_per not in ROWS_PER:
            raise UsageError(f"rows_per must be one of {', '.join(ROWS_PER)}, got {rows_per!r}")
        if rows is not None and inputs_file is not None:
            raise UsageError("give rows or inputs_file, not both")
        if inputs_file is not None:
            from ..executor.rows import read_rows  # the `arazzo run --inputs-file` reader: one format

            rows = [values for _, values in read_rows(str(folder / Path(inputs_file)))]
        fields = _option_fields(options or {})
        fields["servers"] = {**fields.get("servers", {}), **dict(servers or {})}
        if host:
            _apply_host(workspace, fields["servers"], host)
        credentials = {**fields.get("auth", {}), **dict(auth or {})}
        fields["auth"] = credentials
        secrets = set(fields.get("secrets", ()))
        secrets.update(v for k, v in credentials.items() if not k.endswith(".client_auth") and v)
        fields["secrets"] = secrets
        plan = cls(
            workspace, _weights(workspace, workflows), dict(inputs or {}), _rows(rows), rows_per, fields
        )
        plan.mask = mask
        return plan

    # -- per user and iteration ---------------------------------------------------------------------

    def new_options(self, **own: Any) -> RunOptions:
        """A user's own options: the shared fields, a secret set of its own, its client and handler."""
        fields = {**self.options, **own}
        fields["secrets"] = set(self.options.get("secrets", ()))
        return RunOptions(**fields)

    def choose(self, rng: random.Random | None = None) -> str:
        """A workflow id, drawn by weight."""
        if len(self._ids) == 1:
            return self._ids[0]
        draw = (rng or random).random() * self._cumulative[-1]
        return self._ids[next(i for i, bound in enumerate(self._cumulative) if draw < bound)]

    def take_row(self, start: int = 0) -> int | None:
        """The index of the next row of this process's cycle (`start` shifts it: a worker's index), or
        None without rows."""
        if not self.rows:
            return None
        index = (self._next_row + start) % len(self.rows)
        self._next_row += 1
        return index

    def inputs_for(self, workflow_id: str, row: int | None) -> dict[str, Any]:
        """The inputs of one run: the row over the fixed inputs, only those the workflow declares when
        the plan has several workflows (as `arazzo run` gives each selected workflow). A workflow outside
        the weights (a task's own choice) is looked up in the document: UsageError when it has none."""
        if workflow_id not in self._workflows:
            known = ", ".join(self._workflows)
            raise UsageError(f"no workflow '{workflow_id}' in {self.workspace.file} (workflows: {known})")
        merged = {**self.inputs, **self.rows[row]} if row is not None and self.rows else self.inputs
        return inputs_for(self._workflows[workflow_id], merged, self._several)  # the library's rule

    # -- before the first user ----------------------------------------------------------------------

    def check(self, labels: list[str] | None = None) -> None:
        """Everything a run of any workflow with any row would refuse, raised now (a UsageError or an
        InputsError naming the row: ` (row N)`, or `labels[N - 1]` when given)."""
        from ..executor.preflight import preflight
        from ..workspace.inputs import check_input_names

        selected = [self._workflows[workflow_id] for workflow_id in self.weights]
        for row in range(len(self.rows)) if self.rows else [None]:
            where = "" if row is None else labels[row] if labels else f" (row {row + 1})"
            given = {**self.inputs, **(self.rows[row] if row is not None and self.rows else {})}
            check_input_names(self.workspace, selected, given, where)
            for workflow in selected:
                inputs = self.inputs_for(workflow.workflow_id, row)
                options = self.new_options()
                try:
                    preflight(self.workspace, [workflow], {workflow.workflow_id: inputs}, inputs, options)
                except UsageError as exc:
                    raise UsageError(self.masker(options).text(f"{exc}{where}")) from None

    def masker(self, options: RunOptions) -> Any:
        from ..masking.secrets import Masker

        return Masker.for_run(options, self.workspace, enabled=self.mask)


def _option_fields(options: Mapping[str, Any]) -> dict[str, Any]:
    from ..records import fields as record_fields

    known = record_fields(RunOptions)
    found = dict(options)
    for name in found:
        if name in _OWN_FIELDS:
            raise UsageError(f"options: '{name}' is set by each Locust user itself")
        if name not in known:
            raise UsageError(f"options: no run option '{name}' (options: {', '.join(sorted(known))})")
    return found


def _weights(
    workspace: Workspace, workflows: str | Sequence[str] | Mapping[str, int] | None
) -> dict[str, int]:
    from ..executor.preflight import select_workflows

    if workflows is None:
        weights = {w.workflow_id: 1 for w in workspace.document.workflows}
    elif isinstance(workflows, str):
        weights = {workflows: 1}
    elif isinstance(workflows, Mapping):
        weights = dict(workflows)
    else:
        weights = dict.fromkeys(workflows, 1)
    for workflow_id, weight in weights.items():
        if isinstance(weight, bool) or not isinstance(weight, int) or weight < 0:
            raise UsageError(
                f"workflow '{workflow_id}': a weight is a whole number of 0 or more, got {weight!r}"
            )
    if not any(weights.values()):
        raise UsageError("no workflow to run: give at least one workflow a weight above 0")
    select_workflows(workspace, list(weights))  # each id must name a workflow of the document
    return {k: v for k, v in weights.items() if v}


def _rows(rows: Iterable[Mapping[str, Any]] | None) -> list[dict[str, Any]] | None:
    if rows is None:
        return None
    found = []
    for number, row in enumerate(rows, 1):
        if not isinstance(row, Mapping):
            raise UsageError(f"row {number}: a row is an object of inputs, got {type(row).__name__}")
        found.append(dict(row))
    if not found:
        raise UsageError("rows: there are none (give at least one row, or no rows at all)")
    return found


def _apply_host(workspace: Workspace, servers: dict[str, str], host: str) -> None:
    names = [entry.name for entry in workspace.document.sources]
    if len(names) == 1:
        servers.setdefault(names[0], host)
    elif any(name not in servers for name in names):
        raise UsageError(
            f"host {host!r} names one server, but {workspace.file} has {len(names)} source descriptions "
            f"({', '.join(names)}): give each its base URL with `servers`"
        )


def _cumulative(weights: Iterable[int]) -> list[int]:
    total, bounds = 0, []
    for weight in weights:
        total += weight
        bounds.append(total)
    return bounds
