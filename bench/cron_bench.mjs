#!/usr/bin/env node
// The cron benchmark's client (bench/cron_bench.sh starts the gateway and the mock, then runs this
// once per gateway, so both are measured by the same code). Node >= 22 (global WebSocket; Node 20
// needs --experimental-websocket). No dependencies.
//
//   node bench/cron_bench.mjs --label NAME --port P --token T --pid GATEWAY_PID --mock-log FILE
//        [--jobs 10000] [--add-timeout-secs 300] [--idle-secs 30] [--settle-secs 5] [--fires 3]
//        [--fire-lead-ms 3000] [--clk-tck 100] [--json OUT]
//
// Phases, all against one running gateway (the connection is closed while the gateway is idle, so
// neither the client nor per-connection ticks wake it):
//   idle, 0 jobs   CPU (utime+stime of /proc/<pid>/stat) and context switches (every thread of
//                  /proc/<pid>/task/*/status) over --idle-secs: the baseline without jobs
//   add            --jobs `cron.add` one after the other (one in flight: the latency is the
//                  gateway's, not a queue's), yearly cron expressions spread over the months that
//                  are not this one or the next, so nothing fires; stopped at --add-timeout-secs.
//                  One connection for as long as the gateway accepts; an add refused by a rate limit
//                  is sent again on a new connection (OpenClaw allows 30 writes a minute per
//                  connection to a client without device identity), counted, and not in the latency.
//   list           `cron.list` with the largest `limit` the gateway accepts, every page until the
//                  end; 5 times
//   idle, N jobs   as the baseline, with the jobs loaded (the scheduler's own cost)
//   fire           an `at` job due --fire-lead-ms ahead (whole second): due instant → the mock LLM
//                  receives the model request (the mock's clock: it logs `recvMs`); the first one is
//                  the warm-up (first agent run of the process), then --fires measured; then as many
//                  `cron.run {mode:"force"}` of one job: request sent / ack → model request.
// Never asserts a timing: it measures and writes JSON.
import fs from "node:fs";
import path from "node:path";

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const LABEL = opt("label", "gateway");
const PORT = Number(opt("port", 18789));
const TOKEN = opt("token", "");
const PID = Number(opt("pid", 0));
const MOCK_LOG = opt("mock-log", "");
const JOBS = Number(opt("jobs", 10000));
const ADD_TIMEOUT_MS = Number(opt("add-timeout-secs", 300)) * 1000;
const IDLE_MS = Number(opt("idle-secs", 30)) * 1000;
const SETTLE_MS = Number(opt("settle-secs", 5)) * 1000;
const FIRES = Number(opt("fires", 3));
const FIRE_LEAD_MS = Number(opt("fire-lead-ms", 3000));
const CLK_TCK = Number(opt("clk-tck", 100));
const OUT = opt("json", "");
const QUIET_MAX_MS = Number(opt("quiet-max-secs", 60)) * 1000;
const RPC_TIMEOUT_MS = 120_000;
const BUCKET = Math.max(100, Math.round(JOBS / 20)); // add latency is reported per slice of this many jobs

if (typeof WebSocket === "undefined") {
  console.error("cron_bench.mjs needs a global WebSocket: Node >= 22, or Node 20 with --experimental-websocket");
  process.exit(2);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Wall-clock ms with sub-ms precision (the mock stamps requests the same way). */
const wallMs = () => performance.timeOrigin + performance.now();
const log = (...a) => console.log(`[${LABEL}]`, ...a);
const pct = (v, p) => {
  if (!v.length) return null;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.round(p * (s.length - 1)))];
};
const stats = (v) => (v.length ? { n: v.length, p50: pct(v, 0.5), p99: pct(v, 0.99), min: Math.min(...v), max: Math.max(...v) } : { n: 0 });

