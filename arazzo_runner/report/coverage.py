"""API coverage (`--coverage`): per source description of the run's family, which of its operations the
run called, which of their documented status codes came back, which documented parameters and
request-body properties were sent. Computed from the run's exchanges (each names the operation it
called and what of it was sent: `Exchange.operation`) against the descriptions' operation index, so a
report file holds the figures and `arazzo report --coverage` merges several runs without the documents.

The section (`coverage` in the report file) is plain JSON:

    {"sources": [{"name": "api", "url": "...", "operations": [{"method", "path", "operationId", "calls",
      "statuses": {"documented", "seen", "undocumented"}, "parameters": {"documented", "sent"},
      "bodyProperties": {"documented", "sent"}}]}], "totals": {KIND: {"covered", "total", "percent"}}}

Counted over every operation of a source, called or not: a status of an operation never called is a
status not seen. A status is seen when a response's code falls under its key (`200`, `4XX`, `default`,
as the contract checks read them); a code under no key is listed as `undocumented`. A parameter is
`in name` (`query author`); a body property is a top-level property of the request body's schema (its
`allOf` members' too). A kind with nothing documented has no percentage (null) and passes any minimum.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable, Iterator
from typing import Any

KINDS = ("operations", "statuses", "parameters", "bodyProperties")


def documented(root: Any) -> list[dict[str, Any]]:
    """Every OpenAPI source of the family of `root` (a Workspace), its operations in document order with
    what each documents; nothing called yet. A source that cannot be loaded is listed with its error."""
    from ..errors import ArazzoError
    from ..sources.family import family_key, walk

    sources = []
    for workspace, path, entry in walk(root):
        if entry.type != "openapi":
            continue
        source: dict[str, Any] = {"name": family_key(path, entry.name), "url": entry.url, "operations": []}
        try:
            description = workspace.source(entry.name)
            source["operations"] = [_operation(op) for op in description.operations]
        except (ArazzoError, ValueError) as exc:
            source["error"] = str(exc)
        sources.append(source)
    return sources


def _operation(operation: Any) -> dict[str, Any]:
    from ..errors import ArazzoError

    try:
        statuses = [str(key) for key in operation.responses]
        parameters = [f"{p.in_} {p.name}" for p in operation.parameters]
        properties = _body_properties(operation.request_body)
    except (ArazzoError, ValueError):  # a broken part of an operation: what could be read
        statuses, parameters, properties = [], [], []
    return {
        "method": operation.method.upper(),
        "path": operation.path,
        "operationId": operation.operation_id,
        "calls": 0,
        "statuses": {"documented": statuses, "seen": [], "undocumented": []},
        "parameters": {"documented": parameters, "sent": []},
        "bodyProperties": {"documented": properties, "sent": []},
    }


def _body_properties(body: Any) -> list[str]:
    """The top-level property names of the request body's schemas (every media type, `allOf` members)."""
    names: dict[str, None] = {}
    content = body.get("content") if isinstance(body, dict) else None
    for media in (content or {}).values():
        schema = media.get("schema") if isinstance(media, dict) else None
        for part in _parts(schema, 0):
            properties = part.get("properties")
            if isinstance(properties, dict):
                names.update(dict.fromkeys(str(k) for k in properties))
    return list(names)


def _parts(schema: Any, depth: int) -> Iterator[dict[str, Any]]:
    if not isinstance(schema, dict) or depth > 8:
        return
    yield schema
    for member in schema.get("allOf") or ():
        yield from _parts(member, depth + 1)


def exchanges(results: Iterable[Any]) -> Iterator[Any]:
    """Every exchange of the runs (RunResults or WorkflowResults), nested workflows and dependencies
    included."""
    pending = collections.deque(w for r in results for w in (r.workflows if hasattr(r, "workflows") else [r]))
    while pending:
        workflow = pending.popleft()
        pending.extend(workflow.dependencies)
        for step in workflow.steps:
            yield from step.exchanges
            pending.extend(step.workflow_runs)


