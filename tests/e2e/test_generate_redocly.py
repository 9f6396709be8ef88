"""What `arazzo generate` writes passes Redocly's own linter (`redocly lint`, Redocly CLI 2.77.0) without
an error, in both Arazzo versions: the project's descriptions and the library's (links, chains,
`components.inputs`).

Offline like every test: it runs only where node and Redocly CLI are already there, in `bench/.node`
(`python bench/generate/side_by_side.py --install-redocly` puts it there with npm, as
`bench/validate_corpus.py --install-redocly` does) or at `ARAZZO_REDOCLY_CLI` (the path of its
`bin/cli.js`); elsewhere it is skipped, saying which is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.helpers import ROOT, cli
from tests.servers.library import DESCRIPTION as LIBRARY
from tests.untested import skipif_untested

NODE = shutil.which("node")
CLI = Path(os.environ.get("ARAZZO_REDOCLY_CLI") or ROOT / "bench/.node/node_modules/@redocly/cli/bin/cli.js")
QUIET = {"REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true", "NO_COLOR": "1"}
CLAIM = "what `arazzo generate` writes passes `redocly lint`"
pytestmark = [
    skipif_untested(NODE is None, "node is not installed", CLAIM),
    skipif_untested(not CLI.is_file(), f"Redocly CLI is not installed at {CLI}", CLAIM),
]


def _lint(*documents: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [NODE, str(CLI), "lint", "--format", "stylish", *map(str, documents)],
        capture_output=True,
        text=True,
        env={**os.environ, **QUIET},
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("version", ["1.0.1", "1.1.0"])
def test_the_generated_documents_pass_redocly_lint(capsys, tmp_path, version):
    documents = []
    for description in [*sorted((ROOT / "openapi").glob("*.y*ml")), LIBRARY]:
        document = tmp_path / f"{description.stem}.arazzo.yaml"
        made = cli(capsys, "generate", description, "-o", document, "--arazzo", version)
        assert made.code == 0, made.err
        documents.append(document)
    linted = _lint(*documents)
    said = linted.stdout + linted.stderr  # it reports on stderr
    assert linted.returncode == 0, said
    assert " error " not in said and "Your API descriptions are valid" in said
    assert said.count("validated in") == len(documents)
