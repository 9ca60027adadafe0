#!/usr/bin/env node
// Pincer's frames checked against the protocol schemas of the real OpenClaw package (the TypeBox
// schemas its v4 clients and server validate with, loaded from the installed dist by
// harness.mjs):
//
//   node tests/compat/protocol-conformance.test.mjs --pincer build/pincer
//
// One mock LLM, one gateway, a plain WebSocket operator client (protocol 4, token auth). Checked:
// connect.challenge; hello-ok (HelloOkSchema: closed objects, so a field OpenClaw does not know
// fails too); every response frame (ResponseFrameSchema) and event frame (EventFrameSchema) with
// per-client seq without gaps; the payloads of tick, chat, agent, health, presence and shutdown
// events; the result of every method listed in RESULTS whose OpenClaw schema exists; error
// details (FORBIDDEN + MISSING_SCOPE for a missing scope, CRON_JOB_NOT_FOUND).
//
// Exit status: 0 pass, 1 fail, 77 skipped (the openclaw package could not be installed).
import crypto from "node:crypto";
import path from "node:path";
import { Checks, Run, ROOT, SKIP, WAIT, assert, loadProtocolSchemas, rerunUnderNode24, setupOpenclaw } from "./harness.mjs";

const TOKEN = "conformance-token-0123456789abcdef";
const args = process.argv.slice(2);
const argValue = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const pincer = path.resolve(argValue("--pincer") ?? path.join(ROOT, "build/pincer"));
const checks = new Checks("conformance");

// Methods and the OpenClaw result schema their payload must satisfy (params as the Control UI
// sends them). Only methods Pincer implements; the schema must exist in the installed package.
const RESULTS = [
  ["system.info", {}, "SystemInfoResultSchema"],
  ["agents.files.list", { agentId: "main" }, "AgentsFilesListResultSchema"],
  ["agents.files.set", { agentId: "main", name: "USER.md", content: "Conformance user\n" }, "AgentsFilesSetResultSchema"],
  ["agents.files.get", { agentId: "main", name: "USER.md" }, "AgentsFilesGetResultSchema"],
  ["agents.files.get", { agentId: "main", name: "MEMORY.md" }, "AgentsFilesGetResultSchema"],
  ["agents.workspace.get", { agentId: "main", path: "USER.md" }, "AgentsWorkspaceGetResultSchema"],
  ["agents.list", {}, "AgentsListResultSchema"],
  ["agent.identity.get", { agentId: "main" }, "AgentIdentityResultSchema"],
  ["channels.status", {}, "ChannelsStatusResultSchema"],
  ["logs.tail", { limit: 50 }, "LogsTailResultSchema"],
  ["update.status", {}, "UpdateStatusResultSchema"],
  ["tasks.list", {}, "TasksListResultSchema"],
  ["progressCard.get", { sessionKey: "agent:main:main" }, "ProgressCardGetResultSchema"],
  ["question.list", {}, "QuestionListResultSchema"],
  ["plugins.list", {}, "PluginsListResultSchema"],
  ["sessions.observer.visibility", { visible: true }, "SessionsObserverVisibilityResultSchema"],
  ["config.schema", {}, "ConfigSchemaResponseSchema"],
  ["config.schema.lookup", { path: "gateway" }, "ConfigSchemaLookupResultSchema"],
  ["config.schema.lookup", { path: "." }, "ConfigSchemaLookupResultSchema"],
  ["channels.pairing.list", {}, "ChannelsPairingListResultSchema"],
  ["webSearch.status", { agentId: "main" }, "WebSearchStatusResultSchema"],
  ["talk.catalog", {}, "TalkCatalogResultSchema"],
  ["environments.list", {}, "EnvironmentsListResultSchema"],
  ["transcripts.list", { limit: 50 }, "TranscriptsListResultSchema"],
  ["plugins.catalog.browse", { intent: "all", pageSize: 100 }, "PluginsCatalogBrowseResultSchema"],
  ["skills.search", { limit: 20 }, "SkillsSearchResultSchema"],
  ["skills.proposals.list", { agentId: "main" }, "SkillsProposalsListResultSchema"],
  ["worktrees.list", {}, "WorktreesListResultSchema"],
  ["approval.history", { limit: 50 }, "ApprovalHistoryResultSchema"],
  ["commands.list", { includeArgs: true, scope: "text" }, "CommandsListResultSchema"],
  ["commands.list", {}, "CommandsListResultSchema"],
  ["sessions.create", { label: "Conformance" }, "SessionsCreateResultSchema"],
  ["models.authSetApiKey", { provider: "conformance", apiKey: "ConformanceKey0123456789" }, "ModelsAuthSetApiKeyResultSchema"],
];
// After a chat turn (the session then has a transcript).
const RESULTS_AFTER_TURN = [
  ["sessions.branches.list", { sessionKey: "agent:main:main" }, "SessionsBranchesListResultSchema"],
];

