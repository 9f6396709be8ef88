"""Work that nothing in the engine's process can stop runs in a worker process that can be killed.

That is XPath (elementpath evaluates in pure Python with no limit, folds constants while parsing and
builds whole sequences: `count(1 to 100000000)` takes 4.7 GB; its big-integer arithmetic runs in C),
JSONPath of the Goessner dialect (`=~` and `sub()` match with `re`), XPath payload replacements, the
rare pattern that only `re` reads as written (`criteria/regex.py`), and a `regex` match that took
longer than `patterns.SLICE` here (its own timeout counts CPU time, not the clock).

A worker is the current interpreter running `worker.py` in isolated mode (`-I`), with the parent's
import path and no environment variables beyond the locale, time zone and PATH (no credential an
environment holds). It is started on first use, so documents that need none never start one, and kept
for the next request (up to MAX_WORKERS at once, for concurrent runs). Requests and replies are JSON,
never pickle: the worker only ever receives data, and what it answers is read as data.

Each request carries its time: the operation's limit (`limits.py`), cut short by the run's deadline
(`budget.py`). The worker stops the work itself at that time and answers; its memory is capped by
RLIMIT_AS (`limits.QUERY_MEMORY`). The parent waits for the answer until that time plus GRACE, then
kills the worker (a C call that ignores signals) and reports the evaluation stopped: a criterion
stuck in such work cannot hold a run past its deadline.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from ..errors import ArazzoError, ExpressionError
from . import budget, limits
from .frames import encode, read_frame, write_bytes

# the worker's program: the query package's (it evaluates XPath, Goessner JSONPath and patterns there);
# started by its path, never imported here
WORKER = Path(__file__).resolve().parents[1] / "query" / "worker.py"
MAX_WORKERS = min(4, os.cpu_count() or 1)
GRACE = 0.5  # seconds the parent waits past a request's time before it kills the worker
START_TIMEOUT = 30.0  # seconds a worker may take to start and import an engine (a busy machine)
REPLY_LIMIT = 64 * 2**20  # bytes of one reply: a larger result is refused by the worker, never sent
_ENVIRONMENT = ("PATH", "SYSTEMROOT", "TZ", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TEMP", "TMP")
_ENGINES = {"xpath.check": "xpath", "xpath.evaluate": "xpath", "xml.replace": "xpath"}
_ENGINES |= {"jsonpath.goessner": "goessner", "re.search": "re", "regex.match": "regex"}


class EvaluationError(ArazzoError):
    """Work in the worker that failed: the operation's own runtime error (`kind` "query": a query applied
    to data it cannot read), or the worker's (`WorkerError`). `query.QueryError` is one too."""

    def __init__(self, message: str, kind: str = "query") -> None:
        super().__init__(message)
        self.kind = kind


class WorkerError(EvaluationError):
    """The worker could not do the work: it did not start, ran out of memory, or ended unexpectedly."""

    def __init__(self, message: str, kind: str = "internal") -> None:
        super().__init__(message, kind)


def run(op: str, args: dict[str, Any], seconds: float) -> Any:
    """`op(**args)` in a worker, given `seconds` (or less: the run's deadline) once the worker is ready.

    Raises BudgetExceeded when that time ran out, ExpressionError / EvaluationError for the operation's
    own errors, WorkerError when the worker failed."""
    try:
        worker = _POOL.acquire()
    except budget.BudgetExceeded as exc:
        raise _not_ready(exc) from None
    try:
        engine = _ENGINES[op]
        if engine not in worker.prepared:
            try:
                worker.request({"op": "prepare", "args": {"engine": engine}}, budget.budget(START_TIMEOUT))
            except budget.BudgetExceeded as exc:
                raise _not_ready(exc) from None
            worker.prepared.add(engine)
        return worker.request({"op": op, "args": args}, budget.budget(seconds))
    finally:
        _POOL.release(worker)


