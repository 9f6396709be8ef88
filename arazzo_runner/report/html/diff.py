"""Two runs compared (`arazzo report before.json after.json --diff`): the workflow executions matched by
name (`flow`, `child (from flow/call)`, `flow#2`), their steps by name (`poll`, `poll#2`: the second
execution of `poll`), and for each what changed: added or removed, status, HTTP status, outputs, the
error, or the time taken. A time counts as changed when it moved by at least `TIME_FLOOR_MS` and by a
factor of at least `TIME_FACTOR` (a step that took 120 ms and then 300 ms changed; 10 ms and 25 ms did
not: that is noise).
"""

from __future__ import annotations

import json
from typing import Any

TIME_FACTOR = 1.5
TIME_FLOOR_MS = 100.0
_TEXT_LIMIT = 300


def diff_runs(page: dict[str, Any], before: int = 0, after: int = 1) -> dict[str, Any]:
    runs, executions, steps = page["runs"], page["executions"], page["steps"]
    if len(runs) < 2:
        from ...errors import UsageError

        raise UsageError("--diff compares two runs: give two report files")
    old = {executions[i]["name"]: executions[i] for i in runs[before]["executions"]}
    new = {executions[i]["name"]: executions[i] for i in runs[after]["executions"]}
    changes: list[dict[str, Any]] = []
    for name in [*old, *(n for n in new if n not in old)]:
        a, b = old.get(name), new.get(name)
        changes.extend(_workflow(name, a, b, steps))
    counted = {kind: sum(kind in c["changed"] for c in changes) for kind in ("status", "time", "outputs")}
    summary = (
        f"{len(changes)} change(s): {counted['status']} of status, {counted['outputs']} of outputs, "
        f"{counted['time']} of time (a time changes when it moves by {TIME_FLOOR_MS:g} ms and by a factor of "
        f"{TIME_FACTOR:g} or more)"
    )
    return {"before": before, "after": after, "changes": changes, "summary": summary}


def _workflow(name: str, a: Any, b: Any, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if a is None or b is None:
        return [_change(name, None, ["added" if a is None else "removed"], a and _text(a), b and _text(b))]
    found = []
    changed = []
    if a.get("status") != b.get("status"):
        changed.append("status")
    if _json(a.get("outputs")) != _json(b.get("outputs")):
        changed.append("outputs")
    if changed:
        found.append(_change(name, None, changed, _text(a, changed), _text(b, changed)))
    old = {steps[i]["name"]: steps[i] for i in a["steps"]}
    new = {steps[i]["name"]: steps[i] for i in b["steps"]}
    for step_name in [*old, *(n for n in new if n not in old)]:
        x, y = old.get(step_name), new.get(step_name)
        if x is None or y is None:
            kind = "added" if x is None else "removed"
            found.append(_change(name, step_name, [kind], x and _text(x), y and _text(y), x, y))
            continue
        what = _step_changes(x, y)
        if what:
            found.append(_change(name, step_name, what, _text(x, what), _text(y, what), x, y))
    return found


def _step_changes(x: dict[str, Any], y: dict[str, Any]) -> list[str]:
    what = []
    if x.get("status") != y.get("status"):
        what.append("status")
    if x.get("statusCode") != y.get("statusCode"):
        what.append("HTTP status")
    if x.get("attempts") != y.get("attempts"):
        what.append("attempts")
    if x.get("action") != y.get("action"):
        what.append("action")
    if _json(x.get("outputs")) != _json(y.get("outputs")):
        what.append("outputs")
    if (x.get("error") or None) != (y.get("error") or None):
        what.append("error")
    if time_changed(x.get("durationMs"), y.get("durationMs")):
        what.append("time")
    return what


def time_changed(before: Any, after: Any) -> bool:
    if not isinstance(before, (int, float)) or not isinstance(after, (int, float)):
        return False
    low, high = sorted((float(before), float(after)))
    return high - low >= TIME_FLOOR_MS and high >= TIME_FACTOR * max(low, 0.001)


def _change(
    workflow: str,
    step: str | None,
    changed: list[str],
    before: str | None,
    after: str | None,
    x: Any = None,
    y: Any = None,
) -> dict[str, Any]:
    return {
        "workflow": workflow,
        "step": step,
        "changed": changed,
        "beforeText": before,
        "afterText": after,
        "beforeStep": x["id"] if x else None,
        "afterStep": y["id"] if y else None,
    }


def _text(entry: dict[str, Any], changed: list[str] | None = None) -> str:
    """One line: the status, and what changed (HTTP status, time, outputs, error)."""
    parts = [str(entry.get("status"))]
    if entry.get("statusCode") is not None:
        parts.append(f"HTTP {entry['statusCode']}")
    if entry.get("attempts", 1) not in (None, 0, 1):
        parts.append(f"{entry['attempts']} attempts")
    if isinstance(entry.get("durationMs"), (int, float)):
        parts.append(f"{entry['durationMs']:.0f} ms")
    if entry.get("action"):
        parts.append(str(entry["action"]))
    if changed and "outputs" in changed:
        parts.append("outputs " + _clip(_json(entry.get("outputs"))))
    if changed and "error" in changed and entry.get("error"):
        parts.append("error: " + _clip(str(entry["error"])))
    return ", ".join(parts)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _clip(text: str) -> str:
    return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 3] + "..."


def diff_lines(diff: dict[str, Any]) -> list[str]:
    """The changes as text lines (what `arazzo report --diff` prints)."""
    lines = [diff["summary"]]
    for change in diff["changes"]:
        where = change["workflow"] + (f" / {change['step']}" if change["step"] else "")
        lines.append(
            f"  {where}: {', '.join(change['changed'])}: "
            f"{change['beforeText'] or '(absent)'} -> {change['afterText'] or '(absent)'}"
        )
    return lines
