#!/usr/bin/env node
// `pincer import openclaw` on a home written by the real OpenClaw (2026.9.x, its SQLite state).
//
//   node tests/compat/openclaw-import.test.mjs --pincer build/pincer [--keep]
//
// 1. The real openclaw package (tests/compat/setup-openclaw.sh), offline, its model pointed at the
//    mock LLM: two agents (main, second); `openclaw agent --local` turns in both, one message long
//    enough that OpenClaw stores its transcript row zstd-compressed; then `openclaw gateway run`
//    and `openclaw cron add` (a user's job); the gateway is stopped; an API key saved with
//    `openclaw models auth paste-api-key` (OpenClaw's shared auth store).
// 2. `pincer import openclaw --from <that home> --json` into a fresh PINCER_HOME: the counts per
//    kind are the ones OpenClaw's databases hold, checked by the import itself; the key is in
//    agents/main/agent/auth-profiles.json.
// 3. OpenClaw's own cold storage (session.maintenance.coldStorage, run here with its clock three days
//    ahead) moves every transcript into agents/<id>/sessions/cold/<sha256>.jsonl.zst; imported again
//    into a second PINCER_HOME, the sessions and transcripts are byte-for-byte those of step 2.
// 4. `pincer gateway run` on that second home, `pincer agent --message …` in the main session:
//    the request the mock LLM gets holds the old turns (history answered from Pincer), and
//    `pincer cron list --json` has the job with the same id and schedule.
//
// Exit status: 0 pass, 1 fail, 77 skipped (the openclaw package could not be installed).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { Checks, Run, ROOT, SKIP, WAIT, assert, noProxy, rerunUnderNode24, setupOpenclaw } from "./harness.mjs";

const args = process.argv.slice(2);
const argValue = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const pincer = path.resolve(argValue("--pincer") ?? path.join(ROOT, "build/pincer"));
const TOKEN = "import-token-0123456789abcdef";
const checks = new Checks("openclaw-import");

