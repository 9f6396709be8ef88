"""How the report writers show bodies: their limits, and the lines of a failed step's response excerpt
(console and JUnit). The rendering (masked, then cut, binary as a byte count) is `http/bodies.py`,
shared with the executor, which keeps the start of a failed step's response."""

from __future__ import annotations

from ..http.bodies import Body, header, render_body
from ..result import ResponseExcerpt
from .terminal import split_lines

__all__ = ["FILE_LIMIT", "VERBOSE_LIMIT", "Body", "answer_lines", "header", "render_body"]

VERBOSE_LIMIT = 2048  # bytes of a body printed by --verbose
FILE_LIMIT = 1 << 20  # bytes of a body kept in a report file


def answer_lines(excerpt: ResponseExcerpt) -> list[str]:
    """What the server answered a failed step: `response 400 (application/json): {...}`, a body of
    several lines under it (each marked `| `, so that none can pass for a line of the run's own),
    `... (N more bytes)` when it was cut, a binary body as its size."""
    head = f"response {excerpt.status}" + (f" ({excerpt.content_type})" if excerpt.content_type else "")
    if excerpt.binary:
        return [f"{head}: {excerpt.size} bytes of binary data"]
    if not excerpt.body:
        return [f"{head}: empty body"]
    more = [f"... ({excerpt.omitted} more bytes)"] if excerpt.omitted else []
    body = split_lines(excerpt.body) or [""]
    if len(body) == 1:
        return [f"{head}: {body[0]}", *more]
    return [f"{head}:", *(f"  | {line}" for line in body), *more]