// ---- /proc
const readText = (f) => {
  try {
    return fs.readFileSync(f, "utf8");
  } catch {
    return "";
  }
};
const statusField = (text, key) => {
  const m = new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text);
  return m ? Number(m[1]) : 0;
};
/** utime+stime (ticks) of a whole process (all its threads), from /proc/<pid>/stat. */
const procTicks = (pid) => {
  const s = readText(`/proc/${pid}/stat`);
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return f.length > 12 ? Number(f[11]) + Number(f[12]) : 0; // fields 14 and 15 of stat(5)
};
/** Every live descendant of `pid` (OpenClaw runs helper processes). */
const descendants = (pid) => {
  const parent = new Map();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const s = readText(`/proc/${d}/stat`);
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    if (f.length > 1) parent.set(Number(d), Number(f[1]));
  }
  const out = [];
  const walk = (p) => {
    for (const [c, pp] of parent) if (pp === p) { out.push(c); walk(c); }
  };
  walk(pid);
  return out;
};
/** Per thread: name, CPU ticks, voluntary / involuntary context switches. */
const threads = (pid) => {
  const out = new Map();
  let dirs = [];
  try {
    dirs = fs.readdirSync(`/proc/${pid}/task`);
  } catch {}
  for (const tid of dirs) {
    const st = readText(`/proc/${pid}/task/${tid}/status`);
    if (!st) continue;
    out.set(`${pid}/${tid}`, {
      name: (/^Name:\s+(.*)$/m.exec(st) || [])[1] || "?",
      ticks: procTicks(`${pid}/task/${tid}`),
      vol: statusField(st, "voluntary_ctxt_switches"),
      invol: statusField(st, "nonvoluntary_ctxt_switches"),
    });
  }
  return out;
};
const rss = () => {
  const main = readText(`/proc/${PID}/status`);
  const kids = descendants(PID);
  let tree = statusField(main, "VmRSS");
  for (const k of kids) tree += statusField(readText(`/proc/${k}/status`), "VmRSS");
  return { mainKiB: statusField(main, "VmRSS"), hwmKiB: statusField(main, "VmHWM"), treeKiB: tree, nprocs: 1 + kids.length, threads: statusField(main, "Threads") };
};
const ticksToMs = (t) => (t * 1000) / CLK_TCK;
/** The machine's CPU time (ticks, all cores): busy and total, from /proc/stat — to tell how loaded it was. */
const machineTicks = () => {
  const f = readText("/proc/stat").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3] - (f[4] || 0), total };
};
/** Share of the machine's CPU time, since `m0`, spent by processes other than the gateway's (`gwTicks`). */
const othersShare = (m0, gwTicks) => {
  const m1 = machineTicks();
  const total = m1.total - m0.total;
  return total > 0 ? Math.max(0, (m1.busy - m0.busy - gwTicks) / total) : null;
};

/** Waits --settle-secs, then until the gateway spends < 2 % of a core over 1 s (OpenClaw keeps
 *  working for a while after its hello-ok and after bursts of writes), at most --quiet-max-secs. */
async function settle() {
  const t0 = Date.now();
  await sleep(SETTLE_MS);
  for (;;) {
    const c0 = procTicks(PID);
    await sleep(1000);
    const busyMs = ticksToMs(procTicks(PID) - c0);
    if (busyMs < 20) return { ms: Date.now() - t0, quiet: true };
    if (Date.now() - t0 > SETTLE_MS + QUIET_MAX_MS) return { ms: Date.now() - t0, quiet: false, lastSecondCpuMs: busyMs };
  }
}

/** CPU and wake-ups of the gateway (and its tree) over `ms` with no client connected. */
async function idleWindow(ms) {
  const kids0 = descendants(PID);
  const t0 = wallMs();
  const main0 = procTicks(PID), th0 = threads(PID);
  const kidTicks0 = new Map(kids0.map((k) => [k, procTicks(k)]));
  const kidTh0 = new Map(kids0.map((k) => [k, threads(k)]));
  const m0 = machineTicks();
  await sleep(ms);
  const secs = (wallMs() - t0) / 1000;
  const main1 = procTicks(PID), th1 = threads(PID);
  const diff = (a, b) => {
    const rows = [];
    for (const [id, x] of b) {
      const y = a.get(id) || { ticks: 0, vol: 0, invol: 0 };
      rows.push({ id, name: x.name, ticks: x.ticks - y.ticks, vol: x.vol - y.vol, invol: x.invol - y.invol });
    }
    return rows;
  };
  const rows = diff(th0, th1);
  const vol = rows.reduce((s, r) => s + r.vol, 0), invol = rows.reduce((s, r) => s + r.invol, 0);
  let treeTicks = main1 - main0, treeVol = vol;
  for (const k of kids0) {
    treeTicks += procTicks(k) - (kidTicks0.get(k) || 0);
    treeVol += diff(kidTh0.get(k) || new Map(), threads(k)).reduce((s, r) => s + r.vol, 0);
  }
  const cpuMs = ticksToMs(main1 - main0);
  return {
    secs,
    othersCpuShare: othersShare(m0, treeTicks),
    cpuMs,
    cpuPct: (100 * cpuMs) / (secs * 1000),
    wakeups: vol, // voluntary switches: a thread went to sleep and was woken again
    wakeupsPerSec: vol / secs,
    involuntary: invol,
    threads: rows.length,
    busiestThreads: rows.filter((r) => r.vol || r.ticks).sort((a, b) => b.vol - a.vol).slice(0, 6)
      .map((r) => ({ name: r.name, wakeups: r.vol, cpuMs: ticksToMs(r.ticks) })),
    tree: { nprocs: 1 + kids0.length, cpuMs: ticksToMs(treeTicks), wakeups: treeVol, wakeupsPerSec: treeVol / secs },
  };
}

