"""`--inputs-file` rows: each row's inputs are validated once (issue 43: the check pass before anything
is sent, then not again in the row's run), while the run still applies their defaults and masks their
secrets; rows that changed after the check are validated again in their runs."""

from __future__ import annotations

import pytest

from arazzo_runner.cli import journal_flags
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, run_json, workflow
from tests.e2e.test_cli_batch import SCHEMA  # the same rows: petId, a defaulted trace, a password


def _doc() -> dict:
    get = op_step(
        "get",
        "getPet",
        parameters=[
            {"name": "petId", "in": "path", "value": "$inputs.petId"},
            {"name": "X-Trace", "in": "header", "value": "$inputs.trace"},
            {"name": "X-Password", "in": "header", "value": "$inputs.password"},
        ],
        successCriteria=[{"condition": "$statusCode == 200"}],
        outputs={"name": "$response.body#/name", "echo": "$response.body#/password"},
    )
    outputs = {"name": "$steps.get.outputs.name", "echo": "$steps.get.outputs.echo"}
    return arazzo_doc(workflow("flow", get, inputs=SCHEMA, outputs=outputs))


@pytest.fixture
def pets(server):
    @server.route("GET", "/pets/{id}")
    def pet(request):
        return 200, {"name": f"pet-{request.params['id']}", "password": request.headers.get("x-password")}

    return server


ROWS = [
    '{"petId": 1, "password": "correct-horse-battery"}',
    '{"petId": 2}',
    '{"petId": 3, "trace": "row", "password": "staple-staple-staple"}',
]


@pytest.mark.parametrize("concurrency", ["1", "2"])
def test_each_rows_inputs_are_validated_once(capsys, write, pets, tmp_path, validations, concurrency):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(ROWS) + "\n")
    result = run_json(capsys, write(_doc()), "--inputs-file", rows, "--concurrency", concurrency, server=pets)
    assert result.code == 0, result.err
    assert sorted(v["petId"] for v in validations) == [1, 2, 3]  # the check pass; the runs do not again
    data = result.json
    outputs = [r["result"]["workflows"][0]["outputs"] for r in data["rows"]]
    assert [o["name"] for o in outputs] == ["pet-1", "pet-2", "pet-3"]
    assert [o["echo"] for o in outputs] == ["***", None, "***"]  # each row's secret, masked
    sent = sorted((r.path, r.headers["x-trace"]) for r in pets.requests)
    assert sent == [("/pets/1", "none"), ("/pets/2", "none"), ("/pets/3", "row")]  # defaults applied
    assert data["rows"][0]["inputs"]["password"] == "***"


def test_text_rows_live_are_validated_once(capsys, write, pets, tmp_path, validations):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(ROWS) + "\n")
    result = cli(capsys, "run", write(_doc()), "--server", f"pets={pets.url}", "--inputs-file", rows)
    assert result.code == 0, result.err
    assert len(validations) == 3
    assert "correct-horse" not in result.out and "staple" not in result.out
    assert result.out.count("== row ") == 3


def test_rows_changed_after_their_check_are_validated_in_their_runs(
    capsys, write, pets, tmp_path, validations, monkeypatch
):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(ROWS) + "\n")
    opened = journal_flags.open_journal  # called between the check pass and the runs

    def rewritten(*args, **kwargs):
        rows.write_text('{"petId": 4}\n{"petId": "five"}\n')
        return opened(*args, **kwargs)

    monkeypatch.setattr(journal_flags, "open_journal", rewritten)
    result = run_json(capsys, write(_doc()), "--inputs-file", rows, "--concurrency", "1", server=pets)
    assert result.code == 2
    assert "invalid inputs for workflow 'flow'" in result.out
    assert "five" in result.out
    assert [v["petId"] for v in validations[3:]] == [4, "five"]  # checked again, in the runs
    assert [r.path for r in pets.requests] == ["/pets/4"]  # the changed bad row sent nothing


