"""The names of the inputs hidden from a tool (credentials, inputs the server fixes) kept out of every
text its caller reads: a model or an MCP client never learns one, even from a refusal.

- `check_names`: the arguments a call may give, checked before the run: a name that is not one of the
  tool's parameters is refused with the same message whether it is a hidden input, a typo or made up
  (the refusal confirms nothing), its did-you-mean and the list it gives drawn from the tool's
  parameters only. A workflow that accepts any input takes any name but the hidden ones.
- `inputs_refused`: the run's schema check (`InputsError`) names inputs of the whole schema; it is said
  again in the caller's terms: the arguments checked against the tool's schema, or, when they pass it,
  a refusal of the inputs the server supplies that names none of them.
- `scrub`: what a refusal or a failure quotes from the document (`$inputs.token`, `'token'`, a schema
  problem at `token:`) written with `***` for each hidden name, as a secret value is masked.

The names kept out: the tool's hidden inputs, and the credential inputs of the workflows it runs (an
error inside a nested workflow may name them), but never one of the tool's own parameters.
"""

from __future__ import annotations

import re
from typing import Any

from ...workspace.inputs import declared_input_names, listed_names

HIDDEN = "***"
_QUOTED = "'\""


def visible_names(tool: Any) -> frozenset[str]:
    """The parameters the tool's schema lists (in its branches too)."""
    found = tool.memo.get("visible")
    if found is None:
        found = tool.memo["visible"] = frozenset(listed_names(tool.parameters, {}))
    return found


def _declared(tool: Any) -> frozenset[str] | None:
    if "declared" not in tool.memo:
        tool.memo["declared"] = declared_input_names(tool.source.workspace, [tool.workflow])
    return tool.memo["declared"]


def check_names(tool: Any, arguments: dict[str, Any]) -> str | None:
    """Why some argument names are refused (a message that names no hidden input), or None."""
    visible = visible_names(tool)
    if all(name in visible for name in arguments):
        return None
    declared = _declared(tool)
    refused = [
        name
        for name in arguments
        if name in tool.hidden or (declared is not None and name not in visible and name not in declared)
    ]
    if not refused:
        return None
    import difflib  # only on this refusal

    lines = []
    for name in refused:
        close = difflib.get_close_matches(str(name), sorted(visible), n=1, cutoff=0.6)
        hint = f": did you mean '{close[0]}'?" if close else ""
        lines.append(f"'{name}' is not a parameter of tool '{tool.name}'{hint}")
    listed = ", ".join(sorted(visible)) if visible else "none"
    lines.append(
        f"its parameters: {listed} (what the server supplies, such as credentials, is never passed); "
        "nothing was sent"
    )
    return "\n".join(lines)


def inputs_refused(tool: Any, arguments: dict[str, Any]) -> str | None:
    """The message for a call whose inputs the workflow's schema refused, in the tool's terms; None when
    the tool's schema cannot be checked on its own (the run's message, scrubbed, is then said)."""
    from ...executor.inputs import apply_defaults, schema_problems

    parameters = tool.parameters
    try:
        problems = schema_problems("/p", apply_defaults(parameters, arguments, {}), {"p": parameters})
    except Exception:  # e.g. an anchor the inlining wrote twice: the workflow's own check has spoken
        return None
    if problems:
        lines = "\n".join(f"  - {problem}" for problem in problems)
        return f"invalid arguments for tool '{tool.name}':\n{lines}\nnothing was sent"
    return (
        f"tool '{tool.name}' cannot run: the workflow's inputs schema refuses the inputs the server "
        "supplies (their values are set where the tools run, not by the caller); nothing was sent"
    )


class Scrubber:
    """Rewrites texts so that none names one of `names` (see the module doc); no names: unchanged."""

    def __init__(self, names: set[str] | frozenset[str]) -> None:
        self.names = frozenset(n for n in names if n)
        if not self.names:
            self._pattern = None
            return
        alternatives = "|".join(re.escape(n) for n in sorted(self.names, key=len, reverse=True))
        self._pattern = re.compile(
            rf"(\$inputs\.)({alternatives})(?![\w-])"  # an expression reading it
            rf"|(?<![\w-])(['\"])({alternatives})\3"  # quoted, as messages name inputs
            rf"|(^|\n)(\s*(?:- )?)({alternatives})(?=[:/])",  # a schema problem's location
        )

    def text(self, text: str) -> str:
        if self._pattern is None or not isinstance(text, str):
            return text
        return self._pattern.sub(_hide, text)

    def error(self, error: dict[str, Any] | None) -> dict[str, Any] | None:
        """A refusal's or a failure's error with its texts scrubbed (the request and the response,
        data of the API, as they are: masked by value already)."""
        if self._pattern is None or error is None:
            return error
        scrubbed = dict(error)
        for key, value in error.items():
            if key in ("request", "response"):
                continue
            if isinstance(value, str):
                scrubbed[key] = self.text(value)
            elif isinstance(value, list):
                scrubbed[key] = [self.text(item) if isinstance(item, str) else item for item in value]
        return scrubbed


def _hide(match: re.Match[str]) -> str:
    if match.group(1):
        return match.group(1) + HIDDEN
    if match.group(3):
        return f"{match.group(3)}{HIDDEN}{match.group(3)}"
    return f"{match.group(5)}{match.group(6)}{HIDDEN}"


def scrubber_for(tool: Any) -> Scrubber:
    found = tool.memo.get("scrubber")
    if found is None:
        found = tool.memo["scrubber"] = Scrubber(set(tool.unspoken) - visible_names(tool))
    return found
