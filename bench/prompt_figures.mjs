#!/usr/bin/env node
// The prompt figures of `make bench` (issue #12 item 9, SPEC CX-3/CX-4): from the chat completion
// requests a gateway sent the mock LLM during the single-session turn series (the mock's --bodies
// file), how large the fixed part of every call is, how many prompt tokens the conversation cost,
// and how much of each request repeats the previous one's prefix — what a provider's prompt cache
// can reuse. Merges {prompt: …} into the gateway's results JSON.
//
//   node bench/prompt_figures.mjs <bodies.jsonl> <results.json>
//
// Tokens are estimated as characters / 4 (SPEC CX-5's estimator, without its 1.2 safety margin),
// the same for both gateways. A request is rendered as providers lay a prompt out — the tool
// schemas, then each message in order — and the prefix share of request i is the length of its
// longest common prefix with request i-1, over its own length.
import fs from "node:fs";

const [bodiesFile, resultsFile] = process.argv.slice(2);
if (!bodiesFile || !resultsFile) {
  console.error("usage: node bench/prompt_figures.mjs <bodies.jsonl> <results.json>");
  process.exit(2);
}
const userText = (m) =>
  typeof m.content === "string" ? m.content : (m.content || []).map((b) => b.text || "").join("");
// The bench replays the last request of the series to time the mock alone: those byte-identical
// copies are left out (a gateway never sends the same request twice in a growing session).
const seen = new Set();
const series = fs
  .readFileSync(bodiesFile, "utf8")
  .split("\n")
  .filter((line) => line && !seen.has(line) && seen.add(line))
  .map((line) => JSON.parse(line))
  .filter((b) => {
    const users = (b.messages || []).filter((m) => m.role === "user").map(userText);
    // The single-session series ("bench turn i ECHO:ti", inside whatever envelope the gateway
    // adds; OpenClaw appends a context message after it); not the parallel run ("bench session …").
    return users.some((t) => /bench turn \d+ ECHO:t\d+/.test(t)) && !users.some((t) => /bench session \d+ turn/.test(t));
  });
const render = (b) => [JSON.stringify(b.tools || []), ...(b.messages || []).map((m) => JSON.stringify(m))].join("\n");
const tokens = (chars) => Math.round(chars / 4);
const prompt = { requests: series.length };
if (series.length > 0) {
  const first = series[0];
  const system = (first.messages || []).filter((m) => m.role === "system" || m.role === "developer");
  const systemChars = system.reduce((n, m) => n + userText(m).length, 0);
  const toolChars = JSON.stringify(first.tools || []).length;
  prompt.fixed_tokens = tokens(systemChars + toolChars);
  prompt.system_tokens = tokens(systemChars);
  prompt.tool_tokens = tokens(toolChars);
  prompt.tools = (first.tools || []).length;
  const rendered = series.map(render);
  prompt.total_tokens = tokens(rendered.reduce((n, r) => n + r.length, 0));
  const shares = [];
  for (let i = 1; i < rendered.length; i++) {
    const a = rendered[i - 1], b = rendered[i];
    let k = 0;
    while (k < a.length && k < b.length && a.charCodeAt(k) === b.charCodeAt(k)) k++;
    shares.push(k / b.length);
  }
  if (shares.length > 0) {
    prompt.prefix_share_mean = shares.reduce((x, y) => x + y, 0) / shares.length;
    prompt.prefix_share_min = Math.min(...shares);
  }
}
const results = JSON.parse(fs.readFileSync(resultsFile, "utf8"));
results.prompt = prompt;
fs.writeFileSync(resultsFile, JSON.stringify(results, null, 2) + "\n");
console.log(`prompt figures (${resultsFile}): ${JSON.stringify(prompt)}`);
