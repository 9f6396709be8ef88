"""The mutants of the code of issues 22-30 (the packages the independent audit of issue 41 named):
admission, the expression fast path, masking and its stream, `--inputs-file` rows, generate, the HTML
report, the MCP fast path, the model API clients and their retries, the load test's fast lane.
Rows: (file, original snippet, mutated snippet, the bug in words[, tests][, equivalent: why])."""

from __future__ import annotations

from tests.mutation.mutants import Package

A = "arazzo_runner/"

ADMISSION = Package(
    "admission",
    ("tests/e2e/test_run_reachable_errors.py", "tests/unit/validate/test_admission_owners.py"),
    (
        (
            A + "validate/admission.py",
            "for workflow_id in scope if scope is not None else owners.all_ids:",
            "for workflow_id in scope or owners.all_ids:",
            "a broken component no workflow uses refuses every workflow",
        ),
        (
            A + "validate/admission.py",
            "order = [workflow.workflow_id, *sorted(reached - {workflow.workflow_id})]",
            "order = [workflow.workflow_id]",
            "a workflow reaching a broken one is admitted",
        ),
        (
            A + "validate/admission.py",
            "if scope is None or scope & reached_by_run]",
            "if scope is not None and scope & reached_by_run]",
            "errors outside any workflow are no longer shown as warnings",
            "no error a run goes on past is ever located outside the workflows and the "
            "components (every `warn` rule of validate/run_policy.py, and `parameter-in`, reports at a step, "
            "an action, an output or an input), so the warnings shown cannot differ",
        ),
        (
            A + "validate/admission.py",
            '_IN_COMPONENT = r"^/components/([^/]+)/([^/]+)(?:/|$)"',
            '_IN_COMPONENT = r"^/components/([^/]+)/([^/]+)/"',
            "a finding at a component itself (not inside it) belongs to every workflow",
        ),
        (
            A + "validate/admission.py",
            "                    pending.extend(uses.get(key, ()))\n",
            "",
            "a component used through another component: its workflows not found",
        ),
        (
            A + "validate/admission.py",
            "    elif isinstance(value, list):\n        for item in value:",
            "    elif isinstance(value, tuple):\n        for item in value:",
            "a component named inside a list (components.failureActions' criteria) is not seen",
        ),
    ),
)

FAST_EXPRESSIONS = Package(
    "expressions-fast",
    ("tests/unit/expressions/test_expr_fast.py",),
    (
        (
            A + "expressions/fast.py",
            '_TCHAR = _ALNUM + "!#$%&\'*+-.^_`|~"',
            '_TCHAR = _ALNUM + "!#$%&\'*+-.^_`|~:"',
            "`$response.header.X-Id:v` accepted as a header name",
        ),
        (
            A + "expressions/fast.py",
            'if text[end : end + 1] in (".", "["):',
            'if text[end : end + 1] == "[":',
            "an accessor `.x` after the match is left out of the expression",
        ),
        (
            A + "expressions/fast.py",
            'if raw[0] != "/" or "~" in raw:',
            'if raw[0] != "/":',
            "a pointer's `~1` and `~0` escapes read as they are",
        ),
        (
            A + "expressions/fast.py",
            "return None if length == _WINDOW else start + length",
            "return start + length",
            "a name longer than 256 characters cut at 256",
        ),
        (
            A + "expressions/fast.py",
            "if id_end is None or id_end == pos + 7 or not",
            "if id_end is None or not",
            "`$steps..outputs.x` (an empty step id) accepted",
        ),
        (
            A + "expressions/fast.py",
            'while end < size and text[end] not in stop and text[end] not in "{}":',
            "while end < size and text[end] not in stop:",
            "a pointer runs on through `}` (an embedded expression's end)",
        ),
    ),
)

MASKING = Package(
    "masking",
    ("tests/unit/test_secrets.py", "tests/unit/test_masking_stream.py"),
    (
        (
            A + "masking/secrets.py",
            "        json.dumps(secret, ensure_ascii=False)[1:-1],\n",
            "",
            'a password the server echoes JSON-escaped (`pä\\"ss-wörd`) shown unmasked',
        ),
        (
            A + "masking/secrets.py",
            '        quote(secret, safe=""),\n',
            "",
            "a secret percent-encoded with `/` escaped shown unmasked",
        ),
        (
            A + "masking/secrets.py",
            "            head = form[:MIN_LENGTH]\n",
            "            head = form[: MIN_LENGTH + 1]\n",
            "a cut leaving only the first 4 characters of a secret shows them",
        ),
        (
            A + "masking/secrets.py",
            "key=len, reverse=True)",
            "key=len)",
            "shorter forms replaced first: a longer form is left half shown",
        ),
        (
            A + "masking/secrets.py",
            'if lowered in ("authorization", "proxy-authorization"):',
            'if lowered == "authorization":',
            "Proxy-Authorization shown",
        ),
        (
            A + "masking/secrets.py",
            'return f"{name}={MASK}" if sep else MASK',
            'return f"{name}={MASK}" if sep else pair.strip()',
            "a cookie without `=` shown as it is",
        ),
        (
            A + "masking/secrets.py",
            'return _mask_pair(first) + (sep + self.text(attributes) if sep else "")',
            "return _mask_pair(first) + sep + attributes",
            "a secret in a Set-Cookie attribute shown",
        ),
        (
            A + "masking/stream.py",
            "for at in range(max(0, size - longest + 1), end):",
            "for at in range(max(0, size - longest + 2), end):",
            "a stream releases the first character of the longest form when it is cut just after it",
        ),
        (
            A + "masking/stream.py",
            'for ending in (":/", ":"):',
            'for ending in (":",):',
            "a piece ending in `https:/` releases the scheme before the URL's userinfo is known",
        ),
        (
            A + "masking/stream.py",
            "if any(at + len(f) > end and text.startswith(f, at)",
            "if any(at + len(f) > end + 1 and text.startswith(f, at)",
            "a cut one character inside a whole form shows the secret's start",
        ),
    ),
)