def test_rows_run_with_fewer_passes_of_the_collector(capsys, write, pets, tmp_path, monkeypatch):
    """With 200 rows in flight each young-generation pass walks every row's objects: 10,000 allocations
    between passes cost ~110 µs of CPU a row, 50,000 ~15 µs (issue 43); a single run keeps 10,000."""
    import gc

    from arazzo_runner.cli import batch

    seen: list[int] = []
    real = batch._run_and_report

    def watched(*args, **kwargs):
        seen.append(gc.get_threshold()[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(batch, "_run_and_report", watched)
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"petId": 1}\n')
    result = run_json(capsys, write(_doc()), "--inputs-file", rows, server=pets)
    assert result.code == 0, result.err
    assert seen and seen[0] >= 50_000
    assert gc.get_threshold()[0] < 50_000  # as it was, once the command is over


def test_the_check_pass_sets_up_one_run_for_all_rows(capsys, write, pets, tmp_path, monkeypatch):
    """A row's check needs options, not a console nor a masker: the check pass sets up one run's and
    gives each row the flags' secrets alone, so a bad row's error is masked with its own secrets only."""
    from arazzo_runner.cli import run as run_module

    made: list[object] = []
    real = run_module.attach_output

    def counted(args, workspace, options, stream, *rest):  # (rest: the setup's reporters)
        made.append(stream)
        return real(args, workspace, options, stream, *rest)

    monkeypatch.setattr(run_module, "attach_output", counted)
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(ROWS) + "\n")
    result = run_json(capsys, write(_doc()), "--inputs-file", rows, "--concurrency", "2", server=pets)
    assert result.code == 0, result.err
    assert len(made) == 4  # one for the check pass, one a row's run

    made.clear()
    sent = len(pets.requests)
    secret = "correct-horse-battery"
    rows.write_text(f'{{"petId": 1, "password": "{secret}"}}\n{{"petId": "{secret}"}}\n')
    result = run_json(capsys, write(_doc()), "--inputs-file", rows, server=pets)
    assert result.code == 2
    assert "(--inputs-file row 2, line 2)" in result.out
    assert f'petId: \\"{secret}\\" is not of type' in result.out  # row 1's secret is not row 2's
    assert len(made) == 1 and len(pets.requests) == sent  # nothing sent


def test_what_stays_the_same_for_a_workflow_is_found_once_a_batch(capsys, write, pets, tmp_path, monkeypatch):
    """The rows share their runs' facts (an operation's base URL and parameters, a workflow's secret
    inputs), as `prepare_run`'s runs do: found by the first row, not again by each."""
    from arazzo_runner.executor import runner as runner_module

    found: list[str] = []
    real = runner_module.secret_input_names

    def counted(schema, document):
        found.append("secret inputs")
        return real(schema, document)

    monkeypatch.setattr(runner_module, "secret_input_names", counted)
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(ROWS) + "\n")
    result = run_json(capsys, write(_doc()), "--inputs-file", rows, "--concurrency", "1", server=pets)
    assert result.code == 0, result.err
    assert found == ["secret inputs"]
    outputs = [r["result"]["workflows"][0]["outputs"] for r in result.json["rows"]]
    assert [o["echo"] for o in outputs] == ["***", None, "***"]  # each row's secret still masked


def test_rows_written_to_the_file_while_they_run_are_validated_in_their_runs(
    capsys, write, server, tmp_path, validations
):
    """A row appended after the check pass (the file written to while the rows run) was never checked:
    its run validates it, and a bad one sends nothing. Row 2 was read with row 1, before the write (one
    read of the file): it is the row checked, and is not validated again (`RowFile.unchanged`)."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"petId": 1}\n{"petId": 2}\n')

    @server.route("GET", "/pets/{id}")
    def pet(request):
        if request.params["id"] == "1":  # row 1's request: a bad row is appended to the file
            with rows.open("a") as more:
                more.write('{"petId": "three"}\n')
        return 200, {"name": "pet"}

    result = run_json(capsys, write(_doc()), "--inputs-file", rows, "--concurrency", "1", server=server)
    assert result.code == 2
    assert 'petId: \\"three\\" is not of type' in result.out
    assert [v["petId"] for v in validations] == [1, 2, "three"]  # the row read after the change alone
    assert [r.path for r in server.requests] == ["/pets/1", "/pets/2"]


def test_headers_of_text_rows_keep_no_list_of_every_row():
    """The blank line between two rows' traces needs to know whether a header is out, not which: a list
    of every row's number grew by ~36 bytes a row (3.6 MB at 100,000 rows)."""
    from arazzo_runner.cli.batch import Row, _header
    from arazzo_runner.masking.secrets import Masker

    printed: list[int] = []
    lines = [_header(Row(n, n, {"n": n}, {"n": n}), Masker(), printed) for n in range(1, 4)]
    assert lines == ["== row 1 (line 1): n=1", "\n== row 2 (line 2): n=2", "\n== row 3 (line 3): n=3"]
    assert printed == [1]


