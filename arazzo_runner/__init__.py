"""Arazzo workflow engine: load, validate and run Arazzo descriptions.

import arazzo_runner
doc = arazzo_runner.load("examples/petstore/petstore.arazzo.yaml")
result = arazzo_runner.run(doc, "pet_status", {"petId": 1}, servers={"petstore": "http://127.0.0.1:8080"})
assert result.ok, result.to_dict()

The public names are imported on first use (PEP 562), so `import arazzo_runner` and `arazzo --version`
stay cheap; `from arazzo_runner import run` works as usual.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
# The distribution's name, which reports and messages give: the import package stays `arazzo_runner`
# (another engine publishes a distribution called `arazzo-runner`, with the same import package).
DISTRIBUTION = "arazzo-engine"

__all__ = [
    "AgentResult",
    "ArazzoError",
    "DocumentError",
    "ExpressionError",
    "InputsError",
    "Masker",
    "NotRunnable",
    "RequestSent",
    "ResponseReceived",
    "RunInterrupted",
    "RunOptions",
    "RunResult",
    "SourceError",
    "StepFinished",
    "StepResult",
    "StepRetrying",
    "StepStarted",
    "UsageError",
    "WorkflowFinished",
    "WorkflowResult",
    "WorkflowStarted",
    "Workspace",
    "__version__",
    "aagent",
    "agent",
    "arun",
    "load",
    "loads",
    "plan_requests",
    "run",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (constant imports only: no dynamic import)."""
    module: ModuleType
    if name in ("arun", "load", "loads", "plan_requests", "run"):
        from . import api as module
    elif name in ("aagent", "agent", "AgentResult"):
        from .agents import loop as module
    elif name in (
        "ArazzoError",
        "DocumentError",
        "ExpressionError",
        "NotRunnable",
        "RunInterrupted",
        "SourceError",
        "UsageError",
    ):
        from . import errors as module
    elif name in ("RequestSent", "ResponseReceived", "StepFinished", "StepRetrying", "StepStarted",
                  "WorkflowFinished", "WorkflowStarted"):  # fmt: skip
        from .executor import events as module
    elif name == "InputsError":
        from .executor import inputs as module
    elif name == "RunOptions":
        from .executor import options as module
    elif name in ("RunResult", "StepResult", "WorkflowResult"):
        from . import result as module
    elif name == "Masker":
        from .masking import secrets as module
    elif name == "Workspace":
        from . import workspace as module
    else:
        raise AttributeError(f"module 'arazzo_runner' has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # for type checkers and IDEs: the same names, imported eagerly
    from .agents.loop import AgentResult, aagent, agent
    from .api import arun, load, loads, plan_requests, run
    from .errors import ArazzoError, DocumentError, ExpressionError, RunInterrupted, SourceError, UsageError
    from .executor.events import (
        RequestSent,
        ResponseReceived,
        StepFinished,
        StepRetrying,
        StepStarted,
        WorkflowFinished,
        WorkflowStarted,
    )
    from .executor.inputs import InputsError
    from .executor.options import RunOptions
    from .masking.secrets import Masker
    from .result import RunResult, StepResult, WorkflowResult
    from .workspace import Workspace
