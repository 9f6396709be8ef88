"""Hostile and broken input: every failure is a located DocumentError, and fails fast."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from arazzo_runner.errors import DocumentError
from arazzo_runner.loader import Limits, load_path, load_text, yaml_build
from tests.cputime import cpu_bound

TOO_DEEP = "nesting is deeper than the limit of 500 levels"
PARSERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if yaml.__with_libyaml__ else [])


@pytest.fixture(params=PARSERS, ids=lambda loader: loader.__name__)
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(yaml_build, "LOADER", request.param)
    yield


def error_of(text: str | bytes, file: str = "doc.yaml", **options: object) -> DocumentError:
    with pytest.raises(DocumentError) as info:
        load_text(text, file, **options)  # type: ignore[arg-type]
    return info.value


def timed_error(text: str, file: str) -> DocumentError:
    with cpu_bound(0.5, f"loading {file}"):
        return error_of(text, file)


def billion_laughs(levels: int = 9) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels + 1):
        refs = ", ".join([f"*l{level - 1}"] * 9)
        lines.append(f"l{level}: &l{level} [{refs}]")
    return "\n".join(lines) + "\n"


@pytest.mark.usefixtures("parser")
def test_alias_bomb_fails_fast() -> None:
    err = timed_error(billion_laughs(), "bomb.yaml")
    assert err.message == "document expands to more than 5000000 nodes through aliases"
    assert (err.file, err.line) == ("bomb.yaml", 7)  # l6 alone would stand for 9**7 nodes


@pytest.mark.usefixtures("parser")
def test_small_alias_fanout_within_limits_loads() -> None:
    data = load_text(billion_laughs(3)).data
    assert len(data["l3"]) == 9
    assert data["l3"][0] is data["l2"]  # shared, not copied


@pytest.mark.usefixtures("parser")
def test_alias_count_limit() -> None:
    err = error_of("a: &a 1\nb: [*a, *a, *a]\n", limits=Limits(max_aliases=2))
    assert (err.message, err.line, err.column) == ("more than 2 aliases", 2, 13)


@pytest.mark.usefixtures("parser")
def test_aliases_count_towards_depth() -> None:
    text = "a: &a [[[1]]]\nb: [[*a]]\n"
    err = error_of(text, limits=Limits(max_depth=5))
    assert (err.message, err.line, err.column) == ("nesting is deeper than the limit of 5 levels", 2, 6)
    assert load_text(text, limits=Limits(max_depth=6)).data["b"] == [[[[[1]]]]]


@pytest.mark.usefixtures("parser")
@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("[" * 100_000 + "]" * 100_000, 501),
        ("- " * 100_000 + "x\n", 1001),
        ("{a: " * 100_000, 2001),
    ],
    ids=["flow-sequences", "block-sequences", "flow-mappings"],
)
def test_deep_yaml_fails_fast(text: str, column: int) -> None:
    err = timed_error(text, "deep.yaml")
    assert (err.message, err.line, err.column) == (TOO_DEEP, 1, column)


@pytest.mark.usefixtures("parser")
def test_deep_block_mappings() -> None:
    text = "".join(" " * depth + "a:\n" for depth in range(600))
    err = timed_error(text, "deep.yaml")
    assert (err.line, err.column) == (501, 501)


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("[" * 100_000 + "]" * 100_000, 501),  # past the interpreter's recursion limit
        ("[" * 700 + "]" * 700, 501),  # parsed by json, caught by the depth check
        ('{"a":' * 100_000 + "1" + "}" * 100_000, 2501),
    ],
    ids=["recursion-error", "above-limit", "objects"],
)
def test_deep_json_fails_fast(text: str, column: int) -> None:
    err = timed_error(text, "deep.json")
    assert (err.message, err.line, err.column) == (TOO_DEEP, 1, column)


def test_depth_at_the_limit_loads() -> None:
    assert load_text("[" * 500 + "]" * 500, "ok.json").data is not None
    assert load_text("[" * 500 + "]" * 500, "ok.yaml").data is not None


def test_node_limit() -> None:
    assert error_of("[1, 2, 3, 4, 5]", "n.json", limits=Limits(max_nodes=4)).message == (
        "document has more than 4 nodes"
    )
    assert error_of("- 1\n- 2\n- 3\n- 4\n", limits=Limits(max_nodes=4)).message == (
        "document expands to more than 4 nodes"
    )


def test_a_document_of_exactly_the_node_limit_loads() -> None:
    assert load_text("[1, 2, 3]", "n.json", limits=Limits(max_nodes=4)).data == [1, 2, 3]
    assert load_text("- 1\n- 2\n- 3\n", limits=Limits(max_nodes=4)).data == [1, 2, 3]


@pytest.mark.parametrize("text", ["a: 1234\n", b"a: 1234\n"])
def test_size_limit_is_checked_before_parsing(text: str | bytes) -> None:
    err = error_of(text, "big.yaml", limits=Limits(max_bytes=4))
    assert str(err) == "big.yaml:1:1: document is 8 bytes, above the limit of 4 bytes"


@pytest.mark.parametrize("text", ["a: 1234\n", b"a: 1234\n"])
def test_a_document_of_exactly_the_size_limit_loads_and_one_byte_more_does_not(text: str | bytes) -> None:
    assert load_text(text, "big.yaml", limits=Limits(max_bytes=8)).data == {"a": 1234}
    err = error_of(text, "big.yaml", limits=Limits(max_bytes=7))
    assert str(err) == "big.yaml:1:1: document is 8 bytes, above the limit of 7 bytes"


def test_a_file_of_exactly_the_size_limit_loads_and_one_byte_more_does_not(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"a: 1234\n")
    assert load_path(path, limits=Limits(max_bytes=8)).data == {"a": 1234}
    with pytest.raises(DocumentError, match="document is 8 bytes, above the limit of 7 bytes"):
        load_path(path, limits=Limits(max_bytes=7))


def test_invalid_utf8_names_the_byte() -> None:
    err = error_of(b'a: 1\nb: "caf\xe9"\n', "latin1.yaml")
    assert str(err) == "latin1.yaml:2:8: the document is not valid UTF-8: byte 0xe9 at offset 12"


def test_utf16_with_byte_order_mark() -> None:
    assert load_text("a: é\n".encode("utf-16")).data == {"a": "é"}


@pytest.mark.parametrize("text", ["", "   \n\n", "# only a comment\n", "---\n", "--- # c\n...\n", b""])
def test_empty_document(text: str | bytes) -> None:
    assert str(error_of(text, "empty.yaml")) == "empty.yaml:1:1: document is empty"


@pytest.mark.usefixtures("parser")
@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("a: [1, 2\nb: 3\n", 2, 2, "expected ',' or ']'"),
        ("a: b: c\n", 1, 5, "mapping values are not allowed"),
        ("a:\n\tb: 1\n", 2, 1, "found character"),
        ("a: 'open\n", 2, 1, "found unexpected end of stream"),
        ('a: "x\x07"\n', 1, 6, "unacceptable character U+0007"),
        ('é: "x\x07"\n', 1, 6, "unacceptable character U+0007"),
    ],
)
def test_yaml_syntax_errors_are_located(text: str, line: int, column: int, message: str) -> None:
    err = error_of(text, "bad.yaml")
    assert (err.file, err.line, err.column) == ("bad.yaml", line, column)
    assert message in err.message
    assert "\n" not in str(err)
    assert "Mark" not in str(err)


def test_json_syntax_error_is_located() -> None:
    err = error_of('{\n  "a": 1,\n  "b": 2,\n}\n', "bad.json")
    assert str(err) == "bad.json:4:1: Expecting property name enclosed in double quotes"


@pytest.mark.usefixtures("parser")
def test_syntax_error_message_is_readable() -> None:
    err = error_of("a: [1, 2\nb: 3\n", "bad.yaml")
    # libyaml and the pure-Python parser word the problem differently.
    problem = "did not find expected ',' or ']'"
    if yaml_build.LOADER is yaml.SafeLoader:
        problem = "expected ',' or ']', but got ':'"
    assert str(err) == f"bad.yaml:2:2: {problem} (while parsing a flow sequence at line 1, column 4)"
