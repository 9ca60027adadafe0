#!/usr/bin/env node
// Pincer mock LLM server: speaks the real (streaming) wire formats of four provider APIs so that
// the gateway's real HTTP client and decoders are exercised. Node >= 20, built-in modules only,
// binds 127.0.0.1 only. See README.md in this directory for flags, keywords and the script format.
//
//   node tests/mock_llm/mock-llm.mjs [--port 0] [--script file.json] [--api-key KEY] [--log file.jsonl]
//                                    [--model id]... [--reply text] [--delay-ms n] [--no-validate]
//
//   POST /v1/chat/completions  (and /chat/completions)   OpenAI Chat Completions, SSE or JSON
//   POST /v1/responses         (and /responses)          OpenAI Responses, SSE or JSON
//   POST /v1/messages          (and /messages)           Anthropic Messages, SSE or JSON
//   POST /api/chat                                       Ollama, NDJSON or JSON
//   POST /v1beta/models/M:streamGenerateContent?alt=sse  Google Gemini, SSE (gemini.mjs; :generateContent JSON)
//   GET  /v1/models, /api/tags, POST /api/show, GET /api/version
//   POST /v1/embeddings, /api/embed, /v1beta/models/M:batchEmbedContents   deterministic embeddings
//   GET  /__mock/requests, POST /__mock/reset, GET|POST /__mock/script, GET /health,
//   POST /__mock/release?name=N (MOCK_HOLD:N), GET /__mock/holds,
//   POST /__mock/receiver…[?status=NNN] (records a webhook POST, Authorization kept)
//   POST /oauth/token + GET|POST /__mock/oauth (the OAuth token endpoint, mock-oauth.mjs),
//
// The first stdout line is always `mock-llm listening on http://127.0.0.1:PORT`.
import { createOAuthState, handleOAuth } from "./mock-oauth.mjs";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { pathToFileURL } from "node:url";
import { GEMINI_API, geminiApi, geminiRoute } from "./gemini.mjs";

export const DEFAULT_REPLY = "Hello from the mock LLM.";
const DEFAULT_REASONING = "The user wants a reply. I will think briefly, then answer politely.";
const LONG_FILLER = "The quick brown fox jumps over the lazy dog. ";
const HOST = "127.0.0.1";

// ----------------------------------------------------------------------------------------------
// Small helpers

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const rid = (n = 24) => crypto.randomBytes(n).toString("base64url").replace(/[-_]/g, "x").slice(0, n);
const nowSec = () => Math.floor(Date.now() / 1000);
const tokensOf = (chars) => Math.max(1, Math.ceil(chars / 4));

/** Exactly n characters of deterministic filler text (MOCK_LONG:n). */
export function longText(n) {
  const reps = Math.ceil(n / LONG_FILLER.length);
  return LONG_FILLER.repeat(reps).slice(0, n);
}

/**
 * Splits text into stream deltas: words for short text, 32-code-point slices for long text, and
 * at most 128 slices (longer ones) past 4 096 code points: every delta makes the gateway send the
 * whole text so far (the agent event's `text`), so a 46 000-character reply in 32-character
 * slices is ~33 MB of frames, minutes of CPU under the sanitizers.
 */
function chunkText(text) {
  if (!text) return [];
  const cps = Array.from(text);
  if (cps.length > 400) {
    const size = Math.max(32, Math.ceil(cps.length / 128));
    const out = [];
    for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(""));
    return out;
  }
  return text.match(/\s*\S+\s*|\s+/g) ?? [text];
}

/** Splits a JSON argument string into ~3 pieces, to exercise partial-JSON accumulation. */
function chunkArgs(args) {
  const cps = Array.from(args);
  if (cps.length < 6) return [args];
  const size = Math.ceil(cps.length / 3);
  const out = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(""));
  return out;
}

/** Text of an OpenAI/Anthropic/Responses content value: a string or an array of parts. */
function textOf(content) {
  if (content == null) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => {
        if (typeof p === "string") return p;
        if (p && typeof p.text === "string") return p.text;
        if (p && p.type === "tool_result") return textOf(p.content);
        return "";
      })
      .join("");
  }
  if (typeof content === "object" && typeof content.text === "string") return content.text;
  return "";
}

/** Reads a balanced JSON object starting at text[start] === "{". Returns {raw, end} or null. */
function readJsonObject(text, start) {
  if (text[start] !== "{") return null;
  let depth = 0;
  let inStr = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inStr) {
      if (c === "\\") i++;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return { raw: text.slice(start, i + 1), end: i + 1 };
  }
  return null;
}

/** Parses `name[:{json}]` at text[pos]. Returns {call:{name, arguments}, end} or null. */
function readToolSpec(text, pos) {
  const m = /^[A-Za-z0-9_.\-]+/.exec(text.slice(pos));
  if (!m) return null;
  let end = pos + m[0].length;
  let args = "{}";
  if (text[end] === ":" && text[end + 1] === "{") {
    const obj = readJsonObject(text, end + 1);
    if (obj) {
      args = obj.raw;
      end = obj.end;
    }
  }
  return { call: { name: m[0], arguments: args }, end };
}

