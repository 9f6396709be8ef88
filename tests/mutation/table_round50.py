"""The mutants of session 50's new code: a big JSON body read as a stream of events with json.loads's
meaning (bounds/json_stream.py), the JSONPath queries a stream answers (query/jsonpath_stream.py), the
step's decision that every use of its body can be streamed (executor/steps/body_stream.py) and the hooks
that read it (criteria/jsonpath.py, expressions/resolver.py, http/transport.py's `_read_all` into a
BytesIO), and budget.py's `BudgetExceeded.again` (a new exception each time `guarded` raises).
Found in this round: the big-body e2e comparison left ijson unimportable after its first call, so of a
test's several cases only the first was ever streamed (the trace, `{}`/real schema, regex, root-filter
and whole-output cases all ran the whole path); no test counted the stream's passes, so a step reading the
body whole that streamed it too (then parsed it) went unseen; a filter's chunks sharing the query's time,
tokens that are not indexes, the prefix kept past the limit and the memory flag of a raise again had no
test. Left as reported: a filtered key that comes again keeps the time its earlier values spent (and a stop
there), where the document's filter sees only the last value.
Rows: (file, original snippet, mutated snippet, the bug in words[, tests][, equivalent: why])."""

from __future__ import annotations

from tests.mutation.mutants import Package

A = "arazzo_runner/"
_STREAM = A + "bounds/json_stream.py"
_UNIT = "tests/unit/test_json_stream.py"
_E2E = "tests/e2e/test_big_body_stream.py"

