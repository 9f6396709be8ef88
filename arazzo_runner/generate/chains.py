"""Workflows that chain operations the way the description says they connect.

1. OpenAPI `links` first: they are the description's own words. A link of an operation's 2xx response
   becomes a two-step workflow; each of its parameters (and its `requestBody`) is passed by the runtime
   expression it stands for: `$response.body#/id` becomes an output of the first step read as
   `$steps.<first>.outputs.id`, `$request.path.petId` the value the first step sent (its input).
2. Then the resource structure: a collection path `/pets` and its item path `/pets/{petId}`.
   - create, read, update, delete: `POST /pets`, then `GET`, `PUT` (else `PATCH`) and `DELETE
     /pets/{petId}`, each with the id the create answered (`identifiers.py`: the response property
     named like the parameter, else `id`, else `uuid`; also one level down, in the member wrapping
     the resource: `{"pet": {...}}`, `data`...); the steps after an update that answers the id take
     the one it answered (RealWorld's slug changes with the title);
   - list then get the first: `GET /pets` answering a list (or a `data`/`items`/... member holding one),
     then `GET /pets/{petId}` with the first item's id.
   A hop that a link also describes takes the link's values ("links first").

Each chain carries a comment saying what it was inferred from; it is written above the workflow.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ArazzoError
from ..records import Record, field
from .identifiers import a_noun, first_id_pointer, id_pointer, noun_of
from .names import fit_id, fit_output, singular
from .operations import OperationPlan

_REQUEST = re.compile(r"\$request\.(path|query|header|cookie)\.(.+)")
_EMBEDDED = re.compile(r"\{(\$[^{}]+)\}")


class FromInput(Record, frozen=True):
    """The value an input of a chain's step has (the name is the document's: `build` writes it)."""

    target: tuple[str, ...]
    pointer: str = ""


class ChainStep(Record):
    plan: OperationPlan
    step_id: str
    bound: dict[tuple[str, ...], Any] = field(default_factory=dict)  # input target -> value
    extra_outputs: dict[str, str] = field(default_factory=dict)  # outputs the later steps read


class Chain(Record):
    name: str  # the workflowId wanted
    summary: str
    comment: str
    steps: list[ChainStep]
    outputs: dict[str, str] = field(default_factory=dict)  # workflow output -> `$steps...` expression


def find_chains(plans: list[OperationPlan], notes: list[str]) -> list[Chain]:
    """Every chain, once: a resource chain that is exactly a link's (a create and a read the link
    joins) is left out, the link's kept."""
    links = _Links(plans, notes)
    chains, seen = [], set()
    for chain in [*links.chains(), *_Resources(plans, links).chains()]:
        shape = tuple((id(s.plan), repr(sorted(s.bound.items(), key=repr))) for s in chain.steps)
        if shape not in seen:
            seen.add(shape)
            chains.append(chain)
    return chains


class _Links:
    """The `links` of every plan's 2xx responses, by (from plan label, to plan label)."""

    def __init__(self, plans: list[OperationPlan], notes: list[str]) -> None:
        self.plans = plans
        self.notes = notes
        self.found: dict[tuple[int, int], list[tuple[str, str, dict[str, Any]]]] = {}
        for plan in plans:
            for code, name, link in _links_of(plan):
                target = self._target(plan, link)
                if target is None:
                    where = link.get("operationId") or link.get("operationRef")
                    notes.append(f"{plan.label}: link '{name}' names {where!r}, no operation generated here")
                    continue
                self.found.setdefault((id(plan), id(target)), []).append((code, name, link))

    def _target(self, plan: OperationPlan, link: dict[str, Any]) -> OperationPlan | None:
        same = [p for p in self.plans if p.source == plan.source]
        if isinstance(link.get("operationId"), str):
            return next((p for p in same if p.operation.operation_id == link["operationId"]), None)
        ref = link.get("operationRef")
        if isinstance(ref, str) and ref.startswith("#"):
            found = plan.operation.source.operation_at(ref)
            return next((p for p in same if found is not None and p.operation.pointer == found.pointer), None)
        return None

    def chains(self) -> list[Chain]:
        chains = []
        by_id = {id(plan): plan for plan in self.plans}
        for (first_id, second_id), found in self.found.items():
            first, second = by_id[first_id], by_id[second_id]
            for code, name, link in found:
                head = ChainStep(first, fit_id(first.label, "first"))
                tail = ChainStep(second, _other_id(second, head.step_id))
                said = self.bind(head, tail, link)
                if said is None:
                    self.notes.append(f"{first.label}: link '{name}' has a value that cannot be passed on")
                    continue
                comment = f"chained by the OpenAPI link '{name}' of {first.label}'s {code} response{said}"
                summary = f"{first.label}, then {second.label} (OpenAPI link '{name}')"
                chains.append(Chain(f"{first.label}-then-{second.label}", summary, comment, [head, tail]))
        for chain in chains:
            chain.outputs = _bound_outputs(chain.steps[1:])
        return chains

    def bind(self, head: ChainStep, tail: ChainStep, link: dict[str, Any]) -> str | None:
        """Bind `tail`'s inputs to what `link` passes from `head`; a text saying what, or None."""
        said = []
        for key, value in (link.get("parameters") or {}).items():
            target = _parameter_target(tail.plan, str(key))
            if target is None:
                continue
            passed = _translate(value, head)
            if passed is None:
                return None
            tail.bound[target] = passed
            said.append(f"{target[2]} <- {value}")
        if "requestBody" in link:
            passed = _translate(link["requestBody"], head)
            if passed is None:
                return None
            tail.bound[("body",)] = passed
            said.append(f"request body <- {link['requestBody']}")
        return f": {', '.join(said)}" if said else ""