// ---- the protocol
class Gateway {
  constructor(ws) {
    this.ws = ws;
    this.pending = new Map();
    this.seq = 0;
    this.listeners = new Set();
    ws.onmessage = ({ data }) => {
      let f;
      try {
        f = JSON.parse(data);
      } catch {
        return;
      }
      if (f.type === "res" && this.pending.has(f.id)) {
        const p = this.pending.get(f.id);
        this.pending.delete(f.id);
        clearTimeout(p.timer);
        p.resolve({ ok: f.ok === true, payload: f.payload, error: f.error, at: wallMs() });
      } else if (f.type === "event") {
        for (const l of this.listeners) l(f);
      }
    };
    ws.onclose = () => {
      for (const p of this.pending.values()) p.resolve({ ok: false, error: { message: "connection closed" }, at: wallMs() });
      this.pending.clear();
    };
  }
  /** Resolves with {ok, payload, error, sentAt, at, ms}; never rejects. */
  call(method, params = {}, timeoutMs = RPC_TIMEOUT_MS) {
    const id = `r${++this.seq}`;
    return new Promise((resolve) => {
      const sentAt = wallMs();
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ ok: false, error: { message: `no answer within ${timeoutMs} ms` }, sentAt, at: wallMs(), ms: timeoutMs });
      }, timeoutMs);
      this.pending.set(id, { timer, resolve: (r) => resolve({ ...r, sentAt, ms: r.at - sentAt }) });
      this.ws.send(JSON.stringify({ type: "req", id, method, params }));
    });
  }
  close() {
    try {
      this.ws.close();
    } catch {}
  }
}

/** One authenticated connection: connect.challenge → connect → hello-ok; null on any failure. */
function connectOnce() {
  return new Promise((resolve) => {
    let ws;
    try {
      ws = new WebSocket(`ws://127.0.0.1:${PORT}/`);
    } catch {
      return resolve(null);
    }
    const done = (v) => {
      clearTimeout(timer);
      if (!v) try { ws.close(); } catch {}
      resolve(v);
    };
    const timer = setTimeout(() => done(null), 10_000);
    ws.onerror = () => done(null);
    ws.onclose = () => done(null);
    ws.onmessage = ({ data }) => {
      const f = JSON.parse(data);
      if (f.type === "event" && f.event === "connect.challenge") {
        ws.send(JSON.stringify({ type: "req", id: "c1", method: "connect", params: {
          minProtocol: 3, maxProtocol: 4, client: { id: "cli", version: "cron-bench", platform: "linux", mode: "cli" },
          role: "operator", scopes: ["operator.admin", "operator.read", "operator.write"], caps: [], auth: { token: TOKEN } } }));
      } else if (f.id === "c1") {
        if (f.ok && f.payload?.type === "hello-ok") {
          ws.onerror = ws.onclose = null;
          done(new Gateway(ws));
        } else {
          if (!/UNAVAILABLE/.test(JSON.stringify(f.error ?? ""))) log("connect refused:", JSON.stringify(f.error).slice(0, 300));
          done(null); // OpenClaw answers UNAVAILABLE while its sidecars start: retried
        }
      }
    };
  });
}
async function connect(deadlineMs = 120_000) {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    const gw = await connectOnce();
    if (gw) return gw;
    await sleep(100);
  }
  throw new Error(`no hello-ok from 127.0.0.1:${PORT} within ${deadlineMs / 1000} s`);
}

