// openclaw.json's `tools`, `logging`, `mcp` and `hooks` as pincer.json's (see
// openclaw_import_config_mapper.h).
#include <string>

#include "cli/openclaw_import_config_mapper.h"

namespace pincer::cli::openclaw::detail_openclaw_config {

using nlohmann::json;

void Mapper::tools(const json& t, const Path& at) {
  if (!t.is_object()) return expect_object_or_skip(t, at);
  for (const auto& [k, v] : t.items()) {
    Path p = key(at, k);
    if (k == "profile" || k == "allow" || k == "alsoAllow" || k == "deny") {
      map(p, p, v);
    } else if (k == "exec" && v.is_object()) {
      for (const auto& [ek, ev] : v.items()) {
        if (ek == "timeoutSec") map(key(p, ek), key(p, ek), ev);
        else skip(key(p, ek), skip_reason("tools.exec", ek));
      }
    } else {
      skip(p, skip_reason("tools", k));
    }
  }
}

void Mapper::logging(const json& l, const Path& at) {
  if (!l.is_object()) return expect_object_or_skip(l, at);
  for (const auto& [k, v] : l.items()) {
    Path p = key(at, k);
    if (k == "level") {
      if (is_one_of(v, {"silent"})) map(p, p, "off", "\"silent\" written as \"off\"");
      else if (is_one_of(v, {"fatal"})) map(p, p, "error", "\"fatal\" written as \"error\"");
      else map(p, p, v);
    } else if (k == "consoleStyle") {
      if (is_one_of(v, {"compact"})) map(p, p, "plain", "\"compact\" written as \"plain\"");
      else map(p, p, v);
    } else {
      skip(p, skip_reason("logging", k));
    }
  }
}

// mcp.servers (IX-2): OpenClaw's keys are Pincer's; a key Pincer lacks is removed by prune_invalid
// with the schema's message.
void Mapper::mcp(const json& m, const Path& at) {
  if (!m.is_object()) return expect_object_or_skip(m, at);
  for (const auto& [k, v] : m.items()) {
    Path p = key(at, k);
    if (k == "servers") map(p, p, v);
    else skip(p, "not a Pincer mcp setting");
  }
}

void Mapper::hooks(const json& h, const Path& at) {
  if (!h.is_object()) return expect_object_or_skip(h, at);
  for (const auto& [k, v] : h.items()) {
    Path p = key(at, k);
    if (k == "token") secret(v, p, p);
    else if (k == "enabled" || k == "path" || k == "maxBodyBytes" || k == "defaultSessionKey" ||
             k == "allowRequestSessionKey" || k == "allowedSessionKeyPrefixes" || k == "allowedAgentIds" ||
             k == "presets")
      map(p, p, v);
    else if (k == "mappings" && v.is_array()) {
      std::size_t kept = 0;
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i].is_object() && v[i].contains("transform")) {
          skip(index(p, i), "its JavaScript transform cannot run in Pincer; rewrite it with messageTemplate/textTemplate");
        } else {
          map(index(p, i), index(p, kept++), v[i]);
        }
      }
    } else if (k == "gmail" && v.is_object() && v.contains("allowUnsafeExternalContent")) {
      map(key(p, "allowUnsafeExternalContent"), key(p, "allowUnsafeExternalContent"), v["allowUnsafeExternalContent"]);
      skip(p, "the Gmail watcher (gog, Pub/Sub, Tailscale) is not built in Pincer: POST to <hooks.path>/gmail yourself");
    } else {
      skip(p, k == "internal" ? "OpenClaw's internal HOOK.md hooks are not supported by Pincer"
                              : k == "gmail" ? "the Gmail watcher (gog, Pub/Sub, Tailscale) is not built in Pincer"
                                             : "not a Pincer hooks setting");
    }
  }
}

}  // namespace pincer::cli::openclaw::detail_openclaw_config
