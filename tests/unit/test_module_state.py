"""No module keeps per-run data: every module-level container (dict, list, set, deque, weak mapping,
`lru_cache`/`cache` wrapper, ...) in the package is either a constant table or a documented cache of
immutable parse results. A new one fails this test until it is listed here with its reason.

(tests/e2e/test_concurrency.py also checks at run time that 200 concurrent runs leave every listed
constant unchanged.)"""

from __future__ import annotations

import collections
import functools
import importlib
import threading
import weakref
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from tests.modules import module_names

MUTABLE = (
    dict,
    list,
    set,
    bytearray,
    collections.deque,
    weakref.WeakKeyDictionary,
    weakref.WeakValueDictionary,
    threading.local,
)
CACHE_WRAPPER = type(functools.lru_cache(maxsize=1)(lambda: None))

# Caches: keyed by text, holding immutable results shared safely by every run (and every thread).
CACHES = {
    "arazzo_runner.http.wire._READS": (
        "each thread's read buffer of the asyncio connections (256 KiB, and as many zeros): every read is "
        "copied out and wiped at once (`Wire.buffer_updated`), so no response's bytes outlive their read"
    ),
    "arazzo_runner.http.fast_request._ORIGINS": (
        "`scheme://authority` -> httpx's parse of it (an immutable ParseResult) or None; at most 256, "
        "cleared when full"
    ),
    "arazzo_runner.http.transport._httpx": "() -> the httpx module",
    "arazzo_runner.http.wire_direct._HOSTS": (
        "`scheme://authority` -> (scheme, host, port, its checked Host line: immutable bytes) or None; at "
        "most 64, cleared when full"
    ),
    "arazzo_runner.http.wire_direct._DEFAULTS": (
        "a client's default header items (bytes) -> their checked lines (immutable bytes) or None; at most "
        "64, cleared when full"
    ),
    "arazzo_runner.http.wire_direct._METHODS": (
        "a method as given -> (upper case, its bytes) when h11 writes it; at most 64, cleared when full"
    ),
    "arazzo_runner.http.lean_exchange._MAPPED": (
        "an httpcore exception class -> httpx's exception class for it (or None); bounded by the classes"
    ),
    "arazzo_runner.sources.schema_registry._document": "() -> the immutable referencing Specification",
    "arazzo_runner.sources.stored._loader_stamp": "() -> the loader's version stamp (a str)",
    "arazzo_runner.sources.stored._LAST": "[(the last content hashed, its SHA-256)], replaced whole",
    "arazzo_runner.validate.stored_document.engine_stamp": "() -> the engine's and validators' stamp (a str)",
    "arazzo_runner.expressions.parser._parse_whole": "(expression text, declared names) -> frozen AST node",
    "arazzo_runner.expressions.parser._parse_prefix_cached": (
        "(text, offset, stop, declared names) -> frozen AST node"
    ),
    "arazzo_runner.expressions.template._parse_template": "(text, bare, declared names) -> frozen Template",
    "arazzo_runner.query.compile_selector": "(type, version, text) -> immutable compiled query",
    "arazzo_runner.criteria.jsonpath.compile_condition": "condition text -> compiled JSONPath condition",
    "arazzo_runner.criteria._simple": (
        "(condition, context, declared names) -> parsed simple condition, never changed"
    ),
    "arazzo_runner.bounds.patterns.checked": "pattern -> (re.Pattern, what re warns about), immutable",
    "arazzo_runner.bounds.patterns._regex_compiled": (
        "(pattern, VERSION1?) -> regex.Pattern or None, immutable"
    ),
    "arazzo_runner.bounds.patterns.interruptible": "pattern -> regex.Pattern, or None: matched by the worker",
    "arazzo_runner.sources.schema_keywords.bounded": "jsonschema validator class -> its bounded subclass",
    "arazzo_runner.sources.schema_patterns._libraries": "() -> the validator libraries' folders (a tuple)",
    "arazzo_runner.sources.schema_patterns._compiled": "(pattern, text or not) -> regex.Pattern, or None",
    "arazzo_runner.sources.schema_patterns._literal_prefix": "pattern -> the text `^text` matches, or None",
    "arazzo_runner.http.openapi_checks._bounded_kind": "openapi-core factory class -> its bounded subclass",
    "arazzo_runner.bounds.decoding._brotli": "() -> the brotli module with a bounded decoder, or None",
    "arazzo_runner.bounds.decoding._zstd": "() -> the standard library's zstd module, or None",
    "arazzo_runner.bounds.decoding.accept_encoding": "() -> the Accept-Encoding the clients send (a str)",
    "arazzo_runner.http.charset.codec_of": "Content-Type -> (the codec a body is read with, a note), last 64",
    "arazzo_runner.http.body.base_type": "media type -> its base type, in lower case (a str), last 256",
    "arazzo_runner.generate.example_budget._counting_class": (
        "() -> the bounded 2020-12 validator class counting against the budget in effect (one class)"
    ),
    "arazzo_runner.messages.mqtt._matches": "(topic filter, topic) -> whether it matches (a bool)",
    "arazzo_runner.query.xpath._check": "(version, XPath) -> None or the reason it is invalid (immutable)",
    "arazzo_runner.query.jsonpath._environment": "the JSONPath environment with bounded regex functions",
    "arazzo_runner.query.jsonpath._home": "the folders of the JSONPath library's code (a tuple)",
    "arazzo_runner.query.goessner._goessner_parser": (
        "() -> the Goessner JSONPath parser (its tables built once) and the lock it parses under: "
        "no run's data, each parse starts from a clean state"
    ),
    # in the evaluation worker's process only (query/worker.py imports them; the engine's never calls them)
    "arazzo_runner.query.xpath_engine._parse_xml": (
        "XML text -> parsed tree, the last 8: keyed by the body itself, so runs with equal bodies share an "
        "equal read-only tree; holds up to 8 response bodies after the runs end"
    ),
    "arazzo_runner.query.xpath_engine._token": "(version, XPath) -> parsed elementpath token tree",
    "arazzo_runner.query.worker_ops._goessner": "Goessner JSONPath text -> parsed query",
    "arazzo_runner.validate.schema.schema_document": "bundled schema version -> parsed schema (read-only)",
    "arazzo_runner.validate.schema.validator": "bundled schema version -> jsonschema validator",
    "arazzo_runner.validate.schema.fast_validator": "bundled schema version -> jsonschema-rs validator",
    "arazzo_runner.validate.schema._fast_definitions": (
        "bundled schema version -> jsonschema-rs validator of its $defs entries"
    ),
    "arazzo_runner.validate.schema._DECLARED": "(version, id of a bundled subschema) -> frozenset of names",
    "arazzo_runner.validate.core._BY_WORKSPACE": "weak: workspace -> its validation report (one per doc)",
    "arazzo_runner.validate.core._WITHOUT_SCHEMA": "weak: workspace -> its report without the schema check",
    "arazzo_runner.validate.admission._MEMO": (
        "weak: workspace -> {selected workflow ids -> its Admission}, read-only once made"
    ),
    "arazzo_runner.sources.tls.default_tls_context": (
        "the default verifying TLS context; only its trust store is loaded, once, under a lock"
    ),
    "arazzo_runner.http.transport._timeout": "seconds -> immutable httpx.Timeout",
    "arazzo_runner.http.transport._cookie_jar_class": "the Cookies subclass, built once (a class)",
    "arazzo_runner.http.har_replay.replay_error": "the httpx error a replay raises, built once (a class)",
    "arazzo_runner.http.transport._shared_pool_class": "the pool's transport subclass, built once (a class)",
    "arazzo_runner.http.request._template_pieces": "path template -> tuple of its pieces",
    "arazzo_runner.executor.steps._KINDS": "step target kind -> its StepKind (stateless: no run's data)",
    "arazzo_runner.temporal.exchange._WORKER": (
        "the worker process's one runtime whose clients share a connection pool (no run's data: each "
        "exchange has its own client, no cookies), its --rate limits and its way to poll a rated task "
        "queue (`temporal/rated.py`)"
    ),
    "arazzo_runner.temporal.workflow._WORKSPACES": (
        "(document path, content digest) -> the loaded document, shared by the runs a worker runs, as "
        "`--inputs-file` rows share one"
    ),
    # Locust's entry (checked in a process of its own: tests/e2e/test_load_hygiene.py)
    "arazzo_runner.loadtest.locust.bridge._bridge_of": (
        "pid -> the process's asyncio loop on gevent (one, made once)"
    ),
}
# Constant tables: filled at import, never written afterwards.
CONSTANT_NAMES = {
    "_ORDER", "_KEYWORDS", "_CLOSERS", "_PUNCTUATION", "_TWO_CHAR", "_ONE_CHAR", "_HINTS", "_LITERALS",
    "_WORD_HINTS", "_MESSAGE_NODES", "_SIMPLE_NODES", "_ROOT_HANDLERS", "_NOT_YET", "_PART_NOUNS",
    "MESSAGE_NODES", "SIMPLE_NODES",
    "_RESOLVERS", "_DEFAULT_STYLE", "_BUILDERS", "_BOOLS", "_WORDS", "SELECTOR_VERSIONS", "DEFAULT_VERSIONS",
    "_SCALARS", "RULES", "_SYNTAX_RULES", "_LISTS", "_DELIMITER", "_CAMEL", "__all__", "_TYPES", "_VERSIONS",
    "_OPTIONAL", "_ENGINES", "OPERATIONS", "_PREPARE", "PROTOCOLS", "_OPS", "_RECORDS", "_STRINGS",
    "LEGACY", "_BOUNDS",
}  # fmt: skip


