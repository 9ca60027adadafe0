// The config write methods (GW-7 "config set, patch, apply"; OpenClaw's params and answers):
//
//   config.set   {raw, baseHash?}        → {ok, path, hash, config}
//   config.patch {raw, baseHash?, replacePaths?, sessionKey?, note?, restartDelayMs?, deliveryContext?}
//                                        → {ok, path, hash, config, changedPaths, restart?, sentinel}
//                                          or {ok, noop: true, changedPaths: [], path, config}
//   config.apply {raw, baseHash?, sessionKey?, note?, restartDelayMs?, deliveryContext?}
//                                        → {ok, path, hash, config, restart?, sentinel}
//
// raw is JSON5 (set/apply: the whole config; patch: an RFC 7386 merge patch applied leaf by leaf,
// so comments outside the changed values survive, gateway/config_patch.h). Values sent back as
// the redaction placeholder of config.get keep the file's value. When the file exists, baseHash
// (config.get's `hash`: SHA-256 of the file's text) is required and must still match. The result
// is written by the config file's one writer (agents.h: agents_config_editor — the checks of
// `pincer config set`, the config lock, an atomic write); the gateway's config watcher then
// applies it (hot, or an in-process restart for gateway.* changes: `restart` says so). Refusals:
// INVALID_REQUEST naming the problem (details.code CONFLICT | BASE_HASH_REQUIRED | CONFIG_INVALID
// | JSON5_PARSE …); no writer installed or I/O failure: UNAVAILABLE. All three count against the
// control-plane write budget (GW-8; OpenClaw budgets patch and apply, Pincer set as well).
// Runs on the loop and blocks on the small config file (rare admin writes).
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <variant>

#include "agent/chat_commands.h"
#include "core/config.h"
#include "core/ids.h"
#include "core/json5.h"
#include "gateway/config_patch.h"
#include "gateway/config_reload.h"
#include "gateway/gateway.h"
#include "gateway/methods/agents.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "gateway/protocol/scopes.h"

