"""Hypothesis strategies shared by the fuzz tests: JSON values, expression-like text, random contexts."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from arazzo_runner.expressions import Context, SimpleMessage

ROOTS = [
    "$url", "$method", "$statusCode", "$self", "$inputs", "$outputs", "$steps", "$workflows",
    "$sourceDescriptions", "$components", "$request", "$response", "$message", "$", "",
]  # fmt: skip
PIECES = [
    ".", ".header.", ".query.", ".path.", ".body", ".payload", ".outputs.", ".inputs.", ".parameters.",
    ".successActions.", "#", "#/", "/", "~0", "~1", "~", "[", "]", "[0]", "[-1]", "['k']", '["k"]', "'",
    '"', "\\", "{", "}", "{$", "$", " ", "\t", "\n", "a", "b.c", "x-y", "s1", "0", "01", "-", "_", "%20",
    "é", "\x00", "==", "&&", "||", "!", "(", ")", "<=", "null", "true", "1.5e3",
]  # fmt: skip
NAMES = ["a", "b", "b.c", "x-y", "k", "0", "items", "s1", "A", "content-type", ""]

piece = st.sampled_from(PIECES) | st.text(max_size=3)
ident = st.sampled_from(["a", "b", "b.c", "x-y", "s1", "k", "items"])
pointer = st.lists(st.sampled_from(["a", "0", "1", "items", "~0", "~1", "", "b.c"]), min_size=1, max_size=3)
pointer = pointer.map(lambda tokens: "#" + "".join("/" + t for t in tokens))
accessors = st.lists(st.sampled_from([".a", ".items", "[0]", "[1]", "[-1]", "['k']", '["x-y"]']), max_size=3)
accessors = accessors.map("".join)
# heads that may take a JSON pointer (which runs to the next space: no accessors after it) ...
with_pointer = (
    ident.map("$inputs.".__add__)
    | ident.map("$outputs.".__add__)
    | ident.map("$steps.s1.outputs.".__add__)
    | ident.map("$workflows.w.inputs.".__add__)
    | st.sampled_from(["$request.body", "$response.body", "$message.payload", "$inputs", "$steps.s1.outputs"])
)
# ... heads that may not, and heads ending in free text (which runs to the next space or `]`)
without_pointer = (
    st.sampled_from(["$url", "$method", "$statusCode", "$self"])
    | ident.map("$components.parameters.".__add__)
    | st.sampled_from(["$request", "$response", "$message"]).flatmap(
        lambda root: ident.map((root + ".header.").__add__)
    )
)
free_text = st.sampled_from(["$request", "$response", "$message"]).flatmap(
    lambda root: st.sampled_from([".query.", ".path."]).flatmap(lambda part: ident.map((root + part).__add__))
) | ident.map("$sourceDescriptions.src.".__add__)
valid_expression = st.one_of(
    st.builds(str.__add__, with_pointer, pointer | accessors),
    st.builds(str.__add__, without_pointer, accessors),
    free_text,
)
expression_text = valid_expression | st.builds(
    lambda root, parts: root + "".join(parts), st.sampled_from(ROOTS), st.lists(piece, max_size=8)
)
any_text = expression_text | st.text(max_size=30)
template_text = st.lists(
    expression_text | st.sampled_from(["{", "}", "{$", " ", "Bearer ", "{$inputs.a}", "$inputs.a "]),
    max_size=6,
).map("".join)

names = st.sampled_from(NAMES) | st.text(max_size=4)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(["$inputs.a", "{$steps.s1.outputs.b}", "$5.00", "", "0", "true"])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(names, inner, max_size=4),
    max_leaves=20,
)
# values as a document holds them: strings are often expressions or templates
document_values = st.recursive(
    scalars | expression_text | template_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(names, inner, max_size=4),
    max_leaves=16,
)
bodies = json_values | st.binary(max_size=16) | st.sampled_from(["<a><b>1</b><b>x</b></a>", "<a/>", "<"])


def _context(data: Any, body: Any, text: str, status: int | None, present: int) -> Context:
    """A context built from a few draws (cheap to generate): `present` says which parts exist."""

    def has(bit: int) -> bool:
        return bool(present >> bit & 1)

    message = SimpleMessage(
        headers={"content-type": text, "A": data, "x-y": text},
        query={"k": text, "a": [text, text]},
        path={"a": text, "s1": data},
        body=body,
    )
    return Context(
        inputs={"a": data, "b.c": text, "b": {"c": data}, "x-y": 1, "items": [data, body]} if has(0) else {},
        steps={"s1": {"a": data, "b": [data], "b.c": text}} if has(1) else {},
        outputs={"a": data} if has(2) else {},
        workflows={"w": {"inputs": {"a": data}, "outputs": {}}} if has(3) else {},
        components={"parameters": {"a": {"name": "a", "value": data}}} if has(4) else {},
        self_uri=text if has(5) else None,
        url=text if has(5) else None,
        method="GET" if has(5) else None,
        status_code=status,
        request=message if has(6) else None,
        response=message if has(7) else None,
    )


small_json = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=6,
)
contexts = st.builds(
    _context,
    small_json,
    small_json | st.binary(max_size=8) | st.sampled_from(["<a><b>1</b><b>x</b></a>", "<a/>", "<"]),
    st.text(max_size=8),
    st.none() | st.integers(100, 599),
    st.integers(0, 255),
)
