"""Running the documentation's blocks (`dockit.py` says what each is): the servers a block needs, its
commands in bash from a copy of the repository, its scripts, its MCP client configurations."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from tests.e2e.dockit import Block, Command, matches, substitute
from tests.e2e.helpers import ROOT
from tests.e2e.loadkit import free_port

PATIENCE = 300  # seconds a command may take on a busy machine (a load test runs for 10 of them)
OPENAI = "https://api.openai.com/v1"
COPIED = ("README.md", "pyproject.toml", "docs", "examples", "workflows", "openapi", "asyncapi", "tests")


def repository_copy(target: Path) -> Path:
    """What the documented commands read, copied: they write (reports, `out/`) into the copy only."""
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=junk)
        else:
            shutil.copy(source, target / name)
    return target


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a documented command: this interpreter's `python` and `arazzo` first."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARAZZO_INPUT_", "ARAZZO_AUTH_"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("ARAZZO_RUN_PATH", None)
    env.update(extra or {})
    return env


class Line:
    """A child process whose first line of output is awaited (a server saying where it listens)."""

    def __init__(self, argv: list[str] | str, cwd: Path, env: dict[str, str], shell: bool = False) -> None:
        self.process = subprocess.Popen(
            argv, cwd=cwd, env=env, shell=shell, executable="/bin/bash" if shell else None,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        self.first = self.process.stdout.readline() if self.process.stdout else ""

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, str, str]:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig)
        try:
            out, err = self.process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            out, err = self.process.communicate()
        return self.process.returncode, self.first + out, err


@contextlib.contextmanager
def servers(names: list[str], cwd: Path) -> Iterator[tuple[dict[int, int], dict[str, str]]]:
    """The servers a block needs, started: (documented port -> port in use, text replacements)."""
    ports: dict[int, int] = {}
    replace: dict[str, str] = {}
    with contextlib.ExitStack() as stack:
        for name in names:
            if name in ("reference-server", "openai-endpoint"):
                from arazzo_runner.reference import ReferenceServer

                flavor = "openai" if name == "openai-endpoint" else "seed"
                server = stack.enter_context(ReferenceServer(flavor=flavor))
                if flavor == "openai":
                    replace[OPENAI] = server.url
                else:
                    ports[8765] = int(server.url.rsplit(":", 1)[1].split("/")[0])
            elif name in ("petstore-server", "shop-server"):
                api = name.split("-")[0]
                line = Line([sys.executable, "examples/serve.py", api, "--port", "0"], cwd, environment())
                stack.callback(line.stop)
                assert " at http://" in line.first, line.stop()
                ports[{"petstore": 8080, "shop": 8090}[api]] = int(line.first.split(":")[2].split()[0])
            elif name == "orders-mock":
                from tests.servers.openapi_mock import OpenAPIMock

                mock = stack.enter_context(OpenAPIMock(cwd / "openapi" / "orders.openapi.yaml"))
                ports[8080] = int(mock.url.rsplit(":", 1)[1])
            elif name == "library-server":
                from tests.servers.library import KEY, LibraryServer

                library = stack.enter_context(LibraryServer())
                ports[8080] = int(library.url.rsplit(":", 1)[1])
                replace["libraryKey=..."] = f"libraryKey={KEY}"
            elif name == "drifting-server":
                from tests.servers.drifting import drift
                from tests.servers.scripted import ScriptedServer

                drifting = drift(stack.enter_context(ScriptedServer()))
                ports[8080] = int(drifting.url.rsplit(":", 1)[1])
            else:  # order-events: the MQTT broker and the order service of workflows/order-events
                from tests.e2e.eventkit import Process, mqtt_broker

                host, port = stack.enter_context(mqtt_broker())
                service = Process([sys.executable, "-m", "tests.servers.order_service", host, str(port)])
                stack.callback(service.stop)
                ports[1883], ports[8080] = port, int(service.line("PORT "))
        yield ports, replace


def run_console(block: Block, cwd: Path) -> list[str]:
    """Run the block's commands in order; the problems found (empty: as documented)."""
    codes = [int(c) for c in block.marker.get("exit", ["0"])]
    problems: list[str] = []
    env = environment()
    with servers(block.marker.get("needs", []), cwd) as (ports, replace):
        for documented in block.documented_ports():
            ports.setdefault(documented, free_port())
        background: list[Line] = []
        try:
            for command in block.commands():
                problems += _one(command, ports, replace, cwd, env, codes, background)
                if problems:
                    break
        finally:
            for line in background:
                line.stop()
    return problems


