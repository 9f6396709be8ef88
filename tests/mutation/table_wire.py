"""The mutants of the newest code on the wire and in the editor (issues 36-42): HAR replay, request
rates, body decoding, the rule for JSON from outside, the LSP server.
Rows: (file, original snippet, mutated snippet, the bug in words[, tests][, equivalent: why])."""

from __future__ import annotations

from tests.mutation.mutants import Package

A = "arazzo_runner/"

HAR_REPLAY = Package(
    "http har replay",
    ("tests/unit/http/test_har_replay.py", "tests/e2e/test_http_replay.py"),
    (
        (
            A + "http/har_replay.py",
            "entry = next((e for e in matching if e.number not in self._used), matching[-1])",
            "entry = matching[0]",
            "a request made twice answered twice by the first recorded answer",
        ),
        (
            A + "http/har_replay.py",
            'port = parts.port or {"http": 80, "https": 443}.get(scheme)',
            "port = parts.port",
            "`http://h` and `http://h:80` are different origins",
        ),
        (
            A + "http/har_replay.py",
            "    if len(now) < len(first) + len(last) or not now.startswith(first)",
            "    if not now.startswith(first)",
            "a masked `ab***ba` matches `aba` (start and end overlapping)",
        ),
        (
            A + "http/har_replay.py",
            "        at = found + len(piece)\n",
            "        at = found\n",
            "two masked pieces match one occurrence of the text",
        ),
        (
            A + "http/har_replay.py",
            "    if old == MASK:\n        return None\n",
            "",
            'a recorded `"***"` (a masked number) no longer matches the value sent',
        ),
        (
            A + "http/har_replay.py",
            "return sorted(parse_qsl(query, keep_blank_values=True))",
            "return sorted(parse_qsl(query))",
            "`?a=` and no `a` match",
        ),
    ),
)

RATE = Package(
    "http rate",
    ("tests/unit/http/test_rate.py",),
    (
        (
            A + "http/rate.py",
            "start = max(now, self._next.get(host, now))",
            "start = self._next.get(host, now)",
            "after an idle spell, requests go at once in a burst (the past banked)",
        ),
        (
            A + "http/rate.py",
            "self._next[host] = start + 1.0 / self.rates[host]",
            "self._next[host] = now + 1.0 / self.rates[host]",
            "the next slot counted from now, not from the reserved start",
        ),
        (
            A + "http/rate.py",
            "    if netloc in rates:\n        return netloc\n",
            "",
            "`--rate host:8080=1/s` not applied",
        ),
        (
            A + "http/rate.py",
            "return host.strip().lower(), count / per[unit.strip().lower()]",
            "return host.strip().lower(), count * per[unit.strip().lower()]",
            "`10/min` read as 600 a second",
        ),
        (
            A + "http/rate.py",
            'if not count > 0 or count == float("inf"):',
            'if count < 0 or count == float("inf"):',
            "`--rate h=0/s` accepted (a division by zero at the first request)",
        ),
        (
            A + "http/rate.py",
            'netloc, hostname = parts.netloc.rpartition("@")[2].lower(),',
            "netloc, hostname = parts.netloc.lower(),",
            "a URL with userinfo escapes its host's rate",
        ),
    ),
)

DECODING = Package(
    "bounds decoding",
    ("tests/unit/test_decoding.py",),
    (
        (
            A + "bounds/decoding.py",
            "        for name in reversed(known):  # the last coding applied is the first undone",
            "        for name in known:  # the last coding applied is the first undone",
            "`gzip, br` undone in the wrong order",
        ),
        (
            A + "bounds/decoding.py",
            "        if len(known) > MAX_CODINGS:",
            "        if len(known) >= MAX_CODINGS:",
            "four codings (allowed) refused",
        ),
        (
            A + "bounds/decoding.py",
            "            if self.read[index] > self.limit:",
            "            if self.read[index] >= self.limit:",
            "a body of exactly the limit refused",
        ),
        (
            A + "bounds/decoding.py",
            'names = (value.strip().lower() for value in content_encoding.split(","))',
            'names = (value.strip() for value in content_encoding.split(","))',
            "`Content-Encoding: GZIP` not undone",
        ),
        (
            A + "bounds/decoding.py",
            "            if not data and len(out) < PIECE:  # input used up",
            "            if not data:  # input used up",
            "output pending in the window after a full piece is lost",
            "zlib stops taking input once its output piece is full, so input used up with a "
            "full piece leaves nothing it will not hand out at the next call; measured on 16 MiB of zeros "
            "and of text, gzip and deflate, sync-flushed or whole, fed 1 B to all at once: every byte "
            "delivered by the same calls, pieces within PIECE",
        ),
        (
            A + "bounds/decoding.py",
            "if self.wbits != _GZIP_WBITS or not _GZIP_MAGIC.startswith(data[:2]):",
            "if self.wbits != _GZIP_WBITS:",
            "bytes after the end of a gzip body read as a next member",
        ),
    ),
)