/** A WebSocket with request/answer matching and every frame kept in order. */
class Conn {
  constructor(url) {
    this.url = url;
    this.frames = [];
    this.waiters = [];
    this.nextId = 1;
  }
  open() {
    return new Promise((resolve, reject) => {
      this.ws = new WebSocket(this.url);
      this.ws.onerror = (e) => reject(new Error(`websocket error: ${e.message ?? e.type}`));
      this.ws.onclose = (e) => {
        this.closed = { code: e.code, reason: e.reason };
        this.notify();
      };
      this.ws.onmessage = (m) => {
        this.frames.push(JSON.parse(String(m.data)));
        this.notify();
      };
      this.ws.onopen = () => resolve();
    });
  }
  notify() {
    for (const w of [...this.waiters]) w();
  }
  /** Resolves with the first frame (from index `from`) matching `pred`. */
  waitFrame(pred, what, from = 0) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== look);
        reject(new Error(`timed out waiting for ${what}`));
      }, WAIT);
      const look = () => {
        const f = this.frames.slice(from).find(pred);
        if (!f && !this.closed) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== look);
        f ? resolve(f) : reject(new Error(`socket closed (${this.closed.code}) while waiting for ${what}`));
      };
      this.waiters.push(look);
      look();
    });
  }
  request(method, params) {
    const id = `r${this.nextId++}`;
    this.ws.send(JSON.stringify({ type: "req", id, method, params }));
    return this.waitFrame((f) => f.type === "res" && f.id === id, `the answer to ${method}`);
  }
}

async function connectOperator(port, scopes) {
  const c = new Conn(`ws://127.0.0.1:${port}`);
  await c.open();
  const challenge = await c.waitFrame((f) => f.type === "event" && f.event === "connect.challenge", "connect.challenge");
  const hello = await c.request("connect", {
    minProtocol: 4, maxProtocol: 4, role: "operator", scopes, caps: ["tool-events"], auth: { token: TOKEN },
    client: { id: "gateway-client", version: "conformance", platform: "linux", mode: "backend" },
  });
  return { c, challenge, hello };
}