// ---- the jobs
/** Months (1-12, UTC) in which no job may fire during the run: this one and the next. */
const busyMonths = (() => {
  const m = new Date().getUTCMonth() + 1;
  return [m, (m % 12) + 1];
})();
const freeMonths = [...Array(12).keys()].map((i) => i + 1).filter((m) => !busyMonths.includes(m));
const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"];
const jobParams = (i) => ({
  name: `bench-cron-${i}`,
  schedule: { kind: "cron", expr: `${i % 60} ${Math.floor(i / 60) % 24} ${1 + (i % 28)} ${freeMonths[i % freeMonths.length]} *`, tz: ZONES[i % ZONES.length] },
  sessionTarget: "isolated",
  payload: { kind: "agentTurn", message: `cron bench job ${i}` },
  enabled: true,
});
const jobIdOf = (payload) => payload?.id ?? payload?.job?.id ?? payload?.jobId;
const errText = (r) => (r.error ? `${r.error.code ?? ""} ${r.error.message ?? JSON.stringify(r.error)}`.trim() : "?").slice(0, 300);

/** A rate-limit refusal (OpenClaw: UNAVAILABLE "rate limit exceeded for cron.add; retry after 59s"). */
const rateLimited = (r) => !r.ok && (r.error?.retryAfterMs != null || /rate limit/i.test(r.error?.message ?? ""));

async function addJobs() {
  const lat = [], buckets = [];
  let errors = 0, firstError = null, done = 0, consecutiveErrors = 0, connections = 0, refusedByLimit = 0, limitMessage = null;
  let gw = null, fresh = false;
  const cpu0 = procTicks(PID), m0 = machineTicks();
  const t0 = wallMs();
  let capped = false;
  for (let i = 0; i < JOBS; i++) {
    if (wallMs() - t0 > ADD_TIMEOUT_MS) {
      capped = true;
      break;
    }
    if (!gw) {
      gw = await connect();
      connections++;
      fresh = true;
    }
    const r = await gw.call("cron.add", jobParams(i), Math.max(1000, ADD_TIMEOUT_MS - (wallMs() - t0) + 1000));
    if (r.ok) {
      done++;
      consecutiveErrors = 0;
      lat.push(r.ms);
    } else if (rateLimited(r) && !fresh) {
      // OpenClaw's write budget (30 a minute) is per connection for a client without device
      // identity: the same job again on a new connection. Refused on a fresh one too: a real limit.
      refusedByLimit++;
      limitMessage ??= errText(r);
      gw.close();
      gw = null;
      i--;
      continue;
    } else if (wallMs() - t0 > ADD_TIMEOUT_MS) {
      capped = true; // the add in flight when the cap passed: cut by the cap, not refused
      break;
    } else {
      errors++;
      firstError ??= `job ${i}: ${errText(r)}`;
      if (++consecutiveErrors >= 20) break; // refused outright: no point sending the rest
    }
    fresh = false;
    if ((i + 1) % BUCKET === 0) {
      const last = lat.slice(-BUCKET);
      buckets.push({ upTo: i + 1, p50: pct(last, 0.5), p99: pct(last, 0.99), rssKiB: rss().mainKiB, elapsedMs: wallMs() - t0 });
      log(`added ${i + 1}: last ${BUCKET} p50 ${pct(last, 0.5)?.toFixed(2)} ms, ${((wallMs() - t0) / 1000).toFixed(1)} s`);
    }
  }
  const wallTotal = wallMs() - t0;
  gw?.close();
  return {
    requested: JOBS, done, errors, firstError, capped, timeoutSecs: ADD_TIMEOUT_MS / 1000,
    connections, refusedByLimit, limitMessage, wallMs: wallTotal, perSec: (done * 1000) / wallTotal, latency: stats(lat),
    gatewayCpuMs: ticksToMs(procTicks(PID) - cpu0), othersCpuShare: othersShare(m0, procTicks(PID) - cpu0), buckets,
  };
}

