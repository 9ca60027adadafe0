#!/usr/bin/env node
// Self-test of the mock LLM server: starts it (twice: plain, and with --api-key/--script/--log)
// on port 0 and checks every API and keyword with fetch and small wire-format decoders.
// Exits 0 when everything passes, 1 otherwise. Node >= 20, no dependencies.
//
//   node tests/mock_llm/selftest.mjs [--verbose]
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MOCK = path.join(HERE, "mock-llm.mjs");
const VERBOSE = process.argv.includes("--verbose");
const DEFAULT_REPLY = "Hello from the mock LLM.";
const children = [];

// ------------------------------------------------------------------------------------------
// Process management

function startMock(args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MOCK, "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`mock did not start: ${err}`)), 10_000);
    child.stderr.on("data", (d) => {
      err += d;
      if (VERBOSE) process.stderr.write(d);
    });
    child.stdout.on("data", (d) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl >= 0 && timer) {
        clearTimeout(timer);
        const first = out.slice(0, nl);
        const m = /^mock-llm listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(first);
        if (!m) return reject(new Error(`unexpected first stdout line: ${JSON.stringify(first)}`));
        resolve({ base: m[1], port: Number(m[2]), child });
      }
    });
    child.on("exit", (code) => reject(new Error(`mock exited early (${code}): ${err}`)));
  });
}

function stopAll() {
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
}

// ------------------------------------------------------------------------------------------
// Wire decoders (what a gateway client has to do)

function parseSse(text) {
  const events = [];
  for (const block of text.split(/\n\n/)) {
    if (!block.trim()) continue;
    let event = null;
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    const raw = data.join("\n");
    let json = null;
    try {
      json = JSON.parse(raw);
    } catch {}
    events.push({ event, raw, json });
  }
  return events;
}

function decodeChat(text) {
  const r = { text: "", reasoning: "", toolCalls: [], finish: null, usage: null, terminal: false, error: null, order: [], deltas: 0 };
  for (const e of parseSse(text)) {
    if (e.raw === "[DONE]") {
      r.terminal = true;
      continue;
    }
    const j = e.json;
    assert.ok(j, `chat: unparsable data line ${e.raw}`);
    if (j.error) {
      r.error = j.error;
      continue;
    }
    assert.equal(j.object, "chat.completion.chunk");
    if (j.usage) r.usage = j.usage;
    const ch = j.choices?.[0];
    if (!ch) continue;
    const d = ch.delta ?? {};
    if (d.content) (r.text += d.content), r.order.push("text"), r.deltas++;
    if (d.reasoning_content) (r.reasoning += d.reasoning_content), r.order.push("reasoning"), r.deltas++;
    for (const tc of d.tool_calls ?? []) {
      const t = (r.toolCalls[tc.index] ??= { id: "", name: "", arguments: "" });
      if (tc.id) t.id = tc.id;
      if (tc.function?.name) t.name = tc.function.name;
      if (tc.function?.arguments) t.arguments += tc.function.arguments;
      r.order.push("tool");
    }
    if (ch.finish_reason) r.finish = ch.finish_reason;
  }
  return r;
}

function decodeResponses(text) {
  const r = { text: "", reasoning: "", toolCalls: [], finish: null, usage: null, terminal: false, error: null, order: [], deltas: 0 };
  const calls = {};
  let seq = -1;
  for (const e of parseSse(text)) {
    const j = e.json;
    assert.ok(j, `responses: unparsable data ${e.raw}`);
    assert.equal(j.type, e.event, "event name must equal data.type");
    assert.equal(j.sequence_number, seq + 1, "sequence numbers must increase by 1");
    seq = j.sequence_number;
    switch (j.type) {
      case "response.output_text.delta":
        r.text += j.delta;
        r.order.push("text");
        r.deltas++;
        break;
      case "response.reasoning_summary_text.delta":
        r.reasoning += j.delta;
        r.order.push("reasoning");
        r.deltas++;
        break;
      case "response.output_item.added":
        if (j.item.type === "function_call") calls[j.item.id] = r.toolCalls[r.toolCalls.push({ id: j.item.call_id, name: j.item.name, arguments: "" }) - 1];
        break;
      case "response.function_call_arguments.delta":
        calls[j.item_id].arguments += j.delta;
        r.order.push("tool");
        break;
      case "response.function_call_arguments.done":
        assert.equal(j.arguments, calls[j.item_id].arguments, "arguments.done must equal the deltas");
        break;
      case "response.completed":
      case "response.incomplete":
        r.terminal = true;
        r.finish = j.response.status;
        r.usage = j.response.usage;
        r.output = j.response.output;
        break;
      case "response.failed":
        r.terminal = true;
        r.finish = "failed";
        r.error = j.response.error;
        break;
    }
  }
  return r;
}

