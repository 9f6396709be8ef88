"""Draw a control-flow `Graph` as a Mermaid flowchart, in the style of the API notes' diagrams:
bold coloured node titles, `classDef` colour classes, one `linkStyle` per kind of edge.

Every piece of document text (step ids, paths, criteria) goes through `escape`, which writes the
characters Mermaid would read as syntax as entity codes (`#quot;`, `#lt;`, ...), so a label is always
one well-formed quoted string whatever a criterion contains.
"""

from __future__ import annotations

from types import MappingProxyType

from .graph import Cluster, Edge, Graph, Node

# Mermaid entity codes (`#name;` or `#<decimal>;`). `#` itself first: the others introduce it.
_ENTITIES = MappingProxyType(
    {
        "#": "#35;",
        '"': "#quot;",
        "&": "#amp;",
        "<": "#lt;",
        ">": "#gt;",
        "|": "#124;",
        "[": "#91;",
        "]": "#93;",
        "{": "#123;",
        "}": "#125;",
        "`": "#96;",
    }
)

# The palette of the notes' diagrams.
CLASS_DEFS = (
    "classDef purple fill:#ececff,stroke:#9370db,color:#3d3163;",
    "classDef blue fill:#e0f2fe,stroke:#1aa0fe,color:#0c4a6e;",
    "classDef green fill:#e3fbf1,stroke:#007f31,color:#10704b;",
    "classDef orange fill:#fff1e6,stroke:#ff6d2f,color:#9a3f12;",
    "classDef gray fill:#f1f1f1,stroke:#9ca3af,color:#4b5563;",
)
_NODE_STYLE = MappingProxyType(
    {  # kind -> (shape open, shape close, class, title colour)
        "start": ('(["', '"])', "gray", "#4b5563"),
        "step": ('["', '"]', "blue", "#1aa0fe"),
        "workflow-step": ('[["', '"]]', "purple", "#9370db"),
        "asyncapi-step": ('["', '"]', "gray", "#4b5563"),
        "end": ('(["', '"])', "green", "#007f31"),
        "failed": ('(["', '"])', "orange", "#ff6d2f"),
        "unresolved": ('["', '"]', "gray", "#4b5563"),
    }
)
_EDGE_STYLE = MappingProxyType(
    {  # kind -> (arrow, linkStyle); failures and retries are dotted and orange
        "next": ("-->", "stroke:#9ca3af,stroke-width:2px;"),
        "success": ("-->", "stroke:#007f31,stroke-width:2px;"),
        "failure": ("-.->", "stroke:#ff6d2f,stroke-width:2px,stroke-dasharray:4 3;"),
        "retry": ("-.->", "stroke:#ff6d2f,stroke-width:2px,stroke-dasharray:4 3;"),
        "call": ("==>", "stroke:#9370db,stroke-width:2px;"),
        "depends": ("-.->", "stroke:#9ca3af,stroke-width:2px,stroke-dasharray:2 4;"),
    }
)
_EDGE_TITLE = "<span style='padding:1px 8px; font-weight:bold;'>{}</span>"


def escape(text: str) -> str:
    """Plain text -> Mermaid label text: entity codes for syntax characters, whitespace collapsed."""
    flat = " ".join("".join(" " if ord(ch) < 32 else ch for ch in text).split())
    return "".join(_ENTITIES.get(ch, ch) for ch in flat)


def render_mermaid(graph: Graph, direction: str = "TD") -> str:
    lines = [f"flowchart {direction}"]
    for cluster in graph.clusters:
        lines.extend(_cluster(cluster))
    lines.extend(_node(node) for node in graph.nodes)
    lines.extend(_edge(edge) for edge in graph.edges)
    lines.extend(CLASS_DEFS)
    lines.extend(_classes(graph))
    lines.extend(_link_styles(graph.edges))
    return "\n".join(lines) + "\n"


def _cluster(cluster: Cluster) -> list[str]:
    title = f"<b>{escape(cluster.title)}</b>"
    return [
        f'subgraph {cluster.id}["{title}"]',
        *("  " + _node(node) for node in cluster.nodes),
        "end",
    ]


def _node(node: Node) -> str:
    opening, closing, _, colour = _NODE_STYLE[node.kind]
    label = f"<b style='color:{colour}'>{escape(node.title)}</b>"
    if node.detail:
        label += f"<br/>{escape(node.detail)}"
    return f"{node.id}{opening}{label}{closing}"


def _edge(edge: Edge) -> str:
    arrow, _ = _EDGE_STYLE[edge.kind]
    if not edge.lines:
        return f"{edge.source} {arrow} {edge.target}"
    title, *rest = edge.lines
    label = "<br/>".join([_EDGE_TITLE.format(escape(title)), *(escape(line) for line in rest)])
    return f'{edge.source} {arrow}|"{label}"| {edge.target}'


def _classes(graph: Graph) -> list[str]:
    members: dict[str, list[str]] = {}
    nodes = [n for c in graph.clusters for n in c.nodes] + graph.nodes
    for node in nodes:
        members.setdefault(_NODE_STYLE[node.kind][2], []).append(node.id)
    return [f"class {','.join(ids)} {name}" for name, ids in members.items()]


def _link_styles(edges: list[Edge]) -> list[str]:
    """`linkStyle` counts edges in the order they are written, from 0."""
    by_style: dict[str, list[str]] = {}
    for index, edge in enumerate(edges):
        by_style.setdefault(_EDGE_STYLE[edge.kind][1], []).append(str(index))
    return [f"linkStyle {','.join(indexes)} {style}" for style, indexes in by_style.items()]
