"""The time one evaluation of a document's expression may take, cut short by the run's deadline.

A criterion, a selector or a payload replacement is evaluated within a `Budget`: its own limit
(`limits.py`), or less when the run's `--deadline` comes first (a run sets it with `deadline()`, for
everything evaluated inside it, in its own context: concurrent runs do not see each other's). Nothing
evaluated for a run may outlive its budget, so that the deadline holds whatever the work is:

* a `regex` match gets the time left as its timeout (the `regex` module stops itself);
* work that counts its own steps (RFC 9535 JSONPath: `query/jsonpath_counted.py`) runs under
  `metered`: every CHECK_EVERY counts it looks at the clock (and at the process's size), and raises
  BudgetExceeded from the count itself, at no cost between two looks;
* other pure-Python work (a pattern's compilation) runs under `guarded`, which stops it from a profile
  hook, at the end of its time or when the process has grown by more than its memory (the hook
  roughly triples the cost of the code it watches);
* what nothing in this process can stop (XPath, the Goessner dialect, a pattern only `re` reads) runs
  in a worker process that is killed at the end of its budget (`bounds/isolated.py`).

Criteria are evaluated on the run's event loop: a budget that ends at the deadline is what lets the
run end there (the loop cannot fire a timer while an evaluation holds it).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from .deadline import armed

T = TypeVar("T")
CHECK_EVERY = 1000  # profile events, or counted steps, between two looks at the clock (a look: ~50 ns)
MEMORY_EVERY = 8  # looks at the clock between two looks at the process's size (~5 µs each)
# inspect.CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR (CPython's code flags, fixed since 3.6), written
# out so every command's start does not import `inspect` (ast, dis, tokenize: ~10 ms); compared with
# inspect's by tests/unit/test_budget.py
_RESUMABLE = 0x20 | 0x80 | 0x200

# (time.monotonic() at which the run's deadline passes, the message that names it), or None
_DEADLINE: ContextVar[tuple[float, str] | None] = ContextVar("arazzo_runner_deadline", default=None)
_CURRENT: ContextVar[Budget | None] = ContextVar("arazzo_runner_budget", default=None)


class Budget:
    """Until when one evaluation may run (`end`, on time.monotonic()), and which bound sets that end:
    its own limit of `seconds`, or the run's deadline (`deadline_message` is then set). `memory`: how
    many bytes the process may grow by while it runs under `guarded` (None: not watched)."""

    __slots__ = ("deadline_message", "end", "memory", "seconds")

    def __init__(
        self, seconds: float, deadline: tuple[float, str] | None = None, memory: int | None = None
    ) -> None:
        self.seconds = seconds
        self.memory = memory
        self.end = time.monotonic() + seconds
        self.deadline_message: str | None = None
        if deadline is not None and deadline[0] < self.end:
            self.end, self.deadline_message = deadline[0], deadline[1]

    def left(self) -> float:
        """Seconds left (at least 0)."""
        return max(0.0, self.end - time.monotonic())

    def cause(self) -> str:
        """Why work stopped at the end of this budget: `stopped after 5 s`, or the deadline's message."""
        return self.deadline_message or f"stopped after {self.seconds:g} s"


class BudgetExceeded(BaseException):
    """Raised inside an evaluation whose budget is spent. A BaseException (as KeyboardInterrupt is), so
    that a library's `except Exception` around its own steps cannot swallow it; callers convert it to
    their error type at their boundary. `memory`: it was the memory, not the time, that ran out."""

    def __init__(self, budget: Budget, memory: bool = False) -> None:
        self.budget, self.memory = budget, memory
        super().__init__(self.cause())

    def again(self) -> BudgetExceeded:
        """A new exception saying the same (`guarded` raises one each time a hook raises)."""
        return BudgetExceeded(self.budget, self.memory)

    def cause(self) -> str:
        if self.memory and self.budget.memory is not None:
            return f"needs more than {self.budget.memory // 2**20} MiB of memory"
        return self.budget.cause()