function decodeAnthropic(text) {
  const r = { text: "", reasoning: "", signature: "", toolCalls: [], finish: null, usage: {}, terminal: false, error: null, order: [], deltas: 0 };
  const blocks = [];
  for (const e of parseSse(text)) {
    const j = e.json;
    assert.ok(j, `anthropic: unparsable data ${e.raw}`);
    assert.equal(j.type, e.event, "event name must equal data.type");
    switch (j.type) {
      case "message_start":
        Object.assign(r.usage, j.message.usage);
        break;
      case "content_block_start":
        blocks[j.index] = { ...j.content_block, partial: "" };
        break;
      case "content_block_delta": {
        const b = blocks[j.index];
        const d = j.delta;
        if (d.type === "text_delta") (r.text += d.text), r.order.push("text"), r.deltas++;
        else if (d.type === "thinking_delta") (r.reasoning += d.thinking), r.order.push("reasoning"), r.deltas++;
        else if (d.type === "signature_delta") r.signature += d.signature;
        else if (d.type === "input_json_delta") b.partial += d.partial_json;
        break;
      }
      case "content_block_stop": {
        const b = blocks[j.index];
        if (b.type === "tool_use") r.toolCalls.push({ id: b.id, name: b.name, arguments: b.partial || "{}" }), r.order.push("tool");
        break;
      }
      case "message_delta":
        r.finish = j.delta.stop_reason;
        Object.assign(r.usage, j.usage);
        break;
      case "message_stop":
        r.terminal = true;
        break;
      case "error":
        r.error = j.error;
        break;
    }
  }
  return r;
}

function decodeOllama(text) {
  const r = { text: "", reasoning: "", toolCalls: [], finish: null, usage: null, terminal: false, error: null, order: [], deltas: 0 };
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const j = JSON.parse(line);
    if (j.error) {
      r.error = j.error;
      continue;
    }
    const m = j.message ?? {};
    if (m.thinking) (r.reasoning += m.thinking), r.order.push("reasoning"), r.deltas++;
    if (m.content) (r.text += m.content), r.order.push("text"), r.deltas++;
    for (const tc of m.tool_calls ?? []) {
      assert.equal(typeof tc.function.arguments, "object", "ollama tool arguments are objects");
      r.toolCalls.push({ id: "", name: tc.function.name, arguments: JSON.stringify(tc.function.arguments) });
      r.order.push("tool");
    }
    if (j.done) {
      r.terminal = true;
      r.finish = j.done_reason;
      r.usage = { input: j.prompt_eval_count, output: j.eval_count };
    }
  }
  return r;
}

// Gemini: SSE chunks of GenerateContentResponse; no terminal event — the chunk with finishReason
// ends the response. Gemini gives calls no ids: the client makes them up ("gemini_N").
function decodeGemini(text) {
  const r = { text: "", reasoning: "", toolCalls: [], finish: null, usage: null, terminal: false, error: null, order: [], deltas: 0, signature: null };
  for (const e of parseSse(text.replace(/\r\n/g, "\n"))) {
    const j = e.json;
    if (!j) continue;
    if (j.error) {
      r.error = j.error;
      continue;
    }
    const cand = j.candidates?.[0];
    for (const p of cand?.content?.parts ?? []) {
      if (p.thoughtSignature) r.signature = p.thoughtSignature;
      if (p.functionCall) {
        r.toolCalls.push({ id: `gemini_${r.toolCalls.length}`, name: p.functionCall.name, arguments: JSON.stringify(p.functionCall.args ?? {}) });
        r.order.push("tool");
        r.deltas++;
      } else if (p.thought && p.text) (r.reasoning += p.text), r.order.push("reasoning"), r.deltas++;
      else if (p.text) (r.text += p.text), r.order.push("text"), r.deltas++;
    }
    if (j.usageMetadata) r.usage = j.usageMetadata;
    if (cand?.finishReason) {
      r.finish = cand.finishReason;
      r.terminal = true;
    }
  }
  return r;
}

// ------------------------------------------------------------------------------------------
// Per-API request builders and expectations

const TOOLS = [
  { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } } } },
  { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } },
];

