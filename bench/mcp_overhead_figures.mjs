#!/usr/bin/env node
// The figures of bench/mcp_overhead_bench.sh: for every run (one gateway, one MCP setup, one chat
// turn), the fixed prompt of the first model request that carries the run's probe message — the
// system prompt + the tool schemas, tokens ≈ chars / 4, counted exactly as bench/prompt_figures.mjs
// counts them for `make bench` — and the MCP overhead: that figure minus the same gateway's and
// mode's figure with no MCP server. Writes the JSON and prints (or writes) the Markdown section.
//
//   node bench/mcp_overhead_figures.mjs <runs.tsv> <out.json> [--md docs/benchmarks.md] [--meta meta.json]
//
// runs.tsv: one line per run: side \t mode \t servers \t probe text \t bodies.jsonl \t status
import fs from "node:fs";

const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const [runsFile, outFile] = argv;
if (!runsFile || !outFile) {
  console.error("usage: node bench/mcp_overhead_figures.mjs <runs.tsv> <out.json> [--md file] [--meta meta.json]");
  process.exit(2);
}
const meta = opt("meta") ? JSON.parse(fs.readFileSync(opt("meta"), "utf8")) : {};

// bench/prompt_figures.mjs's estimator, the same lines
const userText = (m) =>
  typeof m.content === "string" ? m.content : (m.content || []).map((b) => b.text || "").join("");
const tokens = (chars) => Math.round(chars / 4);

function figures(bodiesFile, probe) {
  let lines = [];
  try {
    lines = fs.readFileSync(bodiesFile, "utf8").split("\n").filter(Boolean);
  } catch {
    return null;
  }
  const first = lines
    .map((l) => JSON.parse(l))
    .find((b) => (b.messages || []).some((m) => m.role === "user" && userText(m).includes(probe)));
  if (!first) return null;
  const system = (first.messages || []).filter((m) => m.role === "system" || m.role === "developer");
  const systemChars = system.reduce((n, m) => n + userText(m).length, 0);
  const tools = first.tools || [];
  const toolChars = JSON.stringify(tools).length;
  const names = tools.map((t) => t.function?.name ?? t.name ?? "?");
  // MCP tools the model can see by name: `<server>__<tool>` anywhere in the system prompt or the schemas
  // (a schema of its own, or a line of a tool-search catalogue)
  const text = system.map(userText).join("\n") + JSON.stringify(tools);
  const named = new Set(text.match(/\b(?:everything|files|memory)__[A-Za-z0-9_-]+/g) || []);
  return {
    fixed_tokens: tokens(systemChars + toolChars),
    system_tokens: tokens(systemChars),
    tool_tokens: tokens(toolChars),
    tools: tools.length,
    mcp_tools: names.filter((n) => n.includes("__")).length,
    mcp_names_in_prompt: named.size,
    tool_names: names,
    model_requests: lines.length,
  };
}

const runs = fs
  .readFileSync(runsFile, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => {
    const [side, mode, servers, probe, bodies, status] = line.split("\t");
    const f = status === "ok" ? figures(bodies, probe) : null;
    return { side, mode, servers: Number(servers), status: f || status !== "ok" ? status : "no model request with the probe", ...(f || {}) };
  });
for (const r of runs) {
  const base = runs.find((b) => b.side === r.side && b.mode === r.mode && b.servers === 0);
  if (base && typeof base.fixed_tokens === "number" && typeof r.fixed_tokens === "number") {
    r.overhead_tokens = r.fixed_tokens - base.fixed_tokens;
  }
}
fs.writeFileSync(outFile, JSON.stringify({ ...meta, runs }, null, 2) + "\n");

// ---- the Markdown section
const num = (x) => (typeof x === "number" ? x.toLocaleString("en-US").replace(/,/g, " ") : "–");
const get = (side, mode, n) => runs.find((r) => r.side === side && r.mode === mode && r.servers === n);
const cell = (r) => {
  if (!r) return "not run";
  if (typeof r.fixed_tokens !== "number") return `not measured: ${r.status}`;
  return `${num(r.fixed_tokens)} (+${num(r.overhead_tokens)}); ${r.tools} tools, ${r.mcp_tools} MCP; ${r.mcp_names_in_prompt} named`;
};
const ratio = (p, o) =>
  p && o && typeof p.overhead_tokens === "number" && typeof o.overhead_tokens === "number" && p.overhead_tokens > 0
    ? o.overhead_tokens >= p.overhead_tokens
      ? `${(o.overhead_tokens / p.overhead_tokens).toFixed(2)}×`
      : `${Number((o.overhead_tokens / p.overhead_tokens).toPrecision(2))}× (OpenClaw adds less)`
    : "–";
const ratioFixed = (p, o) =>
  p && o && typeof p.fixed_tokens === "number" && typeof o.fixed_tokens === "number" && p.fixed_tokens > 0
    ? `${(o.fixed_tokens / p.fixed_tokens).toFixed(2)}×`
    : "–";