async function main() {
  const oc = setupOpenclaw(checks);
  if (!oc) return SKIP;
  const rerun = rerunUnderNode24(oc.node24);
  if (rerun !== null) return rerun;
  const { schemas, check } = await loadProtocolSchemas(oc.pkg);
  checks.log(`${schemas.size} OpenClaw schemas loaded from ${oc.dist}`);
  const run = new Run("pincer-conformance-", args.includes("--keep"));
  const mockPort = await run.startMock();
  const gw = await run.startGateway(pincer, { gateway: { auth: { mode: "token", token: TOKEN } } }, mockPort);
  const port = Number(gw.match[1]);

  const { c, challenge, hello } = await connectOperator(port, ["operator.admin", "operator.read", "operator.write",
    "operator.approvals", "operator.pairing"]);
  const valid = (name, value) => {
    const errors = check(name, value);
    assert(!errors, `${name}: ${errors}\n  value: ${JSON.stringify(value).slice(0, 600)}`);
  };

  await checks.step("connect.challenge carries a nonce and a timestamp", async () => {
    valid("EventFrameSchema", challenge);
    assert(typeof challenge.payload?.nonce === "string" && challenge.payload.nonce.length > 0, JSON.stringify(challenge));
    assert(Number.isInteger(challenge.payload?.ts), JSON.stringify(challenge));
  });
  await checks.step("hello-ok satisfies OpenClaw's HelloOkSchema", async () => {
    assert(hello.ok, `connect failed: ${JSON.stringify(hello.error)}`);
    valid("ResponseFrameSchema", hello);
    valid("HelloOkSchema", hello.payload);
    assert(hello.payload.protocol === 4, `protocol ${hello.payload.protocol}`);
    return `${hello.payload.features.methods.length} methods, ${hello.payload.features.events.length} events`;
  });

  const checkResults = async (list) => {
    for (const [method, params, schema] of list) {
      await checks.step(`${method} ${JSON.stringify(params)} answers in OpenClaw's ${schema}`, async () => {
      assert(schemas.has(schema), `the installed OpenClaw has no ${schema}`);
      const res = await c.request(method, params);
      valid("ResponseFrameSchema", res);
      assert(res.ok, `${method} failed: ${JSON.stringify(res.error)}`);
      valid(schema, res.payload);
      });
    }
  };
  await checkResults(RESULTS);
  await checks.step("system-presence answers OpenClaw's presence entries", async () => {
    const res = await c.request("system-presence", {});
    assert(res.ok && Array.isArray(res.payload) && res.payload.length >= 1, JSON.stringify(res).slice(0, 400));
    for (const entry of res.payload) valid("PresenceEntrySchema", entry);
  });
  await checks.step("cron.runs {scope: \"all\"} answers run-log entries", async () => {
    const res = await c.request("cron.runs", { scope: "all", limit: 50, offset: 0, status: "all", sortDir: "desc" });
    assert(res.ok && Array.isArray(res.payload.entries), JSON.stringify(res).slice(0, 400));
    for (const entry of res.payload.entries) valid("CronRunLogEntrySchema", entry);
  });

  await checks.step("hello-ok of a signed device (silent pairing, device token) satisfies HelloOkSchema", async () => {
    // As the Control UI connects: an Ed25519 device identity signing the v3 payload.
    const { publicKey, privateKey } = crypto.generateKeyPairSync("ed25519");
    const raw = publicKey.export({ type: "spki", format: "der" }).subarray(12);
    const id = crypto.createHash("sha256").update(raw).digest("hex");
    const d = new Conn(`ws://127.0.0.1:${port}`);
    await d.open();
    const ch = await d.waitFrame((f) => f.event === "connect.challenge", "connect.challenge");
    const scopes = ["operator.admin", "operator.read", "operator.write"];
    const signedAt = Date.now();
    const payload = ["v3", id, "openclaw-control-ui", "webchat", "operator", scopes.join(","), signedAt, TOKEN, ch.payload.nonce, "linux x86_64", ""].join("|");
    const signature = crypto.sign(null, Buffer.from(payload), privateKey).toString("base64url");
    const res = await d.request("connect", {
      minProtocol: 4, maxProtocol: 4, role: "operator", scopes, auth: { token: TOKEN },
      client: { id: "openclaw-control-ui", version: "conformance", platform: "Linux x86_64", mode: "webchat" },
      device: { id, publicKey: raw.toString("base64url"), signature, signedAt, nonce: ch.payload.nonce },
    });
    assert(res.ok, `connect failed: ${JSON.stringify(res.error)}`);
    valid("HelloOkSchema", res.payload);
    assert(typeof res.payload.auth.deviceToken === "string", `no device token: ${JSON.stringify(res.payload.auth)}`);
    d.ws.close();
  });
  await checks.step("a missing scope is FORBIDDEN with MISSING_SCOPE details", async () => {
    const reader = await connectOperator(port, ["operator.read"]);
    const res = await reader.c.request("chat.send", { sessionKey: "main", message: "x", idempotencyKey: "denied" });
    valid("ResponseFrameSchema", res);
    assert(!res.ok && res.error.code === "FORBIDDEN", JSON.stringify(res));
    valid("MissingScopeErrorDetailsSchema", res.error.details);
    assert(res.error.details.missingScope === "operator.write", JSON.stringify(res.error));
    reader.c.ws.close();
  });
  await checks.step("approval.get / approval.resolve answer OpenClaw's ApprovalGetResult and ApprovalResolveResult", async () => {
    // A request that waits: exec.approval.request, two-phase (its id at once, the decision later).
    const accepted = await c.request("exec.approval.request", { command: "make conformance", timeoutMs: 60000, twoPhase: true });
    assert(accepted.ok && accepted.payload.status === "accepted", JSON.stringify(accepted));
    const id = accepted.payload.id;
    const pending = await c.request("approval.get", { id });
    assert(pending.ok && pending.payload.approval.status === "pending", JSON.stringify(pending));
    valid("ApprovalGetResultSchema", pending.payload);
    const resolved = await c.request("approval.resolve", { id, kind: "exec", decision: "deny" });
    assert(resolved.ok && resolved.payload.applied === true, JSON.stringify(resolved));
    valid("ApprovalResolveResultSchema", resolved.payload);
    const again = await c.request("approval.resolve", { id, kind: "exec", decision: "allow-once" });
    assert(again.ok && again.payload.applied === false && again.payload.approval.status === "denied", JSON.stringify(again));
    valid("ApprovalResolveResultSchema", again.payload);
    const ended = await c.request("approval.get", { id });
    valid("ApprovalGetResultSchema", ended.payload);
    const unknown = await c.request("approval.get", { id: "no-such-approval" });
    assert(!unknown.ok && unknown.error.code === "INVALID_REQUEST" && unknown.error.details?.reason === "APPROVAL_NOT_FOUND",
      JSON.stringify(unknown));
  });
  await checks.step("an unknown cron job answers CRON_JOB_NOT_FOUND details", async () => {
    const res = await c.request("cron.get", { id: "no-such-job" });
    assert(!res.ok, JSON.stringify(res));
    valid("CronJobNotFoundErrorDetailsSchema", res.error.details);
  });
  await checks.step("an unknown method answers INVALID_REQUEST \"unknown method: …\"", async () => {
    const res = await c.request("no.such.method", {});
    assert(!res.ok && res.error.code === "INVALID_REQUEST" && res.error.message === "unknown method: no.such.method", JSON.stringify(res));
  });

  // A chat turn: its chat and agent events.
  await checks.step("a turn's chat and agent events satisfy ChatEventSchema and AgentEventSchema", async () => {
    const from = c.frames.length;
    const ack = await c.request("chat.send", { sessionKey: "main", message: "hello ECHO:conf", idempotencyKey: "conf-1" });
    assert(ack.ok, JSON.stringify(ack));
    const final = await c.waitFrame((f) => f.event === "chat" && f.payload?.state === "final", "the final chat event", from);
    assert(JSON.stringify(final).includes("[conf]"), JSON.stringify(final).slice(0, 400));
    let chat = 0, agent = 0;
    for (const f of c.frames.slice(from)) {
      if (f.event === "chat") { valid("ChatEventSchema", f.payload); chat++; }
      if (f.event === "agent") {
        // OpenClaw's own server adds the run's sessionKey and agentId (and its session snapshot)
        // to the AgentEvent it broadcasts (server-chat: agentPayload); the schema is the core.
        const { sessionKey, agentId, sessionId, ...core } = f.payload;
        assert(typeof sessionKey === "string" && sessionKey.length > 0, `agent event without sessionKey: ${JSON.stringify(f.payload)}`);
        valid("AgentEventSchema", core);
        agent++;
      }
    }
    return `${chat} chat, ${agent} agent events`;
  });

  await checkResults(RESULTS_AFTER_TURN);

  // Shutdown: the event, then the close.
  await checks.step("shutdown event satisfies ShutdownEventSchema", async () => {
    const from = c.frames.length;
    gw.child.kill("SIGTERM");
    const f = await c.waitFrame((x) => x.event === "shutdown", "the shutdown event", from);
    valid("ShutdownEventSchema", f.payload);
  });

  await checks.step("every frame is a valid response or event frame; events carry per-client seq without gaps", async () => {
    let last = null;
    const events = new Map();
    for (const f of c.frames) {
      valid(f.type === "res" ? "ResponseFrameSchema" : "EventFrameSchema", f);
      if (f.type !== "event") continue;
      events.set(f.event, (events.get(f.event) ?? 0) + 1);
      if (f.event === "tick") valid("TickEventSchema", f.payload);
      if (f.event === "health") valid("HealthSnapshotSchema", f.payload);
      if (f.event === "presence") for (const p of f.payload.presence) valid("PresenceEntrySchema", p);
      if (f.stateVersion !== undefined) valid("StateVersionSchema", f.stateVersion);
      if (f.seq === undefined) continue;
      assert(last === null || f.seq === last + 1, `seq ${f.seq} after ${last} (${f.event})`);
      last = f.seq;
    }
    return [...events].map(([e, n]) => `${e}×${n}`).join(", ");
  });

  checks.summary();
  if (checks.failed()) checks.log(`gateway stderr:\n${gw.err().slice(-3000)}`);
  return checks.failed() ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  checks.log(`ERROR ${e.stack ?? e}`);
  process.exit(1);
});