const APIS = {
  chat: {
    path: "/v1/chat/completions",
    decode: decodeChat,
    headers: () => ({}),
    body: (text, { stream = true, history = [], tools = true } = {}) => ({
      model: "mock-model",
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      messages: [{ role: "system", content: "You are a test." }, { role: "user", content: text }, ...history],
      ...(tools ? { tools: TOOLS.map((t) => ({ type: "function", function: t })) } : {}),
    }),
    history: (calls, result) => [
      { role: "assistant", content: null, tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) },
      ...calls.map((c) => ({ role: "tool", tool_call_id: c.id, content: result })),
    ],
    finish: { stop: "stop", tool: "tool_calls" },
    usage: (r) => [r.usage?.prompt_tokens, r.usage?.completion_tokens],
    errorCheck: (status, j) => {
      assert.equal(typeof j.error?.message, "string");
      assert.ok("type" in j.error && "code" in j.error && "param" in j.error);
      if (status === 400) assert.equal(j.error.code, "context_length_exceeded");
      if (status === 429) assert.equal(j.error.code, "rate_limit_exceeded");
      if (status === 401) assert.equal(j.error.code, "invalid_api_key");
    },
    json: (j) => ({
      text: j.choices[0].message.content ?? "",
      toolCalls: (j.choices[0].message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
      finish: j.choices[0].finish_reason,
    }),
  },
  responses: {
    path: "/v1/responses",
    decode: decodeResponses,
    headers: () => ({}),
    body: (text, { stream = true, history = [], tools = true } = {}) => ({
      model: "mock-model",
      stream,
      store: false,
      instructions: "You are a test.",
      input: [{ role: "user", content: [{ type: "input_text", text }] }, ...history],
      ...(tools ? { tools: TOOLS.map((t) => ({ type: "function", ...t })) } : {}),
    }),
    history: (calls, result) => [
      ...calls.map((c) => ({ type: "function_call", call_id: c.id, name: c.name, arguments: c.arguments })),
      ...calls.map((c) => ({ type: "function_call_output", call_id: c.id, output: result })),
    ],
    finish: { stop: "completed", tool: "completed" },
    usage: (r) => [r.usage?.input_tokens, r.usage?.output_tokens],
    errorCheck: (status, j) => {
      assert.equal(typeof j.error?.message, "string");
      if (status === 400) assert.equal(j.error.code, "context_length_exceeded");
      if (status === 429) assert.equal(j.error.code, "rate_limit_exceeded");
    },
    json: (j) => ({
      text: j.output.filter((i) => i.type === "message").map((i) => i.content[0].text).join(""),
      toolCalls: j.output.filter((i) => i.type === "function_call").map((i) => ({ id: i.call_id, name: i.name, arguments: i.arguments })),
      finish: j.status,
    }),
  },
  anthropic: {
    path: "/v1/messages",
    decode: decodeAnthropic,
    headers: () => ({ "anthropic-version": "2023-06-01" }),
    body: (text, { stream = true, history = [], tools = true } = {}) => ({
      model: "mock-model",
      max_tokens: 1024,
      stream,
      system: "You are a test.",
      messages: [{ role: "user", content: text }, ...history],
      ...(tools ? { tools: TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })) } : {}),
    }),
    history: (calls, result) => [
      { role: "assistant", content: calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: JSON.parse(c.arguments) })) },
      { role: "user", content: calls.map((c) => ({ type: "tool_result", tool_use_id: c.id, content: [{ type: "text", text: result }] })) },
    ],
    finish: { stop: "end_turn", tool: "tool_use" },
    usage: (r) => [r.usage?.input_tokens, r.usage?.output_tokens],
    errorCheck: (status, j) => {
      assert.equal(j.type, "error");
      const want = { 400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error", 500: "api_error", 503: "overloaded_error", 529: "overloaded_error" }[status];
      assert.equal(j.error?.type, want);
      if (status === 400) assert.match(j.error.message, /prompt is too long/);
    },
    json: (j) => ({
      text: j.content.filter((b) => b.type === "text").map((b) => b.text).join(""),
      toolCalls: j.content.filter((b) => b.type === "tool_use").map((b) => ({ id: b.id, name: b.name, arguments: JSON.stringify(b.input) })),
      finish: j.stop_reason,
    }),
  },
  ollama: {
    path: "/api/chat",
    decode: decodeOllama,
    headers: () => ({}),
    body: (text, { stream = true, history = [], tools = true } = {}) => ({
      model: "mock-model",
      ...(stream ? {} : { stream: false }), // Ollama streams by default
      messages: [{ role: "system", content: "You are a test." }, { role: "user", content: text }, ...history],
      ...(tools ? { tools: TOOLS.map((t) => ({ type: "function", function: t })) } : {}),
    }),
    history: (calls, result) => [
      { role: "assistant", content: "", tool_calls: calls.map((c) => ({ function: { name: c.name, arguments: JSON.parse(c.arguments) } })) },
      ...calls.map((c) => ({ role: "tool", tool_name: c.name, content: result })),
    ],
    finish: { stop: "stop", tool: "stop" },
    usage: (r) => [r.usage?.input, r.usage?.output],
    errorCheck: (status, j) => assert.equal(typeof j.error, "string"),
    json: (j) => ({
      text: j.message.content,
      toolCalls: (j.message.tool_calls ?? []).map((c) => ({ id: "", name: c.function.name, arguments: JSON.stringify(c.function.arguments) })),
      finish: j.done_reason,
    }),
  },
};