async function listJobs(gw) {
  // The most one page may hold: the first limit the gateway accepts, largest first.
  const refused = [];
  let limit = null;
  for (const l of [100000, 10000, 1000, 500, 200, 100, 50]) {
    const r = await gw.call("cron.list", { includeDisabled: true, limit: l, offset: 0 });
    if (r.ok) {
      limit = l;
      break;
    }
    refused.push({ limit: l, error: errText(r) });
  }
  if (limit === null) return { error: "cron.list refused every limit", refused };
  const firstPage = [], full = [];
  let pages = 0, listed = 0, total = null;
  const foreign = new Map(); // jobs the benchmark did not add (a gateway's own), by name
  for (let rep = 0; rep < 5; rep++) {
    const t0 = wallMs();
    let offset = 0, n = 0, p = 0;
    for (;;) {
      const r = await gw.call("cron.list", { includeDisabled: true, limit, offset });
      if (!r.ok) return { error: `cron.list offset ${offset}: ${errText(r)}`, limit, refused };
      if (p === 0) firstPage.push(r.ms);
      p++;
      const jobs = r.payload?.jobs ?? [];
      n += jobs.length;
      for (const j of jobs)
        if (!/^bench-/.test(j.name ?? "")) foreign.set(j.id ?? j.name, { name: j.name, schedule: j.schedule, enabled: j.enabled });
      total = r.payload?.total ?? total;
      const next = r.payload?.nextOffset;
      if (!r.payload?.hasMore || jobs.length === 0) break;
      offset = typeof next === "number" ? next : offset + jobs.length;
    }
    full.push(wallMs() - t0);
    pages = p;
    listed = n;
  }
  return { limit, refused, pages, listed, total, firstPage: stats(firstPage), full: stats(full), othersJobs: [...foreign.values()] };
}

// ---- the mock's log: the request whose answer carries `marker`
function findRequest(marker, notBefore) {
  for (const line of readText(MOCK_LOG).split("\n")) {
    if (!line.includes(marker)) continue;
    try {
      const j = JSON.parse(line);
      if (j.recvMs >= notBefore) return j;
    } catch {}
  }
  return null;
}
async function waitRequest(marker, notBefore, timeoutMs) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const j = findRequest(marker, notBefore);
    if (j) return j;
    await sleep(20);
  }
  return null;
}
/** Resolves when a `cron` event says this job's run ended (both gateways broadcast them); false on timeout. */
function waitFinished(gw, jobId, timeoutMs) {
  return new Promise((resolve) => {
    const l = (f) => {
      const p = f.payload || {};
      if (f.event === "cron" && (p.jobId === jobId || p.id === jobId) && p.action === "finished") end(true);
    };
    const timer = setTimeout(() => end(false), timeoutMs);
    const end = (v) => {
      clearTimeout(timer);
      gw.listeners.delete(l);
      resolve(v);
    };
    gw.listeners.add(l);
  });
}

