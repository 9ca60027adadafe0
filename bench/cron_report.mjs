#!/usr/bin/env node
// The cron benchmark's report (bench/cron_bench.sh): both sides' figures as one JSON file and as the
// "Cron jobs" section of docs/benchmarks.md (between the cron-bench markers; bench/report.mjs keeps
// that section when it rewrites the rest). Node, no dependencies.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";

const args = process.argv.slice(2);
const opt = (name, dflt = "") => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const readJson = (f) => {
  try {
    return f ? JSON.parse(fs.readFileSync(f, "utf8")) : null;
  } catch {
    return null;
  }
};
const sh = (cmd, a) => {
  try {
    return execFileSync(cmd, a, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "";
  }
};
const ROOT = opt("root", process.cwd());
const readText = (f) => {
  try {
    return f ? fs.readFileSync(f, "utf8").trim() : "";
  } catch {
    return "";
  }
};
const P = readJson(opt("pincer")), O = readJson(opt("openclaw"));
const stateKiB = (x) => (x === "" ? null : Number(x));
const buildDir = path.dirname(opt("pincer-bin", path.join(ROOT, "build/pincer")));
const buildType = (/^CMAKE_BUILD_TYPE:[A-Z]*=(.*)$/m.exec(readText(path.join(buildDir, "CMakeCache.txt"))) || [])[1] || "?";
const ocPkg = readJson(path.join(ROOT, "bench/.cache/reference/openclaw/node_modules/openclaw/package.json"));
// --from: render the section again from a saved cron.json (its date, commit and figures), e.g.
// after a change of this file; otherwise the run's two client results make a new one.
const result = opt("from") ? readJson(opt("from")) : {
  date: new Date().toISOString(),
  commit: (sh("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"]) || "?") +
          (sh("git", ["-C", ROOT, "status", "--porcelain", "--untracked-files=no"]) ? " + uncommitted changes" : ""),
  pincerBuildType: buildType,
  openclawVersion: ocPkg?.version ?? "?",
  load: { before: opt("load-before"), after: opt("load-after"), cpus: Number(opt("cpus")) },
  commands: readText(opt("commands")),
  pincer: { status: opt("pincer-status"), stateKiB: stateKiB(opt("pincer-state-kib")), ...(P ?? {}) },
  openclaw: { status: opt("openclaw-status"), stateKiB: stateKiB(opt("openclaw-state-kib")), ...(O ?? {}) },
};
if (!result) {
  console.error(`cron_report: cannot read ${opt("from")}`);
  process.exit(1);
}
if (opt("commands")) result.commands = readText(opt("commands"));
if (opt("json") && !opt("from")) fs.writeFileSync(opt("json"), JSON.stringify(result, null, 2) + "\n");

