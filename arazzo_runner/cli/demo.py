"""`arazzo demo`: the tool-call workflow against the bundled reference server, offline."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "demo",
        help="run the tool-call workflow against the bundled reference server, down both branches (offline)",
    )
    parser.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from ..reference.demo import run_demo as demo

    return demo(sys.stdout)
