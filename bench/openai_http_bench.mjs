// The client of bench/openai_http_bench.sh: one gateway's OpenAI-compatible `POST
// /v1/chat/completions` (not streamed, no `user`: a new session per request, both gateways'
// default) against the mock LLM it uses, with the same requests for Pincer and OpenClaw.
//   1. the mock alone: BENCH requests straight to the mock (streamed, as a gateway asks it), p50/p90
//   2. the gateway, one request at a time: p50/p90 latency and what it adds to the mock's p50
//   3. the gateway, `--conc` requests in flight for `--secs` seconds: requests/s, errors
// Plain fetch (Node's undici, keep-alive), no SDK: the client costs the same for both sides.
//
//   node bench/openai_http_bench.mjs --label pincer --base http://127.0.0.1:19169 --token T \
//     --mock http://127.0.0.1:18969 --requests 50 --conc 8 --secs 10 --json out.json
import { writeFileSync } from 'node:fs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const label = arg('label', 'gateway');
const base = arg('base');
const token = arg('token');
const mock = arg('mock');
const N = Number(arg('requests', 50));
const CONC = Number(arg('conc', 8));
const SECS = Number(arg('secs', 10));
const READY_SECS = Number(arg('ready-secs', 120));
const out = arg('json');

const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const body = (i) => JSON.stringify({ model: 'openclaw', messages: [{ role: 'user', content: `benchmark question ${i}` }] });

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : null;
};
const round = (x) => (x === null ? null : Math.round(x * 100) / 100);

async function gatewayRequest(i) {
  const res = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers, body: body(i) });
  const json = await res.json().catch(() => null);
  if (res.status !== 200 || typeof json?.choices?.[0]?.message?.content !== 'string') {
    throw new Error(`HTTP ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
  }
  return json.choices[0].message.content;
}

async function mockRequest(i) {
  const res = await fetch(`${mock}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer mock-local' },
    body: JSON.stringify({ model: 'mock-model', stream: true, messages: [{ role: 'user', content: `benchmark question ${i}` }] }),
  });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('[DONE]')) throw new Error(`mock HTTP ${res.status}`);
}

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

// The gateway is up when /v1/models answers (OpenClaw takes a while to start).
const deadline = Date.now() + READY_SECS * 1000;
for (;;) {
  const ok = await fetch(`${base}/v1/models`, { headers }).then((r) => r.status === 200, () => false);
  if (ok) break;
  if (Date.now() > deadline) {
    console.error(`${label}: /v1/models did not answer 200 within ${READY_SECS} s`);
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 200));
}

const result = { label, requests: N, conc: CONC, secs: SECS };
try {
  const sample = await gatewayRequest(-1);  // warm-up (first session, first model call)
  result.sample_reply = sample;
  await mockRequest(-1);
  const mockMs = [];
  for (let i = 0; i < N; i++) mockMs.push(await timed(() => mockRequest(i)));
  const gwMs = [];
  for (let i = 0; i < N; i++) gwMs.push(await timed(() => gatewayRequest(i)));
  result.mock_p50_ms = round(pct(mockMs, 50));
  result.mock_p90_ms = round(pct(mockMs, 90));
  result.p50_ms = round(pct(gwMs, 50));
  result.p90_ms = round(pct(gwMs, 90));
  result.added_p50_ms = round(pct(gwMs, 50) - pct(mockMs, 50));

  let done = 0, errors = 0, next = N;
  let firstError = '';
  const end = performance.now() + SECS * 1000;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONC }, async () => {
    while (performance.now() < end) {
      try {
        await gatewayRequest(next++);
        done++;
      } catch (e) {
        errors++;
        firstError ||= String(e.message ?? e);
      }
    }
  }));
  const elapsed = (performance.now() - t0) / 1000;
  result.throughput_rps = round(done / elapsed);
  result.throughput_requests = done;
  result.throughput_errors = errors;
  if (firstError) result.first_error = firstError;
} catch (e) {
  result.error = String(e.message ?? e);
}
console.log(JSON.stringify(result));
if (out) writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
process.exit(result.error ? 1 : 0);