def _one(
    command: Command,
    ports: dict[int, int],
    replace: dict[str, str],
    cwd: Path,
    env: dict[str, str],
    codes: list[int],
    background: list[Line],
) -> list[str]:
    text = substitute(command.text, ports)
    for old, new in replace.items():
        text = text.replace(old, new)
    words = shlex.split(text.split("#", 1)[0]) if text.startswith("export ") else []
    if words[:1] == ["export"]:  # the variables the next commands of the block read
        for word in words[1:]:
            name, _, value = word.partition("=")
            env[name] = value
        return []
    if text.startswith("pip install"):
        print(f"not run (installs packages; the suite runs in the environment it makes): $ {text}")
        return []
    if command.background:
        line = Line(text.rstrip().rstrip("&"), cwd, env, shell=True)
        background.append(line)
        return [] if line.first else [f"$ {command.text}: printed nothing and ended: {line.stop()}"]
    proc = subprocess.run(
        ["/bin/bash", "-c", text], cwd=cwd, env=env, capture_output=True, text=True, timeout=PATIENCE
    )
    output = proc.stdout + proc.stderr
    for documented, actual in ports.items():  # the output with the documented ports back
        output = output.replace(f":{actual}", f":{documented}")
    problems = []
    if proc.returncode not in codes:
        problems.append(f"$ {command.text}\nexit {proc.returncode} (expected {codes})\n{output[-4000:]}")
    elif "Traceback" in proc.stderr:
        problems.append(f"$ {command.text}\na traceback:\n{proc.stderr[-4000:]}")
    elif command.expected and not _shows(command.expected, proc.stdout, output):
        shown = "\n".join(command.expected)
        problems.append(f"$ {command.text}\nexpected:\n{shown}\ngot:\n{output[-4000:]}")
    return problems


def _shows(expected: list[str], stdout: str, output: str) -> bool:
    """The expected lines are stdout's, or (messages on stderr) stdout's and stderr's together."""
    return any(matches(expected, text.rstrip("\n").splitlines()) for text in (stdout, output))


def run_serving(block: Block, cwd: Path) -> list[str]:
    """Each command serves in the foreground: started, its first line read, stopped with Ctrl-C."""
    problems = []
    ports = {documented: free_port() for documented in block.documented_ports()}
    for command in block.commands():
        line = Line(substitute(command.text, ports), cwd, environment(), shell=True)
        code, out, err = line.stop(signal.SIGINT)
        if "at http://" not in line.first or code != 0 or "Traceback" in err:
            problems.append(f"$ {command.text}\nfirst line {line.first!r}, exit {code}\n{out}{err}")
    return problems


def run_python(block: Block, cwd: Path, script: Path) -> list[str]:
    script.write_text(block.text, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)], cwd=cwd, env=environment(), capture_output=True, text=True,
        timeout=PATIENCE,
    )  # fmt: skip
    if proc.returncode != 0 or "Traceback" in proc.stderr:
        return [f"exit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"]
    return []


def check_signatures(block: Block) -> list[str]:
    """Each line of signatures names a function, class or attribute of the package that exists."""
    import re

    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "arazzo_runner").rglob("*.py"))
    problems = []
    for line in block.text.splitlines():
        found = re.match(r"(\w+)(?:\.(\w+))?[(\s]", line)
        if found is None or not line.strip() or line.startswith(" "):
            continue
        name, member = found.groups()
        defined = rf"^\s*(?:async def|def|class) {name}\b|^{name}\s*[:=]"
        if not re.search(defined, sources, re.M):
            problems.append(f"{name}: not defined in arazzo_runner")
        elif member and not re.search(
            rf"\b(?:def {member}\(|self\.{member}\b|^\s+{member}\s*[:=])", sources, re.M
        ):
            problems.append(f"{name}.{member}: no such member")
    return problems


def run_mcp_config(block: Block, cwd: Path) -> list[str]:
    """Start each server of the configuration as an MCP client would, list its tools and call the
    first one with arguments its schema accepts (a pet store server is started for it)."""
    import asyncio

    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    config = json.loads(block.text)
    problems = []
    with servers(["petstore-server"], cwd) as (ports, _):
        for name, server in config["mcpServers"].items():
            args = [substitute(arg, ports).replace("/path/to/clone", str(cwd)) for arg in server["args"]]
            command = shutil.which(server["command"], path=environment()["PATH"]) or server["command"]
            params = StdioServerParameters(
                command=command, args=args, cwd=str(cwd), env=environment(server.get("env"))
            )

            async def session(params: StdioServerParameters = params) -> tuple[list[str], str]:
                async with Client(stdio_client(params)) as client:
                    listed = await client.list_tools()
                    called = await client.call_tool("pet_status", {"petId": 1})
                    return [t.name for t in listed.tools], json.dumps(called.structured_content)

            tools, result = asyncio.run(session())
            if "pet_status" not in tools or '"status": "passed"' not in result:
                problems.append(f"server {name}: tools {tools}, pet_status gave {result}")
    return problems
