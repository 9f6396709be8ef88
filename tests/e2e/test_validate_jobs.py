"""`arazzo validate` of many files in several processes (`validate/parallel.py`): the same bytes and
exit code as one process, in every format; the files really are validated at once in two processes; a
child that fails loses nothing; a process with other threads, or one job, never forks.

The `map_ordered` tests run in a fresh interpreter: pytest's own process may have threads (servers of
other tests), and then, rightly, nothing forks."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arazzo_runner.validate.parallel import MIN_FILES_PER_JOB, batches, jobs_for

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="os.fork")

OPENAPI = """\
openapi: 3.1.0
info: {title: Pets, version: '1'}
paths:
  /pets/{id}:
    get:
      operationId: getPet
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: ok}}
"""

FLOW = """\
arazzo: 1.0.1
info: {{title: flow {n}, version: '1'}}
sourceDescriptions: [{{name: api, url: ./pets.openapi.yaml, type: openapi}}]
workflows:
  - workflowId: w{n}
    steps:
      - stepId: s
        operationId: {operation}
        parameters: [{{name: id, in: path, value: $inputs.id}}]
        successCriteria: [{{context: $response.body, condition: '{condition}', type: {type}}}]
        outputs: {{pet: {output}}}
"""


def _corpus(folder: Path) -> list[str]:
    """Twenty-odd documents: valid ones, errors (an unknown operation, a misspelt output expression),
    warnings, an unreadable file and XPath criteria (which this process validates itself)."""
    (folder / "pets.openapi.yaml").write_text(OPENAPI)
    files = []
    for n in range(24):
        kind = n % 6
        operation = "getPets" if kind == 1 else "getPet"
        output = "$respons.body#/name" if kind == 2 else "$response.body#/name"
        condition, type_ = ("/pet/name", "xpath") if kind == 3 else ("$.name", "jsonpath")
        if kind == 4:
            condition, type_ = ("//pet[", "xpath")  # a syntax error the XPath worker finds
        text = FLOW.format(n=n, operation=operation, output=output, condition=condition, type=type_)
        if kind == 5:
            text = text.replace("version: '1'", "version: '1', x-note: [unclosed")  # unreadable YAML
        path = folder / f"flow{n:02}.arazzo.yaml"
        path.write_text(text)
        files.append(str(path))
    return files


def _validate(files: list[str], *options: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", "validate", "--offline", *options, *files],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.stderr == ""
    return done.returncode, done.stdout


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_several_processes_print_what_one_prints(tmp_path, fmt):
    files = _corpus(tmp_path)
    alone = _validate(files, "--format", fmt, "--jobs", "1")
    assert alone[0] == 2  # the unreadable files
    assert _validate(files, "--format", fmt, "--jobs", "3") == alone
    assert _validate(files, "--format", fmt) == alone  # the default: one per CPU for this many files
    if fmt == "json":
        reported = json.loads(alone[1])
        text = json.dumps(reported)
        for expected in ("getPets", "$respons.body", "//pet["):
            assert expected in text  # each kind of finding is there, once per file of its kind


def test_a_number_of_jobs_is_one_or_more(tmp_path):
    files = _corpus(tmp_path)[:1]
    for bad in ("0", "-2", "many"):
        done = subprocess.run(
            [sys.executable, "-m", "arazzo_runner.cli", "validate", "--jobs", bad, *files],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2 and done.stdout == ""
        assert f"expected a number of processes (1 or more), got '{bad}'" in done.stderr
        assert "Traceback" not in done.stderr


def test_how_many_processes_and_which_files_each_batch_holds(monkeypatch):
    from arazzo_runner.validate import parallel

    monkeypatch.setattr(parallel, "available_cpus", lambda: 4)
    assert jobs_for(None, MIN_FILES_PER_JOB - 1) == 1  # too few files to be worth a process
    assert jobs_for(None, 2 * MIN_FILES_PER_JOB) == 2
    assert jobs_for(None, 100 * MIN_FILES_PER_JOB) == 4  # never more than the CPUs
    assert jobs_for(3, 2) == 2 and jobs_for(3, 50) == 3  # as asked, but not more than the files
    assert batches(list(range(7)), 3) == [[0, 1, 2], [3, 4], [5, 6]]
    assert batches([4, 9], 5) == [[4], [9]] and batches([], 5) == []
    assert [i for batch in batches(list(range(5000)), 1024) for i in batch] == list(range(5000))  # in order
    assert len(batches(list(range(5000)), 1024)) == 1024


# -- map_ordered, in a fresh interpreter ----------------------------------------------------------

HARNESS = """\
import json, os, sys, threading, time
from pathlib import Path
from arazzo_runner.validate.parallel import map_ordered

