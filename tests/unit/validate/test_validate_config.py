"""Per-rule severities: `--rule RULE=LEVEL` and `[tool.arazzo.validate]` / `.arazzo.toml`, found by
walking up from each document as ruff finds its configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from arazzo_runner.errors import UsageError
from arazzo_runner.validate.config import find_config, settings_for
from tests.e2e.helpers import cli

from .conftest import OPENAPI

# one warning (expression-accessor) and one error (output-reference)
DOC = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs:
          n: $response.body[0].id
          m: $steps.s.outputs.nope
"""


def _doc(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "api.yaml").write_text(OPENAPI, encoding="utf-8")
    path = folder / "flow.arazzo.yaml"
    path.write_text(DOC, encoding="utf-8")
    return path


def _rules(run) -> list[tuple[str, str]]:
    return [(f["severity"], f["rule"]) for f in run.json["findings"]]


def test_the_defaults(tmp_path: Path, capsys) -> None:
    run = cli(capsys, "validate", "--format", "json", _doc(tmp_path))
    assert run.code == 1
    assert _rules(run) == [("warning", "expression-accessor"), ("error", "output-reference")]


def test_rule_flags_turn_off_demote_and_promote(tmp_path: Path, capsys) -> None:
    path = _doc(tmp_path)
    run = cli(capsys, "validate", "--format", "json", "--rule", "output-reference=warning", path)
    assert (run.code, _rules(run)) == (
        0,
        [("warning", "expression-accessor"), ("warning", "output-reference")],
    )
    run = cli(capsys, "validate", "--format", "json", "--rule", "output-reference=off", "--rule",
              "expression-accessor=error", path)  # fmt: skip
    assert (run.code, _rules(run)) == (1, [("error", "expression-accessor")])
    # an area name applies to all of its rules; the rule's own setting wins
    run = cli(capsys, "validate", "--format", "json", "--rule", "expressions=off", "--rule",
              "output-reference=error", path)  # fmt: skip
    assert _rules(run) == [("error", "output-reference")]
    assert cli(capsys, "validate", "--rule", "expression-accessor=warn", path).code == 1  # `warn` is accepted


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("expression-acessor=off", "unknown rule 'expression-acessor'; did you mean 'expression-accessor'?"),
        ("expression-accessor=loud", "unknown level 'loud' (expected off, warning or error)"),
        ("expression-accessor", "--rule expects RULE=off|warning|error"),
    ],
)
def test_a_bad_rule_flag_is_a_usage_error(tmp_path: Path, capsys, item: str, message: str) -> None:
    run = cli(capsys, "validate", "--rule", item, _doc(tmp_path))
    assert run.code == 2
    assert message in run.err


def test_pyproject_found_walking_up(tmp_path: Path, capsys) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.arazzo.validate.rules]\noutput-reference = "off"\n', encoding="utf-8"
    )
    path = _doc(tmp_path / "workflows" / "deep")
    run = cli(capsys, "validate", "--format", "json", path)
    assert (run.code, _rules(run)) == (0, [("warning", "expression-accessor")])
    # the flag wins over the file; --isolated ignores the file
    run = cli(capsys, "validate", "--format", "json", "--rule", "output-reference=error", path)
    assert _rules(run)[-1] == ("error", "output-reference")
    assert cli(capsys, "validate", "--isolated", path).code == 1


def test_the_nearest_configuration_wins_and_a_pyproject_without_arazzo_is_passed_over(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.arazzo.validate]\nstrict = true\n", encoding="utf-8")
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n", encoding="utf-8")
    assert find_config(inner) == tmp_path / "pyproject.toml"
    (tmp_path / "a" / ".arazzo.toml").write_text(
        '[validate]\nrules = { dialect = "error" }\n', encoding="utf-8"
    )
    assert find_config(inner) == tmp_path / "a" / ".arazzo.toml"
    settings = settings_for(inner / "flow.arazzo.yaml")
    assert (settings.level("step-output-shorthand"), settings.level("schema")) == ("error", None)
    (inner / ".arazzo.toml").write_text("[validate]\n", encoding="utf-8")
    assert settings_for(inner / "flow.arazzo.yaml").rules == {}  # the nearest file, whole: no merging


def test_strict_from_the_file(tmp_path: Path, capsys) -> None:
    (tmp_path / ".arazzo.toml").write_text(
        '[validate]\nstrict = true\nrules = { output-reference = "off" }\n', encoding="utf-8"
    )
    assert cli(capsys, "validate", _doc(tmp_path)).code == 1  # one warning, strict


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[validate\n", "not valid TOML"),
        ("[validate]\nrulez = {}\n", "unknown key 'rulez' in [validate]"),
        ('[validate]\nrules = { nope = "off" }\n', "unknown rule 'nope'"),
        ("[validate]\nrules = { schema = 1 }\n", "unknown level '1'"),
        ('[validate]\nstrict = "yes"\n', "strict must be true or false"),
    ],
)
def test_a_bad_configuration_is_a_usage_error_naming_the_file(
    tmp_path: Path, capsys, text: str, message: str
) -> None:
    (tmp_path / ".arazzo.toml").write_text(text, encoding="utf-8")
    run = cli(capsys, "validate", _doc(tmp_path))
    assert run.code == 2
    assert str(tmp_path / ".arazzo.toml") in run.err and message in run.err


def test_an_explicit_config_file(tmp_path: Path, capsys) -> None:
    config = tmp_path / "team.toml"
    config.write_text('[validate.rules]\noutput-reference = "warning"\n', encoding="utf-8")
    assert cli(capsys, "validate", "--config", config, _doc(tmp_path / "d")).code == 0
    with pytest.raises(UsageError, match="cannot read"):
        settings_for(tmp_path / "d" / "flow.arazzo.yaml", config=str(tmp_path / "missing.toml"))


def test_list_rules(capsys) -> None:
    run = cli(capsys, "validate", "--list-rules", "--format", "json")
    rules = {r["id"]: r for r in run.json["rules"]}
    assert rules["step-output-shorthand"] == {
        "id": "step-output-shorthand",
        "severity": "warning",
        "area": "dialect",
        "summary": "Jentic's `$steps.<id>.<name>` runs as `$steps.<id>.outputs.<name>`.",
    }
