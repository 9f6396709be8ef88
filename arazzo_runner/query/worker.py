"""The evaluation worker: the process that runs what nothing in the engine's own process can stop.

`bounds/isolated.py` starts it as `python -I worker.py SETTINGS` (isolated mode: no environment variables, no
user site, not the working directory on the import path), SETTINGS a JSON object with the parent's
import path, the memory limit and the largest reply; until the limits are set only the standard library
is imported. Then it says it is ready and answers requests one at a time: length-prefixed JSON
(`bounds/frames.py`, never pickle) on stdin, the replies likewise on the original stdout (anything else that
writes to stdout lands on stderr, which the parent discards).

Bounds, each reported back rather than crashing when it can be:
* time: before each request, a timer (SIGALRM) whose handler raises inside the work; signals also
  interrupt `re` matching. A long C call that ignores signals meets RLIMIT_CPU (the time asked + 2 s
  of CPU), which ends the process; the parent kills it anyway at the end of its own wait;
* memory: RLIMIT_AS, set once before anything is imported (`limits.QUERY_MEMORY`); a MemoryError is
  answered, then the worker exits (the parent starts another when needed);
* replies: at most the size the parent gives (`isolated.REPLY_LIMIT`); a larger result is refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from typing import Any


class _Expired(BaseException):
    """The request's time is up (raised by the timer's handler, through any `except Exception`)."""


_armed = False  # whether the timer may still interrupt: false once the work is over


def _expire(signum: int, frame: Any) -> None:
    if _armed:
        raise _Expired


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]  # this folder holds the parent's modules, not top-level ones
    try:
        settings = json.loads(sys.argv[1])
        path, memory, reply_limit = list(settings["path"]), int(settings["memory"]), int(settings["reply"])
    except (IndexError, ValueError, KeyError, TypeError):
        return 2  # started by hand: a worker is only ever started by isolated.py
    requests = sys.stdin.buffer
    replies = os.fdopen(os.dup(1), "wb")  # the protocol's own stdout; fd 1 now goes to stderr
    os.dup2(2, 1)
    limits = _Limits()
    limits.lower("RLIMIT_AS", memory)
    sys.path[:] = path
    # elementpath imports xmlschema when it is installed (a test extra here, a dependency of many tools
    # elsewhere), for one option of XPath 3.1's `json-to-xml` (`validate`): 0.15 s of CPU and more at
    # the first XPath of every run and validation. Marked absent in this process of its own, that
    # option says what it says without xmlschema (FOJS0004, not schema-aware) whatever else is installed.
    sys.modules.setdefault("xmlschema", None)  # type: ignore[arg-type]
    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, _expire)
    try:
        from arazzo_runner.bounds.frames import encode, read_frame, write_bytes, write_frame
    except BaseException:
        return 1  # the parent reads the end of the stream: "the evaluation worker did not start"
    try:
        from arazzo_runner.query.worker_ops import OPERATIONS, describe_error, prepare
    except BaseException as exc:
        write_frame(replies, {"error": {"kind": "start", "message": f"{type(exc).__name__}: {exc}"}})
        return 1
    write_frame(replies, {"ready": True})
    while True:
        request = read_frame(requests)
        if request is None:
            return 0
        limits.cpu(float(request.get("seconds", 1.0)))
        reply = _serve(request, OPERATIONS, prepare, describe_error)
        try:
            body = encode(reply)
        except MemoryError:
            reply = {"error": {"kind": "memory"}}
            body = json.dumps(reply).encode()
        if len(body) > reply_limit:
            message = f"the result is larger than the limit of {reply_limit} bytes"
            body = json.dumps({"error": {"kind": "query", "message": message}}).encode()
        write_bytes(replies, body)
        if reply.get("error", {}).get("kind") == "memory":
            return 0  # after a MemoryError nothing in this process is trusted: the parent starts another


def _serve(request: dict, operations: dict, prepare: Any, describe_error: Any) -> dict:
    global _armed
    name = request.get("op")
    seconds = float(request.get("seconds", 1.0))
    if seconds <= 0:
        return {"error": {"kind": "timeout"}}
    try:
        try:
            _armed = True
            if hasattr(signal, "setitimer"):
                signal.setitimer(signal.ITIMER_REAL, seconds)
            if name == "prepare":
                result = prepare(**request.get("args", {}))
            else:
                result = operations[name](**request.get("args", {}))
        finally:
            _armed = False
            if hasattr(signal, "setitimer"):
                signal.setitimer(signal.ITIMER_REAL, 0)
    except _Expired:
        return {"error": {"kind": "timeout"}}
    except MemoryError:
        return {"error": {"kind": "memory"}}
    except Exception as exc:
        return {"error": describe_error(exc)}
    return {"ok": result}


class _Limits:
    """The worker's resource limits: lowered, never above what the process was started with."""

    def __init__(self) -> None:
        try:
            import resource
        except ImportError:  # Windows: the parent's wait is the only bound
            self._resource: Any = None
            return
        self._resource = resource
        self._started = {}
        for name in ("RLIMIT_AS", "RLIMIT_CPU"):
            if hasattr(resource, name):
                self._started[name] = resource.getrlimit(getattr(resource, name))

    def lower(self, name: str, value: int) -> None:
        """Set the soft limit `name` to `value`, capped by the limits the process started with."""
        if self._resource is None or name not in self._started:
            return
        soft, hard = self._started[name]
        caps = [limit for limit in (soft, hard) if limit != self._resource.RLIM_INFINITY]
        # not settable everywhere (macOS ignores RLIMIT_AS): there the parent's wait is the bound
        with contextlib.suppress(ValueError, OSError):
            self._resource.setrlimit(getattr(self._resource, name), (min([value, *caps]), hard))

    def cpu(self, seconds: float) -> None:
        """CPU time for the next request: what is used so far, `seconds`, and 2 s (whole seconds)."""
        if self._resource is not None:
            used = self._resource.getrusage(self._resource.RUSAGE_SELF)
            self.lower("RLIMIT_CPU", int(used.ru_utime + used.ru_stime + seconds) + 2)


if __name__ == "__main__":
    sys.exit(main())
