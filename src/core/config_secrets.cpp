// The secrets of a configuration: redact() (what the schema marks sensitive replaced), the values
// its schema marks sensitive (registered for exact-value redaction of logs and client-visible
// errors), and the view of the config clients are shown (config.get): redacted, "${NAME}"
// references as written, no URL userinfo (issue 22, items 6, 9).
#include <algorithm>

#include "core/config.h"
#include "core/config_internal.h"
#include "core/config_schema.h"

namespace pincer::config {
namespace {

using nlohmann::json;
using schema::Kind;
using schema::Node;
using detail_config::alternative_for;

void add_unique(std::vector<std::string>& out, const std::string& value) {
  if (!value.empty() && std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
}

void collect_sensitive(const Node& node, const json& v, std::vector<std::string>& out) {
  if (node.is_sensitive()) {
    if (v.is_string()) add_unique(out, v.get_ref<const std::string&>());
    if (v.is_object() || v.is_array()) {  // a sensitive object: every string below it
      for (const auto& child : v) collect_sensitive(node, child, out);
    }
    return;
  }
  switch (node.kind()) {
    case Kind::kUnion:  // whichever alternative holds it: a secret in any of them counts
      for (const Node& alt : node.alternatives()) collect_sensitive(alt, v, out);
      return;
    case Kind::kObject:
      if (!v.is_object()) return;
      for (const auto& [key, child] : v.items()) {
        if (const schema::Field* f = node.find(key)) collect_sensitive(f->node, child, out);
      }
      return;
    case Kind::kMap:
    case Kind::kArray:
      if (!v.is_object() && !v.is_array()) return;
      for (const auto& child : v) collect_sensitive(node.item(), child, out);
      return;
    default:
      return;
  }
}

// A string whose written form references the environment is shown as written: a `baseUrl` or
// `callbackUrl` filled from "${VAR}" may carry a credential the file itself does not hold.
void show_as_written(json& out, const json& written) {
  if (written.is_string()) {
    // A redacted (sensitive) value stays redacted: its written form may hold a literal part.
    if (out.is_string() && out.get_ref<const std::string&>() != kRedacted && !env_references(written).empty()) {
      out = written;
    }
    return;
  }
  if (written.is_object() && out.is_object()) {
    for (auto& [key, child] : out.items()) {
      if (auto it = written.find(key); it != written.end()) show_as_written(child, *it);
    }
  } else if (written.is_array() && out.is_array()) {
    for (std::size_t i = 0; i < out.size() && i < written.size(); ++i) show_as_written(out[i], written[i]);
  }
}

// "scheme://user:pass@host…" → "scheme://***@host…", anywhere in a string.
void strip_url_userinfo(json& v) {
  if (v.is_string()) {
    std::string& s = v.get_ref<std::string&>();
    for (std::size_t at = s.find("://"); at != std::string::npos; at = s.find("://", at + 3)) {
      const std::size_t start = at + 3;
      const std::size_t end = s.find_first_of("/?#@ \t\r\n\"'", start);
      if (end == std::string::npos || s[end] != '@' || end == start) continue;
      if (s.compare(start, end - start, "***") != 0) s.replace(start, end - start, "***");
    }
  } else if (v.is_object() || v.is_array()) {
    for (auto& child : v) strip_url_userinfo(child);
  }
}

// ---- redaction ----------------------------------------------------------------------------------

json redact_node(const Node& node, json v) {
  if (node.is_sensitive()) return v.is_null() ? v : json(kRedacted);
  switch (node.kind()) {
    case Kind::kUnion: {
      const Node* alt = alternative_for(node, v);
      return alt == nullptr ? v : redact_node(*alt, std::move(v));
    }
    case Kind::kObject:
      if (!v.is_object()) return v;
      for (auto& [key, child] : v.items()) {
        if (const schema::Field* f = node.find(key)) child = redact_node(f->node, std::move(child));
      }
      return v;
    case Kind::kMap:
    case Kind::kArray:
      if (!v.is_object() && !v.is_array()) return v;
      for (auto& child : v) child = redact_node(node.item(), std::move(child));
      return v;
    default:
      return v;
  }
}

}  // namespace

nlohmann::json redact(const nlohmann::json& doc) { return redact_node(schema::root(), doc); }

std::vector<std::string> sensitive_values(const nlohmann::json& doc) {
  std::vector<std::string> out;
  collect_sensitive(schema::root(), doc, out);
  return out;
}

nlohmann::json redact_for_clients(const nlohmann::json& effective, const nlohmann::json& written) {
  json out = redact(effective);
  if (!written.is_null()) show_as_written(out, written);
  strip_url_userinfo(out);
  return out;
}

}  // namespace pincer::config
