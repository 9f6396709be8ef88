"""The mutants of session 51's rows code: a row's request written straight from the step's parts
(http/wire_direct.py: the head's bytes, the Host lines and the client's default lines checked once and
kept, the refusals that send a request the way before: cookies, a proxy mounted, default query
parameters, a URL httpx must parse, a header h11 or httpx would refuse, a Host, Content-Length,
Transfer-Encoding or Connection set by the request; the httpx.Request made when read, and the
LeanResponse made without `__init__`: lean_exchange.py, run_client.py); the console's plain lines and
one-block summary (report/console.py's `_plain`, colours off and no secret known), a row header's flat
values shown unmasked (cli/batch_text.py's `_flat_without_at`); and the one-pass indented JSON of the
rows' `--format json` entries (cli/indented_json.py).
Found in this round: a row's step to a server that closes the connection as it is set up (an https URL
to a plain-HTTP port) failed with `cannot connect:  (GET ...)`, no cause (fixed: the fallback for an
error without words tested the exception object, always true; it says the server closed the
connection while it was being set up); no test held that an https URL after an http one of the same
host and port is sent over TLS (a Host cache keyed without the scheme sent it in plain text), that a
bodiless post, put or patch in lower case says `Content-Length: 0`, that a client's default
`Connection: Close` in capitals closes the connection, that a default header name holding `: ` is
refused, that the kept tables stay bounded, that a plain line or a one-block summary is flushed as
written, that a summary ends with its line end or keeps its colours when they are on, that a failed
step's plain line has the failed mark, or that a URL's password in a row's list or key is masked in its
header (a nested value's was only hidden by the header's cut).
Rows: (file, original snippet, mutated snippet, the bug in words[, tests][, equivalent: why])."""

from __future__ import annotations

from tests.mutation.mutants import Package

A = "arazzo_runner/"
_DIRECT = A + "http/wire_direct.py"
_DIRECT_TESTS = (
    "tests/unit/http/test_wire_direct.py",
    "tests/unit/http/test_wire_request_h11.py",
    "tests/unit/http/test_lean_exchange.py",
    "tests/unit/http/test_fast_request.py",
    "tests/e2e/test_wire.py",
    "tests/unit/http/test_wire_direct_kept.py",
)

REFUSALS = Package(
    "direct refusals",
    _DIRECT_TESTS,
    (
        (
            _DIRECT,
            "    if not _VISIBLE or type(url) is not str or not _OPTIONS.issuperset(options):\n",
            "    if not _VISIBLE or type(url) is not str:\n",
            "a request with options other than headers, bytes and a timeout (`data=`) written without them",
        ),
        (
            _DIRECT,
            "    if (content is not None and type(content) is not bytes) or client.params:\n",
            "    if content is not None and type(content) is not bytes:\n",
            "a client's default query parameters left out of the URL written",
        ),
        (
            _DIRECT,
            "    if (content is not None and type(content) is not bytes) or client.params:\n",
            "    if (content is not None and not isinstance(content, (bytes, str))) or client.params:\n",
            "a text body (`content=str`) taken for bytes",
        ),
        (
            _DIRECT,
            "    if type(cookies) is not CookieJar or cookies._cookies:  # type: ignore[attr-defined]\n",
            "    if type(cookies) is not CookieJar:  # type: ignore[attr-defined]\n",
            "the client's cookies (its jar) not sent",
        ),
        (
            _DIRECT,
            "    if jar is not None and has_cookies(jar):  # the run's own, beside a shared client\n"
            "        return None\n",
            "",
            "a row's own cookies (its jar beside the shared client) not sent",
        ),
        (
            _DIRECT,
            '            if lower in _SET_APART or b":" in name or not _LINE.fullmatch(line):',
            '            if b":" in name or not _LINE.fullmatch(line):',
            "a Host, Content-Length, Transfer-Encoding or Connection set by the request written beside the "
            "engine's",
        ),
        (
            _DIRECT,
            '            if lower in _SET_APART or b":" in name or not _LINE.fullmatch(line):',
            "            if lower in _SET_APART or not _LINE.fullmatch(line):",
            "a request's header name holding `: ` written as a name and a value (`Transfer-Encoding: "
            "chunked<TAB>` as a name)",
        ),
        (
            _DIRECT,
            '_SET_APART = frozenset({b"host", b"content-length", b"transfer-encoding", b"connection"})',
            '_SET_APART = frozenset({b"host", b"content-length", b"transfer-encoding"})',
            "a request's own `Connection` header written: a `Connection: close` the pool does not know of",
        ),
        (
            _DIRECT,
            'and not (lower == b"connection" and b"close" not in value.lower()):',
            'and not (lower == b"connection" and b"close" not in value):',
            "a client's default `Connection: Close` (a capital) taken for keep-alive: written, the "
            "connection kept",
        ),
        (
            _DIRECT,
            '        if b":" in name or not _LINE.fullmatch(line):\n'
            "            return None\n        if lower ",
            "        if not _LINE.fullmatch(line):\n            return None\n        if lower ",
            "a client's default header whose name holds `: ` written as a name and a value",
        ),
        (
            _DIRECT,
            "    if not _NAME.fullmatch(raw):\n        return None\n    return _keep(",
            "    return _keep(",
            "a method h11 refuses (`GET /x`) written",
        ),
        (
            _DIRECT,
            "    if given is None:\n        return None\n    lines = []\n",
            "    lines = []\n",
            "a request header httpx refuses (a text value not ASCII) dropped: the request written without it",
        ),
    ),
)

