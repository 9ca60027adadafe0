#!/usr/bin/env bash
# Installs Google's Gemini SDK (@google/genai, pinned in package.json and package-lock.json) into
# tests/mock_llm/sdk/.cache/ (git-ignored), for genai.test.mjs.
#
#   tests/mock_llm/sdk/setup.sh      # then: node tests/mock_llm/sdk/genai.test.mjs
exec "$(dirname "$0")/../../support/npm-install-pinned.sh" "$(dirname "$0")" @google/genai
