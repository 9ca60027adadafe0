#!/usr/bin/env bash
# Installs the Telegram Bot API emulator (telegram-test-api, pinned in package.json and
# package-lock.json) into tests/channels/.cache/ (git-ignored).
#
#   tests/channels/setup.sh       # then: node tests/channels/telegram.test.mjs <pincer binary> <source dir>
exec "$(dirname "$0")/../support/npm-install-pinned.sh" "$(dirname "$0")" telegram-test-api
