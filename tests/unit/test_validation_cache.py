"""The validation cache: clean verdicts remembered by content; any change means validating again."""

from __future__ import annotations

from pathlib import Path

import yaml

import arazzo_runner
from arazzo_runner.validate.cache import ValidationCache, dependencies

OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1"},
    "paths": {"/a": {"get": {"operationId": "getA", "responses": {"200": {"description": "ok"}}}}},
}
ARAZZO = {
    "arazzo": "1.0.1",
    "info": {"title": "t", "version": "1"},
    "sourceDescriptions": [{"name": "api", "url": "./api.yaml", "type": "openapi"}],
    "workflows": [{"workflowId": "w", "steps": [{"stepId": "s", "operationId": "getA"}]}],
}


def _project(tmp_path: Path) -> Path:
    (tmp_path / "api.yaml").write_text(yaml.safe_dump(OPENAPI))
    path = tmp_path / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(ARAZZO))
    return path


def _loaded(path: Path) -> arazzo_runner.Workspace:
    workspace = arazzo_runner.load(path)
    workspace.source("api")  # what validation reads
    return workspace


def test_a_clean_verdict_is_remembered_and_found_again(tmp_path):
    cache = ValidationCache(tmp_path / "cache")
    path = _project(tmp_path)
    assert not cache.is_clean(_loaded(path))
    cache.remember_clean(_loaded(path))
    assert cache.is_clean(_loaded(path))


def test_changing_the_document_or_a_source_means_validating_again(tmp_path):
    cache = ValidationCache(tmp_path / "cache")
    path = _project(tmp_path)
    cache.remember_clean(_loaded(path))
    (tmp_path / "api.yaml").write_text(yaml.safe_dump({**OPENAPI, "info": {"title": "u", "version": "2"}}))
    assert not cache.is_clean(_loaded(path))
    cache.remember_clean(_loaded(path))
    path.write_text(path.read_text() + "\n# a comment\n")
    assert not cache.is_clean(_loaded(path))


def test_dependencies_list_the_document_and_its_sources(tmp_path):
    path = _project(tmp_path)
    deps = dependencies(_loaded(path))
    assert [Path(d[0]).name for d in deps] == ["flow.arazzo.yaml", "api.yaml"]


def test_remote_documents_are_never_cached(tmp_path):
    workspace = arazzo_runner.loads(yaml.safe_dump(ARAZZO), "https://example.com/flow.arazzo.yaml")
    cache = ValidationCache(tmp_path / "cache")
    cache.remember_clean(workspace)
    assert not cache.is_clean(workspace)
    assert not (tmp_path / "cache").exists()


def test_disabled_by_environment(tmp_path):
    assert ValidationCache.default({"ARAZZO_NO_CACHE": "1"}) is None
    found = ValidationCache.default({"ARAZZO_CACHE_DIR": str(tmp_path)})
    assert found is not None and found.folder == tmp_path / "validated"


def test_run_skips_validation_of_an_unchanged_clean_document(tmp_path, monkeypatch, capsys):
    import arazzo_runner.validate as validate
    from arazzo_runner.cli import main
    from arazzo_runner.validate import core

    monkeypatch.setenv("ARAZZO_CACHE_DIR", str(tmp_path / "cache"))
    path = _project(tmp_path)
    calls = []
    real = core.validate_workspace
    counted = lambda ws, **kw: calls.append(1) or real(ws, **kw)  # noqa: E731
    monkeypatch.setattr(validate, "validate_workspace", counted, raising=False)
    for _ in range(2):  # nothing listens: the step fails, but the document itself is valid
        assert main(["run", str(path), "--server", "api=http://127.0.0.1:9", "--timeout", "0.5"]) == 1
    assert calls == [1]


def test_a_document_with_errors_is_validated_every_time(tmp_path, monkeypatch, capsys):
    from arazzo_runner.cli import main

    monkeypatch.setenv("ARAZZO_CACHE_DIR", str(tmp_path / "cache"))
    path = _project(tmp_path)
    broken = {**ARAZZO, "workflows": [{"workflowId": "w", "steps": [{"stepId": "s", "operationId": "nope"}]}]}
    path.write_text(yaml.safe_dump(broken))
    for _ in range(2):
        assert main(["run", str(path)]) == 2
        assert "operation-exists" in capsys.readouterr().err
    assert not (tmp_path / "cache" / "validated").exists()  # no verdict kept (the parsed data may be)


def test_the_validator_key_follows_the_engine_files(tmp_path, monkeypatch) -> None:
    import os

    from arazzo_runner.validate import cache

    (tmp_path / "rules").mkdir()
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "core.py").write_text("x = 1\n")
    (tmp_path / "rules" / "schema.yaml").write_text("a: 1\n")
    monkeypatch.setattr(cache, "_PACKAGE", tmp_path)
    first = cache._validator_key()
    (tmp_path / "__pycache__" / "core.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "notes.txt").write_text("not code")
    assert cache._validator_key() == first  # bytecode and other files do not count
    stat = (tmp_path / "rules" / "schema.yaml").stat()
    os.utime(tmp_path / "rules" / "schema.yaml", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    second = cache._validator_key()
    assert second != first  # an edited bundled schema
    (tmp_path / "rules" / "extra.py").write_text("")
    assert cache._validator_key() not in (first, second)  # a new module


def test_a_verdict_reached_in_a_sandbox_is_not_reused_outside_it(tmp_path, monkeypatch, capsys):
    """In a sandbox that refuses the source, validation could not check the steps against it (a
    warning, not an error): that clean verdict must not let a run without the sandbox skip validation."""
    import arazzo_runner.validate as validate
    from arazzo_runner.cli import main
    from arazzo_runner.validate import core

    monkeypatch.setenv("ARAZZO_CACHE_DIR", str(tmp_path / "cache"))
    path = _project(tmp_path)
    (tmp_path / "flows").mkdir()
    flow = tmp_path / "flows" / path.name
    flow.write_text(path.read_text().replace("./api.yaml", "../api.yaml"))
    calls = []
    real = core.validate_workspace
    spy = lambda ws, **kw: calls.append(ws.roots) or real(ws, **kw)  # noqa: E731
    monkeypatch.setattr(validate, "validate_workspace", spy, raising=False)
    argv = ["run", str(flow), "--server", "api=http://127.0.0.1:9", "--timeout", "0.5"]
    assert main([*argv, "--sandbox", str(tmp_path / "flows")]) == 2  # the source is refused
    assert "is outside the sandbox" in capsys.readouterr().err
    assert main(argv) == 1  # nothing listens: the step fails, the document is valid
    assert main(argv) == 1
    assert calls == [(str((tmp_path / "flows").resolve()),), None]