// ---- formatting (thousands separated by a space, as the rest of docs/benchmarks.md)
const num = (x, d = 1) => (x == null || Number.isNaN(x) ? "—" : Number(x).toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: 0 }).replace(/,/g, " "));
const ms = (x) => (x == null ? "—" : x >= 10_000 ? `${num(x / 1000, 1)} s` : x >= 100 ? `${num(x, 0)} ms` : `${num(x, 2)} ms`);
const mib = (kib) => (kib == null ? "—" : `${num(kib / 1024, 1)} MiB`);
const ratio = (o, p) => (o > 0 && p > 0 ? `${num(o / p, o / p >= 10 ? 0 : 1)}×` : "");
const pctOf = (x) => (x == null ? "—" : `${num(x, x < 1 ? 2 : 1)} %`);
const median = (v) => {
  const s = v.filter((x) => x != null).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : null;
};
const A = (d) => d.add ?? {};
const L = (d) => d.list ?? {};
const jobsLoaded = (d) => d.statusAfter?.jobs ?? L(d).total ?? null;
const added = (d) => {
  const a = A(d);
  if (a.done == null) return "—";
  let s = `${num(a.done, 0)} of ${num(a.requested, 0)}`;
  if (a.capped) s += ` (**capped** at ${num(a.timeoutSecs, 0)} s)`;
  if (a.errors) s += `, ${num(a.errors, 0)} refused`;
  return s;
};
const slices = (d) => {
  const b = A(d).buckets ?? [];
  if (!b.length) return "—";
  const first = b[0], last = b[b.length - 1];
  return b.length === 1 ? ms(first.p50) : `${ms(first.p50)} → ${ms(last.p50)} (up to job ${num(last.upTo, 0)})`;
};
const listLimit = (d) => {
  const l = L(d);
  if (l.limit == null) return l.error ? `error: ${l.error}` : "—";
  const refused = (l.refused ?? []).map((r) => num(r.limit, 0));
  return `${num(l.limit, 0)}${refused.length ? ` (${refused[refused.length - 1]} refused)` : ""}`;
};
const idle = (w) => (w ? `${ms(w.cpuMs)} = ${pctOf(w.cpuPct)} of a core; ${num(w.wakeupsPerSec, w.wakeupsPerSec < 10 ? 2 : 0)} /s` : "—");
const perK = (d) => (L(d).full && L(d).listed ? (1000 * L(d).full.p50) / L(d).listed : null);
const atP50 = (d) => median((d.fire?.at ?? []).map((r) => r.latencyMs));
const runP50 = (d, k) => median((d.fire?.run ?? []).map((r) => r[k]));
const range = (v) => (v.length ? `${ms(Math.min(...v))} – ${ms(Math.max(...v))}` : "");

