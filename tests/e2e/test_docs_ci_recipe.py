"""docs/testing.md's CI recipe: the GitHub Actions workflow it shows runs exactly the command the docs
test then runs (the console block after it, with `GITHUB_ACTIONS=true` as GitHub sets it), so the recipe
cannot drift from what is checked."""

from __future__ import annotations

import yaml

from tests.e2e.dockit import collect


def _recipe() -> tuple[dict, list[str]]:
    blocks = [b for b in collect() if b.file == "docs/testing.md"]
    index = next(i for i, b in enumerate(blocks) if b.language == "yaml" and "jobs:" in b.text)
    workflow = yaml.safe_load(blocks[index].text)
    console = next(b for b in blocks[index + 1 :] if b.language == "console")
    return workflow, [c.text for c in console.commands()]


def test_the_recipe_runs_the_commands_the_docs_run() -> None:
    workflow, commands = _recipe()
    (job,) = workflow["jobs"].values()
    runs = [step["run"] for step in job["steps"] if "run" in step and not step["run"].startswith("pip ")]
    assert runs and all(f"GITHUB_ACTIONS=true {run}" in commands for run in runs), (runs, commands)
    assert workflow[True] == ["push", "pull_request"]  # (`on`: YAML 1.1's true, as PyYAML reads it)
    keep = next(step for step in job["steps"] if step.get("name") == "Keep the report")
    assert keep["if"] == "always()" and keep["with"]["path"] in runs[0]
