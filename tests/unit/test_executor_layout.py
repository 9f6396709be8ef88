"""The executor's layout (issue 15): a scheduler above the kinds of step target, and no import circle.

Every import counts, at module level, under TYPE_CHECKING or inside a function: a kind that imported the
runner, even for a type, would tie the two together again."""

from __future__ import annotations

import ast
from pathlib import Path

import arazzo_runner

PACKAGE = Path(arazzo_runner.__file__).parent
EXECUTOR = PACKAGE / "executor"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> set[str]:
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rsplit(".", 1)[0]
            target = (f"{base}.{node.module}" if node.module else base) if node.level else node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)  # `from . import x`
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in EXECUTOR.rglob("*.py")}
    return {
        name: {t for t in _imports(path, name) if t in modules and t != name}
        for name, path in modules.items()
    }


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


def test_the_executor_has_no_import_circle() -> None:
    assert _cycle(_graph()) is None


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_step_kind_imports_the_scheduler_or_the_runner() -> None:
    graph = _graph()
    above = {
        f"arazzo_runner.executor.{m}" for m in ("runner", "scheduler", "stepping", "retrying", "dry_run")
    }
    kinds = [name for name in graph if name.startswith("arazzo_runner.executor.steps")]
    assert {"arazzo_runner.executor.steps.operation", "arazzo_runner.executor.steps.workflow"} <= set(kinds)
    assert "arazzo_runner.executor.steps.message" in kinds
    for name in kinds:
        assert not graph[name] & above, f"{name} imports {sorted(graph[name] & above)}"


def test_every_kind_implements_the_one_interface() -> None:
    from arazzo_runner.executor.steps import kind_for

    names = [kind_for(kind).name for kind in ("operation", "workflow", "asyncapi")]
    assert names == ["operation", "workflow", "asyncapi"]
    for kind in ("operation", "workflow", "asyncapi"):
        assert callable(kind_for(kind).attempt)
