"""The fast tier (`python -m pytest -m "not slow"`, tests/tiers.py) still exercises every package of
arazzo_runner: some test file outside tests/tiers.py's list imports each one (itself, through a helper
module of tests/, or through its folder's conftest.py)."""

from __future__ import annotations

import ast
import functools
from fnmatch import fnmatch
from pathlib import Path

import pytest

from tests.tiers import FAST_E2E, LOADED_IN_A_CHILD, SLOW_FILES, SLOW_TESTS, slow_file

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "arazzo_runner"


def packages() -> list[str]:
    """Every package (a folder with an __init__.py) of arazzo_runner, dotted."""
    return sorted(".".join(init.parent.relative_to(ROOT).parts) for init in PACKAGE.rglob("__init__.py"))


@functools.cache
def _imports(path: Path) -> frozenset[str]:
    """The modules `path` imports (for `from A import b`, both A and A.b), wherever in the file."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against the file's own package
                parts = list(path.relative_to(ROOT).parent.parts)
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(names)


def _reached(path: Path, seen: set[Path]) -> set[str]:
    """The arazzo_runner modules `path` imports, itself or through the tests' own modules it imports."""
    if path in seen:
        return set()
    seen.add(path)
    names = _imports(path)
    found = {name for name in names if name.split(".")[0] == "arazzo_runner"}
    for name in names:
        if name.split(".")[0] == "tests":
            for candidate in (
                (ROOT / Path(*name.split("."))).with_suffix(".py"),
                ROOT / Path(*name.split(".")) / "__init__.py",
            ):
                if candidate.is_file():
                    found |= _reached(candidate, seen)
    return found


def _module_file(name: str) -> Path | None:
    base = ROOT / Path(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _loaded(names: set[str]) -> set[str]:
    """`names` and what importing them imports in turn: the package's modules' top-level imports."""
    loaded, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in loaded:
            continue
        loaded.add(name)
        source = _module_file(name)
        if source is None:
            continue
        tree = ast.parse(source.read_text(encoding="utf-8"))
        package = name if source.name == "__init__.py" else name.rpartition(".")[0]
        for node in tree.body:  # module level only: an import inside a function runs when it is called
            if isinstance(node, ast.Import):
                todo.extend(a.name for a in node.names if a.name.startswith("arazzo_runner"))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                if base.startswith("arazzo_runner"):
                    todo.append(base)
                    todo.extend(f"{base}.{a.name}" for a in node.names)
    return loaded


def fast_files() -> list[Path]:
    return [
        path
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        if not slow_file(path.relative_to(ROOT).as_posix())
    ]


def missed(files: list[Path]) -> list[str]:
    """The packages of arazzo_runner that none of `files` loads (with the conftest.py files beside it,
    and what LOADED_IN_A_CHILD says they load in a child process)."""
    reached = {name for name, path in LOADED_IN_A_CHILD.items() if ROOT / path in files}
    for path in files:
        seen: set[Path] = set()
        reached |= _reached(path, seen)
        for folder in path.relative_to(ROOT).parents:  # the conftest.py files whose fixtures it uses
            conftest = ROOT / folder / "conftest.py"
            if conftest.is_file():
                reached |= _reached(conftest, seen)
    loaded = _loaded(reached)
    return [p for p in packages() if not any(n == p or n.startswith(p + ".") for n in loaded)]


def test_every_package_is_loaded_by_a_fast_test() -> None:
    gaps = missed(fast_files())
    assert not gaps, f"no fast test loads {gaps}: un-list a test of theirs in tests/tiers.py"


def test_the_check_sees_a_package_no_given_test_loads() -> None:
    """Not vacuous: the expressions tests alone load the expressions but not the validator or Locust."""
    files = sorted((ROOT / "tests/unit/expressions").glob("test_*.py"))
    gaps = missed(files)
    assert "arazzo_runner.expressions" not in gaps
    assert {"arazzo_runner.validate.rules", "arazzo_runner.loadtest.locust", "arazzo_runner.lsp"} <= set(gaps)


@pytest.mark.parametrize(("name", "path"), sorted(LOADED_IN_A_CHILD.items()))
def test_what_a_fast_test_loads_in_a_child_is_named_there(name: str, path: str) -> None:
    assert not slow_file(path)
    assert name in (ROOT / path).read_text(encoding="utf-8")


@pytest.mark.parametrize("pattern", sorted(SLOW_FILES))
def test_every_slow_pattern_names_a_test_file(pattern: str) -> None:
    files = [p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py")]
    assert any(fnmatch(f, pattern) for f in files), f"tests/tiers.py lists {pattern}: no test file matches"


def test_every_test_tiers_names_exists() -> None:
    """A renamed test or file would silently join the fast tier: every name in tests/tiers.py is there."""
    gone = [path for path in FAST_E2E if not (ROOT / path).is_file()]
    for path, (_, names) in SLOW_TESTS.items():
        defined = (
            {
                node.name
                for node in ast.walk(ast.parse((ROOT / path).read_text(encoding="utf-8")))
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
            if (ROOT / path).is_file()
            else set()
        )
        gone += [f"{path}::{name}" for name in names if name not in defined]
    assert not gone, gone
