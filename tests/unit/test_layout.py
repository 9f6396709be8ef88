"""The package's layout (issues 15 and 26): one concern per package, as docs/architecture.md draws it.

Every import counts, at module level, under TYPE_CHECKING or inside a function: a module that imported
another only for a type, or only once a function ran, would still tie the two together. A module
importing its own package (an ancestor, `from . import x` in a submodule) is no edge: Python runs the
package's `__init__` before any of its modules, whatever is imported.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import arazzo_runner

PACKAGE = Path(arazzo_runner.__file__).parent
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"
ROOT_MODULES = {
    *("__init__", "api", "result", "pytest_plugin", "pytest_http", "pytest_coverage", "locust"),
    *("pytest_agent", "pytest_contract"),
    *("errors", "records", "extras", "spelling"),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(path: Path, name: str) -> set[str]:
    """The engine's modules `path` imports: `from x import y` is `x.y` when that is a module, else `x`."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rsplit(".", 1)[0]
            target = (f"{base}.{node.module}" if node.module else base) if node.level else node.module or ""
            modules = [
                f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in MODULES
            ]
            found.update(modules)
            if len(modules) < len(node.names):
                found.add(target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    ancestors = {name.rsplit(".", k)[0] for k in range(1, name.count(".") + 1)}
    return {t for t in found if t in MODULES and t != name and t not in ancestors}


GRAPH = {name: _imports(path, name) for name, path in MODULES.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _allowed() -> dict[str, set[str]]:
    """The `may import` column of docs/architecture.md's layout table, by package."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    table = text.split("<!-- BEGIN layout -->", 1)[1].split("<!-- END layout -->", 1)[0]
    rows = re.findall(r"^\| `([a-z_]+)/?` \| .+ \|\s*([a-z_, ]*?)\s*\|$", table, re.M)
    return {name: {p.strip() for p in may.split(",") if p.strip()} for name, may in rows}


def test_no_import_circle_anywhere_in_the_package() -> None:
    assert _cycle(GRAPH) is None


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_nothing_outside_the_command_line_imports_it() -> None:
    importers = {
        name: sorted(t for t in targets if _package(t) == "cli")
        for name, targets in GRAPH.items()
        if _package(name) != "cli"
    }
    assert {name: found for name, found in importers.items() if found} == {}


def test_the_root_holds_the_public_face_and_the_foundations() -> None:
    assert {p.stem for p in PACKAGE.glob("*.py")} == ROOT_MODULES


def test_each_package_imports_only_what_the_architecture_allows() -> None:
    allowed = _allowed()
    packages = {_package(name) for name in MODULES}
    assert packages == set(allowed), "every package has its row in docs/architecture.md, and no more"
    extra: dict[str, set[str]] = {}
    for name, targets in GRAPH.items():
        own = _package(name)
        used = {_package(t) for t in targets} - {own}
        if used - allowed[own]:
            extra.setdefault(f"{own} ({name})", set()).update(used - allowed[own])
    assert extra == {}, "an import the layout table does not allow (docs/architecture.md)"


def test_the_table_allows_nothing_it_does_not_use() -> None:
    """The `may import` column says what each package needs: a package it no longer imports is dropped."""
    used: dict[str, set[str]] = {}
    for name, targets in GRAPH.items():
        used.setdefault(_package(name), set()).update(_package(t) for t in targets)
    allowed = _allowed()
    assert {
        p: sorted(allowed[p] - used.get(p, set()) - {p})
        for p in allowed
        if allowed[p] - used.get(p, set()) - {p}
    } == {}


def test_the_layers_have_no_circle_either() -> None:
    packages: dict[str, set[str]] = {}
    for name, targets in GRAPH.items():
        packages.setdefault(_package(name), set()).update(
            _package(t) for t in targets if _package(t) != _package(name)
        )
    assert _cycle(packages) is None


def test_no_step_kind_imports_the_scheduler_or_the_runner() -> None:
    above = {
        f"arazzo_runner.executor.{m}" for m in ("runner", "scheduler", "stepping", "retrying", "dry_run")
    }
    kinds = [name for name in GRAPH if name.startswith("arazzo_runner.executor.steps")]
    assert {"arazzo_runner.executor.steps.operation", "arazzo_runner.executor.steps.workflow"} <= set(kinds)
    assert "arazzo_runner.executor.steps.message" in kinds
    for name in kinds:
        assert not GRAPH[name] & above, f"{name} imports {sorted(GRAPH[name] & above)}"


def test_every_kind_implements_the_one_interface() -> None:
    from arazzo_runner.executor.steps import kind_for

    names = [kind_for(kind).name for kind in ("operation", "workflow", "asyncapi")]
    assert names == ["operation", "workflow", "asyncapi"]
    for kind in ("operation", "workflow", "asyncapi"):
        assert callable(kind_for(kind).attempt)


def test_the_pytest_plugin_keeps_each_concern_in_its_module() -> None:
    """The plugin's entry point stays readable (under 400 lines): contract checks, coverage, offline
    replay and agent scenarios live in their modules, and the entry point gathers their hooks and
    fixtures where pytest finds them, with `ContractWarning` under its documented name."""
    from arazzo_runner import pytest_agent, pytest_contract, pytest_coverage, pytest_http, pytest_plugin

    lines = (PACKAGE / "pytest_plugin.py").read_text(encoding="utf-8").count("\n")
    assert lines < 400, lines
    assert pytest_plugin.ContractWarning is pytest_contract.ContractWarning
    assert pytest_plugin.arazzo_agent_replay is pytest_agent.arazzo_agent_replay
    assert pytest_plugin.arazzo_http_replay is pytest_http.arazzo_http_replay
    assert pytest_plugin.pytest_terminal_summary is pytest_coverage.pytest_terminal_summary
