#!/usr/bin/env bash
# Installs @slack/web-api, @slack/socket-mode and ws (pinned in package.json and package-lock.json)
# into tests/slack_emulator/.cache/ (git-ignored).
#
#   tests/slack_emulator/setup.sh   # then: node tests/slack_emulator/slack.test.mjs <pincer binary> <source dir>
"$(dirname "$0")/../support/npm-install-pinned.sh" "$(dirname "$0")" ws &&
"$(dirname "$0")/../support/npm-install-pinned.sh" "$(dirname "$0")" @slack/socket-mode &&
exec "$(dirname "$0")/../support/npm-install-pinned.sh" "$(dirname "$0")" @slack/web-api
