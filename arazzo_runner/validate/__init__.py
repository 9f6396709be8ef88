"""`arazzo validate`: the official JSON Schema, semantic rules, and checks against the loaded sources.

```python
from arazzo_runner.validate import validate_path
report = validate_path("flow.arazzo.yaml")
report.valid, report.errors, report.warnings      # Finding(rule, severity, message, file, path, line, column)
```

`admit(workspace, workflows)` is what a run calls first (`admission.py`): which of the selected workflows
may start, the findings that stop each of the others (`run_policy.py`: only what cannot run with one
meaning), and the errors the run shows as warnings. `errors_for_run(workspace, workflows)` gives every
error a run of those workflows can reach (errors in workflows it cannot reach are warnings for it:
`reach.py`). Both reuse the workspace's parsed document and loaded sources, memoised per workspace.
Rules are listed in `catalogue.RULES` and `docs/validation.md`.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any


def __getattr__(name: str) -> Any:
    """Import on first use: `arazzo --help` and the parser of `arazzo validate` need none of the rules."""
    module: ModuleType
    if name in ("RULES", "Rule"):
        from . import catalogue as module
    elif name in (
        "errors_for_run",
        "findings_for_run",
        "validate_loaded",
        "validate_path",
        "validate_text",
        "validate_workspace",
    ):
        from . import core as module
    elif name in ("ERROR", "WARNING", "Finding", "Report"):
        from . import findings as module
    elif name in ("Admission", "admit"):
        from . import admission as module
    else:
        raise AttributeError(f"module 'arazzo_runner.validate' has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from .admission import Admission, admit
    from .catalogue import RULES, Rule
    from .core import (
        errors_for_run,
        findings_for_run,
        validate_loaded,
        validate_path,
        validate_text,
        validate_workspace,
    )
    from .findings import ERROR, WARNING, Finding, Report

__all__ = [
    "ERROR",
    "RULES",
    "WARNING",
    "Admission",
    "Finding",
    "Report",
    "Rule",
    "admit",
    "errors_for_run",
    "findings_for_run",
    "validate_loaded",
    "validate_path",
    "validate_text",
    "validate_workspace",
]
