"""Hover's "last run": the value an expression had when the document last ran, read from the
`arazzo run --report-json` file that sits beside the document.

The rule (docs/editor.md, "Values from the last run"):

- The report is `<name>.report.json` in the document's folder, `<name>` being the document's file name
  without its last suffix (`adopt.arazzo.yaml` -> `adopt.arazzo.report.json`), else `report.json` in the
  same folder. A report whose `document` names a file of another name is not this document's run and is
  not used. The file is read by the rule for JSON from outside (`bounds/json_text`), at most
  `MAX_REPORT_BYTES`, and kept until its modification time or size changes.
- The value shown is the one of the step's last execution: the last entry of that step id (in report
  order: rows, nested and dependency runs included) in the runs of the workflow the cursor is in, and in
  it the last attempt. An expression written in a step is looked up in that attempt's trace (the
  expressions it resolved, its criteria's values); `$steps.<id>.outputs.<name>` anywhere is that step's
  output, `$workflows.<id>.outputs.<name>` that workflow's last output, an output's name (the key) its
  value, `$inputs.<name>` outside a step the value any step of the workflow's last run resolved.
- Values are shown as the report holds them: a report is masked when written, so a secret shows as `***`
  (never anything else). When the document file was saved after the report was written, or the editor's
  text differs from the file, the hover says the value may be stale.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from ..bounds.limits import MAX_BODY_DEPTH
from . import model

# A report holds bodies nesting as deep as MAX_BODY_DEPTH, inside its own structure (as `arazzo report`).
REPORT_DEPTH = MAX_BODY_DEPTH + 32
MAX_REPORT_BYTES = 64 * 1024 * 1024  # a hover reads no bigger file (a report keeps bodies up to 1 MiB each)
MAX_SHOWN = 600  # characters of a value shown: a hover is a glance
_EXPRESSION = re.compile(r"\$[A-Za-z][^\s{}\"'(),]*")
_STEP_OUTPUT = re.compile(r"\$steps\.([A-Za-z0-9_\-]+)\.outputs\.([A-Za-z0-9_.\-]+)$")
_WORKFLOW_OUTPUT = re.compile(r"\$workflows\.([A-Za-z0-9_\-]+)\.outputs\.([A-Za-z0-9_.\-]+)$")
MAX_CACHED = 4  # reports kept parsed (the most recently read): a hover in another folder reads its own


class Reports:
    """The reports read by one server: each kept parsed until its file's modification time or size
    changes, the `MAX_CACHED` most recently read."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[tuple[int, int], Any]] = {}  # path -> ((mtime_ns, size), data)

    def beside(self, document: str) -> str | None:
        """The report beside `document` by the rule above, if one exists and may be this document's."""
        folder, name = os.path.split(document)
        stem = os.path.splitext(name)[0]
        for candidate in (os.path.join(folder, f"{stem}.report.json"), os.path.join(folder, "report.json")):
            if os.path.isfile(candidate):
                data = self.read(candidate)
                if isinstance(data, dict) and _names(data, name):
                    return candidate
        return None

    def read(self, path: str) -> Any:
        """The report at `path` (None when it cannot be read, is too big or is not JSON)."""
        from ..bounds import json_text

        try:
            stat = os.stat(path)
        except OSError:
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = self._cache.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        data = None
        if stat.st_size <= MAX_REPORT_BYTES:
            try:
                with open(path, encoding="utf-8-sig") as handle:
                    data = json_text.loads(handle.read(MAX_REPORT_BYTES + 1), REPORT_DEPTH)
            except (OSError, ValueError):  # JSONDecodeError, TooDeep, UnicodeDecodeError are ValueErrors
                data = None
        self._cache.pop(path, None)
        self._cache[path] = (stamp, data)
        while len(self._cache) > MAX_CACHED:
            del self._cache[next(iter(self._cache))]
        return data


def _names(report: dict[str, Any], name: str) -> bool:
    written = report.get("document")
    return not isinstance(written, str) or os.path.basename(written.replace("\\", "/")) == name


def last_run_hover(
    reports: Reports, analysis: Any, offset: int, document: str | None, text: str
) -> tuple[str, int, int] | None:
    """(markdown, start, end) of the last run's value for what is under the cursor, or None."""
    if document is None or analysis is None or analysis.loaded is None:
        return None
    token = analysis.token_at(offset)
    if token is None:
        return None
    found = _lookup(analysis, offset, token)
    if found is None:
        return None
    label, value, where, span = found
    path = reports.beside(document)
    if path is None:
        return None
    report = reports.read(path)
    value = value(report)
    if value is _MISSING:
        return None
    lines = [f"**last run**: {label} = {_shown(value)}", f"{where}, from `{os.path.basename(path)}`"]
    if isinstance(report.get("generatedAt"), str):
        lines[1] += f" ({report['generatedAt']})"
    stale = _stale(document, path, text)
    if stale:
        lines.append(stale)
    return "\n\n".join(lines), span[0], span[1]


_MISSING = object()


