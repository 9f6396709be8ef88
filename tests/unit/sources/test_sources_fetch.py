"""Resolving source locations and reading local files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arazzo_runner.errors import SourceError
from arazzo_runner.sources import fetch_source, load_openapi, resolve_location

MINIMAL = """\
openapi: 3.1.0
info: {title: Minimal, version: "1"}
paths: {}
"""


def test_relative_url_resolves_against_the_arazzo_files_directory(write, tmp_path: Path) -> None:
    spec = write("openapi/pets.yaml", MINIMAL)
    arazzo = write("workflows/nested/flow.arazzo.yaml", "arazzo: 1.0.1\n")
    fetched = fetch_source("../../openapi/pets.yaml", str(arazzo))
    assert fetched.location == str(spec)
    assert fetched.content.startswith(b"openapi: 3.1.0")


def test_base_may_be_a_directory_or_a_file_uri(write, tmp_path: Path) -> None:
    spec = write("openapi/pets.yaml", MINIMAL)
    arazzo = write("workflows/flow.arazzo.yaml", "arazzo: 1.0.1\n")
    assert resolve_location("../openapi/pets.yaml", str(tmp_path / "workflows")) == str(spec)
    assert resolve_location("../openapi/pets.yaml", arazzo.as_uri()) == str(spec)


def test_absolute_paths_and_file_uris(write, tmp_path: Path) -> None:
    spec = write("my specs/pets.yaml", MINIMAL)
    assert fetch_source(str(spec), None).location == str(spec)
    assert fetch_source(spec.as_uri(), "/elsewhere/flow.yaml").location == str(spec)  # %20 decoded


def test_relative_url_without_base_uses_the_working_directory(write, tmp_path: Path, monkeypatch) -> None:
    write("pets.yaml", MINIMAL)
    monkeypatch.chdir(tmp_path)
    assert fetch_source("pets.yaml", None).location == str(tmp_path / "pets.yaml")


def test_relative_url_against_an_http_base() -> None:
    base = "https://example.com/flows/main.arazzo.yaml"
    assert resolve_location("../specs/pets.yaml", base) == "https://example.com/specs/pets.yaml"
    assert resolve_location("https://other.org/a.json#frag", base) == "https://other.org/a.json"


def test_missing_file_names_the_url_and_the_resolved_path(write, tmp_path: Path) -> None:
    arazzo = write("workflows/flow.arazzo.yaml", "arazzo: 1.0.1\n")
    with pytest.raises(SourceError) as caught:
        load_openapi("../openapi/x.yml", str(arazzo))
    expected = os.path.join(str(tmp_path), "openapi", "x.yml")
    assert caught.value.message == f"cannot read ../openapi/x.yml: file not found (resolved to {expected})"
    assert caught.value.file == str(arazzo)


def test_directory_and_unsupported_scheme(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="it is a directory"):
        fetch_source(str(tmp_path), None)
    with pytest.raises(SourceError, match="unsupported URL scheme 'ftp'"):
        fetch_source("ftp://example.com/pets.yaml", None)
    with pytest.raises(SourceError, match="must not be empty"):
        fetch_source("", None)


def test_local_size_limit(write) -> None:
    spec = write("big.yaml", "x" * 500)
    with pytest.raises(SourceError, match="larger than the 100 bytes limit"):
        fetch_source(str(spec), None, max_bytes=100)
    assert len(fetch_source(str(spec), None, max_bytes=500).content) == 500


def test_local_files_do_not_import_httpx(write) -> None:
    import subprocess
    import sys

    spec = write("pets.yaml", MINIMAL)
    code = (
        "import sys; from arazzo_runner.sources import load_openapi; "
        f"load_openapi({str(spec)!r}); print('httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_invalid_yaml_is_a_located_source_error(write) -> None:
    spec = write("broken.yaml", "openapi: 3.0.0\npaths: [unclosed\n")
    with pytest.raises(SourceError) as caught:
        load_openapi(str(spec), None)
    assert caught.value.file == str(spec)
    assert caught.value.line >= 2


def test_fetched_text_decodes_utf8(write) -> None:
    spec = write("bom.yaml", "\ufeffopenapi: 3.1.0\n")
    assert fetch_source(str(spec), None).text == "openapi: 3.1.0\n"
    spec.write_bytes(b"title: caf\xe9\n")
    with pytest.raises(SourceError, match="not UTF-8 text: byte 0xe9 at offset 10"):
        _ = fetch_source(str(spec), None).text
