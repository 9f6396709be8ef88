"""The reference server holds load: bursts of concurrent connections are all answered (its listen
backlog is not the standard library's 5), and a data-driven run of the flagship workflow at high
concurrency passes every row."""

from __future__ import annotations

import http.client
import json
import threading

from arazzo_runner.reference import ReferenceServer
from tests.e2e.helpers import ROOT, cli

FLAGSHIP = ROOT / "workflows" / "chat-completion-tool-call.arazzo.yaml"
BODY = {"model": "agentaus", "messages": [{"role": "user", "content": "Say hello"}], "stream": False}


def _post_at_once(server: ReferenceServer, count: int) -> list[object]:
    """`count` threads, each on its own connection, released together: the status of each, or the error."""
    host, port = server.url.split("//")[1].split("/")[0].rsplit(":", 1)
    start = threading.Barrier(count)
    answers: list[object] = [None] * count

    def one(index: int) -> None:
        start.wait()
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        try:
            connection.request(
                "POST",
                "/v1/chat/completions",
                json.dumps(BODY),
                {"Authorization": "Bearer sk-load", "Content-Type": "application/json"},
            )
            response = connection.getresponse()
            answer = json.loads(response.read())
            answers[index] = (response.status, answer["choices"][0]["finish_reason"])
        except OSError as exc:
            answers[index] = repr(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=one, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_a_hundred_concurrent_requests_are_all_answered():
    with ReferenceServer() as server:
        answers = _post_at_once(server, 100)
    assert answers == [(200, "stop")] * 100


def test_sixty_rows_at_concurrency_thirty_all_pass(capsys, tmp_path):
    messages = ["What's the weather in Sydney today?", "Say hello to the Arazzo community."]
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"userMessage": messages[n % 2]}) + "\n" for n in range(60)))
    with ReferenceServer() as server:
        result = cli(
            capsys,
            "run",
            FLAGSHIP,
            "--server",
            f"chatCompletionsApi={server.url}",
            "--input",
            "apiKey=sk-load",
            "--input",
            "model=agentaus",
            "--input",
            "toolName=get_current_weather",
            "--input",
            'toolResult={"temperature_c": 19}',
            "--inputs-file",
            rows,
            "--concurrency",
            "30",
            "--format",
            "json",
        )
    data = result.json
    assert result.code == 0, [r["result"]["workflows"][0]["error"] for r in data["rows"]]
    assert data["status"] == "passed"
    assert [row["result"]["status"] for row in data["rows"]] == ["passed"] * 60
    steps = [len(row["result"]["workflows"][0]["steps"]) for row in data["rows"]]
    assert steps == [2, 1] * 30  # both branches: the tool call and its follow-up, the direct answer