def _lookup(analysis: Any, offset: int, token: tuple[int, int, str, bool]) -> Any:
    """(label, reader of the value in a report, where it comes from, span) for the token at `offset`."""
    start, end, pointer, is_key = token
    workflow_index, step_index = model.enclosing(pointer)
    flows = model.workflows(analysis.data)
    if workflow_index is None or workflow_index >= len(flows):
        return None
    workflow_id = flows[workflow_index].get("workflowId")
    steps = model.steps(flows[workflow_index])
    step_id = steps[step_index].get("stepId") if step_index is not None and step_index < len(steps) else None
    parts = model.tokens(pointer)
    if is_key:
        if len(parts) == 6 and parts[2] == "steps" and parts[4] == "outputs" and isinstance(step_id, str):
            name = parts[5]
            reader = lambda r: _output(_last_step(r, workflow_id, step_id), name)  # noqa: E731
            return f"output `{name}`", reader, f"step `{step_id}`", (start, end)
        return None
    text = analysis.text[start:end]
    for match in _EXPRESSION.finditer(text):
        if not match.start() <= offset - start <= match.end():
            continue
        expression = match.group().rstrip(".#")
        span = (start + match.start(), start + match.end())
        whole = model_value(analysis, pointer)
        return _reader(expression, whole, workflow_id, step_id, span)
    return None


def _reader(expression: str, whole: Any, workflow_id: Any, step_id: Any, span: tuple[int, int]) -> Any:
    label = f"`{expression}`"
    output = _STEP_OUTPUT.match(expression)
    if output is not None:
        other, name = output.groups()
        reader = lambda r: _output(_last_step(r, workflow_id, other), name)  # noqa: E731
        return label, reader, f"step `{other}`", span
    output = _WORKFLOW_OUTPUT.match(expression)
    if output is not None:
        other, name = output.groups()
        reader = lambda r: _output(_last(_workflow_runs(r, other)), name)  # noqa: E731
        return label, reader, f"workflow `{other}`", span
    if isinstance(step_id, str):
        texts = {expression, whole} if isinstance(whole, str) else {expression}
        reader = lambda r: _traced(_last_step(r, workflow_id, step_id), texts)  # noqa: E731
        return label, reader, f"step `{step_id}`", span
    if expression.startswith("$inputs."):
        reader = lambda r: _traced_any(_last(_workflow_runs(r, workflow_id)), {expression})  # noqa: E731
        return label, reader, f"workflow `{workflow_id}`", span
    return None


def model_value(analysis: Any, pointer: str) -> Any:
    node: Any = analysis.data
    for part in model.tokens(pointer):
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _workflow_runs(report: Any, workflow_id: Any) -> list[dict[str, Any]]:
    """Every run of `workflow_id` in the report, in report order (rows, nested and dependency runs)."""
    found: list[dict[str, Any]] = []

    def walk(entry: Any) -> None:
        if not isinstance(entry, dict):
            return
        if entry.get("workflowId") == workflow_id:
            found.append(entry)
        for dependency in _list(entry.get("dependencies")):
            walk(dependency)
        for step in _list(entry.get("steps")):
            if isinstance(step, dict):
                for earlier in _list(step.get("earlierWorkflows")):
                    walk(earlier)
                walk(step.get("workflow"))

    if isinstance(report, dict):
        for row in _list(report.get("rows")):
            if isinstance(row, dict) and isinstance(row.get("result"), dict):
                for entry in _list(row["result"].get("workflows")):
                    walk(entry)
        for entry in _list(report.get("workflows")):
            walk(entry)
    return found


def _last_step(report: Any, workflow_id: Any, step_id: str) -> Any:
    last = None
    for run in _workflow_runs(report, workflow_id):
        for step in _list(run.get("steps")):
            if isinstance(step, dict) and step.get("stepId") == step_id:
                last = step
    return last


def _last(items: list[Any]) -> Any:
    return items[-1] if items else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _output(entry: Any, name: str) -> Any:
    outputs = entry.get("outputs") if isinstance(entry, dict) else None
    return outputs[name] if isinstance(outputs, dict) and name in outputs else _MISSING


def _traced(step: Any, texts: set[str]) -> Any:
    """The value of one of `texts` in the last attempt of `step`'s trace (the last one resolved)."""
    trace = step.get("trace") if isinstance(step, dict) else None
    attempts = _list(trace.get("attempts")) if isinstance(trace, dict) else []
    attempt = attempts[-1] if attempts and isinstance(attempts[-1], dict) else {}
    value: Any = _MISSING
    entries = list(_list(attempt.get("expressions")))
    for criterion in _list(attempt.get("criteria")):
        if isinstance(criterion, dict):
            entries += _list(criterion.get("values"))
    for entry in entries:
        if isinstance(entry, dict) and entry.get("expression") in texts and "value" in entry:
            value = entry["value"]
    return value


def _traced_any(run: Any, texts: set[str]) -> Any:
    value: Any = _MISSING
    for step in _list(run.get("steps")) if isinstance(run, dict) else []:
        found = _traced(step, texts)
        if found is not _MISSING:
            value = found
    return value


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > MAX_SHOWN:
        text = text[:MAX_SHOWN] + " ..."
    return f"`{text}`" if "\n" not in text and "`" not in text else f"\n```json\n{text}\n```"


def _stale(document: str, report: str, text: str) -> str:
    """A note when the value may not be the current document's: saved after the run, or edited since."""
    try:
        saved_later = os.stat(document).st_mtime_ns > os.stat(report).st_mtime_ns
        with open(document, encoding="utf-8-sig") as handle:
            edited = handle.read() != text
    except (OSError, ValueError):
        return ""
    if saved_later:
        return "_The document was saved after this run: the value may be stale._"
    if edited:
        return "_The document has unsaved changes since this run: the value may be stale._"
    return ""