const Pd = result.pincer, Od = result.openclaw;
for (const d of [Pd, Od]) {
  const a = A(d);
  if (a.capped && a.errors === 1 && /no answer within/.test(a.firstError ?? "")) {
    a.errors = 0; // the add in flight when the cap passed (recorded as an error before the client told it apart)
    a.firstError = null;
  }
}
const rows = [
  ["jobs added through `cron.add`", added(Pd), added(Od), ""],
  ["↳ wall time; adds per second", A(Pd).wallMs != null ? `${ms(A(Pd).wallMs)}; ${num(A(Pd).perSec, 0)} /s` : "—",
    A(Od).wallMs != null ? `${ms(A(Od).wallMs)}; ${num(A(Od).perSec, 1)} /s` : "—", ratio(A(Pd).perSec, A(Od).perSec)],
  ["↳ add latency p50 / p99", `${ms(A(Pd).latency?.p50)} / ${ms(A(Pd).latency?.p99)}`, `${ms(A(Od).latency?.p50)} / ${ms(A(Od).latency?.p99)}`, ratio(A(Od).latency?.p50, A(Pd).latency?.p50)],
  ["↳ add latency p50, first slice → last slice", slices(Pd), slices(Od), ""],
  ["↳ gateway CPU time during the adds", ms(A(Pd).gatewayCpuMs), ms(A(Od).gatewayCpuMs), ""],
  ["↳ connections used (adds refused by a rate limit, sent again on a new one)", A(Pd).connections != null ? `${A(Pd).connections} (${A(Pd).refusedByLimit})` : "—",
    A(Od).connections != null ? `${num(A(Od).connections, 0)} (${num(A(Od).refusedByLimit, 0)})` : "—", ""],
  ["jobs in the scheduler (`cron.status` `jobs`): before the adds → after", `${num(Pd.statusBefore?.jobs, 0)} → ${num(jobsLoaded(Pd), 0)}`,
    `${num(Od.statusBefore?.jobs, 0)} → ${num(jobsLoaded(Od), 0)}`, ""],
  ["`cron.list` page size: the largest `limit` accepted", listLimit(Pd), listLimit(Od), ""],
  // pages of different sizes over different job counts: the ratio is taken per 1 000 jobs listed only
  ["↳ first page, p50 of 5", L(Pd).firstPage ? `${ms(L(Pd).firstPage.p50)} (${num(Math.min(L(Pd).limit, L(Pd).total ?? 0), 0)} jobs)` : "—",
    L(Od).firstPage ? `${ms(L(Od).firstPage.p50)} (${num(Math.min(L(Od).limit, L(Od).total ?? 0), 0)} jobs)` : "—", L(Pd).limit === L(Od).limit ? ratio(L(Od).firstPage?.p50, L(Pd).firstPage?.p50) : ""],
  ["↳ every job, page after page (pages; p50 of 5)", L(Pd).full ? `${ms(L(Pd).full.p50)} (${L(Pd).pages} page${L(Pd).pages === 1 ? "" : "s"}, ${num(L(Pd).listed, 0)} jobs)` : "—",
    L(Od).full ? `${ms(L(Od).full.p50)} (${L(Od).pages} page${L(Od).pages === 1 ? "" : "s"}, ${num(L(Od).listed, 0)} jobs)` : "—", ""],
  ["↳ the same per 1 000 jobs listed", ms(perK(Pd)), ms(perK(Od)), ratio(perK(Od), perK(Pd))],
  ["RSS, gateway process: idle with 0 jobs → after the adds → idle with the jobs", `${mib(Pd.rssBefore?.mainKiB)} → ${mib(Pd.rssAfterAdd?.mainKiB)} → ${mib(Pd.rssLoaded?.mainKiB)}`,
    `${mib(Od.rssBefore?.mainKiB)} → ${mib(Od.rssAfterAdd?.mainKiB)} → ${mib(Od.rssLoaded?.mainKiB)}`, ratio(Od.rssLoaded?.mainKiB, Pd.rssLoaded?.mainKiB)],
  ["↳ whole process tree, idle with the jobs", `${mib(Pd.rssLoaded?.treeKiB)} (${Pd.rssLoaded?.nprocs ?? "—"} proc)`, `${mib(Od.rssLoaded?.treeKiB)} (${Od.rssLoaded?.nprocs ?? "—"} procs)`, ratio(Od.rssLoaded?.treeKiB, Pd.rssLoaded?.treeKiB)],
  ["job state on disk after the run", Pd.stateKiB != null ? `${mib(Pd.stateKiB)} (\`cron/\`)` : "—", Od.stateKiB != null ? `${mib(Od.stateKiB)} (\`state/openclaw.sqlite*\`, all its state)` : "—", ""],
  [`idle, 0 jobs: CPU over ${num(Pd.idleEmpty?.secs ?? Od.idleEmpty?.secs, 0)} s; wake-ups (voluntary context switches, all threads)`, idle(Pd.idleEmpty), idle(Od.idleEmpty), ratio(Od.idleEmpty?.wakeupsPerSec, Pd.idleEmpty?.wakeupsPerSec)],
  [`idle, with the jobs: CPU over ${num(Pd.idleLoaded?.secs ?? Od.idleLoaded?.secs, 0)} s; wake-ups`, idle(Pd.idleLoaded), idle(Od.idleLoaded), ratio(Od.idleLoaded?.wakeupsPerSec, Pd.idleLoaded?.wakeupsPerSec)],
  [`cron fire: \`at\` job's due instant → the mock receives the model request (p50 of ${Pd.fire?.at?.length ?? Od.fire?.at?.length ?? 0}; min – max)`,
    `${ms(atP50(Pd))}; ${range((Pd.fire?.at ?? []).map((r) => r.latencyMs))}`, `${ms(atP50(Od))}; ${range((Od.fire?.at ?? []).map((r) => r.latencyMs))}`, ratio(atP50(Od), atP50(Pd))],
  ["↳ the first fire (first agent run of the process; not in the p50)", ms(Pd.fire?.coldAt?.latencyMs), ms(Od.fire?.coldAt?.latencyMs), ""],
  ["`cron.run` (force): request sent → model request (p50); ack → model request", `${ms(runP50(Pd, "sentToRequestMs"))}; ${ms(runP50(Pd, "ackToRequestMs"))}`,
    `${ms(runP50(Od, "sentToRequestMs"))}; ${ms(runP50(Od, "ackToRequestMs"))}`, ratio(runP50(Od, "sentToRequestMs"), runP50(Pd, "sentToRequestMs"))],
  ["↳ `cron.run` ack (p50)", ms(runP50(Pd, "ackMs")), ms(runP50(Od, "ackMs")), ratio(runP50(Od, "ackMs"), runP50(Pd, "ackMs"))],
];

