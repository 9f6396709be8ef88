"""JSON results go out in one write: `--format json` on stdout and the report files (`--report-json`,
`--har`). `json.dump` to a stream writes every token separately: a 200-step result was thousands of
writes to stdout."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from arazzo_runner.cli import common
from arazzo_runner.report import har, json_report


class CountingStream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def _result(steps: int = 200) -> dict[str, Any]:
    """The shape of a run's `--format json` document, with `steps` steps."""
    return {
        "ok": True,
        "workflows": [
            {
                "workflowId": "chain",
                "status": "passed",
                "steps": [
                    {"stepId": f"s{i}", "status": "passed", "statusCode": 200, "outputs": {"next": i + 1}}
                    for i in range(steps)
                ],
                "outputs": {"last": steps},
            }
        ],
    }


def test_json_dump_to_a_stream_is_thousands_of_writes() -> None:
    stream = CountingStream()
    json.dump(_result(), stream, indent=2)
    assert stream.writes > 1000  # what the tests below guard against


def test_format_json_on_stdout_is_one_write(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = CountingStream()
    monkeypatch.setattr("sys.stdout", stream)
    data = {**_result(), "name": "café"}
    common.dump_json(data)
    assert stream.writes == 1
    assert stream.getvalue() == json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _counting_open(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[CountingStream]:
    """`open` in `module` gives a stream that counts writes (and keeps what was written)."""
    opened: list[CountingStream] = []

    class Handle(CountingStream):
        def __enter__(self) -> Handle:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    def fake_open(path: str, mode: str = "r", **kwargs: Any) -> Handle:
        assert "w" in mode and kwargs.get("encoding") == "utf-8"
        handle = Handle()
        opened.append(handle)
        return handle

    monkeypatch.setattr(module, "open", fake_open, raising=False)
    return opened


def test_the_report_file_is_one_write(monkeypatch: pytest.MonkeyPatch) -> None:
    opened = _counting_open(monkeypatch, json_report)
    data = _result()
    json_report.write_report_json("report.json", data)
    assert [handle.writes for handle in opened] == [1]
    assert json.loads(opened[0].getvalue()) == data
    assert opened[0].getvalue().endswith("}\n")


def test_the_har_file_is_one_write(monkeypatch: pytest.MonkeyPatch) -> None:
    opened = _counting_open(monkeypatch, har)
    har.write_har("run.har", [], tool_version="1.2.3")
    assert [handle.writes for handle in opened] == [1]
    assert json.loads(opened[0].getvalue())["log"]["creator"]["version"] == "1.2.3"


def test_a_real_report_file_holds_the_same_json(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    json_report.write_report_json(str(path), _result(3))
    assert path.read_text(encoding="utf-8") == json.dumps(_result(3), indent=2, ensure_ascii=False) + "\n"
