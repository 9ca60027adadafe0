// with_defaults(): every schema default filled in where a key is absent (config.h).
#include <optional>
#include <utility>

#include "core/config.h"
#include "core/config_internal.h"
#include "core/config_schema.h"

namespace pincer::config {
namespace detail_config_defaults {

using nlohmann::json;
using schema::Kind;
using schema::Node;
using detail_config::alternative_for;

json fill_defaults(const Node& node, json v);

// The value an absent key takes: its default, or — for an object without one — an object holding
// its children's defaults (omitted when none has any, so optional sections stay absent, and for
// an object marked only_when_written, such as a channel's block).
std::optional<json> absent_value(const Node& node) {
  if (node.default_value()) return fill_defaults(node, *node.default_value());
  if (node.kind() != Kind::kObject || node.is_only_when_written()) return std::nullopt;
  json filled = fill_defaults(node, json::object());
  if (filled.empty()) return std::nullopt;
  return filled;
}

json fill_defaults(const Node& node, json v) {
  switch (node.kind()) {
    case Kind::kUnion: {
      const Node* alt = alternative_for(node, v);
      return alt == nullptr ? v : fill_defaults(*alt, std::move(v));
    }
    case Kind::kObject:
      if (!v.is_object()) return v;
      for (const auto& f : node.fields()) {
        auto it = v.find(f.name);
        if (it != v.end()) {
          *it = fill_defaults(f.node, std::move(*it));
        } else if (auto value = absent_value(f.node)) {
          v[f.name] = std::move(*value);
        }
      }
      return v;
    case Kind::kMap:
    case Kind::kArray:
      if (!v.is_object() && !v.is_array()) return v;
      for (auto& child : v) child = fill_defaults(node.item(), std::move(child));
      return v;
    default:
      return v;
  }
}

}  // namespace detail_config_defaults

nlohmann::json with_defaults(const nlohmann::json& doc) {
  return detail_config_defaults::fill_defaults(schema::root(), doc);
}

}  // namespace pincer::config