folder = Path(sys.argv[1])
mode = sys.argv[2]
parent = os.getpid()


def meet(mine, theirs):
    # announce this item and wait for the other one to be under way: only possible if the two are
    # being worked on at the same time, in two processes; 120 s to fail rather than hang
    (folder / mine).write_text("")
    for _ in range(12000):
        if (folder / theirs).exists():
            return True
        time.sleep(0.01)
    return False


def work(item, ctx):
    ctx.append(item)
    met = meet(f"at{item}", f"at{1 - item}") if item in (0, 1) else None
    if mode in ("raise", "kill") and os.getpid() != parent and met:
        if mode == "raise":
            raise RuntimeError("a child's failure")
        os.kill(os.getpid(), 9)
    return {"item": item, "pid": os.getpid(), "met": met, "seen": len(ctx)}


if mode == "thread":
    stop = threading.Event()
    threading.Thread(target=stop.wait, daemon=True).start()
order = []
results = map_ordered(
    work,
    list(range(12)),
    2,
    context=list,
    reserved=[11],
    at_start=lambda: order.append("start"),
    prepare=lambda: order.append("prepare"),
    weight=lambda item: 100 if item < 2 else item,  # handed out 0, 1, 10, 9, ..., 2 (11 is reserved)
)
if mode == "thread":
    stop.set()
print(json.dumps({"parent": parent, "results": results, "order": order}))
"""


def _harness(tmp_path: Path, mode: str) -> dict:
    script = tmp_path / "harness.py"
    script.write_text(textwrap.dedent(HARNESS))
    (tmp_path / mode).mkdir(exist_ok=True)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / mode), mode], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_two_processes_work_at_once_and_the_results_keep_the_items_order(tmp_path):
    found = _harness(tmp_path, "ok")
    results = found["results"]
    assert [r["item"] for r in results] == list(range(12))
    assert results[0]["met"] and results[1]["met"]  # 0 and 1 were under way together
    assert len({r["pid"] for r in results}) == 2  # in this process and in one child
    assert results[11]["pid"] == found["parent"]  # the reserved item: this process's
    assert found["order"] == ["prepare", "start"]  # prepared once, before the fork
    queue = [0, 1, *range(10, 1, -1)]
    for pid in {
        r["pid"] for r in results
    }:  # each process took its items in the queue's order: heaviest first
        taken = [r["item"] for r in sorted(results, key=lambda r: r["seen"]) if r["pid"] == pid]
        assert [item for item in taken if item != 11] == [item for item in queue if item in taken]


@pytest.mark.parametrize("mode", ["raise", "kill"])
def test_a_child_that_fails_loses_nothing(tmp_path, mode):
    found = _harness(tmp_path, mode)
    results = found["results"]
    assert [r["item"] for r in results] == list(range(12))  # every item, in order
    assert {r["pid"] for r in results} == {found["parent"]}  # the child's items were done again here


def test_a_process_with_other_threads_does_not_fork(tmp_path):
    (tmp_path / "thread").mkdir()
    (tmp_path / "thread" / "at1").write_text("")  # item 0 meets at once: everything runs here
    found = _harness(tmp_path, "thread")
    results = found["results"]
    assert [r["item"] for r in results] == list(range(12))
    assert {r["pid"] for r in results} == {found["parent"]}
    assert [r["seen"] for r in results] == list(range(1, 13))  # one context, the items in order
    assert found["order"] == ["start"]  # no fork: nothing prepared for one


def test_a_report_crosses_between_processes_whole():
    from arazzo_runner.validate.findings import Edit, Finding, Report, report_from_data, report_to_data

    fix = (Edit("/a/0", 3, "old", "new"), Edit("/b", 0, "k", "key", key=True))
    fix += (Edit("/c", 0, "", "[x]", node=True),)
    findings = [
        Finding("output-value", "error", "bad \udce9 value", "f.yaml", "/a/0", 4, 7, fix=fix),
        Finding("document-parse", "warning", "m", "f.yaml", None, 1, 1),
    ]
    report = Report("f.yaml", findings, readable=False, strict=True)
    again = report_from_data(json.loads(json.dumps(report_to_data(report))))
    assert again == report and again.findings[0].fix == fix
