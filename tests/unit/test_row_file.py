"""`RowFile.unchanged` (executor/rows.py), which `arazzo run --inputs-file` asks before trusting a row of its
second pass as checked: true only while a pass reads the file as it was when that pass opened it, or reads
the copy of stdin; with nothing to ask (no pass in progress, no copy) the answer is "changed"."""

from __future__ import annotations

import io

from arazzo_runner.executor.rows import RowFile


def test_unchanged_follows_the_file_the_pass_reads(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n{"a": 2}\n')
    answers = []
    with RowFile(str(path)) as rows:
        answers.append(rows.unchanged())  # before any pass: nothing to ask
        for line, _ in rows:
            answers.append(rows.unchanged())
            if line == 1:  # written to while the pass reads it (its size changes: no clock involved)
                with path.open("a") as more:
                    more.write('{"a": 3}\n')
        answers.append(rows.unchanged())  # the pass is over
        again = [rows.unchanged() for _ in rows]  # a new pass opens the file as it is now
    # row 2 was read with row 1, before the write: as the file was; row 3, read after it, is not
    assert answers == [False, True, True, False, False]
    assert again == [True, True, True]


def test_unchanged_asks_the_file_again_for_each_read_of_it(tmp_path):
    """A file longer than a read: the rows of the reads made before it was written to are as it was,
    the first row of the read after is not (however many rows the pass gave since it last asked)."""
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(f'{{"a": "{n:06d}"}}\n' for n in range(20_000)))  # ~300 KB: many reads
    answers = []
    with RowFile(str(path)) as rows:
        for line, _ in rows:
            answers.append(rows.unchanged())
            if line == 1:  # rewritten in place, the same size (the change time moves on)
                with path.open("r+") as same:
                    same.write('{"a": "999999"}')
    changed = answers.index(False)
    assert 1 < changed < 20_000 and set(answers[:changed]) == {True} and set(answers[changed:]) == {False}


def test_unchanged_holds_for_the_copy_of_stdin_while_it_is_kept():
    with RowFile("-", io.StringIO('{"a": 1}\n{"a": 2}\n')) as rows:
        first = [rows.unchanged() for _ in rows]
        second = [rows.unchanged() for _ in rows]
        kept = rows.unchanged()
    assert (first, second, kept, rows.unchanged()) == ([True, True], [True, True], True, False)