def _links_of(plan: OperationPlan) -> list[tuple[str, str, dict[str, Any]]]:
    found: list[tuple[str, str, dict[str, Any]]] = []
    try:
        responses = plan.operation.responses
    except ArazzoError:  # a broken `$ref`: the plan says so already
        return found
    for code, response in responses.items():
        if not re.fullmatch(r"2\d\d|2XX", str(code).upper()) or not isinstance(response, dict):
            continue
        links = response.get("links")
        for name, link in (links or {}).items() if isinstance(links, dict) else ():
            if isinstance(link, dict):
                found.append((str(code), str(name), link))
    return found


def _parameter_target(plan: OperationPlan, key: str) -> tuple[str, ...] | None:
    where, dot, name = key.partition(".")
    params = [spec.target for spec in plan.inputs if spec.target[0] == "param"]
    if dot and where in ("path", "query", "header", "cookie"):
        found = [t for t in params if t[1] == where and t[2] == name]
        if found:
            return found[0]
    return next((t for t in params if t[2] == key), None)


def _translate(value: Any, head: ChainStep) -> Any:
    """A link's value as an Arazzo value passed from `head`'s step: a runtime expression, a template
    or a constant; None when it reads something the chain cannot pass."""
    if not isinstance(value, str):
        return value
    if value.startswith("$"):
        return _expression(value, head)
    parts = _EMBEDDED.split(value)
    if len(parts) == 1:
        return value
    for index in range(1, len(parts), 2):
        passed = _expression(parts[index], head)
        if not isinstance(passed, str) or not passed.startswith("$"):
            return None
        parts[index] = "{" + passed + "}"
    return "".join(parts)


def _expression(text: str, head: ChainStep) -> Any:
    plan = head.plan
    if text in ("$url", "$method", "$statusCode"):
        return _output(head, text[1:], text)
    if text.startswith("$response.body"):
        pointer = text[len("$response.body") :]
        if pointer and not pointer.startswith("#/"):
            return None
        last = pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        return _output(head, fit_output(last) if pointer else "body", text)
    if text.startswith("$response.header."):
        return _output(head, fit_output(text[len("$response.header.") :]), text)
    found = _REQUEST.fullmatch(text)
    if found:
        spec = next((s for s in plan.inputs if s.target == ("param", found.group(1), found.group(2))), None)
        if spec is None:
            return None
        return head.bound.get(spec.target, FromInput(spec.target))
    if text.startswith("$request.body"):
        pointer = text[len("$request.body") :]
        if plan.body == "whole" and (not pointer or pointer.startswith("#/")):
            return FromInput(("body",), pointer)
        tokens = pointer.removeprefix("#/").split("/")
        spec = plan.input_for(("body", tokens[0].replace("~1", "/").replace("~0", "~")))
        if plan.body == "properties" and spec is not None and pointer.startswith("#/"):
            rest = "/".join(tokens[1:])
            return FromInput(spec.target, f"#/{rest}" if rest else "")
    return None


def _output(step: ChainStep, name: str, expression: str) -> str:
    """`$steps.<step>.outputs.<name>`, the output added to `step` (or the one it has already)."""
    existing = {**step.plan.outputs, **step.extra_outputs}
    for known, value in existing.items():
        if value == expression:
            return f"$steps.{step.step_id}.outputs.{known}"
    while name in existing:
        name += "_"
    step.extra_outputs[name] = expression
    return f"$steps.{step.step_id}.outputs.{name}"


def _other_id(plan: OperationPlan, *taken: str) -> str:
    step_id = fit_id(plan.label, "step")
    while step_id in taken:
        step_id += "-2"
    return step_id


def _bound_outputs(steps: list[ChainStep]) -> dict[str, str]:
    """The values a chain passed along, as its workflow's outputs (named after what they fill)."""
    outputs: dict[str, str] = {}
    for step in steps:
        for target, value in step.bound.items():
            if isinstance(value, str) and value.startswith("$steps."):
                name = fit_output(target[-1] if len(target) > 1 else "body")
                outputs.setdefault(name, value)
    return outputs