def budget(seconds: float, memory: int | None = None) -> Budget:
    """A budget of `seconds` from now, ending at the run's deadline instead if that comes first."""
    return Budget(seconds, _run_deadline(), memory)


def _run_deadline() -> tuple[float, str] | None:
    """The earlier of the deadline set with `deadline()` and the one armed for the work in progress
    (`deadline.arm`: `arazzo run` arms `--deadline` before the document is validated and its sources
    loaded, so an XPath compiled then ends there too)."""
    bound = _DEADLINE.get()
    run = armed()
    other = run.bound() if run is not None else None
    if bound is None or (other is not None and other[0] < bound[0]):
        return other
    return bound


def current() -> Budget | None:
    """The budget of the `guarded` evaluation running in this context (None outside one)."""
    return _CURRENT.get()


class deadline:
    """Within the block, every budget ends at `bound[0]` (a time.monotonic() value) at the latest, and
    says `bound[1]` when it does; None: no deadline. Set by a run around everything it evaluates (a
    class, not a generator: `arazzo load` sets one for every run)."""

    __slots__ = ("bound", "token")

    def __init__(self, bound: tuple[float, str] | None) -> None:
        self.bound = bound

    def __enter__(self) -> None:
        self.token = _DEADLINE.set(self.bound)

    def __exit__(self, *exc_info: object) -> None:
        _DEADLINE.reset(self.token)


class Meter:
    """The count of one `metered` evaluation: the work calls `look()` when `count` reaches 0 (it
    decrements `count` itself, inline: a call per step would cost more than the step's bookkeeping)."""

    __slots__ = ("budget", "ceiling", "count", "looks")

    def __init__(self, spent: Budget | None) -> None:
        self.budget = spent
        self.count, self.looks = CHECK_EVERY, MEMORY_EVERY
        memory = spent.memory if spent is not None else None
        self.ceiling = _resident_size() + memory if memory is not None else None

    def look(self) -> None:
        """Past the budget's end, or the process grown past its memory: BudgetExceeded. The size is
        read every MEMORY_EVERY looks, and at once after a count charged many steps together."""
        heavy = self.count < -CHECK_EVERY
        self.count = CHECK_EVERY
        spent = self.budget
        if spent is None:  # counted work evaluated outside `metered`: not bounded here
            return
        if time.monotonic() >= spent.end:
            raise BudgetExceeded(spent)
        if self.ceiling is not None:
            self.looks -= 1
            if self.looks <= 0 or heavy:
                self.looks = MEMORY_EVERY
                if _resident_size() > self.ceiling:
                    raise BudgetExceeded(spent, memory=True)


# outside `metered`, one shared Meter that bounds nothing (its count is reset at each look): the counting
# code then needs no test for None
_UNBOUNDED = Meter(None)
_METER: ContextVar[Meter] = ContextVar("arazzo_runner_meter", default=_UNBOUNDED)
current_meter = _METER.get  # the Meter of the `metered` evaluation running in this context


def metered(spent: Budget, work: Callable[..., T], *args: Any) -> T:
    """`work(*args)`, for work that counts its own steps on `current_meter()` (and calls its `look()`
    every CHECK_EVERY of them): BudgetExceeded, raised from the count, once `spent` runs out or the
    process has grown by more than `spent.memory`. No hook: the exception is raised by the work's own
    code, where it counts, and unwinds it as any other. `current()` is `spent` meanwhile (a C call the
    work makes, such as `regex` matching, takes the time left from it)."""
    if time.monotonic() >= spent.end:
        raise BudgetExceeded(spent)
    meter, current = _METER.set(Meter(spent)), _CURRENT.set(spent)
    try:
        return work(*args)
    finally:
        _CURRENT.reset(current)
        _METER.reset(meter)