/** Tool-call arguments as a JSON string (OpenAI/Anthropic deltas) ... */
function argsString(a) {
  return typeof a === "string" ? a : JSON.stringify(a ?? {});
}
/** ... and as an object (Anthropic non-stream input, Ollama). Unparsable strings become {}. */
function argsObject(a) {
  if (a && typeof a === "object") return a;
  try {
    const v = JSON.parse(a || "{}");
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}

// ----------------------------------------------------------------------------------------------
// Conversations: each API's request is normalised to
//   { events: [{kind: "user"|"assistant"|"tool", text}], toolNames: [...], promptChars }
// so that the keyword logic is shared.

const NORMALISE = {
  chat(body) {
    const events = [];
    for (const m of Array.isArray(body.messages) ? body.messages : []) {
      if (m?.role === "user") events.push({ kind: "user", text: textOf(m.content) });
      else if (m?.role === "assistant") events.push({ kind: "assistant", text: textOf(m.content) });
      else if (m?.role === "tool") events.push({ kind: "tool", text: textOf(m.content) });
    }
    const toolNames = (body.tools ?? []).map((t) => t?.function?.name ?? t?.name).filter(Boolean);
    return { events, toolNames, promptChars: JSON.stringify([body.messages, body.tools ?? []]).length };
  },
  responses(body) {
    const events = [];
    const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input ?? [];
    for (const it of Array.isArray(input) ? input : []) {
      const type = it?.type ?? "message";
      if (type === "function_call_output" || type === "custom_tool_call_output") {
        events.push({ kind: "tool", text: textOf(it.output) });
      } else if (type === "function_call" || type === "reasoning" || type === "custom_tool_call") {
        events.push({ kind: "assistant", text: "" });
      } else if (type === "message" && it.role === "user") {
        events.push({ kind: "user", text: textOf(it.content) });
      } else if (type === "message" && it.role === "assistant") {
        events.push({ kind: "assistant", text: textOf(it.content) });
      }
    }
    const toolNames = (body.tools ?? []).map((t) => t?.name ?? t?.function?.name).filter(Boolean);
    return { events, toolNames, promptChars: JSON.stringify([body.instructions ?? "", body.input, body.tools ?? []]).length };
  },
  anthropic(body) {
    const events = [];
    for (const m of Array.isArray(body.messages) ? body.messages : []) {
      if (m?.role === "assistant") {
        events.push({ kind: "assistant", text: textOf(m.content) });
      } else if (m?.role === "user") {
        if (!Array.isArray(m.content)) {
          events.push({ kind: "user", text: textOf(m.content) });
          continue;
        }
        const texts = [];
        for (const b of m.content) {
          if (b?.type === "tool_result") events.push({ kind: "tool", text: textOf(b.content) });
          else if (b?.type === "text") texts.push(b.text ?? "");
        }
        if (texts.length) events.push({ kind: "user", text: texts.join("\n") });
      }
    }
    const toolNames = (body.tools ?? []).map((t) => t?.name).filter(Boolean);
    return { events, toolNames, promptChars: JSON.stringify([body.system ?? "", body.messages, body.tools ?? []]).length };
  },
};
NORMALISE.ollama = NORMALISE.chat;

// ----------------------------------------------------------------------------------------------
// Request validation: a few checks the real APIs make and gateways commonly trip over
// (orphaned or missing tool results, empty Anthropic text blocks). Disabled by --no-validate.
// Returns an error message or null.

const VALIDATE = {
  chat(body) {
    if (!Array.isArray(body.messages) || body.messages.length === 0) return "'messages' must be a non-empty array";
    const msgs = body.messages;
    for (let i = 0; i < msgs.length; i++) {
      const m = msgs[i];
      if (m?.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length) {
        const answered = new Set();
        let j = i + 1;
        for (; j < msgs.length && msgs[j]?.role === "tool"; j++) answered.add(msgs[j].tool_call_id);
        const missing = m.tool_calls.map((c) => c?.id).filter((id) => !answered.has(id));
        if (missing.length && j < msgs.length) {
          return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(", ")}`;
        }
      }
      if (m?.role === "tool") {
        let k = i - 1;
        while (k >= 0 && msgs[k]?.role === "tool") k--;
        const prev = msgs[k];
        const ids = new Set((prev?.role === "assistant" && prev.tool_calls ? prev.tool_calls : []).map((c) => c?.id));
        if (!ids.has(m.tool_call_id)) {
          return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
        }
      }
    }
    return null;
  },
  responses(body) {
    if (body.input == null) return "Missing required parameter: 'input'.";
    if (!Array.isArray(body.input)) return null;
    const calls = new Set();
    const outputs = new Set();
    for (const it of body.input) {
      if (it?.type === "function_call") calls.add(it.call_id);
      if (it?.type === "function_call_output") {
        if (!calls.has(it.call_id) && !body.previous_response_id) return `No tool call found for function call output with call_id ${it.call_id}.`;
        outputs.add(it.call_id);
      }
    }
    // With previous_response_id the calls live in the stored response; only check full transcripts.
    if (!body.previous_response_id) for (const id of calls) if (!outputs.has(id)) return `No tool output found for function call ${id}.`;
    return null;
  },
  anthropic(body) {
    if (typeof body.model !== "string") return "model: Field required";
    if (body.max_tokens == null) return "max_tokens: Field required";
    if (!Array.isArray(body.messages)) return "messages: Field required";
    const msgs = body.messages;
    for (let i = 0; i < msgs.length; i++) {
      const m = msgs[i];
      const last = i === msgs.length - 1 && m?.role === "assistant"; // a prefill may be empty
      if (!last && (m?.content === "" || (Array.isArray(m?.content) && m.content.length === 0))) {
        return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
      }
      const blocks = Array.isArray(m?.content) ? m.content : [{ type: "text", text: m?.content }];
      for (let b = 0; b < blocks.length; b++) {
        if (blocks[b]?.type === "text" && !blocks[b].text && !last) {
          return `messages.${i}.content.${b}.text: text content blocks must be non-empty`;
        }
      }
      const uses = blocks.filter((b) => b?.type === "tool_use").map((b) => b.id);
      if (m?.role === "assistant" && uses.length && i + 1 < msgs.length) {
        const next = msgs[i + 1];
        const results = new Set((Array.isArray(next?.content) ? next.content : []).filter((b) => b?.type === "tool_result").map((b) => b.tool_use_id));
        const missing = uses.filter((id) => !results.has(id));
        if (missing.length) {
          return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
        }
      }
      if (m?.role === "user") {
        const prev = msgs[i - 1];
        const prevUses = new Set((prev?.role === "assistant" && Array.isArray(prev.content) ? prev.content : []).filter((b) => b?.type === "tool_use").map((b) => b.id));
        for (let b = 0; b < blocks.length; b++) {
          if (blocks[b]?.type === "tool_result" && !prevUses.has(blocks[b].tool_use_id)) {
            return `messages.${i}.content.${b}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${blocks[b].tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
          }
        }
      }
    }
    return null;
  },
  ollama(body) {
    if (body.messages != null && !Array.isArray(body.messages)) return "invalid messages";
    return null;
  },
};

// ----------------------------------------------------------------------------------------------
// Plans: what to answer. Built from keywords in the last user message, or from a script entry.
//   { text, reasoning, toolCalls: [{name, arguments}], error: {status, kind, message, retryAfter,
//     inStream, afterDeltas}, cut: {afterDeltas}, delayMs, finish: "stop"|"length", source }

function errorKindFor(status) {
  if (status === 401 || status === 403) return "auth";
  if (status === 404) return "not_found";
  if (status === 429) return "rate_limit";
  if (status === 402) return "billing";
  if (status === 503 || status === 529) return "overloaded";
  if (status >= 500) return "server";
  return "invalid_request";
}

function normaliseError(e) {
  const status = Number(e.status ?? (e.inStream ? 529 : 500));
  const kind = e.kind ?? e.type ?? (e.code === "context_length_exceeded" ? "overflow" : errorKindFor(status));
  return {
    status,
    kind,
    message: e.message ?? null,
    retryAfter: e.retryAfter ?? (status === 429 ? 1 : null),
    inStream: !!e.inStream,
    afterDeltas: Number(e.afterDeltas ?? 2),
  };
}

/** Splits a conversation into the text that carries keywords and the tool results of this turn. */
function analyse(events) {
  let lastAssistant = -1;
  events.forEach((e, i) => {
    if (e.kind === "assistant") lastAssistant = i;
  });
  const turn = events.slice(lastAssistant + 1);
  const toolResults = turn.filter((e) => e.kind === "tool").map((e) => e.text);
  // Pincer's startup context (CX-2) quotes earlier notes and session archives: their words are
  // not the user's, so their triggers (MOCK_SLOW, ECHO…) must not drive this answer.
  const own = (text) => (text ?? "").replace(/\[Startup context loaded by runtime\][\s\S]*END_QUOTED_NOTES\n?/, "");
  let userText = turn.filter((e) => e.kind === "user").map((e) => own(e.text)).join("\n");
  if (!userText || toolResults.length) {
    const lastUser = [...events].reverse().find((e) => e.kind === "user");
    userText = lastUser?.text ?? "";
  }
  return { userText, toolResults };
}

