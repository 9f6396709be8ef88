"""The names the client and the workers agree on: the workflow type, the default namespace and task
queue, and the digest that tells a worker's copy of the document from another."""

from __future__ import annotations

import hashlib

WORKFLOW = "arazzo-run"
DEFAULT_TASK_QUEUE = "arazzo"
DEFAULT_NAMESPACE = "default"


def document_digest(path: str) -> str:
    """The document's content digest (its sources are not included: they are read as the run needs)."""
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()
