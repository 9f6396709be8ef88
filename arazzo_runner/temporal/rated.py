"""`arazzo run --temporal --rate HOST=N/s`: one rate over all the workers, enforced by the Temporal service.

The exchanges to a rated host go to a task queue of their own (`exchange.rated_queue`: the run's queue,
the host and the rate in its name), which every worker polls with `max_task_queue_activities_per_second`
= N: the service dispatches at most N activities a second from a task queue, whichever workers poll it
(the limit is the queue's, not a worker's). A worker learns a rated queue two ways: when a workflow it
runs (or replays) routes an exchange there (at once: someone must poll what it schedules), and from the
memo of the running executions of its task queue, listed every `DISCOVER_SECONDS` (so that a worker
started after another died, or one that runs no workflow of the run, shares the exchanges too). A
rated queue's poller runs until the worker stops: one idle long poll each.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any

RATES_MEMO = "arazzoRates"  # an execution's memo: the run's rates, host -> requests a second
DISCOVER_SECONDS = 2.0


class RatedQueues:
    """The rated task queues this worker polls, each with a worker of its own (exchanges only)."""

    def __init__(self, client: Any, task_queue: str, exchange: Any, max_exchanges: int | None) -> None:
        self.client, self.task_queue, self.exchange = client, task_queue, exchange
        self.max_exchanges = max_exchanges
        self.loop = asyncio.get_running_loop()
        self.workers: dict[str, Any] = {}
        self.running: list[asyncio.Future[Any]] = []

    def poll(self, queue: str, rate: float) -> None:
        """Poll `queue` at `rate`; from any thread (a workflow's activation runs on one of the SDK's)."""
        self.loop.call_soon_threadsafe(self._start, queue, rate)

    def _start(self, queue: str, rate: float) -> None:
        if queue in self.workers:
            return
        from temporalio.worker import Worker

        self.workers[queue] = Worker(self.client, task_queue=queue, activities=[self.exchange],
                                     max_concurrent_activities=self.max_exchanges,
                                     max_task_queue_activities_per_second=rate)  # fmt: skip
        future = asyncio.ensure_future(self.workers[queue].run())
        future.add_done_callback(lambda done: _said(queue, done))
        self.running.append(future)

    async def discover(self) -> None:
        """Poll the rated queues of the running executions of this task queue, every DISCOVER_SECONDS."""
        from .exchange import rated_queue

        escaped = self.task_queue.replace("\\", "\\\\").replace("'", "\\'")
        query = f"TaskQueue = '{escaped}' AND ExecutionStatus = 'Running'"
        while True:
            with contextlib.suppress(Exception):  # the service away for a while: the next round sees it
                async for execution in self.client.list_workflows(query):
                    rates = await execution.memo_value(RATES_MEMO, None)
                    for host, rate in (rates or {}).items() if isinstance(rates, dict) else ():
                        self._start(rated_queue(self.task_queue, str(host), float(rate)), float(rate))
            await asyncio.sleep(DISCOVER_SECONDS)

    async def close(self) -> None:
        await asyncio.gather(*(worker.shutdown() for worker in self.workers.values()))
        await asyncio.gather(*self.running, return_exceptions=True)


def _said(queue: str, done: asyncio.Future[Any]) -> None:
    """A rated queue's poller that ended on an error says so (its exchanges wait for another worker)."""
    if not done.cancelled() and done.exception() is not None:
        print(f"arazzo worker: task queue {queue!r}: {done.exception()}", file=sys.stderr, flush=True)
