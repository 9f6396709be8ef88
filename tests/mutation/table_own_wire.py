"""The mutants of the engine's own HTTP/1.1 connections (issue 36 item 5, session 48): the response reader
shared by both pools (http/wire_read.py: head bounds, a repeated Content-Length, Content-Length beside
chunked framing, reuse), the blocking connection and pool (http/blocking_wire.py: the time left of a run's
limit given to each connect, handshake, read and send, the limit marked `fired`, TLS, the one retry), and
what they share of lean_pool.py and bounded.py.
Rows: (file, original snippet, mutated snippet, the bug in words[, tests][, equivalent: why])."""

from __future__ import annotations

from tests.mutation.mutants import Package

A = "arazzo_runner/"
_TESTS = (
    "tests/e2e/test_wire.py",
    "tests/e2e/test_blocking_wire.py",
    "tests/unit/http/test_wire_fed.py",
)

WIRE_READ = Package(
    "http wire_read",
    _TESTS,
    (
        (
            A + "http/wire_read.py",
            "MAX_HEAD = 100 * 1024",
            "MAX_HEAD = 16 * 1024",
            "h11's own 16 KiB head bound, not httpcore's 100 KiB: a 40 KiB head refused",
        ),
        (
            A + "http/wire_read.py",
            "if not self._head_done and self._head_bytes > MAX_HEAD and self._error is None:",
            "if not self._head_done and self._head_bytes >= MAX_HEAD and self._error is None:",
            "a head of exactly MAX_HEAD bytes, not yet ended, refused",
        ),
        (
            A + "http/wire_read.py",
            "self._stalled = 0 if self._moved else self._stalled + len(data)",
            "self._stalled += len(data)",
            "a chunked body's own bytes counted as framing without end: a chunked body past 100 KiB refused",
        ),
        (
            A + "http/wire_read.py",
            "lines = [m for m in _LENGTH_LINE.finditer(head, start) if head[m.start() - 1] == 10]",
            "lines = list(_LENGTH_LINE.finditer(head, start))",
            "an `X-Content-Length` field taken for a Content-Length when a repeated one is merged",
        ),
        (
            A + "http/wire_read.py",
            'values = {value.strip() for m in lines for value in m.group(1).split(b",")}',
            'values = {lines[0].group(1).split(b",")[0].strip()} if lines else set()',
            "a repeated Content-Length with differing values accepted, the first taken",
        ),
        (
            A + "http/wire_read.py",
            "cut = end.start() + (2 if data[end.start()] == 13 else 1)",
            "cut = end.start()",
            "a repeated Content-Length as the head's last field not merged (refused)",
        ),
        (
            A + "http/wire_read.py",
            "self._server_keep_alive, self._length = False, None",
            "self._length = None",
            "a response with both Content-Length and chunked framing leaves its connection reused",
        ),
        (
            A + "http/wire_read.py",
            "        if not self._head_done:\n            self.failed_unanswered = self._received == 0\n",
            "        if not self._head_done:\n            self.failed_unanswered = True\n",
            "a GET whose answer was cut short in its status line sent again",
        ),
        (
            A + "http/wire_read.py",
            "return (self._complete and not self._extra and not self.lost",
            "return (not self._extra and not self.lost",
            "a connection reused after a body closed part-read: the next request reads the rest as its "
            "answer",
        ),
        (
            A + "http/wire_read.py",
            "if 100 <= status < 200:",
            "if 100 < status < 200:",
            "a 100 Continue taken for the final answer",
        ),
    ),
)

