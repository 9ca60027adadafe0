#!/usr/bin/env bash
# Installs matrix-js-sdk (pinned in package.json and package-lock.json) into
# tests/matrix_emulator/.cache/ (git-ignored).
#
#   tests/matrix_emulator/setup.sh   # then: node tests/matrix_emulator/matrix.test.mjs <pincer binary> <source dir>
exec "$(dirname "$0")/../support/npm-install-pinned.sh" "$(dirname "$0")" matrix-js-sdk
