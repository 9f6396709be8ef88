"""The harness that starts the tests' brokers and services (tests/e2e/processkit.py): readiness lines
read whatever way a child writes them, a child's stderr never stalls it, and a missing broker fails
or, when allowed, is skipped saying so."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.e2e import processkit
from tests.e2e.processkit import ROOT, Process, broker_binary
from tests.untested import skipif_untested


def child(code: str) -> Process:
    return Process([sys.executable, "-c", textwrap.dedent(code)])


def test_lines_written_at_once_are_all_read_and_the_next_ones_too():
    """tansu prints its four start-up lines in one write: a reader that waits on the pipe after a
    buffered readline() took them all would wait for a fifth that never comes."""
    process = child(
        """
        import sys, time
        sys.stdout.write("tansu broker 0.6.0\\nlistening on: tcp://x\\nPORT 4242\\nready in 0ms\\n")
        sys.stdout.flush()
        time.sleep(600)
        """
    )
    try:
        assert process.line("PORT ") == "4242"
        assert process.line("ready in") == "0ms"  # the line after it, from the same write
    finally:
        process.stop()


def test_a_line_is_matched_by_its_start_and_its_end():
    process = child(
        """
        import sys, time
        sys.stdout.write("mosquitto version 2.0 starting\\nmosquitto version 2.0 running\\n")
        sys.stdout.flush()
        time.sleep(600)
        """
    )
    try:
        assert process.line("mosquitto version", ending=" running") == "2.0 running"
    finally:
        process.stop()


def test_a_child_writing_much_to_stderr_before_it_is_ready_is_not_stalled():
    """A pipe holds 64 KiB: a child logging more to a stderr nobody reads would block forever."""
    process = child(
        """
        import sys, time
        for n in range(20000):
            sys.stderr.write(f"log line {n} " + "x" * 60 + "\\n")
        sys.stderr.flush()
        print("READY", flush=True)
        time.sleep(600)
        """
    )
    try:
        assert process.line("READY") == ""
    finally:
        process.stop()
    assert "log line 19999" in process.errors()  # the end of stderr is kept for messages


def test_a_child_that_exits_first_is_an_error_with_its_exit_code_and_stderr():
    process = child(
        """
        import sys
        print("starting", flush=True)
        sys.stderr.write("Error: Address already in use\\n")
        sys.exit(3)
        """
    )
    try:
        with pytest.raises(RuntimeError, match=r"exited \(3\) before printing 'PORT '") as caught:
            process.line("PORT ")
        assert "Address already in use" in str(caught.value)
    finally:
        process.stop()


def test_a_silent_child_is_an_error_once_the_wait_is_over():
    process = child("import time; time.sleep(600)")
    try:
        with pytest.raises(RuntimeError, match=r"did not print 'PORT ' within 0.2 s"):
            process.line("PORT ", wait=0.2)
    finally:
        process.stop()


def _state(pid: int) -> str:
    """The process's state letter (Z: ended, not reaped), or '' when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return ""


@skipif_untested(not Path("/proc/self/stat").exists(), "no /proc", "the harness ends grandchildren too")
def test_stop_ends_what_the_child_started_too():
    process = child(
        """
        import subprocess, sys, time
        grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print("CHILD", grandchild.pid, flush=True)
        time.sleep(600)
        """
    )
    try:
        grandchild = int(process.line("CHILD "))
        assert _state(grandchild) not in ("", "Z")
    finally:
        process.stop()
    for _ in range(200):
        if _state(grandchild) in ("", "Z"):
            break
        import time

        time.sleep(0.05)
    assert _state(grandchild) in ("", "Z")


def test_a_missing_broker_fails_its_test_naming_the_install_script(monkeypatch):
    monkeypatch.delenv("ARAZZO_TESTS_WITHOUT", raising=False)
    with pytest.raises(pytest.fail.Exception) as caught:
        broker_binary("rabbitmq", None, "the rabbitmq-server package")
    message = str(caught.value)
    assert "bash tests/install-system-packages.sh" in message
    assert "ARAZZO_TESTS_WITHOUT=rabbitmq" in message


@pytest.mark.parametrize("allowed", ["rabbitmq", "nats,rabbitmq", "all"])
def test_a_missing_broker_the_environment_allows_is_skipped_saying_its_claim_is_not_tested(
    monkeypatch, allowed
):
    monkeypatch.setenv("ARAZZO_TESTS_WITHOUT", allowed)
    with pytest.raises(pytest.skip.Exception) as caught:
        broker_binary("rabbitmq", None, "the rabbitmq-server package")
    assert "the README's claim for rabbitmq is NOT TESTED here" in str(caught.value)
    assert broker_binary("rabbitmq", "/usr/bin/true", "x") == "/usr/bin/true"  # found: used


def test_allowing_another_broker_does_not_allow_this_one(monkeypatch):
    monkeypatch.setenv("ARAZZO_TESTS_WITHOUT", "nats,kafka")
    assert not processkit.allowed_missing("rabbitmq")
    with pytest.raises(pytest.fail.Exception):
        broker_binary("rabbitmq", None, "the rabbitmq-server package")


def test_skipped_brokers_are_listed_again_at_the_end_of_the_run(tmp_path):
    test = tmp_path / "test_missing.py"
    test.write_text(
        "from tests.e2e.processkit import broker_binary\n\n"
        "def test_needs_it():\n"
        "    broker_binary('mosquitto', None, 'the mosquitto package')\n"
    )
    env = {"ARAZZO_TESTS_WITHOUT": "mosquitto", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider", str(test)],
        cwd=ROOT,
        env={**__import__("os").environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    section = done.stdout.split("claims NOT TESTED on this machine", 1)
    assert len(section) == 2, done.stdout
    assert "mosquitto: no broker binary on this machine (the mosquitto package)" in section[1]
