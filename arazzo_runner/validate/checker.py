"""The state shared by the rules of one validation: the document, where findings go, and small helpers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import ExpressionError
from ..expressions import ComponentRef, parse_expression
from ..loader import LoadedDocument
from ..loader.pointer import format_pointer, resolve_pointer
from ..model import Action, Document, ParameterDef, Pointer, Reusable, Workflow
from .catalogue import RULES
from .findings import Edit, Finding


class Checker:
    """Collects findings for one document. `report` locates a pointer through the loader's position index
    and drops exact duplicates (a component checked at each of its use sites reports once)."""

    def __init__(self, loaded: LoadedDocument, document: Document) -> None:
        self.loaded = loaded
        self.document = document
        self.findings: list[Finding] = []
        self._seen: set[tuple[str, str, str]] = set()
        self._places: set[tuple[str, str]] = set()  # (rule, path) of the findings: what `retract` finds
        self.cache: dict[Any, Any] = {}  # per-document memo shared by rules (flows, input names, ...)

    @property
    def file(self) -> str:
        return self.loaded.file

    def report(
        self,
        rule: str,
        at: Pointer | str,
        message: str,
        *,
        severity: str | None = None,
        key: bool = False,
        fix: Iterable[Edit] = (),
        blocks: bool | None = None,
    ) -> None:
        meta = RULES[rule]  # KeyError: a rule id missing from the catalogue is a bug
        path = at if isinstance(at, str) else format_pointer(at)
        identity = (rule, path, message)
        if identity in self._seen:
            return
        self._seen.add(identity)
        self._places.add((rule, path))
        positions = self.loaded.positions
        line, column = positions.locate_key(path) if key else positions.locate(path)
        severity = severity or meta.severity
        finding = Finding(rule, severity, message, self.file, path, line, column, tuple(fix), blocks)
        self.findings.append(finding)

    def retract(self, rule: str, at: Pointer | str) -> None:
        """Withdraw the findings of `rule` at `at`: a form assumed without the sources (Respect's
        `<source>.<operationId>`) that the loaded sources read otherwise. Free when there is none (it
        is asked for every step of a workflow: a scan of every finding each time was quadratic)."""
        path = at if isinstance(at, str) else format_pointer(at)
        self.retract_all({(rule, path)})

    def retract_all(self, places: set[tuple[str, str]]) -> None:
        """Withdraw the findings of each (rule, path) of `places`, in one pass over the findings."""
        places = {place for place in places if place in self._places}
        if not places:
            return
        self.findings = [f for f in self.findings if (f.rule, f.path) not in places]
        self._seen = {seen for seen in self._seen if seen[:2] not in places}
        self._places -= places

    def raw(self, at: Pointer) -> Any:
        """The node at `at` in the document's data, as written (ABSENT when there is none)."""
        return resolve_pointer(self.document.raw, [str(token) for token in at])

    # -- shared lookups --------------------------------------------------------------------------------

    def component(self, reusable: Reusable, kind: str) -> Any:
        """The component a Reusable Object names, or None (the `component-reference` rule reports why)."""
        try:
            expression = parse_expression(reusable.reference)
        except ExpressionError:
            return None
        if not isinstance(expression, ComponentRef) or expression.kind != kind:
            return None
        return self.document.components.by_kind(kind).get(expression.name)

    def parameters(self, items: Iterable[ParameterDef | Reusable]) -> list[tuple[ParameterDef, Pointer]]:
        """Parameters with Reusable Objects resolved: (the parameter, the pointer of the list item)."""
        out = []
        for item in items:
            if isinstance(item, Reusable):
                target = self.component(item, "parameters")
                if isinstance(target, ParameterDef):
                    out.append((target, item.at))
            else:
                out.append((item, item.at))
        return out

    def actions(self, items: Iterable[Action | Reusable], kind: str) -> list[tuple[Action, Pointer]]:
        """Actions with Reusable Objects resolved: (the action, the pointer of the list item)."""
        key = "successActions" if kind == "success" else "failureActions"
        out = []
        for item in items:
            if isinstance(item, Reusable):
                target = self.component(item, key)
                if isinstance(target, Action):
                    out.append((target, item.at))
            else:
                out.append((item, item.at))
        return out

    def workflow_actions(self, workflow: Workflow) -> list[tuple[Action, Pointer]]:
        return self.actions(workflow.success_actions, "success") + self.actions(
            workflow.failure_actions, "failure"
        )

    def step_choices(self, workflow: Workflow) -> Choices:
        """The stepIds of `workflow`, prepared for `did_you_mean` once per validation."""
        key = ("step-choices", id(workflow))
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = Choices(s.step_id for s in workflow.steps)
        return found

    @property
    def is_1_1(self) -> bool:
        return self.document.is_1_1


class Choices:
    """The names a misspelling is looked for among, prepared once: a workflow's stepIds, asked about for
    each of its references to a missing step (10,000 of them was 10,000 copies of 10,000 names)."""

    def __init__(self, choices: Iterable[str]) -> None:
        self.options = tuple(dict.fromkeys(choices))
        self.folded = {option.casefold(): option for option in self.options}


def did_you_mean(word: str, choices: Iterable[str] | Choices) -> str:
    """A "; did you mean 'x'?" suffix when a choice is close (case differences count as close). Among
    more than `_MANY_CHOICES` choices, only a case difference is looked for: difflib compares the word
    with every choice, and a document of 10,000 steps each naming a missing one asked it 10,000 times."""
    known = choices if isinstance(choices, Choices) else Choices(choices)
    close = known.folded.get(word.casefold())
    if close is not None and close != word:
        return f"; did you mean '{close}'?"
    if len(known.options) > _MANY_CHOICES:
        return ""
    import difflib  # only when a name is not found

    matches = difflib.get_close_matches(word, known.options, n=1, cutoff=0.7)
    return f"; did you mean '{matches[0]}'?" if matches else ""


_MANY_CHOICES = 500
