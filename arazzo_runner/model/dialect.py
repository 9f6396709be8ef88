"""Forms other tools write that the engine runs, each read as the one standard form it stands for.

Most Arazzo documents in the wild were written for Redocly Respect or Jentic's runner and use forms the
specification does not define. Each form here has exactly one meaning: the engine runs it as that
standard form, `arazzo validate` warns naming the standard form (the form's id is the rule id), and
`arazzo validate --fix` writes it. A form is read only where it cannot mean anything standard: a plain
reading always wins (an operationId that exists as written, a source whose `url` is the text before `#`).

- `operation-id-source-prefix` (Respect): `operationId: <source>.<operationId>` is
  `$sourceDescriptions.<source>.<operationId>`.
- `workflow-id-legacy` (Respect): `$sourceDescriptions.<source>.workflows.<id>` is
  `$sourceDescriptions.<source>.<id>`.
- `operation-path-source-name` (Jentic): `operationPath: <source>#/paths/...` is
  `{$sourceDescriptions.<source>.url}#/paths/...`.
- `header-plural` (Jentic): `$response.headers.X` is `$response.header.X`.
- `step-output-shorthand` (Jentic): `$steps.<id>.<name>` is `$steps.<id>.outputs.<name>`.
- `dependencies-expression` (Jentic): `$dependencies.<workflowId>.<name>` is
  `$workflows.<workflowId>.outputs.<name>` (an output of a workflow listed in `dependsOn`).

The three expression forms are grammar: the expression parser reads them and records each as a
`Rewrite` on the expression node (`expressions/ast.py`). This module is a leaf: it imports nothing of
the engine, so the parser, the workspace and the validator can all use it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

OPERATION_ID_SOURCE_PREFIX = "operation-id-source-prefix"
WORKFLOW_ID_LEGACY = "workflow-id-legacy"
OPERATION_PATH_SOURCE_NAME = "operation-path-source-name"
HEADER_PLURAL = "header-plural"
STEP_OUTPUT_SHORTHAND = "step-output-shorthand"
DEPENDENCIES_ROOT = "dependencies-expression"

FORMS = (
    OPERATION_ID_SOURCE_PREFIX,
    WORKFLOW_ID_LEGACY,
    OPERATION_PATH_SOURCE_NAME,
    HEADER_PLURAL,
    STEP_OUTPUT_SHORTHAND,
    DEPENDENCIES_ROOT,
)

_NAME = re.compile(r"[A-Za-z0-9_\-]+")
_LEGACY_PREFIX = "workflows."


def source_prefixed(operation_id: str, sources: Iterable[str]) -> tuple[str, str] | None:
    """(source, operationId) of Respect's `<source>.<operationId>` when `<source>` is one of `sources`
    (the names of the non-arazzo source descriptions); None otherwise. The caller tries the plain reading
    first: an operationId may itself contain dots."""
    head, dot, rest = operation_id.partition(".")
    if dot and rest and head in set(sources):
        return head, rest
    return None


def standard_operation_id(source: str, operation_id: str) -> str:
    return f"$sourceDescriptions.{source}.{operation_id}"


def legacy_workflow(reference: str) -> str | None:
    """The workflowId in Respect's legacy `workflows.<id>` reference (the part after
    `$sourceDescriptions.<source>.`), else None."""
    if reference.startswith(_LEGACY_PREFIX) and _NAME.fullmatch(reference[len(_LEGACY_PREFIX) :]):
        return reference[len(_LEGACY_PREFIX) :]
    return None


def source_named_path(text: str, sources: Iterable[str], urls: Iterable[str]) -> tuple[str, str] | None:
    """(source, `#fragment`) of Jentic's `operationPath: <source>#/paths/...`, where the text before `#`
    is a source description's name and no source's `url`; None otherwise."""
    head, sep, fragment = text.partition("#")
    if not sep or head in set(urls) or head not in set(sources):
        return None
    return head, "#" + fragment


def standard_operation_path(source: str, fragment: str) -> str:
    return f"{{$sourceDescriptions.{source}.url}}{fragment}"


_OPERATION_PATH = (  # compiled on first use (`re`'s cache): not at every start
    r"^(?:\{\$sourceDescriptions\.(?P<braced>[A-Za-z0-9_\-]+)\.url\}"
    r"|\$sourceDescriptions\.(?P<url>[A-Za-z0-9_\-]+)\.url"
    r"|\$sourceDescriptions\.(?P<source>[A-Za-z0-9_\-]+))(?P<fragment>#.*)$"
)


def operation_path_parts(text: str) -> tuple[str, str, bool] | None:
    """(source name, `#fragment`, standard) of an operationPath that names its source with a runtime
    expression; None for any other form. `{$sourceDescriptions.<name>.url}#...` is the specification's
    form (also accepted without the braces); `$sourceDescriptions.<name>#...` names the Source
    Description itself, as an official 1.1 test document and published examples write it: the spec asks
    for "a Runtime Expression to identify the source description document", which it is, so it is
    accepted too (not standard: `validate` warns)."""
    match = re.match(_OPERATION_PATH, text)
    if match is None:
        return None
    name = match.group("braced") or match.group("url") or match.group("source")
    return name, match.group("fragment"), match.group("source") is None