def modules() -> Iterator[ModuleType]:
    for name in module_names():  # the Locust entry only in a process of its own (tests/modules.py)
        yield importlib.import_module(name)


def module_state() -> dict[str, Any]:
    """Every module-level container and cache wrapper defined in the package, by qualified name."""
    found: dict[str, Any] = {}
    for module in modules():
        for name, value in vars(module).items():
            if name.startswith("__") and name != "__all__":
                continue
            if isinstance(value, MUTABLE) or (
                isinstance(value, CACHE_WRAPPER) and getattr(value, "__module__", None) == module.__name__
            ):
                found[f"{module.__name__}.{name}"] = value
    return found


def is_documented(qualified: str) -> bool:
    return qualified in CACHES or qualified.rsplit(".", 1)[1] in CONSTANT_NAMES


def test_every_module_level_container_is_a_constant_or_a_documented_cache() -> None:
    undocumented = sorted(name for name in module_state() if not is_documented(name))
    assert undocumented == [], "module-level mutable state: document it here or move it into a run"


def test_every_cache_is_bounded_or_keyed_by_bundled_data() -> None:
    state = module_state()
    for name in CACHES:
        cache = state.get(name)
        if isinstance(cache, CACHE_WRAPPER) and cache.cache_parameters()["maxsize"] is None:
            assert name.startswith("arazzo_runner.validate.schema."), f"{name} grows without bound"


def test_constant_tables_hold_no_run_data() -> None:
    for name, value in module_state().items():
        if name.rsplit(".", 1)[1] in CONSTANT_NAMES and isinstance(value, dict):
            assert len(value) < 200, name
