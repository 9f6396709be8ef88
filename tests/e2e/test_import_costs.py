"""Nothing heavy on paths that do not need it (issue 8), checked by what a fresh process has imported.

Each case runs in its own interpreter and reports `sys.modules`: a one-step JSON workflow run over plain
http must not import PyYAML, jsonschema (nor jsonschema-rs), openapi-core, the JSONPath/XPath engines,
difflib or decimal, nor read the TLS trust store; `import arazzo_runner` imports no HTTP stack;
`arazzo --version` nothing of the engine. (Timings live in bench/, never in tests.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.eventkit import events_doc, mqtt_broker, orders_asyncapi, receive_step, responder, send_step
from tests.e2e.execkit import ok200, pet

HEAVY = ["yaml", "jsonschema", "jsonschema_rs", "openapi_core", "elementpath", "jsonpath_ng",
         "jsonpath_rfc9535", "defusedxml", "difflib", "decimal", "argparse", "regex"]  # fmt: skip
# The engine's own modules a GET with `simple` criteria and no body has no use for (issue 17: each
# module costs ~0.25 ms to import): other condition types and the selector engines, payload
# replacements, the other body encoders, Respect's x-operation, request/response validation, printed
# forms of requests carrying secrets, --verbose and failed-answer rendering.
UNUSED_ON_A_PLAIN_RUN = [
    "arazzo_runner.query", "arazzo_runner.criteria.jsonpath", "arazzo_runner.criteria.regex",
    "arazzo_runner.criteria.xpath", "arazzo_runner.executor.payload", "arazzo_runner.http.form",
    "arazzo_runner.http.multipart", "arazzo_runner.executor.x_operation", "arazzo_runner.http.validation",
    "arazzo_runner.http.shown", "arazzo_runner.report.verbose", "arazzo_runner.report.bodies",
]  # fmt: skip
# And of `arazzo run` of a document whose validation cache answers (issue 28: the command's fixed cost is
# mostly its imports): the validator, the did-you-mean matcher of usage errors, the event loop (the
# run blocks its thread), the JSON report, the dry run.
UNUSED_BY_THE_RUN_COMMAND = [
    "difflib", "asyncio", "yaml", "arazzo_runner.validate.rules", "arazzo_runner.validate.format",
    "arazzo_runner.cli.validate", "arazzo_runner.report.json_report", "arazzo_runner.executor.dry_run",
    # (third round) the --inputs-file rows (their reader, buffers, report files; the flags live in
    # run_flags), the JSON Schema registry (only validators and anchor fragments use it)
    "arazzo_runner.cli.batch", "arazzo_runner.executor.rows", "arazzo_runner.sources.schema_registry",
]  # fmt: skip

# And of an `arazzo run` that only sends and receives messages (issue 28, fourth round: the MQTT run's fixed
# cost): the HTTP side's credentials, exchange bodies, server selection and payload replacements, the
# OpenAPI reader and operation lookup, the media types of --input-file, httpx; and with JSON output off a
# terminal, the console reporter and the progress line.
UNUSED_BY_A_MESSAGE_RUN = [
    "httpx", "mimetypes", "arazzo_runner.http.credentials", "arazzo_runner.http.bodies",
    "arazzo_runner.report.bodies", "arazzo_runner.sources.openapi", "arazzo_runner.sources.operation",
    "arazzo_runner.workspace.operations", "arazzo_runner.executor.servers", "arazzo_runner.executor.payload",
    "arazzo_runner.report.console", "arazzo_runner.report.progress",
]  # fmt: skip


def _modules_after(code: str, cwd: Path) -> dict:
    """Run `code` in a fresh interpreter; it prints a JSON object, to which `modules` is added."""
    script = f"import json, sys\n{code}\nreport['modules'] = sorted(sys.modules)\nprint(json.dumps(report))\n"
    argv = [sys.executable, "-c", script]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=600)  # a hang guard
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _httpx_own(cwd: Path) -> set[str]:
    """What `import httpx` brings by itself here: with click, rich and pygments installed (the MQTT test
    broker's command line pulls them in) httpx imports its own command line, and rich imports decimal.
    That is httpx's doing, not this engine's path."""
    return set(_modules_after("import httpx\nreport = {}\n", cwd)["modules"])


def test_a_json_workflow_over_http_imports_only_what_it_uses(tmp_path, server) -> None:
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    (tmp_path / "pets.openapi.json").write_text(json.dumps(PETS_OPENAPI))
    doc = arazzo_doc({"workflowId": "w", "steps": [pet("get", successCriteria=ok200())]})
    doc["sourceDescriptions"][0]["url"] = "./pets.openapi.json"
    (tmp_path / "flow.arazzo.json").write_text(json.dumps(doc))
    report = _modules_after(
        "import arazzo_runner\n"
        "from arazzo_runner.sources.tls import default_tls_context\n"
        f"result = arazzo_runner.run('flow.arazzo.json', servers={{'pets': {server.url!r}}})\n"
        "report = {'status': result.status, 'trust_loaded': default_tls_context()._trust_loaded}\n",
        tmp_path,
    )
    assert report["status"] == "passed"
    assert [request.path for request in server.requests] == ["/pets/1"]
    assert "arazzo_runner.messages" not in report["modules"]  # no message transport on an HTTP-only path
    httpx_own = _httpx_own(tmp_path)
    assert [name for name in HEAVY if name in report["modules"] and name not in httpx_own] == []
    assert [name for name in UNUSED_ON_A_PLAIN_RUN if name in report["modules"]] == []
    assert report["trust_loaded"] is False


def test_the_run_command_imports_only_what_the_run_uses(tmp_path, server) -> None:
    """`arazzo run` of the same workflow (a run validated before: its validation cache answers)."""
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    (tmp_path / "pets.openapi.json").write_text(json.dumps(PETS_OPENAPI))
    doc = arazzo_doc({"workflowId": "w", "steps": [pet("get", successCriteria=ok200())]})
    doc["sourceDescriptions"][0]["url"] = "./pets.openapi.json"
    (tmp_path / "flow.arazzo.json").write_text(json.dumps(doc))
    code = (
        "import os\n"
        f"os.environ['ARAZZO_CACHE_DIR'] = {str(tmp_path / 'cache')!r}\n"
        "from arazzo_runner.cli import main\n"
        f"code = main(['run', 'flow.arazzo.json', '--server', 'pets={server.url}'])\n"
        "report = {'code': code}\n"
    )
    assert _modules_after(code, tmp_path)["code"] == 0  # fills the validation cache
    report = _modules_after(code, tmp_path)
    assert report["code"] == 0 and len(server.requests) == 2
    assert "arazzo_runner.validate.rules" not in report["modules"]  # the cache answered
    assert [name for name in UNUSED_ON_A_PLAIN_RUN if name in report["modules"]] == []
    httpx_own = _httpx_own(tmp_path)
    unused = [name for name in UNUSED_BY_THE_RUN_COMMAND if name not in httpx_own]
    assert [name for name in unused if name in report["modules"]] == []


def test_importing_the_library_imports_no_http_stack(tmp_path) -> None:
    report = _modules_after("import arazzo_runner\nreport = {}\n", tmp_path)
    assert [name for name in ["httpx", "asyncio", "yaml", *HEAVY] if name in report["modules"]] == []


def test_the_version_flag_imports_no_engine(tmp_path) -> None:
    report = _modules_after(
        "from arazzo_runner.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "report = {}\n",
        tmp_path,
    )
    engine = [name for name in report["modules"] if name.startswith("arazzo_runner.")]
    assert [
        name for name in engine if not name.startswith(("arazzo_runner.cli", "arazzo_runner.errors"))
    ] == []
    assert "httpx" not in report["modules"]


def test_validating_a_json_document_imports_no_network_stack(tmp_path) -> None:
    (tmp_path / "pets.openapi.json").write_text(json.dumps(PETS_OPENAPI))
    doc = arazzo_doc({"workflowId": "w", "steps": [pet("get", successCriteria=ok200())]})
    doc["sourceDescriptions"][0]["url"] = "./pets.openapi.json"
    (tmp_path / "flow.arazzo.json").write_text(json.dumps(doc))
    report = _modules_after(
        "from arazzo_runner.cli import main\n"
        "try:\n    code = main(['validate', 'flow.arazzo.json'])\n"
        "except SystemExit as exit:\n    code = exit.code\n"
        "report = {'code': code}\n",
        tmp_path,
    )
    assert report["code"] == 0
    # (PyYAML is imported: the bundled official schemas are YAML, kept so for review against the originals)
    assert [name for name in ["httpx", "urllib.request", "ssl"] if name in report["modules"]] == []


def _a_one_step_command(tmp_path, server) -> list[str]:
    """`sys.argv` of an `arazzo run` of a one-step workflow in tmp_path, its server answering 200."""
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    (tmp_path / "pets.openapi.json").write_text(json.dumps(PETS_OPENAPI))
    doc = arazzo_doc({"workflowId": "w", "steps": [pet("get", successCriteria=ok200())]})
    doc["sourceDescriptions"][0]["url"] = "./pets.openapi.json"
    (tmp_path / "flow.arazzo.json").write_text(json.dumps(doc))
    argv = ["arazzo", "run", "flow.arazzo.json", "--server", f"pets={server.url}"]
    return argv


def test_the_arazzo_process_leaves_out_httpx_s_own_command_line_and_a_library_caller_keeps_it(
    tmp_path, server
) -> None:
    """`entry()` (the console script, `python -m arazzo_runner.cli`) marks `httpx._main` absent before
    httpx is imported: with click, rich and pygments installed, `import httpx` would import them all.
    `main()` as a library calls it changes nothing: httpx's command line stays its caller's."""
    argv = _a_one_step_command(tmp_path, server)
    as_command = _modules_after(
        f"import sys\nsys.argv = {argv!r}\n"
        "from arazzo_runner.cli import entry\n"
        "code = entry()\n"
        "import httpx\n"
        "report = {'code': code, 'main_from': httpx.main.__module__, 'cli': sys.modules['httpx._main']}\n",
        tmp_path,
    )
    assert as_command["code"] == 0 and as_command["cli"] is None  # marked absent, never imported
    assert as_command["main_from"] == "httpx"  # the stub httpx defines when its command line is missing
    assert [name for name in ("click", "rich", "pygments") if name in as_command["modules"]] == []
    as_library = _modules_after(
        f"from arazzo_runner.cli import main\ncode = main({argv[1:]!r})\nimport httpx\n"
        "report = {'code': code, 'own_cli': sys.modules.get('httpx._main') is not None}\n",
        tmp_path,
    )
    assert as_library["code"] == 0 and len(server.requests) == 2
    assert as_library["own_cli"] == ("httpx._main" in _httpx_own(tmp_path))  # as `import httpx` alone


def test_a_payload_the_subset_check_accepts_imports_no_jsonschema(tmp_path) -> None:
    """The payload check of a send step (and of a request body, outside OpenAPI 3.0) answers a valid
    payload with the jsonschema-free subset check: an MQTT run validating its document does not import
    jsonschema (~30 ms) for it. An invalid one, or one with an expression (blanked) under a typed
    property, goes to jsonschema: its errors explained as before, the expression's part no verdict."""
    code = (
        "from arazzo_runner.validate.openapi_schemas import payload_errors\n"
        "doc = {'components': {'schemas': {'Order': {'type': 'object', 'required': ['petId'],"
        " 'properties': {'petId': {'type': 'integer'}, 'requestId': {'type': 'string'}}}}}}\n"
        "schema = {'$ref': '#/components/schemas/Order'}\n"
        "rid = {('requestId',)}\n"
        "good = payload_errors(schema, {'petId': 7, 'requestId': 'r-1'}, set(), '3.1.0', doc)\n"
        "imported = 'jsonschema' in sys.modules\n"
        "bad = payload_errors(schema, {'petId': 'x', 'requestId': '$inputs.id'}, rid, '3.1.0', doc)\n"
        "unknown = payload_errors(schema, {'petId': '$inputs.p'}, {('petId',)}, '3.1.0', doc)\n"
        "report = {'good': good, 'imported': imported, 'bad': bad, 'unknown': unknown}\n"
    )
    report = _modules_after(code, tmp_path)
    assert report["good"] == [] and report["imported"] is False
    assert report["bad"] == [[["petId"], '"x" is not of type "integer"']]
    assert report["unknown"] == []  # an expression's value: no verdict, with either check


def test_a_message_step_s_modules_leave_out_the_query_engines(tmp_path) -> None:
    """A send/receive step (its payload replacements, the MQTT transport) imports neither the JSONPath
    and XPath engines (a JSONPath replacement target imports them) nor the form parser (a form payload
    does): an MQTT run's fixed cost (issue 28)."""
    report = _modules_after(
        "import arazzo_runner.executor.steps.message, arazzo_runner.executor.message_values\n"
        "import arazzo_runner.messages.mqtt\nreport = {}\n",
        tmp_path,
    )
    unused = ["arazzo_runner.query", "arazzo_runner.http.form", "jsonschema"]
    assert [name for name in unused if name in report["modules"]] == []


def test_an_mqtt_run_imports_nothing_of_the_http_side(tmp_path) -> None:
    """`arazzo run --format json` of a send + receive workflow against mosquitto and a responder (its
    validation cache answering, as in the benchmark): none of what only HTTP operations use."""
    (tmp_path / "orders.asyncapi.json").write_text(json.dumps(orders_asyncapi("mqtt")))
    doc = events_doc(send_step("place"), receive_step("confirm"))
    doc["sourceDescriptions"][0]["url"] = "./orders.asyncapi.json"
    (tmp_path / "flow.arazzo.json").write_text(json.dumps(doc))
    with mqtt_broker() as (host, port), responder("mqtt", host, port, "orders/requests", "orders/replies"):
        code = (
            "import os\n"
            f"os.environ['ARAZZO_CACHE_DIR'] = {str(tmp_path / 'cache')!r}\n"
            "from arazzo_runner.cli import main\n"
            f"argv = ['run', 'flow.arazzo.json', '--server', 'orders=mqtt://{host}:{port}']\n"
            "argv += ['--format', 'json']\n"
            "report = {'code': main(argv)}\n"
        )
        assert _modules_after(code, tmp_path)["code"] == 0  # fills the validation cache
        report = _modules_after(code, tmp_path)
    assert report["code"] == 0  # sent, the reply received and checked
    assert "arazzo_runner.validate.rules" not in report["modules"]  # the cache answered
    assert "arazzo_runner.messages.mqtt" in report["modules"]
    assert [name for name in UNUSED_BY_A_MESSAGE_RUN if name in report["modules"]] == []


def test_the_arazzo_process_leaves_its_objects_out_of_the_exit_s_collections_and_a_library_caller_not(
    tmp_path, server
) -> None:
    """When `entry()` returns, the process is about to end: everything it holds is frozen out of the
    collector's passes (`gc.freeze`), so the interpreter's exit does not walk and deallocate the engine's
    classes, functions and modules one by one (~20-45 ms of a one-step `arazzo run`, issue 28's fourth
    round). `main()` as a library or a test calls it leaves its caller's collector as it was."""
    argv = _a_one_step_command(tmp_path, server)
    collector = (
        "import gc\nreport = {'code': code, 'frozen': gc.get_freeze_count(), 'enabled': gc.isenabled()}\n"
    )
    as_command = _modules_after(
        f"import sys\nsys.argv = {argv!r}\nfrom arazzo_runner.cli import entry\ncode = entry()\n{collector}",
        tmp_path,
    )
    assert as_command["code"] == 0 and as_command["enabled"] is True
    assert as_command["frozen"] > 20_000  # the modules, the document, the run's result: all of it
    as_library = _modules_after(
        f"from arazzo_runner.cli import main\ncode = main({argv[1:]!r})\n{collector}", tmp_path
    )
    assert as_library == {**as_library, "code": 0, "frozen": 0, "enabled": True}
    assert len(server.requests) == 2


# (fourth round) patterns only some runs need, kept as pattern texts and compiled on first use by `re`'s
# cache: compiling them all at import cost ~2 ms (~10 M instructions) of every start
COMPILED_ON_FIRST_USE = [
    ("arazzo_runner.model.dialect", "_OPERATION_PATH"), ("arazzo_runner.expressions.values", "_ROOT"),
    ("arazzo_runner.expressions.values", "_BRACED_ROOT"), ("arazzo_runner.workspace.order", "STEP_REF"),
    ("arazzo_runner.validate.admission", "_IN_WORKFLOW"), ("arazzo_runner.validate.reach", "_IN_WORKFLOW"),
    ("arazzo_runner.validate.admission", "_IN_COMPONENT"),
    ("arazzo_runner.validate.admission", "_COMPONENT_USE"),
    ("arazzo_runner.loader.json_load", "_CONSTANT"), ("arazzo_runner.criteria.compare", "_NUMERIC"),
    ("arazzo_runner.cli.limit_flags", "_SIZE"), ("arazzo_runner.cli.parsing", "_CHOICE"),
    ("arazzo_runner.expressions.parser", "_ROOT_LIKE"),
]  # fmt: skip


def test_the_patterns_only_some_runs_need_are_not_compiled_at_import(tmp_path) -> None:
    report = _modules_after(
        "import importlib, re\n"
        "compiled = []\n"
        "compile_ = re.compile\n"
        "re.compile = lambda pattern, flags=0: compiled.append(pattern) or compile_(pattern, flags)\n"
        f"names = {COMPILED_ON_FIRST_USE!r}\n"
        "texts = [getattr(importlib.import_module(module), name) for module, name in names]\n"
        "report = {'texts': texts, 'compiled': [t for t in texts if t in compiled]}\n",
        tmp_path,
    )
    assert all(isinstance(text, str) for text in report["texts"])  # pattern texts, not compiled patterns
    assert report["compiled"] == []


def test_the_commands_leave_out_trio_and_validate_inspect(tmp_path, server) -> None:
    """As commands (`entry()`): `arazzo run` does not import trio (installed here: httpcore would import
    it, ~150 ms, to choose locks for a loop the engine never runs on), and `arazzo validate` does not import
    `inspect` (ast, dis, tokenize: ~10 ms of the process's start; only a record class's help() signature
    needs it, and httpx imports it anyway on the run's path)."""
    import importlib.util

    assert importlib.util.find_spec("trio") is not None  # the test extras install it (selenium brings it)
    argv = _a_one_step_command(tmp_path, server)
    code = (
        f"import os, sys\nos.environ['ARAZZO_CACHE_DIR'] = {str(tmp_path / 'cache')!r}\nsys.argv = {argv!r}\n"
        "from arazzo_runner.cli import entry\ncode = entry()\n"
        "report = {'code': code, 'trio': sys.modules.get('trio') is not None}\n"
    )
    assert _modules_after(code, tmp_path)["code"] == 0  # fills the validation cache
    report = _modules_after(code, tmp_path)
    assert report["code"] == 0 and len(server.requests) == 2
    assert report["trio"] is False and "attr" not in report["modules"]  # (trio: marked absent, None)
    validate = _modules_after(
        "import sys\nsys.argv = ['arazzo', 'validate', 'flow.arazzo.json']\n"
        "from arazzo_runner.cli import entry\ncode = entry()\nreport = {'code': code}\n",
        tmp_path,
    )
    assert validate["code"] == 0 and "inspect" not in validate["modules"]
