"""`arazzo agent --format text`: the run shown as it goes (`docs/agents.md`, *Watching it work*).

The model's text is printed as it arrives (masked by the loop, held back while it could be the start
of a secret), after `turn N text: `, each further line of it indented (a model's text cannot forge
a `turn N:` or a tool call's line); the end of the answer ends the line. A text followed by tool calls
is not the answer, and a line says so. Each tool call gets a line when it starts (`→`, its name, its
id, its masked arguments) and one when it ends (`✓`/`✗`, its id, its summary); the calls of one
answer run at once, so the end lines come in the order the calls finish. A non-tty stdout gets the same
lines (each write flushed).
"""

from __future__ import annotations

import json
import sys
from typing import Any

ARGUMENTS_SHOWN = 200  # characters of a call's arguments a start line shows
CONTINUED = "    "  # before each further line of a text: no text can pass for a line of the loop's own


class Watcher:
    def __init__(self, out: Any = None) -> None:
        self._out = out or sys.stdout
        self._text_turn = 0  # the turn whose text line is open (0: none)
        self._calls_turn = 0  # the last turn whose tool calls were announced

    def on_text(self, turn: int, text: str) -> None:
        if self._text_turn != turn:
            self._end_text()
            self._write(f"turn {turn} text: ")
            self._text_turn = turn
        self._write(text.replace("\n", "\n" + CONTINUED))

    def on_tool_start(self, turn: int, call_id: str, name: str, arguments: Any) -> None:
        if self._calls_turn != turn:
            if self._text_turn == turn:
                self._end_text()
                self._line(f"turn {turn}: that text is not the final answer: the model calls tools")
            else:
                self._end_text()
                self._line(f"turn {turn}: the model calls tools")
            self._calls_turn = turn
        shown = json.dumps(arguments, ensure_ascii=False, default=str)
        if len(shown) > ARGUMENTS_SHOWN:
            shown = shown[:ARGUMENTS_SHOWN] + "..."
        self._line(f"  → {name} [{call_id}] {shown}")

    def on_tool_end(self, call: Any) -> None:
        outcome = call.outcome
        mark = "✓" if outcome.ok else "✗"
        self._line(f"  {mark} {outcome.name} [{call.id}]: {outcome.summary}")

    def finish(self, result: Any) -> None:
        """After the loop: the end of the last answer's line, and what that answer was."""
        open_turn = self._text_turn
        self._end_text()
        kind = (result.error or {}).get("kind")
        if open_turn and not result.ok and kind != "incomplete":
            self._line(
                f"turn {open_turn}: that text is not an answer: the run failed ({kind}; see the error)"
            )
        elif result.ok:
            self._line(f"turn {result.turns}: the model answered")
        elif result.error and result.error["kind"] == "incomplete":
            reason = result.finish_reason
            self._line(
                f"turn {result.turns}: that text is incomplete (finish_reason {reason}), not an answer"
            )

    def _end_text(self) -> None:
        if self._text_turn:
            self._write("\n")
            self._text_turn = 0

    def _line(self, text: str) -> None:
        self._write(text + "\n")

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()