function keywordPlan(api, conv, opts, state) {
  const { userText, toolResults } = analyse(conv.events);
  const plan = { text: null, reasoning: null, toolCalls: [], error: null, cut: null, delayMs: opts.delayMs, finish: "stop", source: "keywords" };
  const echo = /ECHO:(\S+)/.exec(userText);
  const suffix = echo ? ` [${echo[1]}]` : "";
  if (/MOCK_REASON/.test(userText)) plan.reasoning = DEFAULT_REASONING;
  const slow = /MOCK_SLOW:(\d+)/.exec(userText);
  if (slow) plan.delayMs = Number(slow[1]);
  const hold = /MOCK_HOLD:([A-Za-z0-9_-]+)/.exec(userText);
  if (hold) plan.hold = { name: hold[1], afterDeltas: 2 };

  // Pincer's memory flush turn (CX-10): write a note to the daily file its prompt names, then
  // NO_REPLY. Like a model that follows the prompt ("APPEND new content only"), it sends only the
  // new line, never the file's old content: the flush's write tool must do the appending.
  const flush = /(?:^|\n)Pre-compaction memory flush\.[\s\S]*?(memory\/\d{4}-\d{2}-\d{2}\.md)/.exec(userText);
  if (flush) {
    if (toolResults.length || !conv.toolNames.includes("write")) {
      plan.text = "NO_REPLY";
      return plan;
    }
    const content = "- MOCK_FLUSHED: a durable note written by the flush turn\n";
    plan.toolCalls = [{ name: "write", arguments: JSON.stringify({ path: flush[1], content }) }];
    return plan;
  }
  // Second call of a tool round-trip: answer with the tool results' text.
  if (toolResults.length) {
    plan.text = toolResults.map((t) => `Tool said: ${Array.from(t).slice(0, 200).join("")}`).join("\n") + suffix;
    return plan;
  }

  // Errors (MOCK_429_ONCE etc. fail only the first identical request).
  const err = /\bMOCK_(429|500|529|OVERFLOW|ERR:(\d{3}))(_ONCE)?\b/.exec(userText);
  if (err) {
    const status = err[1] === "OVERFLOW" ? 400 : Number(err[2] ?? err[1]);
    const onceKey = `${api}|${err[0]}|${userText}`;
    if (!err[3] || !state.once.has(onceKey)) {
      if (err[3]) state.once.add(onceKey);
      plan.error = normaliseError({ status, kind: err[1] === "OVERFLOW" ? "overflow" : undefined });
      return plan;
    }
  }
  // A careless provider (or proxy) that quotes the credentials it was sent in its error body.
  const echoKey = /\bMOCK_ECHO_KEY(?::(\d{3}))?\b/.exec(userText);
  if (echoKey) {
    plan.error = { ...normaliseError({ status: Number(echoKey[1] ?? 401) }), echoCredentials: true };
    return plan;
  }
  const streamErr = /MOCK_STREAM_ERROR(?::(\d+))?/.exec(userText);
  if (streamErr) plan.error = normaliseError({ status: 529, inStream: true, afterDeltas: streamErr[1] ?? 2 });
  const cut = /MOCK_CUT(?::(\d+))?/.exec(userText);
  if (cut) plan.cut = { afterDeltas: Number(cut[1] ?? 2) };
  if (/MOCK_LENGTH/.test(userText)) plan.finish = "length";

  // Tool calls: every MOCK_TOOL:name[:{json}] is one call; MOCK_TOOLS2[:a[:{json}],b[:{json}]] two.
  const calls = [];
  for (const m of userText.matchAll(/MOCK_TOOL:/g)) {
    const spec = readToolSpec(userText, m.index + m[0].length);
    if (spec) calls.push(spec.call);
  }
  const two = /MOCK_TOOLS2(:?)/.exec(userText);
  if (two) {
    let pos = two.index + two[0].length;
    if (two[1]) {
      for (let spec; (spec = readToolSpec(userText, pos)); pos = spec.end + 1) {
        calls.push(spec.call);
        if (userText[spec.end] !== ",") break;
      }
    } else {
      const names = conv.toolNames.length === 1 ? [conv.toolNames[0], conv.toolNames[0]] : conv.toolNames.slice(0, 2);
      for (const name of names) calls.push({ name, arguments: "{}" });
    }
  }
  if (calls.length) {
    // A request that offers no tools cannot get a tool call (e.g. a title or summary side-call).
    if (conv.toolNames.length) {
      plan.toolCalls = calls;
      return plan;
    }
    plan.text = `(mock: tool call requested but the request offered no tools)${suffix}`;
    return plan;
  }

  const long = /MOCK_LONG:(\d+)/.exec(userText);
  plan.text = long ? longText(Number(long[1])) : opts.reply + suffix;
  return plan;
}

function scriptPlan(entry, api, conv, opts, state) {
  if (typeof entry === "string") entry = { text: entry };
  const base = keywordPlan(api, conv, opts, state);
  const plan = { ...base, source: "script" };
  if (entry.text != null || entry.toolCalls || entry.error) {
    plan.text = entry.text ?? null;
    plan.toolCalls = (entry.toolCalls ?? []).map((c) => ({ name: c.name, arguments: c.arguments ?? {}, id: c.id }));
    plan.error = entry.error ? normaliseError(entry.error) : null;
    if (plan.error?.inStream && plan.text == null && !plan.toolCalls.length) plan.text = opts.reply;
  }
  if (entry.reasoning != null) plan.reasoning = entry.reasoning;
  if (entry.cut) plan.cut = { afterDeltas: Number(entry.afterDeltas ?? 2) };
  if (entry.delayMs != null) plan.delayMs = Number(entry.delayMs);
  if (entry.finish) plan.finish = entry.finish;
  // {"hold": "name"}: as MOCK_HOLD:name, before the first delta (the reply the request would get
  // otherwise — a memory flush's write call or a summariser's answer, say — waits until
  // POST /__mock/release?name=name; `holdAfterDeltas` lets that many deltas out first).
  if (entry.hold) plan.hold = { name: String(entry.hold), afterDeltas: Number(entry.holdAfterDeltas ?? 0) };
  return plan;
}

/** The system prompt of a request, as text (Chat/Ollama system messages, Responses instructions, Anthropic system). */
function systemText(api, body) {
  if (api === "anthropic") return typeof body.system === "string" ? body.system : JSON.stringify(body.system ?? "");
  if (api === "responses") return String(body.instructions ?? "") + JSON.stringify((Array.isArray(body.input) ? body.input : []).filter((m) => m?.role === "system" || m?.role === "developer"));
  return JSON.stringify((body.messages ?? []).filter((m) => m?.role === "system" || m?.role === "developer"));
}

function usageFor(conv, plan) {
  const outChars =
    (plan.text ?? "").length + (plan.reasoning ?? "").length + plan.toolCalls.reduce((n, c) => n + c.name.length + argsString(c.arguments).length, 0);
  const input = tokensOf(conv.promptChars);
  const output = tokensOf(outChars);
  const reasoning = plan.reasoning ? tokensOf(plan.reasoning.length) : 0;
  return { input, output, reasoning, total: input + output };
}

// ----------------------------------------------------------------------------------------------
// Streaming driver. `delta()` writes one content-bearing event and applies the plan's delay,
// cut and in-stream error; `send()` writes structural events. Stop is thrown to end the stream.

class Stop extends Error {
  constructor(reason) {
    super(reason);
    this.reason = reason;
  }
}

// MOCK_HOLD:name gates: a stream waits at its hold until POST /__mock/release?name=name (or its
// client goes: counted in `closed`, the client closed the connection while held). A release before
// the stream gets there lets it pass.
const gates = new Map();  // name -> {released, closed, waiters: [resolve]}
function gate(name) {
  if (!gates.has(name)) gates.set(name, { released: false, closed: 0, waiters: [] });
  return gates.get(name);
}
function holdGate(name, res) {
  const g = gate(name);
  if (g.released) return Promise.resolve();
  return new Promise((resolve) => {
    let waiting = true;
    g.waiters.push(() => {
      waiting = false;
      resolve();
    });
    res.on("close", () => {
      if (waiting && !g.released) g.closed++;
      waiting = false;
      resolve();
    });
  });
}
function releaseGate(name) {
  const g = gate(name);
  g.released = true;
  for (const w of g.waiters.splice(0)) w();
}

class Streamer {
  constructor(res, plan) {
    this.res = res;
    this.plan = plan;
    this.count = 0;
    // The client may have gone before the stream started (its 'close' then fired already).
    this.gone = res.destroyed || !!res.socket?.destroyed;
    this.lastWrite = Promise.resolve();
    this.writeStreamError = () => {};
    res.on("close", () => {
      if (!res.writableEnded) this.gone = true;
    });
  }
  send(text) {
    if (this.gone) throw new Stop("aborted");
    this.lastWrite = new Promise((resolve) => this.res.write(text, () => resolve()));
  }
  async checkpoint(final) {
    const { cut, error } = this.plan;
    if (this.gone) throw new Stop("aborted");
    if (cut && (final || this.count >= cut.afterDeltas)) {
      await this.lastWrite;
      await sleep(20);
      this.res.socket?.destroy();
      throw new Stop("cut");
    }
    if (error?.inStream && (final || this.count >= error.afterDeltas)) {
      this.writeStreamError(error);
      this.res.end();
      throw new Stop("stream_error");
    }
  }
  /** `event` is the text to write, or a function building it (built only if it is written). */
  async delta(event) {
    if (this.plan.delayMs > 0) await sleep(this.plan.delayMs);
    if (this.plan.hold && this.count === this.plan.hold.afterDeltas) {
      await this.lastWrite;  // the first deltas are out before the stream waits
      await holdGate(this.plan.hold.name, this.res);
    }
    await this.checkpoint(false);
    this.count++;
    this.send(typeof event === "function" ? event() : event);
  }
  /** Call before the terminal event(s): a cut or stream error that has not fired yet fires now. */
  async beforeEnd() {
    await this.checkpoint(true);
  }
  end(text) {
    if (this.gone) throw new Stop("aborted");
    this.res.end(text);
  }
}

const sse = (obj) => `data: ${JSON.stringify(obj)}\n\n`;
const sseEvent = (type, obj) => `event: ${type}\ndata: ${JSON.stringify(obj)}\n\n`;

// ----------------------------------------------------------------------------------------------
// Error bodies, per API, in each provider's real shape.

