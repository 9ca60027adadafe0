#!/usr/bin/env bash
# Installs smtp-server, mailparser and nodemailer (pinned in package.json and package-lock.json)
# into tests/email_servers/.cache/ (git-ignored). Dovecot itself comes from Debian
# (dovecot-imapd + dovecot-lmtpd, scripts/install-deps.sh).
#
#   tests/email_servers/setup.sh   # then: node tests/email_servers/email.test.mjs <pincer binary> <source dir>
exec "$(dirname "$0")/../support/npm-install-pinned.sh" "$(dirname "$0")" smtp-server
