"""A missing optional extra is said in one line with the install command that fits how the engine was
installed (an editable checkout: `pip install -e '.[x]'`; an installed distribution: `pip install
'arazzo-engine[x]'`), and request validation asked for without its extra is a usage error before anything
is sent (exit 2), which `--dry-run` names too. The contract checks of responses need no extra."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arazzo_runner.extras import install_hint
from tests.e2e.helpers import ROOT

PETSTORE = "examples/petstore/petstore.arazzo.yaml"


def _arazzo(*argv: str, block: str = "openapi_core", cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """`arazzo ARGV...` in a process where the module `block` cannot be imported."""
    code = (
        "import sys\n"
        f"sys.modules[{block!r}] = None  # what an environment without the extra gives\n"
        "from arazzo_runner.cli import entry\n"
        f"sys.argv = ['arazzo', *{list(argv)!r}]\n"
        "sys.exit(entry())\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=60, check=False
    )


def test_an_editable_checkout_is_told_the_editable_form(tmp_path) -> None:
    """This suite runs from an editable install of the repository (the README's `pip install -e`)."""
    assert install_hint("mcp").startswith("pip install -e ")
    here = _arazzo("load", PETSTORE, block="locust")
    assert here.returncode == 2
    assert here.stderr == (
        "error: Locust is not installed; load testing needs it: pip install -e '.[load]'\n"
    )
    elsewhere = _arazzo("load", str(ROOT / PETSTORE), block="locust", cwd=tmp_path)
    assert elsewhere.stderr == (
        f"error: Locust is not installed; load testing needs it: pip install -e '{ROOT}[load]'\n"
    )


def test_an_installed_distribution_is_told_the_distribution_form(tmp_path) -> None:
    """What installing a wheel makes, first on the path: the package's files in a `site-packages`
    folder and the distribution's metadata beside them (no `direct_url.json`: not from a checkout)."""
    site = tmp_path / "lib" / "site-packages"
    shutil.copytree(
        ROOT / "arazzo_runner", site / "arazzo_runner", ignore=shutil.ignore_patterns("__pycache__")
    )
    info = site / "arazzo_engine-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: arazzo-engine\nVersion: 0.1.0\n")
    code = (
        "import arazzo_runner, arazzo_runner.extras as extras\n"
        "print(arazzo_runner.__file__)\n"
        "print(extras.install_hint('mcp'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr
    where, hint = proc.stdout.splitlines()
    assert where.startswith(str(site))
    assert hint == "pip install 'arazzo-engine[mcp]'"


@pytest.fixture
def petstore():
    """The example pet store, in this process, recording what reaches it."""
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import serve
    finally:
        sys.path.remove(str(ROOT / "examples"))
    import threading

    server = serve.make_server("petstore")
    seen: list[str] = []
    app = server.RequestHandlerClass
    original = app._serve

    def recording(handler):
        seen.append(f"{handler.command} {handler.path}")
        original(handler)

    app.do_GET = app.do_POST = recording
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("policy", ["warn", "error"])
def test_validation_without_its_extra_is_a_usage_error_before_anything_is_sent(petstore, policy):
    url, seen = petstore
    flag = "--validate-requests"
    argv = ["run", PETSTORE, "-w", "pet_status", "--input", "petId=1", "--server", f"petstore={url}"]
    proc = _arazzo(*argv, flag, policy)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        f"error: {flag} {policy}: request validation needs openapi-core: pip install -e "
        "'.[validation]'; nothing was sent\n"
    )
    assert seen == []
    as_json = _arazzo(*argv, flag, policy, "--format", "json")
    assert as_json.returncode == 2
    (error,) = json.loads(as_json.stdout)["errors"]
    assert error["kind"] == "usage" and "needs openapi-core" in error["message"]
    dry = _arazzo(*argv, flag, policy, "--dry-run")
    assert dry.returncode == 2
    assert "needs openapi-core" in dry.stderr
    assert seen == []


def test_mcp_and_agent_refuse_to_start_without_the_validation_extra(petstore):
    url, seen = petstore
    for command in (["mcp"], ["agent", "--prompt", "Is pet 1 available?"]):
        proc = _arazzo(*command, PETSTORE, "--server", f"petstore={url}", "--validate-requests", "error")
        assert proc.returncode == 2, proc.stderr
        assert "--validate-requests error: request validation needs openapi-core" in proc.stderr
    assert seen == []


@pytest.mark.parametrize("flag", [("--contract", "fail"), ("--validate-responses", "error")])
def test_the_contract_checks_need_no_extra(tmp_path, flag):
    """Without openapi-core, a response that drifts from its description fails its step under `fail`."""
    import yaml

    from tests.servers.drifting import description, drift
    from tests.servers.scripted import ScriptedServer

    (tmp_path / "api.yaml").write_text(yaml.safe_dump(description("3.0.3")))
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.yaml", "type": "openapi"}],
        "workflows": [{"workflowId": "w", "steps": [{"stepId": "pet", "operationId": "pet"}]}],
    }
    (tmp_path / "flow.arazzo.yaml").write_text(yaml.safe_dump(doc))
    with ScriptedServer() as server:
        drift(server)
        argv = [
            "run",
            str(tmp_path / "flow.arazzo.yaml"),
            "--server",
            f"api={server.url}",
            "--format",
            "json",
        ]
        proc = _arazzo(*argv, *flag)
    assert proc.returncode == 1, proc.stderr
    [step] = json.loads(proc.stdout)["workflows"][0]["steps"]
    assert step["error"] == (
        "HTTP 200: contract violated: response 200 application/json: body /bark: wanted a value (required), "
        "got nothing"
    )


def test_with_the_extra_installed_validation_runs(petstore):
    url, seen = petstore
    proc = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", "run", PETSTORE, "-w", "pet_status", "--input", "petId=1",
         "--server", f"petstore={url}", "--validate-requests", "error", "--validate-responses", "error"],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert seen == ["GET /pets/1"]
