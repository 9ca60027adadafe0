#!/usr/bin/env bash
# Installs every test's npm peers into their git-ignored caches ahead of the tests: the OpenClaw
# package and its Node 24 (tests/compat/setup-openclaw.sh), the browser driver, the chat platform
# emulators' libraries, the MCP/ACP SDKs and reference servers, croner, openai, @google/genai.
#   scripts/fetch-test-peers.sh
# `make test` runs it while the gateway compiles (scripts/test-phases.sh): the downloads wait on the
# registry more than on the CPU, and the OpenClaw tests no longer start with a 1 GB install (CI
# budget: 35 min). Not at nice 19: beside two compilers npm then got ~2 % of a core and took longer
# than the gateway's build. Each setup script is idempotent and takes its own lock, so a test
# that starts while this runs waits for the install instead of starting a second one. A failure here
# is only reported: the test that needs the package runs its setup again and fails with its reason.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
status=0
for setup in "$here"/tests/compat/setup-openclaw.sh "$here"/tests/*/setup.sh "$here"/tests/*/*/setup.sh; do
  [ -x "$setup" ] || continue
  if ! "$setup" > /dev/null; then
    echo "fetch-test-peers: ${setup#"$here"/} failed (its tests run it again)"
    status=1
  fi
done
exit $status
