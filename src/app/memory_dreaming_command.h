// `pincer memory promote [--apply] [--limit N]`, `pincer memory promote-explain "…" [--json]`,
// `pincer memory rem-backfill` and
// the dreaming part of `pincer memory status --deep` (SPEC DR-1; docs/memory.md "Dreaming").
// memory_command.cpp parses the flags and picks the agents; these run on the files directly
// (no gateway needed; the promotion lock keeps a CLI promotion and a gateway sweep apart).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::app {

/// One agent: id and workspace.
using DreamingAgent = std::pair<std::string, std::filesystem::path>;

/// Preview (no --apply: nothing is written) or apply (Deep only: gates, re-read, MEMORY.md).
/// `limit` 0 = phases.deep.limit (apply) / all (preview). Exit code: 0, 1 on an error.
int run_memory_promote(const nlohmann::json& config, const std::vector<DreamingAgent>& agents, bool apply, int limit,
                       bool json_out);
/// Why the entries matching `text` would or would not be promoted. 0, or 1 on an error.
int run_memory_promote_explain(const nlohmann::json& config, const std::vector<DreamingAgent>& agents,
                               const std::string& text, bool json_out);
/// `rem-backfill --path P [--stage-short-term]` or `rem-backfill --rollback [--rollback-short-term]`
/// (memory/dreaming/backfill.h). 0, 1 on an error, 2 for flags that do not go together.
int run_memory_rem_backfill(const nlohmann::json& config, const std::vector<DreamingAgent>& agents,
                            const std::string& path, bool stage_short_term, bool rollback, bool rollback_short_term,
                            bool json_out);
/// memory::dreaming::dreaming_status for an agent's workspace under `config`, now.
nlohmann::json dreaming_status_json(const nlohmann::json& config, const std::filesystem::path& workspace);
/// One or two lines for the text form of `status --deep`.
std::string dreaming_status_text(const nlohmann::json& status);

}  // namespace pincer::app
