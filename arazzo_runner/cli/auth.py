"""`arazzo auth FILE`: each security scheme of the sources, where its credential goes, and the variables
to set (never a value)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import add_document, dump_json, load_document


def register(commands: Any) -> None:
    auth = commands.add_parser(
        "auth", help="list the security schemes of a document's sources and the variables to set"
    )
    add_document(auth)
    auth.add_argument("--format", choices=("text", "json"), default="text")
    auth.set_defaults(handler=run_auth)


def run_auth(args: argparse.Namespace) -> int:
    from ..http.auth_listing import describe_security, render_security

    entries = describe_security(load_document(args))
    if args.format == "json":
        dump_json(entries)
    else:
        sys.stdout.write(render_security(entries))
    return 0
