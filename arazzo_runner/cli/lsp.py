"""`arazzo lsp`: the language server over stdio (`arazzo_runner.lsp`, docs/editor.md). It needs pygls
(the `lsp` extra): without it, one line says what to install (exit 2)."""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_OK


def register(commands: Any) -> None:
    parser = commands.add_parser("lsp", help="serve a language server for editors (stdio)")
    parser.add_argument(
        "--offline",
        action="store_true",
        help="never fetch a remote source description (as `arazzo validate --offline`)",
    )
    parser.add_argument(
        "--stdio", action="store_true", help="serve over stdin and stdout (the default and only transport)"
    )
    parser.set_defaults(handler=lsp_command)


def lsp_command(args: argparse.Namespace) -> int:
    from ..lsp import require_pygls

    require_pygls()
    from ..lsp.server import serve_stdio

    serve_stdio(offline=args.offline)
    return EXIT_OK
