"""The mutants of session 52's code: the masking of secret members in objects read whole
(masking/members.py's paths and walks, the taint's `members`, `marks`, `output_members`, `shows_secret`
and `_held`, the inputs schema's secret member paths, `Outputs.members` kept by an output, an x-forEach
step's items and arrays, a trace, `Masker.outputs` and `Masker.inputs`, a row header's number-as-text
masking); the rows cuts (bounds/json_text.py's direct scan, a body that arrived whole taken in one
piece: `decoding.arrived`, `PooledBody.arrived`, `LeanResponse.arrived_raw`; a row's console reporter
copied by `ConsoleReporter.like`; a top-level WorkflowFinished not built, `quiet_at_top`); and the
exchange cuts (executor/steps/sending.py, `prepared_now`, one step context made with the exchange,
cookies read only when a Cookie or Set-Cookie field is there, the base URL without its userinfo kept
with the operation's facts, a scalar simple path value encoded directly, the contract's type-first
walk, the run client's inlined exchange).
Found in this round (no bug in the code; each a gap in the tests, now closed): no test held that a lone
surrogate in a UTF-16 or UTF-32 body reads as U+FFFD (one taken for UTF-8 with a NUL in its first two
bytes was refused or kept the surrogate lone), that a body taken whole one byte over the limit is cut,
that a float in a row's header is masked as text, that a template, a selector, a mapping or a list over an
object holding a secret member masks it (the mapping's and list's at its key or index), that a member
declared under `anyOf` or `oneOf` is secret, that an x-forEach child's secret output is `***` in the
arrays its step's criteria trace, that a row of flat values shows a numeric secret input as `***` with no
secret text known and as it is with `--no-mask`, that a row's reporter copied for the same pipe flushes,
that a nested workflow's end has its console line, that the run's deadline passing first in a step with a
timeout is said as the deadline, that `x-security` applies on an operation with no security requirement
(the corpus's fixtures that test it are absent from the audit's copies), that a response's `Cookie`
field's values are secrets, or that a boolean path value is written `true`. Four more were killed by tests
that existed but were not named for their code (`$url` without the engine's query credentials, a server
URL's password as Basic auth, the differential schema test, the lean exchange's).
Rows: (file, original snippet, mutated snippet, the bug in words[, tests][, equivalent: why])."""

from __future__ import annotations

from tests.mutation.mutants import Package

A = "arazzo_runner/"
_MEMBERS = A + "masking/members.py"
_TAINT = A + "masking/taint.py"
_INPUTS = A + "executor/inputs.py"
_MEMBER_TESTS = (
    "tests/e2e/test_secrets_members.py",
    "tests/e2e/test_rows_header_masking.py",
    "tests/e2e/test_rows_header_masked.py",
    "tests/unit/test_secrets.py",
    "tests/e2e/test_reports_masking.py",
    "tests/e2e/test_secrets_members_computed.py",
    "tests/e2e/test_rows_secret_inputs.py",
)

