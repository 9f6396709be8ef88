"""load_path, located errors from LoadedDocument.error, and the shape of messages."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from arazzo_runner.errors import DocumentError
from arazzo_runner.loader import Limits, LoadedDocument, load_path, load_text


def test_load_path_yaml_and_json(tmp_path: Path) -> None:
    (tmp_path / "flow.arazzo.yaml").write_text("arazzo: 1.0.1\nworkflows: []\n", encoding="utf-8")
    (tmp_path / "api.json").write_text('{"openapi": "3.1.0"}', encoding="utf-8")
    doc = load_path(tmp_path / "flow.arazzo.yaml")
    assert doc.data == {"arazzo": "1.0.1", "workflows": []}
    assert doc.file == str(tmp_path / "flow.arazzo.yaml")
    assert load_path(str(tmp_path / "api.json")).data == {"openapi": "3.1.0"}


def test_missing_file_names_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(DocumentError) as info:
        load_path(missing)
    assert info.value.file == str(missing)
    assert str(info.value).startswith(f"{missing}: cannot read the file: ")


def test_directory_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="cannot read the file"):
        load_path(tmp_path)


def test_file_size_limit_uses_the_file_size(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"a: " + b"x" * 100 + b"\n")
    with pytest.raises(DocumentError, match="document is 104 bytes, above the limit of 50 bytes"):
        load_path(path, limits=Limits(max_bytes=50))


def test_errors_in_files_name_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text("info:\n  title: a\n  title: b\n", encoding="utf-8")
    with pytest.raises(DocumentError) as info:
        load_path(path)
    assert str(info.value) == f"{path}:3:3: duplicate key 'title' (first at line 2)"


def test_document_error_is_located_and_raisable() -> None:
    doc = load_text("workflows:\n  - workflowId: w\n    steps: []\n", "flow.yaml")
    err = doc.error("/workflows/0/steps", "a workflow needs at least one step")
    assert isinstance(err, DocumentError)
    assert (err.file, err.line, err.column, err.pointer) == ("flow.yaml", 3, 12, "/workflows/0/steps")
    assert str(err) == "flow.yaml:3:12: a workflow needs at least one step (at /workflows/0/steps)"
    assert doc.error(("workflows", 0, "steps"), "x", key=True).column == 5
    with pytest.raises(DocumentError):
        raise err


def test_error_for_a_missing_member_points_at_its_parent() -> None:
    doc = load_text("workflows:\n  - workflowId: w\n", "flow.yaml")
    err = doc.error("/workflows/0/steps", "missing 'steps'")
    assert (err.line, err.column, err.pointer) == (2, 5, "/workflows/0/steps")


def test_malformed_pointer_locates_the_root() -> None:
    doc = load_text("a:\n  b: 1\n")
    assert doc.positions.locate("no-slash") == (1, 1)


def test_loaded_document_is_immutable() -> None:
    doc = load_text("a: 1\n")
    assert isinstance(doc, LoadedDocument)
    with pytest.raises(AttributeError):
        doc.data = {}  # type: ignore[misc]


def test_garbage_collection_is_restored_after_loading() -> None:
    load_text("a: [1, 2]\n")
    assert gc.isenabled()
    with pytest.raises(DocumentError):
        load_text("a: [1, 2\n")
    assert gc.isenabled()
