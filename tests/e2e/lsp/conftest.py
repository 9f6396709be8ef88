"""The language server under test, `arazzo lsp` as a process of its own, driven over its real stdin and
stdout by pytest-lsp's JSON-RPC client (a client this project did not write). `client` opens a session
whose folder is a copy of `docs/` (an OpenAPI file and a valid Arazzo document) in a temporary folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Union

import pytest

from tests.untested import not_installed

pytest.importorskip("pytest_lsp", reason=not_installed("pytest_lsp", "`arazzo lsp` over stdio"))
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from .kit import SERVER, copy_docs, server_env


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=server_env()))
async def client(lsp_client: LanguageClient, tmp_path: Path):
    copy_docs(tmp_path)
    _read_code_actions_as_the_spec_says(lsp_client)
    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri()
    )
    await lsp_client.initialize_session(params)
    lsp_client.folder = tmp_path  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def _read_code_actions_as_the_spec_says(client: LanguageClient) -> None:
    """lsprotocol 2025.0.0 reads every code action that carries a `command` as a bare Command (its hook
    asks only whether the key is there): a CodeAction's `command` is an object, a Command's a string."""
    converter = client.protocol._converter

    def structure(value: Any, _: Any) -> Any:
        bare = isinstance(value.get("command"), str)
        return converter.structure(value, types.Command if bare else types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], structure)  # noqa: UP007