MEMBERS = Package(
    "secret members",
    _MEMBER_TESTS,
    (
        (
            _MEMBERS,
            "            inside.append(path[len(read) :])",
            "            inside.append(path[len(read) + 1 :])",
            "a secret member's path inside what was read one level short (`code` of `creds.code` lost)",
        ),
        (
            _MEMBERS,
            "    return all(p is ITEM or p == t or str(p) == str(t) for p, t in zip(",
            "    return all(p == t or str(p) == str(t) for p, t in zip(",
            "an array's items not walked: a secret member of each item (`items`) never matched",
        ),
        (
            _MEMBERS,
            '    if name == "":\n        return (*pointer, *accessors)',
            '    if name == "":\n        return (*accessors,)',
            "the pointer form not read: `$inputs#/creds` taken for `$inputs` whole, its members placed one "
            "level off",
        ),
        (
            _MEMBERS,
            "        paths.extend((name, *path) for path in inside)",
            "        paths.extend(path for path in inside)",
            "a holder's member paths without the name that holds them",
        ),
        (
            _MEMBERS,
            "    if isinstance(value, (list, tuple)):\n        return [",
            "    if False:\n        return [",
            "masking a list's items not done: a secret member of an array's item shown",
        ),
        (
            _MEMBERS,
            "    if kind is int or kind is float:",
            "    if kind is int:",
            "a float whose text is a secret's not masked in a row's header",
        ),
        (
            _MEMBERS,
            "    if kind is list:\n        return [numbers_as_text(",
            "    if False:\n        return [numbers_as_text(",
            "a number inside a list of a row's values not masked as text in its header",
        ),
        (
            _TAINT,
            '        expression.pointer or expression.accessors or getattr(holder, "members", None)\n',
            "        expression.pointer or expression.accessors\n",
            "`$inputs.creds` (a name, no pointer) taken as the usual read: the secret members inside it "
            "not found",
        ),
        (
            _TAINT,
            "                    return masked_at(value, members, SHOWN_MASK) if members else value",
            "                    return value",
            "a request built from an object holding a secret member printed with the member as it is",
        ),
        (
            _TAINT,
            "                if any(self.by_name(e, ctx) or self.members(e, ctx) for e in value.",
            "                if any(self.by_name(e, ctx) for e in value.",
            "a template that writes an object holding a secret member into text not secret",
        ),
        (
            _TAINT,
            "                if self.by_name(context, ctx) or self.members(context, ctx):",
            "                if self.by_name(context, ctx):",
            "what a selector picks from an object holding a secret member not secret",
        ),
        (
            _TAINT,
            "                pending.extend(((*at, key), member) for key, member in value.items)",
            "                pending.extend((at, member) for key, member in value.items)",
            "a member path under a mapping's key one level short (the key dropped)",
        ),
        (
            _TAINT,
            "                pending.extend(((*at, index), member) for index, member in enumerate(",
            "                pending.extend((at, member) for index, member in enumerate(",
            "a member path under a list's index one level short (the index dropped)",
        ),
        (
            _TAINT,
            "            whole, inside = _held(expression, ctx)\n            return whole or bool(inside)",
            "            whole, inside = _held(expression, ctx)\n            return whole",
            "a failed criterion that read an object holding a secret member prints the values it read",
        ),
        (
            _TAINT,
            "        return False, self.output_members(compiled, ctx)",
            "        return False, NO_PATHS",
            "an output of a mapping or template reading an object holding a secret member keeps no members",
        ),
        (
            _INPUTS,
            '        items = node.get("items")\n        if isinstance(items, dict):\n'
            "            members.append((ITEM",
            "        items = None\n        if isinstance(items, dict):\n            members.append((ITEM",
            "an array input's items not walked: their secret members never named",
        ),
        (
            _INPUTS,
            '        for branch in [b for key in ("allOf", "anyOf", "oneOf") for b in node.get(key) or []]:',
            '        for branch in [b for key in ("allOf",) for b in node.get(key) or []]:',
            "a secret member declared under anyOf or oneOf not named",
        ),
        (
            _INPUTS,
            "            if _says_secret(sub, document, level + 1):\n"
            "                found.append((*at, name))",
            "            if _says_secret(sub, document, level + 1):\n                found.append(at)",
            "over-masking: an object input with one secret member masked whole",
        ),
        (
            _INPUTS,
            "    if not names and not members:\n        return inputs",
            "    if not names:\n        return inputs",
            "inputs with secret members but no secret input kept as a plain dict: the members never masked",
        ),
    ),
)

