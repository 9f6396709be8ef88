"""`arazzo validate`: the official JSON Schema, semantic rules, and checks against the loaded sources.

```python
from arazzo_runner.validate import validate_path
report = validate_path("flow.arazzo.yaml")
report.valid, report.errors, report.warnings      # Finding(rule, severity, message, file, path, line, column)
```

`errors_for_run(workspace, workflows)` is what `arazzo run` calls first: it reuses the workspace's parsed
document and loaded sources and is memoised per workspace; errors in workflows the run cannot reach are
warnings for it (`reach.py`). Rules are listed in `catalogue.RULES` and
`docs/validation.md`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any


def __getattr__(name: str) -> Any:
    """Import on first use: `arazzo --help` and the parser of `arazzo validate` need none of the rules."""
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
    else:
        raise AttributeError(f"module 'arazzo_runner.validate' has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
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
    "Finding",
    "Report",
    "Rule",
    "errors_for_run",
    "findings_for_run",
    "validate_loaded",
    "validate_path",
    "validate_text",
    "validate_workspace",
]
