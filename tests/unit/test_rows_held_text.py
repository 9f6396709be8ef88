"""The rows' texts of one pass of the event loop go out in one write (`cli/batch_text.HeldText`): ~25 rows
end in a pass at 200 in flight, each was a system call of its own (stdout unbuffered, or flushed). The
texts keep their order, and what is held is written when the loop's pass is over, or at once when asked
(the rows' loop ends)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from types import SimpleNamespace

from arazzo_runner.cli.batch import Row
from arazzo_runner.cli.batch_text import HeldText, RowBuffer, shown_row
from arazzo_runner.masking.secrets import Masker


class _Counted:
    def __init__(self) -> None:
        self.writes: list[str] = []
        self.flushes = 0

    def write(self, text: str) -> int:
        self.writes.append(text)
        return len(text)

    def flush(self) -> None:
        self.flushes += 1


def test_the_texts_of_one_pass_are_one_write_in_their_order():
    out, held = _Counted(), HeldText()

    async def main() -> list[list[str]]:
        seen = []
        for text in ("row 1\n", "row 2\n", "row 3\n"):  # rows ending in the same pass
            held.add(out, text)
        seen.append(list(out.writes))  # nothing written yet: the pass is not over
        await asyncio.sleep(0)  # the next pass: the held texts written first
        seen.append(list(out.writes))
        held.add(out, "row 4\n")
        await asyncio.sleep(0)
        seen.append(list(out.writes))
        return seen

    assert asyncio.run(main()) == [[], ["row 1\nrow 2\nrow 3\n"], ["row 1\nrow 2\nrow 3\n", "row 4\n"]]
    assert out.flushes == 2


def test_what_is_held_is_written_when_asked():
    out, held = _Counted(), HeldText()

    async def main() -> None:
        held.add(out, "row 1\n")
        held.add(out, "row 2\n")

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main())  # the loop stops before its next pass
    finally:
        loop.close()
    held.write()  # as the rows' loop does when it ends, whatever ends it
    held.write()  # (nothing more: written once)
    assert out.writes == ["row 1\nrow 2\n"]


class _Broken:
    """stdout whose reader has gone (`| head`): every write fails."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        pass


def test_a_write_failing_in_the_loops_pass_is_raised_in_the_next_rows_task():
    """The write runs in the loop's callback, where asyncio's handler would print the failure and the
    batch go on sending: it is kept, and the next row to end raises it (which stops the batch)."""
    held, out = HeldText(), _Broken()

    async def main() -> None:
        held.add(out, "row 1\n")
        await asyncio.sleep(0)  # the pass is over: the write fails in the callback
        held.add(out, "row 2\n")

    errors: list[object] = []

    def handler(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        errors.append(context)

    async def run() -> None:
        asyncio.get_running_loop().set_exception_handler(handler)
        await main()

    try:
        asyncio.run(run())
    except BrokenPipeError:
        pass
    else:
        raise AssertionError("the failed write was not raised")
    assert errors == []  # not left to asyncio's handler


def test_a_write_failing_after_the_last_row_is_raised_by_the_last_write():
    held, out = HeldText(), _Broken()

    async def main() -> None:
        held.add(out, "row 1\n")
        await asyncio.sleep(0)

    asyncio.run(main())
    try:
        held.write()  # the rows' loop's last write
    except BrokenPipeError:
        pass
    else:
        raise AssertionError("the failed write was not raised")


def test_a_failed_write_raised_in_a_rows_task_is_not_raised_again_by_the_last_write():
    """Raised once: the rows' loop's last write runs while the batch stops on whatever a row's task raised
    (this failure, or another row's own error first): raising the failure again there would put it in
    place of that error."""
    held, out = HeldText(), _Broken()

    async def main() -> None:
        held.add(out, "row 1\n")
        await asyncio.sleep(0)  # the write fails in the callback
        held.add(out, "row 2\n")  # raises it

    try:
        asyncio.run(main())
    except BrokenPipeError:
        pass
    else:
        raise AssertionError("the failed write was not raised")
    held.write()  # the rows' loop's last write: nothing held, nothing raised again


def test_texts_held_for_one_stream_go_out_before_a_text_for_another():
    """A row's text for another stream than the held texts' (stdout replaced meanwhile): what is held is
    written first, at once, to its own stream; the new text is held for the pass's end."""
    first, second, held = _Counted(), _Counted(), HeldText()

    async def main() -> list[tuple[list[str], list[str]]]:
        held.add(first, "row 1\n")
        held.add(first, "row 2\n")
        held.add(second, "row 3\n")
        seen = [(list(first.writes), list(second.writes))]
        await asyncio.sleep(0)
        seen.append((list(first.writes), list(second.writes)))
        return seen

    assert asyncio.run(main()) == [(["row 1\nrow 2\n"], []), (["row 1\nrow 2\n"], ["row 3\n"])]


def _row(number: int, name: str) -> Row:
    row = Row(number, number, {"name": name}, {"name": name}, options=SimpleNamespace(on_event=None))
    row.buffer = RowBuffer(sys.stdout, ("utf-8", False))
    row.buffer.write(f"trace of {name}\n")
    row.masker = Masker(set())  # no secrets: the row's, as `batch_text.row_masker` finds it once over
    return row


def test_rows_shown_in_one_pass_go_out_in_one_write_under_their_headers(monkeypatch):
    """`shown_row` with the rows' `HeldText`: the rows that end in one pass of the loop are written when
    the pass is over, in one write, each under its header, in the order they ended."""
    out = _Counted()
    monkeypatch.setattr(sys, "stdout", out)
    held, printed = HeldText(), []
    args = argparse.Namespace()

    async def main() -> list[list[str]]:
        shown_row(_row(2, "Tom"), None, None, args, printed, held)
        shown_row(_row(1, "Rex"), None, None, args, printed, held)
        seen = [list(out.writes)]  # nothing yet: the pass is not over
        await asyncio.sleep(0)
        seen.append(list(out.writes))
        return seen

    texts = "== row 2 (line 2): name=Tom\ntrace of Tom\n\n== row 1 (line 1): name=Rex\ntrace of Rex\n"
    assert asyncio.run(main()) == [[], [texts]]
    assert out.flushes == 1
