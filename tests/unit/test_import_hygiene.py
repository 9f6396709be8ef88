"""Importing the package changes no process-wide state: no logging configuration (library users control
logging), no warning filters, no recursion or integer-size limits, no signal handlers or excepthook.
Checked twice: by importing every module in a fresh interpreter, and by reading every module's AST for
calls that configure logging."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import arazzo_runner

PACKAGE = Path(arazzo_runner.__file__).parent

PROBE = textwrap.dedent(
    """
    import json, logging, os, pkgutil, importlib, signal, sys, warnings

    def state():
        root = logging.getLogger()
        return {
            "root_handlers": [type(h).__name__ for h in root.handlers],
            "root_level": root.level,
            "disabled": logging.root.manager.disable,
            "warning_filters": len(warnings.filters),
            "recursion_limit": sys.getrecursionlimit(),
            "int_digits": sys.get_int_max_str_digits(),
            "sigint": repr(signal.getsignal(signal.SIGINT)),
            "excepthook": sys.excepthook is sys.__excepthook__,
            "showwarning": warnings.showwarning is warnings._showwarning_orig
            if hasattr(warnings, "_showwarning_orig") else repr(warnings.showwarning),
        }

    before = state()
    import arazzo_runner
    def walk(path, prefix):  # on disk: walk_packages would import every package to list it
        for info in pkgutil.iter_modules(path, prefix):
            if info.name in ("arazzo_runner.locust", "arazzo_runner.loadtest.locust"):
                continue  # Locust's entry, like a locustfile: importing it patches the process (gevent)
            yield info.name
            if info.ispkg:
                folder = os.path.join(info.module_finder.path, info.name.rsplit(".", 1)[1])
                yield from walk([folder], info.name + ".")

    names = list(walk(arazzo_runner.__path__, "arazzo_runner."))
    imported = []
    for name in names:
        if name.endswith("__main__"):
            continue  # running a module as a program is not importing it
        importlib.import_module(name)
        imported.append(name)
    own = {
        name: [type(h).__name__ for h in logger.handlers]
        for name, logger in logging.root.manager.loggerDict.items()
        if name.startswith("arazzo") and isinstance(logger, logging.Logger)
    }
    print(json.dumps({"before": before, "after": state(), "imported": imported, "own": own}))
    """
)


def test_importing_every_module_leaves_logging_and_the_process_alone() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    report = json.loads(done.stdout)
    assert len(report["imported"]) > 50
    assert report["after"] == report["before"]
    assert report["after"]["root_handlers"] == []
    assert report["after"]["root_level"] == 30  # WARNING, Python's default
    for name, handlers in report["own"].items():
        assert set(handlers) <= {"NullHandler"}, f"logger {name} has handlers {handlers}"
    assert done.stderr == ""  # nothing printed, no warnings raised at import


# -- the same, statically --------------------------------------------------------------------------

CONFIGURING = {
    "logging.basicConfig",
    "logging.config.dictConfig",
    "logging.config.fileConfig",
    "logging.config.listen",
    "logging.disable",
    "logging.captureWarnings",
    "logging.setLoggerClass",
    "logging.root.addHandler",
    "logging.root.setLevel",
    "warnings.simplefilter",
    "warnings.filterwarnings",
    "sys.setrecursionlimit",
    "sys.set_int_max_str_digits",
    "signal.signal",
}


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call) and _dotted(node.func) == "logging.getLogger" and not node.args:
        return "logging.root"  # getLogger() with no name is the root logger
    return "?"


def _scoped(tree: ast.AST) -> set[int]:
    """Ids of the calls made inside `with warnings.catch_warnings():`, whose filters are put back on exit."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With) and any(
            isinstance(item.context_expr, ast.Call)
            and _dotted(item.context_expr.func) == "warnings.catch_warnings"
            for item in node.items
        ):
            inside.update(id(n) for statement in node.body for n in ast.walk(statement))
    return inside


def configuring_calls(source: str) -> list[str]:
    found = []
    tree = ast.parse(source)
    scoped = _scoped(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if id(node) in scoped and _dotted(node.func).startswith("warnings."):
            continue
        name = _dotted(node.func)
        handler = node.args[0] if node.args else None
        null = isinstance(handler, ast.Call) and _dotted(handler.func) == "logging.NullHandler"
        if name in CONFIGURING or (name.endswith(".addHandler") and not null):
            found.append(f"line {node.lineno}: {name}(...)")
    return found


# The evaluation worker (`query/worker.py`, a process of its own started by bounds/isolated.py) sets its
# timer's SIGALRM handler in its `main()`: the state of that process, never of the engine's. Writing a
# fixed document (`validate/write.py`) turns SIGTERM and SIGHUP into an exception while the file is
# written, so its temporary file is removed, and puts the previous handlers back on every exit
# (`test_writing_a_file_puts_the_signal_handlers_back`).
OWN_PROCESS = {"query/worker.py": {"signal.signal"}, "validate/write.py": {"signal.signal"}}


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_configures_logging_or_global_state(path: Path) -> None:
    allowed = OWN_PROCESS.get(path.relative_to(PACKAGE).as_posix(), set())
    found = configuring_calls(path.read_text(encoding="utf-8"))
    assert [call for call in found if call.split(": ", 1)[1].removesuffix("(...)") not in allowed] == []


def test_writing_a_file_puts_the_signal_handlers_back(tmp_path: Path, monkeypatch) -> None:
    import os
    import signal

    from arazzo_runner.validate.write import write_in_place

    def mine(signum: int, frame: object) -> None:
        return None

    names = [name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    before = {name: signal.signal(getattr(signal, name), mine) for name in names}
    try:
        path = tmp_path / "doc.yaml"
        path.write_text("a: 1\n")
        write_in_place(str(path), b"a: 2\n")

        def fail(fd: int) -> None:
            raise OSError(5, "I/O error")

        monkeypatch.setattr(os, "fsync", fail)
        with pytest.raises(OSError):
            write_in_place(str(path), b"a: 3\n")
        assert [signal.getsignal(getattr(signal, name)) for name in names] == [mine] * len(names)
        assert path.read_text() == "a: 2\n"
    finally:
        for name, handler in before.items():
            signal.signal(getattr(signal, name), handler)


def test_the_worker_sets_its_signal_handler_only_when_run_as_a_process() -> None:
    source = (PACKAGE / "query" / "worker.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    assert configuring_calls(ast.unparse(main)) != []  # the handler is set in main()...
    outside = [n for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name == "main")]
    assert configuring_calls(ast.unparse(ast.Module(body=outside, type_ignores=[]))) == []
    assert source.rstrip().endswith('if __name__ == "__main__":\n    sys.exit(main())')  # ...run only there


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import logging\nlogging.basicConfig(level=10)", 1),
        ("import logging\nlogging.getLogger().setLevel(10)", 1),
        ("import logging\nlogging.getLogger('arazzo').addHandler(logging.StreamHandler())", 1),
        ("import logging\nlogging.getLogger('arazzo').addHandler(logging.NullHandler())", 0),
        ("import logging\nlog = logging.getLogger(__name__)\nlog.info('x')", 0),
        ("import warnings\nwarnings.simplefilter('ignore')", 1),
        ("import warnings\nwith warnings.catch_warnings():\n    warnings.simplefilter('always')", 0),
        ("import warnings\nwith warnings.catch_warnings():\n    pass\nwarnings.simplefilter('ignore')", 1),
        ("import warnings, logging\nwith warnings.catch_warnings():\n    logging.basicConfig()", 1),
    ],
)
def test_the_static_check_itself(source: str, found: int) -> None:
    assert len(configuring_calls(source)) == found