// What a side could not do, or what made its figures less comparable: said in words.
const notes = [];
for (const [name, d] of [["Pincer", Pd], ["OpenClaw", Od]]) {
  if (d.status !== "ok") notes.push(`**${name}: ${d.status}.**`);
  if (d.error) notes.push(`${name}: the client stopped: \`${String(d.error).split("\n")[0]}\`.`);
  const a = A(d);
  if (a.capped) notes.push(`${name} added ${num(a.done, 0)} of ${num(a.requested, 0)} jobs before the ${num(a.timeoutSecs, 0)} s cap (\`BENCH_CRON_ADD_TIMEOUT_SECS\`): its list, RSS and idle figures are with ${num(jobsLoaded(d), 0)} jobs, not ${num(a.requested, 0)}.`);
  if (a.refusedByLimit) notes.push(`${name} refused ${num(a.refusedByLimit, 0)} adds with "${a.limitMessage}": its control-plane write limit allows 30 a minute, per connection for a client without device identity (per device otherwise), and cannot be configured. The client sent each refused add again on a new connection; without that, one client adds 30 jobs a minute (10 000 jobs: 5.6 hours).`);
  if (a.firstError) notes.push(`${name}: ${num(a.errors, 0)} adds failed; the first: \`${a.firstError}\`.`);
  const lim = (L(d).refused ?? []);
  if (L(d).limit != null && lim.length) notes.push(`${name}'s \`cron.list\` accepts at most \`limit: ${L(d).limit}\` (\`${lim[lim.length - 1].error}\`): every job is listed page after page.`);
  for (const n of d.fire?.notes ?? []) notes.push(`${name}: ${n}.`);
  // (the idle figures are the gateway's own CPU time and wake-ups: not inflated by others' load)
  for (const [what, share] of [["adds", a.othersCpuShare], ["fires", d.fire?.othersCpuShare]])
    if (share > 0.2) notes.push(`${name}, ${what}: other processes used ${num(100 * share, 0)} % of the machine's CPU time meanwhile (shared machine): the times are inflated.`);
  const own = L(d).othersJobs ?? [];
  if (own.length) notes.push(`${name} has ${own.length} job${own.length === 1 ? "" : "s"} of its own (not added by the benchmark): ${own.slice(0, 5).map((j) => `"${j.name}"`).join(", ")}.`);
  for (const [what, s] of [["before the 0-job idle window", d.settleBefore], ["before the loaded idle window", d.settleLoaded]])
    if (s && !s.quiet) notes.push(`${name} was still busy ${what} (${ms(s.lastSecondCpuMs)} CPU in its last second after ${ms(s.ms)} of waiting): that window includes this background work.`);
}
const threadsOf = (w) => (w?.busiestThreads ?? []).slice(0, 4).map((t) => `${t.name} ${num(t.wakeups, 0)}`).join(", ") || "—";
const commands = result.commands ?? "";