def prestart(engine: str) -> None:
    """Start a worker for `engine` ("xpath", "goessner", "re") in the background, when this process has
    none yet: a caller that knows it will soon need one (`arazzo validate` of documents with XPath
    criteria) pays the interpreter's start (~0.15 s) while it does other work. The first request then
    takes that worker, or waits for it within its own START_TIMEOUT (and deadline); a start that fails
    leaves nothing behind, and the request starts its own and says why it could not. Never a process
    that nobody asked for: only call it when a request will follow."""
    _POOL.prestart(engine)


def _not_ready(exc: budget.BudgetExceeded) -> BaseException:
    """Starting a worker (or waiting for a free one) took too long: the deadline's cause stays, a
    machine too busy to start one within START_TIMEOUT is the worker's failure, not the evaluation's."""
    if exc.budget.deadline_message:
        return exc
    return WorkerError(f"no evaluation worker was ready within {START_TIMEOUT:g} s", "start")


class _Worker:
    """One worker process, its pipes, and a thread that reads its replies (so a wait can time out)."""

    def __init__(self, spent: budget.Budget) -> None:
        environment = {name: os.environ[name] for name in _ENVIRONMENT if name in os.environ}
        if not sys.executable:
            raise WorkerError("no Python interpreter to start an evaluation worker with", "start")
        path = [os.path.abspath(entry or os.curdir) for entry in sys.path]
        settings = json.dumps({"path": path, "memory": limits.QUERY_MEMORY, "reply": REPLY_LIMIT})
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", str(WORKER), settings],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=environment,
            )
        except OSError as exc:
            raise WorkerError(f"the evaluation worker could not be started: {exc}", "start") from None
        self.prepared: set[str] = set()
        self.broken = False
        self.replies: queue.SimpleQueue[Any] = queue.SimpleQueue()
        threading.Thread(target=self._read, name="arazzo-worker-reader", daemon=True).start()
        hello = self._reply(spent)  # its first frame: ready, or why not
        if not hello.get("ready"):
            self.kill()
            raise WorkerError(f"the evaluation worker did not start: {_message(hello)}", "start")

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            try:
                message = read_frame(stream)
            except (OSError, ValueError):
                message = None
            self.replies.put(message)
            if message is None:
                return

    def request(self, message: dict[str, Any], spent: budget.Budget) -> Any:
        message["seconds"] = spent.left()
        reply = self._exchange(message, spent)
        if "ok" in reply:
            return reply["ok"]
        return _raise(reply.get("error") or {}, spent, self)

    def _exchange(self, message: dict[str, Any], spent: budget.Budget) -> dict[str, Any]:
        """Send `message`; its reply, or raise once `spent` (plus GRACE) is over or the worker ended.
        TypeError / ValueError, before anything is sent, for data that JSON cannot carry."""
        body = encode(message)
        try:
            assert self.process.stdin is not None
            write_bytes(self.process.stdin, body)
        except (OSError, ValueError):
            return self._ended(spent)
        return self._reply(spent)

    def _reply(self, spent: budget.Budget) -> dict[str, Any]:
        """The worker's next frame; raise once `spent` (plus GRACE) is over or the worker ended."""
        try:
            reply = self.replies.get(timeout=spent.left() + GRACE)
        except queue.Empty:
            self.kill()
            raise budget.BudgetExceeded(spent) from None
        return reply if reply is not None else self._ended(spent)

    def _ended(self, spent: budget.Budget) -> Any:
        """The worker is gone: killed by its CPU limit (the time is up), or ended unexpectedly."""
        self.kill()
        code = self.process.returncode
        if code is not None and code < 0 and -code == getattr(signal, "SIGXCPU", None):
            raise budget.BudgetExceeded(spent)
        raise WorkerError(f"the evaluation worker ended unexpectedly (exit status {code})")

    def kill(self) -> None:
        self.broken = True
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def _raise(error: dict[str, Any], spent: budget.Budget, worker: _Worker) -> Any:
    kind = error.get("kind")
    if kind == "timeout":
        raise budget.BudgetExceeded(spent)
    if kind == "expression":
        raise ExpressionError(error["message"], error.get("text", ""), error.get("position", 0))
    if kind == "query":
        raise EvaluationError(error["message"])
    if kind == "memory":
        worker.kill()  # it exits after a MemoryError; reaped here
        raise WorkerError(f"needs more than {limits.QUERY_MEMORY // 2**20} MiB of memory", "memory")
    raise WorkerError(f"the evaluation failed: {_message({'error': error})}")  # a Python error, answered


