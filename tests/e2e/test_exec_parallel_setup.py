"""What a run on asyncio (`--parallel`, `arun`, `ARAZZO_RUN_PATH=asyncio`) pays once, over real sockets
(issue 36, item 4: ten parallel steps within 10% of a blocking run's CPU): no thread to reach an IP
literal (a host name still resolves in the loop's executor, off the loop), a connect without a task of
its own, and the run's result never formatted by `asyncio.run` on its way out."""

from __future__ import annotations

import asyncio
import socket
import threading

import httpcore
import pytest

import arazzo_runner
from arazzo_runner.http.wire import Wire
from arazzo_runner.result import RunResult
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import pet
from tests.e2e.test_blocking_wire import _unanswering_listener


def _executor_threads() -> list[str]:
    """The threads of an event loop's default executor (`asyncio_0`, ...) alive now."""
    return [t.name for t in threading.enumerate() if t.name.startswith("asyncio")]


def _connect_and_look(host: bytes, port: int) -> list[str]:
    """Connect to `host`, and the executor threads alive once connected (an executor's idle worker
    lives until `asyncio.run` shuts the executor down)."""

    async def main() -> list[str]:
        wire = await Wire.connect((b"http", host, port), None, 10.0)
        try:
            return _executor_threads()
        finally:
            wire.abort()

    return asyncio.run(main())


@pytest.fixture
def listening():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        yield listener.getsockname()[1]


def test_an_ip_literal_is_reached_without_a_thread(listening):
    assert _executor_threads() == []
    assert _connect_and_look(b"127.0.0.1", listening) == []


def test_an_ipv6_literal_is_reached_without_a_thread():
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    try:
        listener = socket.create_server(("::1", 0), family=socket.AF_INET6)
    except OSError:
        pytest.skip("no IPv6 loopback")
    with listener:
        assert _connect_and_look(b"::1", listener.getsockname()[1]) == []


def test_a_host_name_still_resolves_in_the_loops_executor(listening):
    """The resolver may block (DNS): a name is looked up in a thread, never on the event loop."""
    threads = _connect_and_look(b"localhost", listening)
    assert len(threads) == 1 and threads[0].startswith("asyncio_"), threads


def test_a_connect_has_no_task_of_its_own_and_still_times_out():
    """On 3.11+ the connect's time limit is `asyncio.timeout` over the caller's task (`wait_for` made a
    task a connect); past it, a ConnectTimeout as before."""

    async def main() -> int:
        connecting = asyncio.ensure_future(Wire.connect((b"http", b"127.0.0.1", port), None, 0.3))
        for _ in range(3):  # the connect started, and waits for the SYN the full queue dropped
            await asyncio.sleep(0)
        tasks = len(asyncio.all_tasks())
        with pytest.raises(httpcore.ConnectTimeout):
            await connecting
        return tasks

    with _unanswering_listener() as port:
        tasks = asyncio.run(main())
    expected = 2 if hasattr(asyncio, "timeout") else 3  # this test's and the connect's; 3.10: wait_for's
    assert tasks == expected


def _thread_watch(server) -> list[list[str]]:
    """GET /pets/{petId} answered with the executor threads alive as each request arrived."""
    seen: list[list[str]] = []

    @server.route("GET", "/pets/{petId}")
    def answer(request):
        seen.append(_executor_threads())
        return 200, {"id": request.params["petId"]}

    return seen


def test_a_parallel_run_against_an_ip_literal_starts_no_thread(write, server):
    seen = _thread_watch(server)
    path = write(arazzo_doc({"workflowId": "w", "steps": [pet(i, i) for i in "abc"]}))
    result = arazzo_runner.run(path, servers={"pets": server.url}, parallel=3)

    assert result.ok, result.to_dict()
    assert server.url.startswith("http://127.0.0.1:")
    assert seen == [[], [], []]
    assert _executor_threads() == []


def test_a_parallel_run_does_not_format_its_result(write, server, monkeypatch):
    """asyncio.run, on the main thread, restores SIGINT's handler through `signal.signal`, which formats
    the old handler's repr (holding the main task, and its result) into a ValueError it drops: twice a
    run, the whole result each time. The run's task returns None; the result is whole all the same."""
    _thread_watch(server)
    formatted: list[int] = []
    monkeypatch.setattr(RunResult, "__repr__", lambda self: formatted.append(1) or "RunResult(...)")
    path = write(arazzo_doc({"workflowId": "w", "steps": [pet(i, i) for i in "ab"]}))
    assert threading.current_thread() is threading.main_thread()  # where asyncio.run handles SIGINT
    result = arazzo_runner.run(path, servers={"pets": server.url}, parallel=2)

    assert [s.step_id for s in result.workflows[0].steps] == ["a", "b"]
    assert result.ok
    assert formatted == []
