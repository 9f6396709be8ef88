"""http/headers.Headers: case-insensitive reads, whatever kind of string names the field."""

from __future__ import annotations

import enum

from arazzo_runner.http.headers import Headers


class Field(str, enum.Enum):  # a caller's names: a str subclass, as StrEnum members are
    TYPE = "Content-Type"


def test_get_reads_a_name_of_a_str_subclass_as_indexing_does():
    headers = Headers([("content-type", "application/json"), ("X-A", "1"), ("x-a", "2")])
    assert headers[Field.TYPE] == headers.get(Field.TYPE) == "application/json"
    assert headers.get("X-a") == "1, 2"
    assert headers.get("missing", "none") == "none"
    assert headers.get(3, "none") == "none"  # not a field name: the default, no error
