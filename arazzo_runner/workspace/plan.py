"""Compile a workflow once: parse every expression, resolve reusable objects, merge inherited lists.

The executor only evaluates what is compiled here, so a document's expressions are parsed once per
load however many times it runs.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..criteria import compile_criterion
from ..errors import ArazzoError, ExpressionError
from ..expressions import CompiledValue, compile_value, parse_expression
from ..expressions.values import LiteralOutput, literal_output_problem, output_is_misspelt
from ..loader.pointer import format_pointer
from ..model import Action, Criterion, Document, ParameterDef, Pointer, Reusable, Step, Workflow
from ..records import Record, field
from .inputs import declared_input
from .order import extension_pieces, plan_order, step_reads


class CompileError(ArazzoError):
    """A document problem found while compiling; `at` locates it for a DocumentError."""

    def __init__(self, at: Pointer, message: str) -> None:
        super().__init__(message)
        self.at = at
        self.message = message


class CompiledCriterion(Record):
    text: str
    check: Any  # criteria.CompiledCriterion
    at: Pointer

    def __init__(self, text: str, check: Any, at: Pointer) -> None:  # per step: written out (records.py)
        self.text, self.check, self.at = text, check, at


class CompiledParam(Record):
    name: str
    in_: str | None
    value: CompiledValue
    at: Pointer
    input: str | None = field(init=False)  # the declared input its value is (`inputs.declared_input`)

    def __init__(self, name: str, in_: str | None, value: CompiledValue, at: Pointer) -> None:
        self.name, self.in_, self.value, self.at, self.input = name, in_, value, at, None  # per step


class CompiledAction(Record):
    name: str
    kind: str
    type: str
    step_id: str | None
    workflow_id: str | None
    criteria: list[CompiledCriterion]
    params: list[CompiledParam]
    retry_after: float | None
    retry_limit: int
    at: Pointer


class CompiledReplacement(Record):
    target: str
    target_type: Any
    value: CompiledValue
    at: Pointer


class CompiledBody(Record):
    content_type: str | None
    payload: CompiledValue | None
    replacements: list[CompiledReplacement]


class CompiledStep(Record):
    step: Step
    params: list[CompiledParam]
    body: CompiledBody | None
    criteria: list[CompiledCriterion]
    on_success: list[CompiledAction]
    on_failure: list[CompiledAction]
    outputs: dict[str, CompiledValue]
    correlation: CompiledValue | None = None  # an AsyncAPI receive step's `correlationId`
    x_security: tuple = ()  # Respect's x-security entries, the workflow's then the step's (x_operation.py)
    undeclared: tuple = ()  # (name, hint): `$inputs.x` its request reads that the inputs schema lacks
    for_each: Any = None  # `x-forEach` of a workflow step (`for_each.CompiledForEach`), else None
    step_id: str = field(init=False)  # read several times per step: a plain attribute
    # the steps of this workflow it depends on (`dependsOn`, and the steps it reads: `order.py`), those
    # of them its `dependsOn` lists (they must have passed; a step it only reads must have run), and the
    # `dependsOn` entries naming steps of other workflows; set with the workflow's order
    needs: tuple[str, ...] = field(init=False)
    must_pass: tuple[str, ...] = field(init=False)
    needs_elsewhere: tuple[str, ...] = field(init=False)
    _beside: bool | None = field(init=False)  # `beside`, once asked
    reads: list[str] = field(init=False)  # the step ids its own expressions read (`order.step_reads`)

    def __init__(  # one per step: written out (records.py)
        self,
        step: Step,
        params: list[CompiledParam],
        body: CompiledBody | None,
        criteria: list[CompiledCriterion],
        on_success: list[CompiledAction],
        on_failure: list[CompiledAction],
        outputs: dict[str, CompiledValue],
        correlation: CompiledValue | None = None,
        x_security: tuple = (),
        undeclared: tuple = (),
        for_each: Any = None,
    ) -> None:
        self.step, self.params, self.body, self.criteria = step, params, body, criteria
        self.on_success, self.on_failure, self.outputs = on_success, on_failure, outputs
        self.correlation, self.x_security, self.step_id = correlation, x_security, step.step_id
        self.undeclared, self.for_each = undeclared, for_each
        self.needs, self.must_pass, self.needs_elsewhere, self._beside = (), (), (), None
        self.reads = []

    @property
    def beside(self) -> bool:
        """Whether it may run side by side with other steps (`order.runs_beside_others`): asked only by a
        run with `--parallel`, so found on first use."""
        if self._beside is None:
            from .order import runs_beside_others

            self._beside = runs_beside_others(self)
        return self._beside


class CompiledWorkflow(Record):
    workflow: Workflow
    steps: list[CompiledStep]  # in array order
    outputs: dict[str, CompiledValue]
    index: dict[str, int] = field(default_factory=dict)  # stepId -> its index in `steps`
    order: list[CompiledStep] = field(default_factory=list)  # the order a run takes them (`order.py`)
    position: dict[str, int] = field(default_factory=dict)  # stepId -> its index in `order`

    @property
    def concurrent(self) -> bool:
        """Whether a run with `--parallel` runs steps of it side by side: two steps next to each other in
        the order may, or a step loops over items (`x-forEach`)."""
        pairs = itertools.pairwise(self.order)
        return any(a.beside and b.beside for a, b in pairs) or any(s.for_each for s in self.steps)

    @property
    def workflow_id(self) -> str:
        return self.workflow.workflow_id

    @property
    def messaging(self) -> tuple[CompiledStep, ...]:
        """Its AsyncAPI steps, in array order: what the scheduler readies before the first step, asked
        at every run of the workflow (found once: the plan does not change)."""
        found: tuple[CompiledStep, ...] | None = self.__dict__.get("_messaging")
        if found is None:
            found = tuple(c for c in self.steps if c.step.target_kind == "asyncapi")
            self.__dict__["_messaging"] = found
        return found


def compile_workflow(document: Document, workflow: Workflow) -> CompiledWorkflow:
    compiler = _Compiler(document, workflow)
    steps = [compiler.step(s) for s in workflow.steps]
    outputs = compiler.outputs(workflow.outputs, (*workflow.at, "outputs"))
    index = {s.step_id: i for i, s in enumerate(steps)}
    order = plan_order(workflow, steps, index, CompileError)
    position = {s.step_id: i for i, s in reversed(list(enumerate(order)))}
    return CompiledWorkflow(workflow, steps, outputs, index, order, position)


class _Compiler:
    def __init__(self, document: Document, workflow: Workflow) -> None:
        self.document = document
        self.workflow = workflow
        self.selectors = document.is_1_1
        self._listed: set[str] | None = None  # the names the workflow's inputs schema lists
        self._workflow_params: Any = None  # the workflow's parameters as written
        self._all_listed = False  # whether every `$inputs.x` of the workflow reads a listed name
        # the values and criteria of the step being compiled, of its own (not what it inherits), whose
        # text may read a step (`order.may_read`): what its implicit dependencies are found in
        self._reading: list[Any] | None = None

    def value(self, raw: Any, at: Pointer) -> CompiledValue:
        try:
            compiled = compile_value(raw, selectors=self.selectors, strict=True)
        except ExpressionError as exc:
            where = (*at, *getattr(exc, "path", ()))
            raise CompileError(where, f"invalid runtime expression: {exc}") from None
        reading = self._reading
        if reading is not None:  # `order.may_read`, written out: this runs for every value of a plan
            kind = type(raw)
            if kind is str:
                if "$steps." in raw or "$workflows." in raw:
                    reading.append(compiled)
            elif kind is dict or kind is list:
                reading.append(compiled)
        return compiled

    def criterion(self, criterion: Criterion) -> CompiledCriterion:
        try:
            check = compile_criterion(criterion.condition, criterion.type, criterion.context)
        except ExpressionError as exc:
            raise CompileError(criterion.at, f"invalid criterion: {exc}") from None
        if self._reading is not None:
            text = criterion.condition + (criterion.context or "")
            if "$steps." in text or "$workflows." in text:
                self._reading.append(check)
        return CompiledCriterion(criterion.condition, check, criterion.at)

    def outputs(self, outputs: dict[str, Any], at: Pointer) -> dict[str, CompiledValue]:
        """Outputs are expressions: a misspelt one (`$respons.body`) is refused, never returned as its
        text; other literal text (`Done`) is returned as written, with the run's warning."""
        compiled: dict[str, CompiledValue] = {}
        for name, raw in outputs.items():
            value = compiled[name] = self.value(raw, (*at, name))
            if value.is_constant:
                if output_is_misspelt(raw):
                    raise CompileError((*at, name), literal_output_problem(name, raw, self.selectors))
                note = literal_output_problem(name, raw, self.selectors, returned=True)
                compiled[name] = LiteralOutput(raw, note)
        return compiled

    def step(self, step: Step) -> CompiledStep:
        reading: list[Any] = []
        self._reading = reading  # (an error ends the compilation: nothing to restore then)
        compiled = self._step(step)
        self._reading = None
        compiled.reads = step_reads([*reading, *extension_pieces(compiled)], self.workflow.workflow_id)
        return compiled

    def _step(self, step: Step) -> CompiledStep:
        body = None
        if step.request_body is not None:
            rb = step.request_body
            payload = self.value(rb.payload, (*rb.at, "payload")) if rb.has_payload else None
            replacements = [
                CompiledReplacement(r.target, r.target_type, self.value(r.value, (*r.at, "value")), r.at)
                for r in rb.replacements
            ]
            body = CompiledBody(rb.content_type, payload, replacements)
        params = self.step_params(step)
        return CompiledStep(
            step=step,
            params=params,
            body=body,
            criteria=[self.criterion(c) for c in step.success_criteria],
            on_success=self.actions(step.on_success, self.workflow.success_actions, "success"),
            on_failure=self.actions(step.on_failure, self.workflow.failure_actions, "failure"),
            outputs=self.outputs(step.outputs, (*step.at, "outputs")),
            correlation=None
            if step.correlation_id is None
            else self.value(step.correlation_id, (*step.at, "correlationId")),
            x_security=self.x_security(step),
            undeclared=self.undeclared_reads(step),
            for_each=self.for_each(step, params),
        )

    def for_each(self, step: Step, params: list[CompiledParam]) -> Any:
        """The step's `x-forEach` (`for_each.py`), or None; only then imported."""
        if "x-forEach" not in step.extensions:
            return None
        from .for_each import compile_for_each

        return compile_for_each(step, params, self.value, CompileError)

    def undeclared_reads(self, step: Step) -> tuple[tuple[str, str], ...]:
        """The `$inputs.x` names the step's request (its and the workflow's parameters, its body) reads
        that the workflow's inputs schema does not list."""
        from ..workspace.inputs import inputs_read, listed_names, undeclared_reads

        raw = self.document.raw
        if self._listed is None:  # the workflow's: once, not once per step
            self._listed = listed = listed_names(self.workflow.inputs, raw)
            self._workflow_params = _raw_at(raw, (*self.workflow.at, "parameters"))
            # every name read anywhere in the workflow is listed (the usual case): no step has one
            declared = {*listed, *(name.split(".", 1)[0] for name in listed)}
            self._all_listed = inputs_read(_raw_at(raw, self.workflow.at, whole=True)) <= declared
        if not self._listed or self._all_listed:  # none listed (any input is taken), or none unlisted
            return ()
        data = [_raw_at(raw, step.at), self._workflow_params]
        return undeclared_reads(data, self.workflow.inputs, raw, self._listed)

    def x_security(self, step: Step) -> tuple:
        """Respect's x-security entries that apply to the step (`http/x_security.py`), imported only then
        (the step's own are among its reads: `step`)."""
        if "x-security" not in step.extensions and "x-security" not in self.workflow.extensions:
            return ()
        from ..http.x_security import compile_x_security

        reading, self._reading = self._reading, None  # the step's own entries are read in `step`
        compiled = compile_x_security(self.workflow, step, self.value, CompileError)
        self._reading = reading  # (an error ends the compilation: nothing to restore then)
        return compiled

    # -- parameters ----------------------------------------------------------------------------------

    def step_params(self, step: Step) -> list[CompiledParam]:
        """Workflow-level parameters, overridden (never removed) by the step's own, keyed by name+in."""
        for_workflow = step.workflow_id is not None
        merged: dict[tuple[str, str | None], CompiledParam] = {}
        reading, self._reading = self._reading, None  # the workflow's: they order no step
        for raw in self.workflow.parameters:
            param = self.param(raw)
            if (param.in_ is None) == for_workflow:  # `in` params target operations; bare ones, workflows
                merged[_param_key(param)] = param
        self._reading = reading
        for raw in step.parameters:
            param = self.param(raw)
            merged[_param_key(param)] = param
        return list(merged.values())

    def param(self, raw: ParameterDef | Reusable) -> CompiledParam:
        if isinstance(raw, Reusable):
            target = self.component(raw, "parameters")
            value = raw.value if raw.has_value else target.value
            param = CompiledParam(target.name, target.in_, self.value(value, raw.at), raw.at)
        else:
            param = CompiledParam(raw.name, raw.in_, self.value(raw.value, (*raw.at, "value")), raw.at)
        param.input = declared_input(param.value, self.workflow, self.document.raw)
        return param

    def component(self, raw: Reusable, kind: str) -> Any:
        if not raw.reference:
            raise CompileError(
                (*raw.at, "reference"), f"'reference' is empty; expected $components.{kind}.<name>"
            )
        try:
            expr = parse_expression(raw.reference)
        except ExpressionError as exc:
            raise CompileError((*raw.at, "reference"), f"invalid reference: {exc}") from None
        ref_kind, name = getattr(expr, "kind", None), getattr(expr, "name", None)
        if ref_kind != kind or name is None:
            raise CompileError(
                (*raw.at, "reference"), f"'{raw.reference}' must reference $components.{kind}.<name>"
            )
        found = self.document.components.by_kind(kind).get(name)
        if found is None:
            raise CompileError(
                (*raw.at, "reference"), f"'{raw.reference}' does not exist in components.{kind}"
            )
        if isinstance(found, Reusable):  # `components.parameters.p: {reference: ...}`
            raise CompileError(
                (*found.at, "reference"), f"components.{kind}.{name} must be a {kind[:-1]}, not a reference"
            )
        return found

    # -- actions -------------------------------------------------------------------------------------

    def actions(
        self, own: list[Action | Reusable], inherited: list[Action | Reusable], kind: str
    ) -> list[CompiledAction]:
        """The step's actions first, then the workflow's, a step action overriding one of the same name."""
        kind_key = "successActions" if kind == "success" else "failureActions"
        step_actions = [self.action(a, kind_key) for a in own]
        names = {a.name for a in step_actions}
        if not inherited:
            return step_actions
        reading, self._reading = self._reading, None  # the workflow's: they order no step
        workflow_actions = [self.action(x, kind_key) for x in inherited]
        self._reading = reading
        return step_actions + [a for a in workflow_actions if a.name not in names]

    def action(self, raw: Action | Reusable, kind_key: str) -> CompiledAction:
        action = self.component(raw, kind_key) if isinstance(raw, Reusable) else raw
        self.check_target(action, raw.at)
        retry_limit = action.retry_limit if action.retry_limit is not None else 1  # spec: a single retry
        return CompiledAction(
            name=action.name,
            kind=action.kind,
            type=action.type,
            step_id=action.step_id,
            workflow_id=action.workflow_id,
            criteria=[self.criterion(c) for c in action.criteria],
            params=[self.param(p) for p in action.parameters],
            retry_after=action.retry_after,
            retry_limit=retry_limit,
            at=action.at,
        )

    def check_target(self, action: Action, at: Pointer) -> None:
        """goto needs one target, retry at most one; a stepId must be a step of this workflow. `at` is
        where the action is used (a component action is checked in each workflow that uses it)."""
        name = action.name
        if action.step_id and action.workflow_id:
            raise CompileError(at, f"action '{name}' names both a stepId and a workflowId; use one")
        if action.type == "goto" and not (action.step_id or action.workflow_id):
            raise CompileError(at, f"goto action '{name}' needs a stepId or a workflowId")
        if action.step_id and self.workflow.step(action.step_id) is None:
            raise CompileError(
                (*at, "stepId") if at == action.at else at,
                f"action '{name}' names step '{action.step_id}', which is not a step of workflow "
                f"'{self.workflow.workflow_id}'",
            )


def _raw_at(raw: Any, at: Pointer, *, whole: bool = False) -> Any:
    """The request values of the node at `at` as written: a step's parameters and body (not its outputs
    or criteria, read after the answer), or a list of parameters; with `whole`, the node itself."""
    from ..loader.pointer import resolve_pointer

    node = resolve_pointer(raw, [str(token) for token in at])
    if whole:
        return node
    if isinstance(node, dict):
        return [node.get("parameters"), node.get("requestBody")]
    return node if isinstance(node, list) else None


def _param_key(param: CompiledParam) -> tuple[str, str | None]:
    return (param.name.lower() if param.in_ == "header" else param.name, param.in_)


def describe_at(at: Pointer) -> str:
    return format_pointer(at)
