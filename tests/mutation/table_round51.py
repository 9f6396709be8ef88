"""The mutants of session 50's rows code, reviewed but not yet mutated: the connection's reused per-thread
read buffer (http/wire.py: `asyncio.BufferedProtocol`, the copy out and the wipe of each read,
`threading.local`) and the rest of its send, wait, finish and abort; the rows' texts of one pass of the
event loop written in one write (cli/batch_text.py's `HeldText`, a failed write raised in the next row's
task, `shown_row`); each row's options copied from the flags' template (cli/run.py's `RunSetup`); and the
trusted preparation (executor/preflight.py's `BatchChecks`, `trusted_inputs`, `RunFacts`, their use in
cli/batch.py and api.py).
Found in this round: a row written to the file while the rows run, its input name misspelled, stopped the
batch with a usage error naming no row (fixed: named, as a type error was); no test held that such a
row's run checks its names at all, that a trusted run of several workflows gives each only its declared
inputs and leaves a refused workflow's alone, that it reads its dependency's secret inputs before its
first step (a mutant skipping them printed a row's password in the --verbose trace), that each thread
reads into a buffer of its own, that bytes on an idle connection keep the next request off it, that an
answer sent before a big upload was read is the asyncio wire's response, that rows shown in one pass go
out in one write, or that a failed write is raised once.
Rows: (file, original snippet, mutated snippet, the bug in words[, tests][, equivalent: why])."""

from __future__ import annotations

from tests.mutation.mutants import Package

A = "arazzo_runner/"
_WIRE = A + "http/wire.py"

READ_BUFFER = Package(
    "rows read buffer",
    (
        "tests/unit/http/test_wire_fed.py",
        "tests/e2e/test_wire.py",
        "tests/e2e/test_rows_pool.py",
        "tests/unit/http/test_lean_exchange.py",
        "tests/e2e/test_wire_idle_and_upload.py",
    ),
    (
        (
            _WIRE,
            "        view[:nbytes] = _READS.zeros[:nbytes]  # no response's bytes (a token, a cookie) "
            "kept past the read\n",
            "",
            "a read's bytes (a token, a cookie) left in the reused buffer after they were copied out",
        ),
        (
            _WIRE,
            "        view[:nbytes] = _READS.zeros[:nbytes]",
            "        view[: nbytes - 1] = _READS.zeros[: nbytes - 1]",
            "the wipe of a read one byte short: its last byte stays in the reused buffer",
        ),
        (
            _WIRE,
            "        data = bytes(view[:nbytes])\n"
            "        view[:nbytes] = _READS.zeros[:nbytes]  # no response's bytes (a token, a cookie) "
            "kept past the read\n"
            "        self.data_received(data)\n",
            "        data = view[:nbytes]\n        self.data_received(data)\n"
            "        view[:nbytes] = _READS.zeros[:nbytes]\n",
            "a read fed as a view of the reused buffer, not a copy (wiped after): what the parser keeps of "
            "it is overwritten by the next read",
        ),
        (
            _WIRE,
            "_READS = threading.local()",
            '_READS = type("Reads", (), {})()',
            "one read buffer for the process, not one a thread: two event loops in two threads (a server's "
            "tool calls) read into the same bytes",
        ),
        (
            _WIRE,
            "        _READS.zeros = memoryview(bytes(READ_SIZE))",
            "        _READS.zeros = memoryview(bytes(HIGH_WATER))",
            "the wipe's zeros shorter than a read: a read past 64 KiB fails in the protocol's callback",
        ),
        (
            _WIRE,
            "        if not self._in_exchange or self._complete:  # bytes nobody asked for",
            "        if not self._in_exchange:  # bytes nobody asked for",
            "bytes past the response fed to the parser as though they were part of it",
            "llhttp begins a new message at the first byte past a complete response, whatever it is "
            "(`on_message_begin`, before its error for `junk`: measured), and `on_message_begin` marks the "
            "bytes extra once the response is complete; a HEAD answer's body goes to `on_body`, which "
            "marks them too; so the connection is never reused either way, and nothing fed past the end "
            "reaches the response (the parser stops at `_PastTheResponse`)",
        ),
        (
            _WIRE,
            "            if not self._in_exchange:\n                self.abort()\n",
            "",
            "bytes arriving on an idle connection leave it open (marked, not closed)",
        ),
        (
            _WIRE,
            "            if not self.lost:\n                self.transport.resume_reading()\n",
            "            pass\n",
            "a body closed unread with reading paused leaves the connection paused for its next exchange",
        ),
        (
            _WIRE,
            "        except httpcore.WriteError:\n            pass  # as httpcore",
            "        except httpcore.WriteError:\n            raise  # as httpcore",
            "a server that closes while the body is sent, having answered (a 413), raises the write's "
            "error, not its answer",
        ),
        (
            _WIRE,
            "        while not self._head_ready():",
            "        if not self._head_ready():",
            "a response head in several reads handed out after the first",
        ),
        (
            _WIRE,
            "            self._fail(error)\n        self._wake()\n",
            "            self._fail(error)\n",
            "the pool closing under an exchange does not wake its reader: it waits for its read timeout",
            "`_fail` aborts the transport, and asyncio calls `connection_lost` (which wakes the reader) in "
            "the loop's next pass: the reader raises the pool's error one pass later; an exchange whose "
            "error was set before was woken by whatever set it (`data_received`, `connection_lost`)",
        ),
        (
            _WIRE,
            "        if waiter is not None and not waiter.done():",
            "        if waiter is not None:",
            "two wakes in one pass of the loop (bytes, then the close) set a done waiter's result again",
        ),
        (
            _WIRE,
            "        self.lost = True\n        if self.transport is not None:\n"
            "            self.transport.abort()",
            "        if self.transport is not None:\n            self.transport.abort()",
            "an aborted connection not marked lost until the loop reports its close",
        ),
    ),
)

