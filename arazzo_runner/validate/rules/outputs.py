"""Step and workflow outputs: names as the specification requires, values that are expressions.

An output whose value is not a runtime expression is returned as the text written. Literal text
(`Done`, `//Customer/Id`) has that one meaning and no MUST forbids it (the schema allows any string): a
warning, and a run returns it, saying so. A misspelt expression (`$respons.body#/count`) has a second
meaning, the value meant: an error, and a run refuses it (`output_is_misspelt`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ...expressions.values import literal_output_problem, output_is_misspelt
from ...model import Pointer
from ..checker import Checker
from ..findings import ERROR, Finding

OUTPUT_NAME = re.compile(r"^[a-zA-Z0-9.\-_]+$")  # "MUST use keys that match" (1.0.1 and 1.1)


def _outputs(ck: Checker) -> Iterator[tuple[str, Any, Pointer]]:
    for workflow in ck.document.workflows:
        for step in workflow.steps:
            for name, raw in step.outputs.items():
                yield name, raw, (*step.at, "outputs", name)
        for name, raw in workflow.outputs.items():
            yield name, raw, (*workflow.at, "outputs", name)


def output_names(ck: Checker) -> None:
    for name, _, at in _outputs(ck):
        if not OUTPUT_NAME.match(name):
            fix = re.sub(r"[^a-zA-Z0-9.\-_]+", "_", name).strip("_") or "output"
            message = (
                f"output name {name!r} must match ^[a-zA-Z0-9.\\-_]+$ (letters, digits, '.', '-', '_'); "
                f"e.g. {fix!r}"
            )
            ck.report("output-name", at, message, key=True)


def check_output_value(ck: Checker, raw: Any, at: Pointer, new_findings: list[Finding]) -> None:
    """`raw`, an output's value in which no expression was found: a string is literal text, unless the
    scan reported why an expression in it does not parse (`new_findings`: what the scan reported)."""
    if not isinstance(raw, str):
        return  # the schema check says what else an output may be
    if any(f.rule == "expression-syntax" for f in new_findings):
        return
    severity = ERROR if output_is_misspelt(raw) else None  # None: the rule's own, a warning
    ck.report("output-value", at, literal_output_problem(str(at[-1]), raw, ck.is_1_1), severity=severity)


RULES = (output_names,)
