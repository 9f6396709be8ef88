"""Nothing in the package can run code from a document: every module is parsed with `ast` (not grepped)
and checked for eval/exec/compile, dynamic imports, pickle-like modules, unsafe YAML loading and
subprocesses. The checker itself is tested on small snippets, so that it cannot pass vacuously."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import arazzo_runner

PACKAGE = Path(arazzo_runner.__file__).parent
BANNED_CALLS = {"eval", "exec", "compile", "__import__", "breakpoint"}
BANNED_MODULES = {"pickle", "cPickle", "_pickle", "marshal", "shelve", "dill", "subprocess", "pty", "code"}
BANNED_OS = {"system", "popen", "spawnl", "spawnlp", "spawnv", "spawnvp", "execl", "execlp", "execv"}
BANNED_OS |= {"execvp", "execve", "posix_spawn", "posix_spawnp", "startfile"}
# The one module that starts a process: the evaluation worker, the current interpreter in isolated mode
# (`subprocess.Popen([sys.executable, "-I", ...])`, checked below), which receives only JSON data.
STARTS_THE_WORKER = {"bounds/isolated.py"}
# The one module that reads `marshal`: the parsed-source store (docs/security.md), which loads only a payload
# whose HMAC, under a key only this user can read, says this user's engine wrote it (checked below).
READS_ITS_OWN_MARSHAL = {"sources/stored.py"}
SAFE_LOADERS = {"SafeLoader", "CSafeLoader", "BaseLoader", "CBaseLoader"}
UNSAFE_YAML = {"unsafe_load", "unsafe_load_all", "full_load", "full_load_all", "Loader", "FullLoader"}
UNSAFE_YAML |= {"UnsafeLoader", "CLoader", "CFullLoader", "CUnsafeLoader"}


@dataclass
class Checker(ast.NodeVisitor):
    """Finds unsafe constructs in one module; `assigned` maps names to every value assigned to them."""

    tree: ast.Module
    starts_the_worker: bool = False  # may run `subprocess.Popen([sys.executable, "-I", ...])`, nothing else
    reads_own_marshal: bool = False  # may `import marshal` (whole: no `from marshal import`)
    problems: list[str] = field(default_factory=list)
    assigned: dict[str, list[ast.expr]] = field(default_factory=dict)
    classes: dict[str, list[ast.expr]] = field(default_factory=dict)
    imported: dict[str, str] = field(default_factory=dict)  # local name -> "module.name"
    defined: set[str] = field(default_factory=set)  # functions defined in the module (a local `compile`)

    def run(self) -> list[str]:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                self.assigned.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node.bases
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defined.add(node.name)
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = alias.name
        self.visit(self.tree)
        return self.problems

    def flag(self, node: ast.AST, message: str) -> None:
        self.problems.append(f"line {getattr(node, 'lineno', 0)}: {message}")

    def dotted(self, node: ast.expr) -> str:
        """`yaml.load` for an attribute chain, resolving an imported first name (`from yaml import load`)."""
        if isinstance(node, ast.Name):
            return self.imported.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            return f"{self.dotted(node.value)}.{node.attr}"
        return "?"

    def banned(self, module: str) -> bool:
        top = module.split(".")[0]
        return top in BANNED_MODULES and not (self.starts_the_worker and module == "subprocess")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if self.reads_own_marshal and alias.name == "marshal" and alias.asname is None:
                continue
            if self.banned(alias.name):
                self.flag(node, f"import {alias.name}")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module and node.level == 0 and (self.banned(node.module) or node.module == "subprocess"):
            self.flag(node, f"from {node.module} import ...")
        for alias in node.names:
            if node.module == "yaml" and alias.name in UNSAFE_YAML | {"load", "load_all"}:
                self.flag(node, f"from yaml import {alias.name}")
            if node.module == "os" and alias.name in BANNED_OS:
                self.flag(node, f"from os import {alias.name}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = self.dotted(node)
        if name.startswith("yaml.") and node.attr in UNSAFE_YAML:
            self.flag(node, f"{name} (not a safe loader)")
        if name in {f"os.{call}" for call in BANNED_OS}:
            self.flag(node, name)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in BANNED_CALLS - self.imported.keys() - self.defined:
            self.flag(node, f"{func.id}(...)")  # the builtin: not imported or defined under that name
        name = self.dotted(func)
        if name in {"builtins.eval", "builtins.exec", "builtins.compile", "builtins.__import__"}:
            self.flag(node, f"{name}(...)")
        if name in {"importlib.import_module", "importlib.__import__"} and not (
            node.args and isinstance(node.args[0], ast.Constant)
        ):
            self.flag(node, f"{name} with a computed module name")
        if name.startswith("subprocess.") and not self.starts_interpreter(name, node):
            self.flag(node, f"{name}(...) other than Popen([sys.executable, '-I', ...])")
        if name in {"yaml.load", "yaml.load_all"}:
            loader = next((k.value for k in node.keywords if k.arg == "Loader"), None)
            loader = loader or (node.args[1] if len(node.args) > 1 else None)
            if loader is None or not self.safe_loader(loader, set()):
                self.flag(node, f"{name} without a safe Loader")
        self.generic_visit(node)

    def starts_interpreter(self, name: str, node: ast.Call) -> bool:
        """`subprocess.Popen([sys.executable, "-I", ...], ...)`: this interpreter, isolated mode."""
        argv = node.args[0] if node.args else None
        return (
            name == "subprocess.Popen"
            and isinstance(argv, ast.List)
            and len(argv.elts) >= 2
            and self.dotted(argv.elts[0]) == "sys.executable"
            and isinstance(argv.elts[1], ast.Constant)
            and argv.elts[1].value == "-I"
        )

    def safe_loader(self, node: ast.expr, seen: set[str]) -> bool:
        """A Safe/CSafe/Base loader: an attribute of yaml, a name only ever bound to one, a subclass
        of one, `A if c else B` of two, or `getattr(yaml, "<safe name>", <safe default>)`."""
        if isinstance(node, ast.Attribute):
            return self.dotted(node).startswith("yaml.") and node.attr in SAFE_LOADERS
        if isinstance(node, ast.IfExp):
            return self.safe_loader(node.body, seen) and self.safe_loader(node.orelse, seen)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            args = node.args
            return (
                len(args) == 3
                and self.dotted(args[0]) == "yaml"
                and isinstance(args[1], ast.Constant)
                and args[1].value in SAFE_LOADERS
                and self.safe_loader(args[2], seen)
            )
        if isinstance(node, ast.Name) and node.id not in seen:
            seen = seen | {node.id}
            if self.imported.get(node.id, "").removeprefix("yaml.") in SAFE_LOADERS:
                return True
            if node.id in self.classes:
                return any(self.safe_loader(base, seen) for base in self.classes[node.id])
            values = self.assigned.get(node.id, [])
            return bool(values) and all(self.safe_loader(value, seen) for value in values)
        return False


def problems_in(source: str, starts_the_worker: bool = False, reads_own_marshal: bool = False) -> list[str]:
    return Checker(ast.parse(source), starts_the_worker, reads_own_marshal=reads_own_marshal).run()


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_package_has_modules_to_check() -> None:
    assert len(modules()) > 50


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_dynamic_code_or_unsafe_deserialisation(path: Path) -> None:
    name = path.relative_to(PACKAGE).as_posix()
    text = path.read_text(encoding="utf-8")
    assert problems_in(text, name in STARTS_THE_WORKER, name in READS_ITS_OWN_MARSHAL) == []


def test_the_store_loads_marshal_only_from_a_payload_its_mac_verified() -> None:
    """`marshal.loads` in one function, after that function's `_verified` (an HMAC compared in constant
    time), and nowhere else; and the other modules may not import marshal at all."""
    for name in READS_ITS_OWN_MARSHAL:
        tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
        loads, verified = [], {}
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    called = node.func.attr
                    if called == "loads" and getattr(node.func.value, "id", "") == "marshal":
                        loads.append((function.name, node.lineno))
                    elif called == "_verified":
                        verified[function.name] = min(verified.get(function.name, node.lineno), node.lineno)
                    elif called == "compare_digest" and function.name == "_verified":
                        verified["_mac"] = node.lineno
        assert loads and "_mac" in verified, name
        for function_name, line in loads:
            assert verified.get(function_name, line) < line, (name, function_name)
    assert problems_in("import marshal\nmarshal.loads(b'')") and not problems_in(
        "import marshal", False, True
    )
    assert problems_in("from marshal import loads", False, True)


def test_the_module_that_starts_the_worker_does() -> None:
    for name in STARTS_THE_WORKER:
        assert "subprocess.Popen" in (PACKAGE / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import subprocess, sys\nsubprocess.Popen([sys.executable, '-I', script], stdin=PIPE)", 0),
        ("import subprocess\nsubprocess.Popen(['sh', '-c', command])", 1),
        ("import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', code])", 1),
        ("import subprocess, sys\nsubprocess.run([sys.executable, '-I', script])", 1),
        ("import subprocess\nsubprocess.Popen(argv)", 1),
        ("from subprocess import Popen", 1),
        ("import os\nos.system('ls')", 1),
    ],
)
def test_the_worker_module_may_start_only_this_interpreter_isolated(source: str, found: int) -> None:
    assert len(problems_in(source, starts_the_worker=True)) == found, source
    assert problems_in(source), source  # and no other module may start anything


@pytest.mark.parametrize(
    "source",
    [
        "eval('1')",
        "exec(code)",
        "compile(text, '<x>', 'exec')",
        "__import__(name)",
        "import builtins\nbuiltins.eval(x)",
        "import importlib\nimportlib.import_module(name)",
        "from importlib import import_module\nimport_module('a' + b)",
        "import pickle",
        "from marshal import loads",
        "import shelve",
        "import subprocess",
        "from subprocess import run",
        "import os\nos.system('ls')",
        "import os\nos.popen('ls')",
        "import yaml\nyaml.load(text)",
        "import yaml\nyaml.load(text, Loader=yaml.Loader)",
        "import yaml\nyaml.load(text, yaml.FullLoader)",
        "import yaml\nyaml.unsafe_load(text)",
        "import yaml\nyaml.full_load(text)",
        "import yaml\nyaml.load_all(text, Loader=yaml.UnsafeLoader)",
        "import yaml\nL = yaml.SafeLoader\nL = yaml.Loader\nyaml.load(t, Loader=L)",
        "import yaml\nclass L(yaml.FullLoader): pass\nyaml.load(t, Loader=L)",
        "from yaml import load\nload(text)",
        "import yaml as y\ny.unsafe_load(t)",
    ],
)
def test_the_checker_finds_unsafe_code(source: str) -> None:
    assert problems_in(source), source


@pytest.mark.parametrize(
    "source",
    [
        "import re\nre.compile('a+')",
        "pattern = re.compile(x)",
        "import importlib\nimportlib.import_module('json')",
        "import yaml\nyaml.safe_load(text)",
        "import yaml\nyaml.load(text, Loader=yaml.SafeLoader)",
        "import yaml\nloader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)\nyaml.load(text, Loader=loader)",
        "import yaml\nL = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader\nyaml.load(t, L)",
        "import yaml\nclass L(yaml.SafeLoader): pass\nyaml.load(t, Loader=L)",
        "def f(x):\n    return x.eval()",
        "def compile(x):\n    return x\n\ncompile(1)",
        "from re import compile\ncompile('a')",
        "from .query import compile_selector\ncompile_selector('jsonpath', None, '$')",
    ],
)
def test_the_checker_accepts_safe_code(source: str) -> None:
    assert problems_in(source) == [], source
