#!/usr/bin/env bash
# Installs a test's pinned npm dependencies (DIR/package.json + DIR/package-lock.json) into
# DIR/.cache/ (git-ignored), unless PACKAGE is already there at the pinned version with the same
# lock file. Idempotent and safe to run concurrently (flock); needs the npm registry only when
# installing. Install scripts are not run (--ignore-scripts): nothing is downloaded but packages.
#
#   tests/support/npm-install-pinned.sh DIR PACKAGE
set -euo pipefail

here="$(cd "$1" && pwd)"
package="$2"
cache="$here/.cache"
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

want="$(node -p "require('$here/package.json').dependencies['$package']")"
have="$(node -p "try { require('$cache/node_modules/$package/package.json').version } catch { '' }")"
if [ "$have" = "$want" ] && cmp -s "$here/package-lock.json" "$cache/package-lock.json"; then
  exit 0
fi

echo "npm-install-pinned: installing $package $want into $cache" >&2
cp "$here/package.json" "$here/package-lock.json" "$cache/"
cd "$cache"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
# The installed version is checked, not require(PACKAGE): ESM-only packages and packages whose
# "exports" have no root entry (the MCP SDK) cannot be required by name, yet are installed fine.
have="$(node -p "try { require('$cache/node_modules/$package/package.json').version } catch { '' }")"
if [ "$have" != "$want" ]; then
  echo "npm-install-pinned: $package $want was not installed into $cache (found '${have}')" >&2
  exit 1
fi
