"""`indented` writes what `json.dumps(value, indent=2, ensure_ascii=False)` writes (the rows of
`--inputs-file --format json` are written with it), or gives None for what it leaves to json.dumps."""

from __future__ import annotations

import json
from collections import OrderedDict

from hypothesis import given, settings
from hypothesis import strategies as st

from arazzo_runner.cli.indented_json import indented
from arazzo_runner.executor.values import Outputs
from tests.json_values import json_texts

_SCALARS = st.one_of(
    st.just("null"),
    st.just("true"),
    st.just("false"),
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(json.dumps),
    st.text().map(lambda text: json.dumps(text, ensure_ascii=False)),
)


def _dumps(value, base: str = "") -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + base)


@settings(max_examples=400, deadline=None)
@given(
    json_texts(_SCALARS, st.text(max_size=4).map(lambda k: json.dumps(k)[1:-1]), max_items=4, max_leaves=30)
)
def test_it_writes_what_json_dumps_writes(text):
    value = json.loads(text)
    assert indented(value) == _dumps(value)
    assert indented(value, "    ") == _dumps(value, "    ")


def test_the_kinds_json_writes_as_plain_data():
    value = {
        "s": 'ä\x1b"\\\ud800',
        "n": [1, -2.5, 1e300, 0.1, True, False, None, (), [], {}],
        "t": (1, ("a",)),
        "o": Outputs({"x": OrderedDict(b=1)}),
        "big": 10**30,
    }
    assert indented(value, "  ") == _dumps(value, "  ")


def test_what_json_dumps_is_left_to_write():
    for value in ({1: "a"}, [float("nan")], {"x": float("inf")}, [-float("inf")], {"b": b"x"}, object()):
        assert indented(value) is None
    deep: list = []
    for _ in range(200):
        deep = [deep]
    assert indented(deep) is None
    assert indented([[[[1]]]]) == _dumps([[[[1]]]])
