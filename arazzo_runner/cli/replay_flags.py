"""`arazzo run --replay-http FILE`: the HAR file read once for the command (`http/har_replay.py`; the
flags themselves are declared with the reports, `report_flags.py`, beside `--record-http`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def opened(args: argparse.Namespace) -> Any:
    """`--replay-http FILE`, read once for the whole command: the rows of `--inputs-file` share it (its
    entries answer once each, in file order, as the rows ask)."""
    path = getattr(args, "replay_http", None)
    if not path:
        return None
    opened = getattr(args, "_http_replay", None)
    if opened is None:
        from ..http.har_replay import HttpReplay

        opened = args._http_replay = HttpReplay.open(path)
    return opened


def replayed_line(args: argparse.Namespace) -> None:
    """On stderr, once the run is over: how many requests `--replay-http` answered (nothing was sent)."""
    opened = getattr(args, "_http_replay", None)
    if opened is not None:
        print(f"replayed from {opened.path}: {opened.answered} request(s) answered, nothing sent",
              file=sys.stderr, flush=True)  # fmt: skip
