"""The engine's asyncio inside Locust's gevent: one event loop per process, driven by a greenlet.

Locust runs every user as a greenlet; the engine is asyncio (httpx). The loop here is an ordinary
`asyncio.SelectorEventLoop` whose selector is gevent's (`gevent.selectors.GeventSelector`): when the
loop waits for sockets it waits in gevent's hub, so Locust's greenlets run meanwhile, and when a
socket is ready the hub resumes the loop. Every user's workflow runs on this one loop at the same time:
N users make N requests at once (tests/e2e/test_load_concurrency.py counts them on the server), and
nothing is a thread: no lock, no cross-thread hand-off, one core's worth of Python per process (run
more processes with Locust's workers, `arazzo load --workers K`).

Why not a loop in its own OS thread: gevent's monkey-patching turns threads, locks, queues and DNS
into greenlet primitives of the thread that patched them, so an asyncio thread would be running
patched sockets and executors on a hub that never runs. Driving the loop from a greenlet keeps every
primitive in the world it was made for; and the selector is gevent's whether or not Locust patched
the standard library (`LOCUST_SKIP_MONKEY_PATCH`).

A user waits for its run with a gevent `AsyncResult` (the user's greenlet sleeps, the others run); a
user killed while it waits (Locust stopping it) cancels its run on the loop. The loop is made on first
use in each process (`loop_bridge()`), never before Locust forks its worker processes.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Coroutine
from typing import Any

import gevent
from gevent.event import AsyncResult
from gevent.selectors import GeventSelector


class _Selector(GeventSelector):
    """gevent's selector that shows the loop as running only to its own greenlet: while the loop waits
    in `select`, Locust's greenlets run, and `asyncio.get_running_loop()` there must say none is
    (the running loop is per thread, and every greenlet shares the thread)."""

    loop: asyncio.AbstractEventLoop | None = None

    def select(self, timeout: float | None = None) -> Any:
        asyncio._set_running_loop(None)
        try:
            return super().select(timeout)
        finally:
            asyncio._set_running_loop(self.loop)


class LoopBridge:
    """The process's asyncio loop and the greenlet that runs it."""

    def __init__(self) -> None:
        selector = _Selector()
        self.loop = asyncio.SelectorEventLoop(selector)
        selector.loop = self.loop
        self.pid = os.getpid()
        self.greenlet = gevent.spawn(self.loop.run_forever)
        self._background: set[asyncio.Task[Any]] = set()  # held: the loop keeps only weak references

    def run(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        """Run `coroutine` on the loop and return its result (or raise its exception), with only the
        calling greenlet waiting for it."""
        if gevent.getcurrent() is self.greenlet:
            coroutine.close()
            raise RuntimeError("LoopBridge.run() called from the loop itself: await the coroutine there")
        finished = AsyncResult()
        started: list[asyncio.Task[Any]] = []

        def start() -> None:
            task = self.loop.create_task(coroutine)
            started.append(task)
            task.add_done_callback(finished.set)

        self.loop.call_soon_threadsafe(start)
        try:
            task = finished.get()
        except BaseException:  # the user was killed (GreenletExit) or interrupted: its run is cancelled
            self.loop.call_soon_threadsafe(_cancel, started)
            raise
        return task.result()

    def schedule(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Start `coroutine` on the loop without waiting for it (closing a user's client as it stops)."""

        def start() -> None:
            task = self.loop.create_task(coroutine)
            self._background.add(task)
            task.add_done_callback(self._background.discard)

        self.loop.call_soon_threadsafe(start)


def _cancel(started: list[asyncio.Task[Any]]) -> None:
    for task in started:
        task.cancel()


def loop_bridge() -> LoopBridge:
    """This process's bridge, made on first use (a forked worker makes its own)."""
    return _bridge_of(os.getpid())


@functools.lru_cache(maxsize=1)
def _bridge_of(pid: int) -> LoopBridge:
    return LoopBridge()
