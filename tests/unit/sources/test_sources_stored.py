"""The parsed-source store's own rules (tests/e2e/test_parsed_store.py runs it across processes)."""

from __future__ import annotations

import json

import pytest
import yaml

import arazzo_runner.sources.cache as cache_module
from arazzo_runner.sources import SourceCache, load_openapi, stored
from arazzo_runner.sources.parse import parse_source, parse_stored
from arazzo_runner.sources.stored import ParsedStore, cache_base

BIG = (
    "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n"
    + "".join(
        f"  /p{i}:\n    get:\n      operationId: op{i}\n      description: {'x' * 40}\n"
        f"      responses: {{'200': {{description: ok}}}}\n"
        for i in range(400)
    )
).encode()


def test_the_store_follows_the_engine_cache_folder_and_its_switch(tmp_path):
    assert cache_base({"ARAZZO_CACHE_DIR": str(tmp_path)}) == str(tmp_path)
    assert cache_base({"XDG_CACHE_HOME": str(tmp_path)}) == str(tmp_path / "arazzo-engine")
    assert ParsedStore.default({"ARAZZO_NO_CACHE": "1", "ARAZZO_CACHE_DIR": str(tmp_path)}) is None
    found = ParsedStore.default({"ARAZZO_CACHE_DIR": str(tmp_path)})
    assert found is not None and found.folder == tmp_path / "sources"


def test_only_local_documents_of_some_size_are_kept(tmp_path):
    store = ParsedStore(tmp_path / "s")
    assert len(BIG) >= stored.MIN_BYTES
    assert store.worth_it(str(tmp_path / "api.yaml"), BIG)
    assert not store.worth_it(str(tmp_path / "api.yaml"), BIG[: stored.MIN_BYTES - 1])
    for remote in ("http://h/api.yaml", "https://h/api.yaml"):
        assert not store.worth_it(remote, BIG)
        doc = parse_stored(BIG, remote, store, parse_source)
        assert doc.data["paths"]["/p1"]["get"]["operationId"] == "op1"
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["key"]  # nothing kept for them


@pytest.mark.parametrize("kind", ["yaml", "json"])
def test_a_hit_gives_the_same_data_and_positions(tmp_path, kind):
    content = BIG if kind == "yaml" else json.dumps(yaml.safe_load(BIG), indent=1).encode()
    location = str(tmp_path / f"api.{kind}")
    store = ParsedStore(tmp_path / "s")
    parsed = parse_source(content, location)
    where = (623, 26) if kind == "yaml" else parsed.locate("/paths/~1p123/get/responses/200")
    assert where[0] > 600  # a real position, deep in the file
    calls = []

    def counting(content, where):
        calls.append(where)
        return parse_source(content, where)

    first = parse_stored(content, location, store, counting)
    second = parse_stored(content, location, store, counting)
    assert calls == [location]
    assert first.data == second.data == parsed.data
    pointer = "/paths/~1p123/get/responses/200"
    assert first.locate(pointer) == parsed.locate(pointer) == where
    third = parse_stored(content, location, store, counting)  # positions from the store now
    assert third.locate(pointer) == where and calls == [location]
    assert third.locate("/paths/~1p7/get/operationId") == parsed.locate("/paths/~1p7/get/operationId")


def test_a_tree_of_many_small_documents_keeps_every_entry(tmp_path):
    """300 documents' entries (a project of small YAML files: each keeps one) all stay: with 256 files
    at most, such a tree evicted its own entries as it went, and every later validate parsed again."""
    store = ParsedStore(tmp_path / "s")
    for index in range(300):
        parse_stored(BIG, str(tmp_path / f"api{index}.yaml"), store, parse_source)
    assert len([p for p in (tmp_path / "s").iterdir() if p.name != "key"]) == 300
    calls: list[str] = []

    def counting(content, location):
        calls.append(location)
        return parse_source(content, location)

    for index in range(300):
        parse_stored(BIG, str(tmp_path / f"api{index}.yaml"), store, counting)
    assert calls == []


