#include "core/config_schema_memory.h"

namespace pincer::config::schema {

Node memory_search_node(bool per_agent) {
  // memory.search carries the defaults (with_defaults fills them in, `config get` shows them); an
  // agent's override must not, or its defaults would hide memory.search when they are merged.
  // The values are MemorySettings' (memory/memory_config.h; memory_test checks they agree).
  auto dflt = [per_agent](Node node, nlohmann::json value) {
    if (!per_agent) return std::move(node).def(std::move(value));
    return std::move(node).default_note("as `memory.search`");
  };
  return object({
      field("enabled", dflt(boolean(), true).doc("Index and search this memory (`false`: no memory tools).")),
      field("provider", dflt(one_of({"none", "auto", "openai", "openai-compatible", "ollama", "gemini"}), "none")
                            .doc("Embedding provider for vector search: `openai` / `openai-compatible` "
                                 "(`POST {baseUrl}/embeddings`), `ollama` (`POST {baseUrl}/api/embed`), "
                                 "`gemini`, or `none` (keyword search only; `auto` = `none`). Changing it "
                                 "rebuilds the index (keyword search keeps working meanwhile).")),
      field("model", string().doc("Embedding model; default per provider (`text-embedding-3-small`, "
                                  "`nomic-embed-text`, `gemini-embedding-001`). Changing it rebuilds the index.")),
      field("remote", object({
                          field("baseUrl", string().doc("Base URL of the embeddings API (e.g. "
                                                        "`http://127.0.0.1:11434` for Ollama, "
                                                        "`https://api.openai.com/v1`).")),
                          field("apiKey", string().sensitive().doc(
                                              "API key; default `OPENAI_API_KEY` / `GEMINI_API_KEY` from the "
                                              "environment.")),
                          field("headers", map_of(string().sensitive()).doc("Extra request headers.")),
                          field("timeoutMs", dflt(integer().min(100).max(600000), 30000).doc(
                                                 "Longest one indexing embeddings request may take, ms.")),
                          field("batch", object({
                                             field("size", dflt(integer().min(1).max(2048), 64).doc(
                                                               "Texts per embeddings request.")),
                                         }).doc("Batching of indexing requests.")),
                      }).doc("Where the embedding provider is and how to call it.")),
      field("sources", array_of(one_of({"memory", "sessions"})).default_note("`[\"memory\"]`").doc(
                           "What is indexed and searched: `memory` (the Markdown files) and `sessions` "
                           "(past session transcripts as `User:`/`Assistant:` lines; needs "
                           "`experimental.sessionMemory`). `memory_search` with `corpus` picks one.")),
      field("experimental", object({
                                field("sessionMemory", dflt(boolean(), false).doc(
                                                           "Index the agent's session transcripts (only new "
                                                           "lines are read) when `sources` has `sessions`; "
                                                           "hits name the session key and turn.")),
                            }).doc("Experimental memory features (OpenClaw's names).")),
      field("extraPaths", array_of(string()).doc(
                              "More Markdown files or folders to index, besides MEMORY.md, USER.md and "
                              "memory/**/*.md. Relative paths are relative to the agent's workspace.")),
      field("chunking", object({
                            field("tokens", dflt(integer().min(16).max(8192), 400).doc(
                                                "Chunk size in tokens (≈4 bytes each).")),
                            field("overlap", dflt(integer().min(0).max(4096), 80).doc(
                                                 "Tokens repeated between consecutive chunks.")),
                        }).doc("How files are cut for the index (changing it rebuilds the index).")),
      field("query",
            object({
                field("maxResults", dflt(integer().min(1).max(100), 6).doc("Hits returned by default.")),
                field("minScore", dflt(number().min(0).max(1), 0.35).doc(
                                      "Lowest score (before temporal decay) a hit needs.")),
                field("timeoutMs", dflt(integer().min(50).max(120000), 3000).doc(
                                       "A search never waits longer for the embedding provider: past it, the "
                                       "keyword hits come back labelled `partial`.")),
                field("hybrid",
                      object({
                          field("vectorWeight", dflt(number().min(0).max(1), 0.7).doc("Weight of vector similarity.")),
                          field("textWeight", dflt(number().min(0).max(1), 0.3).doc("Weight of normalised BM25.")),
                          field("candidateMultiplier", dflt(integer().min(1).max(20), 4).doc(
                                                           "Candidates per side = maxResults × this.")),
                          field("mmr", object({
                                           field("enabled", dflt(boolean(), true).doc("MMR re-ranking.")),
                                           field("lambda", dflt(number().min(0).max(1), 0.7).doc(
                                                               "Relevance vs. diversity.")),
                                       }).doc("Maximal marginal relevance: fewer near-duplicate hits.")),
                          field("temporalDecay",
                                object({
                                    field("enabled", dflt(boolean(), true).doc("Older dated notes rank lower.")),
                                    field("halfLifeDays", dflt(number().min(1).max(36500), 30).doc(
                                                              "Half-life of dated notes (memory/YYYY-MM-DD*.md); "
                                                              "MEMORY.md and undated files never decay, and decay "
                                                              "never takes a score below half.")),
                                }).doc("Temporal decay (MM-5).")),
                      }).doc("Hybrid ranking (MM-5).")),
            }).doc("Search defaults.")),
      field("sync", object({
                        field("watch", dflt(boolean(), true).doc(
                                           "Re-index changed files while the gateway runs (inotify).")),
                        field("watchDebounceMs", dflt(integer().min(50).max(600000), 1500).doc(
                                                     "Quiet time after a change before re-indexing, ms.")),
                    }).doc("Keeping the index fresh.")),
      field("store", object({
                         field("path", string().default_note("`<state dir>/memory/{agentId}.sqlite`").doc(
                                           "Index file; `{agentId}` is replaced by the agent's id.")),
                     }).doc("Where the index lives.")),
  }).doc(per_agent ? "This agent's memory search settings, merged over `memory.search`."
                   : "Memory search (MM-4, MM-5) of every agent; `agents.list[].memory.search` overrides per agent.");
}

Node memory_section() {
  return object({
      field("backend", one_of({"builtin", "none"}).def("builtin").doc(
                           "`builtin`: the SQLite index of each agent's Markdown memory; `none`: no memory "
                           "tools (MEMORY.md is still injected).")),
      field("citations", one_of({"auto", "on", "off"}).def("auto").doc(
                             "`auto`/`on`: hits carry `citation` (`path#Lx-Ly`) and the prompt asks the "
                             "agent to cite; `off`: no citations.")),
      field("search", memory_search_node(false)),
      field("capture",
            object({
                field("enabled", boolean().def(true).doc(
                                     "Auto-capture (MM-3): a user message with a trigger (remember, 记住, "
                                     "prefer, like, 决定, important, \"my X is\", a phone number, an e-mail "
                                     "…) becomes a line in today's `memory/YYYY-MM-DD.md`, with its category; "
                                     "prompt-injection payloads and agent-written text are skipped.")),
                field("maxChars", integer().min(11).max(kMaxCount).def(500).doc(
                                      "Longer messages are not captured (characters).")),
            }).doc("Automatic capture of user messages into daily notes (docs/memory.md).")),
      field("archive",
            object({
                field("enabled", boolean().def(true).doc(
                                     "When a session ends by `/new`, `/reset`, `sessions.reset` or an automatic "
                                     "reset, write `memory/YYYY-MM-DD-{slug}.md`: the last messages at once, "
                                     "replaced by the agent model's summary when it answers (MM-9).")),
            }).doc("The archive of ended sessions into memory (docs/memory.md).")),
  }).doc("Agent memory: Markdown files as the truth, a per-agent index beside them (docs/memory.md).");
}

Node memory_flush_node() {
  return object({
      field("enabled", boolean().default_note("`true`").doc(
                           "Before a session is compacted, run a silent turn that asks the agent to write "
                           "durable notes to today's `memory/YYYY-MM-DD.md` (CX-10); its answer (usually "
                           "`NO_REPLY`) reaches no client or channel.")),
      field("softThresholdTokens", integer().min(0).max(kMaxCount).default_note("4000").doc(
                                       "The flush runs once the next request's estimate is within this many "
                                       "tokens of the compaction point (the prompt budget); at most half the "
                                       "budget in small windows. Once per compaction.")),
      field("prompt", string().default_note("OpenClaw's flush prompt").doc(
                          "The flush turn's message; `YYYY-MM-DD` becomes today's date. The target-file, "
                          "append-only, read-only and `NO_REPLY` hints are added when missing.")),
      field("systemPrompt", string().default_note("OpenClaw's flush system prompt").doc(
                                "Added to the system prompt of the flush turn (same rules as `prompt`).")),
  }).doc("The pre-compaction memory flush (docs/memory.md).");
}

Node startup_context_node() {
  return object({
      field("enabled", boolean().def(true).doc(
                           "Quote the recent daily notes in a new session's first turn (CX-2).")),
      field("dailyMemoryDays", integer().min(1).max(14).def(2).doc(
                                   "Days of `memory/YYYY-MM-DD.md` loaded, counting back from today in "
                                   "`userTimezone` (2 = today and yesterday).")),
      field("maxFileBytes", integer().min(1).max(65536).def(16384).doc(
                                "A daily note larger than this (bytes) is skipped.")),
      field("maxFileChars", integer().min(1).max(10000).def(1200).doc(
                                "Characters kept of each note.")),
      field("maxTotalChars", integer().min(1).max(50000).def(2800).doc(
                                 "Characters of all quoted notes together.")),
  }).doc("Today's and yesterday's daily notes (and their `/new` archives) quoted as untrusted background in "
         "the first turn of each new session, recorded in its transcript so the prompt stays byte-stable "
         "(OpenClaw's startup context; docs/memory.md).");
}

}  // namespace pincer::config::schema