_TEXT = A + "cli/batch_text.py"
_BATCH = A + "cli/batch.py"

HELD_TEXT = Package(
    "rows held text",
    (
        "tests/unit/test_rows_held_text.py",
        "tests/e2e/test_rows_stdout_gone.py",
        "tests/e2e/test_cli_batch.py",
        "tests/e2e/test_rows_isolated.py",
        "tests/e2e/test_cli_batch_stream.py::test_concurrent_text_rows_mask_their_secrets_in_their_headers",
        "tests/e2e/test_interrupts.py::test_rows_keep_what_ran_and_leave_out_those_not_started",
    ),
    (
        (
            _TEXT,
            "        if self.error is not None:\n            self.told = True\n"
            "            raise self.error\n",
            "",
            "a write failed in the loop's callback is not raised in the next row's task: the batch goes on "
            "sending every row",
        ),
        (
            _TEXT,
            "        if self.error is not None:\n            self.told = True\n",
            "        if self.error is not None:\n",
            "a failed write raised in a row's task is raised again by the rows' loop's last write",
        ),
        (
            _TEXT,
            "        if self.texts and out is not self.out:  # (another stream: what is held goes first)\n"
            "            self.write()\n",
            "",
            "texts held for one stream written to another that a later row writes to",
        ),
        (
            _TEXT,
            "        except Exception as exc:  # asyncio's handler would print it",
            "        except ValueError as exc:  # asyncio's handler would print it",
            "a write failing with an OSError (a closed pipe, a full disk) left to asyncio's handler",
        ),
        (
            _TEXT,
            "        if self.error is not None and not self.told:",
            "        if self.error is not None:",
            "the last write raises a failure a row's task already raised",
        ),
        (
            _TEXT,
            "            texts, self.texts = self.texts, []\n",
            "            texts = self.texts\n",
            "the texts written are kept held: written again with the next pass's",
        ),
        (
            _TEXT,
            '            self.out.write("".join(texts))\n            self.out.flush()\n',
            '            self.out.write("".join(texts))\n',
            "the texts of a pass written but not flushed: they wait in stdout's buffer",
        ),
        (
            _TEXT,
            "        if held is None:\n            out.write(text)",
            "        if held is None or True:\n            out.write(text)",
            "each row's text written as its row ends, a write (a system call) a row, not one a pass",
        ),
        (
            _BATCH,
            "        finally:  # the rows shown out before anything else is printed\n"
            "            pending.write()\n",
            "",
            "the texts of the last pass not written when the rows' loop ends",
            "`asyncio.run` runs the loop again as it closes (`shutdown_asyncgens`, the default executor's "
            "shutdown, after a Ctrl-C the tasks' cancellation too), which runs the pending callback: the "
            "last pass's texts go out before `asyncio.run` returns, in their order, before the rows "
            "interrupted and the count line; should that write fail, the count line written next to the "
            "same stdout (`N of M rows passed`, flushed) fails the same way",
        ),
    ),
)

_RUN = A + "cli/run.py"
_ROWS_E2E = (
    "tests/e2e/test_rows_isolated.py",
    "tests/e2e/test_rows_checked_once.py",
    "tests/e2e/test_rows_shared_work.py",
    "tests/e2e/test_cli_batch.py",
)