def _message(reply: dict[str, Any]) -> str:
    error = reply.get("error") or {}
    return str(error.get("message") or error.get("kind") or reply)


class _Pool:
    """Idle workers, reused; at most MAX_WORKERS exist at once (a caller waits for one to be free)."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._idle: list[_Worker] = []
        self._count = 0
        self._starting = 0  # workers `prestart` is starting (counted in _count too)
        self._pid = os.getpid()
        self._closing_at_exit = False

    def acquire(self) -> _Worker:
        spent = budget.budget(START_TIMEOUT)
        with self._lock:
            self._forget_after_fork()
            # a worker started in the background is awaited rather than doubled: it is ready sooner
            while not self._idle and (self._starting or self._count >= MAX_WORKERS):
                if not self._lock.wait(timeout=spent.left()) and spent.left() <= 0:
                    raise budget.BudgetExceeded(spent)
            if self._idle:
                return self._idle.pop()
            self._count += 1
        try:
            worker = _Worker(spent)
        except BaseException:
            with self._lock:
                self._count -= 1
                self._lock.notify()
            raise
        self._close_at_exit()
        return worker

    def prestart(self, engine: str) -> None:
        """See `prestart`: a thread starts one worker and prepares `engine`, unless one exists."""
        with self._lock:
            self._forget_after_fork()
            if self._count:  # idle, busy or starting: the next request has one, or waits for one
                return
            self._count += 1
            self._starting += 1
        thread = threading.Thread(target=self._start, args=(engine,), name="arazzo-worker-start", daemon=True)
        thread.start()

    def _start(self, engine: str) -> None:
        worker: _Worker | None = None
        try:
            worker = _Worker(budget.Budget(START_TIMEOUT))
            worker.request({"op": "prepare", "args": {"engine": engine}}, budget.Budget(START_TIMEOUT))
            worker.prepared.add(engine)
        except (EvaluationError, ExpressionError, budget.BudgetExceeded):
            # not ready, or `engine` could not be prepared (its request will say why, preparing again);
            # a worker that failed while starting was killed and reaped already
            pass
        finally:
            with self._lock:
                self._starting -= 1
                if worker is None or worker.broken:
                    self._count -= 1
                else:
                    self._idle.append(worker)
                self._lock.notify_all()
        if worker is not None and not worker.broken:
            self._close_at_exit()

    def _close_at_exit(self) -> None:
        with self._lock:
            if not self._closing_at_exit:
                import atexit

                atexit.register(self.close)
                self._closing_at_exit = True

    def release(self, worker: _Worker) -> None:
        with self._lock:
            if worker.broken or self._pid != os.getpid():
                self._count -= 1
            else:
                self._idle.append(worker)
            self._lock.notify()

    def close(self) -> None:
        """Stop the idle workers (at exit: a worker whose parent is gone also stops, at end of input)."""
        with self._lock:
            idle, self._idle = self._idle, []
            self._count -= len(idle)
        for worker in idle:
            worker.kill()

    def _forget_after_fork(self) -> None:
        if self._pid != os.getpid():  # a forked child: the workers belong to its parent
            self._idle, self._count, self._starting, self._pid = [], 0, 0, os.getpid()


_POOL = _Pool()