JSON_STREAM = Package(
    "json stream",
    (_UNIT,),
    (
        (
            _STREAM,
            'and (token == "0" or not token.startswith("0"))',
            "",
            "a pointer token with a leading zero (`01`) taken for the index 1 of an array",
        ),
        (
            _STREAM,
            "            elif isinstance(value, list) and 0 <= index < len(value):",
            "            elif isinstance(value, list) and index < len(value):",
            "a key that is not an index (-1) reaches an array's last element through a value built whole",
        ),
        (
            _STREAM,
            "            or not isinstance(children, list | dict)\n",
            "            or not isinstance(children, list)\n",
            "a filter over an object reached whole (its members tested) selects nothing",
        ),
        (
            _STREAM,
            "        left = limits.QUERY_TIMEOUT - self.spent\n",
            "        left = limits.QUERY_TIMEOUT\n",
            "each chunk of a filtered array given the query's whole time: the filter unbounded in all",
        ),
        (
            _STREAM,
            "        spent.seconds = limits.QUERY_TIMEOUT  # its message",
            "        pass  # its message",
            "a filter stopped on a later chunk says it stopped after what was left, not the query's limit",
        ),
        (
            _STREAM,
            "trailing text at the end\n            return None\n",
            "trailing text at the end\n            pass\n",
            "text after the value (`{...} 2`) streamed, where json.loads refuses it",
            "yajl (one value, not several) gives no event after the top value's last: text after it makes "
            "the loop raise (caught: not streamed) and never runs its body, which would only see events "
            "`_walk` left unread, and every branch of `_walk` reads its value to its end",
        ),
        (
            _STREAM,
            '        if not self.ended:\n            self.ended = True\n            return b"\\n"\n',
            "",
            'a string left open after the value (`{...} "open`) streamed: yajl ignores it without a newline',
        ),
        (
            _STREAM,
            '        and b"\\x0c" not in content\n',
            "",
            "a form feed (which yajl takes for whitespace, json.loads refuses) streamed",
        ),
        (
            _STREAM,
            '        json.detect_encoding(content) == "utf-8"  # not UTF-16/32, no BOM\n        and ',
            "        ",
            "a text with a BOM or in UTF-16 streamed, where json.loads refuses or reads it otherwise",
            "json.detect_encoding says other than utf-8 only for a text starting with a BOM (bytes EF, FE "
            "or FF: yajl refuses each as the text's first) or with a NUL among its first two bytes, and "
            "yajl refuses a raw NUL anywhere, in a string or out (measured: BOM, UTF-16/32 with and "
            'without BOM, `"\\x00"`, `[\\x00]`, `1\\x00`): such a text is refused either way',
        ),
        (
            _STREAM,
            "    if any(t.select is None and len(t.steps) == depth for t in active) or (",
            "    if any(len(t.steps) == depth for t in active) or (",
            "a filtered array built whole, not tested a chunk at a time: the memory the stream saves spent",
            (_UNIT, _E2E + "::test_a_streamed_body_gives_the_outputs_and_criteria_of_the_whole_document"),
        ),
        (
            _STREAM,
            "                for target in under:\n                    target.reset()  # the key again",
            "                for target in under:\n                    pass  # the key again",
            "a duplicate key's first value kept by the uses under it (first wins, not last)",
        ),
        (
            _STREAM,
            "if index <= last else []",
            "if index < last else []",
            "a pointer to the highest index the uses name in an array reaches nothing",
        ),
        (
            _STREAM,
            "                target.take(chunk)\n            chunk = []\n",
            "                target.take(chunk)\n",
            "a chunk tested again with every later one: nodes selected several times",
        ),
        (
            _STREAM,
            "    if chunk:\n        for target in tested:\n            target.take(chunk)\n",
            "",
            "the last, partial chunk of a filtered array never tested",
        ),
        (
            _STREAM,
            "                target.answer(element, depth + 1)",
            "                target.answer(element, depth)",
            "a pointer into an element of a filtered array answered from the wrong step",
        ),
        (
            _STREAM,
            "    depth, room = 1, MAX_BODY_DEPTH - level + 1",
            "    depth, room = 1, MAX_BODY_DEPTH - level + 2",
            "a skipped value one level deeper than json_text's bound streamed",
        ),
        (
            _STREAM,
            "        if len(stack) + level > MAX_BODY_DEPTH:",
            "        if len(stack) + level >= MAX_BODY_DEPTH:",
            "a built value exactly at json_text's depth bound not streamed",
        ),
        (
            _STREAM,
            "            if type(current) is dict:\n                current[key] = value\n            else:\n"
            "                current.append(value)\n            continue\n",
            "            if type(current) is dict:\n                current.setdefault(key, value)\n"
            "            else:\n                current.append(value)\n            continue\n",
            "a duplicate key's first scalar kept in a value built whole (first wins, not last)",
        ),
        (
            _STREAM,
            "        return self.repeated and self.stopped is not None\n",
            "        return False\n",
            "a filter stopped after its key came again answered as stopped, where the document's query, with "
            "a budget for the last value alone, selects its nodes (a reviewer's finding)",
            ("tests/unit/test_json_stream_repeats.py",),
        ),
        (
            _STREAM,
            "        self.repeated = self.repeated or self.spent > 0 or self.stopped is not None\n",
            "        self.spent, self.stopped = 0.0, None\n",
            "a key coming again gives its filter a new budget: a body repeating the key N times spends N "
            "budgets, and a stop on an earlier value is forgotten",
            ("tests/unit/test_json_stream_repeats.py", "tests/unit/test_json_stream.py"),
        ),
        (
            _STREAM,
            "        except Exception as exc:\n            raise _Unanswered from exc\n",
            "        except Exception:\n            self.found = []\n",
            "a filter failing otherwise than by its budget (a pattern refused) answered as selecting nothing",
            ("tests/e2e/test_big_body_stream_fallbacks.py",),
        ),
        (
            _STREAM,
            "            selected[target.key] = target.found\n",
            '            selected[target.key] = reached[("filter", target.key)] = target.found\n',
            "pointer and filter answers in one table: a pointer spelling a filter's text reads its nodes",
            ("tests/e2e/test_big_body_stream_fallbacks.py",),
        ),
        (
            _STREAM,
            "        last = max((t.steps[depth][1] for t in active), default=-1)\n",
            "        last = max(t.steps[depth][1] for t in active)\n",
            "an array holding no index use (uses under an object key) refused: the body parsed whole",
            ("tests/unit/test_json_stream_repeats.py",),
        ),
    ),
)

_PATH = A + "query/jsonpath_stream.py"

JSONPATH_STREAM = Package(
    "jsonpath stream",
    (_UNIT,),
    (
        (
            _PATH,
            "        elif type(selector) is IndexSelector and selector.index >= 0:",
            "        elif type(selector) is IndexSelector:",
            "a negative index (`$.items[-1][?...]`) streamed as a step that reaches nothing",
        ),
        (
            _PATH,
            "    if len(segments) < 2:",
            "    if len(segments) < 1:",
            "a filter over the root (`$[?...]`, which the criterion also applies to `[context]`) streamed",
        ),
        (
            _PATH,
            "        return _relative(expression.left) and _relative(expression.right)",
            "        return _relative(expression.left) or _relative(expression.right)",
            "a comparison or `&&` with `$` on one side (`@.a == $.b`) streamed: `$` read as the chunk",
        ),
        (
            _PATH,
            "_only(segment) is not None and type(_only(segment)) in (NameSelector, IndexSelector)",
            "_only(segment) is not None",
            "a relative query with a wildcard (`count(@.*)`) streamed",
        ),
        (
            _PATH,
            "        return expression.name in FUNCTIONS and all(",
            "        return all(",
            "any function extension taken for one that reads only its arguments",
            "the library's environment, the one the engine compiles with, has only the five standard "
            "functions "
            "(`length`, `count`, `match`, `search`, `value`), and these are FUNCTIONS: no query can name "
            "another (it does not compile)",
        ),
    ),
)

