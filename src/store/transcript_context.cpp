// The context rebuild of transcripts (SS-3): the active branch, pi's buildSessionContext and
// convertToLlm (declared in store/transcript.h).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "store/transcript.h"
#include "store/file_util.h"

namespace pincer::store {
namespace {

// ---------------------------------------------------------------------------------------------
// Context helpers
// ---------------------------------------------------------------------------------------------

bool bool_field(const Json& object, std::string_view key, bool fallback) {
  const Json* value = json_field(object, key);
  return value && value->is_boolean() ? value->get<bool>() : fallback;
}

/// The field's value, or `fallback` when absent.
Json any_field(const Json& object, std::string_view key, Json fallback) {
  const Json* value = json_field(object, key);
  return value ? *value : std::move(fallback);
}

Json timestamp_ms(const TranscriptEntry& entry) { return parse_iso_timestamp(entry.timestamp).value_or(0); }

/// The AgentMessage an entry contributes to the context, or null (pi's appendMessage).
Json context_message(const TranscriptEntry& entry) {
  if (entry.type == "message") {
    const Json* message = json_field(entry.raw, "message");
    return message && message->is_object() ? *message : Json(nullptr);
  }
  if (entry.type == "custom_message") {
    Json message = {{"role", "custom"},
                    {"customType", string_field(entry.raw, "customType")},
                    {"content", any_field(entry.raw, "content", "")},
                    {"display", bool_field(entry.raw, "display", true)},
                    {"timestamp", timestamp_ms(entry)}};
    if (const Json* details = json_field(entry.raw, "details")) message["details"] = *details;
    return message;
  }
  if (entry.type == "branch_summary") {
    const std::string summary = string_field(entry.raw, "summary");
    if (summary.empty()) return nullptr;
    return {{"role", "branchSummary"},
            {"summary", summary},
            {"fromId", string_field(entry.raw, "fromId")},
            {"timestamp", timestamp_ms(entry)}};
  }
  return nullptr;
}

Json compaction_summary_message(const TranscriptEntry& compaction) {
  return {{"role", "compactionSummary"},
          {"summary", string_field(compaction.raw, "summary")},
          {"tokensBefore", any_field(compaction.raw, "tokensBefore", 0)},
          {"timestamp", timestamp_ms(compaction)}};
}

Json user_text(std::string text, const Json& timestamp) {
  return {{"role", "user"},
          {"content", Json::array({{{"type", "text"}, {"text", std::move(text)}}})},
          {"timestamp", timestamp}};
}

std::string bash_execution_text(const Json& m) {
  std::string text = "Ran `" + string_field(m, "command") + "`\n";
  const std::string output = string_field(m, "output");
  text += output.empty() ? "(no output)" : "```\n" + output + "\n```";
  const Json* exit_code = json_field(m, "exitCode");
  if (bool_field(m, "cancelled", false)) {
    text += "\n\n(command cancelled)";
  } else if (exit_code && exit_code->is_number() && exit_code->get<double>() != 0) {
    text += "\n\nCommand exited with code " + dump_lenient(*exit_code);
  }
  const std::string full_output = string_field(m, "fullOutputPath");
  if (bool_field(m, "truncated", false) && !full_output.empty()) {
    text += "\n\n[Output truncated. Full output: " + full_output + "]";
  }
  return text;
}

}  // namespace

// =============================================================================================
// Context rebuild
// =============================================================================================

std::vector<const TranscriptEntry*> active_branch(const std::vector<TranscriptEntry>& entries,
                                                  std::optional<std::string_view> leaf_id) {
  if (entries.empty()) return {};
  std::unordered_map<std::string_view, const TranscriptEntry*> by_id;  // later duplicates win
  for (const auto& entry : entries) by_id[entry.id] = &entry;

  const TranscriptEntry* current = &entries.back();
  if (leaf_id) {
    if (auto it = by_id.find(*leaf_id); it != by_id.end()) current = it->second;
  }
  std::vector<const TranscriptEntry*> path;
  std::unordered_set<const TranscriptEntry*> visited;  // a corrupt file may contain a cycle
  while (current != nullptr && visited.insert(current).second) {
    path.push_back(current);
    if (!current->parent_id) break;
    auto parent = by_id.find(*current->parent_id);
    current = parent == by_id.end() ? nullptr : parent->second;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

SessionContext build_context(const std::vector<TranscriptEntry>& entries, std::optional<std::string_view> leaf_id) {
  SessionContext context;
  const auto path = active_branch(entries, leaf_id);
  if (path.empty()) return context;
  context.leaf_id = path.back()->id;

  std::optional<std::size_t> compaction;  // index into path of the latest compaction
  for (std::size_t i = 0; i < path.size(); ++i) {
    const TranscriptEntry& entry = *path[i];
    if (entry.type == "thinking_level_change") {
      context.thinking_level = string_field(entry.raw, "thinkingLevel");
    } else if (entry.type == "model_change") {
      context.provider = string_field(entry.raw, "provider");
      context.model_id = string_field(entry.raw, "modelId");
    } else if (const Json* message = json_field(entry.raw, "message");
               entry.type == "message" && message && string_field(*message, "role") == "assistant") {
      context.provider = string_field(*message, "provider");
      context.model_id = string_field(*message, "model");
    } else if (entry.type == "compaction") {
      compaction = i;
    }
  }

  auto append = [&](const TranscriptEntry& entry) {
    if (Json message = context_message(entry); !message.is_null()) {
      context.messages.push_back(std::move(message));
      context.entry_ids.push_back(entry.id);
    }
  };
  if (!compaction) {
    for (const auto* entry : path) append(*entry);
    return context;
  }
  const TranscriptEntry& summary = *path[*compaction];
  context.messages.push_back(compaction_summary_message(summary));
  context.entry_ids.emplace_back();
  const std::string first_kept = string_field(summary.raw, "firstKeptEntryId");
  bool keeping = false;
  for (std::size_t i = 0; i < *compaction; ++i) {
    keeping = keeping || path[i]->id == first_kept;
    if (keeping) append(*path[i]);
  }
  context.live_from = context.messages.size();
  for (std::size_t i = *compaction + 1; i < path.size(); ++i) append(*path[i]);
  return context;
}

bool extend_context(SessionContext& context, const std::vector<TranscriptEntry>& entries, std::size_t first_new) {
  // The new entries must continue the active branch from its leaf, one after the other, and not
  // compact it (a compaction reorders what the context holds): then the fold of build_context
  // over them gives what a rebuild would.
  std::string_view parent = context.leaf_id;
  for (std::size_t i = first_new; i < entries.size(); ++i) {
    const TranscriptEntry& entry = entries[i];
    const bool chained = parent.empty() ? !entry.parent_id : entry.parent_id && *entry.parent_id == parent;
    if (!chained || entry.type == "compaction") return false;
    parent = entry.id;
  }
  for (std::size_t i = first_new; i < entries.size(); ++i) {
    const TranscriptEntry& entry = entries[i];
    if (entry.type == "thinking_level_change") {
      context.thinking_level = string_field(entry.raw, "thinkingLevel");
    } else if (entry.type == "model_change") {
      context.provider = string_field(entry.raw, "provider");
      context.model_id = string_field(entry.raw, "modelId");
    } else if (const Json* message = json_field(entry.raw, "message");
               entry.type == "message" && message && string_field(*message, "role") == "assistant") {
      context.provider = string_field(*message, "provider");
      context.model_id = string_field(*message, "model");
    }
    if (Json message = context_message(entry); !message.is_null()) {
      context.messages.push_back(std::move(message));
      context.entry_ids.push_back(entry.id);
    }
    context.leaf_id = entry.id;
  }
  return true;
}

std::vector<Json> to_llm_messages(const std::vector<Json>& agent_messages) {
  static constexpr std::string_view kCompactionPrefix =
      "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
  static constexpr std::string_view kCompactionSuffix = "\n</summary>";
  static constexpr std::string_view kBranchPrefix =
      "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
  static constexpr std::string_view kBranchSuffix = "</summary>";

  std::vector<Json> out;
  for (const Json& m : agent_messages) {
    if (!m.is_object()) continue;
    const std::string role = string_field(m, "role");
    const Json timestamp = any_field(m, "timestamp", 0);
    if (role == "user" || role == "assistant" || role == "toolResult") {
      out.push_back(m);
    } else if (role == "compactionSummary") {
      out.push_back(user_text(std::string(kCompactionPrefix) + string_field(m, "summary") +
                                  std::string(kCompactionSuffix), timestamp));
    } else if (role == "branchSummary") {
      out.push_back(user_text(std::string(kBranchPrefix) + string_field(m, "summary") + std::string(kBranchSuffix),
                              timestamp));
    } else if (role == "custom") {
      const Json content = any_field(m, "content", "");
      Json blocks = content.is_string()
                        ? Json::array({{{"type", "text"}, {"text", content}}})
                        : content;
      out.push_back({{"role", "user"}, {"content", std::move(blocks)}, {"timestamp", timestamp}});
    } else if (role == "bashExecution" && !bool_field(m, "excludeFromContext", false)) {
      out.push_back(user_text(bash_execution_text(m), timestamp));
    }
  }
  return out;
}

}  // namespace pincer::store
