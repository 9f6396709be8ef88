"""Jentic's runner fixtures (`../shared/corpus/jentic-runner-fixtures`), which use Jentic's forms
(`$steps.<id>.<name>`, `$dependencies.<w>.<name>`, `$response.body.x`, plain operationIds with several
sources, bare expressions), run as they are against local servers built from their own mocks, with the
outputs and the number of API calls their `test_config.yaml` expects; then `arazzo validate --fix`
rewrites them to the standard forms and the fixed document sends exactly the same requests."""

from __future__ import annotations

import json

import pytest
import yaml

from arazzo_runner.validate import RULES
from tests.e2e.dialectkit import JENTIC, JenticFixture, copy_fixture, fix_in_place, outputs, run_recorded
from tests.e2e.helpers import cli
from tests.shared import MISSING

pytestmark = pytest.mark.skipif(not JENTIC.is_dir(), reason=MISSING)

BOT = ("--auth", "BotToken=Bot t0ken")
CASES = [
    # (fixture folder, document, workflow, sources served, extra flags)
    ("sample_login_workflow", "login_workflow.yaml", "loginWorkflow", ("loginApi",), ()),
    ("sample_login_workflow", "login_workflow.yaml", "failedLoginWorkflow", ("loginApi",), ()),
    ("sample_test", "example_workflow.yaml", "exampleWorkflow", ("exampleApi",), ()),
    (
        "discord",
        "discord.arazzo.yaml",
        "getUserInfoAndSendMessage",
        ("discordApi",),
        ("--auth", "BotToken=Bot t0ken"),
    ),
    (
        "discord",
        "discord.arazzo.yaml",
        "postChannelMessage",
        ("discordApi",),
        ("--auth", "BotToken=Bot t0ken"),
    ),
    ("spotify", "spotify.arazzo.yaml", "searchTracks", ("spotifyApi", "spotifyAuth"), ()),
]


@pytest.mark.parametrize(("folder", "name", "workflow", "sources", "extra"), CASES, ids=lambda v: str(v))
def test_a_jentic_fixture_runs_as_written_and_the_same_once_fixed(
    tmp_path, capsys, folder, name, workflow, sources, extra
) -> None:
    fixture = JenticFixture(JENTIC / folder, name)
    expected = fixture.workflow(workflow)
    inputs = ("--inputs", json.dumps(fixture.inputs(workflow)))
    original = copy_fixture(JENTIC / folder, tmp_path / "original") / name
    fixed = copy_fixture(JENTIC / folder, tmp_path / "fixed") / name

    code, result, requests, err = run_recorded(
        capsys, original, fixture.server(workflow), "-w", workflow, *inputs, *extra, sources=sources
    )
    assert code == (0 if expected["expect_success"] else 1), (err, result)
    # never silently: the note names the forms of what the run reaches (issue 37, point 4: not the
    # forms of workflows `-w` leaves out)
    noted = f"note: {original} uses forms of other tools (" in err
    assert noted == _has_forms_reached(capsys, original, workflow), err
    assert len(requests) == expected["expected_api_calls"]
    wanted = {k: v for k, v in (expected.get("expected_outputs") or {}).items() if "." not in k}
    assert {k: outputs(result).get(k) for k in wanted} == wanted

    summary = fix_in_place(capsys, fixed)
    assert "fixed" in summary
    checked = cli(capsys, "validate", "--offline", "--rule", "dialect=error", fixed)
    assert "dialect" not in checked.out and "step-output-shorthand" not in checked.out, checked.out

    code2, result2, requests2, err2 = run_recorded(
        capsys, fixed, fixture.server(workflow), "-w", workflow, *inputs, *extra, sources=sources
    )
    assert (code2, requests2) == (code, requests), err2
    assert "forms of other tools" not in err2
    assert outputs(result2) == outputs(result)


def _has_forms_reached(capsys, document, workflow: str) -> bool:
    """Whether validate finds a form of another tool (a rule of the `dialect` area) in the workflow or
    outside every workflow."""
    findings = json.loads(cli(capsys, "validate", "--offline", "--format", "json", document).out)["findings"]
    ids = [w["workflowId"] for w in yaml.safe_load(document.read_text())["workflows"]]
    mine = f"/workflows/{ids.index(workflow)}"
    return any(
        RULES[f["rule"]].area == "dialect"
        and (f["path"] == mine or f["path"].startswith(mine + "/") or not f["path"].startswith("/workflows/"))
        for f in findings
    )


def test_the_fixes_name_each_form_and_keep_the_comments(tmp_path, capsys) -> None:
    document = copy_fixture(JENTIC / "spotify", tmp_path / "spotify") / "spotify.arazzo.yaml"
    before = document.read_text(encoding="utf-8")
    checked = cli(capsys, "validate", "--offline", document)
    for rule in ("step-output-shorthand", "dependencies-expression", "bare-expression"):
        assert f"warning {rule}:" in checked.out, rule
    # a MUST of the specification, so an error (a run calls the one source that has it, with a warning)
    assert (
        "error plain-operation-id: operationId 'get-spotify-token' is found in source 'spotifyAuth' only"
        in checked.out
    )
    summary = fix_in_place(capsys, document)
    after = document.read_text(encoding="utf-8")
    assert 'value: "Bearer {$workflows.getSpotifyToken.outputs.access_token}"' in after
    assert "operationId: $sourceDescriptions.spotifyAuth.get-spotify-token" in after
    assert "access_token: $steps.tokenRequest.outputs.access_token" in after
    # untouched lines are byte for byte the same, the line count too
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    assert len(old) == len(new)
    changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    assert changed and all("$" in old[i] or "operationId:" in old[i] for i in changed)
    assert "spotify.arazzo.yaml: fixed" in summary