_STEPS = A + "executor/steps/body_stream.py"

BODY_STREAM = Package(
    "body stream decision",
    (_E2E,),
    (
        (
            _STEPS,
            '    if getattr(host.options, "trace", False) or _contract_reads_body(host, target):',
            "    if _contract_reads_body(host, target):",
            "a run recording a trace (it shows the body whole) still streams the body, then parses it too",
        ),
        (
            _STEPS,
            "                if schema is not None and schema is not True and schema != {}:",
            "                if schema is not None and schema is not True:",
            "a `{}` response schema (it admits every value) taken for one reading the body: never streamed",
        ),
        (
            _STEPS,
            '            if "$ref" in response:\n                return True\n',
            "",
            "a response given by `$ref` (whose schema reads the body) taken for one without: streamed, then "
            "parsed for the check",
            "the description's responses reach the step dereferenced (a `$ref`'d response with a schema is "
            "seen by its `content`: the e2e case `by_ref` streams 0 times with or without the branch), and "
            "a `$ref` object left in place has no `content`, the only place the contract check "
            "(`contract._Plan`) reads a body's schema from: it never reads the body of such a response",
        ),
        (
            _STEPS,
            "        values.extend(param.value for param in action.params)\n",
            "",
            "an action's parameter reading the body whole missed: the body streamed, then parsed too",
        ),
        (
            _STEPS,
            "                if not expression.pointer:  # the body whole\n                    return None\n",
            "",
            "an output reading the body whole missed: the body streamed, then parsed too",
        ),
        (
            A + "criteria/jsonpath.py",
            "            if nodes:\n                return self._matcher.judge(",
            "            if nodes is not None:\n                return self._matcher.judge(",
            "a streamed filter that selected nothing judged as though it selected something (passes)",
        ),
        (
            A + "criteria/jsonpath.py",
            "and not context.pointer and not context.accessors",
            "and not context.pointer",
            "a criterion whose context reads a member of the body by accessor taken for the body itself",
        ),
        (
            A + "expressions/resolver.py",
            "is not ast.ResponseRef or expr.pointer or expr.accessors or ctx.shown",
            "is not ast.ResponseRef or expr.accessors or ctx.shown",
            "a filter applied to the node a pointer reaches answered by the same filter's nodes over the "
            "whole body",
        ),
        (
            A + "criteria/jsonpath.py",
            "        query = self.streamed_query() if body is not None else None\n",
            "        query = self._matcher.query if body is not None and self._matcher else None\n",
            "a workflow step's Goessner criterion answered with its child's RFC 9535 stream (same text)",
            ("tests/e2e/test_big_body_stream_fallbacks.py",),
        ),
    ),
)

_TRANSPORT = A + "http/transport.py"

READ_AND_AGAIN = Package(
    "read all and again",
    ("tests/e2e/test_bounds_defaults.py", "tests/e2e/test_compression_bombs.py"),
    (
        (
            _TRANSPORT,
            "        buffer.write(chunk)\n        size += len(chunk)\n",
            "        buffer.write(chunk)\n",
            "the body's size not counted: a body past --max-response-bytes read whole",
        ),
        (
            _TRANSPORT,
            "            chunk = chunk[: max_body - size]",
            "            chunk = chunk[:max_body]",
            "the kept prefix of a body past the limit longer than the limit",
        ),
        (
            _TRANSPORT,
            "        over = size + len(chunk) > max_body",
            "        over = size + len(chunk) >= max_body",
            "a body of exactly --max-response-bytes refused",
        ),
        (
            A + "bounds/budget.py",
            "        return BudgetExceeded(self.budget, self.memory)",
            "        return self",
            "the same exception raised again each time: its traceback gathers every raise's frames",
            ("tests/unit/test_budget.py",),
        ),
        (
            A + "bounds/budget.py",
            "        return BudgetExceeded(self.budget, self.memory)",
            "        return BudgetExceeded(self.budget)",
            "a raise again after memory ran out says the time ran out",
            ("tests/unit/test_budget.py",),
        ),
        (
            A + "bounds/budget.py",
            "            sys.setprofile(on_profile)\n            raise fired.again()",
            "            sys.setprofile(on_profile)\n            raise fired",
            "the trace hook re-raises one exception: its traceback gathers every swallowed raise's frames",
            ("tests/unit/test_budget.py",),
        ),
    ),
)

PACKAGES = [JSON_STREAM, JSONPATH_STREAM, BODY_STREAM, READ_AND_AGAIN]
