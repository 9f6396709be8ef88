"""`arazzo upgrade FILE [--to 1.1.0]`: the version line rewritten in place, every other byte kept; forms
that would mean something else in 1.1 (or be errors) stop it, each listed, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from arazzo_runner.validate.upgrade import upgrade_path
from tests.e2e.helpers import cli
from tests.shared import MISSING, SHARED

from .conftest import OPENAPI
from .test_fix_corpus import DOCUMENTS

DOC = """\
# a comment first
arazzo: {version}   # the version
info: {{title: t, version: '1'}}
sourceDescriptions: [{{name: api, url: ./api.yaml, type: openapi}}]
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs: {{first: $response.body#/0/id}}
{extra}"""


def _write(tmp_path: Path, version: str = "1.0.1", extra: str = "", name: str = "flow.arazzo.yaml") -> Path:
    (tmp_path / "api.yaml").write_text(OPENAPI, encoding="utf-8")
    path = tmp_path / name
    path.write_text(DOC.format(version=version, extra=extra), encoding="utf-8")
    return path


@pytest.mark.parametrize("written", ["1.0.1", "'1.0.0'", '"1.0.1"'])
def test_the_version_is_rewritten_in_its_own_quoting(tmp_path: Path, capsys, written: str) -> None:
    path = _write(tmp_path, written)
    before = path.read_text(encoding="utf-8")
    run = cli(capsys, "upgrade", path)
    assert run.code == 0, run.out + run.err
    assert run.out == f"{path}: upgraded {written.strip(chr(39) + chr(34))} -> 1.1.0\n"
    quote = written[0] if written[0] in "'\"" else ""
    assert path.read_text(encoding="utf-8") == before.replace(written, f"{quote}1.1.0{quote}")
    assert cli(capsys, "validate", path).code == 0
    again = cli(capsys, "upgrade", path)
    assert (again.code, again.out) == (0, f"{path}: already 1.1.0: nothing to do\n")


def test_diff_writes_nothing(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path)
    before = path.read_bytes()
    run = cli(capsys, "upgrade", "--diff", path)
    assert run.code == 1 and path.read_bytes() == before
    assert "-arazzo: 1.0.1   # the version\n+arazzo: 1.1.0   # the version\n" in run.out


def test_a_literal_that_would_become_a_selector_object_stops_the_upgrade(tmp_path: Path, capsys) -> None:
    extra = (
        "      - stepId: t\n        operationId: createPet\n        requestBody:\n"
        "          payload: {name: n, meta: {context: a, selector: b, type: c}}\n"
    )
    path = _write(tmp_path, extra=extra)
    before = path.read_bytes()
    run = cli(capsys, "upgrade", path)
    assert run.code == 1 and path.read_bytes() == before
    assert f"{path}:14:36: error upgrade-meaning-change: this literal object has exactly the keys" in run.out
    assert "not upgraded to 1.1.0" in run.out


def test_a_forward_reference_that_becomes_an_error_stops_the_upgrade(tmp_path: Path, capsys) -> None:
    extra = "      - stepId: t\n        operationId: getPet\n        parameters:\n" + (
        "          - {name: petId, in: path, value: $steps.u.outputs.id}\n"
        "      - stepId: u\n        operationId: listPets\n        outputs: {id: $response.body#/0/id}\n"
    )
    path = _write(tmp_path, extra=extra)
    assert cli(capsys, "validate", path).code == 0  # a warning in 1.0
    run = cli(capsys, "upgrade", "--format", "json", path)
    assert run.code == 1
    [entry] = run.json["files"]
    assert (entry["changed"], [b["rule"] for b in entry["blockers"]]) == (False, ["output-forward-reference"])


def test_what_cannot_be_upgraded_is_a_usage_error(tmp_path: Path, capsys) -> None:
    for version in ("2.0.0", "1.2.0", "1.0"):
        path = _write(tmp_path, version, name=f"{version}.yaml")
        run = cli(capsys, "upgrade", path)
        assert run.code == 2 and "is not a 1.0.x document" in run.err, version
        assert f"arazzo: {version}   # the version" in path.read_text(encoding="utf-8")
    assert cli(capsys, "upgrade", "--to", "1.2.0", _write(tmp_path, name="b.yaml")).code == 2


def _upgradable(path: Path) -> bool:
    """A 1.0.x document, or one that cannot be read (its test then says why)."""
    from arazzo_runner.errors import ArazzoError
    from arazzo_runner.loader import load_path

    try:
        data = load_path(path, positions=False).data
    except ArazzoError:
        return True
    version = data.get("arazzo") if isinstance(data, dict) else None
    return isinstance(version, str) and version.startswith("1.0.")


# the 1.0.x documents only (1.1 ones have nothing to upgrade), chosen when the tests are collected
ONE_ZERO = [path for path in DOCUMENTS if _upgradable(path)]


def test_the_corpus_has_1_0_documents_to_upgrade() -> None:
    if not DOCUMENTS:
        pytest.skip(MISSING)
    assert len(ONE_ZERO) >= 50 and len(ONE_ZERO) < len(DOCUMENTS)  # most, and not the 1.1 ones


@pytest.mark.skipif(not DOCUMENTS, reason=MISSING)
@pytest.mark.parametrize("path", ONE_ZERO, ids=lambda p: str(p.relative_to(SHARED)))
def test_every_corpus_document_upgrades_or_says_why_not(path: Path) -> None:
    from arazzo_runner.loader import load_path

    version = load_path(path).data.get("arazzo")
    assert isinstance(version, str) and version.startswith("1.0.")
    result = upgrade_path(path, remote=False)
    if result.blockers:
        assert not result.changed
        assert all(f.line >= 1 and f.message for f in result.blockers)
        return
    before, after = result.before.splitlines(keepends=True), result.after.splitlines(keepends=True)
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 1 and version in changed[0][0] and "1.1.0" in changed[0][1]


def test_a_literal_with_more_keys_than_a_selector_object_is_data_in_1_1_too(tmp_path: Path, capsys) -> None:
    """Only an object with exactly context, selector and type is a Selector Object (as the engine reads
    it): one with a fourth key stays data, so it does not stop the upgrade."""
    extra = (
        "      - stepId: t\n        operationId: createPet\n        requestBody:\n"
        "          payload: {name: n, meta: {context: a, selector: b, type: c, note: d}}\n"
    )
    path = _write(tmp_path, extra=extra)
    run = cli(capsys, "upgrade", path)
    assert run.code == 0, run.out
    assert "meta: {context: a, selector: b, type: c, note: d}" in path.read_text(encoding="utf-8")


def test_a_new_error_of_a_rule_the_original_already_broke_elsewhere_still_stops_the_upgrade() -> None:
    """New errors are told apart by rule and place: an error the 1.0 document had at one place does not
    excuse the same rule's new error at another."""
    from arazzo_runner.validate.findings import ERROR, Finding
    from arazzo_runner.validate.upgrade import _new_errors

    def error(path: str) -> Finding:
        return Finding("output-forward-reference", ERROR, "m", "f.yaml", path, 1, 1)

    old, new = error("/workflows/0/steps/0/outputs/a"), error("/workflows/0/steps/3/outputs/b")
    assert _new_errors([old], [old, new]) == [new]
    assert _new_errors([old, new], [old, new]) == []


def test_a_file_that_cannot_be_read_is_said_in_the_loader_s_words(tmp_path: Path, capsys) -> None:
    """Not Python's `[Errno 2] No such file or directory: 'x.yaml'`: `validate` and `run` say it plainly."""
    run = cli(capsys, "upgrade", str(tmp_path / "missing.yaml"))
    assert run.code == 2
    assert "missing.yaml: cannot read the file: No such file or directory" in run.err
    assert "Errno" not in run.err
    run = cli(capsys, "upgrade", str(tmp_path))
    assert run.code == 2 and "cannot read the file: Is a directory" in run.err and "Errno" not in run.err