const serverLabel = { 0: "0", 1: "1 (everything)", 3: "3 (everything, filesystem, memory)" };
const pairs = [
  ["every schema", "schemas", "Pincer `mcp.eagerToolLimit: 1000`", "schemas", "OpenClaw `tools.toolSearch: false`"],
  ["default settings", "default", "Pincer (`mcp.eagerToolLimit` unset: 32)", "default", "OpenClaw (`tools.toolSearch` unset)"],
  ["tool search only", "search", "Pincer `mcp.eagerToolLimit: 0`", "search", "OpenClaw `tools.toolSearch: true`"],
];
let md = `<!-- mcp-overhead-bench:start -->
## MCP tools: fixed prompt overhead

Measured by \`bench/mcp_overhead_bench.sh\` on **${meta.date ?? "?"}** (Pincer ${meta.pincer_version ?? "?"}, OpenClaw ${meta.openclaw_version ?? "?"};
load average before ${meta.load_before ?? "?"}, after ${meta.load_after ?? "?"}; ${meta.cpus ?? "?"} CPUs). Command:

\`\`\`bash
${meta.command ?? "bench/mcp_overhead_bench.sh"}
\`\`\`

Each gateway was started once per cell with a fresh state directory, the reference mock LLM
(\`bench/reference/mock-llm.mjs --bodies\`) as its model provider, the OpenAI-compatible endpoint on,
and 0, 1 or 3 of the reference MCP servers of npm's \`@modelcontextprotocol\` (${meta.mcp_versions ?? "?"}, as
pinned in \`tests/mcp_client/package.json\`) under \`mcp.servers\`, the configuration key both gateways read:
the same stdio commands and server names (\`everything\`, \`files\`, \`memory\`) for both. One chat turn was sent through \`POST /v1/chat/completions\`; the figure is the fixed
part of the first model request of that turn — system prompt + tool schemas, tokens ≈ characters / 4,
the estimator of \`bench/prompt_figures.mjs\` — and, in parentheses, what the MCP servers add to it
(the same gateway and setting with 0 servers subtracted). "MCP" counts the tool schemas named
\`<server>__<tool>\`; "named" counts the distinct MCP tool names that appear anywhere in that fixed
prompt (as a schema or as a line of a tool-search catalogue): what the model can see it may call.
The ratios are OpenClaw's figure over Pincer's (above 1: Pincer sends less). The token counts do not
depend on the machine's load (the load average is given for completeness).

What the settings do: Pincer's \`tools.toolSearch\` (default on; off in the "schemas" setting) offers its
rarely used built-in tools (web, cron, skill_manage, the session tools, subagents) through one
\`tool_search\` tool whose description is a catalogue of one line per tool, keeping the file, shell and
memory tools' schemas; \`mcp.eagerToolLimit\` (default 32) adds the MCP tools to that catalogue once
there are more of them than the limit. OpenClaw's \`tools.toolSearch\` (unset:
structured tool search in embedded runs) defers most of its own tools *and* every MCP tool behind
\`tool_search\`/\`tool_describe\`/\`tool_call\`; the MCP tools' names and descriptions are not put in the
prompt (OpenClaw's docs/tools/tool-search.md: they are untrusted): its directory only says how many tools
it left out ("16 additional tools omitted." with \`everything\`), so the model learns of an MCP tool only
by searching. \`true\` selects its \`tool_search_code\` variant. OpenClaw also adds
\`resources_list\`/\`resources_read\`/\`prompts_list\`/\`prompts_get\` tools for servers that offer resources
or prompts (16 tools for \`everything\` where Pincer offers its 13 tools).

These are not the figures of the MCP client section of docs/interop.md: those are Pincer's own context
estimate (characters / 4 × 1.2) of the MCP tool definitions alone; here one estimator, without margin, is
applied to the whole fixed prompt of both gateways and the 0-server prompt is subtracted.
`;
for (const [title, pMode, pLabel, oMode, oLabel] of pairs) {
  if (!runs.some((r) => r.mode === pMode || r.mode === oMode)) continue;
  md += `\n**${title}** — ${pLabel} vs ${oLabel}:\n\n| MCP servers | Pincer: fixed prompt (MCP overhead) | OpenClaw: fixed prompt (MCP overhead) | OpenClaw / Pincer, overhead | OpenClaw / Pincer, fixed prompt |\n| --- | ---: | ---: | ---: | ---: |\n`;
  for (const n of [0, 1, 3]) {
    const p = get("pincer", pMode, n), o = get("openclaw", oMode, n);
    if (!p && !o) continue;
    md += `| ${serverLabel[n] ?? n} | ${cell(p)} | ${cell(o)} | ${n === 0 ? "–" : ratio(p, o)} | ${ratioFixed(p, o)} |\n`;
  }
}
if (meta.notes) md += `\n${meta.notes}\n`;
md += `\nRaw figures (tool names, system/schema split): \`bench/.cache/results/mcp_overhead.json\`.\n<!-- mcp-overhead-bench:end -->\n`;

const mdFile = opt("md");
if (mdFile) {
  let old = "";
  try {
    old = fs.readFileSync(mdFile, "utf8");
  } catch {}
  const start = "<!-- mcp-overhead-bench:start -->", end = "<!-- mcp-overhead-bench:end -->";
  const a = old.indexOf(start), b = old.indexOf(end);
  const next = a >= 0 && b > a ? old.slice(0, a) + md.trimEnd() + old.slice(b + end.length) : old.trimEnd() + "\n\n" + md;
  fs.writeFileSync(mdFile, next);
  console.log(`wrote the "MCP tools: fixed prompt overhead" section of ${mdFile}`);
}
console.log(md);
