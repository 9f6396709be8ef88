"""`arazzo generate`: runnable Arazzo workflows from OpenAPI descriptions (`docs/generate.md`).

```python
from arazzo_runner.generate import generate
result = generate(["openapi/orders.openapi.yaml"], output="orders.arazzo.yaml")
result.text        # the YAML document (validated: no errors), result.inputs the example inputs
result.dropped     # workflows left out, each with the validator's reason
```

- a workflow per operation (`operations.py`), chained workflows from links and resource structure
  (`chains.py`), inputs named once for the document with example values (`inputs.py`, `examples.py`,
  each search within a budget: `example_budget.py`),
  schemas as `components.inputs` (`schemas.py`);
- with a chat endpoint, the model's proposals, repaired by the validator's own checks (`propose.py`,
  `repair.py`);
- written by `emit.py` with comments, and validated before it is returned (`check.py`);
- the credentials its operations want, as `arazzo run --auth` takes them (`security.py`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..records import Record, field

__all__ = ["ChatSettings", "Generated", "generate"]


class ChatSettings(Record):
    """A chat-completions endpoint the model's proposals come from (`--chat URL --model M`)."""

    url: str
    model: str
    api_key: str
    timeout: float | None = 120.0  # the idle limit (`--chat-idle-timeout`)
    stream: bool = True
    retries: int = 2  # `--chat-retries` (agents/apis/retry.py)
    exchange_timeout: float | None = 600.0  # one request and its whole answer


class Generated(Record):
    text: str  # the document (YAML)
    inputs: dict[str, Any]  # example inputs, one object for every workflow (`--inputs-out`)
    workflows: list[dict[str, Any]]  # as written
    origin: dict[str, str]  # workflowId -> operation | chain | model
    dropped: list[Any] = field(default_factory=list)  # check.Dropped: workflowId, origin, reason
    notes: list[str] = field(default_factory=list)  # what was noticed on the way
    missing_examples: dict[str, str] = field(default_factory=dict)  # input -> why it has no example
    report: Any = None  # the validation of `text` (validate.Report)
    credentials: list[Any] = field(default_factory=list)  # security.Credential: what `arazzo run` needs
    sources: list[dict[str, Any]] = field(default_factory=list)  # the sourceDescriptions as written


def generate(
    descriptions: list[str | os.PathLike[str]],
    *,
    output: str | os.PathLike[str] | None = None,
    arazzo: str = "1.0.1",
    operations: list[str] | None = None,
    chains: bool = True,
    chat: ChatSettings | None = None,
) -> Generated:
    """Generate a document from OpenAPI descriptions (paths or http(s) URLs). `output`: where it will be
    written (source URLs are relative to its folder; without it, the absolute `file:` URIs of the
    descriptions, right wherever the text is saved on this machine). Raises
    `UsageError`/`SourceError` for what cannot be generated; workflows that fail validation are dropped
    (`Generated.dropped`), never written."""
    from .build import load_sources, new_draft, write_workflows
    from .check import checked
    from .security import wanted_credentials

    target = str(output) if output is not None else None
    sources = load_sources([os.fspath(d) for d in descriptions], target)
    draft = new_draft(sources, arazzo, list(operations or ()))
    write_workflows(draft, chains)
    dropped_early: list[Any] = []
    file = str(Path(target).resolve()) if target else str(Path.cwd() / "generated.arazzo.yaml")
    if chat is not None:
        from .propose import propose

        dropped_early = propose(draft, chat, file)
    text, report, dropped = checked(draft, file)
    declared = {name for w in draft.workflows for name in ((w.get("inputs") or {}).get("properties") or {})}
    draft.inputs.keep_only(declared)
    return Generated(
        text,
        dict(draft.inputs.values),
        draft.workflows,
        dict(draft.origin),
        [*draft.skipped, *dropped_early, *dropped],
        draft.notes,
        dict(draft.inputs.problems),
        report,
        wanted_credentials(draft.sources, draft.plans, draft.workflows),
        draft.data()["sourceDescriptions"],
    )
