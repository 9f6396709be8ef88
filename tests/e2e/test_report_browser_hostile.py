"""The HTML report given hostile data, in a real browser (Debian's headless Chromium, browserkit.py).

Copy-as-curl: whatever the method, URL, headers and body hold (`arazzo report` reads files anyone may
write; an OpenAPI 3.2 `additionalOperations` method may hold `|`, `$` and `'`), the copied text pasted
into a shell runs curl alone, with exactly the request's parts as its arguments. It is run by `bash -c`,
`sh -c` (dash) and an interactive bash reading it as typed (history expansion on, as in a terminal),
with `curl` and the commands the payloads would start (`TOUCH`, `PWNED`) replaced by scripts that record
their arguments; and, from a real run against a real local server, by the real curl, which must send
that server the request the run sent.

A step whose `attempts` (or another part) is not in the form the page reads: the page still opens, shows
everything else, and says what it could not show."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.browserkit import browser  # noqa: F401  (the module's browser fixture)
from tests.e2e.helpers import cli, op_step, workflow
from tests.servers.scripted import ScriptedServer

METHOD = "X|TOUCH$IFS'PWNED'"  # the issue's own: unquoted, `curl -X X | TOUCH PWNED ...` runs TOUCH
URL = "http://127.0.0.1:9/a;TOUCH semi/$(TOUCH sub)/`TOUCH tick`/it's/!!/x?q=a|TOUCH&api_key=***"
HEADERS = [
    {"name": "Authorization", "value": "Bearer ***"},
    {"name": "X-Note", "value": '"; TOUCH dq; echo "$HOME !!'},
    {"name": "X-Quote", "value": "'; TOUCH sq; '\\"},
    {"name": "Host", "value": "127.0.0.1:9"},  # left to curl
    {"name": "Content-Length", "value": "99"},
]
BODY = '{"note": "it\'s $HOME `TOUCH b` !! | TOUCH pipe\nTOUCH line\\\nTOUCH bs\n", "password": "***"}'
VARIABLES = {"API_KEY": "key-2", "AUTHORIZATION": "tok-1", "SECRET": "pw-3"}
# what curl must be given once the masked parts are set
INTENDED = [
    "-X", METHOD,
    URL.replace("***", "key-2"),
    "-H", "Authorization: Bearer tok-1",
    "-H", HEADERS[1]["name"] + ": " + HEADERS[1]["value"],
    "-H", HEADERS[2]["name"] + ": " + HEADERS[2]["value"],
    "--data-raw", BODY.replace("***", "pw-3"),
]  # fmt: skip


def _clean(browser) -> None:  # noqa: F811
    assert browser.console_errors() == []
    assert browser.requests() == [browser.uri]


def _text(browser, css: str) -> str:  # noqa: F811
    return browser.find(css).text


def _exchange(request: dict) -> dict:
    return {"startedAt": "2026-01-01T00:00:00.000Z", "durationMs": 5.0, "request": request,
            "response": {"status": 200, "headers": [], "body": "{}"}}  # fmt: skip


def _step(step_id: str, status: str, attempts: object, exchanges: list, **extra: object) -> dict:
    trace = {"location": {"file": "w.arazzo.yaml", "line": 9, "column": 11}, "attempts": attempts}
    return {"stepId": step_id, "status": status, "attempts": 1, "statusCode": 200, "outputs": {},
            "durationMs": 6.0, "startedAt": "2026-01-01T00:00:00.000Z", "exchanges": exchanges,
            "trace": trace, **extra}  # fmt: skip


def _report(path: Path, *steps: dict) -> Path:
    """A saved run (as `arazzo run --report-json` writes one, by hand) of workflow `w` failed at its
    last step."""
    last = steps[-1]["stepId"]
    flow = {"workflowId": "w", "status": "failed", "outputs": {}, "steps": list(steps), "durationMs": 20.0,
            "startedAt": "2026-01-01T00:00:00.000Z",
            "error": {"stepId": last, "message": "it failed"}}  # fmt: skip
    path.write_text(json.dumps({"masked": True, "status": "failed", "workflows": [flow]}), encoding="utf-8")
    return path


def _page(capsys, tmp_path: Path, *steps: dict) -> Path:
    page = tmp_path / "report.html"
    assert cli(capsys, "report", _report(tmp_path / "run.json", *steps), "-o", page).code == 0
    return page


def _copied(browser) -> str:  # noqa: F811
    """The text copy-as-curl gives for the last exchange of the step shown."""
    browser.click("#detail details.exchange[open] .curl-button")
    return browser.find("#detail textarea.curl").get_attribute("value")


def _fake_bin(folder: Path) -> Path:
    """`curl`, `TOUCH` and `PWNED` as scripts that record their name and arguments in $FAKE_LOG."""
    folder.mkdir()
    script = (
        f"#!{sys.executable}\nimport json, os, sys\n"
        "with open(os.environ['FAKE_LOG'], 'a', encoding='utf-8') as log:\n"
        "    log.write(json.dumps([os.path.basename(sys.argv[0]), sys.argv[1:]]) + '\\n')\n"
    )
    for name in ("curl", "TOUCH", "PWNED"):
        (folder / name).write_text(script, encoding="utf-8")
        (folder / name).chmod(0o755)
    return folder


SHELLS = {  # the copied text: as `-c`'s argument, or on stdin of an interactive bash (as if pasted)
    "bash -c": (["bash", "-c"], False),
    "sh -c": (["sh", "-c"], False),
    "interactive bash": (["bash", "--norc", "--noprofile", "-i"], True),
}


def _paste(shell: str, text: str, tmp_path: Path, path: str, **variables: str) -> tuple[list, str]:
    """Run `text` in `shell` with `path` first on PATH: (what the fake commands recorded, stdout)."""
    argv, on_stdin = SHELLS[shell]
    log = tmp_path / "calls.log"
    log.unlink(missing_ok=True)
    env = {"PATH": f"{path}:/usr/bin:/bin", "FAKE_LOG": str(log), "HOME": str(tmp_path),
           "HISTFILE": "/dev/null", "LANG": "C.UTF-8", **variables}  # fmt: skip
    proc = subprocess.run(
        argv if on_stdin else [*argv, text], input=text + "\n" if on_stdin else None, env=env,
        capture_output=True, text=True, encoding="utf-8", cwd=tmp_path, check=False, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, (shell, proc.stderr)
    if not on_stdin:  # (an interactive shell writes its prompts to stderr)
        assert proc.stderr == "", (shell, proc.stderr)
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [json.loads(line) for line in lines], proc.stdout


def test_copy_as_curl_pasted_into_a_shell_runs_curl_alone_with_the_request(capsys, browser, tmp_path):  # noqa: F811
    request = {"method": METHOD, "url": URL, "headers": HEADERS, "body": BODY}
    page = _page(capsys, tmp_path, _step("s", "failed", [], [_exchange(request)]))
    browser.open(page)
    text = _copied(browser)
    fake = _fake_bin(tmp_path / "bin")
    for shell in SHELLS:
        calls, stdout = _paste(shell, text, tmp_path, str(fake), **VARIABLES)
        assert calls == [["curl", INTENDED]], shell  # curl, once, and nothing else ran
        assert stdout == "", shell
    set_first = "# secrets are not in the report: set API_KEY, AUTHORIZATION, SECRET first\n"
    assert text.startswith(set_first + r"curl -X 'X|TOUCH$IFS'\''PWNED'\''' 'http://127.0.0.1:9/a;TOUCH ")
    assert "-H 'Authorization: Bearer '\"${AUTHORIZATION}\" \\\n" in text
    _clean(browser)


def test_each_part_is_one_word_and_a_url_without_its_scheme_is_no_option(capsys, browser, tmp_path):  # noqa: F811
    # a body that is only a masked value, a URL that is not one (no scheme: not to be read as an option)
    header = {"name": "1-Key", "value": "***"}
    request = {"method": "GET", "url": "-o/tmp/x", "headers": [header], "body": "***"}
    page = _page(capsys, tmp_path, _step("s", "failed", [], [_exchange(request)]))
    browser.open(page)
    text = _copied(browser)
    assert text == (
        "# secrets are not in the report: set SECRET_1_KEY, SECRET first\n"
        "curl -X 'GET' --url '-o/tmp/x' \\\n  -H '1-Key: '\"${SECRET_1_KEY}\" \\\n  --data-raw \"${SECRET}\""
    )
    calls, _ = _paste("sh -c", text, tmp_path, str(_fake_bin(tmp_path / "bin")), SECRET_1_KEY="k", SECRET="b")
    assert calls == [["curl", ["-X", "GET", "--url", "-o/tmp/x", "-H", "1-Key: k", "--data-raw", "b"]]]
    _clean(browser)


TOUCHY = {
    "openapi": "3.2.0",
    "info": {"title": "touchy", "version": "1"},
    "paths": {
        "/things/{id}": {
            "additionalOperations": {
                METHOD: {
                    "operationId": "touchy",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                        {"name": "X-Note", "in": "header", "schema": {"type": "string"}},
                    ],
                    "requestBody": {"content": {"text/plain": {"schema": {"type": "string"}}}},
                    "responses": {"200": {"description": "touched"}},
                }
            }
        }
    },
}


def test_an_additional_operations_method_from_a_real_run_is_copied_inert(capsys, browser, write, tmp_path):  # noqa: F811
    note = "`TOUCH tick` $(TOUCH sub) it's !! | TOUCH pipe"
    body = "line 1 $HOME\nline 2 ; TOUCH semi '\\"
    step = op_step(
        "touch",
        "touchy",
        parameters=[
            {"name": "id", "in": "path", "value": "7"},
            {"name": "X-Note", "in": "header", "value": note},
        ],
        requestBody={"contentType": "text/plain", "payload": body},
        successCriteria=[{"condition": "$statusCode == 200"}],
    )
    path = write({"arazzo": "1.0.1", "info": {"title": "t", "version": "1"},
                  "sourceDescriptions": [{"name": "touchy", "url": "touchy.openapi.json", "type": "openapi"}],
                  "workflows": [workflow("w", step)]}, openapi=None)  # fmt: skip
    (tmp_path / "touchy.openapi.json").write_text(json.dumps(TOUCHY), encoding="utf-8")
    page = tmp_path / "run.html"
    with ScriptedServer() as server:
        server.route(METHOD, "/things/{id}")(lambda r: (200, {"touched": r.params["id"]}))
        served = f"touchy={server.url}"
        result = cli(capsys, "run", path, "--server", served, "--html", page, "--github", "off")
        assert result.code == 0, result.out + result.err
        sent = server.requests[0]
        assert (sent.method, sent.path, sent.headers["x-note"]) == (METHOD, "/things/7", note)
        assert sent.body == body.encode()
        browser.open(page)
        browser.click('#steps tr[data-step-id="touch"]')
        text = _copied(browser)
        assert "${" not in text  # no secret in this request
        calls, _ = _paste("interactive bash", text, tmp_path, str(_fake_bin(tmp_path / "bin")))
        assert [name for name, _ in calls] == ["curl"]
        argv = calls[0][1]
        assert argv[:3] == ["-X", METHOD, f"{server.url}/things/7"]
        at = argv.index(f"X-Note: {note}")
        assert argv[at - 1] == "-H"
        assert argv[-2:] == ["--data-raw", body]
        # and the real curl sends the server the request the run sent
        for shell in ("bash -c", "sh -c"):
            calls, stdout = _paste(shell, text + " --silent", tmp_path, "/nonexistent")
            assert calls == [] and json.loads(stdout) == {"touched": "7"}, shell
            again = server.requests[-1]
            assert (again.method, again.path, again.headers["x-note"]) == (sent.method, sent.path, note)
            assert again.body == sent.body
            assert again.headers["content-type"] == sent.headers["content-type"]
    _clean(browser)


@pytest.fixture
def odd_page(capsys, tmp_path) -> Path:
    """A run whose steps hold attempts in forms the page does not read: an object where the list goes
    (`check`, the step that failed: the page opens on it), a list with a null, a number and a criterion
    that is not an object (`second`), and text (`first`)."""
    request = {"method": "GET", "url": "http://127.0.0.1:9/pets", "headers": [], "body": None}
    criterion = {"condition": "$statusCode == 200", "passed": True, "values": []}
    good = {"attempt": 2, "startedAt": "2026-01-01T00:00:00.001Z", "durationMs": 3.0, "status": "passed",
            "statusCode": 200, "criteria": [7, criterion], "expressions": {"where": "nowhere"}}  # fmt: skip
    return _page(
        capsys,
        tmp_path,
        _step("first", "passed", "three", [_exchange(request)]),
        _step("second", "passed", [None, 5, good], ["x", _exchange(request)]),
        _step("check", "failed", {"length": 2, "0": {}}, [_exchange(request)], error="it failed here"),
    )


def test_a_step_whose_attempts_are_an_object_still_renders_and_says_what_it_could_not_show(browser, odd_page):  # noqa: F811
    driver = browser.open(odd_page)
    assert _text(browser, "#detail h2") == "failed step check"
    assert _text(browser, "#step-error") == "it failed here"
    assert "w.arazzo.yaml:9:11" in _text(browser, "#step-facts")
    notes = [e.text for e in driver.find_elements("css selector", "#detail .unrendered")]
    said = "the step's 'attempts' is an object in the report, not a list"
    assert notes == [f"could not show the criteria checked: {said}", f"could not show the attempts: {said}"]
    assert "GET http://127.0.0.1:9/pets → 200" in _text(browser, "#detail details.exchange summary")
    assert _copied(browser) == "curl -X 'GET' 'http://127.0.0.1:9/pets'"
    rows = driver.find_elements("css selector", "#steps tbody tr")
    assert [row.get_attribute("data-step-id") for row in rows] == ["first", "second", "check"]
    assert driver.find_elements("css selector", "#graph-svg g.node")  # the flow graph too
    _clean(browser)


def test_attempts_in_other_forms_show_what_can_be_shown(browser, odd_page):  # noqa: F811
    driver = browser.open(odd_page)
    browser.click('#steps tr[data-step-id="second"]')
    assert _text(browser, "#detail h2") == "passed step second"
    rows = [r.text for r in driver.find_elements("css selector", "#attempts tbody tr")]
    assert rows[0] == "could not show attempt 1: it is null in the report, not an object"
    assert rows[1] == "could not show attempt 2: it is a number in the report, not an object"
    assert rows[2].startswith("2 2026-01-01T00:00:00.001Z 3 ms passed 200")
    criteria = [" ".join(r.text.split()) for r in driver.find_elements("css selector", "#criteria tbody tr")]
    assert criteria == ["could not show criterion 1: it is a number in the report, not an object",
                        "✓ $statusCode == 200 passed"]  # fmt: skip
    assert _text(browser, "#detail p.unrendered") == (
        "could not show the runtime expressions: "
        "the last attempt's 'expressions' is an object in the report, not a list"
    )
    exchanges = driver.find_elements("css selector", "#detail details.exchange summary")
    assert [e.text for e in exchanges] == ["GET http://127.0.0.1:9/pets → 200 (5 ms)"]
    assert "could not show HTTP exchange 1: it is text in the report, not an object" in _text(
        browser, "#detail"
    )
    browser.click('#steps tr[data-step-id="first"]')
    assert _text(browser, "#detail h2") == "passed step first"
    notes = [e.text for e in driver.find_elements("css selector", "#detail .unrendered")]
    said = "the step's 'attempts' is text in the report, not a list"
    assert notes == [f"could not show the criteria checked: {said}", f"could not show the attempts: {said}"]
    browser.click("#tab-timeline")
    labels = [e.text for e in driver.find_elements("css selector", "#waterfall .wf-label")]
    assert sorted(labels) == ["w", "w / check", "w / first", "w / second"]
    _clean(browser)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda flow, step: flow.update(steps={"a": 1}), "the steps of workflow w is an object, not a list"),
        (
            lambda flow, step: flow.update(dependencies=[3]),
            "dependency 1 of workflow w is a number, not an object",
        ),
        (
            lambda flow, step: step.update(workflow="x"),
            "a workflow run of step s of workflow w is text, not an object",
        ),
    ],
)
def test_a_report_whose_workflows_or_steps_are_not_objects_is_refused_with_where(
    capsys, tmp_path, change, message
):
    # (the parts inside a step are the page's to show or to say it cannot; these are what it is built of)
    report = _report(tmp_path / "run.json", _step("s", "failed", [], []))
    data = json.loads(report.read_text(encoding="utf-8"))
    change(data["workflows"][0], data["workflows"][0]["steps"][0])
    report.write_text(json.dumps(data), encoding="utf-8")
    result = cli(capsys, "report", report, "-o", tmp_path / "page.html")
    assert (result.code, result.err) == (2, f"error: run.json: {message}\n")
    assert not (tmp_path / "page.html").exists()


def test_names_that_are_not_text_and_durations_that_are_not_numbers_are_shown(capsys, browser, tmp_path):  # noqa: F811
    step = _step("s", "failed", [], [{"a": 1}])
    step["stepId"] = [1]
    report = _report(tmp_path / "run.json", step)
    data = json.loads(report.read_text(encoding="utf-8"))
    data["workflows"][0].update(workflowId={"id": "w"}, durationMs="long")
    report.write_text(json.dumps(data), encoding="utf-8")
    page = tmp_path / "page.html"
    assert cli(capsys, "report", report, "-o", page).code == 0
    browser.open(page)
    assert _text(browser, "#execution > h2") == 'failed workflow {"id": "w"}'
    browser.click("#steps tbody tr")
    assert _text(browser, "#detail h2") == "failed step [1]"
    assert "could not show HTTP exchange 1: its 'request' is missing in the report, not an object" in _text(
        browser, "#detail"
    )
    _clean(browser)