function errorBody(api, kind, status, ctx, message) {
  if (api === GEMINI_API) return GEMINI.errorBody(kind, status, ctx, message);
  const model = ctx.model;
  if (api === "anthropic") {
    const map = {
      auth: ["authentication_error", ctx.authMessage ?? "invalid x-api-key"],
      not_found: ["not_found_error", `model: ${model}`],
      rate_limit: ["rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit. Please try again later."],
      server: ["api_error", "Internal server error"],
      overloaded: ["overloaded_error", "Overloaded"],
      billing: ["invalid_request_error", "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."],
      overflow: ["invalid_request_error", `prompt is too long: ${200000 + ctx.inputTokens} tokens > 200000 maximum`],
      invalid_request: ["invalid_request_error", "Invalid request"],
    };
    const [type, msg] = map[kind] ?? map.server;
    return { type: "error", error: { type, message: message ?? msg }, request_id: `req_${rid()}` };
  }
  if (api === "ollama") {
    const map = {
      auth: "unauthorized",
      not_found: `model "${model}" not found, try pulling it first`,
      rate_limit: "too many requests, please try again later",
      server: "an error was encountered while running the model: unexpected EOF",
      overloaded: "server busy, please try again.  maximum pending requests exceeded",
      overflow: `the input length exceeds the context length (${ctx.inputTokens + 131072} > 131072 tokens)`,
      invalid_request: "invalid request",
    };
    return { error: message ?? map[kind] ?? map.server };
  }
  // OpenAI (Chat Completions and Responses share the error shape)
  const overflowMsg =
    api === "responses"
      ? "Your input exceeds the context window of this model. Please adjust your input and try again."
      : `This model's maximum context length is 128000 tokens. However, your messages resulted in ${128000 + ctx.inputTokens} tokens. Please reduce the length of the messages.`;
  const map = {
    auth: [ctx.authMessage ?? "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", null, "invalid_api_key"],
    not_found: [`The model \`${model}\` does not exist or you do not have access to it.`, "invalid_request_error", null, "model_not_found"],
    rate_limit: [`Rate limit reached for ${model} on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 1s.`, "requests", null, "rate_limit_exceeded"],
    server: ["The server had an error while processing your request. Sorry about that!", "server_error", null, null],
    overloaded: ["The server is currently overloaded with other requests. Sorry about that! You can retry your request.", "server_error", null, "overloaded"],
    billing: ["You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.", "insufficient_quota", null, "insufficient_quota"],
    overflow: [overflowMsg, "invalid_request_error", api === "responses" ? "input" : "messages", "context_length_exceeded"],
    invalid_request: ["Invalid request", "invalid_request_error", null, null],
  };
  const [msg, type, param, code] = map[kind] ?? map.server;
  return { error: { message: message ?? msg, type, param, code } };
}

// --reject-thinking LEVELS: the request's reasoning level is refused with the provider's real 400
// (OpenAI: code "unsupported_value" naming the param and the supported values; Anthropic: an
// invalid_request_error about thinking, for any budget when the list holds "all").
const EFFORTS = ["minimal", "low", "medium", "high", "xhigh"];
function thinkingRejection(api, body, rejected) {
  if (!rejected || !rejected.length) return null;
  const supported = EFFORTS.filter((e) => !rejected.includes(e));
  const list = supported.map((e) => `'${e}'`);
  const listText = list.length > 1 ? `${list.slice(0, -1).join(", ")}, and ${list[list.length - 1]}` : list.join("");
  const openai = (param, value) => ({
    error: {
      message: `Unsupported value: '${param}' does not support '${value}' with this model. Supported values are: ${listText}.`,
      type: "invalid_request_error", param, code: "unsupported_value",
    },
  });
  if (api === "chat" && typeof body.reasoning_effort === "string" && rejected.includes(body.reasoning_effort)) {
    return openai("reasoning_effort", body.reasoning_effort);
  }
  if (api === "responses" && body.reasoning && rejected.includes(body.reasoning.effort)) return openai("reasoning.effort", body.reasoning.effort);
  if (api === "anthropic" && body.thinking && (rejected.includes("all") || rejected.includes(String(body.thinking.budget_tokens)))) {
    return { type: "error", error: { type: "invalid_request_error", message: `thinking: this model does not support extended thinking with budget_tokens ${body.thinking.budget_tokens}` }, request_id: `req_${rid()}` };
  }
  return null;
}

