"""`arazzo run` keeps the cyclic garbage collector paused while it imports and loads (long-lived objects
that its passes would only walk), collects during the run, with what existed before frozen, and leaves
it as it found it, whatever the run ends with; a run of `--inputs-file` rows collects as a run does."""

from __future__ import annotations

import gc
import json
import subprocess
import sys

import pytest

from arazzo_runner import api
from arazzo_runner.cli import main
from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.execkit import ok200, pet


@pytest.fixture
def document(tmp_path, monkeypatch):
    (tmp_path / "pets.openapi.json").write_text(json.dumps(PETS_OPENAPI))
    doc = arazzo_doc({"workflowId": "w", "steps": [pet("get", successCriteria=ok200())]})
    doc["sourceDescriptions"][0]["url"] = "./pets.openapi.json"
    (tmp_path / "flow.arazzo.json").write_text(json.dumps(doc))
    monkeypatch.setenv("ARAZZO_NO_CACHE", "1")  # validated in this process: the most work before the run
    return tmp_path / "flow.arazzo.json"


@pytest.fixture
def seen(monkeypatch) -> list[tuple[str, bool, int]]:
    """(phase, collector enabled, objects frozen) when the document is loaded and when the run starts;
    the run itself ends at once (KeyboardInterrupt: exit 130), the restoring is what is checked."""
    found: list[tuple[str, bool, int]] = []
    load = api.load

    def loading(*args, **kwargs):
        found.append(("load", gc.isenabled(), gc.get_freeze_count()))
        return load(*args, **kwargs)

    def running(*args, **kwargs):
        found.append(("run", gc.isenabled(), gc.get_freeze_count()))
        found.append(("threshold", gc.get_threshold()[0] >= 10_000, 0))
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "load", loading)
    monkeypatch.setattr(api, "run", running)
    return found


def test_paused_while_loading_collecting_in_the_run_and_restored(document, seen, server):
    assert gc.isenabled()
    thresholds = gc.get_threshold()
    assert main(["run", str(document), "--server", f"pets={server.url}"]) == 130
    [(_, loading, _), (_, running, frozen), (_, fewer_passes, _)] = seen
    assert (loading, running, fewer_passes) == (False, True, True) and frozen > 0
    assert gc.isenabled() and gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds
    gc.disable()  # a caller that had it off gets it back off
    try:
        assert main(["run", str(document), "--server", f"pets={server.url}"]) == 130
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_other_commands_leave_the_collector_alone(document, seen):
    assert main(["validate", str(document)]) == 0
    assert gc.isenabled() and seen == []


def test_the_rows_of_an_inputs_file_run_collecting(document, tmp_path, monkeypatch, server):
    from arazzo_runner.cli import batch

    rows: list[tuple[bool, int]] = []

    def run_rows(*args, **kwargs):
        rows.append((gc.isenabled(), gc.get_freeze_count()))
        return 0

    monkeypatch.setattr(batch, "run_rows", run_rows)  # cli/run.py imports it when a run has rows
    (tmp_path / "rows.jsonl").write_text('{"a": 1}\n')
    argv = [
        "run",
        str(document),
        "--inputs-file",
        str(tmp_path / "rows.jsonl"),
        "--server",
        f"pets={server.url}",
    ]
    assert main(argv) == 0
    [(enabled, frozen)] = rows
    assert enabled and frozen > 0
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_the_run_command_imports_what_it_needs_while_the_collector_is_paused(document, server, tmp_path):
    """In a fresh process (issue 28, fourth round): the command's own modules (the terminal escaping
    that `main` sets up first, with the report package) and the HTTP client's (httpx, and httpcore and
    h11, which httpx imports only with its first client, inside the run) are imported while the
    collector is paused, so that their objects are frozen with the rest instead of being walked by the
    first passes of the run."""
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    script = (
        "import gc, json, sys\n"
        "imported = {}\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        imported.setdefault(name, gc.isenabled())\n"
        "sys.meta_path.insert(0, Watch())\n"
        "from arazzo_runner.cli import main\n"
        f"code = main(['run', {str(document)!r}, '--server', 'pets={server.url}'])\n"
        "print(json.dumps({'code': code, 'imported': imported}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0 and len(server.requests) == 1
    watched = ["arazzo_runner.report", "arazzo_runner.report.terminal", "httpx", "httpcore", "h11"]
    assert {name: report["imported"].get(name) for name in watched} == dict.fromkeys(watched, False)
