"""`arazzo validate --fix` / `--diff`: rewrite every finding that has one safe, mechanical fix.

Like `ruff check --fix`: validate, apply the fixes that do not overlap (`edit.apply_edits`, which edits
the text of the scalars concerned and nothing else), validate the result again, and repeat until no
fixable finding is left (fixes that touched the same characters, or that only appear once another fix
is made, are taken in a later pass). So the result validates without those findings, and a second run
changes nothing. A fix that cannot be made in place is reported and left as a finding.

An edit is made only from the scalar it was computed from: its offsets count characters of the string
the finding read, so once another fix of the same pass changed that scalar, the edit waits for the next
pass (computed again from the new text), and a scalar whose text does not read as that string is not
edited at all (`edit.apply_edits`). The result is checked as a whole too: when its validation reports a
finding the document did not have (a rule at a place, counted; but inside a flow collection a fix
turned into the string it was meant to be, `{$inputs.x}`, whose expressions are then checked for the
first time), the fixes of the first pass that added one are tried one at a time, those that add one
are set aside and reported as not fixed, and the passes are made again without them.

The file is read and written as bytes in its own encoding (a byte-order mark and line endings kept).
"""

from __future__ import annotations

import codecs
import collections
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from ..errors import DocumentError
from ..loader import LoadedDocument, load_text
from ..records import Record, field
from .core import validate_loaded
from .edit import EditError, apply_edits
from .findings import Edit, Finding, Report

MAX_PASSES = 20
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


class Rewritten(Record):
    """A document rewritten in memory: the text before and after, and how to write it back (in the file's
    own encoding, with its byte-order mark)."""

    file: str
    before: str
    after: str
    encoding: str = field(default="utf-8", kw_only=True)
    bom: bytes = field(default=b"", kw_only=True)

    @property
    def changed(self) -> bool:
        return self.after != self.before

    def encoded(self) -> bytes:
        return self.bom + self.after.encode(self.encoding)


class Fixed(Rewritten):
    """The outcome of `--fix` for one file: the findings fixed (in the order fixed), what could not be
    fixed in place, and the validation of the result."""

    report: Report
    fixed: list[Finding] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    initial: Report | None = None  # the validation of the document before any fix


Validate = Callable[[LoadedDocument], Report]


def read_document(path: str | os.PathLike[str]) -> tuple[str, str, bytes]:
    """(text, encoding, byte-order mark) of a file, decoded without touching line endings."""
    raw = Path(path).read_bytes()
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return raw[len(bom) :].decode(encoding), encoding, bom
    return raw.decode("utf-8"), "utf-8", b""


def fix_path(
    path: str | os.PathLike[str],
    *,
    settings: object = None,
    remote: bool = True,
    allow_paths: Iterable[str | os.PathLike[str]] = (),
    rules: Iterable[str] | None = None,
) -> Fixed:
    """Fix the document at `path` in memory (the caller writes `Fixed.encoded()` when it changed).
    `settings` (`config.Settings`): findings of rules set `off` are not fixed; `rules`: fix only these."""
    file = os.fspath(path)
    location = str(Path(file).resolve())
    try:
        text, encoding, bom = read_document(path)
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or exc  # as the loader says it: no errno, no repeated path
        raise DocumentError(f"cannot read the file: {why}", file=file) from None

    def validate(loaded: LoadedDocument) -> Report:
        report = validate_loaded(loaded, location, remote=remote, allow_paths=allow_paths)
        return settings.apply(report) if settings is not None else report  # type: ignore[attr-defined]

    result = fix_text(text, file, validate, rules=rules)
    result.encoding, result.bom = encoding, bom
    return result


def finding_keys(report: Report) -> collections.Counter[tuple[str, str, str]]:
    """The findings of a report as (rule, severity, path), counted: what a fix may remove, never add."""
    return collections.Counter((f.rule, f.severity, f.path) for f in report.findings)


