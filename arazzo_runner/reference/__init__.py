"""The bundled chat-completions reference server: a deterministic, scripted OpenAI-compatible endpoint.

```python
from arazzo_runner.reference import ReferenceServer

with ReferenceServer() as server:       # port 0: a free port
    print(server.url)                   # http://127.0.0.1:<port>/v1
```

Command line: `python -m arazzo_runner.reference [--host H] [--port P]` (default port 8765, the default of
the `baseUrl` server variable in `openapi/chatgpt-chat-completions-api-openapi.yml`).

How the scripted model decides is documented in `model.py` (decisions), `arguments.py` (tool-call
arguments), `validation.py` (the 400 answers) and `completion.py` (the streamed chunks); see also
`docs/reference-server.md`.
"""

from __future__ import annotations

from .model import ERROR_TRIGGER, Reply, ToolCall, decide
from .server import ReferenceServer
from .validation import validate_request

__all__ = ["ERROR_TRIGGER", "ReferenceServer", "Reply", "ToolCall", "decide", "validate_request"]
