#!/usr/bin/env bash
# Package the VS Code extension as a .vsix: installs its pinned dependencies (vscode-languageclient,
# and @vscode/vsce to package) from the npm registry into node_modules/, then `vsce package`.
#
#     bash editors/vscode/build.sh [OUT.vsix]     # default: editors/vscode/arazzo-lsp-<version>.vsix
#
# Needs node 20 or later and npm. No lock file is written: the versions are pinned in package.json.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-}"
if [ -n "$out" ]; then
  out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
fi
cd "$here"
npm install --no-package-lock --no-audit --no-fund --loglevel=error
# no repository (the project publishes none) and no LICENSE file in this folder: package.json says
# Apache-2.0, the project's licence
args=(package --allow-missing-repository --skip-license)
if [ -n "$out" ]; then
  args+=(--out "$out")
fi
npx --no-install vsce "${args[@]}"
