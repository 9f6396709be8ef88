"""N Locust users make N requests at once: the engine's asyncio runs inside gevent without serializing
them. The server holds the first N requests until N are in flight together (a guard opens the gate
after a minute, so a serializing bridge fails with a peak of 1 instead of hanging); one process, no
workers, and the server named `localhost` so that name resolution runs under gevent's patching too."""

from __future__ import annotations

from tests.e2e.loadkit import SECRET, Counter, arazzo_load, finish, serve, stats_rows, write_documents
from tests.servers.scripted import ScriptedServer

USERS = 12


def test_n_users_have_n_requests_in_flight_at_once(tmp_path) -> None:
    path = write_documents(tmp_path)
    counter = Counter(gate=USERS)
    with ScriptedServer() as server:
        serve(server, counter)
        port = server.url.rsplit(":", 1)[1]
        prefix = tmp_path / "stats"
        argv = ["-w", "browse", "--server", f"pets=http://localhost:{port}", "--auth", f"bearer={SECRET}",
                "-u", USERS, "-r", USERS, "-t", "2s", "--input", "who=x", "--only-summary",
                "--csv", prefix]  # fmt: skip
        code, out, err = finish(arazzo_load(path, *argv))
    assert code == 0, out + err
    assert counter.peak == USERS
    rows = stats_rows(prefix)
    assert int(rows["browse.list"]["Request Count"]) == counter.count["list"]
    assert int(rows["browse.show"]["Request Count"]) == counter.count["show"]
    assert rows["Aggregated"]["Failure Count"] == "0"


def test_users_stopped_mid_request_cancel_their_runs_without_a_failure(tmp_path) -> None:
    """`--stop-timeout 0`: the users are killed as the test ends, with their requests in flight; the runs
    are cancelled on the loop, which is no failure of the server's (and no traceback). The server answers
    the first create and holds every later one until the test has ended, so requests are in flight then
    however slow the machine is."""
    path = write_documents(tmp_path)
    counter = Counter()
    with ScriptedServer() as server:
        serve(server, counter, answer_creates=1)
        prefix = tmp_path / "stats"
        argv = ["-w", "adopt", "--server", f"pets={server.url}", "--auth", f"bearer={SECRET}",
                "--input", "who=x", "-u", 3, "-t", "3s", "--stop-timeout", "0", "--only-summary",
                "--csv", prefix]  # fmt: skip
        try:
            code, out, err = finish(arazzo_load(path, *argv))
        finally:
            counter.released.set()
    assert code == 0, out + err
    assert "Traceback" not in err and "Error" not in err
    rows = stats_rows(prefix)
    assert rows["Aggregated"]["Failure Count"] == "0"
    assert rows["adopt.create"]["Request Count"] == "1"  # the held ones, in flight at the end, are not
    assert counter.count["create"] >= 3