function sendJson(res, status, obj, headers = {}) {
  const body = JSON.stringify(obj);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

function sendError(api, res, err, ctx) {
  const headers = {};
  if (err.retryAfter != null) headers["retry-after"] = String(err.retryAfter);
  if (api === "anthropic") headers["request-id"] = `req_${rid()}`;
  if (api === "chat" || api === "responses") headers["x-request-id"] = `req_${rid()}`;
  if (api === "anthropic" && err.kind === "overloaded") headers["x-should-retry"] = "true";
  sendJson(res, err.status, errorBody(api, err.kind, err.status, ctx, err.message), headers);
}

// ----------------------------------------------------------------------------------------------
// Provider wire formats. Each has json(plan, usage, ctx) for stream:false and
// stream(s, plan, usage, ctx) for streaming.

const toolId = {
  chat: () => `call_${rid(24)}`,
  responses: () => `call_${rid(24)}`,
  anthropic: () => `toolu_01${rid(22)}`,
};

const finishOf = (plan) => (plan.toolCalls.length ? "tool" : plan.finish === "length" ? "length" : "stop");

const API = {
  // ---------------- OpenAI Chat Completions
  chat: {
    isStream: (body) => body.stream === true,
    json(plan, usage, ctx) {
      const message = { role: "assistant", content: plan.text ?? null, refusal: null };
      if (plan.reasoning) message.reasoning_content = plan.reasoning;
      if (plan.toolCalls.length) {
        message.tool_calls = plan.toolCalls.map((c) => ({ id: c.id ?? toolId.chat(), type: "function", function: { name: c.name, arguments: argsString(c.arguments) } }));
      }
      const finish = { tool: "tool_calls", length: "length", stop: "stop" }[finishOf(plan)];
      return {
        id: `chatcmpl-${rid(29)}`,
        object: "chat.completion",
        created: nowSec(),
        model: ctx.model,
        system_fingerprint: "fp_mock",
        choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
        usage: chatUsage(usage),
      };
    },
    async stream(s, plan, usage, ctx) {
      const id = `chatcmpl-${rid(29)}`;
      const created = nowSec();
      const withUsage = !!ctx.body.stream_options?.include_usage;
      const chunk = (delta, finish = null) =>
        sse({
          id,
          object: "chat.completion.chunk",
          created,
          model: ctx.model,
          system_fingerprint: "fp_mock",
          choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
          ...(withUsage ? { usage: null } : {}),
        });
      s.writeStreamError = (err) => s.send(sse(errorBody("chat", err.kind, err.status, ctx, err.message)));
      s.send(chunk({ role: "assistant", content: "", refusal: null }));
      if (plan.reasoning) for (const p of chunkText(plan.reasoning)) await s.delta(chunk({ reasoning_content: p }));
      if (plan.text) for (const p of chunkText(plan.text)) await s.delta(chunk({ content: p }));
      for (const [index, c] of plan.toolCalls.entries()) {
        s.send(chunk({ tool_calls: [{ index, id: c.id ?? toolId.chat(), type: "function", function: { name: c.name, arguments: "" } }] }));
        for (const p of chunkArgs(argsString(c.arguments))) await s.delta(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
      }
      await s.beforeEnd();
      s.send(chunk({}, { tool: "tool_calls", length: "length", stop: "stop" }[finishOf(plan)]));
      if (withUsage) {
        s.send(sse({ id, object: "chat.completion.chunk", created, model: ctx.model, system_fingerprint: "fp_mock", choices: [], usage: chatUsage(usage) }));
      }
      s.end("data: [DONE]\n\n");
    },
  },

  // ---------------- OpenAI Responses
  responses: {
    isStream: (body) => body.stream === true,
    items(plan) {
      // Output items in order: reasoning, message, function calls (ids fixed once per response).
      const items = [];
      if (plan.reasoning) {
        const item = { id: `rs_${rid(40)}`, type: "reasoning", summary: [{ type: "summary_text", text: plan.reasoning }] };
        item.encrypted_content = Buffer.from(`mock-reasoning:${plan.reasoning}`).toString("base64");
        items.push(item);
      }
      if (plan.text != null) {
        items.push({
          id: `msg_${rid(40)}`,
          type: "message",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", annotations: [], logprobs: [], text: plan.text }],
        });
      }
      for (const c of plan.toolCalls) {
        items.push({ id: `fc_${rid(40)}`, type: "function_call", status: "completed", arguments: argsString(c.arguments), call_id: c.id ?? toolId.responses(), name: c.name });
      }
      return items;
    },
    response(ctx, status, output, usage, extra = {}) {
      const b = ctx.body;
      return {
        id: ctx.responseId,
        object: "response",
        created_at: ctx.created,
        status,
        error: null,
        incomplete_details: null,
        instructions: b.instructions ?? null,
        max_output_tokens: b.max_output_tokens ?? null,
        model: ctx.model,
        output,
        parallel_tool_calls: b.parallel_tool_calls ?? true,
        previous_response_id: b.previous_response_id ?? null,
        reasoning: { effort: b.reasoning?.effort ?? null, summary: b.reasoning?.summary ?? null },
        store: b.store ?? true,
        temperature: b.temperature ?? 1,
        text: { format: { type: "text" } },
        tool_choice: b.tool_choice ?? "auto",
        tools: b.tools ?? [],
        top_p: b.top_p ?? 1,
        truncation: "disabled",
        usage: usage ? responsesUsage(usage) : null,
        metadata: b.metadata ?? {},
        ...extra,
      };
    },
    prepare(ctx) {
      ctx.responseId = `resp_${rid(40)}`;
      ctx.created = nowSec();
    },
    json(plan, usage, ctx) {
      this.prepare(ctx);
      const { status, extra } = this.terminal(plan);
      return this.response(ctx, status, this.items(plan), usage, extra);
    },
    terminal(plan) {
      return plan.finish === "length" && !plan.toolCalls.length
        ? { event: "response.incomplete", status: "incomplete", extra: { incomplete_details: { reason: "max_output_tokens" } } }
        : { event: "response.completed", status: "completed", extra: {} };
    },
    async stream(s, plan, usage, ctx) {
      this.prepare(ctx);
      let seq = 0;
      const ev = (type, obj) => sseEvent(type, { type, sequence_number: seq++, ...obj });
      const items = this.items(plan);
      const done = [];
      s.writeStreamError = (err) => {
        const body = errorBody("responses", err.kind, err.status, ctx, err.message).error;
        const code = err.kind === "rate_limit" ? "rate_limit_exceeded" : "server_error";
        s.send(ev("response.failed", { response: this.response(ctx, "failed", done, null, { error: { code, message: body.message } }) }));
      };
      s.send(ev("response.created", { response: this.response(ctx, "in_progress", [], null) }));
      s.send(ev("response.in_progress", { response: this.response(ctx, "in_progress", [], null) }));
      for (const [output_index, item] of items.entries()) {
        const item_id = item.id;
        if (item.type === "reasoning") {
          const text = item.summary[0].text;
          s.send(ev("response.output_item.added", { output_index, item: { id: item_id, type: "reasoning", summary: [] } }));
          s.send(ev("response.reasoning_summary_part.added", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text: "" } }));
          for (const p of chunkText(text)) await s.delta(() => ev("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta: p }));
          s.send(ev("response.reasoning_summary_text.done", { item_id, output_index, summary_index: 0, text }));
          s.send(ev("response.reasoning_summary_part.done", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text } }));
        } else if (item.type === "message") {
          const text = item.content[0].text;
          s.send(ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } }));
          s.send(ev("response.content_part.added", { item_id, output_index, content_index: 0, part: { type: "output_text", annotations: [], logprobs: [], text: "" } }));
          for (const p of chunkText(text)) await s.delta(() => ev("response.output_text.delta", { item_id, output_index, content_index: 0, delta: p, logprobs: [] }));
          s.send(ev("response.output_text.done", { item_id, output_index, content_index: 0, text, logprobs: [] }));
          s.send(ev("response.content_part.done", { item_id, output_index, content_index: 0, part: item.content[0] }));
        } else {
          s.send(ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } }));
          for (const p of chunkArgs(item.arguments)) await s.delta(() => ev("response.function_call_arguments.delta", { item_id, output_index, delta: p }));
          s.send(ev("response.function_call_arguments.done", { item_id, output_index, name: item.name, arguments: item.arguments }));
        }
        s.send(ev("response.output_item.done", { output_index, item }));
        done.push(item);
      }
      await s.beforeEnd();
      const t = this.terminal(plan);
      s.end(ev(t.event, { response: this.response(ctx, t.status, items, usage, t.extra) }));
    },
  },

  // ---------------- Anthropic Messages
  anthropic: {
    isStream: (body) => body.stream === true,
    blocks(plan) {
      const blocks = [];
      if (plan.reasoning) {
        const signature = Buffer.from(`mock-signature:${crypto.createHash("sha256").update(plan.reasoning).digest("hex")}`).toString("base64");
        blocks.push({ type: "thinking", thinking: plan.reasoning, signature });
      }
      if (plan.text != null) blocks.push({ type: "text", text: plan.text });
      for (const c of plan.toolCalls) blocks.push({ type: "tool_use", id: c.id ?? toolId.anthropic(), name: c.name, input: argsObject(c.arguments), _args: argsString(c.arguments) });
      return blocks;
    },
    stopReason: (plan) => ({ tool: "tool_use", length: "max_tokens", stop: "end_turn" })[finishOf(plan)],
    json(plan, usage, ctx) {
      return {
        id: `msg_01${rid(22)}`,
        type: "message",
        role: "assistant",
        model: ctx.model,
        content: this.blocks(plan).map(({ _args, ...b }) => b),
        stop_reason: this.stopReason(plan),
        stop_sequence: null,
        usage: { input_tokens: usage.input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: usage.output },
      };
    },
    async stream(s, plan, usage, ctx) {
      const ev = (type, obj) => sseEvent(type, { type, ...obj });
      s.writeStreamError = (err) => s.send(ev("error", { error: errorBody("anthropic", err.kind, err.status, ctx, err.message).error }));
      s.send(
        ev("message_start", {
          message: {
            id: `msg_01${rid(22)}`,
            type: "message",
            role: "assistant",
            model: ctx.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: usage.input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
          },
        }),
      );
      s.send(ev("ping", {}));
      for (const [index, b] of this.blocks(plan).entries()) {
        if (b.type === "thinking") {
          s.send(ev("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }));
          for (const p of chunkText(b.thinking)) await s.delta(ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: p } }));
          s.send(ev("content_block_delta", { index, delta: { type: "signature_delta", signature: b.signature } }));
        } else if (b.type === "text") {
          s.send(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
          for (const p of chunkText(b.text)) await s.delta(ev("content_block_delta", { index, delta: { type: "text_delta", text: p } }));
        } else {
          s.send(ev("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } }));
          s.send(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } }));
          for (const p of chunkArgs(b._args)) await s.delta(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } }));
        }
        s.send(ev("content_block_stop", { index }));
      }
      await s.beforeEnd();
      s.send(ev("message_delta", { delta: { stop_reason: this.stopReason(plan), stop_sequence: null }, usage: { output_tokens: usage.output } }));
      s.end(ev("message_stop", {}));
    },
  },

  // ---------------- Ollama
  ollama: {
    isStream: (body) => body.stream !== false, // Ollama streams unless told not to
    final(plan, usage, ctx, message) {
      return {
        model: ctx.model,
        created_at: new Date().toISOString(),
        message,
        done: true,
        done_reason: plan.finish === "length" && !plan.toolCalls.length ? "length" : "stop",
        total_duration: 123456789,
        load_duration: 1234567,
        prompt_eval_count: usage.input,
        prompt_eval_duration: 2345678,
        eval_count: usage.output,
        eval_duration: 3456789,
      };
    },
    toolCalls: (plan) => plan.toolCalls.map((c) => ({ function: { name: c.name, arguments: argsObject(c.arguments) } })),
    json(plan, usage, ctx) {
      const message = { role: "assistant", content: plan.text ?? "" };
      if (plan.reasoning) message.thinking = plan.reasoning;
      if (plan.toolCalls.length) message.tool_calls = this.toolCalls(plan);
      return this.final(plan, usage, ctx, message);
    },
    async stream(s, plan, usage, ctx) {
      const line = (message) => JSON.stringify({ model: ctx.model, created_at: new Date().toISOString(), message, done: false }) + "\n";
      s.writeStreamError = (err) => s.send(JSON.stringify(errorBody("ollama", err.kind, err.status, ctx, err.message)) + "\n");
      if (plan.reasoning) for (const p of chunkText(plan.reasoning)) await s.delta(line({ role: "assistant", content: "", thinking: p }));
      if (plan.text) for (const p of chunkText(plan.text)) await s.delta(line({ role: "assistant", content: p }));
      if (plan.toolCalls.length) await s.delta(line({ role: "assistant", content: "", tool_calls: this.toolCalls(plan) }));
      await s.beforeEnd();
      s.end(JSON.stringify(this.final(plan, usage, ctx, { role: "assistant", content: "" })) + "\n");
    },
  },
};

