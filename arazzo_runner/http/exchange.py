"""One HTTP exchange as the reports see it (a record of the http layer, kept in step results)."""

from __future__ import annotations

from typing import Any

from ..records import Record, field

TOKEN_REQUEST = "oauth2 token"  # the purpose of an OAuth2 token request


class Exchange(Record):
    """One HTTP request/response pair, kept for verbose output and reports. The request is its printed
    form (`PreparedRequest.printed`: as sent, but the parts carrying a value derived from a secret are
    `***`); writers mask the rest. `purpose` is None for a step's own request, `"oauth2 token"` for the
    token request made to authorize it. The bodies are left out of its repr: Python 3.11's asyncio.run
    formats the repr of the run's result as it ends (a 16 MiB body was a 64 MiB string), and a body is
    the writers' to mask and show."""

    method: str
    url: str
    request_headers: list[tuple[str, str]]
    request_body: bytes | None = field(repr=False)
    status_code: int | None = None
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    response_body: bytes | None = field(default=None, repr=False)
    error: str | None = None
    started_at: float = 0.0
    duration_ms: float = 0.0
    purpose: str | None = None
    # the contract violations of its response (`http/contract.py`, `Violation.to_dict`), masked
    contract: list[dict[str, Any]] = field(default_factory=list)
    # the described operation it called and what of it was sent (`report/coverage.py`): None for a
    # token request or an x-operation
    operation: dict[str, Any] | None = None
    # the bytes kept of a response body cut at the run's limit (`--max-response-bytes`); None: whole
    body_cut: int | None = None
    # the response body was read as JSON (valid: a writer showing it need not parse it again)
    response_json: bool = False

    def __init__(
        self,
        method: str,
        url: str,
        request_headers: list[tuple[str, str]],
        request_body: bytes | None,
        status_code: int | None = None,
        response_headers: list[tuple[str, str]] | None = None,
        response_body: bytes | None = None,
        error: str | None = None,
        started_at: float = 0.0,
        duration_ms: float = 0.0,
        purpose: str | None = None,
        contract: list[dict[str, Any]] | None = None,
        operation: dict[str, Any] | None = None,
        body_cut: int | None = None,
        response_json: bool = False,
    ) -> None:
        self.method, self.url = method, url
        self.request_headers, self.request_body = request_headers, request_body
        self.status_code = status_code
        self.response_headers = [] if response_headers is None else response_headers
        self.response_body, self.error = response_body, error
        self.started_at, self.duration_ms = started_at, duration_ms
        self.purpose = purpose
        self.contract = [] if contract is None else contract
        self.operation = operation
        self.body_cut = body_cut
        self.response_json = response_json
