"""How `--replay-http` matches a request to a HAR entry (`http/har_replay.py`): the query as a set of
pairs, JSON as data, a form as its fields, a multipart body without its boundary, `***` matching
anything, entries used in order then the last again, and the closest entry named on a miss."""

from __future__ import annotations

import pytest

from arazzo_runner.http.har_file import Recorded
from arazzo_runner.http.har_replay import HttpReplay, ReplayMiss

JSON = [("Content-Type", "application/json")]
FORM = [("Content-Type", "application/x-www-form-urlencoded")]


def _entry(number: int, method: str, url: str, body: bytes = b"", headers=(), status: int = 200) -> Recorded:
    return Recorded(
        number, method, url, list(headers), body, status, [], f"answer {number}".encode(), "", None
    )


def _replay(*entries: Recorded) -> HttpReplay:
    return HttpReplay("api.har", list(entries))


def test_the_query_is_a_set_of_pairs_and_json_is_data() -> None:
    replay = _replay(_entry(1, "POST", "http://h/p?b=2&a=1", b'{"x": 1, "y": [1, 2]}', JSON))
    found = replay.answer("POST", "http://h:80/p?a=1&b=2", JSON, b'{"y":[1,2],"x":1}')
    assert found.number == 1


def test_a_masked_value_matches_anything_there() -> None:
    replay = _replay(
        _entry(1, "POST", "http://h/login?key=***", b'{"user": "ann", "password": "***", "n": "***"}', JSON),
        _entry(2, "POST", "http://h/form", b"user=ann&token=Bearer%20***", FORM),
    )
    assert (
        replay.answer(
            "POST", "http://h/login?key=k-123", JSON, b'{"user":"ann","password":"pw","n":4}'
        ).number
        == 1
    )
    assert replay.answer("POST", "http://h/form", FORM, b"token=Bearer+abc&user=ann").number == 2
    with pytest.raises(ReplayMiss, match=r'body.user: the recording has "ann", this run "bob"'):
        replay.answer("POST", "http://h/login?key=k-123", JSON, b'{"user":"bob","password":"pw","n":4}')


def test_a_multipart_body_is_compared_without_its_boundary() -> None:
    def body(boundary: str) -> bytes:
        part = 'Content-Disposition: form-data; name="a"\r\n\r\n1'
        return f"--{boundary}\r\n{part}\r\n--{boundary}--\r\n".encode()

    recorded = [("Content-Type", "multipart/form-data; boundary=----WebKitFormBoundaryX1")]
    now = [("Content-Type", 'multipart/form-data; boundary="arazzo-' + "0" * 32 + '"')]
    replay = _replay(_entry(1, "POST", "http://h/up", body("----WebKitFormBoundaryX1"), recorded))
    assert replay.answer("POST", "http://h/up", now, body("arazzo-" + "0" * 32)).number == 1


def test_masked_pieces_match_in_order_and_never_overlap_and_a_blank_query_value_counts() -> None:
    text = [("Content-Type", "text/plain")]
    replay = _replay(
        _entry(1, "POST", "http://h/t", b"ab***ba", text),
        _entry(2, "POST", "http://h/u", b"x***ab***ab***y", text),
        _entry(3, "GET", "http://h/q?a="),
    )
    with pytest.raises(ReplayMiss, match="entry 1"):
        replay.answer("POST", "http://h/t", text, b"aba")  # `ab` and `ba` would share the `b`
    assert replay.answer("POST", "http://h/t", text, b"ab-ba").number == 1
    with pytest.raises(ReplayMiss, match="entry 2"):
        replay.answer("POST", "http://h/u", text, b"xaby")  # one `ab` where the recording has two
    assert replay.answer("POST", "http://h/u", text, b"x-ab-ab-y").number == 2
    with pytest.raises(ReplayMiss, match=r"query: the names differ: only in the recording \['a'\]"):
        replay.answer("GET", "http://h/q", [], b"")
    assert replay.answer("GET", "http://h/q?a=", [], b"").number == 3


def test_entries_answer_in_order_then_the_last_again() -> None:
    replay = _replay(
        _entry(1, "GET", "http://h/s"), _entry(2, "GET", "http://h/other"), _entry(3, "GET", "http://h/s")
    )
    assert [replay.answer("GET", "http://h/s", [], b"").number for _ in range(4)] == [1, 3, 3, 3]
    assert replay.answered == 4


def test_a_miss_names_the_closest_entry_and_the_first_difference() -> None:
    replay = _replay(
        _entry(1, "GET", "http://h/pets?limit=2"),
        _entry(2, "POST", "http://h/pets", b'{"name": "Rex"}', JSON),
        _entry(3, "DELETE", "http://h/pets/1"),
    )
    with pytest.raises(ReplayMiss) as miss:
        replay.answer("GET", "http://h/pets?limit=3", [], b"")
    assert str(miss.value) == (
        "no exchange of api.har answers GET http://h/pets?limit=3: the closest is entry 1 "
        '(GET http://h/pets?limit=2); query limit: the recording has "2", this run "3"'
    )
    with pytest.raises(
        ReplayMiss, match=r"entry 1 .*origin: the recording has http://h:80, this run https://h:443"
    ):
        replay.answer("GET", "https://h/pets?limit=2", [], b"")


def test_masked_values_are_matched_in_linear_time() -> None:
    """Many `***` in a text body against a long text that almost matches: no backtracking (a pattern of
    `.*?` pieces would try every split of the text, for ages)."""
    import time

    text = [("Content-Type", "text/plain")]
    recorded = ("x" + "***a" * 20 + "***c***" + "y").encode()
    replay = _replay(_entry(1, "POST", "http://h/t", recorded, text))
    started = time.process_time()
    with pytest.raises(ReplayMiss, match="body, at character"):
        replay.answer("POST", "http://h/t", text, ("x" + "a" * 20000 + "y").encode())
    assert time.process_time() - started < 2.0
    assert replay.answer("POST", "http://h/t", text, ("x" + "a" * 20000 + "c" + "y").encode()).number == 1
