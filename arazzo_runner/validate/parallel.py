"""`arazzo validate` of many files on several CPUs: forked copies of the command take the files one
by one from a shared queue; the reports come back (as JSON data) in the files' order.

Why fork: a child starts with everything the parent imported and read (settings, loaded modules), so
a file costs only its own work; a spawned interpreter would import the engine again (~0.1 s) for each.
Why a queue rather than fixed chunks: the cost of a file is its sources (a 2 MB description costs 100
times a small document), known only roughly before it is loaded; a process that is done takes the next
file. The queue hands out the heaviest files first (`weight`, an estimate): a 2 MB description taken
last would keep one process busy long after the others ran out of work. It is a pipe filled before the
fork with one 4-byte record per batch of files; every process reads 4 bytes at a time (a pipe's reads
are serialized, so a record is never split between readers).

`prepare` runs once, here, before the fork, and only when forking: what every process would otherwise
do for itself (imports, compiled schemas) is done once and inherited, so a second process costs its
share of the files and little more (it cost ~0.2 s of CPU of imports and compiles before).

Each process keeps its own parsed-source cache (`context`) and starts its own XPath worker when it
needs one, so a report says exactly what it says when its file is validated alone (tested: `--jobs 1`
and `--jobs N` print the same bytes). Files whose validation will need the XPath worker (`reserved`)
are validated by this process, last: its worker is started (`at_start`) when the children are forked
and is ready by then.

When it does not fork, and validates every file here in order instead: one job, no `os.fork`
(Windows), another thread already running (forking a process with threads can copy a lock some thread
holds; the command has none at this point, an embedding program may), or a queue that does not fit the
pipe at once. A child that fails in any way (an exception, a signal, a truncated answer) costs only
time: the files it took are validated again here, so an error surfaces in this process as it would
have without `--jobs`.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Collection, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_FILES_PER_JOB = 8  # below this a process's share is about what it costs to fork and reap one
MAX_BATCHES = 1024  # records in the queue: 4 KiB, within any platform's pipe buffer
_RECORD = 4


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity where the platform says, else the count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def jobs_for(requested: int | None, files: int) -> int:
    """How many processes validate `files` files: `requested`, or (None) as many as the CPUs allow with
    at least `MIN_FILES_PER_JOB` files each; never more than there are files."""
    if requested is not None and requested > 0:
        return max(1, min(requested, files))
    return max(1, min(available_cpus(), files // MIN_FILES_PER_JOB))


def batches(indexes: Sequence[int], count: int) -> list[list[int]]:
    """`indexes` in at most `count` contiguous batches of sizes that differ by at most one."""
    count = max(1, min(count, len(indexes)))
    size, extra = divmod(len(indexes), count)
    out, start = [], 0
    for number in range(count):
        end = start + size + (1 if number < extra else 0)
        out.append(list(indexes[start:end]))
        start = end
    return [batch for batch in out if batch]


def can_fork() -> bool:
    return hasattr(os, "fork") and threading.active_count() == 1


def map_ordered(
    func: Callable[[T, Any], R],
    items: Sequence[T],
    jobs: int,
    *,
    context: Callable[[], Any] = lambda: None,
    reserved: Collection[int] = (),
    at_start: Callable[[], None] = lambda: None,
    prepare: Callable[[], None] = lambda: None,
    weight: Callable[[T], float] | None = None,
    encode: Callable[[R], Any] = lambda value: value,
    decode: Callable[[Any], R] = lambda data: data,
) -> list[R]:
    """`[func(item, ctx) for item in items]` over `jobs` processes, `ctx = context()` made once in each;
    `at_start()` runs in this process before any item; the items at `reserved` indexes are done here,
    after the queue; `prepare()` runs before forking (not at all without a fork); the queue hands out
    the items of largest `weight(item)` first. A child's results come back as JSON: `encode` makes a
    result JSON data, `decode` rebuilds it (no pickle: nothing in the package deserialises code-bearing
    formats)."""
    queue = None
    if jobs > 1 and can_fork():
        prepare()
        if can_fork():  # `prepare` started no thread
            queue = _queue(_order(items, reserved, weight))
    if queue is None:
        at_start()
        ctx = context()
        return [func(item, ctx) for item in items]
    fd, work = queue

    def answer() -> bytes:  # what a child sends back: its (index, result) pairs as JSON
        pairs = [[index, encode(result)] for index, result in _drain(func, items, context(), fd, work)]
        return json.dumps(pairs).encode()  # ASCII: a lone surrogate in a message survives

    children = [_fork(answer) for _ in range(jobs - 1)]
    at_start()
    ctx = context()
    done = dict(_drain(func, items, ctx, fd, work))
    done.update((index, func(items[index], ctx)) for index in sorted(reserved))
    for pid, reply in children:
        done.update(_collect(pid, reply, decode))
    os.close(fd)
    return [done[index] if index in done else func(items[index], ctx) for index in range(len(items))]


def _order(items: Sequence[T], reserved: Collection[int], weight: Callable[[T], float] | None) -> list[int]:
    """The unreserved indexes in the order the queue hands them out: heaviest first, else as given."""
    indexes = [index for index in range(len(items)) if index not in reserved]
    if weight is None:
        return indexes
    weights = {index: weight(items[index]) for index in indexes}
    return sorted(indexes, key=lambda index: -weights[index])  # stable: equal weights keep their order


def _queue(order: list[int]) -> tuple[int, list[list[int]]] | None:
    """The read end of a pipe holding one record per batch of `order`'s indexes, and the batches;
    None when the records could not all be written at once (the caller then works alone)."""
    work = batches(order, MAX_BATCHES)
    records = b"".join(number.to_bytes(_RECORD, "little") for number in range(len(work)))
    read_end, write_end = os.pipe()
    try:
        os.set_blocking(write_end, False)
        written = os.write(write_end, records) if records else 0
    except OSError:
        written = -1
    finally:
        os.close(write_end)  # every reader sees the end once the records are taken
    if written != len(records):
        os.close(read_end)
        return None
    return read_end, work


def _drain(func: Callable[[Any, Any], Any], items: Sequence[Any], ctx: Any, fd: int, work: list[list[int]]):
    """(index, result) of every item of the batches this process takes from the queue."""
    done = []
    while len(record := os.read(fd, _RECORD)) == _RECORD:
        for index in work[int.from_bytes(record, "little")]:
            done.append((index, func(items[index], ctx)))
    return done


def _fork(answer: Callable[[], bytes]) -> tuple[int, int]:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer through its pipe and leave without running the parent's exit code
        status = 1
        try:
            os.close(read_end)
            data = answer()
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            status = 0
        except BaseException:  # any failure: the parent validates the child's files
            pass
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _collect(pid: int, answer: int, decode: Callable[[Any], Any]) -> list[tuple[int, Any]]:
    """The child's (index, result) pairs; none when it did not answer in full (its files are redone)."""
    try:
        with os.fdopen(answer, "rb") as stream:
            data = stream.read()
    except OSError:
        data = b""
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return []
    try:
        return [(index, decode(value)) for index, value in json.loads(data)]
    except (ValueError, TypeError, KeyError, IndexError):  # a truncated or unexpected answer: redone
        return []