class _Resources:
    """Collections and their items: create/read/update/delete and list/get chains."""

    def __init__(self, plans: list[OperationPlan], links: _Links) -> None:
        self.links = links
        self.by_key = {(p.source, p.method, p.path): p for p in plans}
        self.sources = list(dict.fromkeys(p.source for p in plans))

    def chains(self) -> list[Chain]:
        chains = []
        for source, method, path in list(self.by_key):
            if method != "get" or not re.fullmatch(r".*/\{[^{}/]+\}", path):
                continue
            collection, _, last = path.rpartition("/")
            param = last[1:-1]
            read = self.by_key[(source, "get", path)]
            if not any(t == ("param", "path", param) for t in (s.target for s in read.inputs)):
                continue
            found = {m: self.by_key.get((source, m, collection)) for m in ("post", "get")}
            for m in ("put", "patch", "delete"):
                found[m] = self.by_key.get((source, m, path))
            chain = self._lifecycle(collection, path, param, read, found)
            if chain is not None:
                chains.append(chain)
            chain = self._list_get(collection, path, param, read, found["get"])
            if chain is not None:
                chains.append(chain)
        return chains

    def _lifecycle(self, collection: str, item: str, param: str, read: OperationPlan, found: dict) -> Any:
        create = found["post"]
        if create is None:
            return None
        pointer = id_pointer(create.response, param, collection)
        if pointer is None:
            return None
        target = ("param", "path", param)
        head = ChainStep(create, fit_id(create.label, "create"))
        steps, links = [head], []
        giver, given, renamed = head, pointer, ""  # the step whose answer the next id is read from
        update = found["put"] or found["patch"]
        for plan in (read, update, found["delete"]):
            if plan is None or target not in {s.target for s in plan.inputs}:
                continue
            step = ChainStep(plan, _other_id(plan, *(s.step_id for s in steps)))
            used = self._pass(giver, step, target, given, param)
            if used:
                links.append(f"{plan.label} as the link '{used}' says")
            steps.append(step)
            answered = id_pointer(plan.response, param, collection) if plan is update else None
            if answered is not None:  # an update may change the id (RealWorld's slug follows the title)
                giver, given = step, answered
                renamed = f"; the steps after {plan.method.upper()} take the '{answered[1:]}' it answered"
        noun = singular(noun_of(collection))
        verbs = ", ".join(f"{s.plan.method.upper()} {item}" for s in steps[1:])
        comment = (
            f"inferred from the resource structure: POST {collection} creates {a_noun(noun)} whose "
            f"'{pointer[1:]}' is the {{{param}}} of {item}; then {verbs} with it"
            + (renamed if giver is not steps[-1] else "")
            + (f" ({'; '.join(links)})" if links else "")
        )
        summary = f"Create {a_noun(noun)}, then " + ", ".join(s.plan.label for s in steps[1:])
        name = f"{fit_id(collection, 'resource')}-lifecycle"
        return Chain(name, summary, comment, steps, _bound_outputs(steps[1:]))

    def _list_get(self, collection: str, item: str, param: str, read: OperationPlan, listing: Any) -> Any:
        if listing is None:
            return None
        pointer = first_id_pointer(listing.response, param, collection)
        if pointer is None:
            return None
        head = ChainStep(listing, fit_id(listing.label, "list"))
        tail = ChainStep(read, _other_id(read, head.step_id))
        used = self._pass(head, tail, ("param", "path", param), pointer, "first_" + param)
        noun = noun_of(collection)
        comment = (
            f"inferred from the resource structure: GET {collection} lists the {noun}; "
            f"GET {item} reads the first by its '{pointer.rsplit('/', 1)[-1]}' ({pointer})"
            + (f" (as the link '{used}' says)" if used else "")
        )
        summary = f"List the {noun}, then get the first ({listing.label}, {read.label})"
        return Chain(f"{fit_id(collection, 'resource')}-list-then-get", summary, comment, [head, tail],
                     _bound_outputs([tail]))  # fmt: skip

    def _pass(self, head: ChainStep, step: ChainStep, target: tuple, pointer: str, name: str) -> str:
        """Give `step`'s input `target` its value from `head`: as a link between them says (links
        first), else the response member at `pointer`. The link's name, or ""."""
        for _code, link_name, link in self.links.found.get((id(head.plan), id(step.plan)), []):
            probe = ChainStep(step.plan, step.step_id)
            if self.links.bind(head, probe, link) is not None and target in probe.bound:
                step.bound.update(probe.bound)
                return link_name
        step.bound[target] = _output(head, fit_output(name), "$response.body#" + pointer)
        return ""