MEMBERS_KEPT = Package(
    "members kept",
    _MEMBER_TESTS,
    (
        (
            A + "executor/values.py",
            "        if members:\n            outputs.members[name] = members\n",
            "",
            "an output made from an object holding a secret member keeps no members: shown with it",
        ),
        (
            A + "executor/runner.py",
            "            marks = secret_input_names(workflow.inputs, raw), secret_input_members("
            "workflow.inputs, raw)",
            "            marks = secret_input_names(workflow.inputs, raw), {}",
            "a run's inputs marked without their secret members",
        ),
        (
            A + "executor/steps/loop.py",
            '        marked = [(name, (at,)) for name in getattr(outputs, "secret", ())]',
            "        marked = []",
            "an x-forEach child's secret output not marked at its item's place in `$outputs`",
        ),
        (
            A + "executor/steps/loop.py",
            "        marked += [(n, (at, *p)) for n, paths in getattr(",
            "        marked += [(n, p) for n, paths in getattr(",
            "an x-forEach child's output members placed without their item's index (a level off)",
        ),
        (
            A + "executor/stepping.py",
            "            inside.extend((index, *path) for path in outputs.members.pop(name, ()))",
            "            inside.extend(path for path in outputs.members.pop(name, ()))",
            "an x-forEach step's own output members placed without the item's index",
        ),
        (
            A + "executor/tracing.py",
            "            value = masked_at(value, members, MASK)",
            "            value = value",
            "a trace of a criterion's reads shows an object's secret member",
        ),
        (
            A + "masking/secrets.py",
            "                name: MASK if name in marked else masked_at(value, members.get(name, ()), MASK)",
            "                name: MASK if name in marked else value",
            "the outputs written (every format) show an output's secret members",
        ),
        (
            A + "masking/secrets.py",
            "        if self.enabled and self.named:\n            values = masked_at(",
            "        if self.named:\n            values = masked_at(",
            "a row's secret inputs masked by name with --no-mask (over-masking)",
        ),
        (
            A + "masking/secrets.py",
            "        return numbers_as_text(shown, self.text) if as_text and self.masks_text() else shown",
            "        return numbers_as_text(shown, self.text) if self.masks_text() else shown",
            "over-masking: a row's JSON entry (data) has a number whose text is a secret's as `***` text",
        ),
        (
            A + "cli/batch_text.py",
            "    plain = masker.leaves() and not masker.named and _flat_without_at(values)",
            "    plain = masker.leaves() and _flat_without_at(values)",
            "a row's header shows a secret numeric input as it is when no secret text is known",
        ),
    ),
)

_JSON = A + "bounds/json_text.py"
_ROWS_TESTS = (
    "tests/unit/http/test_json_text.py",
    "tests/unit/http/test_lean_exchange.py",
    "tests/unit/test_decoding.py",
    "tests/unit/http/test_run_client.py",
    "tests/e2e/test_faults_bodies.py",
)
_CONSOLE_TESTS = (
    "tests/e2e/test_rows_isolated.py",
    "tests/e2e/test_rows_stdout_gone.py",
    "tests/e2e/test_console_events.py",
    "tests/e2e/test_console_output.py",
    "tests/unit/test_console_plain_writes.py",
    "tests/e2e/test_console_nested.py",
    "tests/unit/test_console_like.py",
)

