"""Mock servers of the OpenAPI descriptions: Stoplight Prism, behind a counting proxy each.

Prism (`prism mock`, static: the description's examples, else a schema-built body) validates requests
and answers 401 to one that lacks the credentials a `security` requirement asks for. The engines get
no credentials here (the corpus carries none), so with the descriptions as they are, every secured
operation fails for every engine alike and the comparison says nothing. By default Prism therefore
serves a copy of each description with its `security` requirements removed (root and operations; the
schemes stay); `--keep-security` keeps them. The copy (see `mock_copy`) is what Prism reads either
way; the engines read the original.

Prism answers the description's paths at the root, whatever the servers' base paths, so each engine
gets `http://127.0.0.1:PORT` (the proxy) as the source's server URL.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .corpus import load
from .proxy import CountingProxy

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
PRISM_PACKAGE = "@stoplight/prism-cli@5.14.2"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _for_mock(node: Any, base: Path) -> Any:
    """`node` with external `$ref`s made absolute and `x-*` members left out."""
    if isinstance(node, dict):
        out = {
            k: _for_mock(v, base) for k, v in node.items() if not (isinstance(k, str) and k.startswith("x-"))
        }
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#") and "://" not in ref:
            path, _, fragment = ref.partition("#")
            out["$ref"] = str((base.parent / path).resolve()) + (f"#{fragment}" if fragment else "")
        return out
    if isinstance(node, list):
        return [_for_mock(v, base) for v in node]
    return node


def mock_copy(description: Path, folder: Path, keep_security: bool = False) -> Path:
    """What Prism serves for `description`, written once per content into `folder`: its `security`
    requirements removed (unless `keep_security`), external `$ref`s absolute (the copy lives elsewhere)
    and `x-*` extensions left out (a mock has no use for them, and the corpus has some whose `$ref`s
    name files that are not there, which stops Prism's resolver: Jentic's spotify and train fixtures)."""
    raw = description.read_bytes()
    flavour = "kept" if keep_security else "open"
    target = folder / f"{description.stem}-{hashlib.sha256(raw).hexdigest()[:12]}-{flavour}.json"
    if target.exists():
        return target
    data = load(description)
    if isinstance(data, dict):
        if not keep_security:
            data.pop("security", None)
            for item in (data.get("paths") or {}).values():
                for method in _METHODS:
                    if isinstance(item, dict) and isinstance(item.get(method), dict):
                        item[method].pop("security", None)
        data = _for_mock(data, description.resolve())
    folder.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.write_text(json.dumps(data, default=str), encoding="utf-8")
    partial.replace(target)
    return target


@dataclass
class Mock:
    description: Path  # the original file
    served: Path  # what the mock reads (mock_copy)
    port: int
    process: subprocess.Popen
    log: Path
    kind: str = "prism"
    proxy: CountingProxy | None = None
    problem: str | None = None

    @property
    def url(self) -> str:
        assert self.proxy is not None
        return self.proxy.url


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def start_prism(prism: Path, description: Path, served: Path, logs: Path, timeout: float = 180) -> Mock:
    """Prism on a free port, waited for until it accepts connections (or exits, or `timeout`)."""
    port = free_port()
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / f"prism-{port}-{description.stem}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [str(prism), "mock", "-p", str(port), "-h", "127.0.0.1", str(served)],
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, "NODE_OPTIONS": "--max-old-space-size=2048", "NO_COLOR": "1"},
        )
    mock = Mock(description, served, port, process, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace").strip().splitlines()[-3:]
            mock.problem = f"prism exited with {process.returncode}: {' | '.join(tail)}"
            return mock
        if b"Prism is listening" in log.read_bytes()[-4096:] and _answers(port):
            mock.proxy = CountingProxy(port).start()
            return mock
        time.sleep(0.25)
    stop(mock)
    mock.problem = f"prism did not answer within {timeout:.0f} s"
    return mock


def stop(mock: Mock) -> None:
    if mock.proxy is not None:
        mock.proxy.stop()
        mock.proxy = None
    if mock.process.poll() is None:
        os.killpg(mock.process.pid, signal.SIGTERM)  # the session Prism leads: it and its children
        try:
            mock.process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(mock.process.pid, signal.SIGKILL)
            mock.process.wait()


@dataclass
class MockSet:
    """The mocks of one document, by OpenAPI file (one mock per file, shared by the sources naming it)."""

    mocks: dict[Path, Mock] = field(default_factory=dict)

    def mark(self) -> dict[Path, int]:
        return {p: m.proxy.mark() for p, m in self.mocks.items() if m.proxy is not None}

    def since(self, marks: dict[Path, int]) -> list[tuple[str, str, int]]:
        seen = []
        for path, mock in self.mocks.items():
            if mock.proxy is not None and path in marks:
                seen += [(s.method, s.target, s.status) for s in mock.proxy.since(marks[path])]
        return seen

    def stop(self) -> None:
        for mock in self.mocks.values():
            stop(mock)


def installed_version(prefix: Path, package: str) -> str | None:
    try:
        return json.loads((prefix / "node_modules" / package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def npm_install(prefix: Path, packages: list[str]) -> str | None:
    """`npm install --prefix` of the pinned `packages` (name@version) that are not there at that version;
    the problem, or None."""
    wanted = [p for p in packages if installed_version(prefix, p.rsplit("@", 1)[0]) != p.rsplit("@", 1)[1]]
    if not wanted:
        return None
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not on PATH"
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--save-exact", *wanted],
        capture_output=True,
        text=True,
    )
    return None if done.returncode == 0 else f"npm install failed: {done.stderr.strip()[-400:]}"
