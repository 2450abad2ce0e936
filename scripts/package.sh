#!/usr/bin/env bash
# package.sh [OUTDIR]: builds every package a user installs, into OUTDIR
# (default build/packages): the .deb and the .tar.gz of the three binaries
# from the release preset (CPack), the VS Code extension's .vsix (@vscode/vsce
# from npm) and the capture gem (gem build). docs/install.md says how to
# install and remove each.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-build/packages}")
mkdir -p "$out"
./scripts/deps.sh
cmake --preset release
cmake --build --preset release
(cd build/release && cpack -G DEB -B "$out" && cpack -G TGZ -B "$out")
(cd clients/vscode && npm ci --no-audit --no-fund --loglevel=error && npx tsc -p . && npm run --silent bundle &&
  npx vsce package --no-dependencies --skip-license --allow-missing-repository -o "$out/heapleak.vsix")
(cd clients/ruby && gem build heapleak-capture.gemspec -o "$out/heapleak-capture.gem")
rm -rf "$out/_CPack_Packages"
ls -l "$out"
