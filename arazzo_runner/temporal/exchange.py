"""One HTTP exchange as a Temporal activity: the request the workflow built, sent by whichever worker
takes the activity, and its answer as the workflow reads it back (the journal's rule: `response_of`).

The activity reports a transport failure (refused, reset, timed out) as a value, not an exception:
the engine decides what follows (criteria, onFailure, retryAfter), never Temporal's retry policy.
Temporal retries the activity only when it was lost (its worker died: the heartbeat stopped), which
sends the request again: at least once, as `--journal` resumes the exchange in flight.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

ACTIVITY = "arazzo-exchange"
HEARTBEAT_SECONDS = 2.0  # how often a sending activity says it is alive
HEARTBEAT_TIMEOUT = 10.0  # a worker silent this long is taken as dead: the exchange goes to another


def request_payload(
    request: Any, cookie: str | None, timeout: float | None, max_body: int, limits: dict[str, Any]
) -> dict[str, Any]:
    """The activity's input: what is sent, and its printed form (secrets `***`) for messages."""
    headers = [[n, v] for n, v in request.headers]
    if cookie and not any(n.lower() == "cookie" for n, _ in request.headers):
        headers.append(["cookie", cookie])  # the run's cookie jar lives in the workflow
    printed = request.printed()
    return {
        "method": request.method,
        "url": request.url,
        "headers": headers,
        "content": _b64(request.content),
        "printedUrl": printed.url,
        "secret": request.shown is not None,
        "timeout": timeout,
        "maxBody": max_body,
        "limit": limits.get("limit"),  # the step's timeout, as the local run's `within` applies it
        "limitMessage": limits.get("timeout_message"),
    }


def response_row(payload: dict[str, Any]) -> tuple[Any, ...]:
    """The activity's result (an answer, not a failure) as the journal's row (`journal.replay.response_of`
    reads it)."""
    content = base64.b64decode(payload.get("content") or "")
    return (
        "",
        int(payload["status"]),
        json.dumps(payload.get("headers") or []),
        content,
        payload.get("contentType"),
        float(payload.get("elapsedMs") or 0.0),
        json.dumps(payload.get("notes") or []),
        payload.get("error"),
        payload.get("oversize"),
    )


# the worker process's own: "runtime", whose clients share one connection pool, "rate", the
# `arazzo worker --rate` limits (http/rate.py: per worker, not shared across workers), and "poll", how
# this worker starts polling a rated task queue (`worker.py`)
_WORKER: dict[str, Any] = {}


def configure(rate: Any = None, poll: Any = None) -> None:
    """This worker's request rates (`RateLimits`, or None), and its way to poll a rated queue."""
    _WORKER["rate"] = rate
    _WORKER["poll"] = poll


def rated_queue(task_queue: str, host: str, rate: float) -> str:
    """The task queue of the exchanges to `host` of runs submitted with `--rate HOST=N/s`: one per host
    and rate, which the workers poll with Temporal's `max_task_queue_activities_per_second` = N, a limit
    the service enforces over every worker of the queue (`arazzo run --temporal --rate`: shared)."""
    return f"{task_queue}@rate:{host}={rate!r}/s"


def poll_rated(queue: str, rate: float) -> None:
    """Make this worker poll `queue` at `rate` (at once: the workflow that asks schedules an exchange on
    it next); thread-safe, called from the workflow's code, once per queue taking effect."""
    poll = _WORKER.get("poll")
    if poll is None:
        raise RuntimeError("a rated exchange outside an `arazzo worker`")
    poll(queue, rate)


async def send_exchange(payload: dict[str, Any]) -> dict[str, Any]:
    """The activity: send the request with a client of this worker (no cookies of its own: the run's
    jar is the workflow's) and return the answer, heart-beating while it is in flight."""
    from temporalio import activity

    from ..executor.runtime import PooledRuntime
    from ..http.request import PreparedRequest, Shown
    from ..http.transport import TransportError, send

    runtime = _WORKER.get("runtime")
    if runtime is None:
        runtime = _WORKER["runtime"] = PooledRuntime()
    content = base64.b64decode(payload["content"]) if payload.get("content") is not None else None
    headers = [(str(n), str(v)) for n, v in payload["headers"]]
    view: Any = None  # what reports show of the request: the client's run has it, the worker only sends
    request = PreparedRequest(str(payload["method"]), str(payload["url"]), headers, content, view)
    if payload.get("secret"):
        request.shown = Shown(str(payload["printedUrl"]), [], None)
    timeout = payload.get("timeout")
    rate = _WORKER.get("rate")
    if rate is not None:  # `--rate`: this worker's buckets
        wait = rate.delay(request.url)
        if wait > 0:
            await asyncio.sleep(wait)
    client = runtime.new_client(timeout)
    beat = asyncio.ensure_future(_heartbeat(activity.heartbeat))
    try:
        sending = send(client, request, timeout=timeout, max_body=int(payload["maxBody"]))
        limit = payload.get("limit")
        response = await (sending if limit is None else asyncio.wait_for(sending, float(limit)))
    except TransportError as exc:
        return {"failure": str(exc)}
    except asyncio.TimeoutError:  # the step's timeout: the exchange in flight is cancelled
        return {"failure": str(payload.get("limitMessage") or "step timeout exceeded")}
    finally:
        beat.cancel()
        await client.aclose()
    return {
        "status": response.status_code,
        "headers": [[n, v] for n, v in response.headers.items()],
        "content": _b64(response.content),
        "contentType": response.content_type,
        "elapsedMs": response.elapsed_ms,
        "notes": list(response.notes),
        "error": response.error,
        "oversize": response.oversize,
    }


async def _heartbeat(beat: Any) -> None:
    while True:
        beat()
        await asyncio.sleep(HEARTBEAT_SECONDS)


def _b64(content: bytes | None) -> str | None:
    return None if content is None else base64.b64encode(content).decode("ascii")
