"""Values derived from a secret: what a criterion message or an output may not show (docs/security.md).

Masking finds a secret by the forms it knows (`secrets.variants`). A document can compute other forms:
XPath's `upper-case`, `substring` or `string-to-codepoints`, goessner JSONPath's `sub()`, an `error()`
whose description it builds. So the rule is that a value the engine computes from a secret is secret.

A value *reads a secret* when
- it holds one of the run's secrets in one of its forms (`Masker.touches`), or
- it is read, by name, where credentials travel: the `Authorization`, `Proxy-Authorization`, `Cookie`,
  `Set-Cookie` and apiKey headers of `$request`/`$response`, the apiKey query parameters of `$request`,
  or `$url` when it carries one, or
- it is an output already marked derived from a secret (`$steps.s.outputs.o`, `$outputs.o`,
  `$workflows.w.outputs.o`, `$workflows.w.steps.s.outputs.o`).

A value read whole that holds secret members (`$inputs` with a numeric `format: password` input in it,
`$steps.s.outputs`) does not read a secret as a whole: its secret members (`members`, paths by
`masking/members.py`) are masked where it is shown, the other members shown as they are; an output
made so keeps them (`Outputs.members`), a request built from it is printed with them as `***`.

Only what computes needs the by-value rule (XPath, goessner JSONPath): a value shown as it was read holds
a secret in a form masking knows, and is masked where it is shown. So: a failing criterion that read a
secret by name, or that computes over a value holding one, prints none of the values it read or computed
(`simple` conditions: the parts that read one); an output that reads one by name, or that a computing
Selector Object takes from a value holding one, is marked secret: shown as `***` by every writer, its
strings joining the run's secrets so that a later request carrying it is masked too.

A value derived from a credential the engine added also stays with that credential's origins
(`http/outbound.py`): `credentials` names the bound credentials it derives from (those its computing
selectors read, in a form the guard knows, and those of the outputs it reads by name), an output
derived from them keeps them (`Outputs.bound`), and a request carrying a derived value is checked
against them before it is sent: pieces of a token (`string-to-codepoints`, `reverse`) cannot be found by
value, so they are followed by construction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..expressions import Missing, ast
from ..expressions.values import (
    CompiledValue,
    ExpressionValue,
    ListValue,
    MappingValue,
    SelectorValue,
    TemplateValue,
)
from .members import NO_PATHS, masked_at, secret_read
from .secrets import MIN_LENGTH, SHOWN_MASK, Masker

MAX_ADOPTED = 256  # strings of one derived output that join the run's secrets


class Taint:
    """The run's rule for "reads a secret", over its live secret set (the apiKey names of the sources of
    `workspace` the run has loaded)."""

    def __init__(self, secrets: set[str], workspace: Any = None) -> None:
        self.secrets = secrets
        self._workspace = workspace
        self._masker: Masker | None = None
        self.guard: Any = None  # the run's OutboundGuard (`http/outbound.py`), once it sends HTTP

    @property
    def masker(self) -> Masker:
        if self._masker is None:  # apiKey names of the sources the run has loaded, as it loads them
            self._masker = Masker.over(self.secrets, self._workspace)
        return self._masker

    def reads_secret(self, expression: ast.Expression, ctx: Any, value: Any, by_value: bool = True) -> bool:
        """Whether `expression`, which resolved to `value`, read a secret: by name (a secret, or an
        object holding secret members), or (`by_value`) by holding one. Only what computes needs the
        second: a value shown as read is masked by value. Nothing was read when the value is missing (a
        criterion may then say why)."""
        if isinstance(value, Missing):
            return False
        return self.reads_by_name(expression, ctx) or (by_value and self.masker.touches(value))

    def reads_by_name(self, expression: ast.Expression, ctx: Any) -> bool:
        """`by_name`, or an object read whole that holds secret members (`members`): what a criterion
        that read it may not print."""
        if type(expression) in _HELD:
            whole, inside = _held(expression, ctx)
            return whole or bool(inside)
        return self.by_name(expression, ctx)

    def by_name(self, expression: ast.Expression, ctx: Any) -> bool:
        kind = type(expression)
        if kind in _HELD:
            return _held(expression, ctx)[0]
        if kind is ast.RequestRef and _derived_part(ctx.request, expression):
            return True  # a part of the request that carried a value derived from a secret
        if isinstance(expression, ast.MessageSourceRef) and expression.name is not None:
            masker = self.masker
            if expression.part == "header":
                return expression.name.lower() in masker.header_names
            return expression.part == "query" and expression.name in masker.query_names
        if kind is ast.UrlRef and isinstance(ctx.url, str):
            derived = getattr(ctx.request, "derived", None)
            if derived and any(part in ("path", "query") for part, _ in derived):
                return True
            return self.masker.url(ctx.url) != ctx.url
        return False

    def members(self, expression: ast.Expression, ctx: Any) -> tuple:
        """The secret members inside what `expression` reads (paths, `masking/members.py`), when it reads
        a whole object that holds some (`$inputs`, `$inputs.creds`, `$steps.s.outputs`) without being
        secret whole itself; () for every other read."""
        return _held(expression, ctx)[1] if type(expression) in _HELD else NO_PATHS

    def marks(self, compiled: CompiledValue, ctx: Any) -> tuple[bool, tuple]:
        """(`output`, `output_members`) of a value, in one pass for the usual one expression."""
        if type(compiled) is ExpressionValue:
            expression = compiled.expression
            if type(expression) in _HELD:
                return _held(expression, ctx)
            return self.by_name(expression, ctx), NO_PATHS
        if self.output(compiled, ctx):
            return True, NO_PATHS
        return False, self.output_members(compiled, ctx)

    def shown_context(self, ctx: Any) -> Any:
        """`ctx` for building the printed form of a request: every value an expression or a Selector
        Object resolves to that is derived from a secret (`by_name`; a computing selector over a value
        holding one) comes back with each leaf as `SHOWN_MASK`, whatever its type or length, so the
        request built from it shows `***` exactly where such a value went."""

        def hook(source: Any, value: Any) -> Any:
            if isinstance(value, Missing):
                return value
            if isinstance(source, SelectorValue):
                derived = self.by_name(source.context, ctx) or self._selects_from_secret(source, ctx)
            else:
                derived = self.by_name(source, ctx)
                if not derived:  # a whole object holding secret members: those members masked
                    members = self.members(source, ctx)
                    return masked_at(value, members, SHOWN_MASK) if members else value
            return masked_leaves(value) if derived else value

        shown = object.__new__(type(ctx))
        shown.__dict__.update(ctx.__dict__, shown=hook)
        return shown

    def output(self, compiled: CompiledValue, ctx: Any) -> bool:
        """Whether an output is derived from a secret: computed by a Selector Object (XPath, goessner
        JSONPath) from a value that holds one, or reading one by name (an expression, a template or a
        selecting Selector Object takes values as they are, which masking by value already covers)."""
        if type(compiled) is ExpressionValue:  # the usual output, one expression: no walk to set up
            return self.by_name(compiled.expression, ctx)
        pending = [compiled]
        while pending:
            value = pending.pop()
            kind = type(value)
            if kind is ExpressionValue:
                if self.by_name(value.expression, ctx):
                    return True
            elif kind is TemplateValue:  # text made from an object holding a secret member: all of it
                if any(self.by_name(e, ctx) or self.members(e, ctx) for e in value.expressions()):
                    return True
            elif kind is SelectorValue:  # what it selects from such an object: secret, wherever it is
                context = value.context
                if self.by_name(context, ctx) or self.members(context, ctx):
                    return True
                if self._selects_from_secret(value, ctx):
                    return True
            elif kind is MappingValue:
                pending.extend(member for _, member in value.items)
            elif kind is ListValue:
                pending.extend(value.members)
        return False

    def output_members(self, compiled: CompiledValue, ctx: Any) -> tuple:
        """The secret members inside a value that is not secret whole (`output` said no): where its
        expressions read an object holding secret members (`members`), as paths in the value it
        makes (under a mapping's keys and a list's indexes); () when there are none."""
        if type(compiled) is ExpressionValue:  # the usual value, one expression
            return self.members(compiled.expression, ctx)
        found: list[tuple] = []
        pending: list[tuple[tuple, CompiledValue]] = [((), compiled)]
        while pending:
            at, value = pending.pop()
            kind = type(value)
            if kind is ExpressionValue:
                found.extend((*at, *path) for path in self.members(value.expression, ctx))
            elif kind is MappingValue:
                pending.extend(((*at, key), member) for key, member in value.items)
            elif kind is ListValue:
                pending.extend(((*at, index), member) for index, member in enumerate(value.members))
        return tuple(found)

    def shows_secret(self, compiled: CompiledValue, ctx: Any) -> bool:
        """Whether the printed form of a value differs from it: derived from a secret (`output`), or
        holding secret members (`output_members`). A request built from one has a printed form."""
        whole, inside = self.marks(compiled, ctx)
        return whole or bool(inside)

    def credentials(self, compiled: CompiledValue, ctx: Any) -> tuple[Any, ...]:
        """The bound credentials (`outbound.Bound`) a value derives from: those a computing selector's
        context holds in a form the guard knows, and those of the derived outputs it reads by name.
        Empty while the run has bound none."""
        guard = self.guard
        if guard is None or not guard.bound:
            return ()
        found: dict[int, Any] = {}
        pending = [compiled]
        while pending:
            value = pending.pop()
            kind = type(value)
            if kind is ExpressionValue or kind is TemplateValue:
                for expression in value.expressions():
                    found.update((id(b), b) for b in self._bound_by_name(expression, ctx))
            elif kind is SelectorValue:
                found.update((id(b), b) for b in self._bound_by_name(value.context, ctx))
                if self._computes(value):
                    from ..expressions import resolve

                    read = resolve(value.context, ctx)
                    if not isinstance(read, Missing):
                        found.update((id(b), b) for b in guard.held_in(read))
            elif kind is MappingValue:
                pending.extend(member for _, member in value.items)
            elif kind is ListValue:
                pending.extend(value.members)
        return tuple(found.values())

    def _bound_by_name(self, expression: ast.Expression, ctx: Any) -> tuple[Any, ...]:
        """The bound credentials of the derived output an expression reads by name (`Outputs.bound`)."""
        kind = type(expression)
        holder: Any = None
        if kind is ast.StepOutputRef:
            holder = _get(ctx.steps, expression.step_id)
        elif kind is ast.OutputsRef:
            holder = ctx.outputs
        elif kind is ast.WorkflowRef and expression.field == "outputs":
            holder = _get(_get(ctx.workflows, expression.workflow_id), "outputs")
        elif kind is ast.WorkflowStepOutputRef:
            holder = _get(_get(_get(ctx.workflows, expression.workflow_id), "steps"), expression.step_id)
        bound = getattr(holder, "bound", None)
        if not bound:
            return ()
        name = expression.name
        return tuple(
            b
            for marked, found in bound.items()
            if name == marked or name.startswith(marked + ".")
            for b in found
        )

    def adopt(self, value: Any) -> None:
        """The strings of a value derived from a secret join the run's secrets (at most MAX_ADOPTED of
        them, each of MIN_LENGTH characters or more)."""
        found: list[str] = []
        pending = [value]
        while pending and len(found) < MAX_ADOPTED:
            item = pending.pop()
            if isinstance(item, str):
                if len(item) >= MIN_LENGTH:
                    found.append(item)
            elif isinstance(item, Mapping):
                pending.extend(item.values())
            elif isinstance(item, (list, tuple)):
                pending.extend(item)
        self.secrets.update(found)

    @staticmethod
    def _computes(selector: SelectorValue) -> bool:
        """Whether a selector computes new values (XPath, goessner JSONPath) rather than select them."""
        from ..query.goessner import GOESSNER  # imported with the selector's engine already

        query = selector.query
        return query.type == "xpath" or query.version == GOESSNER

    def _selects_from_secret(self, selector: SelectorValue, ctx: Any) -> bool:
        """A selector that computes (XPath, goessner JSONPath) over a value holding a secret."""
        from ..expressions import resolve

        if not self._computes(selector):
            return False  # JSON pointer and RFC 9535 select values as they are: masking covers them
        value = resolve(selector.context, ctx)
        return not isinstance(value, Missing) and self.masker.touches(value)


def masked_leaves(value: Any) -> Any:
    """`value` with every leaf (string, number, boolean, null) as `SHOWN_MASK`; containers kept."""
    if isinstance(value, Mapping):
        return {key: masked_leaves(member) for key, member in value.items()}
    if isinstance(value, (list, tuple)):
        return [masked_leaves(member) for member in value]
    return value if isinstance(value, Missing) else SHOWN_MASK


def _derived_part(view: Any, expression: Any) -> bool:
    """Whether `$request.<part>` names a part the engine marked as carrying a derived value."""
    derived = getattr(view, "derived", None)
    if not derived:
        return False
    if expression.part == "body":
        return ("body", "") in derived
    name = expression.name or ""
    return (expression.part, name.casefold() if expression.part == "header" else name) in derived


_HELD = frozenset(
    {ast.InputsRef, ast.OutputsRef, ast.StepOutputRef, ast.WorkflowRef, ast.WorkflowStepOutputRef}
)


def _held(expression: Any, ctx: Any) -> tuple[bool, tuple]:
    """(read secret whole, the secret members inside what it reads) for an expression of `_HELD`."""
    kind = type(expression)  # the inputs or outputs it reads in (written out: once per value a row)
    if kind is ast.InputsRef:
        holder = ctx.inputs
    elif kind is ast.StepOutputRef:
        holder = _get(ctx.steps, expression.step_id)
    elif kind is ast.OutputsRef:
        holder = ctx.outputs
    elif kind is ast.WorkflowRef:
        holder = _get(_get(ctx.workflows, expression.workflow_id), expression.field)
    else:
        holder = _get(_get(_get(ctx.workflows, expression.workflow_id), "steps"), expression.step_id)
    if holder is None:
        return False, NO_PATHS
    if expression.name and not (
        expression.pointer or expression.accessors or getattr(holder, "members", None)
    ):
        return _marked(holder, expression.name), NO_PATHS  # the usual read: a name, nothing marked inside
    return secret_read(holder, expression.name, expression.pointer, expression.accessors)


def _get(holder: Any, key: str) -> Any:
    return holder.get(key) if isinstance(holder, Mapping) else None


def _marked(outputs: Any, name: str) -> bool:
    """Whether output `name` (or the output a dotted `name` starts with) is marked secret."""
    marked = getattr(outputs, "secret", None)
    if not marked:
        return False
    return name in marked or any(name.startswith(m + ".") for m in marked)
