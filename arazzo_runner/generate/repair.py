"""A model's proposed workflow made into one the document can hold, before the validator judges it.

What is repaired, each said in the workflow's comment:
- fields that are not Arazzo workflow or step fields are left out; ids are fitted and made unique
  (references to a renamed step follow it); output names are fitted;
- a step's operation is written as the document writes it (`source.getPet`, `$sourceDescriptions.
  source.getPet` -> `getPet`); a step naming no operation of the description is left as written, and
  the validator's `operation-exists` error drops it;
- parameters: `in` filled from the operation, a dict of name -> value read as a list, a parameter the
  operation does not have, or a credential (the engine applies security schemes), left out; a required
  parameter missing is added from an input; a required request body missing is added from inputs, as
  the per-operation workflow takes it; missing success criteria are the documented 2xx;
- what would send elsewhere is confined (`confine.py`): a step with `x-operation` drops the proposal;
  `x-security`, and a workflow parameter not every operation declares, are left out;
- every `$inputs.<name>` read is declared, typed like the parameter or body member it fills, and named
  as the rest of the document names that input (`inputs.py`).

Then the document is validated with the proposal in it and the validator's own fixes are applied
(`validate --fix`); `check.py` drops it, with the errors as its reason, if it is still invalid.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from .confine import sends_elsewhere, shared_parameters, without_x_security
from .names import Unique, fit_id, fit_output
from .operations import IGNORED_HEADERS, InputSpec, OperationPlan, credential_keys

WORKFLOW_FIELDS = frozenset(
    {"workflowId", "summary", "description", "inputs", "dependsOn", "steps", "successActions",
     "failureActions", "outputs", "parameters"}
)  # fmt: skip
STEP_FIELDS = frozenset(
    {"stepId", "description", "operationId", "operationPath", "workflowId", "parameters", "requestBody",
     "successCriteria", "onSuccess", "onFailure", "outputs"}
)  # fmt: skip
_INPUT = re.compile(r"\$inputs\.([A-Za-z0-9_-]+)")


def repair(draft: Any, proposal: Any) -> tuple[dict[str, Any] | None, list[str], str | None]:
    """(workflow, what was repaired, None), or (None, [], why it cannot be a workflow)."""
    if not isinstance(proposal, dict):
        return None, [], f"not a workflow object but a {type(proposal).__name__}"
    notes: list[str] = []
    workflow = _known(proposal, WORKFLOW_FIELDS, notes, "workflow")
    steps = workflow.get("steps")
    if not isinstance(steps, list) or not steps or not all(isinstance(s, dict) for s in steps):
        return None, notes, "it has no steps (a workflow needs a list of step objects)"
    elsewhere = sends_elsewhere(steps)
    if elsewhere is not None:
        return None, notes, elsewhere
    without_x_security(workflow, notes, "the workflow")
    written = workflow.get("workflowId")
    workflow_id = draft.ids.take(fit_id(str(written or "proposal"), "proposal"))
    if written != workflow_id:
        notes.append(f"workflowId {written!r} -> {workflow_id!r}")
    repairer = _Repairer(draft, workflow_id, notes)
    workflow = {"workflowId": workflow_id, **{k: v for k, v in workflow.items() if k != "workflowId"}}
    workflow["steps"] = [repairer.step(step) for step in steps]
    shared_parameters(workflow, repairer.plans, notes, repairer.need)
    repairer.follow_renamed_steps(workflow)
    repairer.follow_renamed_outputs(workflow)
    repairer.add_read_outputs(workflow)
    if isinstance(workflow.get("outputs"), dict):
        workflow["outputs"] = _fitted_outputs(workflow["outputs"], notes, "workflow")
    elif "outputs" in workflow:
        notes.append("workflow outputs that are not a mapping left out")
        del workflow["outputs"]
    repairer.declare_inputs(workflow)
    return workflow, notes, None


def _known(data: dict[str, Any], fields: frozenset[str], notes: list[str], what: str) -> dict[str, Any]:
    kept = {k: copy.deepcopy(v) for k, v in data.items() if k in fields or str(k).startswith("x-")}
    others = [str(k) for k in data if k not in kept]
    if others:
        notes.append(f"left out {', '.join(others)} (not {what} fields)")
    return kept


def _fitted_outputs(outputs: dict[str, Any], notes: list[str], where: str) -> dict[str, Any]:
    fitted: dict[str, Any] = {}
    names = Unique(sep="_")
    for name, value in outputs.items():
        new = names.take(fit_output(str(name)))
        if new != name:
            notes.append(f"{where} output {name!r} -> {new!r}")
        fitted[new] = value
    return fitted


class _Repairer:
    def __init__(self, draft: Any, workflow_id: str, notes: list[str]) -> None:
        self.draft, self.workflow_id, self.notes = draft, workflow_id, notes
        self.step_ids = Unique()
        self.renamed: dict[str, str] = {}
        self.needed: dict[str, InputSpec] = {}  # input name -> what it fills
        self.plans: dict[str, OperationPlan] = {}  # stepId -> the operation it calls
        self.outputs_renamed: dict[str, dict[str, str]] = {}  # stepId -> {old output name: new}

    def step(self, raw: dict[str, Any]) -> dict[str, Any]:
        step = _known(raw, STEP_FIELDS, self.notes, "step")
        written = step.get("stepId")
        step_id = self.step_ids.take(fit_id(str(written or step.get("operationId") or "step"), "step"))
        if isinstance(written, str) and written != step_id:
            self.renamed[written] = step_id
        step = {"stepId": step_id, **{k: v for k, v in step.items() if k != "stepId"}}
        without_x_security(step, self.notes, f"step {step_id}")
        plan = self._plan(step)
        if plan is not None:
            self.plans[step_id] = plan
            self._target(step, plan)
            self._parameters(step, plan)
            self._body(step, plan)
            if not isinstance(step.get("successCriteria"), list) or not step["successCriteria"]:
                step["successCriteria"] = plan.criteria()
                self.notes.append(f"step {step_id}: success criteria from the documented status")
        if isinstance(step.get("outputs"), dict):
            before = list(step["outputs"])
            step["outputs"] = _fitted_outputs(step["outputs"], self.notes, f"step {step_id}")
            renamed = {str(o): n for o, n in zip(before, step["outputs"], strict=True) if o != n}
            if renamed:
                self.outputs_renamed[str(written or step_id)] = renamed
        return step

    def _plan(self, step: dict[str, Any]) -> OperationPlan | None:
        text = step.get("operationId")
        if not isinstance(text, str):
            return None
        bare = text.rsplit(".", 1)[-1] if text.startswith("$sourceDescriptions.") or "." in text else text
        for candidate in (text, bare):
            for plan in self.draft.plans:
                if candidate in (plan.operation.operation_id, plan.label):
                    return plan
        return None

    def _target(self, step: dict[str, Any], plan: OperationPlan) -> None:
        written = step.pop("operationId", None)
        step.pop("operationPath", None)
        new = {"stepId": step["stepId"], **plan.target}
        now = next(iter(plan.target.values()))
        if written != now:
            self.notes.append(f"step {step['stepId']}: operation {written!r} written as {now!r}")
        rest = {k: v for k, v in step.items() if k != "stepId"}
        step.clear()
        step.update(new)
        step.update(rest)

    def _parameters(self, step: dict[str, Any], plan: OperationPlan) -> None:
        given = step.get("parameters")
        if isinstance(given, dict):
            given = [{"name": k, "value": v} for k, v in given.items()]
        params = [s for s in plan.inputs if s.target[0] == "param"]
        secret = credential_keys(plan.operation.source)
        kept, seen = [], set()
        for item in given if isinstance(given, list) else ():
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                self.notes.append(f"step {step['stepId']}: a parameter without a name left out")
                continue
            name, where = item["name"], item.get("in")
            spec = next((s for s in params if s.target[2] == name and s.target[1] == where), None)
            spec = spec or next((s for s in params if s.target[2] == name), None)
            if spec is None:
                credential = (where, name.lower() if where == "header" else name) in secret or (
                    where in (None, "header") and name.lower() in IGNORED_HEADERS
                )
                why = (
                    "credentials and these headers are set by the engine"
                    if credential
                    else "no such parameter"
                )
                self.notes.append(f"step {step['stepId']}: parameter {name!r} left out ({why})")
                continue
            value = item.get("value", f"$inputs.{name}")
            kept.append({"name": spec.target[2], "in": spec.target[1], "value": value})
            seen.add(spec.target)
            self.need(value, spec)
        for spec in params:
            if spec.required and spec.target not in seen:
                kept.append({"name": spec.target[2], "in": spec.target[1], "value": f"$inputs.{spec.name}"})
                self.need(f"$inputs.{spec.name}", spec)
                self.notes.append(f"step {step['stepId']}: required parameter {spec.target[2]!r} added")
        if kept:
            step["parameters"] = kept
        else:
            step.pop("parameters", None)

    def _body(self, step: dict[str, Any], plan: OperationPlan) -> None:
        body = step.get("requestBody")
        if plan.body is None:
            return
        if isinstance(body, dict) and "payload" in body:
            body.setdefault("contentType", plan.content_type)
            payload: Any = body["payload"]
            for spec in plan.inputs:
                part = (
                    payload.get(spec.target[1])
                    if isinstance(payload, dict) and len(spec.target) == 2
                    else None
                )
                self.need(payload if spec.target == ("body",) else part, spec)
            return
        if not plan.operation.request_body or plan.operation.request_body.get("required") is not True:
            return
        specs = [s for s in plan.inputs if s.target[0] == "body"]
        if plan.body == "whole":
            payload = f"$inputs.{specs[0].name}"
        else:
            payload = {s.target[1]: f"$inputs.{s.name}" for s in specs}
        for spec in specs:
            self.need(f"$inputs.{spec.name}", spec)
        step["requestBody"] = {"contentType": plan.content_type, "payload": payload}
        self.notes.append(f"step {step['stepId']}: the required request body added from inputs")

    def need(self, value: Any, spec: InputSpec) -> None:
        found = _INPUT.fullmatch(value) if isinstance(value, str) else None
        if found is not None:
            self.needed.setdefault(found.group(1), spec)

    def follow_renamed_steps(self, workflow: dict[str, Any]) -> None:
        for old, new in self.renamed.items():
            pattern = re.compile(r"\$steps\." + re.escape(old) + r"(?=\.)")
            _rewrite(workflow, lambda text, p=pattern, n=new: p.sub(f"$steps.{n}", text))
            self.notes.append(f"stepId {old!r} -> {new!r}")

    def follow_renamed_outputs(self, workflow: dict[str, Any]) -> None:
        """`$steps.s.outputs.<old name>` -> the fitted name (the longest old names first)."""
        for written, renamed in self.outputs_renamed.items():
            step_id = self.renamed.get(written, written)
            for old in sorted(renamed, key=len, reverse=True):
                pattern = re.compile(
                    r"\$steps\."
                    + re.escape(step_id)
                    + r"\.outputs\."
                    + re.escape(old)
                    + r"(?![A-Za-z0-9_.-])"
                )
                new = f"$steps.{step_id}.outputs.{renamed[old]}"
                _rewrite(workflow, lambda text, p=pattern, n=new: p.sub(n, text))

    def add_read_outputs(self, workflow: dict[str, Any]) -> None:
        """An output read as `$steps.s.outputs.x` that step s does not declare, but whose operation
        answers `x` (a top-level member of its documented response), is declared."""
        steps = {step["stepId"]: step for step in workflow["steps"]}
        reads = re.compile(r"\$steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_.-]+)")
        for text in _strings(workflow):
            for step_id, name in reads.findall(text):
                name = name.split("#")[0]
                plan, step = self.plans.get(step_id), steps.get(step_id)
                if plan is None or step is None or name not in plan.outputs:
                    continue
                outputs = step.setdefault("outputs", {})
                if isinstance(outputs, dict) and name not in outputs:
                    outputs[name] = plan.outputs[name]
                    self.notes.append(f"step {step_id}: output {name!r} declared ({plan.outputs[name]})")

    def declare_inputs(self, workflow: dict[str, Any]) -> None:
        """Declare every input read; each named as the document names it."""
        schema = workflow.get("inputs")
        if not (isinstance(schema, dict) and isinstance(schema.get("properties", {}), dict)):
            if schema is not None:
                self.notes.append("inputs that are not an object schema replaced")
            schema = {}
        properties = dict(schema.get("properties") or {})
        required = [n for n in schema.get("required") or () if isinstance(n, str)]
        read = sorted({name for text in _strings(workflow) for name in _INPUT.findall(text)})
        for name in read:
            if name not in properties:
                self.notes.append(f"input {name!r} declared")
                properties[name] = {}
            spec = self.needed.get(name)
            if spec is not None:
                properties[name] = spec.schema
                if spec.required and name not in required:
                    required.append(name)
        renames = {}
        for name in list(properties):
            known = self.needed.get(name)
            given, container = (known.given, known.container) if known else ([], False)
            target = known.target if known else ("model",)
            spec = InputSpec(known.name if known else name, properties[name], name in required, target, given,
                             container)  # fmt: skip
            claimed = self.draft.inputs.claim(spec, self.workflow_id)
            if claimed != name:
                renames[name] = claimed
        for old, new in renames.items():
            pattern = re.compile(r"\$inputs\." + re.escape(old) + r"(?![A-Za-z0-9_-])")
            _rewrite(workflow, lambda text, p=pattern, n=new: p.sub(f"$inputs.{n}", text))
            self.notes.append(f"input {old!r} named {new!r}, as the document names that input")
        properties = {renames.get(k, k): v for k, v in properties.items()}
        required = [renames.get(n, n) for n in required if renames.get(n, n) in properties]
        if not properties:
            workflow.pop("inputs", None)
            return
        inputs = {"type": "object", **({"required": required} if required else {}), "properties": properties}
        ordered: dict[str, Any] = {}
        for key, value in workflow.items():
            if key == "steps":
                ordered["inputs"] = inputs
            if key != "inputs":
                ordered[key] = value
        workflow.clear()
        workflow.update(ordered)


def _strings(node: Any) -> list[str]:
    found: list[str] = []
    pending = [node]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            pending.extend(v for k, v in item.items() if k != "inputs")
        elif isinstance(item, list):
            pending.extend(item)
    return found


def _rewrite(node: Any, change: Any) -> None:
    """Apply `change` to every string value under `node` (not to the inputs schema)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "inputs":
                continue
            if isinstance(value, str):
                node[key] = change(value)
            else:
                _rewrite(value, change)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            if isinstance(value, str):
                node[index] = change(value)
            else:
                _rewrite(value, change)
