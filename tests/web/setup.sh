#!/usr/bin/env bash
# Installs the browser test's one npm dependency (playwright-core, pinned exactly in package.json
# and package-lock.json) into tests/web/.cache/ (git-ignored). playwright-core downloads no
# browser: the test drives Debian's /usr/bin/chromium (scripts/install-deps.sh installs it).
#
#   tests/web/setup.sh            # then: node tests/web/webchat.test.mjs <pincer binary> <source dir>
exec "$(dirname "$0")/../support/npm-install-pinned.sh" "$(dirname "$0")" playwright-core
