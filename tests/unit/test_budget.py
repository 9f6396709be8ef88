"""The time budget of one evaluation (`arazzo_runner/bounds/budget.py`): `guarded` stops pure-Python work from
a profile hook, and a run's deadline cuts every budget made inside it, and only there."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
import traceback
from pathlib import Path

import pytest

from arazzo_runner.bounds import budget
from arazzo_runner.bounds.budget import Budget, BudgetExceeded, guarded
from tests.cputime import cpu_bound


def _spin() -> None:
    def step(value: int) -> int:
        return value + 1

    total = 0
    while True:
        total = step(total)


def test_guarded_stops_work_that_never_ends():
    with cpu_bound(5, "a guarded endless loop"), pytest.raises(BudgetExceeded) as info:
        guarded(Budget(0.2), _spin)
    assert str(info.value) == "stopped after 0.2 s"
    assert sys.getprofile() is None


def test_guarded_returns_the_result_and_restores_a_profiler_set_before():
    seen = []

    def profiler(frame, event, arg):
        seen.append(event)

    sys.setprofile(profiler)
    try:
        assert guarded(Budget(5), sorted, [3, 1, 2]) == [1, 2, 3]
        assert sys.getprofile() is profiler
    finally:
        sys.setprofile(None)


def test_a_budget_exceeded_that_the_work_swallows_is_still_reported():
    """A bare `except:` in a library would catch it; the work's result is then not trusted."""

    def swallowing() -> str:
        end = time.monotonic() + 0.6
        while time.monotonic() < end:
            with contextlib.suppress(BaseException):  # what a careless library's bare `except:` does
                len("x")
        return "done"

    with pytest.raises(BudgetExceeded):
        guarded(Budget(0.1), swallowing)


def test_guarded_stops_work_that_grows_the_process_past_its_memory():
    def hoard() -> None:
        kept = []
        while True:
            kept.append([0] * 1000)

    spent = Budget(60, memory=32 * 2**20)
    with cpu_bound(10, "a guarded hoarder"), pytest.raises(BudgetExceeded) as info:
        guarded(spent, hoard)
    assert info.value.memory and str(info.value) == "needs more than 32 MiB of memory"