HEAD = Package(
    "direct head",
    _DIRECT_TESTS,
    (
        (
            _DIRECT,
            "        defaults = [item for item in client.headers._list if item[1] not in overridden]",
            "        defaults = [item for item in client.headers._list if item[0] not in overridden]",
            "a default header the request sets in another case (`accept`) compared by its raw name: both "
            "sent",
        ),
        (
            _DIRECT,
            "    elif upper in _BODY_METHODS:\n",
            "    elif method in _BODY_METHODS:\n",
            "a bodiless `post` (in lower case) written without its `Content-Length: 0`",
        ),
        (
            _DIRECT,
            '    raw_path = (path or "/") if query is None else',
            '    raw_path = (path or "/") if not query else',
            "an empty query (`/q?`) written without its `?`",
        ),
        (
            _DIRECT,
            "    head.append(block)\n    head += lines\n",
            "    head += lines\n    head.append(block)\n",
            "the request's own headers written before the client's defaults",
        ),
        (
            _DIRECT,
            '    if body:\n        head.append(b"Content-Length: %d\\r\\n" % len(body))',
            '    if content is not None:\n        head.append(b"Content-Length: %d\\r\\n" % len(body))',
            "an empty body given (`PUT` with b'') written with a second Content-Length",
        ),
        (
            _DIRECT,
            "        length = 0\n",
            "        length = None\n",
            "a bodiless POST's length (0) not told to the connection",
        ),
        (
            _DIRECT,
            "    key = tuple(defaults)\n",
            "    key = tuple(item[:2] for item in defaults)\n",
            "the client's default lines kept by their names only: a default's new value (`Connection: "
            "close`, a User-Agent) not seen",
        ),
        (
            _DIRECT,
            "    host = _HOSTS.get(prefix, False)\n    if host is False:\n"
            "        host = _keep(_HOSTS, prefix, _host(origin))\n",
            '    host = _HOSTS.get(prefix.split("://")[1], False)\n    if host is False:\n'
            '        host = _keep(_HOSTS, prefix.split("://")[1], _host(origin))\n',
            "the Host lines and origins kept by authority, not scheme: `https://h:8443` after "
            "`http://h:8443` sent in plain text",
        ),
        (
            _DIRECT,
            "    if len(table) >= _MAX_KEPT:\n        table.clear()\n",
            "",
            "the kept lines never cleared: one kept for each origin, client defaults and method a long "
            "run meets, for ever",
        ),
        (
            _DIRECT,
            '        extensions = {"timeout": timeout.as_dict()}',
            '        extensions = {"timeout": client.timeout.as_dict()}',
            "a step's own timeout (an httpx.Timeout) replaced by the client's",
        ),
        (
            _DIRECT,
            "    upper = method.upper()\n",
            "    upper = method\n",
            "a method given in lower case written as given",
        ),
    ),
)

_LEAN = A + "http/lean_exchange.py"
_RUN_CLIENT = A + "http/run_client.py"

