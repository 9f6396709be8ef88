"""Regenerate the screenshots of `docs/reports.md` from real runs: the shipped workflows against the bundled
reference server (in-process, its API key required), reports written by `arazzo run --html` and
`arazzo report`, photographed in Debian's headless Chromium (tests/e2e/browserkit.py; install it with
`tests/system/install-chromium.sh`).

    python docs/report_screenshots.py    # rewrites docs/images/report-*.png
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout, whatever is installed

from arazzo_runner.cli import main  # noqa: E402
from arazzo_runner.reference import ReferenceServer  # noqa: E402
from tests.e2e.browserkit import Browser  # noqa: E402

IMAGES = ROOT / "docs" / "images"
KEY = "sk-reference-demo-key"
TOOL_CALL = "workflows/chat-completion-tool-call.arazzo.yaml"  # from the repository root, as a user runs it
SCENARIOS = "workflows/chat-completions-scenarios.arazzo.yaml"
ROWS = [
    {"apiKey": KEY, "userMessage": "What's the weather in Sydney today?"},
    {"apiKey": KEY, "userMessage": "Say hello to the Arazzo community."},
    {"apiKey": "sk-revoked-key", "userMessage": "What's the weather in Hobart?"},
]
TOOL_INPUTS = ["--input", "model=agentaus", "--input", "toolName=get_current_weather"]
TOOL_INPUTS += ["--input", 'toolResult={"temperature_c": 19}']


def _run(*argv: object) -> None:
    code = main([str(a) for a in argv])
    if code not in (0, 1):  # 1: a workflow failed, as some of these are meant to
        raise SystemExit(f"arazzo {argv[0]} exited {code}")


def make_reports(folder: Path, url: str) -> dict[str, Path]:
    made = {name: folder / f"{name}.html" for name in ("scenarios", "rows", "diff")}
    _run("run", SCENARIOS, "--server", f"chatCompletionsApi={url}", "--input", f"apiKey={KEY}",
         "--html", made["scenarios"], "--github", "off")  # fmt: skip
    rows = folder / "rows.jsonl"
    rows.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    _run("run", TOOL_CALL, "--server", f"chatCompletionsApi={url}", "--inputs-file", rows, *TOOL_INPUTS,
         "--html", made["rows"], "--github", "off")  # fmt: skip
    for name, key in (("before", "sk-revoked-key"), ("after", KEY)):
        _run("run", TOOL_CALL, "--server", f"chatCompletionsApi={url}", "--input", f"apiKey={key}",
             "--input", "userMessage=What's the weather in Sydney today?", *TOOL_INPUTS,
             "--report-json", folder / f"{name}.json", "--github", "off")  # fmt: skip
    before, after = folder / "before.json", folder / "after.json"
    _run("report", before, after, "--diff", "-o", made["diff"], "--github", "off")
    return made


def photograph(made: dict[str, Path]) -> None:
    browser = Browser()
    try:
        browser.open(made["scenarios"])
        browser.click('#runs button[data-execution="5"]')  # bad-request-recovery
        browser.click('#graph-svg g.node[data-step-id="sendOrphanToolMessage"]')
        browser.driver.execute_script("window.scrollTo(0, 0)")
        browser.screenshot(IMAGES / "report-step.png", 1500, 1000)
        browser.click("#tab-timeline")
        browser.find("#waterfall .wf-row")
        browser.screenshot(IMAGES / "report-timeline.png", 1500, 700)
        browser.open(made["rows"])
        browser.find("#grid")
        browser.screenshot(IMAGES / "report-grid.png", 1200, 420)
        browser.open(made["diff"])
        browser.find("#diff")
        browser.screenshot(IMAGES / "report-diff.png", 1500, 560)
        assert browser.console_errors() == [], browser.console_errors()
    finally:
        browser.close()


if __name__ == "__main__":
    import os

    os.chdir(ROOT)
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, ReferenceServer(api_key=KEY) as server:
        photograph(make_reports(Path(folder), server.url))
    print("wrote", ", ".join(sorted(p.name for p in IMAGES.glob("report-*.png"))))