ROWS_CUTS = Package(
    "rows cuts",
    _ROWS_TESTS,
    (
        (
            _JSON,
            "    return bool(text) and 0 < text[0] < 0x80 and (len(text) < 2 or text[1] != 0)",
            "    return bool(text) and text[0] < 0x80 and (len(text) < 2 or text[1] != 0)",
            "a text whose first byte is NUL (UTF-16-BE, UTF-32-BE) taken for UTF-8",
        ),
        (
            _JSON,
            "    return bool(text) and 0 < text[0] < 0x80 and (len(text) < 2 or text[1] != 0)",
            "    return bool(text) and 0 < text[0] < 0x80",
            "a text whose second byte is NUL (UTF-16-LE, UTF-32-LE) taken for UTF-8",
        ),
        (
            _JSON,
            "        if end == len(whole) or _SPACE(whole, end).end() == len(whole):\n"
            "            return value",
            "        return value",
            "a text with more after its value (`{} x`) read as the value: not refused",
        ),
        (
            _JSON,
            '        value, end = _SCAN(whole, _SPACE(whole, 0).end() if whole[:1] in " \\t\\n\\r" else 0)',
            "        value, end = _SCAN(whole, 0)",
            "a text starting with white space not scanned directly",
            "the scan fails at the space (StopIteration) and json.loads reads the text, with the same "
            "scanner: the value is the same, only the way to it longer",
        ),
        (
            _JSON,
            "    elif type(text) is bytes and _ascii_start(text):",
            "    elif type(text) is bytes:",
            "bytes that are not UTF-8 by their first two bytes (a UTF-16 BOM) decoded as UTF-8",
        ),
        (
            _JSON,
            '_SURROGATE_IN_BYTES = re.compile(_SURROGATE_ESCAPE.pattern + b"|" + _SURROGATE_BYTES.pattern)',
            "_SURROGATE_IN_BYTES = _SURROGATE_ESCAPE",
            "a surrogate encoded as bytes (CESU-8) not searched: read as a lone surrogate",
        ),
        (
            _JSON,
            "    if type(text) is str:\n        if _SURROGATE_IN_TEXT.search(text):",
            "    if type(text) is str:\n        if False:",
            "a str's escaped lone surrogate kept lone (not read as U+FFFD)",
        ),
        (
            A + "bounds/decoding.py",
            "    if take is None or _coding(raw.headers) is not None:",
            "    if take is None:",
            "a body with Content-Encoding that arrived whole taken raw: not decoded",
        ),
        (
            A + "http/transport.py",
            "        if len(whole) > max_body:\n            raise _Oversize(whole[:max_body], max_body",
            "        if len(whole) > max_body + 1:\n            raise _Oversize(whole[:max_body], max_body",
            "a body that arrived whole one byte over the limit not cut",
        ),
        (
            A + "http/lean_pool.py",
            "never raises)\n        self._close()\n",
            "never raises)\n",
            "a body taken whole without giving its connection back to the pool",
        ),
        (
            A + "http/lean_pool.py",
            "        if self._done or not wire._complete:\n            return None\n        chunk",
            "        if self._done:\n            return None\n        chunk",
            "a body not all arrived taken as whole: the rest of it lost",
        ),
        (
            A + "http/lean_exchange.py",
            "                self.is_stream_consumed = self.is_closed = True\n",
            "",
            "a response whose body was taken whole not marked read and closed",
            _ROWS_TESTS,
            "the body is read once (`transport._read_all`), and nothing reads it again; the `aclose` that "
            "the exchange's end then makes (the response not marked closed) reaches `PooledBody._close`, "
            "which does nothing once `arrived` has given the connection back (`_done`): the same bytes, "
            "the same connection given back once",
        ),
        (
            A + "report/console.py",
            "        made._flush = None if isinstance(made.stream, io.StringIO) else made.stream.flush",
            "        made._flush = self._flush",
            "a row's reporter copied from the template flushes as the template (never: stdout not flushed)",
            _CONSOLE_TESTS,
        ),
        (
            A + "cli/report_flags.py",
            "    template.stream = template._flush = template.masker = None\n",
            "",
            "the template reporter holds the first row's stream and masker",
            _CONSOLE_TESTS,
            "`like` sets the copy's stream, flush and masker from its own arguments, so a copy never uses "
            "the template's; what the template keeps only outlives the first row in memory (the reporter "
            "and its masker stay referenced by the setup), nothing written or masked differs",
        ),
        (
            A + "executor/runner.py",
            "        if depth or WorkflowFinished not in self._quiet_at_top:",
            "        if WorkflowFinished not in self._quiet_at_top:",
            "a nested workflow's WorkflowFinished not built under the console: its line lost",
            _CONSOLE_TESTS,
        ),
    ),
)

_OPERATION = A + "executor/steps/operation.py"
_SENDING = A + "executor/steps/sending.py"
_EXCHANGE_TESTS = (
    "tests/e2e/test_faults_bounds.py",
    "tests/e2e/test_http_cookies.py",
    "tests/e2e/test_http_serialization.py",
    "tests/e2e/test_http_security.py",
    "tests/e2e/test_rate_limit.py",
    "tests/e2e/test_x_security_local.py",
    "tests/e2e/test_response_cookie_field.py",
    "tests/e2e/test_url_userinfo.py",
    "tests/e2e/test_credentials_unreadable.py",
)