async function fires(gw) {
  const out = { at: [], run: [], notes: [] };
  const m0 = machineTicks(), c0 = procTicks(PID);
  // `at` jobs: warm-up + FIRES measured. The due instant must lie after the add's ack, or the
  // figure would include the add: when the ack comes less than 0.5 s before it, that fire is
  // done again with twice the lead (at most 3 times).
  let lead = FIRE_LEAD_MS, redos = 0;
  for (let k = 0; k <= FIRES; k++) {
    const marker = `cronfire${k}r${redos}x${process.pid}`;
    const due = Math.ceil((Date.now() + lead) / 1000) * 1000;
    const r = await gw.call("cron.add", {
      name: `bench-fire-${k}`, schedule: { kind: "at", at: new Date(due).toISOString().replace(/\.\d+Z$/, "Z") },
      sessionTarget: "isolated", payload: { kind: "agentTurn", message: `cron bench fire ECHO:${marker}` },
      delivery: { mode: "none" }, enabled: true,
    });
    if (!r.ok) {
      out.notes.push(`at job ${k} refused: ${errText(r)}`);
      break;
    }
    const id = jobIdOf(r.payload);
    const finished = waitFinished(gw, id, lead + 90_000);
    const req = await waitRequest(marker, due - 60_000, lead + 60_000);
    if (!req) {
      out.notes.push(`at job ${k}: no model request within ${(lead + 60_000) / 1000} s of being added`);
      break;
    }
    const row = { dueMs: due, leadMs: lead, latencyMs: req.recvMs - due, ackBeforeDueMs: due - r.at };
    log(`at fire ${k}${k === 0 ? " (warm-up)" : ""}: due → model request ${row.latencyMs.toFixed(2)} ms (ack ${row.ackBeforeDueMs.toFixed(0)} ms before due)`);
    if (!(await finished)) out.notes.push(`at job ${k}: no "cron" finished event within 90 s`);
    await sleep(500);
    if (row.ackBeforeDueMs < 500 && redos < 3) {
      out.notes.push(`at job ${k}: the add was acknowledged ${(-row.ackBeforeDueMs + 500).toFixed(0)} ms too late for a ${lead} ms lead: done again with ${2 * lead} ms`);
      redos++;
      lead *= 2;
      k--;
      continue;
    }
    if (k === 0) out.coldAt = row;
    else out.at.push(row);
  }
  // cron.run force of one job that is not due (a far-away yearly schedule)
  const runMarker = `cronrun${process.pid}`;
  const a = await gw.call("cron.add", { ...jobParams(JOBS + 1), name: "bench-run-now",
    payload: { kind: "agentTurn", message: `cron bench run ECHO:${runMarker}` }, delivery: { mode: "none" } });
  if (!a.ok) {
    out.notes.push(`cron.run job refused: ${errText(a)}`);
    return out;
  }
  const id = jobIdOf(a.payload);
  for (let k = 0; k < FIRES; k++) {
    const finished = waitFinished(gw, id, 90_000);
    const r = await gw.call("cron.run", { id, mode: "force" });
    if (!r.ok) {
      out.notes.push(`cron.run ${k}: ${errText(r)}`);
      break;
    }
    // one job, one message: each run is told apart by its request arriving after it was asked for
    const req = await waitRequest(runMarker, r.sentAt, 60_000);
    if (!req) {
      out.notes.push(`cron.run ${k}: no model request within 60 s`);
      break;
    }
    const row = { sentToRequestMs: req.recvMs - r.sentAt, ackToRequestMs: req.recvMs - r.at, ackMs: r.ms, ack: r.payload };
    out.run.push(row);
    log(`cron.run ${k}: sent → model request ${row.sentToRequestMs.toFixed(2)} ms (ack after ${r.ms.toFixed(2)} ms)`);
    if (!(await finished)) out.notes.push(`cron.run ${k}: no "cron" finished event within 90 s`);
    await sleep(500);
  }
  out.othersCpuShare = othersShare(m0, procTicks(PID) - c0);
  return out;
}
// ---- main
const result = { label: LABEL, date: new Date().toISOString(), config: { jobs: JOBS, addTimeoutSecs: ADD_TIMEOUT_MS / 1000, idleSecs: IDLE_MS / 1000, settleSecs: SETTLE_MS / 1000, fires: FIRES, fireLeadMs: FIRE_LEAD_MS, clkTck: CLK_TCK, quietMonths: busyMonths } };
const save = () => OUT && fs.writeFileSync(OUT, JSON.stringify(result, null, 2) + "\n");
try {
  const t0 = Date.now();
  let gw = await connect();
  result.readyMs = Date.now() - t0;
  result.statusBefore = (await gw.call("cron.status")).payload ?? null;
  gw.close();
  result.settleBefore = await settle();
  result.rssBefore = rss();
  log(`idle with 0 jobs for ${IDLE_MS / 1000} s`);
  result.idleEmpty = await idleWindow(IDLE_MS);
  save();

  log(`adding ${JOBS} jobs (cap ${ADD_TIMEOUT_MS / 1000} s)`);
  result.add = await addJobs();
  result.rssAfterAdd = rss();
  gw = await connect();
  const st = await gw.call("cron.status");
  result.statusAfter = st.ok ? st.payload : { error: errText(st) };
  log("cron.list");
  result.list = await listJobs(gw);
  save();
  gw.close();

  result.settleLoaded = await settle();
  result.rssLoaded = rss();
  log(`idle with ${result.add.done} jobs for ${IDLE_MS / 1000} s`);
  result.idleLoaded = await idleWindow(IDLE_MS);
  save();

  gw = await connect();
  result.fire = await fires(gw);
  result.rssEnd = rss();
  gw.close();
} catch (e) {
  result.error = String(e?.stack || e);
  console.error(result.error);
}
save();
if (OUT) log(`wrote ${path.relative(process.cwd(), OUT)}`);
process.exit(result.error ? 1 : 0);
