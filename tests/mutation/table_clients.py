"""The mutants of the clients of issues 22-30: the MCP fast path, the model API clients and their
retries, the load test's fast lane (`loadtest/locust/fast_http.py`).
Rows: (file, original snippet, mutated snippet, the bug in words[, tests][, equivalent: why])."""

from __future__ import annotations

from tests.mutation.mutants import Package

A = "arazzo_runner/"

MCP_FAST = Package(
    "mcp fast path",
    ("tests/unit/tools/test_mcp_fast.py",),
    (
        (
            A + "agents/mcp/fast.py",
            "if key in self.tasks or not (message.keys() <= _REQUEST and isinstance(params, dict)):",
            "if not (message.keys() <= _REQUEST and isinstance(params, dict)):",
            "a call reusing an id in flight is taken here (two runs under one id)",
        ),
        (
            A + "agents/mcp/fast.py",
            '_PARAMS = frozenset({"name", "arguments", "_meta"})',
            '_PARAMS = frozenset({"name", "arguments", "_meta", "task"})',
            "a call asking for a task answered here, as a plain call",
        ),
        (
            A + "agents/mcp/fast.py",
            "if meta in (None, {}) and self.initialized and self.version in HANDSHAKE:",
            "if meta in (None, {}) and self.version in HANDSHAKE:",
            "a call before `notifications/initialized` answered here",
        ),
        (
            A + "agents/mcp/fast.py",
            "if task is not None and key not in self.writing:",
            "if task is not None:",
            "a call whose answer is being written is cancelled half-way",
        ),
        (
            A + "agents/mcp/fast.py",
            "unanswered = [self.ids[key] for key in left if key not in self.cancelled]",
            "unanswered = [self.ids[key] for key in left]",
            "a call the client cancelled answered `Connection closed` at the end of stdin",
        ),
        (
            A + "agents/mcp/fast.py",
            "return value if math.isfinite(value) else None",
            "return value",
            "a NaN output written as `NaN`, which is no JSON",
        ),
    ),
)

_MODEL_TESTS = ("tests/unit/test_model_client_retries.py", "tests/unit/test_model_wires.py")
MODEL_APIS = Package(
    "model api clients",
    _MODEL_TESTS,
    (
        (
            A + "agents/apis/retry.py",
            "RETRY_STATUSES = frozenset({408, 409, 429})",
            "RETRY_STATUSES = frozenset({429})",
            "408 and 409 from a model API never retried",
        ),
        (
            A + "agents/apis/retry.py",
            "return status in RETRY_STATUSES or 500 <= status <= 599",
            "return status in RETRY_STATUSES or 500 < status <= 599",
            "a 500 never retried",
        ),
        (
            A + "agents/apis/client.py",
            "if again and asked is not None and asked > MAX_RETRY_AFTER:",
            "if again and asked is not None and asked >= MAX_RETRY_AFTER:",
            "`Retry-After: 60` refused though the docs say up to 60 s",
        ),
        (
            A + "agents/apis/retry.py",
            "        return milliseconds / 1000\n",
            "        return milliseconds\n",
            "`retry-after-ms` read as seconds",
        ),
        (
            A + "agents/apis/retry.py",
            "return max(0.0, when.timestamp() - (time.time() if now is None else now))",
            "return when.timestamp() - (time.time() if now is None else now)",
            "a Retry-After date in the past is a negative wait",
        ),
        (
            A + "agents/apis/retry.py",
            "base = min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** (retry - 1))",
            "base = min(BACKOFF_MAX, BACKOFF_FIRST * 2**retry)",
            "the first backoff is 1 s, not 0.5 s",
        ),
        (
            A + "agents/apis/client.py",
            "again = isinstance(exc, _Retryable) and not progress.shown and attempt <= self.retries",
            "again = isinstance(exc, _Retryable) and attempt <= self.retries",
            "an answer that broke off after text was shown asked again: the text shown twice",
        ),
        (
            A + "agents/apis/chat_completions.py",
            '            if event != "message":  # a named event',
            '            if event == "ping":  # a named event',
            "`event: keep-alive` with a data line that is not JSON fails the answer",
        ),
        (
            A + "agents/apis/chat_completions.py",
            "        if self._done:\n            raise StreamError(",
            "        if self._done and not data:\n            raise StreamError(",
            "chunks after `[DONE]` merged into the answer",
        ),
        (
            A + "agents/apis/retry.py",
            "return number if number >= 0 and number == number",
            "return number if number > 0 and number == number",
            "`Retry-After: 0` read as no wait asked (backoff instead of at once)",
        ),
    ),
)

_LANE = ("tests/e2e/test_load_fast_lane_diff.py",)
LOAD_FAST_LANE = Package(
    "load fast lane",
    _LANE,
    (
        (
            A + "loadtest/locust/fast_http.py",
            "for name, lower, value in defaults if lower not in named]",
            "for name, lower, value in defaults if name not in named]",
            "a step setting Accept or User-Agent sends the header twice",
        ),
        (
            A + "loadtest/locust/fast_http.py",
            'empty = b"Content-Length: 0\\r\\n" if not content and method in _BODY_METHODS else b""',
            'empty = b""',
            "a PATCH with no body loses `Content-Length: 0`",
        ),
        (
            A + "loadtest/locust/fast_http.py",
            'if not _TARGET.fullmatch(rest) or "/." in rest.split("?", 1)[0]:',
            "if not _TARGET.fullmatch(rest):",
            "`/a/./b/../c` sent as is (httpx sends `/a/c`)",
        ),
        (
            A + "loadtest/locust/fast_http.py",
            "            if not value.isascii():\n",
            "            if not name.isascii():\n",
            "a UTF-8 response header read as Latin-1",
        ),
        (
            A + "loadtest/locust/fast_http.py",
            "kind = httpx.ConnectTimeout if isinstance(exc, TimeoutError) else httpx.ConnectError",
            "kind = httpx.ConnectError",
            "a connect timeout reported as a connection error",
        ),
        (
            A + "loadtest/locust/fast_http.py",
            "if self.get_code() in (204, 304):",
            "if self.get_code() == 204:",
            "a 304 followed by a body read with it",
        ),
    ),
)

PACKAGES = [MCP_FAST, MODEL_APIS, LOAD_FAST_LANE]
