"""Run the recorded mutation audit (issue 41): every mutant of tests/mutation/mutants.py applied in turn
to a copy of the committed tree, its tests run there, the results written to docs/mutation.md.

    python -m tests.mutation.audit                   # every mutant
    python -m tests.mutation.audit --only masking-3  # the mutants whose id starts so
    python -m tests.mutation.audit --jobs 2          # two copies of the tree, two mutants at a time
    python -m tests.mutation.audit --missing         # the mutants with no outcome recorded yet

Each run records its mutants' outcomes in tests/mutation/outcomes.json (the others are kept from their
last run) and writes docs/mutation.md from it; a mutant whose outcome is not recorded yet is `not run`.

The copy is `git archive HEAD` (commit what you audit); each mutant's tests run with the copy first on
PYTHONPATH, in a child process bounded in CPU time (RLIMIT_CPU) and in wall time (a generous bound for a
busy machine), with `-x -p no:randomly` and no bytecode written, so the file put back after a mutant
is the one read next. A mutant is killed when its tests fail (or run out of their bounds: the mutant
made them hang); before the mutants, each package's tests run once on the clean copy, and must pass,
else the package's mutants would be "killed" by a failure of their own.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

from tests.mutation.mutants import ROOT, Mutant, all_mutants, tables

CPU_SECONDS = 600  # per run of a mutant's tests (and the child processes they start count apart)
WALL_SECONDS = 1200
RESULTS = ROOT / "docs" / "mutation.md"
OUTCOMES = ROOT / "tests" / "mutation" / "outcomes.json"
_PRINT = threading.Lock()


def say(text: str) -> None:
    with _PRINT:
        print(text, flush=True)


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    os.nice(max(0, 15 - os.nice(0)))  # niced to 15 at least (more would starve it on a shared machine)


def run_tests(tree: Path, tests: tuple[str, ...]) -> tuple[str, float, str]:
    """`passed`, `failed` or `bound` (a limit hit), the seconds the run took, its last line."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
    started = time.monotonic()
    try:
        done = subprocess.run(
            [*command, *tests],
            cwd=tree,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=WALL_SECONDS,
            preexec_fn=_limit,
        )
        outcome = "passed" if done.returncode == 0 else "failed"
        if done.returncode < 0:
            outcome = "bound"
        tail = done.stdout.decode(errors="replace").strip().splitlines()[-1:] or [""]
    except subprocess.TimeoutExpired:
        outcome, tail = "bound", ["wall-time bound"]
    return outcome, time.monotonic() - started, tail[0][:100]


def audit(mutants: list[Mutant], tree: Path) -> dict[str, str]:
    """Each mutant's outcome: `killed`, `survived`, `equivalent`, or `not-applied` (its package's tests
    fail on the clean tree)."""
    baseline: dict[tuple[str, ...], str] = {}
    outcomes: dict[str, str] = {}
    for mutant in mutants:
        if mutant.tests not in baseline:
            outcome, seconds, tail = run_tests(tree, mutant.tests)
            baseline[mutant.tests] = outcome
            say(f"clean tree, {' '.join(mutant.tests)}: {outcome} ({seconds:.0f} s) {tail}")
        if baseline[mutant.tests] != "passed":
            outcomes[mutant.id] = "not-applied"
            continue
        path = tree / mutant.path
        original = path.read_text(encoding="utf-8")
        path.write_text(mutant.apply(original), encoding="utf-8")
        try:
            outcome, seconds, tail = run_tests(tree, mutant.tests)
        finally:
            path.write_text(original, encoding="utf-8")
        shown = "killed" if outcome != "passed" else "SURVIVED"
        say(f"{mutant.id}: {shown} ({seconds:.0f} s): {mutant.note}")
        if outcome == "passed":
            outcomes[mutant.id] = "equivalent" if mutant.equivalent else "survived"
        else:
            outcomes[mutant.id] = "killed"
        record({mutant.id: outcomes[mutant.id]})
        if outcomes[mutant.id] == "killed" and mutant.equivalent:
            say(f"    {mutant.id} killed, though listed as equivalent: {mutant.equivalent}")
    return outcomes


