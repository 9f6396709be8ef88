import pytest

from arazzo_runner.errors import ExpressionError
from arazzo_runner.query import CompiledQuery, compile_selector

GOESSNER = "draft-goessner-dispatch-jsonpath-00"
STORE = {
    "store": {
        "book": [
            {"title": "Sayings", "price": 8.95, "tags": ["a"]},
            {"title": "Sword", "price": 12.99},
        ],
        "bicycle": {"color": "red", "price": 19.95},
    }
}


def test_default_version_is_rfc9535():
    query = compile_selector("jsonpath", None, "$.store.book[*].title")
    assert query.version == "rfc9535"
    assert query.type == "jsonpath"
    assert query.select(STORE) == ["Sayings", "Sword"]


def test_explicit_rfc9535_version():
    assert compile_selector("jsonpath", "rfc9535", "$.store.bicycle.color").select(STORE) == ["red"]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("$", [STORE]),
        ("$.store.book[0].price", [8.95]),
        ("$.store.book[-1].title", ["Sword"]),
        ("$.store.book[?@.price < 10].title", ["Sayings"]),
        ("$..color", ["red"]),
        ("$.store.book[?length(@.tags) == 1].title", ["Sayings"]),
        ("$['store']['bicycle']['price']", [19.95]),
        ("$.nothing", []),
        ("$.store.book[5]", []),
    ],
)
def test_rfc9535_queries(expression, expected):
    assert compile_selector("jsonpath", None, expression).select(STORE) == expected


def test_rfc9535_on_scalars_and_null():
    query = compile_selector("jsonpath", None, "$.a")
    assert query.select("text") == []
    assert query.select(None) == []
    assert compile_selector("jsonpath", None, "$").select(None) == [None]


def test_selected_values_keep_their_types():
    data = {"a": [1, True, None, "x", {"k": []}]}
    assert compile_selector("jsonpath", None, "$.a[*]").select(data) == [1, True, None, "x", {"k": []}]


@pytest.mark.parametrize(
    ("expression", "position"),
    [("$.a ==", 4), ("$['a", 3), ("a", 0), ("", 0), ("$[?@.a == 1", 11), ("$.a#", 3)],
)
def test_rfc9535_syntax_errors_carry_positions(expression, position):
    with pytest.raises(ExpressionError) as info:
        compile_selector("jsonpath", None, expression)
    assert info.value.text == expression
    assert info.value.position == position
    assert info.value.message.startswith("invalid JSONPath")
    assert "line 1" not in info.value.message


def test_rfc9535_rejects_goessner_only_syntax():
    with pytest.raises(ExpressionError):
        compile_selector("jsonpath", None, "$.store.book[?(@.price < 10)]..[")


def test_root_filter_detection():
    assert compile_selector("jsonpath", None, "$[?count(@.pets) > 0]").root_filter
    assert compile_selector("jsonpath", None, "$ [?@.a]").root_filter
    assert not compile_selector("jsonpath", None, "$.pets[?@.a]").root_filter
    assert not compile_selector("jsonpath", None, "$..[?@.a]").root_filter
    assert not compile_selector("jsonpath", None, "$[0, ?@.a]").root_filter
    assert not compile_selector("jsonpath", None, "$").root_filter


def test_goessner_dialect():
    query = compile_selector("jsonpath", GOESSNER, "$.store.book[?(@.price < 10)].title")
    assert query.version == GOESSNER
    assert query.select(STORE) == ["Sayings"]
    assert compile_selector("jsonpath", GOESSNER, "$..price").select(STORE) == [8.95, 12.99, 19.95]


def test_goessner_root_filter_detection():
    assert compile_selector("jsonpath", GOESSNER, "$[?(@.a)]").root_filter
    assert not compile_selector("jsonpath", GOESSNER, "$.b[?(@.a)]").root_filter


@pytest.mark.parametrize(
    ("expression", "position"),
    [("$.a#", 3), ("$[?(@.a ~ 1)]", 8), ("$.a[", 4), ("foo bar", 4)],
)
def test_goessner_syntax_errors(expression, position):
    with pytest.raises(ExpressionError) as info:
        compile_selector("jsonpath", GOESSNER, expression)
    assert info.value.position == position


def test_compiled_queries_are_cached():
    first = compile_selector("jsonpath", None, "$.cached")
    assert compile_selector("jsonpath", None, "$.cached") is first
    assert compile_selector("jsonpath", "rfc9535", "$.cached") is not first  # key is the arguments
    assert isinstance(first, CompiledQuery)
    assert "$.cached" in repr(first)


GOESSNER_TEXTS = [
    "$.store.book[*].author",
    "$..price",
    "$.a[?(@.b == 1)]",
    "$.[[[",  # an error: the next parse starts clean
    "$.items[?(@.name =~ 'a.*')].id",
    "$.a.`len`",
    "$.",
    "$.x[0:2]",
    "$.a[?(@.n > 2 & @.m < 3)]",
]


def test_the_shared_goessner_parser_reads_as_a_fresh_one_each_time():
    """One parser per process (its tables built once) parses every expression, errors in between and on
    several threads at once, as `jsonpath_ng.ext.parse` (a new parser per call) does."""
    import threading

    from jsonpath_ng.ext import parse

    from arazzo_runner.query.goessner import compile_goessner

    def read(compile_, text: str) -> str:
        try:
            return repr(compile_(text))
        except ExpressionError as exc:
            return f"error {exc.message}"
        except Exception as exc:  # the library's error, which compile_goessner words as ours
            return f"error invalid JSONPath: {str(exc).rstrip(' !')}"

    fresh = {text: read(parse, text) for text in GOESSNER_TEXTS}
    shared = {text: read(compile_goessner, text) for text in GOESSNER_TEXTS * 2}
    assert [text for text, found in shared.items() if found.startswith("error")] == ["$.[[[", "$."]
    assert shared == fresh
    results: dict[int, list[str]] = {}

    def many(n: int) -> None:
        results[n] = [read(compile_goessner, text) for text in GOESSNER_TEXTS * 5]

    threads = [threading.Thread(target=many, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(found == [shared[text] for text in GOESSNER_TEXTS * 5] for found in results.values())