LEAN_RESPONSE = Package(
    "direct response",
    _DIRECT_TESTS,
    (
        (
            _RUN_CLIENT,
            "        pool = None if client._mounts else lean_pool(client._transport)",
            "        pool = lean_pool(client._transport)",
            "a client with a proxy mounted (the environment's) writes straight to the lean pool: the "
            "request goes round the proxy",
        ),
        (
            _RUN_CLIENT,
            "        except httpx.RequestError as exc:\n            _attach(exc, request_of(sent))\n",
            "        except httpx.RequestError as exc:\n",
            "a written request's failure carries no request (`exc.request` raises)",
        ),
        (
            _LEAN,
            "                self._sent, self._written = request_of(self._written), None\n",
            "                return request_of(self._written)\n",
            "a written response's request made again each time it is read (two requests)",
        ),
        (
            _LEAN,
            "    response._sent, response._written = request, (sent if request is None else None)",
            "    response._sent, response._written = request, None",
            "a written request's response has no request",
        ),
        (
            _LEAN,
            "    headers._list = [(name, name.lower(), value) for name, value in answer.headers]",
            "    headers._list = [(name, name, value) for name, value in answer.headers]",
            "a response's headers kept without their lower-case names: `Content-Type` not found",
        ),
        (
            _LEAN,
            "    response.is_closed = response.is_stream_consumed = False\n",
            "    response.is_closed = False\n",
            "a response's `is_stream_consumed` not set (httpx's `aread` reads it)",
        ),
        (
            _DIRECT,
            "    return assemble(upper, url, list(items), body, written.stream, written.extensions)",
            "    return assemble(upper, url, items, body, written.stream, written.extensions)",
            "the kept header items given to the request without a copy (its Content-Length appended to them)",
            "`_prepared` appends only the body's Content-Length to the items, and only when none is in "
            "them: a request made again of the same items finds it there and appends nothing, and the "
            "lines in front (Host, a POST's `Content-Length: 0`) go to a new list (`auto + items`); the "
            "items are read by nothing else after `written` (its key was made before), so each request "
            "made has the same headers",
        ),
    ),
)

_CONSOLE = A + "report/console.py"
CONSOLE = Package(
    "console plain",
    (
        "tests/unit/test_console_plain.py",
        "tests/unit/test_console_plain_writes.py",
        "tests/e2e/test_console_escapes.py",
        "tests/e2e/test_console_events.py",
        "tests/e2e/test_console_output.py",
        "tests/e2e/test_console_left_out.py",
        "tests/e2e/test_console_warnings.py",
        "tests/e2e/test_exec_nested.py",
        "tests/e2e/test_reports_masking.py",
        "tests/unit/test_report_outcome_line.py",
    ),
    (
        (
            _CONSOLE,
            "        if self.color or not self.masker.leaves(line):\n",
            "        if not self.masker.leaves(line):\n",
            "a line written plain with colours on: the step's and the workflow's lines lose their colours",
        ),
        (
            _CONSOLE,
            "        if self.color or not self.masker.leaves(line):\n",
            "        if self.color or not self.masker.leaves():\n",
            "a line holding a URL's password (after an `@`) written unmasked",
        ),
        (
            _CONSOLE,
            "        if self.color or not self.masker.leaves(line):\n",
            '        if self.color or "@" in line:\n',
            "a line holding a known secret written unmasked",
        ),
        (
            _CONSOLE,
            '        self.stream.write((line if line.isprintable() else escape(line)) + "\\n")',
            '        self.stream.write(line + "\\n")',
            "a plain line with a control character (a step id's ESC) written raw",
        ),
        (
            _CONSOLE,
            "        if self._flush is not None:\n            self._flush()\n        return True\n",
            "        return True\n",
            "a plain line left in the stream's buffer, not flushed as written",
        ),
        (
            _CONSOLE,
            "        if not self.color:\n            texts =",
            "        if True:\n            texts =",
            "a summary written in one block with colours on: its verdicts lose their colours",
        ),
        (
            _CONSOLE,
            "            if self.masker.leaves(block):",
            "            if self.masker.leaves():",
            "a summary holding a URL's password (a failed criterion's value) written unmasked",
        ),
        (
            _CONSOLE,
            "            if self.masker.leaves(block):",
            '            if "@" not in block:',
            "a summary holding a known secret written unmasked",
        ),
        (
            _CONSOLE,
            "                if not all(map(str.isprintable, texts)):",
            "                if not any(map(str.isprintable, texts)):",
            "a summary's control characters escaped only when no line is printable",
        ),
        (
            _CONSOLE,
            '                self.stream.write(block + "\\n")\n                if self._flush is not None:\n'
            "                    self._flush()\n",
            '                self.stream.write(block + "\\n")\n',
            "a summary written in one block left in the stream's buffer",
        ),
        (
            _CONSOLE,
            '                self.stream.write(block + "\\n")\n',
            "                self.stream.write(block)\n",
            "a summary's last line written without its line end",
        ),
        (
            _CONSOLE,
            "        mark = self.ok_mark if result.status == PASSED else self.fail_mark\n",
            "        mark = self.ok_mark\n",
            "a failed step's plain line marked as passed",
        ),
        (
            _CONSOLE,
            "reporter._plain(f\"{'  ' * event.depth}workflow {event.workflow_id}\"):",
            "reporter._plain(f\"{'  ' * (event.depth + 1)}workflow {event.workflow_id}\"):",
            "a plain workflow line indented one level deeper than its coloured one",
        ),
    ),
)

