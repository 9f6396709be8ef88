"""Where in a run an exchange is made, named the same way by every run of the same document and inputs:
the key a journal records it under, and the seed of its idempotency key.

A run is deterministic given the answers it gets: the same answers, the same steps in the same order,
the same goto and retry decisions. So a resumed run runs the workflows again from their start, and each
operation step whose exchange the journal holds gets the recorded answer instead of sending; the first
exchange it does not hold (the one in flight when the run stopped) is sent, and the run goes on as it
would have. Position, retry counters, outputs are not stored: they are computed again from the answers.

A key is a path of executions: `flow#1/login#1@1` is the first send of the first execution of step
`login` in the first execution of workflow `flow`; a workflow a step runs (a `workflowId` step, a retry
or goto naming a workflow, an `x-forEach` item `[3]`) continues the path of the step or workflow that ran
it; a `dependsOn` workflow, run once per run, is `dep:<id>`. Counting per name in its parent keeps keys
the same when steps of one workflow run side by side (`--parallel`: each step once per stretch) and
loop items run together (each item its own `[i]`). The path is carried in a context variable, which
each asyncio task copies: steps beside each other each have their own.
"""

from __future__ import annotations

import hashlib
from contextvars import ContextVar, Token
from typing import Any

from .replay import request_digest, response_of, store_cookies


class _Scope:
    __slots__ = ("counts", "key", "sends")

    def __init__(self, key: str) -> None:
        self.key = key
        self.counts: dict[str, int] = {}  # executions of each name started in this one
        self.sends = 0  # exchanges this step execution made (its attempts)

    def child(self, name: str) -> str:
        count = self.counts.get(name, 0) + 1
        self.counts[name] = count
        return f"{self.key}/{name}#{count}"


_SCOPE: ContextVar[_Scope | None] = ContextVar("arazzo_runner_journal_scope", default=None)


class Tracker:
    """One run's view of its journal (`store`, None: no journal, only `--idempotency-header`): names the
    executions of the run (`enter_*` / `leave`, the executor's hooks) and answers or records its
    exchanges (`send`). `prefix`: the row of an `--inputs-file` run (`row:7`), '' for a single run."""

    def __init__(self, store: Any, run_id: str, prefix: str = "", header: str | None = None) -> None:
        self.store, self.run_id, self.header = store, run_id, header
        self.root = _Scope(prefix)

    def enter_workflow(self, workflow_id: str, item: int | None, root: bool) -> Token[_Scope | None]:
        parent = _SCOPE.get() or self.root
        name = workflow_id if root else f"~{workflow_id}"  # another document's workflow of that id
        return _SCOPE.set(_Scope(parent.child(name if item is None else f"{name}[{item}]")))

    def enter_dependency(self, workflow_id: str, root: bool) -> Token[_Scope | None]:
        """A `dependsOn` workflow runs once per run, from whichever workflow first needs it."""
        name = workflow_id if root else f"~{workflow_id}"
        return _SCOPE.set(_Scope(f"{self.root.key}/dep:{name}"))

    def enter_step(self, step_id: str) -> Token[_Scope | None]:
        parent = _SCOPE.get() or self.root
        return _SCOPE.set(_Scope(parent.child(step_id)))

    @staticmethod
    def leave(token: Token[_Scope | None]) -> None:
        _SCOPE.reset(token)

    def idempotency_key(self) -> str:
        """The step execution's key: the same on every attempt of it, and when a resumed run sends the
        attempt in flight again."""
        scope = _SCOPE.get() or self.root
        return hashlib.sha256(f"{self.run_id}\n{scope.key}".encode()).hexdigest()[:32]

    def stamp(self, request: Any) -> None:
        """`--idempotency-header NAME: <key>` on the request, unless the step sets that header itself."""
        name = self.header
        if name is None or any(n.lower() == name.lower() for n, _ in request.headers):
            return
        header = (name, self.idempotency_key())
        request.headers.append(header)
        if request.shown is not None and request.shown.headers is not request.headers:
            request.shown.headers.append(header)

    def replays_next(self) -> bool:
        """Whether the step execution's next exchange is answered from the journal (its retry's wait,
        spent when it was recorded, is then not spent again)."""
        scope = _SCOPE.get()
        return (
            self.store is not None and scope is not None and self.store.has(f"{scope.key}@{scope.sends + 1}")
        )

    async def send(self, send: Any, request: Any, client: Any, max_body: int, **limits: Any) -> Any:
        """The exchange of `request`: the recorded answer when the journal holds it (for this request),
        else `send()`'s, recorded as soon as it completes (a transport failure too). `limits`: the
        exchange's time limits, which `send()` applies itself (read by a tracker that sends elsewhere)."""
        store = self.store
        if store is None:
            return await send()
        scope = _SCOPE.get() or self.root
        scope.sends += 1
        key = f"{scope.key}@{scope.sends}"
        digest = request_digest(request)
        found = store.exchange(key)
        if found is not None and found[0] == digest:
            store.replayed += 1
            response = response_of(found, max_body)  # a recorded transport failure raises here
            store_cookies(client, request, response)
            return response
        from ...http.transport import TransportError

        try:
            response = await send()
        except TransportError as exc:
            store.record(key, digest, failure=str(exc))
            raise
        store.record(key, digest, response)
        return response
