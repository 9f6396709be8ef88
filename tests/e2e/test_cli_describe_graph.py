"""`arazzo describe` and `arazzo graph`: the bundled workflows and a fixture with every kind of edge
(inherited actions, retry, goto a step and a workflow, end, workflowId steps, dependsOn), and labels
full of characters Mermaid reads as syntax."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import ROOT, cli, op_step, workflow

BUNDLED = sorted((ROOT / "workflows").glob("*.arazzo.yaml"))
NASTY = '^<a>[b]{c}|`d`"e"#f&g$'  # a regex criterion: every character Mermaid could misread

MAIN = workflow(
    "main",
    op_step(
        "fetch",
        "getPet",
        parameters=[{"name": "petId", "in": "path", "value": "$inputs.petId"}],
        successCriteria=[{"condition": "$statusCode == 200"}],
        onSuccess=[
            {
                "name": "isCat",
                "type": "goto",
                "stepId": "cat",
                "criteria": [{"condition": "$response.body#/kind == 'cat'"}],
            },
            {
                "name": "odd",
                "type": "end",
                "criteria": [{"context": "$response.body#/name", "condition": NASTY, "type": "regex"}],
            },
        ],
        onFailure=[
            {
                "name": "again",
                "type": "retry",
                "retryLimit": 3,
                "retryAfter": 0.5,
                "criteria": [{"condition": "$statusCode >= 500"}],
            }
        ],
    ),
    {"stepId": "dog", "workflowId": "child", "parameters": [{"name": "kind", "value": "dog"}]},
    op_step(
        "cat",
        "deletePet",
        parameters=[{"name": "petId", "in": "path", "value": "$inputs.petId"}],
        onFailure=[{"name": "toChild", "type": "goto", "workflowId": "child"}],
    ),
    dependsOn=["setup"],
    inputs={
        "type": "object",
        "required": ["petId"],
        "properties": {
            "petId": {"type": "string", "description": "the pet"},
            "mode": {"type": "string", "default": "x"},
        },
    },
    parameters=[{"name": "X-Trace", "in": "header", "value": "t-1"}],
    failureActions=[{"name": "giveUp", "type": "end"}],
    outputs={"kind": "$steps.fetch.outputs.kind"},
)
CHILD = workflow(
    "child",
    op_step("look", "listPets"),
    inputs={"type": "object", "properties": {"kind": {"type": "string"}}},
)
SETUP = workflow("setup", op_step("login", "login"))


@pytest.fixture
def flows(write) -> Path:
    return write(arazzo_doc(MAIN, CHILD, SETUP))


# -- describe ------------------------------------------------------------------------------------------


def test_describe_json_shows_targets_merged_parameters_and_actions_in_order(capsys, flows):
    result = cli(capsys, "describe", flows, "--workflow", "main", "--format", "json")
    assert result.code == 0, result.err
    (main,) = result.json["workflows"]
    assert main["dependsOn"] == ["setup"]
    assert main["inputs"][0] == {
        "name": "petId",
        "type": "string",
        "required": True,
        "description": "the pet",
    }
    fetch, dog, cat = main["steps"]
    assert fetch["target"] == {
        "kind": "operation",
        "operationId": "getPet",
        "source": "pets",
        "method": "GET",
        "path": "/pets/{petId}",
    }
    assert dog["target"] == {"kind": "workflow", "workflowId": "child"}
    assert {"name": "X-Trace", "in": "header", "value": "t-1", "from": "workflow"} in fetch["parameters"]
    assert dog["parameters"] == [{"name": "kind", "value": "dog"}]  # `in` params are for operations only
    assert [a["name"] for a in fetch["onSuccess"]] == ["isCat", "odd"]
    assert fetch["onSuccess"][1]["criteria"] == [
        {"condition": NASTY, "type": "regex", "context": "$response.body#/name"}
    ]
    again, give_up = fetch["onFailure"]  # the step's own first, then the workflow's
    assert again == {
        "name": "again",
        "type": "retry",
        "from": "step",
        "criteria": [{"condition": "$statusCode >= 500"}],
        "retryLimit": 3,
        "retryAfter": 0.5,
    }
    assert give_up == {"name": "giveUp", "type": "end", "from": "workflow", "criteria": []}
    assert fetch["next"] == "dog" and cat["next"] is None
    assert cat["onFailure"][0]["workflowId"] == "child"
    assert main["outputs"] == {"kind": "$steps.fetch.outputs.kind"}


def test_describe_text_reads_in_evaluation_order_with_the_fallbacks(capsys, flows):
    result = cli(capsys, "describe", flows, "-w", "main")
    assert result.code == 0, result.err
    out = result.out
    assert "1. fetch  GET /pets/{petId}  (getPet in source pets)" in out
    assert "2. dog  workflow child" in out
    assert "X-Trace (header): t-1  [from workflow]" in out
    assert "1. again: retry (limit 3, after 0.5 s)" in out and "when $statusCode >= 500" in out
    assert "2. giveUp: end  [from workflow]" in out
    assert "otherwise: next step dog" in out
    assert "otherwise: the workflow ends (passed)" in out
    assert out.index("isCat") < out.index("odd") < out.index("again")


def test_describe_every_workflow_by_default_and_an_unknown_one_is_a_usage_error(capsys, flows):
    every = cli(capsys, "describe", flows, "--format", "json")
    assert [w["workflowId"] for w in every.json["workflows"]] == ["main", "child", "setup"]
    unknown = cli(capsys, "describe", flows, "--workflow", "nope")
    assert unknown.code == 2 and "no workflow 'nope'" in unknown.err and unknown.out == ""


def test_describe_keeps_going_when_a_source_cannot_be_loaded(capsys, write):
    path = write(arazzo_doc(workflow("w", op_step("s", "getPet"))), openapi=None)  # no OpenAPI file
    result = cli(capsys, "describe", path, "--format", "json")
    assert result.code == 0, result.err
    target = result.json["workflows"][0]["steps"][0]["target"]
    assert target["operationId"] == "getPet" and "cannot be loaded" in target["unresolved"]


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_describe_and_graph_every_bundled_workflow(capsys, path):
    described = cli(capsys, "describe", path, "--format", "json")
    assert described.code == 0, described.err
    chat = path.name != "order-events.arazzo.yaml"  # the one mixing HTTP and events is checked below
    for wf in described.json["workflows"]:
        for step in wf["steps"]:
            target = step["target"]  # every target resolved: an operation, or an AsyncAPI channel
            if chat:
                assert target.get("method") == "POST", target
            else:
                assert target.get("method") in ("POST", "GET") or target.get("address"), target
    graph = cli(capsys, "graph", path)
    assert graph.code == 0, graph.err
    check_mermaid(graph.out)
    text = cli(capsys, "describe", path)
    assert text.code == 0
    assert ("POST /chat/completions" if chat else "receive shop/orders/confirmed") in text.out


# -- graph ---------------------------------------------------------------------------------------------


def test_graph_of_the_tool_call_workflow(capsys):
    path = ROOT / "workflows/chat-completion-tool-call.arazzo.yaml"
    result = cli(capsys, "graph", path)
    lines = check_mermaid(result.out)
    assert (
        lines["nodes"]["W0_S0"] == "<b style='color:#1aa0fe'>createCompletion</b><br/>POST /chat/completions"
    )
    edges = lines["edges"]
    goto = edges[("W0_S0", "W0_S1")][0]
    assert goto[0] == "-->" and "modelCalledTool (goto)" in goto[1]
    assert "#quot;tool_calls#quot;" in goto[1] and "$.choices#91;?@" in goto[1]  # escaped, not raw
    assert "modelAnsweredDirectly (end)" in edges[("W0_S0", "W0_END")][0][1]
    assert edges[("W0_S0", "W0_FAIL")][0][0] == "-.->"  # failure edges are dotted
    assert edges[("W0_S1", "W0_END")] == [("-->", None)]  # the default "next" of the last step


def test_graph_draws_every_kind_of_edge_with_nested_workflows_as_subgraphs(capsys, flows):
    result = cli(capsys, "graph", flows, "--workflow", "main")
    assert result.code == 0, result.err
    parsed = check_mermaid(result.out)
    assert parsed["subgraphs"] == {"W0": "<b>main</b>", "W1": "<b>setup</b>", "W2": "<b>child</b>"}
    edges = parsed["edges"]
    main = {"fetch": "W0_S0", "dog": "W0_S1", "cat": "W0_S2"}

    def label(source: str, target: str, index: int = 0) -> tuple[str, str | None]:
        return edges[(source, target)][index]

    assert "dependsOn" in label("W1_END", "W0_START")[1]
    assert "isCat (goto)" in label(main["fetch"], main["cat"])[1]
    retry = label(main["fetch"], main["fetch"])  # a plain retry loops on its step
    assert retry[0] == "-.->" and "again (retry)" in retry[1] and "limit 3, after 0.5 s" in retry[1]
    assert "$statusCode #gt;= 500" in retry[1]
    odd = label(main["fetch"], "W0_END")[1]
    assert "#lt;a#gt;#91;b#93;#123;c#125;#124;#96;d#96;#quot;e#quot;#35;f#amp;g$" in odd
    assert "giveUp (end)" in label(main["fetch"], "W0_FAIL")[1]
    # giveUp always applies (no criteria): no "otherwise fails" edge is drawn after it
    assert len(edges[(main["fetch"], "W0_FAIL")]) == 1
    assert label(main["dog"], "W2_START")[0] == "==>"  # a workflowId step calls its subgraph
    assert "toChild (goto)" in label(main["cat"], "W2_START")[1]
    assert "W2_S0" in parsed["nodes"] and ("W2_S0", "W2_END") in edges


def test_graph_json_has_the_same_nodes_and_edges(capsys, flows):
    mermaid = check_mermaid(cli(capsys, "graph", flows).out)
    data = cli(capsys, "graph", flows, "--format", "json").json
    nodes = {n["id"] for w in data["workflows"] for n in w["nodes"]}
    assert nodes == set(mermaid["nodes"])
    assert len(data["edges"]) == sum(len(v) for v in mermaid["edges"].values())
    retry = next(e for e in data["edges"] if e.get("action") == "again")
    assert retry["kind"] == "retry" and retry["from"] == retry["to"]


def test_a_workflow_that_cannot_be_resolved_is_a_placeholder_node(capsys, write):
    doc = arazzo_doc(
        workflow("w", {"stepId": "s", "workflowId": "$sourceDescriptions.other.flow"}),
        sources=[{"name": "other", "url": "./missing.arazzo.yaml", "type": "arazzo"}],
    )
    result = cli(capsys, "graph", write(doc, openapi=None))
    assert result.code == 0, result.err
    parsed = check_mermaid(result.out)
    assert "workflow $sourceDescriptions.other.flow" in parsed["nodes"]["X0"]
    assert ("W0_S0", "X0") in parsed["edges"]


# -- a Mermaid checker ---------------------------------------------------------------------------------

_ID = r"[A-Za-z][A-Za-z0-9_]*"
_SHAPES = r'(\["|\(\["|\[\["|\{")(.*?)("\]|"\]\)|"\]\]|"\})'
NODE = re.compile(rf"^\s*({_ID}){_SHAPES}$")
EDGE = re.compile(rf'^({_ID}) (-->|-\.->|==>)(?:\|"(.*)"\|)? ({_ID})$')
SUBGRAPH = re.compile(rf'^subgraph ({_ID})\["(.*)"\]$')
ALLOWED_TAGS = re.compile(r"<b( style='color:#[0-9a-f]{6}')?>|</b>|<br/>|<span style='[^'<>\"]*'>|</span>")
ENTITY = re.compile(r"#(?:quot|amp|lt|gt|\d+);")


def check_label(label: str) -> None:
    """A label must be one well-formed quoted string: no raw `"`, and outside the tags we write, no
    character Mermaid reads as syntax (they are entity codes)."""
    assert '"' not in label, label
    bare = ENTITY.sub("", ALLOWED_TAGS.sub("", label))
    for char in '"<>|[]{}`#':
        assert char not in bare, (char, label)


def check_mermaid(text: str) -> dict:
    """Parse a flowchart line by line; every line must be a known form, every edge end a node, every
    linkStyle index an edge. Returns nodes, edges (source, target) -> [(arrow, label)] and subgraphs."""
    lines = text.splitlines()
    assert lines[0] in ("flowchart TD", "flowchart LR")
    nodes: dict[str, str] = {}
    edges: dict[tuple[str, str], list] = {}
    subgraphs: dict[str, str] = {}
    count, depth = 0, 0
    for line in lines[1:]:
        stripped = line.strip()
        if match := SUBGRAPH.match(stripped):
            check_label(match.group(2))
            subgraphs[match.group(1)] = match.group(2)
            depth += 1
        elif stripped == "end":
            depth -= 1
        elif match := NODE.match(line):
            check_label(match.group(3))
            assert match.group(1) not in nodes
            nodes[match.group(1)] = match.group(3)
        elif match := EDGE.match(stripped):
            if match.group(3) is not None:
                check_label(match.group(3))
            edges.setdefault((match.group(1), match.group(4)), []).append((match.group(2), match.group(3)))
            count += 1
        elif stripped.startswith(("classDef ", "class ", "linkStyle ")):
            _check_style(stripped, nodes, count)
        else:
            pytest.fail(f"unexpected Mermaid line: {line!r}")
    assert depth == 0
    for source, target in edges:
        assert source in nodes and target in nodes, (source, target)
    return {"nodes": nodes, "edges": edges, "subgraphs": subgraphs}


def _check_style(line: str, nodes: dict[str, str], edge_count: int) -> None:
    kind, names, *_ = line.split(" ")
    if kind == "class":
        assert all(n in nodes for n in names.split(",")), line
    elif kind == "linkStyle":
        assert all(int(i) < edge_count for i in names.split(",")), line
        assert line.endswith(";")
