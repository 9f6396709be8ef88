"""Per-rule severities: `--rule RULE=off|warning|error`, and the same in a configuration file.

A team adopts the validator one rule at a time: turn a rule off, demote an error to a warning while the
documents are fixed, or make a warning (a dialect form) an error. The configuration is found as ruff
finds its own, by walking up from each document's folder: the first folder holding `.arazzo.toml`, or a
`pyproject.toml` with a `[tool.arazzo]` table, gives it (a `pyproject.toml` without one is passed over).

    # pyproject.toml                      # .arazzo.toml
    [tool.arazzo.validate]                [validate]
    strict = false                        rules = { "expression-accessor" = "off" }
    [tool.arazzo.validate.rules]
    expression-accessor = "off"
    dialect = "error"                     # an area name applies to all of its rules

A rule's own setting wins over its area's; `--rule` wins over the file; `--config PATH` names the file,
`--isolated` ignores every file. Unknown rules, levels and keys are usage errors, with the place.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import UsageError
from ..records import Record, field, replace
from ..spelling import json_spelling
from .catalogue import AREAS, RULES
from .checker import did_you_mean
from .findings import ERROR, WARNING, Finding, Report

OFF = "off"
LEVELS = MappingProxyType({"off": OFF, "warning": WARNING, "warn": WARNING, "error": ERROR})
_KEYS = frozenset({"rules", "strict"})


class Settings(Record, frozen=True):
    """Rule or area -> `off`/`warning`/`error`; `strict` from the file (None: not set); `source`: the file."""

    rules: dict[str, str] = field(default_factory=dict)
    strict: bool | None = None
    source: str | None = None

    def level(self, rule: str) -> str | None:
        """The configured level of `rule` (its own, else its area's); None: the catalogue's default."""
        if rule in self.rules:
            return self.rules[rule]
        meta = RULES.get(rule)
        return self.rules.get(meta.area) if meta is not None else None

    def apply(self, report: Report) -> Report:
        """`report` with the levels applied: `off` findings dropped, the others at their level."""
        if not self.rules and self.strict is None:
            return report
        findings: list[Finding] = []
        for finding in report.findings:
            level = self.level(finding.rule)
            if level == OFF and finding.rule != "document-parse":
                continue
            findings.append(finding if level in (None, OFF) else replace(finding, severity=level))
        strict = report.strict if self.strict is None else (report.strict or self.strict)
        return replace(report, findings=findings, strict=strict)

    def merged(self, overrides: dict[str, str]) -> Settings:
        return replace(self, rules={**self.rules, **overrides})


def parse_rule_options(items: list[str]) -> dict[str, str]:
    """`--rule RULE=LEVEL` items (RULE may be an area) -> {rule: level}; UsageError when malformed."""
    rules = {}
    for item in items:
        name, sep, level = item.partition("=")
        if not sep:
            raise UsageError(f"--rule expects RULE=off|warning|error, got {item!r}")
        rules[name.strip()] = _level(level.strip(), f"--rule {item}")
        _check_name(name.strip(), f"--rule {item}")
    return rules


def settings_for(document: str | os.PathLike[str], *, config: str | None = None, isolated: bool = False,
                 rules: dict[str, str] | None = None) -> Settings:  # fmt: skip
    """The settings that apply to `document`: `config` (a file) or the nearest configuration file, then
    the `--rule` overrides."""
    overrides = rules or {}
    if isolated:
        return Settings(rules=dict(overrides))
    path = Path(config) if config else find_config(Path(document).resolve().parent)
    base = load_settings(path) if path is not None else Settings()
    return base.merged(overrides)


def find_config(folder: Path) -> Path | None:
    """The nearest `.arazzo.toml`, or `pyproject.toml` with a `[tool.arazzo]` table, from `folder` up."""
    for current in (folder, *folder.parents):
        dotted = current / ".arazzo.toml"
        if dotted.is_file():
            return dotted
        project = current / "pyproject.toml"
        if project.is_file() and "arazzo" in _read(project).get("tool", {}):
            return project
    return None


def load_settings(path: Path) -> Settings:
    data = _read(path)
    if path.name == "pyproject.toml":
        section = data.get("tool", {}).get("arazzo", {})
        where = "[tool.arazzo.validate]"
    else:
        section = data
        where = "[validate]"
    if not isinstance(section, dict):
        raise UsageError(f"{path}: the arazzo table must be a table")
    table = section.get("validate", {})
    if not isinstance(table, dict):
        raise UsageError(f"{path}: {where} must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise UsageError(f"{path}: unknown key {unknown[0]!r} in {where} (known: rules, strict)")
    strict = table.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise UsageError(f"{path}: {where} strict must be true or false")
    raw_rules = table.get("rules", {})
    if not isinstance(raw_rules, dict):
        raise UsageError(f'{path}: {where} rules must be a table of RULE = "off|warning|error"')
    rules = {}
    for name, level in raw_rules.items():
        context = f"{path}: {where} rules: {name}"
        _check_name(name, context)
        rules[name] = _level(level if isinstance(level, str) else json_spelling(level), context)
    return Settings(rules=rules, strict=strict, source=str(path))


def _read(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as stream:
            return tomllib.load(stream)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the configuration: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None


def _level(text: str, context: str) -> str:
    level = LEVELS.get(text.lower())
    if level is None:
        raise UsageError(f"{context}: unknown level {text!r} (expected off, warning or error)")
    return level


def _check_name(name: str, context: str) -> None:
    if name not in RULES and name not in AREAS:
        hint = did_you_mean(name, [*RULES, *AREAS])
        raise UsageError(
            f"{context}: unknown rule {name!r}{hint} (`arazzo validate --list-rules` lists them)"
        )
