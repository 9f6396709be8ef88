"""The files `validate --fix` and `upgrade` write (issue 23, point 9): a symlink is written through to its
target and stays a link, the mode stays, hard links stay one file, and no `.arazzo-` temporary file is
left behind, whatever ends the write: an error, Ctrl-C, SIGTERM (a real `arazzo` process, signalled
while it writes).
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.e2e.helpers import ROOT, cli
from tests.unit.validate.fixkit import HEAD, write_fixable

BEFORE = HEAD + "          x: $steps.s.id\n"
FIXED = HEAD + "          x: $steps.s.outputs.id\n"


def _real(tmp_path: Path, text: str = BEFORE) -> Path:
    folder = tmp_path / "real"
    folder.mkdir()
    path = write_fixable(folder, "")
    path.write_text(text, encoding="utf-8")
    return path


def _leftovers(*folders: Path) -> list[Path]:
    return [p for folder in folders for p in folder.iterdir() if p.name.startswith(".arazzo-")]


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path, capsys):
    real = _real(tmp_path)
    real.chmod(0o640)
    links = tmp_path / "links"
    links.mkdir()
    link = links / "flow.arazzo.yaml"
    link.symlink_to(os.path.relpath(real, links))  # relative: it must stay exactly this link
    result = cli(capsys, "validate", "--fix", link)
    assert result.code == 0, result.out + result.err
    assert link.is_symlink() and os.readlink(link) == os.path.relpath(real, links)
    assert real.read_text(encoding="utf-8") == FIXED
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert _leftovers(real.parent, links) == []


def test_upgrade_writes_through_a_symlink_too(tmp_path, capsys):
    real = _real(tmp_path, FIXED)
    link = tmp_path / "flow.arazzo.yaml"
    link.symlink_to(real)
    result = cli(capsys, "upgrade", link)
    assert result.code == 0, result.out + result.err
    assert link.is_symlink() and real.read_text(encoding="utf-8").startswith("arazzo: 1.1.0\n")


def test_hard_links_stay_one_file_and_the_mode_stays(tmp_path, capsys):
    real = _real(tmp_path)
    real.chmod(0o604)
    other = tmp_path / "other.arazzo.yaml"
    os.link(real, other)
    inode = real.stat().st_ino
    result = cli(capsys, "validate", "--fix", real)
    assert result.code == 0, result.out + result.err
    assert real.stat().st_ino == inode and other.stat().st_ino == inode and real.stat().st_nlink == 2
    assert other.read_text(encoding="utf-8") == FIXED
    assert stat.S_IMODE(real.stat().st_mode) == 0o604
    assert _leftovers(real.parent, tmp_path) == []


def test_a_write_that_fails_leaves_the_file_and_no_temporary_file(tmp_path, capsys, monkeypatch):
    real = _real(tmp_path)

    def refuse(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    result = cli(capsys, "validate", "--fix", real)  # `cli` asserts: no traceback
    assert f"error: {real}: cannot write the fixed file: No space left on device" in result.err
    assert real.read_text(encoding="utf-8") == BEFORE
    assert _leftovers(real.parent) == []


@pytest.mark.parametrize("linked", [False, True])
def test_ctrl_c_while_writing_leaves_the_file_and_no_temporary_file(tmp_path, capsys, monkeypatch, linked):
    real = _real(tmp_path)
    if linked:
        os.link(real, tmp_path / "other.arazzo.yaml")

    def interrupt(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupt)
    result = cli(capsys, "validate", "--fix", real)
    assert result.code == 130 and "interrupted" in result.err
    assert real.read_text(encoding="utf-8") == BEFORE
    assert _leftovers(real.parent) == []


SIGNALLED = textwrap.dedent(
    """
    import os, signal, sys
    real_fsync = os.fsync

    def fsync(fd):  # the data is written, not yet synced: SIGTERM arrives, as from `kill`
        os.kill(os.getpid(), signal.SIGTERM)
        real_fsync(fd)

    os.fsync = fsync
    from arazzo_runner.cli import main
    sys.exit(main(["validate", "--fix", sys.argv[1]]))
    """
)


@pytest.mark.parametrize("linked", [False, True])
def test_sigterm_while_writing_leaves_the_file_and_no_temporary_file(tmp_path, linked):
    real = _real(tmp_path)
    if linked:
        os.link(real, tmp_path / "other.arazzo.yaml")
    done = subprocess.run(
        [sys.executable, "-c", SIGNALLED, str(real)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == -signal.SIGTERM, done.stderr  # it ended as the signal asked
    assert "Traceback" not in done.stderr
    assert real.read_text(encoding="utf-8") == BEFORE
    assert _leftovers(real.parent, tmp_path) == []
