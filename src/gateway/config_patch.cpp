#include "gateway/config_patch.h"

#include <algorithm>

#include "core/config.h"
#include "core/ids.h"
#include "core/json5.h"
#include "core/json5_edit.h"

namespace pincer::gateway {

using nlohmann::json;

namespace detail_config_patch {

bool is_placeholder(const json& v) {
  return v.is_string() && (v.get_ref<const std::string&>() == config::kRedacted ||
                           v.get_ref<const std::string&>() == kOpenClawRedacted);
}

Status restore(json& value, const json* original, json5::Path& path) {
  if (is_placeholder(value)) {
    if (!original || is_placeholder(*original)) {
      return Error{"INVALID_REQUEST", json5::format_path(path) +
                                          ": a redacted value was sent back, but the config file has no value there to keep "
                                          "(send the real value)"};
    }
    value = *original;
    return Ok{};
  }
  if (value.is_object()) {
    for (auto& [key, member] : value.items()) {
      const json* orig = original && original->is_object() && original->contains(key) ? &(*original)[key] : nullptr;
      path.emplace_back(key);
      auto st = restore(member, orig, path);
      path.pop_back();
      if (!st) return st;
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      const json* orig = original && original->is_array() && i < original->size() ? &(*original)[i] : nullptr;
      path.emplace_back(i);
      auto st = restore(value[i], orig, path);
      path.pop_back();
      if (!st) return st;
    }
  }
  return Ok{};
}

bool has_string_id(const json& v) { return v.is_object() && v.contains("id") && v["id"].is_string(); }

/// OpenClaw's id-keyed array merge: when every entry of `base` is an object with a string `id`,
/// patch entries with an id merge into the entry of that id (or append), others append. nullopt
/// when `base` is not id-keyed (the patch array then replaces it).
std::optional<json> merge_by_id(const json& base, const json& patch) {
  for (const auto& entry : base) {
    if (!has_string_id(entry)) return std::nullopt;
  }
  json merged = base;
  for (const auto& entry : patch) {
    if (!has_string_id(entry)) {
      merged.push_back(entry);
      continue;
    }
    bool found = false;
    for (auto& existing : merged) {
      if (has_string_id(existing) && existing["id"] == entry["id"]) {
        existing = merge_patch(std::move(existing), entry);
        found = true;
        break;
      }
    }
    if (!found) merged.push_back(entry);
  }
  return merged;
}

Status patch_text(std::string& text, const json& patch, const json* current, json5::Path& path,
                  const std::vector<std::string>& replace_paths, std::vector<std::string>& changed) {
  for (const auto& [key, value] : patch.items()) {
    const json* cur = current && current->is_object() && current->contains(key) ? &(*current)[key] : nullptr;
    path.emplace_back(key);
    if (value.is_null()) {
      if (cur) {
        auto next = json5::unset(text, path);
        if (!next) return next.error();
        text = std::move(*next);
        changed.push_back(json5::format_path(path));
      }
    } else if (value.is_object() && cur && cur->is_object()) {
      auto st = patch_text(text, value, cur, path, replace_paths, changed);
      if (!st) return st;
    } else {
      // A patch object over a non-object replaces it, without the patch's nulls (RFC 7386); an
      // array over an id-keyed array merges by id unless its path is in replacePaths.
      json next_value = value.is_object() ? merge_patch(json::object(), value) : value;
      const std::string dotted = json5::format_path(path);
      if (value.is_array() && cur && cur->is_array() &&
          std::find(replace_paths.begin(), replace_paths.end(), dotted) == replace_paths.end()) {
        if (auto merged = merge_by_id(*cur, value)) next_value = std::move(*merged);
      }
      if (!cur || !json5::same_json(*cur, next_value)) {
        auto next = json5::set(text, path, next_value);
        if (!next) return next.error();
        text = std::move(*next);
        changed.push_back(dotted);
      }
    }
    path.pop_back();
  }
  return Ok{};
}

}  // namespace detail_config_patch

json merge_patch(json target, const json& patch) {
  if (!patch.is_object()) return patch;
  if (!target.is_object()) target = json::object();
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      target.erase(key);
    } else {
      target[key] = merge_patch(target.contains(key) ? std::move(target[key]) : json(), value);
    }
  }
  return target;
}

Result<json> restore_redacted(const json& submitted, const json& original) {
  json out = submitted;
  json5::Path path;
  auto st = detail_config_patch::restore(out, &original, path);
  if (!st) return st.error();
  return out;
}

Result<std::string> apply_merge_patch_text(std::string_view text, const json& patch,
                                           const std::vector<std::string>& replace_paths, std::vector<std::string>& changed) {
  std::string out(text.empty() ? std::string_view("{}\n") : text);
  auto doc = json5::parse(out);
  if (!doc) return doc.error();
  if (!doc->is_object()) return Error{"INVALID_REQUEST", "the config file is not an object"};
  if (!patch.is_object()) return Error{"INVALID_REQUEST", "the patch must be an object"};
  json5::Path path;
  auto st = detail_config_patch::patch_text(out, patch, &*doc, path, replace_paths, changed);
  if (!st) return st.error();
  return out;
}

Result<json> parse_config_raw(std::string_view raw, std::string_view method) {
  auto doc = json5::parse(raw, "raw");
  if (!doc) return Error{"JSON5_PARSE", std::string(method) + ": raw: " + doc.error().message};
  if (!doc->is_object()) return Error{"INVALID_REQUEST", std::string(method) + " raw must be an object"};
  return std::move(*doc);
}

std::optional<Error> check_base_hash(bool exists, std::string_view current_text, const std::optional<std::string>& base_hash) {
  if (!exists) return std::nullopt;
  if (!base_hash || base_hash->empty()) {
    return Error{"BASE_HASH_REQUIRED", "config base hash required; re-run config.get and retry"};
  }
  if (*base_hash != ids::sha256_hex(current_text)) {
    return Error{"CONFLICT", "config changed since last load; re-run config.get and retry"};
  }
  return std::nullopt;
}

}  // namespace pincer::gateway