const section = `<!-- cron-bench:start -->
## Cron jobs (issue 15)

Generated by \`bench/cron_bench.sh\` (part of \`make bench\`) on **${result.date.replace(/\.\d+Z$/, "Z")}**, repo ${result.commit},
Pincer built ${result.pincerBuildType}, OpenClaw ${result.openclawVersion}. Both gateways in one invocation, one after the other,
each with a fresh state directory and a fresh mock LLM, measured by the same client (\`bench/cron_bench.mjs\`, Node) over the
WebSocket protocol. Load average before/after: ${result.load.before} / ${result.load.after} on ${result.load.cpus} CPUs — the
machine is shared with other builds, so times are inflated; CPU time and wake-ups are the gateway's own. Nothing here is asserted.
Pincer: ${Pd.status}. OpenClaw: ${Od.status}.
${notes.length ? "\n" + notes.map((n) => `> ${n}`).join("\n>\n") + "\n" : ""}
| measure | Pincer | OpenClaw | Pincer better by |
| --- | ---: | ---: | ---: |
${rows.map((r) => `| ${r.join(" | ")} |`).join("\n")}

How each figure is taken:

- **Adds**: \`cron.add\` with OpenClaw's params, \`{name, schedule:{kind:"cron", expr, tz}, sessionTarget:"isolated",
  payload:{kind:"agentTurn", message}, enabled:true}\`, one after the other (one in flight), on one connection while the
  gateway accepts. Job i has the yearly expression \`i%60 ⌊i/60⌋%24 1+i%28 M *\` (M: a month other than this one and the next)
  and one of 5 time zones, so nothing fires during the run. Latency = request sent → \`res\`; "first slice → last slice":
  the p50 of the first ${num(Math.max(100, Math.round((Pd.config?.jobs ?? Od.config?.jobs ?? 10000) / 20)), 0)} adds and of the last such slice completed.
- **\`cron.list\`**: \`{includeDisabled:true, limit, offset}\` with the largest \`limit\` the gateway accepts (tried from
  100 000 down), then every page until \`hasMore\` is false; 5 times.
- **RSS**: \`VmRSS\` of the gateway process (and its process tree: OpenClaw runs helper processes), after waiting until it is
  quiet (${Pd.config?.settleSecs ?? Od.config?.settleSecs ?? 5} s, then until it uses < 2 % of a core over 1 s, at most 60 s more).
- **Idle**: no client connected; CPU = utime + stime of \`/proc/<pid>/stat\` over the window; wake-ups = voluntary context
  switches summed over every thread (\`/proc/<pid>/task/*/status\`), i.e. how often a thread went to sleep and was woken.
  Busiest threads with the jobs loaded (wake-ups): Pincer ${threadsOf(Pd.idleLoaded)}; OpenClaw ${threadsOf(Od.idleLoaded)}.
- **Fire**: with the jobs still loaded, an \`at\` job (\`delivery:{mode:"none"}\`, message with an \`ECHO:\` marker) due
  ${num((Pd.config?.fireLeadMs ?? Od.config?.fireLeadMs ?? 3000) / 1000, 0)} s or more ahead on a whole second; latency = due
  instant → the mock LLM has the request's headers (\`recvMs\` in its log, the same wall clock with sub-ms precision). A first
  fire warms the agent runtime up. \`cron.run {id, mode:"force"}\` of a job that is not due: from the request sent (and from its
  ack) to the model request. Each run is waited for (its \`cron\` \`finished\` event) before the next.

Reproduce: \`bench/cron_bench.sh\` (knobs \`BENCH_CRON_JOBS\` (10000), \`BENCH_CRON_ADD_TIMEOUT_SECS\` (300),
\`BENCH_CRON_IDLE_SECS\` (30), \`BENCH_CRON_SETTLE_SECS\` (5), \`BENCH_CRON_FIRES\` (3), \`BENCH_CRON_FIRE_LEAD_MS\` (3000),
\`BENCH_CRON_ONLY\`, ports \`BENCH_CRON_MOCK_PORT\` / \`BENCH_CRON_PINCER_PORT\` / \`BENCH_CRON_OPENCLAW_PORT\`); raw figures in
\`bench/.cache/results/cron.json\`.${commands ? ` Commands of this run (\`$WORK\` = a temporary directory under \`bench/.cache/\`):\n\n\`\`\`bash\n${commands}\n\`\`\`` : ""}
<!-- cron-bench:end -->`;
console.log(section);
const MD = opt("md");
if (MD) {
  let doc = "";
  try {
    doc = fs.readFileSync(MD, "utf8");
  } catch {}
  const START = "<!-- cron-bench:start -->", END = "<!-- cron-bench:end -->";
  const a = doc.indexOf(START), b = doc.indexOf(END);
  doc = a >= 0 && b > a ? doc.slice(0, a) + section + doc.slice(b + END.length) : doc.replace(/\s*$/, "\n\n") + section + "\n";
  fs.writeFileSync(MD, doc);
  console.log(`wrote ${path.relative(process.cwd(), MD) || MD}`);
}