_TEXT = A + "cli/batch_text.py"
HEADER = Package(
    "row header",
    (
        "tests/unit/test_console_plain.py",
        "tests/unit/test_rows_held_text.py",
        "tests/e2e/test_cli_batch.py",
        "tests/e2e/test_rows_isolated.py",
        "tests/e2e/test_reports_masking.py",
        "tests/e2e/test_rows_header_masked.py",
    ),
    (
        (
            _TEXT,
            "    plain = masker.leaves() and not masker.named and _flat_without_at(values)",
            "    plain = not masker.named and _flat_without_at(values)",
            "a row's header shows its secret input when its values are flat",
        ),
        (
            _TEXT,
            '        if type(key) is not str or "@" in key:\n',
            "        if type(key) is not str:\n",
            "a row's key holding a URL's password shown in its header",
        ),
        (
            _TEXT,
            '            if "@" in value:\n                return False\n',
            "            pass\n",
            "a row's value holding a URL's password shown in its header",
        ),
        (
            _TEXT,
            "        elif not (kind is int or kind is float or kind is bool or value is None):\n",
            "        elif kind is dict:\n",
            "a list holding a URL's password shown in the header (only an object taken as not flat)",
        ),
        (
            _TEXT,
            "        elif not (kind is int or kind is float or kind is bool or value is None):\n",
            "        elif False:\n",
            "a nested value holding a URL's password shown in the header",
        ),
        (
            _TEXT,
            '        if type(key) is not str or "@" in key:\n',
            '        if "@" in key:\n',
            "a key that is not a str taken as flat",
            "a row's values are the JSON object of its line (`executor/rows.py`'s `_row`: "
            "`json_text.loads`, anything but an object refused) and the header reads them as read: every "
            "key of a JSON object is a str",
        ),
    ),
)

_JSON = A + "cli/indented_json.py"
INDENTED = Package(
    "indented json",
    (
        "tests/unit/test_indented_json.py",
        "tests/e2e/test_cli_batch_stream.py",
        "tests/e2e/test_cli_batch.py",
        "tests/e2e/test_rows_refused_workflow.py",
    ),
    (
        (
            _JSON,
            "        if value != value or value == _INFINITY or value == -_INFINITY:",
            "        if value == _INFINITY or value == -_INFINITY:",
            "NaN written as `nan` (no JSON), where json.dumps writes `NaN`",
        ),
        (
            _JSON,
            "        if value != value or value == _INFINITY or value == -_INFINITY:",
            "        if value != value or value == _INFINITY:",
            "-Infinity written as `-inf`",
        ),
        (
            _JSON,
            "            if not isinstance(key, str):\n                raise _NotPlain\n",
            "",
            "a key that is not a str (an int) written by `encode_basestring`: a TypeError, where json.dumps "
            'writes `"1"`',
        ),
        (
            _JSON,
            '        if depth >= _DEEPEST:\n            raise _NotPlain\n        inner = newline + "  "\n'
            '        add("[" + inner)',
            '        inner = newline + "  "\n        add("[" + inner)',
            "lists nested without a bound: a deep one recursed into here, not left to json.dumps",
        ),
        (
            _JSON,
            '        if depth >= _DEEPEST:\n            raise _NotPlain\n        inner = newline + "  "\n'
            '        separator = "{" + inner',
            '        if depth > _DEEPEST:\n            raise _NotPlain\n        inner = newline + "  "\n'
            '        separator = "{" + inner',
            "objects one level deeper written here before they are left to json.dumps",
            "the text is json.dumps's either way: the bound only says which of the two writes an object "
            "101 deep (json.dumps's recursion goes far deeper), so the entry written is the same",
        ),
        (
            _JSON,
            '        add(newline + "]")',
            '        add(inner + "]")',
            "a list's `]` indented as its items",
        ),
        (
            _JSON,
            '            separator = "," + inner',
            '            separator = ", " + inner',
            "a space after each object member's comma (json.dumps with indent writes none)",
        ),
        (
            _JSON,
            "    elif isinstance(value, (list, tuple)):",
            "    elif isinstance(value, list):",
            "a tuple left to json.dumps",
        ),
        (
            _JSON,
            '        _encode(value, "\\n" + base, parts.append, 0)',
            '        _encode(value, "\\n", parts.append, 0)',
            "the base indent left out: an entry's lines not indented under `rows`",
        ),
        (
            _JSON,
            "    if isinstance(value, str):\n",
            "    if type(value) is str:\n",
            "a str subclass left to json.dumps",
            "json.dumps writes a str subclass as its str (`encode_basestring`, as here): the text is the "
            "same whichever of the two writes it",
        ),
    ),
)

PACKAGES = [REFUSALS, HEAD, LEAN_RESPONSE, CONSOLE, HEADER, INDENTED]
