"""llmock 0.2.2 (a third-party OpenAI-compatible mock with fault injection, from the package index) as a
real process: `llmock serve` on a free port, scripted through its control API (`/_llmock/scenario`:
fail with a status and Retry-After, delay, break a stream - disconnect, truncate, stall, malformed -
reply with a text or tool calls), its journal read back (`/_llmock/requests`: what it received).

    with LLMock() as mock:
        mock.script({"type": "fail", "status": 429, "retry_after": 1})
        ... arazzo agent --chat {mock.url}/v1 ...
        assert len(mock.requests()) == 2
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx

from tests.e2e.processkit import Process, free_port


class LLMock:
    def __init__(self) -> None:
        self.process: Process | None = None
        self.url = ""

    def start(self) -> LLMock:
        binary = str(Path(sys.executable).with_name("llmock"))
        for _ in range(3):  # the free port may be taken in between: try another
            port = free_port()
            args = [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--tool-mode", "off"]
            process = Process(args, env={"NO_COLOR": "1", "TERM": "dumb"}, merged=True)
            try:
                process.line("INFO:     Uvicorn running on")
            except RuntimeError:
                process.stop()
                continue
            self.process, self.url = process, f"http://127.0.0.1:{port}"
            return self
        raise RuntimeError("llmock did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()

    def __enter__(self) -> LLMock:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reset(self) -> None:
        httpx.post(f"{self.url}/_llmock/reset", timeout=30).raise_for_status()

    def script(self, *behaviors: dict[str, Any]) -> None:
        """Queue behaviours for the next requests (llmock's scenario JSON form)."""
        answer = httpx.post(f"{self.url}/_llmock/scenario", json={"behaviors": list(behaviors)}, timeout=30)
        answer.raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
        """Every request served, oldest first (the chat exchanges the client made)."""
        answer = httpx.get(f"{self.url}/_llmock/requests", timeout=30)
        answer.raise_for_status()
        return [r for r in answer.json()["requests"] if "/chat/completions" in r.get("path", "")]
