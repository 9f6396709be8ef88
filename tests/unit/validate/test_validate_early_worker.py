"""`arazzo validate` starts the XPath evaluation worker before the first document when one of its
documents has an XPath criterion to check (`validate/early_worker.py`), and never otherwise; the
worker started early is the one the check uses (one process in all), and the findings are the same.
A worker that cannot start early leaves nothing behind: the check starts its own and says why."""

from __future__ import annotations

import io
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from arazzo_runner.bounds import isolated
from arazzo_runner.cli import main
from arazzo_runner.cli import validate as validate_cli
from arazzo_runner.errors import ExpressionError
from arazzo_runner.query import compile_selector
from arazzo_runner.validate import early_worker

PLAIN = """\
arazzo: 1.0.1
info: {{title: t, version: '1', description: 'no XPath here, whatever this says about xpath'}}
sourceDescriptions: [{{name: api, url: ./none.yaml, type: openapi}}]
workflows:
  - workflowId: w{n}
    steps:
      - stepId: s
        operationId: listPets
        successCriteria: [{{condition: $statusCode == 200}}]
"""

XPATH = """\
arazzo: 1.0.1
info: {{title: t, version: '1'}}
sourceDescriptions: [{{name: api, url: ./none.yaml, type: openapi}}]
workflows:
  - workflowId: x
    steps:
      - stepId: s
        operationId: listPets
        successCriteria:
          - {{context: $response.body, condition: "{condition}", type: {type}}}
"""


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A pool of its own, and the order of the requests for an early worker ("early", in the caller's
    thread), worker process starts ("worker", in whichever thread starts one) and document validations."""
    pool = isolated._Pool()
    monkeypatch.setattr(isolated, "_POOL", pool)
    events: list[str] = []
    popen, validate_one, prestart = isolated.subprocess.Popen, validate_cli._validate_one, pool.prestart

    def counting_popen(*args: object, **kwargs: object) -> object:
        events.append("worker")
        return popen(*args, **kwargs)

    def early(engine: str) -> None:
        events.append("early")
        prestart(engine)

    monkeypatch.setattr(pool, "prestart", early)

    def recording(args: object, file: str, *rest: object) -> object:
        events.append(Path(file).name)
        return validate_one(args, file, *rest)

    monkeypatch.setattr(isolated.subprocess, "Popen", counting_popen)
    monkeypatch.setattr(validate_cli, "_validate_one", recording)
    yield events
    pool.close()


def _write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def _validate(*argv: str) -> tuple[int, str]:
    out, old = io.StringIO(), sys.stdout
    sys.stdout = out
    try:
        code = main(["validate", "--offline", "--format", "json", *argv])
    finally:
        sys.stdout = old
    return code, out.getvalue()


def test_the_worker_starts_before_the_first_document_and_serves_the_check(tmp_path, starts, monkeypatch):
    files = [_write(tmp_path, f"p{n}.arazzo.yaml", PLAIN.format(n=n)) for n in range(3)]
    # an invalid expression, unique to this test: its verdict cannot be remembered from another one
    files.append(_write(tmp_path, "x.arazzo.yaml", XPATH.format(condition="//early-[", type="xpath")))
    code, found = _validate(*files)
    asked = [event for event in starts if event != "worker"]  # the start itself is in another thread
    assert asked == ["early", *(Path(file).name for file in files)]  # before any document was validated
    assert starts.count("worker") == 1  # and that one did the check
    assert code == 1 and '"xpath-syntax"' in found and "early-[" in found
    from arazzo_runner.query import xpath

    compile_selector.cache_clear()  # the same documents again, the worker started on first use
    xpath._check.cache_clear()
    monkeypatch.setattr(early_worker, "needing_worker", lambda files, schema_only=False: [])
    isolated._POOL.close()
    starts.clear()
    assert _validate(*files) == (code, found)  # the same findings
    assert starts == [*(f"p{n}.arazzo.yaml" for n in range(3)), "x.arazzo.yaml", "worker"]


@pytest.mark.parametrize(
    "condition, type_",
    [
        ("//a", "jsonpath"),  # the file mentions XPath only in a description: parsed, no criterion
        ("//a[{$inputs.n}]", "xpath"),  # compiled when a run renders it, not by validation
        ("//a", "{type: xpath, version: xpath-99}"),  # an unknown version: reported, never compiled
    ],
)
def test_no_worker_for_documents_whose_checks_need_none(tmp_path, starts, condition, type_):
    files = [_write(tmp_path, "p.arazzo.yaml", PLAIN.format(n=0))]
    files.append(_write(tmp_path, "x.arazzo.yaml", XPATH.format(condition=condition, type=type_)))
    _validate(*files)
    assert starts == ["p.arazzo.yaml", "x.arazzo.yaml"]  # neither "early" nor "worker"


def test_no_worker_for_a_schema_only_validation(tmp_path, starts):
    file = _write(tmp_path, "x.arazzo.yaml", XPATH.format(condition="//schema-only", type="xpath"))
    code, _ = _validate("--schema-only", file)
    assert code == 0 and starts == ["x.arazzo.yaml"]


def test_which_criteria_validation_compiles_as_xpath(tmp_path):
    from arazzo_runner.loader import load_text
    from arazzo_runner.model import build_document

    def criterion(text: str) -> object:
        data = load_text(XPATH.format(condition=text, type="xpath")).data
        return build_document(data).workflows[0].steps[0].success_criteria[0]

    assert early_worker.checks_xpath(criterion("//a"))
    assert not early_worker.checks_xpath(criterion("//a[{$inputs.n}]"))
    assert not early_worker.checks_xpath(criterion("{$nope"))  # a broken embedding: reported instead


def test_a_request_waits_for_the_worker_being_started_and_uses_it(starts):
    isolated.prestart("xpath")
    isolated.prestart("xpath")  # one is starting: nothing more
    compile_selector("xpath", None, "/waits-for-the-early-one")
    assert sorted(starts) == ["early", "early", "worker"]  # one process (started in another thread)
    assert len(isolated._POOL._idle) == 1 and isolated._POOL._starting == 0
    isolated.prestart("xpath")  # one exists (idle): nothing more
    assert sorted(starts) == ["early", "early", "early", "worker"]


def test_a_worker_that_cannot_start_early_leaves_nothing_and_the_check_says_why(starts, monkeypatch):
    monkeypatch.setattr(sys, "executable", str(Path(__file__).with_name("no-such-python")))
    started = threading.Event()
    original = isolated._Pool._start

    def start(self: isolated._Pool, engine: str) -> None:
        original(self, engine)
        started.set()

    monkeypatch.setattr(isolated._Pool, "_start", start)
    isolated.prestart("xpath")
    assert started.wait(60)
    pool = isolated._POOL
    assert (pool._count, pool._starting, pool._idle) == (0, 0, [])
    with pytest.raises(ExpressionError, match=r"XPath cannot be checked: .* could not be started"):
        compile_selector("xpath", None, "/never-started")
    assert starts == ["early", "worker", "worker"]  # the early one (done), the check's own: both refused