ROWS = Package(
    "inputs-file rows",
    ("tests/e2e/test_cli_batch.py",),
    (
        (
            A + "executor/rows.py",
            "                if not number:\n",
            "                if number:\n",
            "an --inputs-file starting with a BOM fails at line 1",
        ),
        (
            A + "executor/rows.py",
            "            if found is not None:",
            "            if handle is not None:",
            "`--inputs-file <(cmd)` read twice: no rows",
        ),
        (
            A + "executor/rows.py",
            "if not line.strip():",
            "if not line:",
            "a line of spaces is an invalid row",
        ),
        (
            A + "executor/rows.py",
            "line {number}: not valid JSON: {exc}",
            "line {number + 1}: not valid JSON: {exc}",
            "an invalid row named by the line after it",
        ),
        (
            A + "executor/rows.py",
            "if not isinstance(value, dict):",
            "if not isinstance(value, (dict, list)):",
            "a JSON array accepted as a row",
        ),
    ),
)

GENERATE = Package(
    "generate",
    (
        "tests/unit/generate/test_generate_names.py",
        "tests/unit/generate/test_generate_order.py",
        "tests/unit/generate/test_generate_identifiers.py",
    ),
    (
        (
            A + "generate/names.py",
            'fitted = re.sub(r"-{2,}", "-", _ID_OTHER.sub("-", text)).strip("-")',
            'fitted = re.sub(r"-{3,}", "-", _ID_OTHER.sub("-", text)).strip("-")',
            "runs of two dashes kept in generated ids",
        ),
        (
            A + "generate/names.py",
            '_OUTPUT_OTHER = re.compile(r"[^A-Za-z0-9._-]+")',
            '_OUTPUT_OTHER = re.compile(r"[^A-Za-z0-9_-]+")',
            "dots of output names replaced",
        ),
        (
            A + "generate/names.py",
            '_INPUT_OTHER = re.compile(r"[^A-Za-z0-9_-]+")',
            '_INPUT_OTHER = re.compile(r"[^A-Za-z0-9._-]+")',
            "input names keep dots (`$inputs.a.b` then reads a member)",
        ),
        (
            A + "generate/names.py",
            "        candidate, number = name, 1\n",
            "        candidate, number = name, 0\n",
            "the second of a name is `name-1`, not `name-2`",
        ),
        (
            A + "generate/names.py",
            'if lowered.endswith("s") and not lowered.endswith("ss") and len(word) > 3:',
            'if lowered.endswith("s") and len(word) > 3:',
            "`address` made singular as `addres`",
        ),
        (
            A + "generate/order.py",
            "ranked = [(rank, -_depth(plans[index].path), index)",
            "ranked = [(rank, _depth(plans[index].path), index)",
            "a parent deleted before its children",
        ),
        (
            A + "generate/order.py",
            '_SESSION_ENDING = frozenset({"logout", "signout"})',
            '_SESSION_ENDING = frozenset({"logout"})',
            "`POST /signout` not put last",
        ),
        (
            A + "generate/identifiers.py",
            'for rank, wanted in enumerate((param, "id", f"{noun}id", "uuid")):',
            'for rank, wanted in enumerate(("id", param, f"{noun}id", "uuid")):',
            "`id` preferred to the property named like the path parameter",
        ),
        (
            A + "generate/identifiers.py",
            "*(objects if len(objects) == 1 else ())]",
            "*objects]",
            "the id of another object of the answer (`meta.id`) taken for the resource's",
        ),
    ),
)

HTML_REPORT = Package(
    "html report",
    ("tests/e2e/test_report_html.py", "tests/unit/test_report_diff.py"),
    (
        (
            A + "report/html/__init__.py",
            'title=html.escape(str(page.get("title") or "Arazzo report")),',
            'title=str(page.get("title") or "Arazzo report"),',
            "a report file name with markup injected into <title>",
        ),
        (
            A + "report/html/__init__.py",
            '{"<": "\\\\u003c", ">"',
            '{"<": "<", ">"',
            "a body holding `</script>` ends the data block",
        ),
        (
            A + "report/html/diff.py",
            "return high - low >= TIME_FLOOR_MS and high >= TIME_FACTOR * max(low, 0.001)",
            "return high - low >= TIME_FLOOR_MS or high >= TIME_FACTOR * max(low, 0.001)",
            "10 ms then 25 ms reported as a change of time",
        ),
        (
            A + "report/html/diff.py",
            'if x.get("statusCode") != y.get("statusCode"):',
            'if x.get("statusCode") != x.get("statusCode"):',
            "a change of HTTP status not reported",
        ),
        (
            A + "report/html/model.py",
            'part["pageCutChars"] = len(body) - PAGE_BODY_LIMIT',
            'part["pageCutChars"] = len(body)',
            "the note of a cut body says the whole size was cut",
        ),
    ),
)

PACKAGES = [ADMISSION, FAST_EXPRESSIONS, MASKING, ROWS, GENERATE, HTML_REPORT]
