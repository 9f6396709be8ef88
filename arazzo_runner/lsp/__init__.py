"""`arazzo lsp`: a language server (LSP 3.17, over stdio) for Arazzo documents, built on the validator
and the loaded source descriptions (`docs/editor.md`). It needs pygls and lsprotocol (the `lsp` extra).

Modules, one concern each: `server` (the wiring), `state` (open documents and their analyses),
`store` (sources loaded once, re-read when their files change), `text` (offsets and LSP positions),
`model` (lookups in a document's data), `diagnostics`, `completion`, `navigation`, `hover`, `actions`.
"""

from __future__ import annotations


def require_pygls() -> None:
    """UsageError (one line, what to install) when pygls or lsprotocol is missing."""
    try:
        import lsprotocol.types  # noqa: F401
        import pygls.lsp.server  # noqa: F401
    except ImportError:
        from ..errors import UsageError
        from ..extras import install_hint

        raise UsageError(
            f"arazzo lsp needs pygls: {install_hint('lsp')} (or pip install 'pygls>=2.1')"
        ) from None
