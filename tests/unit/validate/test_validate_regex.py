"""Regex criteria that cannot mean what they say (issue 37, items 6 and 12): a JavaScript regex literal
(`regex-literal`) and a context the schemas make an object or an array (`regex-context`)."""

from __future__ import annotations

from .conftest import Check, summary

HEAD = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions:
  - {name: api, url: ./api.yaml, type: openapi}
workflows:
  - workflowId: w
    inputs:
      type: object
      properties:
        prefs: {type: object, properties: {tags: {type: array, items: {type: string}}}}
        code: {type: string}
    steps:
      - stepId: s
        operationId: getPet
        parameters: [{name: petId, in: path, value: 1}]
        successCriteria:
"""


def _criteria(*pairs: tuple[str, str]) -> str:
    return HEAD + "".join(
        f"          - {{context: '{context}', condition: '{condition}', type: regex}}\n"
        for context, condition in pairs
    )


def test_a_javascript_literal_is_told_with_the_pattern_to_write(check: Check) -> None:
    report = check(_criteria(("$inputs.code", "/^[0-9A-F]{8}$/i"), ("$inputs.code", "/^v[0-9]+/gm")))
    assert [(f.rule, f.severity, f.message) for f in report.findings] == [
        (
            "regex-literal",
            "warning",
            "regex /^[0-9A-F]{8}$/i is written as a JavaScript regex literal: the slashes and the flag i "
            "are matched literally, as characters of the text (a regex condition is the pattern alone, "
            "in Python re syntax, flags inline): write (?i)^[0-9A-F]{8}$",
        ),
        (
            "regex-literal",
            "warning",
            "regex /^v[0-9]+/gm is written as a JavaScript regex literal: the slashes and the flags gm "
            "are matched literally, as characters of the text (a regex condition is the pattern alone, "
            "in Python re syntax, flags inline): write (?m)^v[0-9]+ (g: a condition passes on its "
            "first match)",
        ),
    ]


def test_what_can_be_a_literal_text_is_left_alone(check: Check) -> None:
    """A path (`/pets/`), slashes inside, unknown letters after the slash, an escaped `$` before it."""
    report = check(_criteria(("$url", "/pets/"), ("$url", "a/b/c"), ("$url", "/a/xyz"), ("$url", "/x\\$/")))
    assert report.findings == [], summary(report)


def test_a_path_whose_last_segment_spells_flags_is_never_rewritten(check: Check, write) -> None:
    """`/followers/ids` (Twitter's API) may be a path to find in a URL as much as `followers` with the
    flags `ids`: told, but `--fix` must not rewrite it to `(?is)followers`, which matches something
    else. `/1.1/users/ids`, with a slash inside (which would end a JavaScript literal) and no regex
    syntax, is a path: nothing to tell."""
    from arazzo_runner.validate.fix import fix_path

    from .conftest import OPENAPI

    doc = _criteria(("$url", "/followers/ids"), ("$url", "/1.1/users/ids"), ("$url", "/^Rex$/i"))
    report = check(doc)
    assert [(f.line, f.rule, bool(f.fix)) for f in report.findings] == [
        (HEAD.count("\n") + 1, "regex-literal", False),
        (HEAD.count("\n") + 3, "regex-literal", True),
    ], summary(report)
    write("api.yaml", OPENAPI)
    result = fix_path(write("flow.arazzo.yaml", doc), remote=False)
    assert result.after == doc.replace("'/^Rex$/i'", "'(?i)^Rex$'")


def test_a_templated_literal_is_told_and_unwrapped_too(check: Check, write) -> None:
    """`/^{$inputs.code}$/i`: the slashes and the flag are the document's text whatever the input
    renders, so validate warns as the run tells, and `--fix` writes `(?i)^{$inputs.code}$`; an embedded
    expression is no regex syntax (`/api/{$inputs.v}/ids` is a path with a slash inside)."""
    from arazzo_runner.validate.fix import fix_path

    from .conftest import OPENAPI

    doc = _criteria(("$url", "/^{$inputs.code}$/i"), ("$url", "/api/{$inputs.code}/ids"))
    report = check(doc)
    assert [(f.line, f.rule, bool(f.fix)) for f in report.findings] == [
        (HEAD.count("\n") + 1, "regex-literal", True)
    ], summary(report)
    assert report.findings[0].message.endswith("flags inline): write (?i)^{$inputs.code}$")
    write("api.yaml", OPENAPI)
    result = fix_path(write("flow.arazzo.yaml", doc), remote=False)
    assert result.after == doc.replace("'/^{$inputs.code}$/i'", "'(?i)^{$inputs.code}$'")


def test_a_context_the_schemas_make_an_object_or_an_array_is_told(check: Check) -> None:
    report = check(
        _criteria(
            ("$response.body", "^Rex$"),  # the Pet schema: an object
            ("$response.body#/tags", "^a$"),  # its tags: an array
            ("$inputs.prefs", "^x$"),  # the inputs schema: an object
            ("$inputs.prefs#/tags", "^x$"),  # and its member: an array
        ),
        sources=True,
    )
    found = [(f.line, f.rule, f.message) for f in report.findings]
    why = "every JSON response schema of operation 'getPet' says so"
    first = HEAD.count("\n") + 1
    assert [(line, rule) for line, rule, _ in found] == [(first + n, "regex-context") for n in range(4)], (
        summary(report)
    )
    assert found[0][2] == (
        f"regex ^Rex$ is searched in $response.body, which is an object ({why}): it is matched as its "
        "compact JSON text, where anchors and the pattern rarely mean what they say; to match a member, "
        "make the context that member ($response.body#/name or deeper)"
    )
    assert f"$response.body#/tags, which is an array ({why})" in found[1][2]
    assert "$inputs.prefs, which is an object (the workflow's inputs schema says so)" in found[2][2]
    assert "$inputs.prefs#/tags, which is an array" in found[3][2]
    assert found[3][2].endswith("make the context that member ($inputs.prefs#/tags/0 or deeper)")


def test_a_braced_context_is_told_the_member_as_an_expression(check: Check) -> None:
    """`{$inputs.prefs}` (a context written as a template): the member to make the context is
    `$inputs.prefs#/name`, not `{$inputs.prefs}#/name` (a template with text after it, a string)."""
    report = check(_criteria(("{$inputs.prefs}", "^x$")))
    [finding] = report.findings
    assert finding.rule == "regex-context", summary(report)
    assert finding.message.endswith("make the context that member ($inputs.prefs#/name or deeper)")


def test_a_context_the_schemas_leave_open_or_make_text_is_no_finding(check: Check) -> None:
    report = check(
        _criteria(
            ("$response.body#/name", "^Rex$"),  # a string
            ("$response.body#/id", "^1$"),  # an integer
            ("$response.body#/tags/0", "^a$"),  # an item of the array: a string
            ("$response.body#/unknown", "x"),  # not declared: the schema does not say
            ("$inputs.code", "^x$"),
            ("$statusCode", "^2"),
        ),
        sources=True,
    )
    assert report.findings == [], summary(report)


def test_a_response_that_is_not_json_leaves_the_body_open(check: Check, write) -> None:
    """An XML or text response stays text at run time, whatever its schema says."""
    api = (
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /pets/{petId}:\n    get:\n"
        "      operationId: getPet\n      parameters: [{name: petId, in: path, required: true, schema: {}}]\n"
        "      responses:\n        '200':\n          description: ok\n          content:\n"
        "            application/json: {schema: {type: object}}\n"
        "            application/xml: {schema: {type: object}}\n"
    )
    write("other.yaml", api)
    doc = _criteria(("$response.body", "<pet>")).replace("./api.yaml", "./other.yaml")
    report = check(doc, sources=True)
    assert report.findings == [], summary(report)


def test_fix_writes_the_pattern_where_python_reads_it_the_same(tmp_path, write) -> None:
    """`--fix` unwraps a literal whose flags Python writes inline or does not need (`i`, `m`, `s`; `g`,
    `u`, `d`), keeping the scalar's quoting; `y` (anchored at a position) has no such rewrite: the
    warning stays, with no fix."""
    from arazzo_runner.validate.fix import fix_path

    from .conftest import OPENAPI

    write("api.yaml", OPENAPI)
    path = write(
        "flow.arazzo.yaml",
        _criteria(
            ("$inputs.code", "/^[0-9A-F]{8}$/i"), ("$inputs.code", "/^v[0-9]+/gm"), ("$inputs.code", "/a/y")
        ),
    )
    result = fix_path(path, remote=False)
    assert not result.problems, result.problems
    assert result.after.endswith(
        "          - {context: '$inputs.code', condition: '(?i)^[0-9A-F]{8}$', type: regex}\n"
        "          - {context: '$inputs.code', condition: '(?m)^v[0-9]+', type: regex}\n"
        "          - {context: '$inputs.code', condition: '/a/y', type: regex}\n"
    )
    left = [(f.rule, bool(f.fix)) for f in result.report.findings]
    assert left == [("regex-literal", False)]


def test_a_repeated_flag_is_no_javascript_literal() -> None:
    """`/^abc$/ii` is no regex literal JavaScript accepts (a flag given twice): matched as written, with
    no hint and nothing for --fix to unwrap."""
    from arazzo_runner.criteria.regex import delimited, unwrapped

    assert delimited("/^abc$/ii") is None and unwrapped("/^abc$/ii") is None
    assert delimited("/^abc$/i") is not None
