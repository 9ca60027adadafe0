// map_config() of cli/openclaw_import.h: openclaw.json (resolved) → pincer.json, as data. Pure:
// no files, no environment. The key-by-key rules are in the header; the reasons given for keys
// that are not imported are in skip_reason(); the sections are mapped in
// openclaw_import_config_<section>.cpp (see openclaw_import_config_mapper.h).
#include <string>
#include <utility>
#include <vector>

#include "cli/invoked_command.h"
#include "cli/openclaw_import.h"
#include "cli/openclaw_import_config_mapper.h"
#include "core/config.h"
#include "core/json5_edit.h"
#include "core/json_lookup.h"

namespace pincer::cli::openclaw {
namespace detail_openclaw_config {

using nlohmann::json;

void Mapper::run(const json& root) {
  if (!root.is_object()) {
    skip({}, std::string("the top level must be an object, got ") + json_lookup::kind_of(root));
    plan_workspaces(json::object());
    return;
  }
  for (const auto& [k, v] : root.items()) {
    Path p = key({}, k);
    if (k == "gateway") gateway(v, p);
    else if (k == "models") models(v, p);
    else if (k == "agents") agents(v, p);
    else if (k == "tools") tools(v, p);
    else if (k == "logging") logging(v, p);
    else if (k == "hooks") hooks(v, p);
    else if (k == "mcp") mcp(v, p);
    else if (kSameShapeSections.contains(k)) same_shape(v, p);
    else if (k == "plugins") plugins(v, p);
    else skip(p, skip_reason("", k));
  }
  plan_workspaces(root.contains("agents") && root["agents"].is_object() ? root["agents"] : json::object());
  check_model_refs();
  prune_invalid();
}

void Mapper::set(const Path& to, json value) {
  json* cur = &out_.config;
  for (const auto& seg : to) {
    if (const auto* k = std::get_if<std::string>(&seg)) {
      if (!cur->is_object()) *cur = json::object();
      cur = &(*cur)[*k];
    } else {
      const std::size_t i = std::get<std::size_t>(seg);
      if (!cur->is_array()) *cur = json::array();
      while (cur->size() <= i) cur->push_back(json::object());
      cur = &(*cur)[i];
    }
  }
  *cur = std::move(value);
}

void Mapper::map(const Path& from, const Path& to, json value, std::string note) {
  set(to, std::move(value));
  out_.mapped.push_back({text(from), text(to), std::move(note)});
}

void Mapper::skip(const Path& from, std::string reason) { out_.skipped.push_back({text(from), std::move(reason)}); }

void Mapper::expect_object_or_skip(const json& v, const Path& p) {
  skip(p, std::string("expected an object, got ") + json_lookup::kind_of(v));
}

// Maps a secret, or skips it with the reason.
void Mapper::secret(const json& v, const Path& from, const Path& to) {
  Secret s = convert_secret(v);
  if (s.value) map(from, to, std::move(*s.value), std::move(s.note));
  else skip(from, std::move(s.reason));
}

void Mapper::same_shape(const json& v, const Path& at) {
  if (!v.is_object()) return expect_object_or_skip(v, at);
  for (const auto& [k, value] : v.items()) map(key(at, k), key(at, k), value);
}

// plugins: OpenClaw's plugins cannot run in Pincer, but the settings of the two it builds in
// (plugins.entries.active-memory: active recall; plugins.entries.memory-core: dreaming) are kept.
void Mapper::plugins(const json& v, const Path& at) {
  if (!v.is_object()) return expect_object_or_skip(v, at);
  for (const auto& [k, value] : v.items()) {
    Path p = key(at, k);
    if (k != "entries" || !value.is_object()) {
      skip(p, "OpenClaw plugins cannot run in Pincer");
      continue;
    }
    for (const auto& [id, entry] : value.items()) {
      if (id == "active-memory" || id == "memory-core") map(key(p, id), key(p, id), entry, "built into Pincer");
      else skip(key(p, id), "OpenClaw plugins cannot run in Pincer (active-memory and memory-core are built in)");
    }
  }
}

// Warns about model references that name no model of models.providers (OpenClaw also knows
// built-in providers; Pincer only knows what the file lists).
void Mapper::check_model_refs() {
  const json& cfg = out_.config;
  auto listed = [&](const std::string& ref) {
    const auto slash = ref.find('/');
    if (slash == std::string::npos) return false;
    const json* p = json5::find(cfg, Path{std::string("models"), std::string("providers"), ref.substr(0, slash)});
    if (p == nullptr || !p->contains("models") || !(*p)["models"].is_array()) return false;
    for (const auto& m : (*p)["models"]) {
      if (string_at(m, "id") == ref.substr(slash + 1)) return true;
    }
    return false;
  };
  auto check = [&](const json& choice, const std::string& where) {
    std::vector<std::pair<std::string, std::string>> refs;
    if (choice.is_string()) refs.emplace_back(where, choice.get<std::string>());
    if (choice.is_object()) {
      if (choice.contains("primary") && choice["primary"].is_string()) {
        refs.emplace_back(where + ".primary", choice["primary"].get<std::string>());
      }
      if (choice.contains("fallbacks") && choice["fallbacks"].is_array()) {
        for (std::size_t i = 0; i < choice["fallbacks"].size(); ++i) {
          if (choice["fallbacks"][i].is_string()) {
            refs.emplace_back(where + ".fallbacks[" + std::to_string(i) + "]", choice["fallbacks"][i].get<std::string>());
          }
        }
      }
    }
    for (const auto& [path, ref] : refs) {
      if (listed(ref)) continue;
      // As `config validate` judges it (cli/config_checks.h): a fallback is skipped by runs (a
      // warning); a primary whose provider is not configured is an error there.
      const auto slash = ref.find('/');
      const bool provider_known =
          slash == std::string::npos ||
          json5::find(cfg, Path{std::string("models"), std::string("providers"), ref.substr(0, slash)}) != nullptr;
      std::string effect = "Pincer only uses configured models";
      if (path.find(".fallbacks[") != std::string::npos) {
        effect = "runs skip this fallback until it is";
      } else if (!provider_known) {
        effect = "`" + invoked_command() + " config validate` reports it as an error and every turn fails until it is";
      }
      out_.warnings.push_back(path + ": \"" + ref + "\" is not listed under models.providers; " + effect + " (add it with `" +
                              invoked_command() + " config set` or `" + invoked_command() + " onboard`)");
    }
  };
  if (const json* d = json5::find(cfg, Path{std::string("agents"), std::string("defaults"), std::string("model")})) {
    check(*d, "agents.defaults.model");
  }
  if (const json* l = json5::find(cfg, Path{std::string("agents"), std::string("list")}); l && l->is_array()) {
    for (std::size_t i = 0; i < l->size(); ++i) {
      if ((*l)[i].is_object() && (*l)[i].contains("model")) {
        check((*l)[i]["model"], "agents.list[" + std::to_string(i) + "].model");
      }
    }
  }
}

// Removes what Pincer's schema rejects, one value at a time, until the document validates. A
// "missing required key" removes the object that lacks it.
void Mapper::prune_invalid() {
  for (int round = 0; round < 10000; ++round) {
    auto st = config::validate(out_.config);
    if (st) return;
    const std::string message = st.error().message;
    const std::string line = message.substr(0, message.find('\n'));
    std::string path = violation_path(line);
    const std::string what = path.empty() ? line : line.substr(path.size() + 2);
    auto parsed = json5::parse_path(path);
    if (path.empty() || path == "(root)" || !parsed || parsed->empty()) break;
    json5::Path target = *parsed;
    // A missing required key: the object lacking it goes (the reason names the key).
    const bool parent = what.starts_with("missing required key");
    if (parent) target.pop_back();
    if (target.empty()) break;
    auto removed = json5::apply_unset(out_.config, target);
    if (!removed) break;
    out_.config = std::move(*removed);
    forget(json5::format_path(target), "not valid in Pincer: " + (parent ? line : what));
  }
  // Unreachable in practice: every value comes from the rules above. Never write an invalid file.
  out_.warnings.push_back("internal: the mapped config did not validate; nothing was mapped");
  out_.config = json::object();
  out_.mapped.clear();
}

// The value at `to_path` (output coordinates) was removed: turn the mapped entries it covered
// into skipped ones, and report parts of bigger mapped values in source coordinates.
void Mapper::forget(const std::string& to_path, const std::string& reason) {
  bool reported = false;
  std::vector<MappedKey> kept;
  for (auto& m : out_.mapped) {
    if (!m.to.empty() && is_path_prefix(to_path, m.to)) {
      out_.skipped.push_back({m.from, reason});
      reported = true;
    } else {
      if (!m.to.empty() && !reported && is_path_prefix(m.to, to_path)) {
        out_.skipped.push_back({m.from + to_path.substr(m.to.size()), reason});
        reported = true;
      }
      kept.push_back(std::move(m));
    }
  }
  out_.mapped = std::move(kept);
  if (!reported) out_.skipped.push_back({to_path, reason});
}

}  // namespace detail_openclaw_config

ConfigMapping map_config(const nlohmann::json& openclaw, const MapContext& ctx) {
  ConfigMapping out;
  // OpenClaw 2026.9 may keep its agents keyed by id (`agents.entries: {<id>: {…}}`, written by
  // `openclaw models set --agent`) instead of the `agents.list` array; without a list, the entries
  // are read as list items in id order (their reports say agents.list[i]).
  if (openclaw.is_object() && openclaw.contains("agents") && openclaw["agents"].is_object() && !openclaw["agents"].contains("list") &&
      openclaw["agents"].contains("entries") && openclaw["agents"]["entries"].is_object()) {
    nlohmann::json normalized = openclaw;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [id, entry] : openclaw["agents"]["entries"].items()) {
      nlohmann::json item = entry.is_object() ? entry : nlohmann::json::object();
      item["id"] = id;
      list.push_back(std::move(item));
    }
    normalized["agents"].erase("entries");
    normalized["agents"]["list"] = std::move(list);
    out.warnings.push_back("agents.entries (OpenClaw's agents keyed by id) was read as agents.list, in id order");
    detail_openclaw_config::Mapper(ctx, out).run(normalized);
    return out;
  }
  detail_openclaw_config::Mapper(ctx, out).run(openclaw);
  return out;
}

}  // namespace pincer::cli::openclaw