"""The journal file alone (`executor/journal/store.py`, `replay.py`): what is recorded comes back as the
same response (the body parsed again by the same rules), and a file of another run, of another format or
not a journal at all is refused with its reason; one whose run sent a request is not taken by another."""

from __future__ import annotations

import os
import sqlite3
import stat
from types import SimpleNamespace

import pytest

from arazzo_runner.errors import UsageError
from arazzo_runner.executor.journal import Journal, identity
from arazzo_runner.executor.journal.replay import response_of
from arazzo_runner.http.headers import Headers
from arazzo_runner.http.transport import Response

IDENTITY = identity({"arazzo": "1.0.1"}, ["flow"], {"id": 1})


def _response(content: bytes, content_type: str | None, **fields) -> Response:
    headers = Headers([("Content-Type", content_type or ""), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")])
    return Response(200, headers, None, content, content_type, 12.5, ["a note"], **fields)


@pytest.mark.parametrize(
    ("content", "content_type", "body"),
    [
        (b'{"a": [1, 2.5, null]}', "application/json", {"a": [1, 2.5, None]}),
        (b"plain", "text/plain", "plain"),
        (b"\x00\x01", "application/octet-stream", b"\x00\x01"),
        (b"", "application/json", None),
        (b'data: {"x": 1}\n\ndata: [DONE]\n\n', "text/event-stream", None),  # compared below
    ],
)
def test_a_recorded_response_comes_back_the_same(tmp_path, content, content_type, body):
    path = tmp_path / "j"
    with Journal(path, IDENTITY) as journal:
        journal.file.record("k@1", "digest", _response(content, content_type), journal.file.next_event())
    with Journal(path, IDENTITY) as journal:
        assert journal.resuming
        row = journal.file.exchange("k@1")
    back = response_of(row, 1 << 20)
    assert row[0] == "digest"
    assert (back.status_code, back.content, back.content_type, back.elapsed_ms) == (
        200,
        content,
        content_type,
        12.5,
    )
    assert back.headers.get("set-cookie") == "a=1, b=2" and back.notes == ["a note"]
    if content_type == "text/event-stream":
        assert isinstance(back.body, dict) and back.body.get("stream_complete") is True
    else:
        assert back.body == body


def test_a_journal_whose_run_sent_nothing_is_taken_with_a_run_id_of_its_own(tmp_path):
    """Refused before its first request: another run takes the file, with another run id (the seed of
    its idempotency keys). Once a request was sent (`sent`, committed before it left), it is not taken."""
    path = tmp_path / "j"
    other = identity({"arazzo": "1.0.1"}, ["flow"], {"id": 2})
    with Journal(path, IDENTITY) as journal:
        first = journal.file.run_id
    with Journal(path, other) as journal:
        assert journal.file.run_id != first and not journal.resuming
        journal.file.mark_sent()
    with pytest.raises(UsageError, match=r"another run \(not the same inputs\)"):
        Journal(path, IDENTITY)
    with Journal(path, other) as journal:  # the same run: resumed (its request in flight sent again)
        assert journal.file.run_id != first


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_an_existing_journal_others_may_read_is_made_the_owners_only(tmp_path, mode):
    path = tmp_path / "j"
    path.touch()
    os.chmod(path, mode)
    with Journal(path, IDENTITY):
        pass
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_the_file_is_its_owners_only_and_keeps_no_input_value(tmp_path):
    path = tmp_path / "j"
    secret = "hunter2-the-password"
    with Journal(path, identity({}, ["flow"], {"password": secret})):
        pass
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert secret.encode() not in path.read_bytes()


def test_another_run_another_format_or_not_a_journal_is_refused(tmp_path):
    path = tmp_path / "j"
    with Journal(path, IDENTITY) as journal:
        journal.file.record("k@1", "digest", _response(b"", None), journal.file.next_event())
    other = identity({"arazzo": "1.0.1"}, ["flow", "more"], {"id": 2})
    with pytest.raises(UsageError, match=r"another run \(not the same selected workflows and inputs\)"):
        Journal(path, other)
    for older in ("99", "1"):  # a later format, and the one before this version's
        db = sqlite3.connect(path)
        db.execute("UPDATE meta SET value = ? WHERE name = 'format'", (older,))
        db.commit()
        db.close()
        with pytest.raises(UsageError, match=f"written in format '{older}'"):
            Journal(path, IDENTITY)
    text = tmp_path / "notes.txt"
    text.write_text("not a database, only words that fill more than a header of sqlite " * 20)
    with pytest.raises(UsageError, match="not a journal"):
        Journal(text, IDENTITY)


def test_one_run_at_a_time(tmp_path):
    path = tmp_path / "j"
    with Journal(path, IDENTITY), pytest.raises(UsageError, match="another run is using it"):
        Journal(path, IDENTITY)


def test_a_multipart_body_has_one_digest_whatever_its_random_boundary():
    from arazzo_runner.executor.journal.replay import request_digest
    from arazzo_runner.http.multipart import encode_multipart

    def request(payload: dict) -> SimpleNamespace:
        content, content_type = encode_multipart(payload, "multipart/form-data", {})
        return SimpleNamespace(
            method="POST", url="http://h/u", headers=[("Content-Type", content_type)], content=content
        )

    one, two = request({"name": "a"}), request({"name": "a"})
    assert one.content != two.content  # two boundaries
    assert request_digest(one) == request_digest(two)
    assert request_digest(one) != request_digest(request({"name": "b"}))


def test_a_resumed_run_numbers_its_events_after_the_recorded_ones(tmp_path):
    path = tmp_path / "j"
    with Journal(path, IDENTITY) as journal:
        for key in ("a@1", "b@1"):
            journal.file.record(key, "digest", _response(b"", None), journal.file.next_event())
        assert journal.file.seq == 4  # two sends, two completions
    with Journal(path, IDENTITY) as journal:
        assert journal.file.next_event() == 5
        assert journal.file.events_of("b@1") == (3, 4)


def test_a_recorded_answer_answers_only_the_same_request(tmp_path):
    """At the same place in the run, a request with another URL or body is sent, and recorded anew."""
    import asyncio

    path = tmp_path / "j"
    sent: list[str] = []

    def request(body: bytes) -> SimpleNamespace:
        return SimpleNamespace(method="POST", url="http://h/u", headers=[], content=body)

    async def exchange(body: bytes) -> bytes:
        async def send() -> Response:
            sent.append(body.decode())
            return _response(b"answer to " + body, "text/plain")

        tracker = journal.for_run()
        token = tracker.enter_step("step")
        try:
            response = await tracker.send(send, request(body), None, 1 << 20)
        finally:
            tracker.leave(token)
        return response.content

    with Journal(path, IDENTITY) as journal:
        assert asyncio.run(exchange(b"one")) == b"answer to one"
    with Journal(path, IDENTITY) as journal:
        assert asyncio.run(exchange(b"one")) == b"answer to one" and journal.replayed == 1
    with Journal(path, IDENTITY) as journal:
        assert asyncio.run(exchange(b"two")) == b"answer to two"
    assert sent == ["one", "two"]


def test_idempotency_keys_are_the_runs_own_and_the_same_on_every_attempt():
    from arazzo_runner.executor.journal import Tracker

    def key(run_id: str, step: str) -> str:
        tracker = Tracker(None, run_id)
        token = tracker.enter_step(step)
        try:
            return tracker.idempotency_key()
        finally:
            tracker.leave(token)

    assert key("run-a", "pay") == key("run-a", "pay")
    assert key("run-a", "pay") != key("run-b", "pay") and key("run-a", "pay") != key("run-a", "ship")
    assert len(key("run-a", "pay")) == 32
