import xml.etree.ElementTree as StdET

import pytest

from arazzo_runner.errors import ExpressionError
from arazzo_runner.query import (
    DEFAULT_VERSIONS,
    SELECTOR_VERSIONS,
    QueryError,
    compile_selector,
    resolve_version,
)

XML = (
    '<root id="r1"><pets><pet kind="dog">Rex</pet><pet kind="cat">Tom<age>3</age></pet></pets><n>5</n></root>'
)
VERSIONS = ["xpath-10", "xpath-20", "xpath-30", "xpath-31"]


@pytest.mark.parametrize("version", VERSIONS)
def test_elements_give_their_text_content(version):
    query = compile_selector("xpath", version, "/root/pets/pet")
    assert query.select(XML) == ["Rex", "Tom3"]


@pytest.mark.parametrize("version", VERSIONS)
def test_attributes_give_their_value(version):
    assert compile_selector("xpath", version, "/root/pets/pet/@kind").select(XML) == ["dog", "cat"]


@pytest.mark.parametrize("version", VERSIONS)
def test_atomic_results(version):
    assert compile_selector("xpath", version, "count(/root/pets/pet)").select(XML) == [2]
    assert compile_selector("xpath", version, "/root/n + 1").select(XML) == [6.0]
    assert compile_selector("xpath", version, "string(/root/@id)").select(XML) == ["r1"]
    assert compile_selector("xpath", version, "count(/root/pets/*) > 0").select(XML) == [True]


def test_default_version_is_31():
    query = compile_selector("xpath", None, "/root/n")
    assert query.version == "xpath-31"
    assert query.select(XML.encode()) == ["5"]


def test_xpath_2_plus_features():
    assert compile_selector("xpath", "xpath-20", "(1, 2, 3)").select(XML) == [1, 2, 3]
    assert compile_selector("xpath", "xpath-20", 'xs:decimal("1.5")').select(XML) == [1.5]
    assert compile_selector("xpath", "xpath-31", "/root/pets/pet/text()").select(XML) == ["Rex", "Tom"]
    assert compile_selector("xpath", None, "()").select(XML) == []


def test_xpath_1_rejects_sequences():
    with pytest.raises(ExpressionError):
        compile_selector("xpath", "xpath-10", "(1, 2)")


def test_already_parsed_elements_are_accepted():
    element = StdET.fromstring(XML)
    assert compile_selector("xpath", None, "/root/n").select(element) == ["5"]
    assert compile_selector("xpath", None, "/root/n").select(StdET.ElementTree(element)) == ["5"]


def test_selected_values_and_effective_boolean_value():
    nodes = compile_selector("xpath", None, "/root/pets")
    assert len(nodes.select(XML)) == 1
    assert nodes.boolean(XML) is True
    assert compile_selector("xpath", None, "/root/nothing").boolean(XML) is False
    assert compile_selector("xpath", None, "count(/root/pets/*) > 5").boolean(XML) is False
    assert compile_selector("xpath", None, "0").boolean(XML) is False
    assert compile_selector("xpath", None, "''").boolean(XML) is False
    assert compile_selector("xpath", None, "'x'").boolean(XML) is True
    assert compile_selector("xpath", "xpath-10", "number('x')").boolean(XML) is False  # NaN


def test_ebv_of_several_atomics_is_an_error_in_xpath_2():
    with pytest.raises(QueryError, match="effective boolean value"):
        compile_selector("xpath", "xpath-31", "(1, 2)").boolean(XML)


def test_empty_attribute_node_is_true():
    # a node-set with one node is true even when the node's value is empty
    assert compile_selector("xpath", None, "/root/@empty").boolean('<root empty=""/>') is True


def test_entity_expansion_is_refused():
    bomb = '<!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><x>&b;</x>'
    with pytest.raises(QueryError, match="unsafe XML"):
        compile_selector("xpath", None, "/x").select(bomb)


def test_external_entities_are_refused():
    xxe = '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'
    with pytest.raises(QueryError, match="unsafe XML"):
        compile_selector("xpath", None, "/x").select(xxe)


@pytest.mark.parametrize("data", ["not xml", "<a>", b"\x00", {"a": 1}, None, 42])
def test_non_xml_input_is_a_query_error(data):
    with pytest.raises(QueryError):
        compile_selector("xpath", None, "/a").select(data)


def test_dynamic_errors_are_query_errors():
    with pytest.raises(QueryError, match="Division by zero"):
        compile_selector("xpath", None, "1 idiv count(/root/none)").select(XML)


@pytest.mark.parametrize(("expression", "position"), [("/root/[", 6), ("", 0), ("count(", 0), ("1 +\n (", 5)])
def test_xpath_syntax_errors(expression, position):
    with pytest.raises(ExpressionError) as info:
        compile_selector("xpath", None, expression)
    assert info.value.position == position
    assert info.value.message.startswith("invalid XPath")


def test_json_pointer():
    query = compile_selector("jsonpointer", None, "/a/1/b~1c")
    assert query.version == "rfc6901"
    assert query.select({"a": [0, {"b/c": None}]}) == [None]
    assert query.select({"a": []}) == []
    assert compile_selector("jsonpointer", "rfc6901", "").select([1]) == [[1]]
    assert compile_selector("jsonpointer", None, "#/x").select({"x": 0}) == [0]


def test_json_pointer_syntax_error():
    with pytest.raises(ExpressionError) as info:
        compile_selector("jsonpointer", None, "/a~2")
    assert info.value.text == "/a~2"


@pytest.mark.parametrize(
    ("type_", "version"),
    [
        ("jsonpath", "rfc-9535"),
        ("xpath", "xpath-40"),
        ("jsonpointer", "rfc6902"),
        ("css", None),
        ("JSONPATH", None),
    ],
)
def test_unknown_types_and_versions(type_, version):
    with pytest.raises(ExpressionError, match="unknown"):
        compile_selector(type_, version, "$")


def test_version_tables():
    assert DEFAULT_VERSIONS == {"jsonpath": "rfc9535", "xpath": "xpath-31", "jsonpointer": "rfc6901"}
    assert set(SELECTOR_VERSIONS["xpath"]) == set(VERSIONS)
    assert resolve_version("xpath", None) == "xpath-31"
    assert resolve_version("jsonpath", "draft-goessner-dispatch-jsonpath-00").startswith("draft")


def test_libraries_are_imported_lazily():
    import subprocess
    import sys

    code = (
        "import sys, arazzo_runner.query\n"
        "loaded = [m for m in ('elementpath', 'jsonpath_ng', 'jsonpath_rfc9535', 'defusedxml')"
        " if m in sys.modules]\n"
        "print(','.join(loaded))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
