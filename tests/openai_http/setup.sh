#!/usr/bin/env bash
# Installs OpenAI's Node SDK (openai, pinned in package.json and package-lock.json) into
# tests/openai_http/.cache/ (git-ignored), for openai_http.test.mjs and bench/openai_http_bench.mjs.
#
#   tests/openai_http/setup.sh      # then: node tests/openai_http/openai_http.test.mjs <pincer> <source dir>
exec "$(dirname "$0")/../support/npm-install-pinned.sh" "$(dirname "$0")" openai
