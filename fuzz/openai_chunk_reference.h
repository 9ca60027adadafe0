// The reference for the Chat Completions chunk scan (src/llm/openai_chunk_scan.h): the fields as
// openai_completions.cpp reads them from a full nlohmann parse. Shared by the differential fuzz
// target (openai_chunk_scan_fuzz.cpp) and the unit test (tests/unit/openai_chunk_scan_test.cpp).
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "llm/openai_chunk_scan.h"
#include "llm/provider.h"

namespace pincer::llm::openai_chunk {

/// The fields of `data` by a full parse; nullopt when it is not JSON or not an object.
inline std::optional<Fields> fields_from_full_parse(std::string_view data) {
  nlohmann::json j = nlohmann::json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  Fields f;
  f.id = wire::str(j, "id");
  if (auto u = j.find("usage"); u != j.end() && u->is_object()) {
    f.has_usage = true;
    f.prompt_tokens = wire::int_at(*u, "prompt_tokens");
    f.completion_tokens = wire::int_at(*u, "completion_tokens");
    if (auto d = u->find("prompt_tokens_details"); d != u->end()) f.cached_tokens = wire::int_at(*d, "cached_tokens");
  }
  auto choices = j.find("choices");
  if (choices != j.end() && choices->is_array() && !choices->empty() && choices->front().is_object()) {
    const nlohmann::json& c = choices->front();
    f.has_choice = true;
    if (auto d = c.find("delta"); d != c.end() && d->is_object()) {
      f.has_delta = true;
      f.reasoning_content = wire::str(*d, "reasoning_content");
      f.reasoning = wire::str(*d, "reasoning");
      f.content = wire::str(*d, "content");
    }
    if (auto r = c.find("finish_reason"); r != c.end() && r->is_string()) f.finish_reason = r->get<std::string>();
  }
  return f;
}

/// Whether two field sets are equal in every member.
inline bool same_fields(const Fields& a, const Fields& b) {
  return a.id == b.id && a.has_usage == b.has_usage && a.prompt_tokens == b.prompt_tokens &&
         a.completion_tokens == b.completion_tokens && a.cached_tokens == b.cached_tokens &&
         a.has_choice == b.has_choice && a.has_delta == b.has_delta && a.reasoning_content == b.reasoning_content &&
         a.reasoning == b.reasoning && a.content == b.content && a.finish_reason == b.finish_reason;
}

}  // namespace pincer::llm::openai_chunk
