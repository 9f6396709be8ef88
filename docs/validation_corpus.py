"""Regenerate the generated tables of `docs/validation.md`: the rule table (from the rule catalogue) and what
the validator finds in `../shared` (every Arazzo document of the corpus, the official examples and the
official schema tests; sources loaded when local, remote ones not fetched).

    python docs/validation_corpus.py          # rewrite the tables in place
    python docs/validation_corpus.py --check  # exit 1 when the file is not up to date
"""

from __future__ import annotations

import collections
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, whatever is installed

from arazzo_runner.errors import ArazzoError
from arazzo_runner.loader import load_path
from arazzo_runner.validate import RULES, Report, validate_path

DOC = Path(__file__).resolve().with_name("validation.md")
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
COLLECTIONS = ("corpus", "arazzo/examples", "arazzo/schema-tests")


def arazzo_documents(root: Path) -> list[Path]:
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
            continue
        try:
            data = load_path(path).data
        except ArazzoError:
            continue
        if isinstance(data, dict) and "arazzo" in data:
            found.append(path)
    return found


def collection_of(path: Path) -> str:
    relative = path.relative_to(SHARED).parts
    if relative[0] == "corpus":
        return f"corpus/{relative[1]}"
    return "/".join(relative[:2])


def validate_all() -> dict[Path, Report]:
    documents = [p for c in COLLECTIONS for p in arazzo_documents(SHARED / c)]
    return {path: validate_path(path, remote=False) for path in documents}


def rules_table() -> str:
    lines = ["| rule | severity | area | what it checks |", "|---|---|---|---|"]
    for rule in RULES.values():
        lines.append(f"| `{rule.id}` | {rule.severity} | {rule.area} | {_cell(rule.summary)} |")
    return "\n".join(lines)


def corpus_tables(reports: dict[Path, Report]) -> str:
    by_collection: dict[str, list[Report]] = collections.defaultdict(list)
    for path, report in reports.items():
        by_collection[collection_of(path)].append(report)
    lines = [
        "| collection | documents | without errors | errors | warnings |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, group in sorted(by_collection.items()):
        clean = sum(1 for r in group if not r.errors)
        errors = sum(len(r.errors) for r in group)
        warnings = sum(len(r.warnings) for r in group)
        lines.append(f"| `{name}` | {len(group)} | {clean} | {errors} | {warnings} |")
    total = list(reports.values())
    lines.append(
        f"| **all** | {len(total)} | {sum(1 for r in total if not r.errors)} | "
        f"{sum(len(r.errors) for r in total)} | {sum(len(r.warnings) for r in total)} |"
    )
    # by rule and the severity actually reported (some rules report warnings too: 1.0 forward
    # references, undeclared names of open inputs schemas, the non-standard operationPath form)
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    documents: dict[tuple[str, str], set[Path]] = collections.defaultdict(set)
    example: dict[tuple[str, str], str] = {}
    for path, report in reports.items():
        for finding in report.findings:
            key = (finding.rule, finding.severity)
            counts[key] += 1
            documents[key].add(path)
            if key not in example:
                where = f"{path.relative_to(SHARED).as_posix()}:{finding.line}"
                example[key] = f"`{where}`: {_cell(_trim(finding.message))}"
    lines += ["", "| rule | severity | findings | documents | first example |", "|---|---|---:|---:|---|"]
    for rule_id in RULES:
        for severity in ("error", "warning"):
            key = (rule_id, severity)
            if counts[key]:
                cells = [f"`{rule_id}`", severity, str(counts[key]), str(len(documents[key])), example[key]]
                lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def replace_block(text: str, name: str, body: str) -> str:
    pattern = re.compile(rf"(<!-- BEGIN {name} -->\n).*?(<!-- END {name} -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{DOC}: no '<!-- BEGIN {name} -->' block")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


def render(current: str, reports: dict[Path, Report] | None = None) -> str:
    text = replace_block(current, "rules", rules_table())
    if reports is not None:
        text = replace_block(text, "corpus", corpus_tables(reports))
    return text


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _trim(text: str, limit: int = 110) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def main(argv: list[str]) -> int:
    current = DOC.read_text(encoding="utf-8")
    reports = validate_all() if SHARED.is_dir() else None
    updated = render(current, reports)
    if "--check" in argv:
        return 0 if updated == current else 1
    DOC.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