def coverage(root: Any, results: Iterable[Any]) -> dict[str, Any]:
    """The coverage section of runs of `root`'s workflows."""
    tally = Tally()
    for exchange in exchanges(results):
        tally.add_exchange(exchange)
    return tally.section(root)


class Tally:
    """What runs called, kept small while they go on (`arazzo load` runs thousands of workflows): per
    operation its calls and the set of statuses answered, parameters and body properties sent."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str, str], dict[str, Any]] = {}

    def add(self, results: Iterable[Any], mask: Callable[[str], str] | None = None) -> None:
        """Each exchange of these runs (RunResults or WorkflowResults); `mask`: each name sent read
        through it (a row's masker: a body's keys may come from the row's inputs)."""
        for exchange in exchanges(results):
            self.add_exchange(exchange, mask)

    def add_exchange(self, exchange: Any, mask: Callable[[str], str] | None = None) -> None:
        called = exchange.operation
        if not isinstance(called, dict):  # a token request, an x-operation
            return
        key = (str(called.get("source")), str(called.get("method")), str(called.get("path")))
        found = self.calls.get(key)
        if found is None:
            found = self.calls[key] = {"calls": 0, "statuses": set(), "parameters": set(), "body": set()}
        found["calls"] += 1
        if exchange.status_code is not None:
            found["statuses"].add(exchange.status_code)
        # (a run on Temporal brings its exchanges back from the worker: read by their shape)
        parameters = called.get("parameters")
        for pair in parameters if isinstance(parameters, list) else ():
            if isinstance(pair, (list, tuple)) and len(pair) == 2:
                name = f"{pair[0]} {pair[1]}"
                found["parameters"].add(mask(name) if mask is not None else name)
        body = called.get("bodyProperties")
        names = [str(name) for name in (body if isinstance(body, list) else ())]
        found["body"].update(map(mask, names) if mask is not None else names)

    def drain(self) -> list[list[Any]]:
        """What was counted since the last drain, as JSON (`arazzo load`'s workers send it to the
        master with their statistics), and forgotten here."""
        found = [
            [*key, c["calls"], sorted(c["statuses"]), sorted(c["parameters"]), sorted(c["body"])]
            for key, c in self.calls.items()
        ]
        self.calls = {}
        return found

    def absorb(self, drained: Any) -> None:
        """A worker's `drain()` added in: read by its shape (it came over the network); a malformed
        entry counts as absent."""
        for entry in drained if isinstance(drained, list) else ():
            if not (isinstance(entry, list) and len(entry) == 7 and isinstance(entry[3], int)):
                continue
            source, method, path, calls, statuses, parameters, body = entry
            key = (str(source), str(method), str(path))
            found = self.calls.setdefault(
                key, {"calls": 0, "statuses": set(), "parameters": set(), "body": set()}
            )
            found["calls"] += max(calls, 0)
            found["statuses"].update(
                s for s in _list(statuses) if isinstance(s, int) and not isinstance(s, bool)
            )
            found["parameters"].update(str(p) for p in _list(parameters))
            found["body"].update(str(b) for b in _list(body))

    def section(self, root: Any) -> dict[str, Any]:
        """The coverage section: the family's sources of `root` with what was called counted in."""
        sources = documented(root)
        index = {(s["name"], o["method"], o["path"]): o for s in sources for o in s["operations"]}
        for key, called in self.calls.items():
            found = index.get(key)
            if found is None:
                continue
            found["calls"] += called["calls"]
            _add(found["parameters"]["sent"], sorted(called["parameters"]))
            _add(found["bodyProperties"]["sent"], sorted(called["body"]))
            for status in sorted(called["statuses"]):
                where = _status_key(found["statuses"]["documented"], status)
                _add(found["statuses"]["seen" if where else "undocumented"], [where or str(status)])
        return with_totals(sources)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _status_key(keys: list[str], status: int) -> str | None:
    by_key = {k.upper(): k for k in keys}
    for key in (str(status), f"{status // 100}XX", "DEFAULT"):
        if key in by_key:
            return by_key[key]
    return None


def _add(into: list[str], names: Iterable[str]) -> None:
    for name in names:
        if name not in into:
            into.append(name)


def with_totals(sources: list[dict[str, Any]]) -> dict[str, Any]:
    """The section: `sources` with each one's totals and the totals of all of them."""
    for source in sources:
        for op in source["operations"]:  # what was seen and sent in the order the description lists it
            for kind, done in (("statuses", "seen"), ("parameters", "sent"), ("bodyProperties", "sent")):
                order = {name: i for i, name in enumerate(op[kind]["documented"])}
                op[kind][done].sort(key=lambda name, order=order: order.get(name, len(order)))
        source["totals"] = _totals(source["operations"])
    everything = [o for s in sources for o in s["operations"]]
    return {"sources": sources, "totals": _totals(everything)}


def _totals(operations: list[dict[str, Any]]) -> dict[str, Any]:
    counts = {kind: [0, 0] for kind in KINDS}
    for op in operations:
        counts["operations"][0] += op["calls"] > 0
        counts["operations"][1] += 1
        for kind, done in (("statuses", "seen"), ("parameters", "sent"), ("bodyProperties", "sent")):
            wanted = op[kind]["documented"]
            counts[kind][0] += sum(1 for name in op[kind][done] if name in wanted)
            counts[kind][1] += len(wanted)
    return {kind: _figure(*pair) for kind, pair in counts.items()}


def _figure(covered: int, total: int) -> dict[str, Any]:
    percent = round(100 * covered / total, 1) if total else None
    return {"covered": covered, "total": total, "percent": percent}


def merge(sections: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Several runs' sections as one (a CI matrix): each operation's calls added, what was seen and sent
    joined; sources and operations in the order first met. A section is read from a saved file: any
    member of the wrong shape counts as absent."""
    sources: dict[str, dict[str, Any]] = {}
    for section in sections:
        for source in _dicts(section.get("sources") if isinstance(section, dict) else None):
            name = str(source.get("name") or "")
            mine = sources.setdefault(name, {"name": name, "url": source.get("url"), "operations": []})
            if source.get("error") and not mine["operations"]:
                mine["error"] = str(source["error"])
            ops = {(o["method"], o["path"]): o for o in mine["operations"]}
            for op in map(_operation_copy, _dicts(source.get("operations"))):
                found = ops.get((op["method"], op["path"]))
                if found is None:
                    ops[(op["method"], op["path"])] = op
                    mine["operations"].append(op)
                    mine.pop("error", None)
                    continue
                found["calls"] += op.get("calls") or 0
                for kind, done in (("statuses", "seen"), ("statuses", "undocumented"),
                                   ("parameters", "sent"), ("bodyProperties", "sent")):  # fmt: skip
                    _add(found[kind][done], op[kind].get(done) or ())
                    _add(found[kind]["documented"], op[kind].get("documented") or ())
    return with_totals(list(sources.values()))


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _operation_copy(op: dict[str, Any]) -> dict[str, Any]:
    def part(kind: str, names: tuple[str, ...]) -> dict[str, list[str]]:
        given = op.get(kind)
        given = given if isinstance(given, dict) else {}
        return {n: [str(v) for v in given[n]] if isinstance(given.get(n), list) else [] for n in names}

    calls = op.get("calls")

    return {
        "method": str(op.get("method") or ""),
        "path": str(op.get("path") or ""),
        "operationId": op.get("operationId") if isinstance(op.get("operationId"), str) else None,
        "calls": calls if isinstance(calls, int) and calls > 0 else 0,
        "statuses": part("statuses", ("documented", "seen", "undocumented")),
        "parameters": part("parameters", ("documented", "sent")),
        "bodyProperties": part("bodyProperties", ("documented", "sent")),
    }