def added_findings(before: Report, after: Report, revealed: Iterable[str] = ()) -> list[Finding]:
    """The findings of `after` that `before` did not have (by rule, severity and place, counted), but
    those at or inside a `revealed` node: a flow collection a fix turned into the string it was meant
    to be (`{$inputs.x}`), whose expressions are checked for the first time."""
    extra = finding_keys(after) - finding_keys(before)
    found = []
    for finding in after.findings:
        key = (finding.rule, finding.severity, finding.path)
        if extra[key] > 0:
            extra[key] -= 1
            if not any(_inside(finding.path, node) for node in revealed):
                found.append(finding)
    return found


def fix_text(text: str, file: str, validate: Validate, *, rules: Iterable[str] | None = None) -> Fixed:
    """Apply the fixes `validate`'s findings carry until none is left (at most MAX_PASSES passes). When
    the result has a finding the document did not have, the fixes of the first pass that added one are
    tried one at a time on the text before it; those that add one are set aside (reported), and the
    passes are made again without them."""
    wanted = set(rules) if rules is not None else None
    loaded = load_text(text, file)
    original = validate(loaded)
    refused: dict[tuple[str, str, str], str] = {}  # findings set aside, and why
    for _ in range(MAX_PASSES):
        run = _Passes(text, file, validate, wanted, set(refused))
        run.make(loaded, original)
        bad = run.first_adding(original)
        if bad is None:
            problems = [*run.problems, *refused.values()]
            after, report, count = run.states[-1]
            return Fixed(file, text, after, report, run.fixed[:count], problems, original)
        refused.update(run.culprits(bad, original))
    # every round set at least one fix aside, and still one adds a finding: fix nothing
    return Fixed(file, text, text, original, [], [*refused.values()], original)


class _Passes:
    """One attempt at fixing a document: pass after pass, the state after each (its text, its
    validation, how many fixes were made so far)."""

    def __init__(self, text: str, file: str, validate: Validate, wanted: set | None, refused: set) -> None:
        self.file, self.validate, self.wanted, self.refused = file, validate, wanted, refused
        self.text = text
        self.states: list[tuple[str, Report, int]] = []
        self.fixed: list[Finding] = []
        self.problems: list[str] = []
        self.revealed: set[str] = set()  # flow collections fixes turned into strings

    def make(self, loaded: LoadedDocument, report: Report) -> None:
        text = self.text
        self.states.append((text, report, 0))
        for _ in range(MAX_PASSES):
            candidates = [
                f
                for f in report.findings
                if f.fix
                and (self.wanted is None or f.rule in self.wanted)
                and _identity(f) not in self.refused
            ]
            chosen = _independent(candidates)
            if not chosen:
                return
            try:
                edits = list(dict.fromkeys(e for f in chosen for e in f.fix))
                new_text = apply_edits(text, loaded.format, loaded.data, edits)
            except EditError:
                new_text, chosen = _one_by_one(text, loaded, chosen, self.problems, self.refused)
            if new_text == text:
                return
            self.fixed.extend(chosen)
            self.revealed.update(e.path for f in chosen for e in f.fix if e.node)
            text = new_text
            loaded = load_text(text, self.file)
            report = self.validate(loaded)
            self.states.append((text, report, len(self.fixed)))

    def first_adding(self, original: Report) -> int | None:
        """The index of the first state whose validation adds a finding to `original`, if the last does."""
        if not added_findings(original, self.states[-1][1], self.revealed):
            return None
        return next(i for i, s in enumerate(self.states) if added_findings(original, s[1], self.revealed))

    def culprits(self, bad: int, original: Report) -> dict[tuple[str, str, str], str]:
        """The fixes of the pass that made state `bad` that add a finding when made alone on the state
        before it (all of them when none does alone), each with the line that reports it."""
        text, _, start = self.states[bad - 1]
        suspects = self.fixed[start : self.states[bad][2]]
        loaded = load_text(text, self.file)
        found = {}
        for finding in suspects:
            try:
                alone = load_text(apply_edits(text, loaded.format, loaded.data, finding.fix), self.file)
            except EditError:
                continue
            nodes = self.revealed | {e.path for e in finding.fix if e.node}
            added = added_findings(original, self.validate(alone), nodes)
            if added:
                found[_identity(finding)] = _not_fixed(finding, added)
        if not found:
            added = added_findings(original, self.states[bad][1], self.revealed)
            found = {_identity(f): _not_fixed(f, added) for f in suspects}
        return found


