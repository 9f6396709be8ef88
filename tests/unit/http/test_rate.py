"""`--rate HOST=N/s` (arazzo_runner/http/rate.py): the start each request to a host is given, on a clock
the test turns by hand."""

from __future__ import annotations

import pytest

from arazzo_runner.http.rate import RateLimits, parse_rate


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_requests_to_a_limited_host_are_spaced_and_others_go_at_once():
    clock = Clock()
    limits = RateLimits({"api.example:8443": 4.0, "slow.example": 0.5}, clock)
    assert [limits.delay("https://api.example:8443/a") for _ in range(3)] == [0.0, 0.25, 0.5]
    assert limits.delay("https://api.example/other-port") == 0.0  # not the limited host:port
    assert limits.delay("http://elsewhere/x") == 0.0
    assert [limits.delay("http://user@SLOW.example:81/y") for _ in range(2)] == [0.0, 2.0]  # any port
    clock.now += 10  # an idle spell: the bucket is full again, the next request goes at once
    assert limits.delay("https://api.example:8443/b") == 0.0
    assert limits.delay("https://api.example:8443/c") == 0.25


def test_a_url_with_userinfo_is_limited_by_its_host_and_port():
    limits = RateLimits({"api.example:8443": 2.0}, Clock())
    assert [limits.delay("https://user:pw@api.example:8443/a") for _ in range(2)] == [0.0, 0.5]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("api.example=5/s", ("api.example", 5.0)), ("Host:81=30/min", ("host:81", 0.5)),
     ("h=7200/h", ("h", 2.0))],
)  # fmt: skip
def test_rates_are_read_per_second(text, expected):
    assert parse_rate(text) == expected


@pytest.mark.parametrize("text", ["api.example", "=5/s", "h=5", "h=5/day", "h=0/s", "h=x/s", "h=inf/s"])
def test_a_rate_not_understood_says_what_is_expected(text):
    with pytest.raises(ValueError, match=r"HOST=N/s|above 0|a number"):
        parse_rate(text)