function chatUsage(u) {
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.total,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}
function responsesUsage(u) {
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.total,
  };
}

// Google Gemini lives in gemini.mjs and plugs into the same tables.
const GEMINI = geminiApi({ chunkText, argsObject, rid });
Object.assign(NORMALISE, { [GEMINI_API]: GEMINI.normalise });
Object.assign(VALIDATE, { [GEMINI_API]: GEMINI.validate });
Object.assign(API, { [GEMINI_API]: GEMINI });

// ----------------------------------------------------------------------------------------------
// Authentication (--api-key) and request recording.

/** Returns null when authorised, else {message} for the provider's 401 body. */
function checkAuth(api, req, apiKey) {
  if (!apiKey) return null;
  if (api === GEMINI_API) return GEMINI.checkAuth(req, apiKey);
  const auth = req.headers.authorization ?? "";
  const bearer = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
  if (api === "anthropic") {
    const key = req.headers["x-api-key"];
    if (key === apiKey) return null;
    // OAuth tokens go as Bearer with the oauth beta header, as with the real API.
    if (bearer === apiKey && /oauth/i.test(req.headers["anthropic-beta"] ?? "")) return null;
    return { message: key || bearer ? "invalid x-api-key" : "x-api-key header is required" };
  }
  if (bearer === apiKey) return null;
  if (api === "ollama") return { message: "unauthorized" };
  if (!bearer) {
    return {
      message:
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
    };
  }
  const shown = bearer.length > 8 ? `${bearer.slice(0, 3)}*****${bearer.slice(-4)}` : "*****";
  return { message: `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.` };
}

/** The credential a request carries (Bearer, x-api-key or x-goog-api-key), or "". */
function requestKey(req) {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1]?.trim() ?? "";
  return req.headers["x-api-key"] ?? req.headers["x-goog-api-key"] ?? bearer;
}

/** MOCK_ECHO_KEY: an error message quoting the request's credentials and custom header values verbatim. */
function echoCredentials(req) {
  const auth = req.headers.authorization ?? "";
  const bearer = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim() ?? "";
  const key = req.headers["x-api-key"] ?? bearer;
  const custom = Object.entries(req.headers)
    .filter(([k]) => k.startsWith("x-") && k !== "x-api-key")
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  return `Invalid API key provided: ${key || "(none)"}; headers: ${custom || "(none)"}`;
}

const SECRET_HEADERS = new Set(["authorization", "x-api-key", "api-key", "cookie", "proxy-authorization", "x-goog-api-key"]);
function redactHeaders(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers)) {
    if (!SECRET_HEADERS.has(k)) out[k] = v;
    else if (k === "authorization" || k === "proxy-authorization") out[k] = String(v).replace(/^(\S+\s+).*$/, "$1[redacted]");
    else out[k] = "[redacted]";
  }
  return out;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

// ----------------------------------------------------------------------------------------------
// The server.

const ROUTES = {
  "/v1/chat/completions": "chat",
  "/chat/completions": "chat",
  "/v1/responses": "responses",
  "/responses": "responses",
  "/v1/messages": "anthropic",
  "/messages": "anthropic",
  "/api/chat": "ollama",
};

/**
 * Creates a mock server (not yet listening). options: {apiKey, log, script: [...], models: [...],
 * reply, delayMs, validate, rejectThinking: [...]}. Returns {server, state, listen(port) -> Promise<port>, close()}.
 */
function embeddingsApi(path) {
  if (path === "/v1/embeddings" || path === "/embeddings") return "openai";
  if (path === "/api/embed") return "ollama";
  if (/^\/(v1beta\/)?models\/[^/]+:batchEmbedContents$/.test(path)) return "gemini";
  return null;
}

/** A deterministic unit vector of `dims` for `text` (hashed bag of words). */
export function embedText(text, dims = 64) {
  const v = new Array(dims).fill(0);
  const terms = String(text).toLowerCase().match(/[\p{Script=Han}]|[\p{L}\p{N}_]+/gu) ?? [];
  for (const term of terms) {
    const h = crypto.createHash("sha256").update(term).digest();
    for (let k = 0; k < 3; k++) v[h[k] % dims] += h[3 + k] & 1 ? 1 : -1;
  }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => (n === 1 && x === 0 ? 0 : x / n));
}