EXCHANGE_CUTS = Package(
    "exchange cuts",
    _EXCHANGE_TESTS,
    (
        (
            _SENDING,
            "    if host.journal is not None or host.options.rate is not None:",
            "    if host.journal is not None:",
            "`--rate` not kept by a step without a journal",
        ),
        (
            _SENDING,
            "    return coro if limit is None else _within(host, cstep, coro, limit, step_limit)",
            "    return coro",
            "a step's timeout and the run's deadline not kept by a step sent directly",
        ),
        (
            _SENDING,
            "    by_step = step_limit is not None and limit == step_limit\n",
            "    by_step = step_limit is not None\n",
            "the run's deadline, passed during a step that has a timeout, said as the step's timeout",
        ),
        (
            _OPERATION,
            "    if target.source is None or cstep.x_security or target.operation.security:",
            "    if target.source is None or cstep.x_security:",
            "a step whose operation has a security requirement prepared without its credentials",
        ),
        (
            _OPERATION,
            "    if target.source is None or cstep.x_security or target.operation.security:",
            "    if target.source is None or target.operation.security:",
            "a step's x-security not applied",
            (*_EXCHANGE_TESTS, "tests/e2e/test_respect_extensions.py"),
        ),
        (
            _OPERATION,
            "    check_input_reads(cstep, base)\n    facts, params, body = _values(",
            "    facts, params, body = _values(",
            "a step reading an input the workflow does not declare sent, not failed unsent",
            ("tests/e2e/test_run_field_forms.py", "tests/e2e/test_run_inputs_schema.py"),
        ),
        (
            _OPERATION,
            '    if "set-cookie" in response.headers or "cookie" in response.headers:',
            '    if "set-cookie" in response.headers:',
            "a response's Cookie field's values not kept as secrets",
        ),
        (
            _OPERATION,
            "        base,\n        url=request.document_url,\n        method=request.method,\n"
            "        request=request.view,\n        status_code",
            "        base,\n        url=request.url,\n        method=request.method,\n"
            "        request=request.view,\n        status_code",
            "`$url` after the answer is the URL sent, with the engine's credentials in its query",
        ),
        (
            _OPERATION,
            "        plain = split_userinfo(url)[0]",
            "        plain = url",
            "a server URL's user and password kept in the URL sent (no Basic header made for them)",
        ),
        (
            A + "http/request.py",
            '        elif style == "simple" and (kind is int or (kind is str and value)):',
            "        elif kind is int or (kind is str and value):",
            "a scalar path value of the label or matrix style written as simple (no `.` or `;id=`)",
        ),
        (
            A + "http/request.py",
            "            self.path[name] = encode(value if kind is str else str(value))",
            "            self.path[name] = value if kind is str else str(value)",
            "a scalar simple path value not percent-encoded (`a/b` as two segments)",
        ),
        (
            A + "http/request.py",
            '        elif style == "simple" and (kind is int or (kind is str and value)):',
            '        elif style == "simple" and (isinstance(value, int) or (kind is str and value)):',
            "a boolean path value written `True` (Python's text), not `true`",
        ),
        (
            A + "http/contract_subset.py",
            "    if kind is dict or kind is list or kind is str or value is None",
            "    if kind is dict or kind is list or kind is str or kind is int or value is None",
            "an integer past the exact bound judged here, not by the full validator",
            (
                "tests/e2e/test_contract_subset.py",
                "tests/unit/http/test_contract_schema.py",
                "tests/unit/test_simple_schema_responses.py",
            ),
        ),
        (
            A + "http/run_client.py",
            "        if response is not None and not response.is_closed:  # (its `aclose` does nothing "
            "once closed)\n            return response.aclose()",
            "        if False:\n            return response.aclose()",
            "a response read through the run client never closed: its connection not given back",
            (*_EXCHANGE_TESTS, "tests/unit/http/test_lean_exchange.py", "tests/e2e/test_rows_pool.py"),
        ),
        (
            A + "http/run_client.py",
            "        response = self._response = lean_response(answer, sent)\n        try:\n"
            "            _received(self._client, None, response, self._owner)",
            "        response = self._response = lean_response(answer, sent)\n        try:\n            pass",
            "a response of a request written straight not received: its cookies not set, no log line",
            (*_EXCHANGE_TESTS, "tests/unit/http/test_run_client.py", "tests/unit/http/test_lean_exchange.py"),
        ),
    ),
)

PACKAGES = [MEMBERS, MEMBERS_KEPT, ROWS_CUTS, EXCHANGE_CUTS]
