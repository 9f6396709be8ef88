"""The mutants of session 49's new code: the contract checks' jsonschema-free subset
(http/contract_subset.py), documents and facts read back from the parsed-source store by content hash
(sources/stored_load.py, sources/stored.py's `Facts`, validate/stored_document.py), the jiter path of the
JSON rule (bounds/json_text.py), and the connections' lookup within the time left (http/addresses.py,
blocking_wire.py's `_lookup`) and head reading (wire_read.py: Transfer-Encoding refused, a repeated
Content-Length split over reads merged).
Rows: (file, original snippet, mutated snippet, the bug in words[, tests][, equivalent: why])."""

from __future__ import annotations

from tests.mutation.mutants import Package

A = "arazzo_runner/"
_SUBSET = A + "http/contract_subset.py"

CONTRACT_SUBSET = Package(
    "contract subset",
    ("tests/unit/test_simple_schema_responses.py",),
    (
        (
            _SUBSET,
            "    for key, expected in schema.items():\n        failed = _keyword(",
            "    for key, expected in sorted(schema.items()):\n        failed = _keyword(",
            "keywords checked in name order, not the schema's: mismatches at one place in another order",
        ),
        (
            _SUBSET,
            "        if abs(value) > _LIMIT:\n            raise _Outside",
            "        if abs(value) > 2**63:\n            raise _Outside",
            "an integer past 2**53 (up to int64) decided by the subset, where the validators read it apart",
            (
                "tests/unit/test_simple_schema_responses.py::test_values_the_validators_may_read_apart_go_the_general_way",
            ),
        ),
        (
            _SUBSET,
            "            if v30:\n                raise _Outside  # Draft 4: jsonschema says no, "
            "jsonschema-rs may say yes\n            return True",
            "            return True",
            "an integral float (1.0) taken for an integer in Draft 4 too, not left to the general path",
            (
                "tests/unit/test_simple_schema_responses.py::test_values_the_validators_may_read_apart_go_the_general_way",
            ),
        ),
        (
            _SUBSET,
            "    if len(found) >= limit:",
            "    if len(found) > limit:",
            "exactly `limit` mismatches kept by the subset, where the general path's order picks them",
            (
                "tests/unit/test_simple_schema_responses.py::test_values_the_validators_may_read_apart_go_the_general_way",
            ),
        ),
        (
            _SUBSET,
            "    if budget[0] < 0:\n        raise _Outside",
            "    if budget[0] < 0:\n        return",
            "a body past the node budget checked only up to it: later mismatches silently lost",
            (
                "tests/unit/test_simple_schema_responses.py::test_a_body_past_the_subsets_node_budget_is_checked_whole_by_the_general_path",
            ),
        ),
        (
            _SUBSET,
            "ok = isinstance(value, bool) and bound in schema if v30 else _number(value)",
            "ok = isinstance(value, bool) if v30 else _number(value)",
            "Draft 4's boolean exclusiveMinimum admitted without its minimum (the meta-schema refuses it)",
            (
                "tests/unit/test_simple_schema_responses.py::test_schemas_outside_the_subset_or_ill_formed_go_the_general_way",
            ),
        ),
        (
            _SUBSET,
            '        if schema != {"not": {}, WRITE_ONLY: True}:\n            raise _Outside\n',
            "",
            "any `not` schema admitted, and read as a writeOnly mark: every value a mismatch",
            (
                "tests/unit/test_simple_schema_responses.py::test_a_not_schema_other_than_the_write_only_mark_goes_the_general_way",
            ),
        ),
        (
            _SUBSET,
            "        strict = exclusive or key in _EXCLUSIVE",
            "        strict = exclusive",
            "2020-12's numeric exclusiveMinimum/Maximum checked as an inclusive bound",
        ),
    ),
)

_STORED_TESTS = ("tests/unit/sources/test_sources_stored.py", "tests/e2e/test_validate_stored_document.py")