const freePort = () => new Promise((resolve, reject) => {
  const s = net.createServer();
  s.listen(0, "127.0.0.1", () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
  s.on("error", reject);
});

/** Runs a command to completion; throws with its output unless it exits 0. */
function run(cmd, argv, env, what) {
  const r = spawnSync(cmd, argv, { env, encoding: "utf8", timeout: 180000 });
  if (r.status !== 0) throw new Error(`${what} → exit ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
  return r.stdout;
}

/** Waits for a child to exit (after a signal). */
const exited = (child) => new Promise((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) return resolve();
  child.on("exit", () => resolve());
});

async function main() {
  const oc = setupOpenclaw(checks);
  if (!oc) return SKIP;
  const again = rerunUnderNode24(oc.node24);
  if (again !== null) return again;

  const r = new Run("pincer-import-", args.includes("--keep"));
  const mockPort = await r.startMock();
  const mock = `http://127.0.0.1:${mockPort}`;
  const ocHome = path.join(r.tmp, "openclaw");
  const ocState = path.join(ocHome, ".openclaw");
  fs.mkdirSync(ocState, { recursive: true, mode: 0o700 });
  const guard = path.join(r.tmp, "offline-guard.mjs");
  fs.writeFileSync(guard, `import dns from "node:dns"; import net from "node:net"; import os from "node:os";
const self = os.hostname().toLowerCase();
const ok = (h) => typeof h !== "string" || net.isIP(h) !== 0 || ["localhost", self].includes(h.toLowerCase().replace(/\\.$/, ""));
const fail = (h) => Object.assign(new Error("getaddrinfo ENOTFOUND " + h + " (offline)"), { code: "ENOTFOUND", hostname: h });
const lookup = dns.lookup;
dns.lookup = function (h, o, cb) { if (ok(h)) return lookup.apply(this, arguments); const c = typeof o === "function" ? o : cb; process.nextTick(() => c(fail(h))); return {}; };
const plookup = dns.promises.lookup;
dns.promises.lookup = function (h, ...r) { return ok(h) ? plookup.call(this, h, ...r) : Promise.reject(fail(h)); };
`);
  const ocEnv = {
    ...process.env, ...noProxy(),
    HOME: ocHome, OPENCLAW_HOME: ocHome, OPENCLAW_STATE_DIR: ocState,
    OPENCLAW_CONFIG_PATH: path.join(ocState, "openclaw.json"),
    OPENCLAW_SKIP_CHANNELS: "1", OPENCLAW_DISABLE_BONJOUR: "1", OPENCLAW_NO_AUTO_UPDATE: "1",
    OPENCLAW_NO_RESPAWN: "1", OPENCLAW_OFFLINE: "1", OPENCLAW_EXEC_SHELL_SNAPSHOT: "0", DO_NOT_TRACK: "1",
    OPENCLAW_CLAWHUB_URL: "http://127.0.0.1:9", NODE_OPTIONS: `--import=file://${guard}`,
    OPENCLAW_GATEWAY_TOKEN: TOKEN,
  };
  for (const k of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY",
    "OPENCLAW_GATEWAY_URL", "OPENCLAW_GATEWAY_PORT", "OPENCLAW_GATEWAY_PASSWORD"]) delete ocEnv[k];
  const ocPort = await freePort();
  fs.writeFileSync(ocEnv.OPENCLAW_CONFIG_PATH, JSON.stringify({
    models: { providers: { mock: { baseUrl: `${mock}/v1`, apiKey: "mock-local", api: "openai-completions",
      models: [{ id: "mock-model", name: "mock", contextWindow: 128000, maxTokens: 4096 }] } } },
    agents: { defaults: { model: { primary: "mock/mock-model" } }, list: [{ id: "main", default: true }, { id: "second" }] },
    update: { checkOnStart: false },
    gateway: { mode: "local", port: ocPort, auth: { mode: "token", token: TOKEN } },
  }, null, 2), { mode: 0o600 });
  const openclaw = (...argv) => run(oc.node24, [oc.openclaw, ...argv], ocEnv, `openclaw ${argv.join(" ").slice(0, 80)}`);
  const LONG = "long ECHO:third " + Array.from({ length: 60 }, (_, i) => `the quick brown fox number ${i} jumps over the lazy dog.`).join(" ");

  // 1. A home written by the real OpenClaw.
  let jobId = "";
  await checks.step("the real OpenClaw: turns in two agents, a compressed row, a cron job", async () => {
    openclaw("agent", "--local", "--agent", "main", "--message", "my name is Ada ECHO:first", "--json");
    openclaw("agent", "--local", "--agent", "main", "--message", LONG, "--json");
    openclaw("agent", "--local", "--agent", "second", "--message", "hello second ECHO:two", "--json");
    const gw = await r.startUntil(oc.node24, [oc.openclaw, "gateway", "run", "--port", String(ocPort), "--allow-unconfigured"],
      ocEnv, /\[gateway\](?:\u001b\[\d+m|\s)*ready(?:\u001b\[\d+m)?\r?$/m, "openclaw gateway", Math.max(WAIT, 120000));
    try {
      const out = JSON.parse(openclaw("cron", "add", "--name", "water plants", "--cron", "0 9 * * *", "--tz", "UTC",
        "--message", "water ECHO:water", "--agent", "main", "--url", `ws://127.0.0.1:${ocPort}`, "--token", TOKEN, "--json"));
      jobId = out.id;
      assert(typeof jobId === "string" && jobId.length > 0, `no job id: ${JSON.stringify(out).slice(0, 300)}`);
    } finally {
      gw.child.kill("SIGTERM");
      await exited(gw.child);
    }
    // A credential, where 2026.9 keeps it: the shared auth store of state/openclaw.sqlite.
    const paste = spawnSync(oc.node24, [oc.openclaw, "models", "auth", "paste-api-key", "--provider", "openai", "--agent", "main"],
      { env: ocEnv, input: "sk-import-test-0123456789\n", encoding: "utf8", timeout: 120000 });
    assert(paste.status === 0, `openclaw models auth paste-api-key → exit ${paste.status}: ${paste.stdout}${paste.stderr}`);
    assert(fs.existsSync(path.join(ocState, "state/openclaw.sqlite")), "no state/openclaw.sqlite");
    assert(fs.existsSync(path.join(ocState, "agents/main/agent/openclaw-agent.sqlite")), "no openclaw-agent.sqlite");
    return `job ${jobId}`;
  });

  // 2. The import.
  const pincerHome = path.join(r.tmp, "pincer");
  const pincerEnv = { ...process.env, ...noProxy(), HOME: r.tmp, PINCER_HOME: pincerHome, PINCER_GATEWAY_TOKEN: TOKEN };
  await checks.step("pincer import openclaw: counts per kind, verified", async () => {
    const dry = JSON.parse(run(pincer, ["import", "openclaw", "--from", ocState, "--dry-run", "--json"], pincerEnv, "dry run"));
    assert(dry.ok === true && dry.written === false, `dry run: ${JSON.stringify(dry.error)}`);
    const out = JSON.parse(run(pincer, ["import", "openclaw", "--from", ocState, "--json"], pincerEnv, "import"));
    assert(out.ok === true && out.written === true, `import: ${JSON.stringify(out.error)}`);
    const c = out.counts;
    assert(JSON.stringify(c) === JSON.stringify(dry.counts), `dry run ${JSON.stringify(dry.counts)} ≠ import ${JSON.stringify(c)}`);
    assert(c.sessions === 2 && c.transcripts === 2, `sessions/transcripts: ${JSON.stringify(c)}`);
    assert(c.messages === 6, `messages (3 turns × 2): ${JSON.stringify(c)}`);
    assert(c["cron jobs"] === 1, `cron jobs (OpenClaw's managed ones are not imported): ${JSON.stringify(c)}`);
    assert(c["auth profiles"] >= 1, `auth profiles: ${JSON.stringify(c)}`);
    const auth = JSON.parse(fs.readFileSync(path.join(pincerHome, "agents/main/agent/auth-profiles.json"), "utf8"));
    const profile = Object.values(auth.profiles ?? {}).find((p) => p.provider === "openai");
    assert(profile && profile.key === "sk-import-test-0123456789", `auth-profiles.json: ${Object.keys(auth.profiles ?? {})}`);
    const sessions = out.copied.filter((x) => x.kind === "sessions");
    assert(sessions.some((x) => /zstd row/.test(x.note ?? "")), `no zstd row decoded: ${JSON.stringify(sessions)}`);
    return JSON.stringify(c);
  });

  // 3. The same home after OpenClaw moved its transcripts to cold storage.
  const coldHome = path.join(r.tmp, "pincer-cold");
  const coldEnv = { ...pincerEnv, PINCER_HOME: coldHome };
  await checks.step("after OpenClaw's cold storage archived the transcripts, the import is the same", async () => {
    const module = fs.readdirSync(oc.dist).find((f) => f.startsWith("session-cold-storage-") && f.endsWith(".mjs") &&
      /export \{[^}]*\brunSessionColdStorageMaintenance\b(?! as)[^}]*\}/.test(fs.readFileSync(path.join(oc.dist, f), "utf8")));
    assert(module, `no dist module of ${oc.dist} exports runSessionColdStorageMaintenance`);
    const script = path.join(r.tmp, "cold-storage.mjs");
    fs.writeFileSync(script, `const now = Date.now; Date.now = () => now() + 3 * 86400000;
const m = await import(${JSON.stringify(path.join(oc.dist, module))});
const config = JSON.parse((await import("node:fs")).readFileSync(process.env.OPENCLAW_CONFIG_PATH, "utf8"));
config.session = { maintenance: { coldStorage: { enabled: true, afterDays: 1 } } };
console.log(JSON.stringify(await m.runSessionColdStorageMaintenance({ config })));
`);
    const archived = JSON.parse(run(oc.node24, [script], ocEnv, "OpenClaw cold storage").trim().split("\n").pop());
    assert(archived.archivedTranscripts === 2, `OpenClaw archived ${JSON.stringify(archived)}, expected both transcripts`);
    for (const agent of ["main", "second"]) {
      const cold = path.join(ocState, "agents", agent, "sessions", "cold");
      assert(fs.existsSync(cold) && fs.readdirSync(cold).some((f) => f.endsWith(".jsonl.zst")), `no cold archive in ${cold}`);
    }
    const out = JSON.parse(run(pincer, ["import", "openclaw", "--from", ocState, "--json"], coldEnv, "import (cold)"));
    assert(out.ok === true && out.written === true, `import: ${JSON.stringify(out.error)}`);
    const notes = out.copied.filter((x) => x.kind === "sessions").map((x) => x.note ?? "");
    assert(notes.length === 2 && notes.every((n) => /1 from OpenClaw's cold archive/.test(n)), `notes: ${JSON.stringify(notes)}`);
    const files = (home) => {
      const root = path.join(home, "agents");
      return fs.readdirSync(root, { recursive: true }).filter((f) => /\/sessions\/[^/]+\.(jsonl|json)$/.test(f)).sort()
        .map((f) => [f, fs.readFileSync(path.join(root, f), "utf8")]);
    };
    const hot = files(pincerHome), cold = files(coldHome);
    assert(hot.length === 4, `hot import files: ${hot.map((x) => x[0])}`);
    assert(JSON.stringify(hot) === JSON.stringify(cold),
      `the cold import differs: ${hot.map((x) => x[0])} vs ${cold.map((x) => x[0])}`);
    return `${JSON.stringify(archived)}, ${cold.length} files identical`;
  });

  // 4. Pincer on the imported (cold) home.
  await checks.step("Pincer answers in the imported session with its history, the cron job is there", async () => {
    const gw = await r.startUntil(pincer, ["gateway", "run", "--port", "0"], coldEnv, /listening on ws:\/\/[^\s]*:(\d+)/, "pincer gateway");
    const url = `ws://127.0.0.1:${gw.match[1]}`;
    await fetch(`${mock}/__mock/reset`, { method: "POST" });
    const reply = run(pincer, ["agent", "--message", "what is my name? ECHO:after", "--url", url], coldEnv, "pincer agent");
    assert(/\[after\]/.test(reply), `reply: ${reply}`);
    const requests = await (await fetch(`${mock}/__mock/requests`)).json();
    const last = requests.filter((q) => Array.isArray(q.body?.messages)).pop();
    assert(last, "the mock LLM got no chat request");
    const text = JSON.stringify(last.body.messages);
    for (const want of ["my name is Ada", "the quick brown fox number 59", "Hello from the mock LLM. [first]", "what is my name?"]) {
      assert(text.includes(want), `the request lacks "${want}": ${text.slice(0, 600)}`);
    }
    const listed = JSON.parse(run(pincer, ["cron", "list", "--all", "--json", "--url", url], coldEnv, "pincer cron list"));
    const jobs = listed.jobs ?? listed;
    const job = jobs.find((j) => j.id === jobId);
    assert(job, `job ${jobId} not listed: ${JSON.stringify(listed).slice(0, 400)}`);
    assert(job.schedule?.kind === "cron" && job.schedule?.expr === "0 9 * * *" && job.schedule?.tz === "UTC",
      `schedule: ${JSON.stringify(job.schedule)}`);
    gw.child.kill("SIGTERM");
    await exited(gw.child);
    return `${last.body.messages.length} messages in the request`;
  });

  checks.summary();
  return checks.failed() ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(1);
});