def guarded(spent: Budget, work: Callable[..., T], *args: Any, home: tuple[str, ...] = ()) -> T:
    """`work(*args)`, stopped with BudgetExceeded once `spent` runs out.

    A profile hook looks at the clock every CHECK_EVERY Python or C function calls and returns, and at
    the process's resident size every MEMORY_EVERY looks (when `spent.memory` is set: growth past it
    stops the work; the size is the whole process's, so a concurrent run's growth counts too). It
    raises from inside the work, which unwinds it. A single C call that runs long is not interrupted:
    the callers give such calls (`regex` matching) the time left as their own timeout. The hook costs
    about 3x on the guarded code, paid only while it runs; a profiler or tracer set before is restored.

    CPython removes a hook that raises, and an exception raised where it is swallowed would leave the
    work unguarded: a finalizer of any garbage collected meanwhile runs in this thread ("Exception
    ignored in __del__" is all that would remain), a library may have a bare `except:`. So once the
    budget is spent the hooks raise only in the work's own code (files under `home`, when given: other
    code, a finalizer's, runs on), never when a generator resumes (while the exception unwinds, the
    work's suspended generators are closed, and their frames run again: only a call they make counts),
    and a trace hook is set too: each of the two sets the other back before raising, until the
    exception unwinds the work.

    Every raise is a new exception saying the same (`BudgetExceeded.again`; `fired`, the first, is never
    raised itself): re-raising one object would chain every raise's frames onto its traceback, those
    of the finalizers that swallowed it included, keeping them all alive. Not covered: a finalizer that
    the collector runs *inside* a hook (an allocation there can start a collection) runs with neither
    hook called, so it is not stopped; a finalizer is the engine's or its libraries' code (no code comes
    from a document), which runs in microseconds."""
    end, clock = spent.end, time.monotonic
    if clock() >= end:
        raise BudgetExceeded(spent)
    ceiling = _resident_size() + spent.memory if spent.memory is not None else None
    countdown, looks = CHECK_EVERY, MEMORY_EVERY
    fired: BudgetExceeded | None = None
    done = False  # the work is over: the hooks must not raise in `guarded`'s own clean-up

    def may_raise(frame: Any, event: str) -> bool:
        if done or frame is None or event not in ("call", "c_call"):
            return False
        if event == "call" and frame.f_code.co_flags & _RESUMABLE:
            return False  # a generator resuming: it may be one being closed while the exception unwinds
        return not home or frame.f_code.co_filename.startswith(home)

    def on_trace(frame: Any, event: str, arg: Any) -> None:
        if fired is not None and may_raise(frame, event):
            sys.setprofile(on_profile)
            raise fired.again()
        return None

    def on_profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal countdown, looks, fired
        if done:
            return
        if fired is not None:
            if may_raise(frame, event):
                sys.settrace(on_trace)
                raise fired.again()
            return
        countdown -= 1
        if countdown > 0:
            return
        countdown = CHECK_EVERY
        looks -= 1
        if clock() >= end:
            fired = BudgetExceeded(spent)
        elif ceiling is not None and looks <= 0:
            looks = MEMORY_EVERY
            if _resident_size() > ceiling:
                fired = BudgetExceeded(spent, memory=True)
        if fired is not None and may_raise(frame, event):
            sys.settrace(on_trace)
            raise fired.again()

    previous_profile, previous_trace = sys.getprofile(), sys.gettrace()
    token = _CURRENT.set(spent)
    sys.setprofile(on_profile)
    try:
        result = work(*args)
    finally:
        done = True
        sys.setprofile(previous_profile)
        sys.settrace(previous_trace)
        _CURRENT.reset(token)
    if fired is not None:  # raised, yet swallowed by a bare `except:` in the work: not a result to trust
        raise fired.again()
    return result


def _resident_size() -> int:
    """This process's resident memory in bytes: current on Linux (/proc), else the peak so far."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KiB elsewhere
    except ImportError:  # Windows: not watched
        return 0


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