class _Cyclic:
    """Garbage whose finalizer makes calls: collected while guarded work runs, in the work's thread."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        for _ in range(20):
            len("x")


_SLOW = []  # non-empty while the test below runs its work: its garbage's finalizers are slow then only
_SWALLOWED: list = []  # the test's sys.unraisablehook (a C method: a Python hook would be watched too)


class _SlowCyclic(_Cyclic):
    """Garbage whose finalizer, inside the guarded work, runs until a raise of the budget has been
    swallowed (at most 1 s past the budget's end), so the budget's raise lands in a finalizer every
    time rather than by the luck of where the clock runs out; collected after the work (the test's
    budget no longer current), or once a raise was swallowed, it does nothing. (A finalizer that ran
    its full second wherever it was collected made the test take 150 s once: leftover garbage collected
    after the work, where nothing watches it.)"""

    def __del__(self) -> None:
        spent = budget.current()
        while _SLOW and not _SWALLOWED and spent is not None and time.monotonic() < spent.end + 1.0:
            _tick()  # a Python call: the trace hook sees it once the profile hook is gone


def _tick() -> None:
    return None


def test_guarded_still_stops_work_when_a_finalizer_swallows_the_exception(monkeypatch):
    """A raise inside a finalizer is swallowed ("Exception ignored") and CPython removes the hook that
    raised: the other hook (trace or profile) sets it back and raises again, until the work unwinds.
    Each raise is a new exception: the one that unwinds the work carries the work's frames only, not
    those of every finalizer that swallowed one before."""
    _SWALLOWED.clear()
    monkeypatch.setattr(sys, "unraisablehook", _SWALLOWED.append)

    def littering() -> None:
        while True:
            [_SlowCyclic() for _ in range(200)]

    _SLOW.append(True)
    try:
        with cpu_bound(10, "guarded work that litters"), pytest.raises(BudgetExceeded) as info:
            guarded(Budget(0.2), littering)
    finally:
        _SLOW.clear()
    assert (sys.getprofile(), sys.gettrace()) == (None, None)
    swallowed = [event.exc_value for event in _SWALLOWED if isinstance(event.exc_value, BudgetExceeded)]
    _SWALLOWED.clear()
    assert swallowed  # it did happen
    assert all(exc is not info.value for exc in swallowed)
    frames = [entry.name for entry in traceback.extract_tb(info.value.__traceback__)]
    assert "__del__" not in frames and len(frames) < 12, frames


def test_guarded_raises_only_in_the_works_own_code_when_told_where_it_is(monkeypatch):
    """With `home`, finalizers of other code run on: nothing is swallowed, nothing is reported."""
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    import json

    def littering_json() -> None:
        while True:
            junk = [_Cyclic() for _ in range(200)]
            json.dumps([1, 2, 3])
            del junk

    home = (str(Path(json.__file__).parent),)
    with cpu_bound(10, "guarded work that litters"), pytest.raises(BudgetExceeded):
        guarded(Budget(0.2), littering_json, home=home)
    assert [event for event in unraisable if isinstance(event.exc_value, BudgetExceeded)] == []


def test_guarded_refuses_to_start_once_the_budget_is_spent():
    calls = []
    with pytest.raises(BudgetExceeded):
        guarded(Budget(0), calls.append, 1)
    assert calls == []


def test_the_current_budget_is_visible_inside_guarded_work_only():
    inside = Budget(5)
    assert guarded(inside, budget.current) is inside
    assert budget.current() is None


def test_a_run_deadline_cuts_the_budgets_made_inside_it():
    message = "run deadline of 0.1 s exceeded"
    with budget.deadline((time.monotonic() + 0.1, message)):
        cut = budget.budget(5)
        assert cut.deadline_message == message and cut.cause() == message
        assert cut.left() <= 0.1
        roomy = budget.budget(0.01)  # its own limit comes first
        assert roomy.deadline_message is None and roomy.cause() == "stopped after 0.01 s"
    assert budget.budget(5).deadline_message is None
    with budget.deadline(None):
        assert budget.budget(5).deadline_message is None


def test_a_deadline_belongs_to_its_own_run():
    """Runs in threads, or as concurrent tasks of one loop, each see only their own deadline."""
    seen: dict[str, str | None] = {}

    def other_thread() -> None:
        seen["thread"] = budget.budget(5).deadline_message

    async def run(name: str, seconds: float) -> None:
        with budget.deadline((time.monotonic() + seconds, name)):
            await asyncio.sleep(0.01)  # let the other run set its own
            seen[name] = budget.budget(5).deadline_message

    async def both() -> None:
        await asyncio.gather(run("first", 1), run("second", 2))

    with budget.deadline((time.monotonic() + 1, "main")):
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
    asyncio.run(both())
    assert seen == {"thread": None, "first": "first", "second": "second"}


def test_the_written_out_code_flags_are_inspects():
    """`_RESUMABLE` spells out inspect's CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR (so the module
    does not import inspect): the frames it lets resume are generators and coroutines, nothing else."""
    import inspect

    assert budget._RESUMABLE == inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def test_a_raise_again_says_what_ran_out_as_the_first_did():
    roomy = Budget(5, memory=2**20)
    for first, said in (
        (BudgetExceeded(roomy, memory=True), "needs more than 1 MiB of memory"),
        (BudgetExceeded(roomy), "stopped after 5 s"),
    ):
        again = first.again()
        assert again is not first
        assert (again.budget, again.memory, str(again)) == (roomy, first.memory, said)


def test_each_hook_raises_a_new_exception_when_the_work_swallows_one():
    """The work catches three raises (a bare `except` in a library, say), storing each without a call:
    the profile hook's first, the trace hook's (set by the profile hook as CPython removed it), the
    profile hook's again. Each is a new exception saying the same; the work, ended, is refused too."""
    caught: list[BaseException] = []

    def swallowing() -> None:
        count, first, second, third = 0, None, None, None
        while count < 3:
            try:
                while True:
                    _tick()
            except BudgetExceeded as exc:  # no call in here: a call would be raised at again
                if count == 0:
                    first = exc
                elif count == 1:
                    second = exc
                else:
                    third = exc
                count += 1
        caught.extend((first, second, third))  # a C call: only the trace hook is set, which skips it

    with cpu_bound(10, "guarded work that swallows"), pytest.raises(BudgetExceeded) as info:
        guarded(Budget(0.05), swallowing)
    assert len(caught) == 3 and len({id(exc) for exc in (*caught, info.value)}) == 4, caught  # all new
    assert [str(exc) for exc in caught] == ["stopped after 0.05 s"] * 3
    assert (sys.getprofile(), sys.gettrace()) == (None, None)
