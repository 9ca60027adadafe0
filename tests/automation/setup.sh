#!/usr/bin/env bash
# Installs croner (pinned in package.json and package-lock.json) into tests/automation/.cache/
# (git-ignored): the reference of the cron differential test.
#
#   tests/automation/setup.sh     # then: node tests/automation/cron_differential.test.mjs <pincer_cron_eval>
exec "$(dirname "$0")/../support/npm-install-pinned.sh" "$(dirname "$0")" croner