export function createMockLlm(options = {}) {
  const opts = {
    apiKey: options.apiKey ?? null,
    log: options.log ?? null,
    models: options.models?.length ? options.models : ["mock-model"],
    reply: options.reply ?? DEFAULT_REPLY,
    delayMs: Number(options.delayMs ?? 0),
    validate: options.validate ?? true,
    contextWindow: Number(options.contextWindow ?? 0),
    failSystem: options.failSystem ?? null,
    rejectThinking: options.rejectThinking ?? [],
  };
  // keys: per-credential failures set through /__mock/keys ({"<key>": <HTTP status>, 0 = answer};
  // "<key>@<model>": for that model only).
  const state = { requests: [], script: [...(options.script ?? [])], once: new Set(), seq: 0, embed: { dims: 64, delayMs: 0, status: 0 }, keys: {} };
  const oauth = createOAuthState();  // the OAuth token endpoint (mock-oauth.mjs)

  function record(req, path, body) {
    const entry = { id: ++state.seq, t: new Date().toISOString(), method: req.method, path, headers: redactHeaders(req.headers), body };
    if (opts.log) fs.appendFileSync(opts.log, JSON.stringify(entry) + "\n");
    state.requests.push(entry);
    return entry;
  }

  async function generate(api, req, res, body, entry) {
    entry.api = api;
    const model = entry.gemini?.model ?? (typeof body.model === "string" && body.model ? body.model : opts.models[0]);
    const conv = NORMALISE[api](body);
    const ctx = { body, model, inputTokens: tokensOf(conv.promptChars) };
    const fail = (kind, status, message) => {
      entry.status = status;
      entry.outcome = "error";
      sendError(api, res, { kind, status, message, retryAfter: null }, ctx);
    };

    const auth = checkAuth(api, req, opts.apiKey);
    if (auth) return fail("auth", auth.status ?? 401, auth.message);
    // A credential told to fail (/__mock/keys) gets the provider's real body for that status.
    const key = requestKey(req);
    if (key) entry.keySuffix = key.slice(-4);
    // "<key>@<model>" fails that key for one model only (per-model rate limits).
    const keyStatus = key ? Number(state.keys[`${key}@${model}`] ?? state.keys[key] ?? 0) : 0;
    if (keyStatus) {
      entry.keyFailure = keyStatus;
      const err = normaliseError({ status: keyStatus });
      entry.status = keyStatus;
      entry.outcome = "error";
      return sendError(api, res, err, ctx);
    }
    if (api === "anthropic" && !req.headers["anthropic-version"]) return fail("invalid_request", 400, "anthropic-version: header is required");
    const rejected = thinkingRejection(api, body, opts.rejectThinking);
    if (rejected) {
      entry.status = 400;
      entry.outcome = "error";
      return sendJson(res, 400, rejected, api === "anthropic" ? { "request-id": `req_${rid()}` } : { "x-request-id": `req_${rid()}` });
    }
    const invalid = opts.validate ? VALIDATE[api](body) : null;
    if (invalid) {
      entry.validationError = invalid;
      return fail("invalid_request", 400, invalid);
    }

    // A model with a small window answers a request larger than it with the provider's real
    // context-length error (the window and the request's size in the message, as the APIs do).
    if (opts.contextWindow > 0 && ctx.inputTokens > opts.contextWindow) {
      entry.overflow = true;
      const window = opts.contextWindow;
      const n = ctx.inputTokens;
      const message =
        api === "anthropic" ? `prompt is too long: ${n} tokens > ${window} maximum`
        : api === "ollama" ? `the input length exceeds the context length (${n} > ${window} tokens)`
        : api === "responses" ? "Your input exceeds the context window of this model. Please adjust your input and try again."
        : `This model's maximum context length is ${window} tokens. However, your messages resulted in ${n} tokens. Please reduce the length of the messages.`;
      return fail("overflow", 400, message);
    }
    if (opts.failSystem && systemText(api, body).includes(opts.failSystem)) {
      entry.failedSystem = true;
      return fail("server", 500);
    }
    // The first script entry for this request: one with `ifSystem` only serves a request whose
    // system prompt contains that text (others pass it by).
    const sys = state.script.some((e) => e?.ifSystem != null) ? systemText(api, body) : "";
    const at = state.script.findIndex((e) => e?.ifSystem == null || sys.includes(String(e.ifSystem)));
    const plan = at >= 0 ? scriptPlan(state.script.splice(at, 1)[0], api, conv, opts, state) : keywordPlan(api, conv, opts, state);
    const usage = usageFor(conv, plan);
    entry.plan = {
      source: plan.source,
      text: plan.text && plan.text.length > 200 ? `${plan.text.slice(0, 200)}…` : plan.text,
      toolCalls: plan.toolCalls.map((c) => c.name),
      reasoning: !!plan.reasoning,
      error: plan.error,
      cut: plan.cut,
      delayMs: plan.delayMs,
    };
    const stream = API[api].isStream(body, entry.gemini);
    entry.stream = stream;

    if (plan.error && (!plan.error.inStream || !stream)) {
      entry.status = plan.error.status;
      entry.outcome = "error";
      if (plan.error.echoCredentials) return sendError(api, res, { ...plan.error, message: echoCredentials(req) }, ctx);
      return sendError(api, res, plan.error, ctx);
    }
    if (!stream) {
      const obj = API[api].json(plan, usage, ctx);
      entry.status = 200;
      if (plan.cut) {
        // Headers promise the full body; half of it arrives, then the connection drops.
        const raw = Buffer.from(JSON.stringify(obj));
        res.writeHead(200, { "content-type": "application/json", "content-length": raw.length });
        await new Promise((resolve) => res.write(raw.subarray(0, raw.length >> 1), resolve));
        await sleep(20);
        res.socket?.destroy();
        entry.outcome = "cut";
        return;
      }
      if (plan.delayMs) await sleep(plan.delayMs);
      entry.outcome = plan.toolCalls.length ? "tool_calls" : "text";
      return sendJson(res, 200, obj, api === "anthropic" ? { "request-id": `req_${rid()}` } : { "x-request-id": `req_${rid()}` });
    }

    const contentType = api === "ollama" ? "application/x-ndjson" : "text/event-stream; charset=utf-8";
    const headers = { "content-type": contentType, "cache-control": "no-cache" };
    if (api === "anthropic") headers["request-id"] = `req_${rid()}`;
    else if (api !== "ollama") headers["x-request-id"] = `req_${rid()}`;
    res.writeHead(200, headers);
    res.flushHeaders(); // like real providers: headers go out before the first delta
    entry.status = 200;
    const s = new Streamer(res, plan);
    try {
      await API[api].stream(s, plan, usage, ctx);
      entry.outcome = plan.toolCalls.length ? "tool_calls" : "text";
    } catch (e) {
      if (!(e instanceof Stop)) throw e;
      entry.outcome = e.reason;
      if (e.reason === "aborted") entry.aborted = true;
    }
    entry.deltas = s.count;
  }

  function listModels(req, res) {
    if (req.headers["anthropic-version"] || req.headers["x-api-key"]) {
      const auth = checkAuth("anthropic", req, opts.apiKey);
      if (auth) return sendError("anthropic", res, { kind: "auth", status: 401, message: auth.message }, { model: "" });
      // One page, as Anthropic's API: `limit` 1..1000, default 20; has_more when the list goes on.
      const asked = Number(new URL(req.url, "http://x").searchParams.get("limit") ?? 20);
      const limit = Number.isInteger(asked) && asked >= 1 && asked <= 1000 ? asked : 20;
      const data = opts.models.slice(0, limit).map((id) => ({ type: "model", id, display_name: id, created_at: "2025-01-01T00:00:00Z" }));
      return sendJson(res, 200, { data, has_more: opts.models.length > limit, first_id: data[0].id, last_id: data.at(-1).id });
    }
    const auth = checkAuth("chat", req, opts.apiKey);
    if (auth) return sendError("chat", res, { kind: "auth", status: 401, message: auth.message }, { model: "" });
    return sendJson(res, 200, { object: "list", data: opts.models.map((id) => ({ id, object: "model", created: 1700000000, owned_by: "mock" })) });
  }

  function ollamaTags(req, res) {
    const auth = checkAuth("ollama", req, opts.apiKey);
    if (auth) return sendError("ollama", res, { kind: "auth", status: 401, message: auth.message }, { model: "" });
    const models = opts.models.map((id) => {
      const name = id.includes(":") ? id : `${id}:latest`;
      return {
        name,
        model: name,
        modified_at: "2025-01-01T00:00:00.000000000Z",
        size: 2019393189,
        digest: crypto.createHash("sha256").update(name).digest("hex"),
        details: { parent_model: "", format: "gguf", family: "llama", families: ["llama"], parameter_size: "3.2B", quantization_level: "Q4_K_M" },
      };
    });
    return sendJson(res, 200, { models });
  }

  // Embeddings in each provider's wire format. Vectors are deterministic: each word (and each CJK
  // character) of the text adds to a few hashed dimensions, so texts sharing words are similar.
  // `POST /__mock/embeddings {dims, delayMs, status}` makes them slow or failing.
  async function embeddings(api, req, res, body, entry) {
    entry.api = `embeddings-${api}`;
    if (state.embed.delayMs > 0) await new Promise((r) => setTimeout(r, state.embed.delayMs));
    if (res.destroyed) return;
    if (state.embed.status >= 400) {
      entry.status = state.embed.status;
      entry.outcome = "error";
      return sendJson(res, state.embed.status, { error: { message: `mock-llm: embeddings failing with ${state.embed.status}`, type: "server_error" } });
    }
    let texts;
    if (api === "gemini") texts = (body?.requests ?? []).map((r) => (r?.content?.parts ?? []).map((p) => p?.text ?? "").join(""));
    else texts = Array.isArray(body?.input) ? body.input : typeof body?.input === "string" ? [body.input] : null;
    if (!texts || texts.some((t) => typeof t !== "string")) {
      entry.status = 400;
      entry.outcome = "error";
      return sendJson(res, 400, { error: { message: "mock-llm: input must be a string or an array of strings", type: "invalid_request_error" } });
    }
    const vectors = texts.map((t) => embedText(t, state.embed.dims));
    entry.status = 200;
    entry.outcome = "embeddings";
    if (api === "ollama") return sendJson(res, 200, { model: body.model, embeddings: vectors });
    if (api === "gemini") return sendJson(res, 200, { embeddings: vectors.map((values) => ({ values })) });
    return sendJson(res, 200, { object: "list", model: body.model, data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })), usage: { prompt_tokens: 1, total_tokens: 1 } });
  }

  async function handle(req, res) {
    const url = new URL(req.url, `http://${HOST}`);
    const path = url.pathname.replace(/\/v1\/v1\//, "/v1/").replace(/(.)\/$/, "$1");
    const method = req.method;

    // Control endpoints (not recorded).
    if (path === "/health" || path === "/__mock/health") return sendJson(res, 200, { ok: true, requests: state.requests.length, scriptLeft: state.script.length });
    if (path === "/__mock/requests" && method === "GET") return sendJson(res, 200, state.requests);
    if (path === "/__mock/reset" && method === "POST") {
      state.requests = [];
      state.once.clear();
      if (url.searchParams.get("script") === "1") state.script = [];
      return sendJson(res, 200, { ok: true });
    }
    if (path === "/__mock/keys") {
      if (method === "POST") {
        let rules;
        try {
          rules = JSON.parse((await readBody(req)) || "{}");
        } catch (e) {
          return sendJson(res, 400, { error: `invalid JSON: ${e.message}` });
        }
        if (!rules || typeof rules !== "object" || Array.isArray(rules)) return sendJson(res, 400, { error: "keys must be an object of key → HTTP status" });
        for (const [k, v] of Object.entries(rules)) {
          if (v) state.keys[k] = Number(v);
          else delete state.keys[k];
        }
      }
      return sendJson(res, 200, { ok: true, keys: Object.keys(state.keys).length });
    }
    if (path === "/__mock/release" && method === "POST") {
      const name = url.searchParams.get("name") ?? "";
      const waiting = gate(name).waiters.length;
      releaseGate(name);
      return sendJson(res, 200, { ok: true, name, released: waiting });
    }
    if (path === "/__mock/holds" && method === "GET") {
      return sendJson(res, 200, Object.fromEntries([...gates].map(([k, g]) => [k, { released: g.released, waiting: g.waiters.length, closed: g.closed }])));
    }
    if (path === "/__mock/embeddings") {
      if (method === "POST") {
        try {
          Object.assign(state.embed, JSON.parse((await readBody(req)) || "{}"));
        } catch (e) {
          return sendJson(res, 400, { error: `invalid JSON: ${e.message}` });
        }
      }
      return sendJson(res, 200, state.embed);
    }
    if (await handleOAuth(oauth, req, res, path, method, { readBody, sendJson, holdGate })) return;
    if (path === "/__mock/script") {
      if (method === "GET") return sendJson(res, 200, state.script);
      if (method === "POST") {
        let entries;
        try {
          entries = JSON.parse((await readBody(req)) || "[]");
        } catch (e) {
          return sendJson(res, 400, { error: `invalid JSON: ${e.message}` });
        }
        if (!Array.isArray(entries)) return sendJson(res, 400, { error: "script must be a JSON array" });
        state.script = url.searchParams.get("append") === "1" ? [...state.script, ...entries] : entries;
        return sendJson(res, 200, { ok: true, scriptLeft: state.script.length });
      }
    }

    const raw = method === "POST" ? await readBody(req) : "";
    let body = raw;
    let parseError = null;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch (e) {
        parseError = e;
      }
    }
    const entry = record(req, path, body === "" ? null : body);

    entry.gemini = geminiRoute(path, url.searchParams) ?? undefined;
    const api = ROUTES[path] ?? (entry.gemini ? GEMINI_API : undefined);
    if (api && method === "POST") {
      if (parseError || typeof body !== "object" || body === null || Array.isArray(body)) {
        entry.api = api;
        entry.status = 400;
        entry.outcome = "error";
        const message =
          api === "ollama"
            ? `invalid character in JSON body: ${parseError?.message ?? "expected an object"}`
            : api === "anthropic"
              ? "There was an issue with your request: the request body is not valid JSON."
              : "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)";
        return sendError(api, res, { kind: "invalid_request", status: 400, message }, { model: "" });
      }
      return generate(api, req, res, body, entry);
    }
    const embedApi = method === "POST" ? embeddingsApi(path) : null;
    if (embedApi) return embeddings(embedApi, req, res, body, entry);
    if (method === "GET" && (path === "/v1/models" || path === "/models")) return listModels(req, res);
    if (method === "GET" && /^\/(v1\/)?models\/[^/]+$/.test(path)) {
      const id = decodeURIComponent(path.split("/").pop());
      return sendJson(res, 200, { id, object: "model", created: 1700000000, owned_by: "mock" });
    }
    // A plain webhook receiver for the gateway's outbound POSTs (cron `webhook` delivery): recorded
    // like any request, with its Authorization kept (a test token, not a provider key); answers
    // 200, or the status named by ?status=NNN.
    if (method === "POST" && path.startsWith("/__mock/receiver")) {
      entry.receivedAuthorization = req.headers.authorization ?? null;
      const status = Number(new URL(req.url, "http://x").searchParams.get("status") ?? 200);
      entry.status = status;
      return sendJson(res, status, { ok: status < 300 });
    }
    if (method === "GET" && path === "/api/tags") return ollamaTags(req, res);
    if (method === "GET" && path === "/api/version") return sendJson(res, 200, { version: "0.12.0" });
    if (method === "POST" && path === "/api/show") {
      return sendJson(res, 200, {
        modelfile: "",
        parameters: "",
        template: "{{ .Prompt }}",
        details: { parent_model: "", format: "gguf", family: "llama", families: ["llama"], parameter_size: "3.2B", quantization_level: "Q4_K_M" },
        model_info: { "general.architecture": "llama", "llama.context_length": 131072 },
        capabilities: ["completion", "tools", "thinking"],
      });
    }
    entry.status = 404;
    entry.outcome = "not_found";
    return sendJson(res, 404, { error: { message: `mock-llm: no route ${method} ${path}`, type: "invalid_request_error", param: null, code: "unknown_url" } });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      process.stderr.write(`mock-llm: internal error: ${err?.stack ?? err}\n`);
      if (!res.headersSent) sendJson(res, 500, { error: { message: `mock-llm internal error: ${err}`, type: "mock_error", param: null, code: null } });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000; // providers keep connections open; avoid reuse races in clients

  return {
    server,
    state,
    listen(port = 0) {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, HOST, () => resolve(server.address().port));
      });
    },
    close() {
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// ----------------------------------------------------------------------------------------------
// Command line.

const USAGE = `usage: node mock-llm.mjs [--port N] [--script file.json] [--api-key KEY] [--log file.jsonl]
                         [--model ID]... [--reply TEXT] [--delay-ms N] [--no-validate]
                         [--context-window N] [--fail-system TEXT] [--reject-thinking LEVEL,...]`;

function parseArgs(argv) {
  const o = { port: Number(process.env.MOCK_LLM_PORT ?? 0), models: [], validate: true };
  for (let i = 0; i < argv.length; i++) {
    let [flag, value] = argv[i].includes("=") ? argv[i].split(/=(.*)/s) : [argv[i], undefined];
    const need = () => {
      if (value !== undefined) return value;
      if (i + 1 >= argv.length) throw new Error(`missing value for ${flag}`);
      return argv[++i];
    };
    switch (flag) {
      case "--port": o.port = Number(need()); break;
      case "--script": o.scriptFile = need(); break;
      case "--api-key": o.apiKey = need(); break;
      case "--log": o.log = need(); break;
      case "--model": case "--models": o.models.push(...need().split(",").filter(Boolean)); break;
      case "--reply": o.reply = need(); break;
      case "--delay-ms": o.delayMs = Number(need()); break;
      case "--no-validate": o.validate = false; break;
      case "--context-window": o.contextWindow = Number(need()); break;
      case "--fail-system": o.failSystem = need(); break;
      case "--reject-thinking": o.rejectThinking = need().split(",").filter(Boolean); break;
      case "--host": if (need() !== HOST) throw new Error("mock-llm binds 127.0.0.1 only"); break;
      case "-h": case "--help": console.log(USAGE); process.exit(0); break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) throw new Error("--port must be 0..65535");
  if (o.scriptFile) {
    o.script = JSON.parse(fs.readFileSync(o.scriptFile, "utf8"));
    if (!Array.isArray(o.script)) throw new Error(`${o.scriptFile}: script must be a JSON array`);
  }
  return o;
}

async function main() {
  let o;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`mock-llm: ${e.message}\n${USAGE}\n`);
    process.exit(2);
  }
  const mock = createMockLlm(o);
  const port = await mock.listen(o.port);
  process.stdout.write(`mock-llm listening on http://${HOST}:${port}\n`);
  const stop = () => {
    mock.server.closeAllConnections();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

const invokedDirectly = process.argv[1] && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href;
if (invokedDirectly) {
  main().catch((e) => {
    process.stderr.write(`mock-llm: ${e?.stack ?? e}\n`);
    process.exit(1);
  });
}