def test_the_store_keeps_at_most_its_bounds(tmp_path, monkeypatch):
    monkeypatch.setattr(stored, "MAX_ENTRIES", 3)
    store = ParsedStore(tmp_path / "s")
    for index in range(6):
        parse_stored(BIG, str(tmp_path / f"api{index}.yaml"), store, parse_source)
    entries = [p for p in (tmp_path / "s").iterdir() if p.name != "key"]
    assert len(entries) == 3
    monkeypatch.setattr(stored, "MAX_BYTES", 2 * entries[0].stat().st_size)
    parse_stored(BIG, str(tmp_path / "api6.yaml"), store, parse_source)
    assert len([p for p in (tmp_path / "s").iterdir() if p.name != "key"]) == 2


def test_a_folder_that_cannot_be_made_means_no_store(tmp_path):
    (tmp_path / "file").write_text("x")
    store = ParsedStore(tmp_path / "file" / "s")  # below a file: never a folder
    doc = parse_stored(BIG, str(tmp_path / "api.yaml"), store, parse_source)
    assert doc.data["openapi"] == "3.1.0" and not store.worth_it(str(tmp_path / "api.yaml"), BIG)


def test_a_source_cache_reads_back_through_the_store(tmp_path, monkeypatch):
    monkeypatch.setenv("ARAZZO_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "api.yaml").write_bytes(BIG)
    calls = []
    real = cache_module.parse_source
    monkeypatch.setattr(cache_module, "parse_source", lambda c, w: calls.append(w) or real(c, w))
    base = str(tmp_path / "flow.arazzo.yaml")
    first = load_openapi("api.yaml", base, cache=SourceCache())
    second = load_openapi("api.yaml", base, cache=SourceCache())
    assert len(calls) == 1
    assert [o.operation_id for o in first.operations] == [o.operation_id for o in second.operations]
    assert second.operation("op399") is not None
    load_openapi("api.yaml", base, cache=SourceCache(stored=False))
    assert len(calls) == 2


def test_a_fact_is_read_back_only_for_the_same_bytes_and_the_same_stamp(tmp_path):
    """`Facts.get` gives a kept fact back while the document's bytes and the fact's stamp (the engine
    and validators it was worked out with) are the same; another stamp or an edit works it out again."""
    store = ParsedStore(tmp_path / "sources")
    location = str(tmp_path / "flow.arazzo.yaml")
    worked_out: list[str] = []

    def making(value: str):
        return lambda: worked_out.append(value) or value

    facts = stored.Facts(store, location, b"a: 1\n", 0)
    assert facts.get("verdict", "engine-1", making("first")) == "first"
    assert stored.Facts(store, location, b"a: 1\n", 0).get("verdict", "engine-1", making("x")) == "first"
    assert facts.get("verdict", "engine-2", making("upgraded")) == "upgraded"  # another engine
    assert (
        stored.Facts(store, location, b"a: 2\n", 0).get("verdict", "engine-2", making("edited")) == "edited"
    )
    assert facts.get("other", "engine-2", lambda: stored.Facts.UNKEPT) is None  # nothing to keep...
    assert facts.get("other", "engine-2", making("made")) == "made"  # ...so worked out the next time
    assert worked_out == ["first", "upgraded", "edited", "made"]


def test_the_stamp_of_a_kept_verdict_changes_with_the_engine(monkeypatch):
    """A schema verdict kept for a document's bytes depends on the engine's own files too
    (`cache._validator_key`): a changed engine must not read an old verdict back."""
    from arazzo_runner.validate import cache, stored_document

    stamps = []
    for engine in ("engine-files-1", "engine-files-2"):
        monkeypatch.setattr(cache, "_validator_key", lambda engine=engine: engine)
        stored_document.engine_stamp.cache_clear()
        stamps.append(stored_document.engine_stamp())
    stored_document.engine_stamp.cache_clear()
    assert stamps[0] != stamps[1]
    assert all("jsonschema_rs:" in stamp for stamp in stamps)
