"""`arazzo demo`: one offline command that runs the tool-call workflow down both branches."""

from __future__ import annotations

from tests.e2e.helpers import cli, subprocess_cli


def test_demo_runs_both_branches_in_process(capsys):
    result = cli(capsys, "demo")
    assert result.code == 0, result.out + result.err
    out = result.out
    assert "Branch 1: the model calls the tool" in out
    assert "Branch 2: the model answers directly" in out
    assert "createCompletion" in out and "-> goto resolveToolCall" in out
    assert "-> end" in out
    assert 'finalContent: "Based on the tool result:' in out
    assert 'firstFinishReason: "stop"' in out
    # both answers: the one after the tool call, and the direct one (a workflow output of its own)
    assert '   answer (finalContent): Based on the tool result: {"location": "Sydney"' in out
    assert 'directContent: "You asked: \\"Say hello to the Arazzo community.\\".' in out
    assert '   answer (directContent): You asked: "Say hello to the Arazzo community."' in out
    # the outputs of the branch not taken are null, and that is nothing to act on: no warnings
    assert "warning" not in out
    assert out.rstrip().endswith("Demo passed: both branches ran end to end.")


def test_demo_as_a_real_process_has_no_color_when_piped():
    result = subprocess_cli("demo")
    assert result.code == 0, result.err
    assert "\x1b[" not in result.out
    assert result.out.count("1 of 1 workflows passed") == 2
