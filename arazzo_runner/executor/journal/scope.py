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
it; a `dependsOn` workflow, run once per run, is `dep:<id>`, or `dep:~<document>#<id>` for another
document's (named by its location relative to the run's document: two documents' `setup` are two).
Counting per name in its parent keeps keys the same when steps of one workflow run side by side
(`--parallel`: each step once per stretch) and loop items run together (each item its own `[i]`). The
path is carried in a context variable, which each asyncio task copies: steps beside each other each
have their own.

Order. Steps beside each other (`--parallel`) start as the steps before them finish, so a resumed run
takes the path of the run it resumes only if its answers arrive as they did: among the requests. Each
exchange records where it was sent and where it completed in one count of the run's events (`sent`,
`seq`), and a replayed answer is held until every event recorded before its completion has happened
again: the answers before it delivered, the requests sent before it asked for (`_Order`). One that
never comes (the run took another path) holds nothing for long: once nothing is being sent and the
loop has gone round with nothing new, the earliest held answer is delivered.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
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
        self._order: _Order | None = None  # made at the first replayed answer of an asyncio run

    def enter_workflow(self, workflow_id: str, item: int | None, root: bool) -> Token[_Scope | None]:
        parent = _SCOPE.get() or self.root
        name = workflow_id if root else f"~{workflow_id}"  # another document's workflow of that id
        return _SCOPE.set(_Scope(parent.child(name if item is None else f"{name}[{item}]")))

    def enter_dependency(self, workflow_id: str, document: str | None) -> Token[_Scope | None]:
        """A `dependsOn` workflow runs once per run, from whichever workflow first needs it: named by
        the workflow itself (`document`: where another document than the run's is, relative to it;
        None: the run's), not by the reference that reached it."""
        name = workflow_id if document is None else f"~{document}#{workflow_id}"
        return _SCOPE.set(_Scope(f"{self.root.key}/dep:{name}"))

    @staticmethod
    def document_name(root: Any, workspace: Any) -> str | None:
        """How a dependency's document is named in keys: None for the run's own, else its location
        relative to the run's document (a run moved with its files keeps its keys), a URL as it is."""
        if workspace is root:
            return None
        location, base = str(workspace.location), str(root.location)
        if "://" in location or "://" in base or base.startswith("<"):
            return location
        import os

        return os.path.relpath(location, os.path.dirname(base)).replace(os.sep, "/")

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

    async def send(
        self, send: Any, request: Any, client: Any, max_body: int, concurrent: bool = False, **limits: Any
    ) -> Any:
        """The exchange of `request`: the recorded answer when the journal holds it (for this request),
        else `send()`'s, recorded as soon as it completes. A transport failure (refused, reset, the
        deadline, a step timeout) is not recorded: a resumed run sends it again, with the same key.
        `concurrent`: the run is on asyncio, where steps may run beside each other (module doc, Order).
        `limits`: the exchange's time limits, which `send()` applies itself (read by a tracker that sends
        elsewhere: `temporal/workflow.py`)."""
        store = self.store
        if store is None:
            return await send()
        scope = _SCOPE.get() or self.root
        scope.sends += 1
        key = f"{scope.key}@{scope.sends}"
        digest = request_digest(request)
        found = store.exchange(key)
        order = self._order_of(store) if concurrent and found is not None else self._order
        events = store.events_of(key) if order is not None and found is not None else None
        if order is not None and events is not None:
            order.happened(events[0])  # asked for
        if found is not None and found[0] == digest:
            if order is not None and events is not None:
                await order.turn(events[1])
            store.replayed += 1
            response = response_of(found, max_body)
            store_cookies(client, request, response)
            return response
        if order is not None and events is not None:  # another request there: its answer is not delivered
            order.happened(events[1])
        store.mark_sent()
        sent = store.next_event()
        if order is None:
            response = await send()
        else:
            with order.live():
                response = await send()
        store.record(key, digest, response, sent)
        return response

    def _order_of(self, store: Any) -> _Order:
        if self._order is None:
            prefix = f"{self.root.key}/" if self.root.key else ""
            self._order = _Order(store.events_under(prefix))
        return self._order


class _Order:
    """The recorded events of a run (`events`, sorted: sends and completions), delivered again in order."""

    QUIET = 256  # turns of the loop with nothing new before the earliest held answer stops waiting

    def __init__(self, events: list[int]) -> None:
        self.pending = events  # recorded, not happened again yet
        self.waiting: list[int] = []  # the held answers' places, sorted
        self.flying = 0  # exchanges being sent
        self.moves = 0  # deliveries, skips, sends started and ended: what "something new" counts
        self._moved: Any = None  # an asyncio.Event set at each move, made by the first waiter

    def _move(self) -> None:
        self.moves += 1
        if self._moved is not None:
            self._moved.set()

    def happened(self, event: int) -> None:
        """A recorded event happened again: its request asked for, its answer delivered (or not to be)."""
        at = bisect.bisect_left(self.pending, event)
        if at < len(self.pending) and self.pending[at] == event:
            del self.pending[at]
        self._move()

    @contextmanager
    def live(self) -> Iterator[None]:
        """An exchange being sent: held answers wait for it (its answer may start an earlier one's step)."""
        self.flying += 1
        self._move()
        try:
            yield
        finally:
            self.flying -= 1
            self._move()

    async def turn(self, seq: int) -> None:
        """Wait until every event recorded before the completion `seq` happened, or none else can."""
        import asyncio

        bisect.insort(self.waiting, seq)
        try:
            quiet, seen = 0, self.moves
            while self.pending and self.pending[0] < seq:
                if self.flying:  # wait for something to happen, not for a turn of the loop
                    if self._moved is None:
                        self._moved = asyncio.Event()
                    self._moved.clear()
                    await self._moved.wait()
                else:
                    await asyncio.sleep(0)
                if self.moves != seen:
                    quiet, seen = 0, self.moves
                    continue
                quiet += 1
                if quiet >= self.QUIET and self.waiting[0] == seq:  # the earlier ones are not coming
                    del self.pending[: bisect.bisect_left(self.pending, seq)]
        finally:
            self.waiting.remove(seq)
            self.happened(seq)  # delivered