APIS.gemini = {
  path: ({ stream = true } = {}) => (stream ? "/v1beta/models/mock-model:streamGenerateContent?alt=sse" : "/v1beta/models/mock-model:generateContent"),
  decode: decodeGemini,
  headers: () => ({}),
  body: (text, { history = [], tools = true } = {}) => ({
    systemInstruction: { parts: [{ text: "You are a test." }] },
    contents: [{ role: "user", parts: [{ text }] }, ...history],
    generationConfig: { maxOutputTokens: 1024 },
    ...(tools ? { tools: [{ functionDeclarations: TOOLS }] } : {}),
  }),
  history: (calls, result) => [
    { role: "model", parts: calls.map((c) => ({ functionCall: { name: c.name, args: JSON.parse(c.arguments) } })) },
    { role: "user", parts: calls.map((c) => ({ functionResponse: { name: c.name, response: { output: result } } })) },
  ],
  finish: { stop: "STOP", tool: "STOP" },
  usage: (r) => [r.usage?.promptTokenCount, r.usage?.candidatesTokenCount],
  errorCheck: (status, j) => {
    const want = { 400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 529: "UNAVAILABLE" }[status];
    assert.equal(j.error?.status, want);
    assert.equal(typeof j.error.code, "number");
    assert.equal(typeof j.error.message, "string");
    if (status === 400) assert.match(j.error.message, /exceeds the maximum number of tokens/);
  },
  json: (j) => {
    const parts = j.candidates[0].content.parts;
    return {
      text: parts.filter((p) => p.text && !p.thought).map((p) => p.text).join(""),
      toolCalls: parts.filter((p) => p.functionCall).map((p, i) => ({ id: `gemini_${i}`, name: p.functionCall.name, arguments: JSON.stringify(p.functionCall.args) })),
      finish: j.candidates[0].finishReason,
    };
  },
};

let BASE = "";

async function call(api, text, opts = {}) {
  const a = APIS[api];
  const t0 = Date.now();
  const res = await fetch((opts.base ?? BASE) + (typeof a.path === "function" ? a.path(opts) : a.path), {
    method: "POST",
    headers: { "content-type": "application/json", ...a.headers(), ...(opts.headers ?? {}) },
    body: JSON.stringify(a.body(text, opts)),
    signal: opts.signal,
  });
  const out = { status: res.status, headers: res.headers };
  let raw = "";
  try {
    raw = await res.text();
  } catch (e) {
    out.readError = e;
  }
  out.raw = raw;
  out.ms = Date.now() - t0;
  if (res.status !== 200) out.json = JSON.parse(raw);
  else if (opts.stream === false && !out.readError) out.json = JSON.parse(raw);
  else out.r = a.decode(raw);
  return out;
}

async function requests(base = BASE) {
  return (await fetch(`${base}/__mock/requests`)).json();
}

// ------------------------------------------------------------------------------------------
// Test runner

const results = [];
async function test(name, fn) {
  try {
    await fn();
    results.push([name, null]);
    if (VERBOSE) console.log(`ok   ${name}`);
  } catch (e) {
    results.push([name, e]);
    console.log(`FAIL ${name}\n     ${String(e?.stack ?? e).split("\n").slice(0, 4).join("\n     ")}`);
  }
}

