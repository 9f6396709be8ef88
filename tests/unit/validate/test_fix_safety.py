"""`validate --fix` never changes what a document means (issue 23, point 4).

An edit is made from the scalar it was computed from, or not at all; the result, validated again,
reports no finding the document did not have, or the passes that added one are undone; and once
written, the file is read and validated again, and put back as it was when it is not what the fixes
left. (The fuzz test `tests/fuzz/test_fuzz_fix.py` runs the first two over generated documents.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arazzo_runner.loader import load_text
from arazzo_runner.validate.core import validate_loaded
from arazzo_runner.validate.edit import EditError, apply_edits
from arazzo_runner.validate.findings import Edit, Finding
from arazzo_runner.validate.fix import Fixed, added_findings, fix_path, fix_text
from tests.e2e.helpers import cli

from .fixkit import HEAD, write_fixable


def _write(tmp_path: Path, outputs: str) -> Path:
    return write_fixable(tmp_path, outputs)


def _rules(report) -> list[tuple[str, str]]:
    return sorted((f.rule, f.path.rsplit("/", 1)[-1]) for f in report.findings)


CASES = {
    # issue 23's document: a folded block the fixer cannot edit, then a quoted value it can
    "folded block": (
        '          a: >\n            folded $steps.s.id\n          c: "x $steps.s.id"\n',
        '          a: >\n            folded $steps.s.id\n          c: "x {$steps.s.outputs.id}"\n',
    ),
    "anchor and alias": (
        '          a: &anc "x $steps.s.id"\n          b: *anc\n          c: "x $steps.s.id"\n',
        '          a: &anc "x $steps.s.id"\n          b: *anc\n          c: "x {$steps.s.outputs.id}"\n',
    ),
    "merge key": (
        '          <<: {m: "$steps.s.id"}\n          c: "x $steps.s.id"\n',
        '          <<: {m: "$steps.s.id"}\n          c: "x {$steps.s.outputs.id}"\n',
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_scalar_the_fixer_cannot_edit_leaves_the_others_right(tmp_path, capsys, case):
    before, after = CASES[case]
    path = _write(tmp_path, before)
    original = fix_path(path, remote=False, rules=())
    result = cli(capsys, "validate", "--fix", path)
    assert path.read_text(encoding="utf-8") == HEAD + after
    assert result.out.splitlines()[-2].startswith("0 errors, ")
    fixed = fix_path(path, remote=False, rules=())
    assert not added_findings(original.report, fixed.report)
    assert ("expression-syntax", "c") not in _rules(fixed.report)


def test_an_edit_is_made_only_where_the_text_reads_as_the_string_the_finding_read():
    text = "a: 'x $y'\nb: x $y\n"
    data = load_text(text).data
    stale = {"a": "something else", "b": "x $y"}  # the data a finding read, another text now
    with pytest.raises(EditError, match="is not the string the finding read"):
        apply_edits(text, "yaml", stale, [Edit("/a", 2, "", "{")])
    assert apply_edits(text, "yaml", data, [Edit("/a", 2, "", "{"), Edit("/a", 4, "", "}")]) == (
        "a: 'x {$y}'\nb: x $y\n"
    )


def test_passes_that_would_add_a_finding_are_undone(tmp_path):
    """A fix whose edit is wrong (here: a rule made up for the test, whose edit breaks the expression)
    is undone, with the pass it was made in, and said; the fixes before it stay."""
    path = _write(tmp_path, '          c: "x $steps.s.id"\n          d: "$steps.s.outputs.id"\n')
    location = str(path)
    text = path.read_text(encoding="utf-8")

    def validate(loaded):
        report = validate_loaded(loaded, location, remote=False)
        if loaded.data["workflows"][0]["steps"][1]["outputs"]["d"] == "$steps.s.outputs.id":
            wrong = Edit("/workflows/0/steps/1/outputs/d", 7, "s.", "s")  # `$steps.soutputs.id`
            made_up = Finding("made-up", "warning", "breaks d", location, wrong.path, 17, 14, (wrong,))
            report.findings.append(made_up)
        return report

    result = fix_text(text, location, validate)
    assert isinstance(result, Fixed)
    assert result.after == text.replace('"x $steps.s.id"', '"x {$steps.s.outputs.id}"')
    assert [f.rule for f in result.fixed] == ["bare-expression", "step-output-shorthand"]
    assert result.problems == [
        f"{location}:17:14: made-up not fixed: the rewrite would add findings (step-output-shorthand at "
        "/workflows/0/steps/1/outputs/d; output-reference at /workflows/0/steps/1/outputs/d)"
    ]


def test_a_written_file_that_does_not_read_back_as_fixed_is_put_back(tmp_path, capsys, monkeypatch):
    path = _write(tmp_path, '          c: "x $steps.s.id"\n')
    original = path.read_bytes()
    # the bytes written are not those of the fixed text (a disk, a filesystem or an encoder at fault)
    wrong = {"{$steps.s.outputs.id}": "{$steps.s.outputs.ix}"}
    monkeypatch.setattr(
        Fixed, "encoded", lambda self: self.after.replace(*next(iter(wrong.items()))).encode()
    )
    result = cli(capsys, "validate", "--fix", path)
    assert path.read_bytes() == original
    assert (
        f"error: {path}: the fixed file was put back as it was: it did not read back as written" in result.err
    )
    assert "fixed 2" not in result.out
    assert not list(tmp_path.glob(".arazzo-*"))