STORED = Package(
    "stored documents",
    _STORED_TESTS,
    (
        (
            A + "sources/stored.py",
            "if header != (_FORMAT, kind, _loader_stamp(), _digest(content)):",
            "if header[:3] != (_FORMAT, kind, _loader_stamp()):",
            "an entry used whatever bytes it was written for: an edited document read as its old data",
        ),
        (
            A + "sources/stored.py",
            "if isinstance(found, tuple) and len(found) == 2 and found[0] == stamp:",
            "if isinstance(found, tuple) and len(found) == 2:",
            "a fact kept under another engine's stamp read back (a stale verdict after an upgrade)",
        ),
        (
            A + "sources/stored.py",
            "        if value is not Facts.UNKEPT:\n",
            "        if True:\n",
            "an answer meant to be left unkept (None: problems found) kept, and read back next time",
        ),
        (
            A + "validate/stored_document.py",
            "return None if problems else True  # problems: nothing kept",
            "return not problems  # problems: nothing kept",
            "a verdict with problems kept (False): the next validate reads it back and reports none",
        ),
        (
            A + "sources/stored_load.py",
            "loaded = LoadedDocument(data=data, file=file, positions=index, format=kind)",
            "loaded = LoadedDocument(data=data, file=file, positions=None, format=kind)",
            "a document read back from the store has no positions: findings not located",
        ),
        (
            A + "validate/stored_document.py",
            "    stamps = [_validator_key()]\n",
            "    stamps = []\n",
            "the engine's own files left out of the verdict's stamp: an engine change reads an old verdict",
        ),
        (
            A + "sources/stored_load.py",
            "return loaded, Facts(store, location, raw, floor)",
            "return loaded, Facts(store, location, raw)",
            "a small document's facts under the store's usual floor: its verdict never kept",
        ),
    ),
)

_JSON_TESTS = ("tests/unit/http/test_json_fast.py",)

JSON_FAST = Package(
    "json_text jiter",
    _JSON_TESTS,
    (
        (
            A + "bounds/json_text.py",
            "if parse_constant is None and len(text) >= FAST_FROM and isinstance(text, bytes):",
            "if len(text) >= FAST_FROM and isinstance(text, bytes):",
            "a big text read by jiter though the caller refuses NaN (`parse_constant`): NaN accepted",
        ),
        (
            A + "bounds/json_text.py",
            "if parse_constant is None and len(text) >= FAST_FROM and isinstance(text, bytes):",
            "if parse_constant is None and len(text) >= FAST_FROM:",
            "a big str (not bytes) sent to jiter too",
        ),
        (
            A + "bounds/json_text.py",
            "    if _SURROGATE_ESCAPE.search(text):\n        return _REFUSED\n    if 0 < _int_digits()",
            "    if 0 < _int_digits()",
            "a big text with a surrogate escape read by jiter, not by the rule that makes lone ones U+FFFD",
        ),
        (
            A + "bounds/json_text.py",
            "catch_duplicate_keys=False,",
            "catch_duplicate_keys=True,",
            "jiter asked to refuse duplicate keys",
        ),
        (
            A + "bounds/json_text.py",
            'float_mode="float",',
            'float_mode="lossless-float",',
            "jiter's floats kept lossless (its own LosslessFloat type, not float)",
        ),
    ),
)

_LOOKUP_TESTS = ("tests/e2e/test_blocking_wire.py",)
_HEAD_TESTS = ("tests/unit/http/test_wire_fed.py",)

LOOKUP_AND_HEAD = Package(
    "lookup and head",
    _LOOKUP_TESTS,
    (
        (
            A + "http/addresses.py",
            "return socket.getaddrinfo(name, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)",
            "return socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)",
            "a host name starting with a digit (`1api.example`) looked up in place, without the time bound",
        ),
        (
            A + "http/blocking_wire.py",
            "        looking.join(left)\n",
            "        looking.join()\n",
            "a host name's lookup waited for without bound",
        ),
        (
            A + "http/blocking_wire.py",
            "        if isinstance(answer[0], OSError):\n            raise answer[0]\n",
            "",
            "a failed lookup on its thread taken for its addresses",
        ),
        (
            A + "http/wire_read.py",
            "                codings.append(value.lower())",
            "                codings.append(value)",
            "`Transfer-Encoding: Chunked` (any case) refused as another coding",
            ("tests/e2e/test_wire.py::test_a_transfer_encoding_chunked_in_any_case_with_blanks_is_chunked",),
        ),
        (
            A + "http/wire_read.py",
            '    return "Content-Length" in str(error)',
            '    return "Duplicate Content-Length" in str(error)',
            "a Content-Length list (`2, 2`) split over reads not awaited whole (refused)",
            _HEAD_TESTS,
        ),
        (
            A + "http/wire_read.py",
            "        self._received = self._head_bytes = 0\n",
            "        self._received = 0\n",
            "a merged head's bytes counted twice against the head bound",
            _HEAD_TESTS,
            "the merged bytes hold the whole final head (`_final_head` found its end before merging): once "
            "they are fed the head is done, or the exchange has failed, and the bound is only checked while "
            "neither is so: the count past it is never read",
        ),
    ),
)

PACKAGES = [CONTRACT_SUBSET, STORED, JSON_FAST, LOOKUP_AND_HEAD]
