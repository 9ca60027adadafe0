#!/usr/bin/env bash
# Installs discord.js and ws (pinned in package.json and package-lock.json) into
# tests/discord_emulator/.cache/ (git-ignored).
#
#   tests/discord_emulator/setup.sh   # then: node tests/discord_emulator/discord.test.mjs <pincer binary> <source dir>
"$(dirname "$0")/../support/npm-install-pinned.sh" "$(dirname "$0")" ws &&
exec "$(dirname "$0")/../support/npm-install-pinned.sh" "$(dirname "$0")" discord.js
