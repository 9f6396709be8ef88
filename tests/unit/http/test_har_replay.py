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


def _brute(replay: HttpReplay, method: str, url: str, headers, body: bytes) -> int | None:
    """The answer by the rule as written: every entry compared, the first unused match, else the last."""
    from arazzo_runner.http.har_replay import _differences, _Side

    asked = _Side(method, url, headers, body)
    pairs = zip(replay.entries, replay._sides, strict=True)
    matching = [e for e, side in pairs if not _differences(side, asked, True)]
    if not matching:
        return None
    return next((e for e in matching if e.number not in replay._used), matching[-1]).number


def test_the_index_answers_as_comparing_every_entry_would() -> None:
    """Entries indexed by what must equal (JSON as data, 1.0 as 1, keys in any order) and the loose ones
    (masks, forms, text) compared one by one: the same entry answers as when every entry is compared."""
    import random

    bodies = [b"", b'{"a": 1}', b'{"a": 1.0}', b'{"a": true}', b'{"b": [1, 2], "a": 1}', b'{"a": "***"}',
              b"a=1&b=2", b"not json", b'{"a": "x***"}']  # fmt: skip
    medias = [JSON, FORM, [("Content-Type", "text/plain")], []]
    urls = ["http://h/p", "http://h/p?x=1", "http://h/p?x=***", "http://h/***", "http://h:80/p", "http://g/p"]
    rng = random.Random(7)
    entries = [
        _entry(i + 1, rng.choice(["GET", "POST"]), rng.choice(urls), rng.choice(bodies), rng.choice(medias))
        for i in range(60)
    ]
    replay, brute = _replay(*entries), _replay(*entries)
    asked_bodies = [*bodies, b'{"a":1,"b":[1,2]}', b'{"a": "xyz"}', b"b=2&a=1"]
    asked_urls = [*urls, "http://h/p?x=2", "http://h/q"]
    for _ in range(400):
        ask = (
            rng.choice(["GET", "POST"]),
            rng.choice(asked_urls),
            rng.choice(medias),
            rng.choice(asked_bodies),
        )
        expected = _brute(brute, ask[0], ask[1], ask[2], ask[3])
        if expected is None:
            with pytest.raises(ReplayMiss):
                replay.answer(*ask[:2], ask[2], ask[3])
            continue
        brute._used.add(expected)
        assert replay.answer(*ask[:2], ask[2], ask[3]).number == expected, ask


def test_answering_many_requests_to_one_path_costs_linear_time() -> None:
    """Each request compared with every entry, both bodies parsed each time: 200 requests took 24 s."""
    import time

    def spent(count: int) -> float:
        entries = [_entry(i + 1, "POST", "http://h/p", b'{"n": %d}' % i, JSON) for i in range(count)]
        replay = _replay(*entries)
        started = time.process_time()
        for i in reversed(range(count)):
            assert replay.answer("POST", "http://h/p", JSON, b'{"n":%d}' % i).number == i + 1
        return time.process_time() - started

    small, large = spent(500), spent(2000)
    assert large < 8 * small + 0.05, (small, large)  # 4x the requests: linear is 4x, each with each 16x
