"""The rows' texts of one pass of the event loop go out in one write (`cli/batch_text.HeldText`): ~25 rows
end in a pass at 200 in flight, each was a system call of its own (stdout unbuffered, or flushed). The
texts keep their order, and what is held is written when the loop's pass is over, or at once when asked
(the rows' loop ends)."""

from __future__ import annotations

import asyncio

from arazzo_runner.cli.batch_text import HeldText


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
