#!/usr/bin/env bash
# Installs the browser test's one npm dependency (playwright-core, pinned exactly in package.json
# and package-lock.json) into tests/web/.cache/ (git-ignored), unless that version is already there.
# Idempotent and safe to run concurrently (flock); needs the npm registry only when installing.
# playwright-core downloads no browser: the test drives Debian's /usr/bin/chromium
# (scripts/install-deps.sh installs it).
#
#   tests/web/setup.sh            # then: node tests/web/webchat.test.mjs <pincer binary> <source dir>
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache="$here/.cache"
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

want="$(node -p "require('$here/package.json').dependencies['playwright-core']")"
have="$(node -p "try { require('$cache/node_modules/playwright-core/package.json').version } catch { '' }")"
if [ "$have" = "$want" ] && cmp -s "$here/package-lock.json" "$cache/package-lock.json"; then
  exit 0
fi

echo "tests/web/setup.sh: installing playwright-core $want into $cache" >&2
cp "$here/package.json" "$here/package-lock.json" "$cache/"
cd "$cache"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
node -e "require('$cache/node_modules/playwright-core')"
