// The pure part of the config write methods (GW-7 config.set / config.patch / config.apply, in
// OpenClaw's semantics; openclaw-protocol.md §2.1 "Config"):
//
//   * an RFC 7386 merge patch applied to the JSON5 text of pincer.json leaf by leaf through
//     json5_edit, so the user's comments and formatting outside the changed values survive
//     (objects merge, arrays and scalars replace, null deletes);
//   * values a client got redacted from config.get (config::kRedacted, or OpenClaw's
//     "__OPENCLAW_REDACTED__") put back from the file before anything is written, so a UI that
//     sends the config it was shown does not overwrite a secret with the placeholder;
//   * the baseHash rule: when the file exists the write must name the SHA-256 (hex) of the text it
//     was based on.
//
// Errors (Error::code; messages name the path): "JSON5_PARSE" (raw is not JSON5),
// "INVALID_REQUEST" (raw is not an object; a redacted value with no original), "CONFLICT"
// (baseHash stale), "BASE_HASH_REQUIRED", json5_edit's codes for an edit that cannot be made.
// Pure functions; any thread; never throw.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::gateway {

/// OpenClaw's redaction placeholder (its clients may send it back).
inline constexpr const char* kOpenClawRedacted = "__OPENCLAW_REDACTED__";

/// `target` with `patch` merged (RFC 7386): object members merge recursively, null removes,
/// anything else (arrays included) replaces. A non-object patch replaces the target.
nlohmann::json merge_patch(nlohmann::json target, const nlohmann::json& patch);

/// `submitted` with every redaction placeholder replaced by the value at the same path in
/// `original` (the file's document). INVALID_REQUEST naming the path when `original` has nothing
/// there (a secret cannot be invented from its placeholder).
Result<nlohmann::json> restore_redacted(const nlohmann::json& submitted, const nlohmann::json& original);

/// Applies the merge patch `patch` (an object) to the JSON5 `text`, one json5_edit per changed
/// leaf. As OpenClaw's config.patch, an array whose current entries are all objects with a string
/// `id` merges by id (patch entries with a known id merge into it, others append) unless its
/// dotted path is in `replace_paths`; other arrays are replaced. `changed` receives the dotted
/// paths set or removed (deleting an absent key is no change). Returns the new text (== text when
/// nothing changed; "" text is taken as an empty object).
Result<std::string> apply_merge_patch_text(std::string_view text, const nlohmann::json& patch,
                                           const std::vector<std::string>& replace_paths,
                                           std::vector<std::string>& changed);

/// Parses `raw` (JSON5) and requires an object: the `raw` param of config.set/patch/apply.
Result<nlohmann::json> parse_config_raw(std::string_view raw, std::string_view method);

/// The baseHash rule for a write based on `current_text` (`exists`: the file exists).
/// nullopt = allowed. BASE_HASH_REQUIRED "config base hash required; re-run config.get and
/// retry" or CONFLICT "config changed since last load; re-run config.get and retry".
std::optional<Error> check_base_hash(bool exists, std::string_view current_text, const std::optional<std::string>& base_hash);

}  // namespace pincer::gateway
