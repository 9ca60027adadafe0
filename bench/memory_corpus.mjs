#!/usr/bin/env node
// The memory benchmark's corpus (bench/memory_bench.sh): deterministic Markdown notes for both
// Pincer and OpenClaw, and the queries both answer. Node, no dependencies.
//
//   node bench/memory_corpus.mjs <workspace dir> <chunks> <queries.json>
//
// Writes <workspace>/memory/topic-NNN.md: 100 sections per file, each a heading and ~1 300 bytes
// of pseudo-words (≈ one 400-token chunk each, so <chunks> sections ≈ <chunks> chunks), with a
// fact sentence in every section ("The <thing> of <project> is <value>."). queries.json lists
// queries that name facts of the corpus (a third of them exact, the rest paraphrased).
import fs from "node:fs";
import path from "node:path";

const [dir, chunksArg, queriesFile] = process.argv.slice(2);
if (!dir || !chunksArg || !queriesFile) {
  console.error("usage: node bench/memory_corpus.mjs <workspace dir> <chunks> <queries.json>");
  process.exit(2);
}
const chunks = Number(chunksArg);
let seed = 0x9e3779b9;
const rand = () => {  // xorshift32: the same corpus on every run
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed / 0x100000000;
};
const pick = (a) => a[Math.floor(rand() * a.length)];
const syll = ["ka", "lo", "mi", "ren", "to", "sa", "vel", "dor", "an", "qui", "pe", "zu", "mar", "tin", "ol", "ex", "bri", "nu"];
const word = () => Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(syll)).join("");
const vocab = Array.from({ length: 4000 }, word);
const things = ["deadline", "budget", "owner", "server", "password hint", "meeting room", "launch date", "codename", "vendor", "backup plan"];
const projects = Array.from({ length: 400 }, () => word() + " " + word());
const facts = [];

fs.mkdirSync(path.join(dir, "memory"), { recursive: true });
const perFile = 100;
for (let f = 0; f * perFile < chunks; f++) {
  let md = `# Topic ${f}\n\n`;
  for (let s = 0; s < perFile && f * perFile + s < chunks; s++) {
    const thing = pick(things), project = pick(projects), value = word() + "-" + Math.floor(rand() * 1000);
    facts.push({ thing, project, value });
    md += `## ${project} notes ${s}\n\n`;
    let body = `The ${thing} of ${project} is ${value}. `;
    while (body.length < 1300) {
      const n = 8 + Math.floor(rand() * 10);
      body += Array.from({ length: n }, () => pick(vocab)).join(" ") + ". ";
    }
    md += body.trim().replace(/(.{1,100})(\s|$)/g, "$1\n") + "\n";
  }
  fs.writeFileSync(path.join(dir, "memory", `topic-${String(f).padStart(3, "0")}.md`), md);
}
fs.writeFileSync(path.join(dir, "MEMORY.md"), "# Memory\n\n- The benchmark corpus lives in memory/topic-*.md.\n");

const queries = [];
for (let i = 0; i < 200; i++) {
  const fact = facts[Math.floor(rand() * facts.length)];
  queries.push(i % 3 === 0 ? `${fact.thing} of ${fact.project}` : `what is the ${fact.thing} for ${fact.project.split(" ")[0]}`);
}
fs.writeFileSync(queriesFile, JSON.stringify(queries, null, 1));
console.log(`memory corpus: ${Math.ceil(chunks / perFile)} files, ${chunks} sections, ${queries.length} queries`);
