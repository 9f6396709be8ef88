"""Arazzo workflow engine: load, validate and run Arazzo descriptions.

import arazzo_runner
doc = arazzo_runner.load("workflows/pets.arazzo.yaml")
result = arazzo_runner.run(doc, "buy-pet", {"petId": 1}, servers={"petstore": "http://localhost:8080"})
assert result.ok, result.to_dict()
"""

from __future__ import annotations

from .api import arun, load, loads, plan_requests, run
from .errors import ArazzoError, DocumentError, ExpressionError, SourceError, UsageError
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
from .result import RunResult, StepResult, WorkflowResult
from .secrets import Masker
from .workspace import Workspace

__version__ = "0.1.0"

__all__ = [
    "ArazzoError",
    "DocumentError",
    "ExpressionError",
    "InputsError",
    "Masker",
    "RequestSent",
    "ResponseReceived",
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
    "arun",
    "load",
    "loads",
    "plan_requests",
    "run",
]
