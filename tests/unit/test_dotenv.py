"""The `.env` reader: what it accepts, and that it never expands or executes anything."""

from __future__ import annotations

import pytest

from arazzo_runner.cli.dotenv import parse_dotenv, read_dotenv
from arazzo_runner.errors import UsageError


def test_lines_comments_export_and_quotes():
    text = (
        "# a comment\n"
        "\n"
        "PLAIN=value\n"
        "  SPACED = padded value   \n"
        "export EXPORTED=yes\n"
        "INLINE=kept # dropped\n"
        "HASH=a#b\n"
        "SINGLE='quoted # not a comment' \n"
        "LITERAL='no \\n escape $HOME'\n"
        'DOUBLE="line\\nnext \\"quoted\\" \\\\ tab\\t"\n'
        'COMMENTED="v" # trailing comment\n'
        "EMPTY=\n"
        "dotted.name-x=1\n"
    )
    assert parse_dotenv(text) == {
        "PLAIN": "value",
        "SPACED": "padded value",
        "EXPORTED": "yes",
        "INLINE": "kept",
        "HASH": "a#b",
        "SINGLE": "quoted # not a comment",
        "LITERAL": "no \\n escape $HOME",
        "DOUBLE": 'line\nnext "quoted" \\ tab\t',
        "COMMENTED": "v",
        "EMPTY": "",
        "dotted.name-x": "1",
    }


def test_nothing_is_expanded_or_executed():
    text = 'A=$(touch /tmp/pwned)\nB=`id`\nC=${HOME}\nD="$USER"\n'
    assert parse_dotenv(text) == {"A": "$(touch /tmp/pwned)", "B": "`id`", "C": "${HOME}", "D": "$USER"}


def test_quoted_values_may_span_lines_and_line_ends_are_normalised():
    text = 'KEY="-----BEGIN-----\r\nabc\r\n-----END-----"\r\nNEXT=1\r\n'
    assert parse_dotenv(text) == {"KEY": "-----BEGIN-----\nabc\n-----END-----", "NEXT": "1"}
    assert parse_dotenv("A='x\ny'\nB=2") == {"A": "x\ny", "B": "2"}


def test_the_last_of_repeated_keys_wins():
    assert parse_dotenv("A=1\nA=2\n") == {"A": "2"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("A=1\nnot a pair\n", "x.env:2: expected KEY=VALUE"),
        ("1A=2\n", "x.env:1: expected KEY=VALUE"),
        ('A="open\nB=2\n', "x.env:1: the quoted value is never closed"),
        ("A='v' junk\n", "x.env:1: unexpected text after the closing quote"),
    ],
)
def test_malformed_lines_are_usage_errors_naming_the_line(text, message):
    with pytest.raises(UsageError, match=message):
        parse_dotenv(text, "x.env")


def test_read_dotenv_strips_a_bom_and_reports_unreadable_files(tmp_path):
    path = tmp_path / ".env"
    path.write_bytes(b"\xef\xbb\xbfA=1\n")
    assert read_dotenv(path) == {"A": "1"}
    path.write_bytes(b"A=\xff\n")
    with pytest.raises(UsageError, match="--no-dotenv"):
        read_dotenv(path)