TEMPLATE = Package(
    "rows options template",
    _ROWS_E2E,
    (
        (
            _RUN,
            '        values["secrets"] = set(fields["secrets"])\n',
            '        values["secrets"] = fields["secrets"]\n',
            "every row's options share one set of secrets: a row's secret masked in every other row",
        ),
        (
            _RUN,
            "        values.update(template.__dict__)\n"
            '        values["secrets"] = set(fields["secrets"])\n'
            '        values["auth"] = dict(fields["auth"])\n'
            '        values["server_variables"] = dict(fields["server_variables"])\n',
            '        values["secrets"] = set(fields["secrets"])\n'
            '        values["auth"] = dict(fields["auth"])\n'
            '        values["server_variables"] = dict(fields["server_variables"])\n'
            "        values.update(template.__dict__)\n",
            "the template copied over the row's own copies: every row shares the template's secrets",
        ),
        (
            _RUN,
            '        values["auth"] = dict(fields["auth"])\n',
            '        values["auth"] = fields["auth"]\n',
            "every row's options share one credentials mapping",
            "nothing writes to a run's `auth` once its options are made: `Credentials` copies it "
            "(`dict(auth)`), the HTTP session and the brokers only read it, and the rows' journal and "
            "reporters set other fields; one mapping shared by every row is never told apart",
        ),
        (
            _RUN,
            '        self._checking.secrets = set(self._fields["secrets"] if self._fields else ())\n',
            "",
            "the check pass's options keep every row's secrets: a row's error masked with earlier rows'",
        ),
        (
            _RUN,
            '        self._checking.secrets = set(self._fields["secrets"] if self._fields else ())\n',
            '        self._checking.secrets = self._fields["secrets"] if self._fields else set()\n',
            "a row's check adds its secrets to the flags' own set: every later row's run masks them",
        ),
    ),
)

_PRE = A + "executor/preflight.py"

TRUSTED = Package(
    "rows trusted preparation",
    (*_ROWS_E2E, "tests/e2e/test_cli_input_names.py", "tests/e2e/test_rows_trusted_runs.py"),
    (
        (
            _PRE,
            "        return self.found.get(_facts_key(workspace, workflows)) if self.trusted else None",
            "        return self.found.get(_facts_key(workspace, workflows))",
            "a run of a batch no longer trusted (its file written to) reuses the first run's checks",
        ),
        (
            _PRE,
            "        checking = [w for w in selected if w.workflow_id not in stopped or "
            "stopped[w.workflow_id] is not None]\n",
            "        checking = list(selected)\n",
            "the inputs of a workflow the admission refused validated in the trusted runs",
        ),
        (
            _PRE,
            "        deps = [w for w in checking if w.workflow_id not in stopped]\n",
            "        deps = checking\n",
            "the dependencies' inputs of a workflow the walk refused validated in the trusted runs",
            "no run that keeps facts has a workflow the walk refused: the check pass walks every selected "
            "workflow with `refused=None` (`batch._check`), the same workflows with the same options, so a "
            "refusal there stops the batch before any row runs; `stopped` then holds only the admission's "
            "refusals, which `checking` leaves out already, and `deps` equals `checking`",
        ),
        (
            _PRE,
            "        several = len(facts.selected) > 1\n",
            "        several = False\n",
            "with several workflows selected, each given every input in a trusted run, not its own",
        ),
        (
            _PRE,
            "            if workflow.depends_on:\n"
            "                _check_dependency_inputs(workspace, workflow, given, checked, secrets, self)\n",
            "            pass\n",
            "a trusted run does not read its dependencies' inputs (their defaults, their secrets)",
        ),
        (
            _PRE,
            "        return set(self.bases), set(self.kinds), dict(self.refused)",
            "        return self.bases, self.kinds, self.refused",
            "the trusted runs share one set of bases, kinds and refusals",
            "nothing writes to a prepared run's bases, kinds or refusals after `_prepare` (api.py reads "
            "them: `blocking_allowed`, `tracker_for`, `_run_all`'s `refused.get`, the https check), and the "
            "trusted path of `_prepare` adds to none of them: one shared set is never told apart",
        ),
        (
            _PRE,
            "    if checks is None or not checks.trusted:  # (a trusted batch checked these names on "
            "every row)",
            "    if checks is None:  # (a trusted batch checked these names on every row)",
            "a batch's run never checks its inputs' names: a row written after the check pass with a "
            "misspelled name runs",
        ),
        (
            _PRE,
            "    checked = checks.trusted and key in checks.validated",
            "    checked = key in checks.validated",
            "a batch no longer trusted skips the schema check of its rows' inputs",
        ),
        (
            _BATCH,
            "checks.trusted = checked is not None and source.opened == checked",
            "checks.trusted = checked is not None",
            "rows replaced between the check pass and the runs trusted as checked",
        ),
        (
            _BATCH,
            "                if checks.trusted and not source.unchanged():",
            "                if False:",
            "rows written to the file while the rows run trusted as checked",
        ),
        (
            A + "api.py",
            "*facts.copies(), checks.facts)",
            "*facts.copies())",
            "a trusted run finds again what the batch's runs share (an operation's facts, secret inputs)",
        ),
        (
            A + "api.py",
            "        checked = checks.trusted_inputs(workspace, facts, given, opts.secrets)",
            "        checked = checks.trusted_inputs(workspace, facts, given, set())",
            "a trusted run's secret inputs not added to its secrets: not masked",
        ),
    ),
)

PACKAGES = [READ_BUFFER, HELD_TEXT, TEMPLATE, TRUSTED]
