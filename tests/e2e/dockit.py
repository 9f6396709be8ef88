"""The code blocks of the documentation, collected and classified for `test_docs_run.py`.

Every fenced block of README.md, docs/*.md and examples/README.md is one of:

- `python`: a script, run from the repository root (a copy of it), which must exit 0 without a
  traceback;
- `console`: each `$ COMMAND` line (with its `\\` continuation lines) run in bash from the repository
  root; `COMMAND &` starts a server in the background (the next command runs once it printed its first
  line); the lines after a command are its expected output (`...` alone on a line: any lines; within a
  line: any text), compared when given; a command must exit 0 (or as the marker says);
- `json`, `toml`, `ini`, `yaml`: data, which must parse (a `json` block marked `mcp-config` is an MCP
  client configuration: its servers are started and their tools listed and called);
- no language: text (an output, a layout): it must not hold a `$ ` command line.

A marker on the line before a block (an HTML comment, invisible once rendered) changes how it runs:

    <!-- doc-test: needs reference-server petstore-server -->   servers the test starts for the block
    <!-- doc-test: exit 0 1 -->                                  the exit codes a command may have
    <!-- doc-test: skip REASON -->                               not run, the reason printed
    <!-- doc-test: covered-by tests/e2e/test_x.py::test_y -->   run by that test (which must exist)
    <!-- doc-test: serves -->                                   each command serves until Ctrl-C
    <!-- doc-test: mcp-config -->                               an MCP client configuration
    <!-- doc-test: signatures -->                               an API's signatures: each name exists

Local addresses written in a block (`127.0.0.1:8765`, `localhost:8080`, `--port 8090`,
`mqtt://127.0.0.1:1883`) are those of the servers the block names or starts; each port is replaced by a
free one (or the port of the server the test started for it), so blocks run side by side, and the
output is compared with the documented ports put back. `https://api.openai.com/v1` is the bundled
reference server in its OpenAI flavour (`needs openai-endpoint`); `/path/to/clone` is the repository.
A block the rules above cannot
classify (another language, a command without a language, a marker not known) fails its test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tests.e2e.helpers import ROOT

DOCUMENTS = ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))]
DOCUMENTS.append("examples/README.md")
KNOWN_SERVERS = (
    "reference-server",
    "openai-endpoint",
    "petstore-server",
    "shop-server",
    "order-events",
    "orders-mock",  # a mock of openapi/orders.openapi.yaml answering its examples (servers/openapi_mock)
    "library-server",  # the stateful library of tests/servers/library.py; `libraryKey=...` gets its key
    "drifting-server",  # tests/servers/drifting.py: departs from examples/drift/drift.openapi.yaml
)
DATA = ("json", "toml", "ini", "yaml")
MARKERS = ("needs", "exit", "skip", "covered-by", "serves", "mcp-config", "signatures")
_FENCE = re.compile(r"^```(\S*)\s*$")
_MARKER = re.compile(r"^<!-- doc-test: (.*) -->$")
_LOCAL = re.compile(r"(?:127\.0\.0\.1|localhost):(\d{4,5})\b|--port (\d{4,5})\b")


@dataclass
class Command:
    text: str  # the command, continuation lines joined as written
    expected: list[str] = field(default_factory=list)  # the output lines the block shows after it

    @property
    def background(self) -> bool:
        return self.text.rstrip().endswith("&")


@dataclass
class Block:
    file: str
    line: int  # of the opening fence
    language: str
    text: str
    marker: dict[str, list[str]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}:{self.language or 'text'}"

    @property
    def kind(self) -> str:
        """How the block is tested; "unclassified: why" when it cannot be."""
        unknown = set(self.marker) - set(MARKERS)
        if unknown:
            return f"unclassified: unknown marker {sorted(unknown)}"
        servers = set(self.marker.get("needs", [])) - set(KNOWN_SERVERS)
        if servers:
            return f"unclassified: unknown servers {sorted(servers)} (known: {', '.join(KNOWN_SERVERS)})"
        if "skip" in self.marker:
            return "skip"
        if "covered-by" in self.marker:
            return "covered-by"
        if "signatures" in self.marker:
            return "signatures"
        if self.language == "python":
            return "python"
        if self.language == "console":
            stray = [line for line in self.lines_before_first_command() if not line.startswith("#")]
            if stray:
                return f"unclassified: lines before the first `$ ` command: {stray[:2]}"
            return "serves" if "serves" in self.marker else "console"
        if self.language == "json" and "mcp-config" in self.marker:
            return "mcp-config"
        if self.language in DATA:
            return "data"
        if self.language in ("", "text"):
            if any(line.startswith("$ ") for line in self.text.splitlines()):
                return "unclassified: a `$ ` command in a block without a language (mark it console)"
            return "text"
        return f"unclassified: a `{self.language}` block (no rule runs it, and no marker says how)"

    def lines_before_first_command(self) -> list[str]:
        lines = self.text.splitlines()
        first = next((i for i, line in enumerate(lines) if line.startswith("$ ")), len(lines))
        return lines[:first]

    def commands(self) -> list[Command]:
        commands: list[Command] = []
        continued = False
        for line in self.text.splitlines():
            if continued:
                commands[-1].text += "\n" + line
            elif line.startswith("$ "):
                commands.append(Command(line[2:]))
            elif commands:
                commands[-1].expected.append(line)
            continued = line.endswith("\\") and bool(commands)
        return commands

    def documented_ports(self) -> list[int]:
        found = [int(a or b) for a, b in _LOCAL.findall(self.text)]
        return list(dict.fromkeys(found))


def collect() -> list[Block]:
    blocks = []
    for name in DOCUMENTS:
        lines = (ROOT / name).read_text(encoding="utf-8").splitlines()
        index = 0
        while index < len(lines):
            fence = _FENCE.match(lines[index])
            if fence is None:
                index += 1
                continue
            end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
            block = Block(name, index + 1, fence.group(1), "\n".join(lines[index + 1 : end]) + "\n")
            before = next((lines[i] for i in range(index - 1, -1, -1) if lines[i].strip()), "")
            marker = _MARKER.match(before.strip())
            if marker:
                block.marker = parse_marker(marker.group(1))
            blocks.append(block)
            index = end + 1
    return blocks


def parse_marker(text: str) -> dict[str, list[str]]:
    """`needs a b; exit 0 1` -> {"needs": ["a", "b"], "exit": ["0", "1"]}; `skip` keeps its reason."""
    found: dict[str, list[str]] = {}
    for part in (p.strip() for p in text.split(";")):
        key, _, rest = part.partition(" ")
        found[key] = [rest.strip()] if key in ("skip", "covered-by") else rest.split()
    return found


def substitute(text: str, ports: dict[int, int]) -> str:
    """The documented local ports of `text` replaced by the ones in use."""

    def one(match: re.Match) -> str:
        documented = int(match.group(1) or match.group(2))
        actual = ports.get(documented, documented)
        return match.group(0).replace(str(documented), str(actual))

    return _LOCAL.sub(one, text)


def matches(expected: list[str], actual: list[str]) -> bool:
    """`actual` lines as `expected` says: `...` alone matches any lines, within a line any text."""
    patterns = [None if e.strip() == "..." else _line_pattern(e) for e in expected]
    memo: dict[tuple[int, int], bool] = {}

    def fit(i: int, j: int) -> bool:
        if (i, j) not in memo:
            if i == len(patterns):
                memo[i, j] = j == len(actual)
            elif patterns[i] is None:
                memo[i, j] = fit(i + 1, j) or (j < len(actual) and fit(i, j + 1))
            else:
                memo[i, j] = j < len(actual) and bool(patterns[i].fullmatch(actual[j])) and fit(i + 1, j + 1)
        return memo[i, j]

    return fit(0, 0)


def _line_pattern(line: str) -> re.Pattern:
    return re.compile(".*".join(re.escape(part) for part in line.rstrip().split("...")) + r"\s*")
