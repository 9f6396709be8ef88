"""`arazzo validate --fix` / `--diff`: each fixable finding rewritten in place, in the scalar's own style,
every other byte kept; idempotent; refusals reported, never a broken file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from arazzo_runner.loader import load_text
from arazzo_runner.validate.edit import EditError, apply_edits
from arazzo_runner.validate.findings import Edit
from arazzo_runner.validate.fix import fix_path
from tests.e2e.helpers import cli

from .conftest import OPENAPI

HEAD = """\
arazzo: 1.0.1
info: {title: t, version: '1'}  # the title
sourceDescriptions:
  - {name: api, url: ./api.yaml, type: openapi}
"""


WORKFLOW = "workflows:\n  - workflowId: w\n    steps:\n"
BY_SOURCE_NAME = WORKFLOW + "      - stepId: s\n        operationPath: api#/paths/~1pets/get\n"
FIRST = (
    "      - stepId: s\n        operationId: listPets\n        outputs:\n          id: $response.body#/0/id\n"
)


def _write(tmp_path: Path, text: str, name: str = "flow.arazzo.yaml") -> Path:
    (tmp_path / "api.yaml").write_text(OPENAPI, encoding="utf-8")
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def _fixed(tmp_path: Path, body: str) -> str:
    result = fix_path(_write(tmp_path, HEAD + body), remote=False)
    assert not result.problems, result.problems
    assert not [f for f in result.report.findings if f.fix], "a fixable finding is left"
    return result.after[len(HEAD) :]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # Jentic's step output shorthand, in a plain scalar with a comment after it
        ("      x: $steps.s.id   # keep me\n", "      x: $steps.s.outputs.id   # keep me\n"),
        # a single-quoted scalar: quotes inside stay doubled
        ("      x: 'it''s {$steps.s.id}'\n", "      x: 'it''s {$steps.s.outputs.id}'\n"),
        # a double-quoted one: escapes stay escapes
        ('      x: "tab\\t{$steps.s.id} é"\n', '      x: "tab\\t{$steps.s.outputs.id} é"\n'),
        # a flow sequence
        ("      x: [$steps.s.id, 'b']\n", "      x: [$steps.s.outputs.id, 'b']\n"),
        # an accessor and a bare expression in one string: both fixed, in two passes if need be
        ("      x: Bearer $steps.s.id\n", "      x: Bearer {$steps.s.outputs.id}\n"),
        ("      x: $response.body.items[0].id\n", "      x: $response.body#/items/0/id\n"),
    ],
)
def test_each_style_is_edited_in_place(tmp_path: Path, before: str, after: str) -> None:
    body = WORKFLOW + FIRST + "      - stepId: t\n        operationId: listPets\n        outputs:\n"
    indent = "    "
    assert _fixed(tmp_path, body + indent + before) == body + indent + after


def test_a_plain_scalar_that_would_read_otherwise_is_quoted(tmp_path: Path) -> None:
    body = BY_SOURCE_NAME
    assert _fixed(tmp_path, body).endswith(
        "        operationPath: '{$sourceDescriptions.api.url}#/paths/~1pets/get'\n"
    )


def test_a_literal_block_is_edited_line_by_line(tmp_path: Path) -> None:
    body = (
        "workflows:\n  - workflowId: w\n    steps:\n"
        "      - stepId: s\n        operationId: listPets\n        outputs: {id: $response.body#/0/id}\n"
        "      - stepId: t\n        operationId: createPet\n        requestBody:\n"
        "          contentType: text/plain\n          payload: |\n"
        "            first line\n            Bearer $steps.s.id\n            last line\n"
    )
    assert _fixed(tmp_path, body).endswith(
        "            Bearer {$steps.s.outputs.id}\n            last line\n"
    )


def test_json_documents_keep_their_escapes_and_layout(tmp_path: Path) -> None:
    text = (
        '{\n  "arazzo": "1.0.1",\n  "info": {"title": "t\\u00e9", "version": "1"},\n'
        '  "sourceDescriptions": [{"name": "api", "url": "./api.yaml", "type": "openapi"}],\n'
        '  "workflows": [{"workflowId": "w", "steps": [\n'
        '    {"stepId": "s", "operationId": "listPets", "outputs": {"id": "$response.body.0.id"}}\n  ]}]\n}\n'
    )
    result = fix_path(_write(tmp_path, text, "flow.arazzo.json"), remote=False)
    assert result.after == text.replace('"$response.body.0.id"', '"$response.body#/0/id"')


def test_line_endings_and_the_byte_order_mark_are_kept(tmp_path: Path) -> None:
    body = BY_SOURCE_NAME
    raw = b"\xef\xbb\xbf" + (HEAD + body).replace("\n", "\r\n").encode()
    path = _write(tmp_path, "")
    path.write_bytes(raw)
    assert cli_fix(path) == 0
    written = path.read_bytes()
    assert written.startswith(b"\xef\xbb\xbf") and written.count(b"\r\n") == raw.count(b"\r\n")
    assert b"'{$sourceDescriptions.api.url}#/paths/~1pets/get'\r\n" in written


def cli_fix(path: Path) -> int:
    from arazzo_runner.cli import main

    return main(["validate", "--fix", "--offline", str(path)])


def test_fix_and_diff_on_the_command_line(tmp_path: Path, capsys, monkeypatch) -> None:
    body = (
        "workflows:\n  - workflowId: w\n    steps:\n      - stepId: s\n        operationId: listPets\n"
        "        outputs:\n          next: $response.headers.Location\n"
    )
    path = _write(tmp_path, HEAD + body)
    before = path.read_bytes()
    diff = cli(capsys, "validate", "--diff", path)
    assert diff.code == 1 and path.read_bytes() == before  # --diff writes nothing, and says it would change
    assert (
        "-          next: $response.headers.Location\n+          next: $response.header.Location\n"
        in diff.out
    )
    assert "would fix 1 (header-plural 1)" in diff.err
    # the diff is one `git apply` takes
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    relative = cli(capsys, "validate", "--diff", "flow.arazzo.yaml")
    assert relative.out.startswith("--- a/flow.arazzo.yaml\n+++ b/flow.arazzo.yaml\n")
    checked = subprocess.run(["git", "apply", "--check", "-"], input=relative.out, text=True, cwd=tmp_path)
    assert checked.returncode == 0

    fixed = cli(capsys, "validate", "--fix", path)
    assert fixed.code == 0
    assert fixed.out.endswith(f"{path}: fixed 1 (header-plural 1)\n")
    assert path.read_text(encoding="utf-8") == HEAD + body.replace("headers", "header")
    again = cli(capsys, "validate", "--diff", path)
    assert (again.code, again.out, again.err) == (0, "", "")  # clean: nothing to say of fixes


UNFIXABLE = (
    "workflows:\n  - workflowId: w\n    steps:\n      - stepId: s\n        operationId: listPets\n"
    "        onSuccess: [{name: next, type: goto, stepId: nowhere}]\n"
)


def test_diff_says_what_no_fix_leaves_and_exits_as_validate_would(tmp_path: Path, capsys) -> None:
    # Issue 37 item 13: a document with errors and no mechanical fix printed nothing and exited 0.
    broken = _write(tmp_path, HEAD + UNFIXABLE + "        sucessCriteria: []\n", "broken.arazzo.yaml")
    run = cli(capsys, "validate", "--diff", broken)
    assert (run.code, run.out) == (1, "")
    assert run.err == f"{broken}: no mechanical fix applies; 2 errors remain\n"
    assert cli(capsys, "validate", broken).code == 1  # the same verdict

    # a fix that applies, and an error it does not touch: the diff, then what --fix would leave
    header = "        outputs:\n          next: $response.headers.Location\n"
    mixed = _write(tmp_path, HEAD + UNFIXABLE + header)
    run = cli(capsys, "validate", "--diff", mixed)
    assert run.code == 1 and "+          next: $response.header.Location\n" in run.out
    assert run.err == f"{mixed}: would fix 1 (header-plural 1); 1 error would remain\n"

    # warnings only and no fix: exit 0 as validate, 1 with --strict as validate --strict
    body = (
        WORKFLOW + "      - stepId: s\n        operationId: listPets\n"
        "        parameters: [{name: limit, in: query, value: $inputs.limit}]\n"
    )
    warned = _write(tmp_path, HEAD + body, "warned.arazzo.yaml")
    run = cli(capsys, "validate", "--diff", warned)
    assert (run.code, run.out) == (0, "")
    assert run.err == f"{warned}: no mechanical fix applies; 1 warning remains\n"
    assert cli(capsys, "validate", "--diff", "--strict", warned).code == 1

    # a file that cannot be read says why (it said nothing), the others are still judged; exit 2
    missing = tmp_path / "missing.arazzo.yaml"
    run = cli(capsys, "validate", "--diff", warned, missing)
    assert run.code == 2
    assert run.err.splitlines() == [
        f"{warned}: no mechanical fix applies; 1 warning remains",
        f"{missing}:1:1: error document-parse: cannot read the file: No such file or directory",
    ]


def test_fix_in_json_lists_what_it_fixed(tmp_path: Path, capsys) -> None:
    body = BY_SOURCE_NAME
    path = _write(tmp_path, HEAD + body)
    run = cli(capsys, "validate", "--fix", "--format", "json", path)
    data = run.json
    assert [f["rule"] for f in data["fixed"]] == ["operation-path-source-name"]
    assert data["fixed"][0]["fix"] == [
        {
            "path": "/workflows/0/steps/0/operationPath",
            "start": 0,
            "old": "api",
            "new": "{$sourceDescriptions.api.url}",
            "key": False,
        }
    ]
    assert data["findings"] == []


def test_an_edit_that_cannot_be_made_in_place_is_refused_whole() -> None:
    text = "a: >\n  folded $steps.s.id\n  text\nb: c\n"
    data = load_text(text).data
    with pytest.raises(EditError, match="block scalar"):
        apply_edits(text, "yaml", data, [Edit("/a", 14, "", "outputs.")])
    with pytest.raises(EditError, match="changed"):
        apply_edits(text, "yaml", data, [Edit("/b", 0, "x", "y")])  # stale: the text is not there
    with pytest.raises(EditError, match="not a string written in place"):
        apply_edits("a: &x y\nb: *x\n", "yaml", {"a": "y", "b": "y"}, [Edit("/b", 0, "y", "z")])


def test_a_refused_fix_is_reported_and_the_others_are_made(tmp_path: Path) -> None:
    body = (
        WORKFLOW + FIRST + "      - stepId: t\n        operationId: createPet\n        requestBody:\n"
        "          contentType: text/plain\n"
        "          payload: >\n            folded Bearer $steps.s.id\n"
        "        outputs:\n          x: $steps.s.id\n"
    )
    result = fix_path(_write(tmp_path, HEAD + body), remote=False)
    assert result.after.endswith("          x: $steps.s.outputs.id\n")
    assert "folded Bearer $steps.s.id" in result.after  # left as it was, and said so
    assert result.problems and all("not fixed" in p for p in result.problems)
    assert {f.rule for f in result.report.findings} >= {"step-output-shorthand"}


def test_findings_of_a_rule_turned_off_are_not_fixed(tmp_path: Path, capsys) -> None:
    body = (
        "workflows:\n  - workflowId: w\n    steps:\n      - stepId: s\n        operationId: listPets\n"
        "        outputs:\n          next: $response.headers.Location\n          n: $response.body.count\n"
    )
    path = _write(tmp_path, HEAD + body)
    run = cli(capsys, "validate", "--fix", "--rule", "header-plural=off", path)
    assert run.code == 0
    text = path.read_text(encoding="utf-8")
    assert "$response.headers.Location" in text and "$response.body#/count" in text


def test_an_unquoted_template_is_quoted_as_a_whole(tmp_path: Path) -> None:
    body = WORKFLOW + (
        "      - stepId: s\n        operationId: createPet\n        requestBody:\n"
        "          payload: {name: {$inputs.name}, age: 3}  # flow mapping\n"
    )
    assert _fixed(tmp_path, body).endswith(
        "          payload: {name: '{$inputs.name}', age: 3}  # flow mapping\n"
    )


def test_a_key_is_edited_where_it_is_written() -> None:
    text = "a:\n  '$ref': x   # keep\n  b: 2\n"
    data = load_text(text).data
    edited = apply_edits(text, "yaml", data, [Edit("/a/$ref", 0, "$ref", "reference", key=True)])
    assert edited == "a:\n  'reference': x   # keep\n  b: 2\n"
    assert list(load_text(edited).data["a"]) == ["reference", "b"]  # the key order kept


def test_only_the_rules_asked_for_are_fixed(tmp_path: Path) -> None:
    """`fix_path(..., rules=...)` (what `--fix` with a rule selection asks): other fixable findings stay
    as they are, and are still reported."""
    body = (
        "workflows:\n  - workflowId: w\n    steps:\n      - stepId: s\n        operationId: listPets\n"
        "        outputs:\n          next: $response.headers.Location\n          n: $response.body.count\n"
    )
    path = _write(tmp_path, HEAD + body)
    everything = fix_path(path, remote=False)
    assert "$response.header.Location" in everything.after and "$response.body#/count" in everything.after
    only = fix_path(path, remote=False, rules=["header-plural"])
    assert "$response.header.Location" in only.after
    assert "$response.body.count" in only.after  # another rule's finding: not fixed
    assert path.read_text(encoding="utf-8") == HEAD + body  # in memory only


def test_after_a_refused_fix_each_other_fix_of_the_pass_is_made(tmp_path: Path) -> None:
    """When a pass's edits cannot all be made at once they are made one at a time: each against the
    document as the one before left it (two fixes after a refused one, both made)."""
    body = (
        WORKFLOW + FIRST + "      - stepId: t\n        operationId: createPet\n        requestBody:\n"
        "          contentType: text/plain\n"
        "          payload: >\n            folded Bearer $steps.s.id\n"
        "        outputs:\n          x: $steps.s.id\n          y: $steps.s.id\n"
    )
    result = fix_path(_write(tmp_path, HEAD + body), remote=False)
    assert result.after.endswith("          x: $steps.s.outputs.id\n          y: $steps.s.outputs.id\n")
    # the problems are the folded block's alone (line 16), each finding on it reported
    assert result.problems and all(":16:" in p and " not fixed: " in p for p in result.problems)


def test_an_edit_in_a_single_quoted_scalar_doubles_its_quotes() -> None:
    text = "a: 'x y'   # kept\n"
    data = load_text(text).data
    assert apply_edits(text, "yaml", data, [Edit("/a", 2, "y", "it's")]) == "a: 'x it''s'   # kept\n"


def test_a_value_quoted_anew_with_a_control_character_is_double_quoted() -> None:
    """Single quotes cannot hold a control character: such a value is written in double quotes."""
    text = "a: x\n"
    data = load_text(text).data
    assert apply_edits(text, "yaml", data, [Edit("/a", 0, "x", "{\x07}")]) == 'a: "{\\u0007}"\n'


def test_fix_keeps_the_file_s_permissions(tmp_path: Path, capsys) -> None:
    """The file is replaced by a new one renamed over it: with the old one's mode, not the new file's
    private default."""
    import os
    import stat

    body = WORKFLOW + "      - stepId: s\n        operationId: listPets\n"
    body += "        outputs:\n          next: $response.headers.Location\n"
    path = _write(tmp_path, HEAD + body)
    path.chmod(0o664)
    assert cli(capsys, "validate", "--fix", path).code == 0
    assert "$response.header.Location" in path.read_text(encoding="utf-8")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o664
