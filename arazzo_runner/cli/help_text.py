"""What each command's `--help` says besides its options: a one-line description, examples to copy
(on the repository's own files: `examples/`, `workflows/`) and the exit codes. A test parses every
example with the command's parser and checks the files it names exist."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from types import MappingProxyType

from ..records import Record

INTERRUPTED = "130  interrupted (Ctrl-C)"


class Help(Record):
    description: str
    examples: tuple[str, ...]
    exits: tuple[str, ...]

    def text(self) -> str:
        """The description, wrapped (the help formatter keeps it as written)."""
        return textwrap.fill(self.description, 100)

    def epilog(self) -> str:
        lines = ["examples:", *(f"  {example}" for example in self.examples), "", "exit codes:"]
        lines.extend(f"  {code}" for code in self.exits)
        return "\n".join(lines)


PETSTORE = "examples/petstore/petstore.arazzo.yaml"
SHOP = "examples/shop/shop.arazzo.yaml"
CHAT = "workflows/chat-completion-tool-call.arazzo.yaml"

COMMANDS: Mapping[str, Help] = MappingProxyType(
    {
        "run": Help(
            "Run the workflows of an Arazzo document against real APIs; print each step as it ends.",
            (
                f"arazzo run {PETSTORE} -w pet_status --input petId=1 \\\n"
                "      --server petstore=http://127.0.0.1:8080",
                f"arazzo run {CHAT} --inputs examples/chat/inputs.json \\\n"
                "      --server chatCompletionsApi=http://127.0.0.1:8765/v1 --junit chat.xml",
                f"arazzo run {SHOP} -w checkout --inputs-file examples/shop/customers.jsonl \\\n"
                "      --auth bearer=TOKEN --concurrency 4 --format json",
            ),
            (
                "0    every selected workflow passed",
                "1    a workflow failed, or was not run (it cannot run with one meaning; the others ran)",
                "2    nothing could run (a usage error, every selected workflow refused): nothing was sent",
                f"{INTERRUPTED}: the --junit, --har and --report-json files hold the steps that ran",
            ),
        ),
        "validate": Help(
            "Check Arazzo documents: the official JSON Schema, the semantic rules and the OpenAPI "
            "descriptions they name.",
            (
                "arazzo validate workflows/*.arazzo.yaml examples/*/*.arazzo.yaml",
                f"arazzo validate {SHOP} --strict --format sarif",
                "arazzo validate --diff workflows/seed-chat-completion-tool-call.arazzo.yaml",
            ),
            (
                "0    no errors",
                "1    errors (or warnings, with --strict); with --diff, also: something to fix",
                "2    a file could not be read, or a usage error",
            ),
        ),
        "upgrade": Help(
            "Rewrite Arazzo 1.0.x documents as 1.1, in place, comments and formatting kept; a document with "
            "a form that would change meaning is not written, and the form is listed.",
            (
                f"arazzo upgrade --diff {PETSTORE}",
                f"arazzo upgrade --diff --format json {CHAT}",
            ),
            (
                "0    written (or nothing to change)",
                "1    a document could not be upgraded (its forms listed); --diff: something would change",
                "2    a file could not be read, or a usage error",
            ),
        ),
        "list": Help(
            "List the workflows of a document with their inputs and outputs.",
            (f"arazzo list {PETSTORE}", f"arazzo list {CHAT} --format json"),
            ("0    listed", "2    a usage or document error"),
        ),
        "describe": Help(
            "Describe workflows step by step: target, parameters, success criteria and the actions taken "
            "after each, in evaluation order.",
            (f"arazzo describe {SHOP} -w checkout", f"arazzo describe {CHAT} --format json"),
            ("0    described", "2    a usage or document error"),
        ),
        "graph": Help(
            "Print the control flow of workflows as a Mermaid flowchart (or nodes and edges in JSON).",
            (f"arazzo graph {CHAT}", f"arazzo graph {SHOP} -w checkout --format json"),
            ("0    drawn", "2    a usage or document error"),
        ),
        "auth": Help(
            "List the security schemes of a document's sources, and the flags and variables that give "
            "their credentials (never a value).",
            (f"arazzo auth {PETSTORE}", f"arazzo auth {SHOP} --format json"),
            ("0    listed", "2    a usage or document error"),
        ),
        "demo": Help(
            "Run the LLM tool-call workflow against the bundled reference server, down both branches, "
            "offline: a live trace, the outputs and both answers.",
            ("arazzo demo", "arazzo demo | cat        # piped: no colours"),
            ("0    both branches passed", "1    a branch failed", INTERRUPTED),
        ),
        "tools": Help(
            "Print the workflows as tool definitions for LLM APIs: OpenAI, Anthropic or MCP.",
            (
                f"arazzo tools {PETSTORE}",
                f"arazzo tools {PETSTORE} -w pet_status --format anthropic",
                f"arazzo tools {CHAT} --format mcp --input model=gpt-4o-mini  # fixed: not a parameter",
            ),
            ("0    printed", "2    a usage or document error"),
        ),
        "mcp": Help(
            "Serve the workflows as the tools of an MCP server, over stdio (for desktop clients) or "
            "streamable HTTP; each tool call runs its workflow.",
            (
                f"arazzo mcp {PETSTORE} --server petstore=http://127.0.0.1:8080 --auth api_key=KEY",
                f"arazzo mcp {PETSTORE} --transport http --port 8000",
                f"ARAZZO_MCP_TOKEN=... arazzo mcp {SHOP} --transport http --host 0.0.0.0 --auth bearer=TOKEN",
            ),
            (
                "0    the client closed the session (stdio) or the server was stopped",
                "2    a usage or document error, a credential input without a value, or the MCP SDK missing",
                INTERRUPTED,
            ),
        ),
        "lsp": Help(
            "Serve a language server (LSP 3.17) over stdio for an editor: diagnostics from the validator "
            "as you type, completion, go-to-definition, references, rename, hover and quick fixes "
            "(docs/editor.md).",
            ("arazzo lsp", "arazzo lsp --offline  # never fetch a remote source description"),
            (
                "0    the client ended the session (shutdown and exit, or stdin closed)",
                "2    a usage error, or pygls missing (the lsp extra)",
            ),
        ),
        "agent": Help(
            "Let a chat model use the workflows as tools: every tool call it makes runs its workflow, "
            "until it answers.",
            (
                f'arazzo agent {PETSTORE} --prompt "Is pet 1 available?" \\\n'
                "      --server petstore=http://127.0.0.1:8080",
                f'arazzo agent {PETSTORE} --prompt "Is pet 1 available?" \\\n'
                "      --server petstore=http://127.0.0.1:8080 --api anthropic \\\n"
                "      --chat https://api.anthropic.com/v1 --model claude-sonnet-4-5 \\\n"
                "      --chat-retries 4 --chat-idle-timeout 30 --agent-timeout 300  # ANTHROPIC_API_KEY",
                f"arazzo agent {PETSTORE} --server petstore=http://127.0.0.1:8080 \\\n"
                "      --replay examples/petstore/pet-status.recording.json     # in CI: no model, no key",
            ),
            (
                "0    the model answered",
                "1    no answer: the chat API failed (retries spent), the turns or --agent-timeout ran out, "
                "or a replay left its recording",
                "2    a usage or document error",
                INTERRUPTED,
            ),
        ),
        "load": Help(
            "Load-test workflows: Locust users that run them, headless, with `arazzo run`'s flags for the "
            "workflow, Locust's statistics and reports, and thresholds.",
            (
                f"arazzo load {SHOP} -w checkout=3 -w browse --server shop=http://127.0.0.1:8090 \\\n"
                "      --auth bearer=TOKEN --inputs-file examples/shop/customers.jsonl \\\n"
                "      --users 20 --run-time 1m",
                f"arazzo load {SHOP} -w browse --users 50 --workers 3 --threshold 'p95(products)<300ms' \\\n"
                "      --csv out/shop --junit out/load.xml",
            ),
            (
                "0    every threshold held and no request failed",
                "1    a threshold broken, or a request failed",
                "2    a usage error (nothing started), or a report that could not be written",
                f"{INTERRUPTED}: the statistics of what ran are printed",
            ),
        ),
        "report": Help(
            "Write one HTML page of saved runs (`arazzo run --report-json`, `arazzo agent --report-json`), "
            "offline, with a CI summary; compare two runs with --diff.",
            (
                "arazzo report examples/reports/chat-before.json -o report.html --summary summary.md",
                "arazzo report examples/reports/chat-before.json examples/reports/chat-after.json --diff \\\n"
                "      -o diff.html",
            ),
            (
                "0    written (whatever the runs' own outcome)",
                "2    a usage error: a file that is not a saved run, a folder that does not exist",
            ),
        ),
        "coverage": Help(
            "List the operations of each document's OpenAPI source descriptions that no workflow step "
            "references (static: nothing is run). Coverage of a run: `arazzo run --coverage`.",
            ("arazzo coverage examples/drift/drift.arazzo.yaml", f"arazzo coverage {PETSTORE} --format json"),
            (
                "0    listed",
                "1    fewer operations referenced than --min-coverage asks",
                "2    a usage or document error",
            ),
        ),
        "generate": Help(
            "Generate an Arazzo document whose workflows run from OpenAPI descriptions: a workflow per "
            "operation, chains from links and resources, example inputs; with --chat, a model's proposals.",
            (
                "arazzo generate openapi/orders.openapi.yaml -o orders.arazzo.yaml --inputs-out inputs.json",
                "arazzo generate examples/petstore/petstore.openapi.yaml --operation getPet --no-chains",
            ),
            (
                "0    every operation's workflow and chain written",
                "1    one had to be dropped (the document is written without it, the reason on stderr)",
                "2    a usage error, or a description that cannot be read (nothing written)",
            ),
        ),
        "worker": Help(
            "Run a Temporal worker (the [temporal] extra) for `arazzo run --temporal`: it runs the "
            "submitted runs, each HTTP exchange an activity, with the credentials of its own environment "
            "(ARAZZO_AUTH_*). Stop it with Ctrl-C or SIGTERM.",
            (
                "arazzo worker --temporal 127.0.0.1:7233",
                "arazzo worker --temporal 127.0.0.1:7233 --namespace default --task-queue arazzo",
            ),
            ("0    stopped", "2    a usage error (the extra not installed, the service not reachable)"),
        ),
    }
)

TOP_LEVEL = Help(
    "Run and validate Arazzo workflows.",
    (
        "arazzo demo",
        f"arazzo run {PETSTORE} -w pet_status --input petId=1",
        "arazzo validate workflows/*.arazzo.yaml",
        "arazzo COMMAND --help           # a command's options, examples and exit codes",
    ),
    ("0    success", "1    a workflow (or check) failed", "2    a usage or document error", INTERRUPTED),
)