function expectText(o, api, want) {
  assert.equal(o.status, 200, `status ${o.status}: ${o.raw?.slice(0, 300)}`);
  assert.ok(!o.readError, `read error ${o.readError}`);
  assert.ok(o.r.terminal, "terminal event missing");
  assert.equal(o.r.text, want);
  assert.equal(o.r.finish, APIS[api].finish.stop);
  const [inTok, outTok] = APIS[api].usage(o.r);
  assert.ok(inTok > 0 && outTok > 0, `usage missing: ${inTok}/${outTok}`);
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mock-llm-selftest-"));
  const A = await startMock();
  BASE = A.base;

  // ---------------- every API x every keyword
  for (const api of Object.keys(APIS)) {
    await test(`${api}: default reply streamed in several deltas, usage`, async () => {
      const o = await call(api, "hi there");
      expectText(o, api, DEFAULT_REPLY);
      assert.ok(o.r.deltas >= 3, `only ${o.r.deltas} deltas`);
      if (api === "chat") assert.ok(o.r.usage.prompt_tokens > 10);
      if (api !== "ollama") assert.match(o.headers.get("content-type"), /^text\/event-stream/);
      else assert.equal(o.headers.get("content-type"), "application/x-ndjson");
    });
    await test(`${api}: ECHO:x`, async () => expectText(await call(api, "please ECHO:abc-123 now"), api, `${DEFAULT_REPLY} [abc-123]`));
    await test(`${api}: MOCK_TOOL round trip`, async () => {
      const prompt = 'MOCK_TOOL:get_weather:{"city":"Paris","units":{"c":true}}';
      const o = await call(api, prompt);
      assert.equal(o.status, 200);
      assert.ok(o.r.terminal);
      assert.equal(o.r.finish, APIS[api].finish.tool);
      assert.equal(o.r.toolCalls.length, 1);
      const tc = o.r.toolCalls[0];
      assert.equal(tc.name, "get_weather");
      assert.deepEqual(JSON.parse(tc.arguments), { city: "Paris", units: { c: true } });
      if (api !== "ollama") assert.ok(tc.id, "tool call id");
      else tc.id = "ollama_0";
      const result = "sunny, 21C " + "x".repeat(300);
      const o2 = await call(api, prompt, { history: APIS[api].history([tc], result) });
      expectText(o2, api, `Tool said: ${result.slice(0, 200)}`);
    });
    await test(`${api}: MOCK_TOOL without offered tools answers with text`, async () => {
      const o = await call(api, "MOCK_TOOL:get_weather", { tools: false });
      assert.equal(o.r.toolCalls.length, 0);
      assert.match(o.r.text, /offered no tools/);
    });
    await test(`${api}: MOCK_TOOLS2 parallel calls`, async () => {
      const o = await call(api, "MOCK_TOOLS2");
      assert.equal(o.r.toolCalls.length, 2);
      assert.deepEqual(o.r.toolCalls.map((c) => c.name), ["get_weather", "read"]);
      if (api !== "ollama") assert.notEqual(o.r.toolCalls[0].id, o.r.toolCalls[1].id);
      const calls = o.r.toolCalls.map((c, i) => ({ ...c, id: c.id || `ollama_${i}` }));
      const o2 = await call(api, "MOCK_TOOLS2", { history: APIS[api].history(calls, "done") });
      expectText(o2, api, "Tool said: done\nTool said: done");
      const o3 = await call(api, 'MOCK_TOOLS2:read:{"path":"/a"},get_weather:{"city":"Rome"}');
      assert.deepEqual(o3.r.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)]), [["read", { path: "/a" }], ["get_weather", { city: "Rome" }]]);
    });
    await test(`${api}: MOCK_REASON reasoning before text`, async () => {
      const o = await call(api, "MOCK_REASON ECHO:r");
      expectText(o, api, `${DEFAULT_REPLY} [r]`);
      assert.ok(o.r.reasoning.length > 10, "reasoning text");
      assert.ok(o.r.order.lastIndexOf("reasoning") < o.r.order.indexOf("text"), "reasoning first");
      if (api === "anthropic" || api === "gemini") assert.ok(o.r.signature, "signature of the thinking");
    });
    for (const [kw, status] of [["MOCK_429", 429], ["MOCK_500", 500], ["MOCK_529", 529], ["MOCK_OVERFLOW", 400]]) {
      await test(`${api}: ${kw} -> ${status}`, async () => {
        const o = await call(api, `trigger ${kw} please`);
        assert.equal(o.status, status);
        if (status === 429) assert.equal(o.headers.get("retry-after"), "1");
        APIS[api].errorCheck(status, o.json);
      });
    }
    await test(`${api}: MOCK_ERR:503`, async () => {
      const o = await call(api, "MOCK_ERR:503");
      assert.equal(o.status, 503);
      APIS[api].errorCheck(503, o.json);
    });
    await test(`${api}: MOCK_429_ONCE fails once then succeeds`, async () => {
      const text = `MOCK_429_ONCE ${api}`;
      assert.equal((await call(api, text)).status, 429);
      expectText(await call(api, text), api, DEFAULT_REPLY);
    });
    await test(`${api}: MOCK_CUT ends the stream without a terminal event`, async () => {
      const o = await call(api, "MOCK_CUT");
      assert.equal(o.status, 200);
      const r = o.readError ? APIS[api].decode(o.raw) : o.r;
      assert.ok(!r.terminal, "terminal event must be missing");
      assert.ok(o.readError, "client should see a premature close");
      const last = (await requests()).at(-1);
      assert.equal(last.outcome, "cut");
      assert.equal(last.deltas, 2);
    });
    await test(`${api}: MOCK_STREAM_ERROR emits the provider's in-stream error`, async () => {
      const o = await call(api, "MOCK_STREAM_ERROR");
      assert.equal(o.status, 200);
      assert.ok(o.r.error, "in-stream error");
      if (api === "anthropic") assert.equal(o.r.error.type, "overloaded_error");
      if (api === "responses") assert.equal(o.r.finish, "failed");
      if (api !== "responses") assert.ok(!o.r.terminal);
    });
    await test(`${api}: MOCK_SLOW:ms paces deltas`, async () => {
      const o = await call(api, "MOCK_SLOW:60");
      expectText(o, api, DEFAULT_REPLY);
      assert.ok(o.ms >= 5 * 60 - 20, `took only ${o.ms}ms`);
    });
    await test(`${api}: client abort is recorded`, async () => {
      const ac = new AbortController();
      const p = call(api, "MOCK_SLOW:150", { signal: ac.signal }).catch((e) => e);
      await new Promise((r) => setTimeout(r, 250));
      ac.abort();
      await p;
      let last;
      for (let i = 0; i < 40; i++) {
        last = (await requests()).at(-1);
        if (last.outcome) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(last.aborted, true, JSON.stringify(last));
    });
    await test(`${api}: MOCK_LONG:n`, async () => {
      const o = await call(api, "MOCK_LONG:5000");
      assert.equal(o.r.text.length, 5000);
      assert.ok(o.r.text.startsWith("The quick brown fox"));
      assert.ok(o.r.deltas > 20);
      // Past 4 096 characters: at most 128 deltas, the text intact.
      const big = await call(api, "MOCK_LONG:46000");
      assert.equal(big.r.text.length, 46000);
      assert.ok(big.r.deltas > 100 && big.r.deltas <= 128, `deltas: ${big.r.deltas}`);
    });
    await test(`${api}: MOCK_LENGTH finish`, async () => {
      const o = await call(api, "MOCK_LENGTH");
      const want = { chat: "length", responses: "incomplete", anthropic: "max_tokens", ollama: "length", gemini: "MAX_TOKENS" }[api];
      assert.equal(o.r.finish, want);
    });
    await test(`${api}: non-stream text and tool call`, async () => {
      const o = await call(api, "ECHO:ns", { stream: false });
      assert.equal(o.status, 200);
      assert.match(o.headers.get("content-type"), /^application\/json/);
      const j = APIS[api].json(o.json);
      assert.equal(j.text, `${DEFAULT_REPLY} [ns]`);
      assert.equal(j.finish, APIS[api].finish.stop);
      const t = APIS[api].json((await call(api, 'MOCK_TOOL:read:{"path":"x"}', { stream: false })).json);
      assert.equal(t.toolCalls[0].name, "read");
      assert.deepEqual(JSON.parse(t.toolCalls[0].arguments), { path: "x" });
      assert.equal(t.finish, APIS[api].finish.tool);
    });
  }

  // ---------------- other endpoints and checks on the plain instance
  await test("GET /v1/models (OpenAI and Anthropic shapes), /api/tags", async () => {
    const m = await (await fetch(`${BASE}/v1/models`)).json();
    assert.equal(m.object, "list");
    assert.equal(m.data[0].id, "mock-model");
    const am = await (await fetch(`${BASE}/v1/models`, { headers: { "anthropic-version": "2023-06-01" } })).json();
    assert.equal(am.data[0].type, "model");
    const tags = await (await fetch(`${BASE}/api/tags`)).json();
    assert.equal(tags.models[0].name, "mock-model:latest");
  });
  await test("anthropic: missing anthropic-version -> 400", async () => {
    const res = await fetch(`${BASE}/v1/messages`, { method: "POST", body: JSON.stringify(APIS.anthropic.body("hi")) });
    assert.equal(res.status, 400);
    const j = await res.json();
    assert.equal(j.error.type, "invalid_request_error");
    assert.match(j.error.message, /anthropic-version/);
  });
  await test("validation: orphan tool results are rejected like the real APIs", async () => {
    const chat = await call("chat", "hi", { history: [{ role: "tool", tool_call_id: "call_x", content: "r" }] });
    assert.equal(chat.status, 400);
    const ant = await call("anthropic", "hi", { history: [{ role: "assistant", content: "ok" }, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "r" }] }] });
    assert.equal(ant.status, 400);
    assert.match(ant.json.error.message, /tool_use_id/);
    const resp = await call("responses", "hi", { history: [{ type: "function_call_output", call_id: "call_x", output: "r" }] });
    assert.equal(resp.status, 400);
  });
  await test("gemini: request validation, recording, routes without /v1beta", async () => {
    const unanswered = await call("gemini", "hi", { history: [{ role: "model", parts: [{ functionCall: { name: "read", args: {} } }] }, { role: "user", parts: [{ text: "next" }] }] });
    assert.equal(unanswered.status, 400);
    assert.equal(unanswered.json.error.status, "INVALID_ARGUMENT");
    assert.match(unanswered.json.error.message, /number of function response parts/);
    const orphan = await call("gemini", "hi", { history: [{ role: "user", parts: [{ functionResponse: { name: "read", response: { output: "x" } } }] }] });
    assert.equal(orphan.status, 400);
    const strictSchema = await call("gemini", "hi", { tools: false, history: [] }).then(() =>
      fetch(`${BASE}${APIS.gemini.path()}`, { method: "POST", body: JSON.stringify({ ...APIS.gemini.body("hi", { tools: false }), tools: [{ functionDeclarations: [{ name: "x", parameters: { type: "object", additionalProperties: false } }] }] }) }));
    assert.equal(strictSchema.status, 400);
    assert.match((await strictSchema.json()).error.message, /Unknown name "additionalProperties"/);
    const jsonSchema = await fetch(`${BASE}${APIS.gemini.path()}`, { method: "POST", body: JSON.stringify({ ...APIS.gemini.body("hi", { tools: false }), tools: [{ functionDeclarations: [{ name: "x", parametersJsonSchema: { type: "object", additionalProperties: false } }] }] }) });
    assert.equal(jsonSchema.status, 200);
    await jsonSchema.text();
    const badRole = await call("gemini", "hi", { history: [{ role: "assistant", parts: [{ text: "x" }] }] });
    assert.equal(badRole.status, 400);
    const last = (await requests()).at(-1);
    assert.equal(last.api, "google-generative-ai");
    assert.match(last.validationError, /valid role/);
    const res = await fetch(`${BASE}/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, { method: "POST", body: JSON.stringify(APIS.gemini.body("ECHO:nb")) });
    assert.equal(decodeGemini(await res.text()).text, `${DEFAULT_REPLY} [nb]`);
    const rec = (await requests()).at(-1);
    assert.equal(rec.gemini.model, "gemini-2.5-flash");
    assert.equal(rec.plan.text, `${DEFAULT_REPLY} [nb]`);
  });
  await test("invalid JSON body -> provider 400", async () => {
    const res = await fetch(`${BASE}/v1/chat/completions`, { method: "POST", body: "{nope" });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error.type, "invalid_request_error");
  });
  await test("/chat/completions alias and /__mock/requests, /__mock/reset, /__mock/script", async () => {
    const res = await fetch(`${BASE}/chat/completions`, { method: "POST", body: JSON.stringify(APIS.chat.body("hi", { stream: false })) });
    assert.equal(res.status, 200);
    await res.text();
    const reqs = await requests();
    assert.ok(reqs.length > 50);
    assert.equal(reqs.at(-1).path, "/chat/completions");
    assert.equal(reqs.at(-1).body.messages[1].content, "hi");
    assert.equal((await fetch(`${BASE}/__mock/reset`, { method: "POST" })).status, 200);
    assert.equal((await requests()).length, 0);
    await fetch(`${BASE}/__mock/script`, { method: "POST", body: JSON.stringify([{ text: "from runtime script" }]) });
    expectText(await call("ollama", "hi"), "ollama", "from runtime script");
    expectText(await call("ollama", "hi"), "ollama", DEFAULT_REPLY);
    assert.equal((await requests()).length, 2);
  });

  // ---------------- second instance: --api-key, --script, --log
  const logFile = path.join(tmp, "requests.jsonl");
  const scriptFile = path.join(tmp, "script.json");
  const script = [
    { text: "scripted one" },
    { toolCalls: [{ name: "read", arguments: { path: "/etc/hosts" } }, { name: "get_weather", arguments: '{"city":"Oslo"}' }] },
    { error: { status: 429, retryAfter: 1 } },
    { reasoning: "scripted thinking", text: "thought about it" },
    { cut: true, afterDeltas: 1 },
    { delayMs: 80 },
    { error: { status: 529, inStream: true, afterDeltas: 1 } },
    "a bare string",
    { error: { status: 400, kind: "overflow" } },
  ];
  fs.writeFileSync(scriptFile, JSON.stringify(script));
  const KEY = "sk-mock-secret-123";
  const B = await startMock(["--api-key", KEY, "--script", scriptFile, "--log", logFile]);
  const auth = { chat: { authorization: `Bearer ${KEY}` }, responses: { authorization: `Bearer ${KEY}` }, anthropic: { "x-api-key": KEY }, ollama: { authorization: `Bearer ${KEY}` } };

  await test("--api-key: each API answers 401 in its own shape without the key", async () => {
    for (const api of Object.keys(APIS).filter((a) => a !== "gemini")) {
      const none = await call(api, "hi", { base: B.base });
      assert.equal(none.status, 401, api);
      APIS[api].errorCheck(401, none.json);
      const wrong = await call(api, "hi", { base: B.base, headers: api === "anthropic" ? { "x-api-key": "nope" } : { authorization: "Bearer nope" } });
      assert.equal(wrong.status, 401, api);
    }
    const models = await fetch(`${B.base}/v1/models`);
    assert.equal(models.status, 401);
  });
  await test("--script: entries consumed in order across APIs, then keyword fallback", async () => {
    expectText(await call("chat", "ECHO:ignored", { base: B.base, headers: auth.chat }), "chat", "scripted one");
    const t = await call("anthropic", "hi", { base: B.base, headers: auth.anthropic });
    assert.deepEqual(t.r.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)]), [["read", { path: "/etc/hosts" }], ["get_weather", { city: "Oslo" }]]);
    const e = await call("responses", "hi", { base: B.base, headers: auth.responses });
    assert.equal(e.status, 429);
    assert.equal(e.headers.get("retry-after"), "1");
    const r = await call("ollama", "hi", { base: B.base, headers: auth.ollama });
    expectText(r, "ollama", "thought about it");
    assert.equal(r.r.reasoning, "scripted thinking");
    const c = await call("chat", "hi", { base: B.base, headers: auth.chat });
    assert.ok(c.readError && !decodeChat(c.raw).terminal, "scripted cut");
    const d = await call("anthropic", "hi", { base: B.base, headers: auth.anthropic });
    expectText(d, "anthropic", DEFAULT_REPLY);
    assert.ok(d.ms >= 5 * 80 - 20, `delayMs: took ${d.ms}ms`);
    const se = await call("anthropic", "hi", { base: B.base, headers: auth.anthropic });
    assert.equal(se.r.error?.type, "overloaded_error");
    expectText(await call("chat", "hi", { base: B.base, headers: auth.chat }), "chat", "a bare string");
    const ov = await call("anthropic", "hi", { base: B.base, headers: auth.anthropic });
    assert.equal(ov.status, 400);
    APIS.anthropic.errorCheck(400, ov.json);
    // script exhausted: keywords again
    expectText(await call("responses", "ECHO:k", { base: B.base, headers: auth.responses }), "responses", `${DEFAULT_REPLY} [k]`);
  });
  await test("anthropic OAuth bearer with the oauth beta header is accepted", async () => {
    const o = await call("anthropic", "hi", { base: B.base, headers: { authorization: `Bearer ${KEY}`, "anthropic-beta": "oauth-2025-04-20" } });
    expectText(o, "anthropic", DEFAULT_REPLY);
  });
  await test("--log: one JSON line per request, secrets redacted", async () => {
    const text = fs.readFileSync(logFile, "utf8");
    assert.ok(!text.includes(KEY), "API key must not appear in the log");
    const lines = text.trim().split("\n").map((l) => JSON.parse(l));
    const recorded = await requests(B.base);
    assert.equal(lines.length, recorded.length);
    for (const l of lines) assert.ok(l.t && l.method && l.path && l.headers && "body" in l);
    assert.ok(lines.some((l) => l.headers.authorization === "Bearer [redacted]"));
    assert.ok(lines.some((l) => l.headers["x-api-key"] === "[redacted]"));
  });

  await test("--api-key: gemini checks x-goog-api-key with Google's real 403 / 400 API_KEY_INVALID", async () => {
    const none = await call("gemini", "hi", { base: B.base });
    assert.equal(none.status, 403);
    APIS.gemini.errorCheck(403, none.json);
    const wrong = await call("gemini", "hi", { base: B.base, headers: { "x-goog-api-key": "nope" } });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json.error.status, "INVALID_ARGUMENT");
    assert.equal(wrong.json.error.details[0].reason, "API_KEY_INVALID");
    assert.match(wrong.json.error.message, /API key not valid/);
    const bearer = await call("gemini", "hi", { base: B.base, headers: { authorization: `Bearer ${KEY}` } });
    assert.equal(bearer.status, 403, "Gemini's key goes in x-goog-api-key");
    await fetch(`${B.base}/__mock/script`, { method: "POST", body: JSON.stringify([]) });
    const ok = await call("gemini", "ECHO:k", { base: B.base, headers: { "x-goog-api-key": KEY } });
    assert.equal(ok.status, 200, ok.raw?.slice(0, 200));
    const rec = (await requests(B.base)).at(-1);
    assert.equal(rec.api, "google-generative-ai");
    assert.equal(rec.headers["x-goog-api-key"], "[redacted]");
  });
  stopAll();
  fs.rmSync(tmp, { recursive: true, force: true });
  const failed = results.filter(([, e]) => e);
  console.log(`mock-llm selftest: ${results.length - failed.length}/${results.length} passed`);
  process.exit(failed.length ? 1 : 0);
}

const watchdog = setTimeout(() => {
  console.log("mock-llm selftest: timed out");
  stopAll();
  process.exit(1);
}, 120_000);
watchdog.unref();

main().catch((e) => {
  console.log(`mock-llm selftest: ${e?.stack ?? e}`);
  stopAll();
  process.exit(1);
});