JSON_TEXT = Package(
    "bounds json_text",
    ("tests/unit/http/test_json_text.py",),
    (
        (
            A + "bounds/json_text.py",
            'if data.count(b"[") + data.count(b"{") <= limit:',
            'if data.count(b"[") + data.count(b"{") < limit:',
            "a text with exactly `limit` openers scanned",
            "with `limit` openers nothing nests deeper than `limit`; the scan says so, only slower",
        ),
        (
            A + "bounds/json_text.py",
            """data = data.replace(b"\\\\\\\\", b"").replace(b'\\\\"', b"")""",
            """data = data.replace(b'\\\\"', b"").replace(b"\\\\\\\\", b"")""",
            'a string ending in an escaped backslash (`"a\\\\"`) read as still open',
        ),
        (
            A + "bounds/json_text.py",
            '_SURROGATE_ESCAPE = re.compile(rb"\\\\u[dD][89a-fA-F]")',
            '_SURROGATE_ESCAPE = re.compile(rb"\\\\u[dD][89abAB]")',
            "a lone low surrogate escape (`\\udc00`) in bytes kept",
        ),
        (
            A + "bounds/json_text.py",
            "node.update((unpaired(key), item) for key, item in items)",
            "node.update(items)",
            "a lone surrogate in a key kept",
        ),
        (
            A + "bounds/json_text.py",
            'if b"(" * (limit + 1 - passes) in shape:',
            'if b"(" * (limit - passes) in shape:',
            "a text exactly `limit` deep refused",
        ),
        (
            A + "bounds/json_text.py",
            "shape, before, passes = leaves_gone, len(shape), passes + 1",
            "shape, before, passes = leaves_gone, len(shape), passes + 2",
            "each leaf pass counted as two levels: a text half the bound deep refused",
        ),
    ),
)

_LSP = (
    "tests/unit/test_lsp_text.py",
    "tests/e2e/lsp/test_navigation.py",
    "tests/e2e/lsp/test_diagnostics.py",
)
LSP = Package(
    "lsp",
    _LSP,
    (
        (
            A + "lsp/text.py",
            "            units += 2 if ord(char) > 0xFFFF else 1",
            "            units += 1",
            "a position after an emoji off by one (UTF-16 units)",
        ),
        (
            A + "lsp/text.py",
            "    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)",
            "    return len(text)",
            "a column after an emoji counted in characters, not UTF-16 units",
        ),
        (
            A + "lsp/text.py",
            "return min(self.starts[index] + max(column - 1, 0), len(self.text))",
            "return min(self.starts[index] + max(column, 0), len(self.text))",
            "a finding's range starts one character late",
        ),
        (
            A + "lsp/diagnostics.py",
            'types.DiagnosticSeverity.Error if finding.severity == "error" else',
            'types.DiagnosticSeverity.Error if finding.severity == "ERROR" else',
            "errors shown as warnings",
        ),
        (
            A + "lsp/diagnostics.py",
            "return lines.range(start, max(end, start + 1) if start < len(analysis.text) else start)",
            "return lines.range(start, end)",
            "a finding at a separator gets an empty range",
        ),
    ),
)

PACKAGES = [HAR_REPLAY, RATE, DECODING, JSON_TEXT, LSP]
