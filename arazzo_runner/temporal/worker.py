"""`arazzo worker --temporal HOST:PORT`: a process that runs workflow executions and exchange activities
for a task queue until it is stopped (SIGINT/SIGTERM). Any number may run, on any machines that have the
documents at the same paths and their credentials in their environment (`ARAZZO_AUTH_*`)."""

from __future__ import annotations

import asyncio
import signal
from typing import Any


async def serve(
    address: str,
    namespace: str,
    task_queue: str,
    ready: Any = None,
    max_exchanges: int | None = None,
    rates: dict[str, float] | None = None,
) -> None:
    from temporalio import activity
    from temporalio.worker import UnsandboxedWorkflowRunner, Worker

    from .exchange import ACTIVITY, configure, send_exchange
    from .rated import RatedQueues
    from .submit import connect
    from .workflow import ArazzoRun

    client = await connect(address, namespace)
    exchange = activity.defn(name=ACTIVITY)(send_exchange)
    rated = RatedQueues(client, task_queue, exchange, max_exchanges)  # `arazzo run --temporal --rate`
    limits = None
    if rates:  # `arazzo worker --rate`: this worker's own buckets
        from ..http.rate import RateLimits

        limits = RateLimits(rates)
    configure(limits, rated.poll)
    worker = Worker(
        client,
        task_queue=task_queue,
        workflows=[ArazzoRun],
        activities=[exchange],
        workflow_runner=UnsandboxedWorkflowRunner(),
        max_concurrent_activities=max_exchanges,
        debug_mode=True,  # no deadlock detection: a document loading in the workflow is CPU, not a hang
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with worker:
        if ready is not None:
            ready()
        discovering = asyncio.ensure_future(rated.discover())
        await stop.wait()
        discovering.cancel()
        await rated.close()
