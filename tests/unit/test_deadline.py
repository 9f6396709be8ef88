"""The armed deadline (`arazzo_runner.bounds.deadline`): the tighter of nested ones holds, `disarmed` lifts it
for work that arms its own, and each thread or task sees its own; the source fetcher honours it."""

from __future__ import annotations

import threading

import pytest

from arazzo_runner.bounds.deadline import Deadline, arm, armed, disarmed
from arazzo_runner.errors import SourceError
from arazzo_runner.sources import fetch_source


def test_nothing_is_armed_by_default() -> None:
    assert armed() is None


def test_the_tighter_of_two_deadlines_holds() -> None:
    outer, inner = Deadline(5), Deadline(100)
    with arm(outer):
        with arm(inner) as effective:
            assert effective is outer and armed() is outer
        with arm(Deadline(1)) as effective:
            assert effective is not outer and effective.seconds == 1
        with arm(Deadline(None)) as effective:
            assert effective is outer  # a deadline without an end never loosens one
        assert armed() is outer
    assert armed() is None


def test_disarmed_lifts_it_inside_the_block_only() -> None:
    with arm(Deadline(5)) as outer:
        with disarmed():
            assert armed() is None
        assert armed() is outer


def test_each_thread_sees_its_own() -> None:
    seen: list[object] = []
    with arm(Deadline(5)):
        thread = threading.Thread(target=lambda: seen.append(armed()))
        thread.start()
        thread.join()
    assert seen == [None]


def test_a_fetch_after_the_deadline_reads_nothing(tmp_path) -> None:
    (tmp_path / "a.yaml").write_text("x: 1\n")
    past = Deadline(0)
    with arm(past), pytest.raises(SourceError) as info:
        fetch_source("a.yaml", str(tmp_path / "flow.yaml"))
    assert info.value.message == "run deadline of 0 s exceeded before a.yaml was read"
    assert fetch_source("a.yaml", str(tmp_path / "flow.yaml")).content == b"x: 1\n"
