"""Failure messages never print a value derived from a secret (`arazzo_runner.masking.taint`), and still print
the values of everything else: the rule is precise, not a blanket."""

from __future__ import annotations

from arazzo_runner.criteria import compile_criterion
from arazzo_runner.expressions import Context, SimpleMessage
from arazzo_runner.masking.taint import Taint

TOKEN = "tok-9f3c2a7e51d04b8c"
XML = "<r><a>x</a></r>"
XPATH = {"type": "xpath", "version": "xpath-31"}
HIDDEN = "derived from a secret: values not shown"


def _ctx(*, authorization: str = f"Bearer {TOKEN}", body=XML, status: int = 503, secrets=(TOKEN,)) -> Context:
    request = SimpleMessage(headers={"Authorization": authorization})
    response = SimpleMessage(headers={"Content-Type": "application/xml"}, body=body)
    taint = Taint(set(secrets))
    return Context(
        inputs={"token": TOKEN, "plain": "visible"}, status_code=status, request=request, response=response,
        taint=taint,
    )  # fmt: skip


def _message(condition: str, type_=None, context=None, ctx=None) -> str:
    outcome = compile_criterion(condition, type_, context).evaluate(ctx or _ctx())
    assert not outcome.passed
    return outcome.message or ""


def test_xpath_over_a_secret_prints_nothing_it_computed():
    for condition in (
        "error(QName('', 'e'), upper-case('{$inputs.token}'))",  # raised while compiling
        "error(QName('', 'e'), string-join(for $c in string-to-codepoints('{$inputs.token}') return $c))",
        "substring('{$inputs.token}', 2) = ''",
        "error(QName('', 'e'), substring('{$request.header.Authorization}', 9))",  # by name
    ):
        message = _message(condition, XPATH, "$response.body")
        assert message == f"{condition}: false ({HIDDEN})"
        assert TOKEN[1:].upper() not in message.upper()


def test_xpath_over_a_context_holding_a_secret_prints_nothing():
    ctx = _ctx(body=f"<r><t>{TOKEN}</t></r>")
    message = _message("error(QName('', 'e'), upper-case(string(/r/t)))", XPATH, "$response.body", ctx)
    assert message.endswith(f"({HIDDEN})")


def test_xpath_without_a_secret_still_prints_what_it_got():
    message = _message("error(QName('', 'e'), upper-case('{$inputs.plain}'))", XPATH, "$response.body")
    assert "VISIBLE" in message
    assert _message("count(//a) = 2", XPATH, "$response.body") == "count(//a) = 2: got false"


def test_goessner_jsonpath_computes_and_rfc9535_selects():
    ctx = _ctx(body={"t": TOKEN})
    goessner = {"type": "jsonpath", "version": "draft-goessner-dispatch-jsonpath-00"}
    assert _message("$.nothing", goessner, "$response.body", ctx).endswith(f"({HIDDEN})")
    rfc = _message("$.nothing", "jsonpath", "$response.body", ctx)
    assert TOKEN in rfc  # shown as read: the writers mask it by value


def test_a_simple_condition_hides_only_the_parts_that_read_a_secret():
    message = _message("$statusCode == 200 || $request.header.Authorization == 'x'")
    assert message == f"$statusCode == 200: got 503; $request.header.Authorization == 'x': false ({HIDDEN})"


def test_a_simple_condition_shows_a_value_read_as_it_is():
    # a plain selection holds the secret in a form masking knows: masked by value where it is shown
    message = _message("$inputs.token == 'x'")
    assert message == f"$inputs.token == 'x': got '{TOKEN}'"


def test_without_a_taint_rule_nothing_is_hidden():
    ctx = _ctx()
    ctx.taint = None
    message = _message("substring('{$inputs.token}', 2) = ''", XPATH, "$response.body", ctx)
    assert TOKEN[1:] in message


def test_a_missing_credential_header_is_explained_as_missing():
    ctx = _ctx()
    ctx.request = SimpleMessage(headers={})
    message = _message("$request.header.Authorization == 'Bearer x'", ctx=ctx)
    assert "derived from a secret" not in message
    assert "Authorization" in message


# -- the rule itself (`Taint`): which outputs are derived from a secret, and what joins the secrets


def _outputs(secret_names=(), **values):
    from arazzo_runner.executor.values import Outputs

    outputs = Outputs(values)
    outputs.secret.update(secret_names)
    return outputs


def _selector(selector: str, type_) -> object:
    from arazzo_runner.expressions.values import compile_value

    return compile_value({"context": "$response.body", "selector": selector, "type": type_}, selectors=True)


def test_a_member_of_an_output_derived_from_a_secret_is_derived_too():
    from arazzo_runner.expressions import parse_expression

    ctx = _ctx()
    ctx = Context(steps={"s": _outputs({"tok"}, tok={"value": "v-1234"}, tokenish="t")}, taint=ctx.taint)
    taint = ctx.taint
    assert taint.by_name(parse_expression("$steps.s.outputs.tok"), ctx)
    assert taint.by_name(parse_expression("$steps.s.outputs.tok.value"), ctx)  # a member of it
    assert not taint.by_name(parse_expression("$steps.s.outputs.tokenish"), ctx)  # a name it begins


def test_selector_objects_that_compute_over_a_secret_make_derived_outputs():
    """XPath and goessner JSONPath compute (a `sub()` could rebuild the secret in another form); RFC 9535
    JSONPath and JSON pointers select values as they are, which masking by value covers."""
    ctx = _ctx(body={"t": TOKEN, "n": 1})
    goessner = {"type": "jsonpath", "version": "draft-goessner-dispatch-jsonpath-00"}
    assert ctx.taint.output(_selector("$.t", goessner), ctx)
    assert not ctx.taint.output(_selector("$.t", "jsonpath"), ctx)
    assert not ctx.taint.output(_selector("/t", "jsonpointer"), ctx)
    plain = _ctx(body={"t": "nothing secret", "n": 1})
    assert not plain.taint.output(_selector("$.t", goessner), plain)


def test_the_strings_of_a_derived_value_join_the_secrets_not_its_keys():
    taint = Taint(set())
    taint.adopt({"header": "Bearer abcd-1234", "parts": ["efgh-5678", "ab"], "n": 12345})
    assert taint.secrets == {"Bearer abcd-1234", "efgh-5678"}  # "ab" is too short to mask by value


def test_url_reads_a_secret_when_a_derived_value_went_into_its_path_or_query():
    from arazzo_runner.expressions import parse_expression
    from arazzo_runner.http.request import RequestView

    url = parse_expression("$url")
    for part in ("path", "query"):
        request = RequestView(derived=frozenset({(part, "id")}))
        ctx = Context(url="https://api.example/pets/x?y=1", request=request, taint=Taint({TOKEN}))
        assert ctx.taint.by_name(url, ctx), part
    clean = Context(url="https://api.example/pets/x?y=1", request=RequestView(), taint=Taint({TOKEN}))
    assert not clean.taint.by_name(url, clean)