def _not_fixed(finding: Finding, added: list[Finding]) -> str:
    listed = "; ".join(f"{f.rule} at {f.path or '/'}" for f in added[:5])
    where = f"{finding.file}:{finding.line}:{finding.column}"
    return f"{where}: {finding.rule} not fixed: the rewrite would add findings ({listed})"


def _one_by_one(
    text: str, loaded: LoadedDocument, chosen: list[Finding], problems: list[str], refused: set
) -> tuple[str, list[Finding]]:
    """The fixes of one pass applied one at a time, so that one that cannot be made in place is set
    aside (reported) and the others are still made. A fix whose scalar another one of them changed
    already waits for the next pass: its offsets count characters of the string as it was."""
    done = []
    changed: set[tuple[str, bool]] = set()
    for finding in chosen:
        touched = {(e.path, e.key) for e in finding.fix}
        if touched & changed:
            continue
        try:
            candidate = apply_edits(text, loaded.format, loaded.data, finding.fix)
        except EditError as exc:
            refused.add(_identity(finding))
            problems.append(
                f"{finding.file}:{finding.line}:{finding.column}: {finding.rule} not fixed: {exc}"
            )
            continue
        text = candidate
        loaded = load_text(text, loaded.file)
        done.append(finding)
        changed |= touched
    return text, done


def _independent(findings: list[Finding]) -> list[Finding]:
    """Findings whose edits touch no characters another chosen finding's edits touch (identical edits,
    one expression reported twice, are one edit)."""
    taken: list[Edit] = []
    chosen = []
    for finding in findings:
        edits = [e for e in finding.fix if e not in taken]
        if any(_overlap(a, b) for a in edits for b in taken):
            continue
        taken.extend(edits)
        chosen.append(finding)
    return chosen


def _overlap(a: Edit, b: Edit) -> bool:
    if a.node or b.node:  # a whole node: anything at or inside it
        return _inside(a.path, b.path) or _inside(b.path, a.path)
    if (a.path, a.key) != (b.path, b.key):
        return False
    a_end, b_end = a.start + len(a.old), b.start + len(b.old)
    return a.start <= b_end and b.start <= a_end  # touching counts: the order would be ambiguous


def _inside(path: str, container: str) -> bool:
    return path == container or path.startswith(container + "/")


def _identity(finding: Finding) -> tuple[str, str, str]:
    return finding.rule, finding.path, finding.message


def unified_diff(result: Rewritten, context: int = 3) -> str:
    """The change as a unified diff (what `git apply -p1` and `patch -p1` take). Lines are matched
    without difflib's "popular line" heuristic, which would show a repeated untouched line (`outputs:`)
    as changed."""
    import difflib

    before = result.before.splitlines(keepends=True)
    after = result.after.splitlines(keepends=True)
    out = [f"--- {_diff_name('a', result.file)}\n", f"+++ {_diff_name('b', result.file)}\n"]
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        (_, a1, _, b1, _), (_, _, a2, _, b2) = group[0], group[-1]
        out.append(f"@@ -{_range(a1, a2)} +{_range(b1, b2)} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in before[i1:i2])
                continue
            out.extend("-" + line for line in before[i1:i2])
            out.extend("+" + line for line in after[j1:j2])
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)


def _range(start: int, stop: int) -> str:
    length = stop - start
    first = start + 1 if length else start
    return f"{first}" if length == 1 else f"{first},{length}"


def _diff_name(side: str, file: str) -> str:
    """`a/flow.arazzo.yaml` as git writes a relative path (so `git apply -p1` takes it); an absolute path
    as it is."""
    return file if os.path.isabs(file) else f"{side}/{file}"
