"""The Zed extension of `editors/zed/`: its manifest registers the `arazzo` language server for YAML and
JSON and its crate is a WebAssembly library on `zed_extension_api`; where cargo has that crate, the
source compiles (`cargo check`).

Zed is not run here, and the WebAssembly module is not built: this machine reaches no crates registry
and has no wasm32 target, so the check is skipped, listed as not tested at the end of the run."""

from __future__ import annotations

import os
import shutil
import subprocess

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from tests.timeouts import long_test
from tests.untested import skip_untested

from .kit import ROOT

ZED = ROOT / "editors" / "zed"


def test_the_manifest_registers_the_server_for_yaml_and_json():
    manifest = tomllib.loads((ZED / "extension.toml").read_text())
    assert (manifest["id"], manifest["schema_version"]) == ("arazzo", 1)
    assert manifest["language_servers"] == {"arazzo": {"name": "arazzo lsp", "languages": ["YAML", "JSON"]}}
    crate = tomllib.loads((ZED / "Cargo.toml").read_text())
    assert crate["lib"]["crate-type"] == ["cdylib"]
    assert list(crate["dependencies"]) == ["zed_extension_api"]
    source = (ZED / "src" / "lib.rs").read_text()
    assert "zed::register_extension!(ArazzoExtension);" in source
    assert 'worktree.which("arazzo")' in source and 'vec!["lsp".to_string()]' in source


@long_test
def test_the_extension_compiles(tmp_path):
    cargo = shutil.which("cargo")
    if cargo is None:
        skip_untested("cargo is not installed", "compiling the Zed extension (editors/zed)")
    folder = tmp_path / "zed"
    shutil.copytree(ZED, folder, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    env = {**os.environ, "CARGO_TARGET_DIR": str(tmp_path / "target")}
    checked = subprocess.run(
        [cargo, "check", "--offline", "--quiet"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=800,
    )
    if "no matching package named `zed_extension_api`" in checked.stderr:
        skip_untested(
            "the crate zed_extension_api is not in cargo's cache (no crates registry is reached here)",
            "compiling the Zed extension (editors/zed)",
        )
    assert checked.returncode == 0, checked.stderr[-4000:]