namespace pincer::gateway {
namespace config_write_methods {  // named: the unity build joins several files into one unit

using nlohmann::json;

struct WriteRequest {
  std::string raw;
  std::optional<std::string> base_hash;
  std::vector<std::string> replace_paths;
};

/// The params of a write (OpenClaw's ConfigSet/Patch/ApplyParams): raw, baseHash, replacePaths
/// (patch); sessionKey, note, restartDelayMs and deliveryContext are accepted and unused (they
/// address OpenClaw's restart sentinel message).
std::variant<WriteRequest, RpcError> read_params(MethodContext& ctx, const char* method, bool patch) {
  const json& p = ctx.request.params;
  Params params(method, p);
  if (auto e = patch ? params.only({"raw", "baseHash", "sessionKey", "deliveryContext", "note", "restartDelayMs", "replacePaths"})
                     : std::string_view(method) == "config.set"
                           ? params.only({"raw", "baseHash"})
                           : params.only({"raw", "baseHash", "sessionKey", "deliveryContext", "note", "restartDelayMs"})) {
    return *e;
  }
  WriteRequest req;
  if (auto e = params.string("raw", req.raw, true)) return *e;
  std::string hash;
  if (auto e = params.string("baseHash", hash, false)) return *e;
  if (p.is_object() && p.contains("baseHash")) req.base_hash = hash;
  for (const char* key : {"sessionKey", "note"}) {
    std::string ignored;
    if (auto e = params.string(key, ignored, false)) return *e;
  }
  int64_t delay = 0;
  if (auto e = params.integer("restartDelayMs", delay, 0, INT64_MAX)) return *e;
  if (p.is_object() && p.contains("deliveryContext") && !p["deliveryContext"].is_object()) {
    return invalid_params(method, "/deliveryContext must be object");
  }
  if (p.is_object() && p.contains("replacePaths")) {
    if (!p["replacePaths"].is_array()) return invalid_params(method, "/replacePaths must be array");
    for (const auto& v : p["replacePaths"]) {
      if (!v.is_string() || v.get_ref<const std::string&>().empty()) return invalid_params(method, "/replacePaths must hold non-empty strings");
      req.replace_paths.push_back(v.get<std::string>());
    }
  }
  return req;
}

RpcError refusal(const Error& e) {
  if (e.code == "IO_ERROR" || e.code == "LOCK_FAILED" || e.code == "TOO_LARGE") return RpcError::unavailable(e.message);
  return RpcError::invalid(e.message, json{{"code", e.code}});
}

/// `restart` of the answer when a changed path needs a gateway restart that the reload mode does
/// (OpenClaw's restart shape; Pincer restarts in process once runs in flight are done).
json restart_of(const Gateway& gw, const std::vector<std::string>& changed, const char* method) {
  const json& cfg = gw.settings().config;
  const json* mode_v = cfg.contains("gateway") && cfg["gateway"].contains("reload") ? &cfg["gateway"]["reload"] : nullptr;
  const ReloadMode mode = reload_mode_from(mode_v && mode_v->is_object() ? mode_v->value("mode", "hybrid") : "hybrid");
  std::vector<std::string> restart_paths;
  for (const auto& path : changed) {
    if (mode == ReloadMode::Restart || (mode == ReloadMode::Hybrid && change_kind(path) == ChangeKind::Restart)) {
      restart_paths.push_back(path);
    }
  }
  if (restart_paths.empty() || mode == ReloadMode::Off || mode == ReloadMode::Hot) return nullptr;
  return {{"ok", true}, {"pid", static_cast<int64_t>(::getpid())}, {"reason", method}, {"mode", "in-process"},
          {"delayMs", 0}, {"coalesced", false}, {"paths", restart_paths}};
}

/// Writes through the editor: `make` turns the file's text into the new text (or nullopt when it
/// would not change) and fills `changed`; the baseHash rule is checked against the same text.
MethodResult write(MethodContext& ctx, const char* method, const WriteRequest& req,
                   const std::function<Result<std::optional<std::string>>(const std::string&, std::vector<std::string>&)>& make) {
  const AgentsConfigEditor& editor = agents_config_editor();
  if (!editor) return RpcError::unavailable(std::string(method) + ": this gateway cannot write its config file");
  Gateway& gw = ctx.gateway;
  const auto& path = gw.settings().config_path;
  std::error_code ec;
  const bool existed = std::filesystem::exists(path, ec);
  std::vector<std::string> changed;
  std::string written_text;
  bool noop = false;
  auto result = editor(path, [&](const std::string& text) -> Result<std::optional<std::string>> {
    if (auto e = check_base_hash(existed, text, req.base_hash)) return *e;
    changed.clear();
    auto next = make(text, changed);
    if (!next) return next.error();
    noop = !next->has_value();
    written_text = noop ? text : **next;
    return std::move(*next);
  });
  if (!result) return refusal(result.error());
  auto doc = json5::parse(written_text);
  json shown = doc ? config::redact(*doc) : json::object();
  json out = {{"ok", true}, {"path", path.string()}};
  if (noop && std::string_view(method) == "config.patch") {
    out["noop"] = true;
    out["changedPaths"] = json::array();
    out["config"] = std::move(shown);
    return out;
  }
  out["hash"] = ids::sha256_hex(written_text);
  out["config"] = std::move(shown);
  if (std::string_view(method) == "config.set") return out;
  if (std::string_view(method) == "config.patch") out["changedPaths"] = changed;
  if (json restart = restart_of(gw, changed, method); !restart.is_null()) out["restart"] = std::move(restart);
  out["sentinel"] = {{"persisted", false}, {"payload", {{"kind", std::string(method) == "config.patch" ? "config-patch" : "config-apply"},
                                                         {"mode", method}, {"configPath", path.string()}}}};
  return out;
}

/// config.set / config.apply: the whole config from raw, placeholders restored from the file.
MethodResult replace_whole(MethodContext& ctx, const char* method) {
  auto params = read_params(ctx, method, false);
  if (auto* e = std::get_if<RpcError>(&params)) return *e;
  const auto& req = std::get<WriteRequest>(params);
  auto submitted = parse_config_raw(req.raw, method);
  if (!submitted) return refusal(submitted.error());
  return write(ctx, method, req, [&](const std::string& text, std::vector<std::string>& changed) -> Result<std::optional<std::string>> {
    auto current = json5::parse(text.empty() ? std::string_view("{}") : std::string_view(text));
    if (!current) return current.error();
    auto next = restore_redacted(*submitted, *current);
    if (!next) return next.error();
    changed = changed_paths(*current, *next);
    if (changed.empty() && !text.empty()) return std::optional<std::string>();
    return std::optional<std::string>(next->dump(2) + "\n");
  });
}

MethodResult config_patch(MethodContext& ctx) {
  const char* method = "config.patch";
  auto params = read_params(ctx, method, true);
  if (auto* e = std::get_if<RpcError>(&params)) return *e;
  const auto& req = std::get<WriteRequest>(params);
  auto patch = parse_config_raw(req.raw, method);
  if (!patch) return refusal(patch.error());
  return write(ctx, method, req, [&](const std::string& text, std::vector<std::string>& changed) -> Result<std::optional<std::string>> {
    auto current = json5::parse(text.empty() ? std::string_view("{}") : std::string_view(text));
    if (!current) return current.error();
    auto restored = restore_redacted(*patch, *current);
    if (!restored) return restored.error();
    auto next = apply_merge_patch_text(text, *restored, req.replace_paths, changed);
    if (!next) return next.error();
    if (changed.empty()) return std::optional<std::string>();
    return std::optional<std::string>(std::move(*next));
  });
}

}  // namespace config_write_methods

Status patch_config_file(const std::filesystem::path& file, const nlohmann::json& patch) {
  const AgentsConfigEditor& editor = agents_config_editor();
  if (!editor) return Error{"UNAVAILABLE", "this process cannot write its config file"};
  auto written = editor(file, [&](const std::string& text) -> Result<std::optional<std::string>> {
    std::vector<std::string> changed;
    auto next = apply_merge_patch_text(text, patch, {}, changed);
    if (!next) return next.error();
    if (changed.empty()) return std::optional<std::string>();
    return std::optional<std::string>(std::move(*next));
  });
  if (!written) return written.error();
  return Ok{};
}

void lend_config_access(agent::CommandContext& context, const Gateway& gateway, const Client& client) {
  context.may_change_config = operator_scope_allows(client.scopes, kScopeAdmin);
  context.patch_config = [file = gateway.settings().config_path](const nlohmann::json& patch) {
    return patch_config_file(file, patch);
  };
}

void register_config_write_methods(MethodRegistry& registry) {
  using namespace config_write_methods;
  registry.add({"config.set", [](MethodContext& ctx) { return replace_whole(ctx, "config.set"); }, false, true});
  registry.add({"config.patch", config_patch, false, true});
  registry.add({"config.apply", [](MethodContext& ctx) { return replace_whole(ctx, "config.apply"); }, false, true});
}

}  // namespace pincer::gateway