BLOCKING_WIRE = Package(
    "http blocking_wire",
    (*_TESTS, "tests/unit/http/test_run_client.py"),
    (
        (
            A + "http/blocking_wire.py",
            "sock = ssl_context.wrap_socket(sock, server_hostname=name)",
            "sock = ssl_context.wrap_socket(sock)",
            "TLS without server_hostname: no SNI, no host name checked",
        ),
        (
            A + "http/blocking_wire.py",
            "            except TimeoutError as exc:\n                sock.close()\n"
            "                if limit is not None:\n                    limit.fired = True\n",
            "            except TimeoutError as exc:\n                sock.close()\n",
            "a TLS handshake cut by the run's limit does not mark it fired (a connect timeout reported)",
        ),
        (
            A + "http/blocking_wire.py",
            "            if limit is not None:\n                limit.fired = True\n"
            "            raise httpcore.ReadTimeout(exc) from exc",
            "            raise httpcore.ReadTimeout(exc) from exc",
            "a read cut by the run's limit does not mark it fired (a read timeout reported)",
        ),
        (
            A + "http/blocking_wire.py",
            "            self._socket.settimeout(left)\n",
            "            self._socket.settimeout(timeout)\n",
            "a read within a run's limit waits the client's own timeout, not the time left",
        ),
        (
            A + "http/blocking_wire.py",
            "            sock.settimeout(left)\n            sock.connect(address)",
            "            sock.settimeout(timeout)\n            sock.connect(address)",
            "a connect within a run's limit waits the client's own timeout, not the time left",
        ),
        (
            A + "http/blocking_wire.py",
            "            if isinstance(exc, TimeoutError) and limit is not None:\n"
            "                limit.fired = True\n",
            "            if isinstance(exc, TimeoutError) and limit is not None:\n",
            "a TCP connect cut by the run's limit does not mark it fired",
        ),
        (
            A + "http/blocking_wire.py",
            "    if isinstance(first, TimeoutError):\n"
            "        raise httpcore.ConnectTimeout(first) from first\n",
            "",
            "a connect past the client's own timeout is a ConnectError, not a ConnectTimeout",
        ),
        (
            A + "http/bounded.py",
            "    while view:\n        left, limit = time_left(timeout, httpcore.WriteTimeout)\n",
            "    left, limit = time_left(timeout, httpcore.WriteTimeout)\n    while view:\n",
            "each send of an upload given the time left at its start, not what is left at the send",
        ),
        (
            A + "http/bounded.py",
            "            if limit is not None:\n                limit.fired = True\n"
            "            raise httpcore.WriteTimeout(exc) from exc",
            "            raise httpcore.WriteTimeout(exc) from exc",
            "a send cut by the run's limit does not mark it fired",
        ),
        (
            A + "http/blocking_wire.py",
            "                wire = None\n",
            "",
            "the retry sent again over the connection that failed, not a new one",
        ),
        (
            A + "http/blocking_wire.py",
            "                self._drop(wire)\n                if attempt == 2",
            "                if attempt == 2",
            "a connection whose exchange failed is left open (and counted in flight)",
        ),
        (
            A + "http/blocking_wire.py",
            "or not retryable(wire, request):",
            "or not wire.exchanges:",
            "the retry rule loosened: any request failing on a reused connection sent again (a POST twice)",
        ),
        (
            A + "http/lean_pool.py",
            "    return isinstance(request.stream, ByteStream)",
            "    return True",
            "a GET with a streamed body (read once) sent again",
        ),
        (
            A + "http/lean_pool.py",
            'return scheme, url.host, url.port or (443 if scheme == b"https" else 80)',
            "return scheme, url.host, url.port or 80",
            "an https URL without a port connected on port 80",
        ),
        (
            A + "http/lean_pool.py",
            '    if closed:\n        raise RuntimeError("the connection pool is closed")\n',
            "",
            "a closed pool still takes requests (and keeps their connections open)",
        ),
        (
            A + "http/blocking_wire.py",
            "            try:\n                chunk = self._wire.next_chunk(self._timeout)\n"
            "            finally:\n",
            "            if True:\n                chunk = self._wire.next_chunk(self._timeout)\n",
            "a body whose read failed (a timeout) leaves its connection open, never given back",
            "httpx closes a response whenever reading its body fails (`Client.send` closes it on any "
            "exception, `Client.stream` at its block's end), and that close gives the connection back, "
            "closed since its body is not whole: only a caller iterating the pool's stream without httpx "
            "would see the difference, and the engine has none",
        ),
        (
            A + "http/bounded.py",
            "            continue  # the run's own pool (blocking_wire.BlockingPool) gives each operation",
            "            pass  # the run's own pool (blocking_wire.BlockingPool) gives each operation",
            "the blocking run's own pool taken for httpcore's: every blocking client refused as unbounded",
        ),
        (
            A + "http/blocking_wire.py",
            "with contextlib.suppress(httpcore.WriteError):",
            "with contextlib.suppress():",
            "a server answering (a 413) and closing before the body was sent: the send's error shown, "
            "not its answer",
        ),
        (
            A + "http/bounded.py",
            "        except OSError as exc:\n            raise httpcore.WriteError(exc) from exc\n",
            "",
            "a send's reset or broken pipe escapes as the OS error, not httpcore's WriteError",
        ),
    ),
)

PACKAGES = [WIRE_READ, BLOCKING_WIRE]
