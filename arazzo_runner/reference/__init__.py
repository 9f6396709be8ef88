"""The bundled chat-completions reference server: a deterministic, scripted OpenAI-compatible endpoint.

```python
from arazzo_runner.reference import ReferenceServer

with ReferenceServer() as server:       # port 0: a free port
    print(server.url)                   # http://127.0.0.1:<port>/v1
```

Command line: `python -m arazzo_runner.reference [--host H] [--port P] [--flavor F]` (default
port 8765, the default of the `baseUrl` server variable in
`openapi/chatgpt-chat-completions-api-openapi.yml`).

Four wires over one scripted model (`flavors.py`): `seed`, the default, the contract of that description
and the API notes; `openai` (`ReferenceServer(flavor="openai")`), OpenAI chat completions for the
official clients; `responses`, OpenAI's Responses API; `anthropic`, Anthropic's Messages API. How the
model decides is documented in `model.py` (decisions) and `arguments.py` (tool-call arguments); the seed
wire in `validation.py` (the 400 answers) and `completion.py` (the streamed chunks); the OpenAI wire in
`openai_request.py`, `openai_answer.py` and `wire_openai.py`; the others in `responses_request.py` /
`wire_responses.py` and `anthropic_request.py` / `wire_anthropic.py`; see also
`docs/reference-server.md`.
"""

from __future__ import annotations

from .flavors import FLAVORS
from .model import ERROR_TRIGGER, Reply, ToolCall, decide
from .server import ReferenceServer
from .validation import validate_request

__all__ = ["ERROR_TRIGGER", "FLAVORS", "ReferenceServer", "Reply", "ToolCall", "decide", "validate_request"]