def record(outcomes: dict[str, str]) -> dict[str, str]:
    """Merge `outcomes` into tests/mutation/outcomes.json as each mutant ends (a run stopped half-way
    keeps what it found); returns every outcome recorded, of the mutants of the current table."""
    with _PRINT:
        known = json.loads(OUTCOMES.read_text(encoding="utf-8")) if OUTCOMES.exists() else {}
        ids = {m.id for m in all_mutants()}
        known = {key: value for key, value in {**known, **outcomes}.items() if key in ids}
        OUTCOMES.write_text(json.dumps(dict(sorted(known.items())), indent=1) + "\n", encoding="utf-8")
        return known


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(mutants: list[Mutant], outcomes: dict[str, str]) -> str:
    """docs/mutation.md: the figures per package, then every mutant that was not killed, with why. A
    survivor judged equivalent after its run (the reason added since) counts as equivalent."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    outcomes = {  # a survivor judged equivalent after its run (the reason added since) is one
        m.id: "equivalent"
        if outcomes.get(m.id) == "survived" and m.equivalent
        else outcomes.get(m.id, "not run")
        for m in mutants
    }
    for mutant in mutants:
        counts[mutant.package][outcomes[mutant.id]] += 1
    lines = [
        "# The mutation audit",
        "",
        "Small, realistic bugs written by hand (issue 41): each is one snippet of one file replaced, its",
        "tests run on a copy of the tree. The table of mutants is tests/mutation/table_*.py, the runner",
        "`python -m tests.mutation.audit` (it rewrites this file); tests/unit/test_mutation_table.py checks",
        "that every mutant still applies to the code, and that this file names every mutant. The target:",
        "at least 90% of the non-equivalent mutants killed in each package.",
        "",
        f"{len(mutants)} mutants, each with the outcome of its last run. When the audit was first run",
        "(issue 41), at least 35 of the 116 non-equivalent mutants survived the suite; each of those is",
        "now killed by a test added for it, or judged equivalent below with why.",
        "",
        "| package | mutants | killed | survived | equivalent | killed of non-equivalent |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    total: dict[str, int] = defaultdict(int)
    for package, count in counts.items():
        n = sum(count.values())
        for key, value in count.items():
            total[key] += value
        live = count["killed"] + count["survived"]
        score = f"{100 * count['killed'] / live:.0f}%" if live else "-"
        lines.append(
            f"| {package} | {n} | {count['killed']} | {count['survived']} | {count['equivalent']} | {score} |"
        )
    live = total["killed"] + total["survived"]
    lines.append(
        f"| **all** | {len(mutants)} | {total['killed']} | {total['survived']} | {total['equivalent']} "
        f"| {100 * total['killed'] / max(live, 1):.0f}% |"
    )
    lines += ["", "## The rounds", ""]
    lines.append("Each table of mutants (one a round), what it covers (its docstring) and its figures.")
    for module in tables():
        names = {package.name for package in module.PACKAGES}
        found = [outcomes[m.id] for m in mutants if m.package in names]
        about = " ".join((module.__doc__ or "").split("Rows:")[0].split())
        keys = ("killed", "survived", "equivalent", *(["not run"] if "not run" in found else []))
        figures = ", ".join(f"{found.count(key)} {key}" for key in keys)
        lines += [
            "",
            f"**{module.__name__.rsplit('.', 1)[-1]}.py** ({len(found)} mutants: {figures}). {about}",
        ]
    lines += ["", "## Equivalent mutants and survivors", ""]
    lines += ["| mutant | file | the bug | outcome: why |", "|---|---|---|---|"]
    for mutant in mutants:
        outcome = outcomes.get(mutant.id, "not run")
        if outcome != "killed":
            why = mutant.equivalent or "no test catches it"
            lines.append(f"| {mutant.id} | {mutant.path} | {_cell(mutant.note)} | {outcome}: {_cell(why)} |")
    lines += ["", "## Every mutant", ""]
    lines += ["| mutant | file | the bug | outcome |", "|---|---|---|---|"]
    for mutant in mutants:
        outcome = outcomes.get(mutant.id, "not run")
        lines.append(f"| {mutant.id} | {mutant.path} | {_cell(mutant.note)} | {outcome} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="mutant ids starting so (repeatable)")
    parser.add_argument("--missing", action="store_true", help="only the mutants with no outcome recorded")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at a time, each in its own copy")
    args = parser.parse_args(argv)
    every = all_mutants()
    mutants = [m for m in every if not args.only or any(m.id.startswith(o) for o in args.only)]
    if args.missing:
        recorded = record({})
        mutants = [m for m in mutants if m.id not in recorded]
    for mutant in mutants:  # every one applies, before any runs
        mutant.apply((ROOT / mutant.path).read_text(encoding="utf-8"))
    started = time.monotonic()
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE, check=True).stdout
    shares: list[list[Mutant]] = [[] for _ in range(max(1, args.jobs))]
    by_package: dict[str, list[Mutant]] = defaultdict(list)
    for mutant in mutants:  # a package's mutants in one copy: its tests' clean run is made once
        by_package[mutant.package].append(mutant)
    for group in sorted(by_package.values(), key=len, reverse=True):
        min(shares, key=len).extend(group)
    outcomes: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="mutation-") as temporary:

        def work(number: int, share: list[Mutant]) -> None:
            tree = Path(temporary) / str(number)
            tree.mkdir()
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
            outcomes.update(audit(share, tree))

        threads = [threading.Thread(target=work, args=(n, share)) for n, share in enumerate(shares) if share]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    print(f"{len(mutants)} mutants in {(time.monotonic() - started) / 60:.0f} min")
    for mutant in mutants:
        if outcomes.get(mutant.id) != "killed":
            print(f"{outcomes.get(mutant.id)}: {mutant.id} {mutant.path}: {mutant.note}")
    known = record({})
    RESULTS.write_text(table(every, known), encoding="utf-8")
    print(f"written: {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
