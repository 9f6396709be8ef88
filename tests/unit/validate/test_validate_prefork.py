"""`validate/prefork.py`: the estimate that orders `--jobs`'s queue (heaviest first) and the warm-up
every forked process inherits."""

from __future__ import annotations

import sys

from arazzo_runner.validate.prefork import warm, weight

DOC = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions:
  - name: big
    url: ./big.openapi.yaml
  - {name: again, url: 'big.openapi.yaml#/x', type: openapi}
  - name: remote
    url: https://example.invalid/api.yaml
  - name: absolute
    url: /etc/hostname
  - name: missing
    url: ../nowhere.yaml
workflows: []
"""


def test_a_document_weighs_its_size_and_its_local_sources_once(tmp_path):
    (tmp_path / "big.openapi.yaml").write_text("x" * 50_000)
    doc = tmp_path / "flow.arazzo.yaml"
    doc.write_text(DOC)
    # the local file once (two names for it), nothing for a URL, an absolute path or a missing file
    assert weight(str(doc)) == len(DOC.encode()) + 50_000


def test_json_documents_and_unreadable_files(tmp_path):
    (tmp_path / "api.json").write_text("{}" * 100)
    doc = tmp_path / "flow.arazzo.json"
    text = '{"arazzo": "1.1.0", "sourceDescriptions": [{"name": "a", "url": "api.json"}]}'
    doc.write_text(text)
    assert weight(str(doc)) == len(text) + 200
    (tmp_path / "folder.yaml").mkdir()
    assert weight(str(tmp_path / "folder.yaml")) == 0  # not a file: validation says so, it weighs nothing
    named_folder = tmp_path / "b.arazzo.yaml"
    named_folder.write_text("url: ./folder.yaml\n")
    assert weight(str(named_folder)) == len("url: ./folder.yaml\n")  # a folder is no source size


def test_warm_leaves_the_schemas_compiled_and_validation_imported():
    from arazzo_runner.validate import schema

    warm()
    assert "arazzo_runner.validate.core" in sys.modules and "jsonschema" in sys.modules
    assert schema.fast_validator.cache_info().currsize == len(schema.SCHEMA_LINES)


def test_the_collector_is_as_it_was_after_a_validation(tmp_path, capsys):
    import gc

    from arazzo_runner.cli import main

    doc = tmp_path / "flow.arazzo.yaml"
    doc.write_text(DOC.replace("workflows: []", "workflows: [{workflowId: w, steps: []}]"))
    before = gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()
    for jobs in ("1", "2"):
        assert main(["validate", "--offline", "--jobs", jobs, str(doc), str(doc)]) in (0, 1)
        assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before
    assert "flow.arazzo.yaml" in capsys.readouterr().out