def test_rows_rewritten_in_place_to_the_same_size_and_time_are_validated_in_their_runs(
    capsys, write, pets, tmp_path, validations, monkeypatch
):
    """A row rewritten in place after the check pass, the file keeping its size and given back its
    modification time (`cp -p`, `rsync --inplace -t`, `touch -r`: a file's mtime is the writer's to set)
    was never checked: the change time (which no writer sets) says the file changed, its run validates it."""
    import os

    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"petId": 1}\n{"petId": 2}\n')
    before = os.stat(rows)
    opened = journal_flags.open_journal  # called between the check pass and the runs

    def rewritten(*args, **kwargs):
        rows.write_text('{"petId": 1}\n{"petId":""}\n')  # the same size, the same inode
        os.utime(rows, ns=(before.st_atime_ns, before.st_mtime_ns))  # the same modification time
        while os.stat(rows).st_ctime_ns == before.st_ctime_ns:  # (a coarse clock: until it moves on)
            os.utime(rows, ns=(before.st_atime_ns, before.st_mtime_ns))
        return opened(*args, **kwargs)

    monkeypatch.setattr(journal_flags, "open_journal", rewritten)
    result = run_json(capsys, write(_doc()), "--inputs-file", rows, "--concurrency", "1", server=pets)
    assert result.code == 2, result.out
    assert "invalid inputs for workflow 'flow'" in result.out
    assert [v["petId"] for v in validations] == [1, 2, 1, ""]  # checked again, in the runs
    assert [r.path for r in pets.requests] == ["/pets/1"]  # the rewritten bad row sent nothing


def test_a_row_whose_run_finds_its_inputs_invalid_is_named_and_masked_with_its_secrets(
    capsys, write, server, tmp_path
):
    """A row written to the file after the check pass is validated in its run (not in the rows'
    generator, as `--format text` on one row at a time does): its error quotes the row's own secret,
    masked as the check pass masks it, and names the row."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"petId": 1}\n{"petId": 2}\n')
    secret = "abcdefghijklmno"  # a `format: password` input, one character too short

    @server.route("GET", "/pets/{id}")
    def pet(request):
        if request.params["id"] == "1":  # row 1's request: a bad row is appended to the file
            with rows.open("a") as more:
                more.write(f'{{"petId": 3, "password": "{secret}"}}\n')
        return 200, {"name": "pet"}

    result = run_json(capsys, write(_doc()), "--inputs-file", rows, "--concurrency", "1", server=server)
    assert result.code == 2
    assert secret not in result.out and secret not in result.err
    assert 'password: \\"***\\" is too short (--inputs-file row 3, line 3)' in result.out
    assert [r.path for r in server.requests] == ["/pets/1", "/pets/2"]


def test_a_row_failing_its_check_in_the_run_pass_lets_the_row_before_it_run(capsys, write, server, tmp_path):
    """Text rows one at a time check each row as it is read (its header, masked, comes first): the row
    after one in flight was read, and failed, before that one had started, which was then cancelled and
    shown as interrupted (a good row, its request never sent). A row is read when a place is free."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"petId": 1}\n{"petId": 2}\n')

    @server.route("GET", "/pets/{id}")
    def pet(request):
        if request.params["id"] == "1":  # row 1's request: a bad row is appended to the file
            with rows.open("a") as more:
                more.write('{"petId": "three"}\n')
        return 200, {"name": "pet"}

    result = cli(capsys, "run", write(_doc()), "--server", f"pets={server.url}", "--inputs-file", rows)
    assert result.code == 2
    assert 'petId: "three" is not of type "integer" (--inputs-file row 3, line 3)' in result.err
    assert [r.path for r in server.requests] == ["/pets/1", "/pets/2"]
    assert "interrupted" not in result.out and result.out.count("✓ flow passed") == 2
