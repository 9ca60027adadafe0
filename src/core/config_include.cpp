// "$include" resolution of config files (as OpenClaw's): objects deep-merge, arrays concatenate,
// paths relative to the including file and confined to the top-level file's directory, depth
// <= kMaxIncludeDepth, cycles detected (config.h, config_internal.h).
#include <algorithm>
#include <string>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

#include "core/config.h"
#include "core/config_internal.h"
#include "core/json5_edit.h"

namespace pincer::config {
namespace detail_config_include {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace detail_config;

constexpr const char* kIncludeKey = "$include";

// The origin tree of a resolved document has its shape: an array for an array, an object for an
// object (plus kOriginKey: where the object itself is written), and for any other value its tag,
// "<file as displayed>\x1f<JSON path inside that file>". deep_merge() merges two such trees as it
// merges their values: the later or sibling value's tag wins, arrays concatenate.
constexpr const char* kOriginKey = "\x1f";
constexpr char kOriginSeparator = '\x1f';

// OpenClaw's deepMerge: objects recurse, arrays concatenate, anything else is replaced.
json deep_merge(json target, json source) {
  if (target.is_array() && source.is_array()) {
    for (auto& item : source) target.push_back(std::move(item));
    return target;
  }
  if (target.is_object() && source.is_object()) {
    for (auto& [key, value] : source.items()) {
      auto it = target.find(key);
      if (it == target.end()) {
        target[key] = std::move(value);
      } else {
        *it = deep_merge(std::move(*it), std::move(value));
      }
    }
    return target;
  }
  return source;
}

// A file whose JSON is being resolved.
struct Source {
  fs::path display;              // as written in messages: lexical, relative to how the top was named
  std::vector<fs::path> chain;   // canonical paths from the top-level file down to this one
};

class IncludeResolver {
 public:
  IncludeResolver(fs::path root_dir, std::vector<std::string>* warnings)
      : root_dir_(std::move(root_dir)), warnings_(warnings) {}

  // `value` with every "$include" below it resolved; `path` is its JSON path inside `src`. With
  // `origin`, also where each value is written (the origin tree, see origin_tag()).
  Result<json> resolve(const json& value, const Source& src, const std::string& path, json* origin = nullptr) const {
    if (value.is_array()) {
      json out = json::array();
      if (origin != nullptr) *origin = json::array();
      for (std::size_t i = 0; i < value.size(); ++i) {
        json item_origin;
        auto item = resolve(value[i], src, index_path(path, i), origin != nullptr ? &item_origin : nullptr);
        if (!item) return item;
        out.push_back(std::move(*item));
        if (origin != nullptr) origin->push_back(std::move(item_origin));
      }
      return out;
    }
    if (!value.is_object()) {
      if (origin != nullptr) *origin = origin_tag(src, path);
      return value;
    }
    if (value.contains(kIncludeKey)) return resolve_include(value, src, path, origin);
    return resolve_members(value, src, path, /*skip=*/"", origin);
  }

 private:
  Result<json> resolve_members(const json& obj, const Source& src, const std::string& path,
                               const std::string& skip, json* origin) const {
    json out = json::object();
    if (origin != nullptr) *origin = json{{kOriginKey, origin_tag(src, path)}};
    for (const auto& [key, child] : obj.items()) {
      if (key == skip) continue;
      json child_origin;
      auto resolved = resolve(child, src, key_path(path, key), origin != nullptr ? &child_origin : nullptr);
      if (!resolved) return resolved;
      out[key] = std::move(*resolved);
      if (origin != nullptr) (*origin)[key] = std::move(child_origin);
    }
    return out;
  }

  // An object with "$include": the included value(s), with the sibling keys merged on top.
  // The origin trees are merged as the values are (same shapes, so the same decisions).
  Result<json> resolve_include(const json& obj, const Source& src, const std::string& path, json* origin) const {
    const json& spec = obj.at(kIncludeKey);
    std::string where = key_path(path, kIncludeKey);
    Result<json> included = json::object();
    json included_origin = json{{kOriginKey, origin_tag(src, path)}};
    if (spec.is_string()) {
      included = load(spec.get<std::string>(), src, where, origin != nullptr ? &included_origin : nullptr);
    } else if (spec.is_array()) {
      json merged = json::object();
      for (std::size_t i = 0; i < spec.size(); ++i) {
        if (!spec[i].is_string()) {
          return error(src, index_path(where, i), "expected string, got " + describe_value(spec[i], false));
        }
        json one_origin;
        auto one = load(spec[i].get<std::string>(), src, where, origin != nullptr ? &one_origin : nullptr);
        if (!one) return one;
        merged = deep_merge(std::move(merged), std::move(*one));
        if (origin != nullptr) included_origin = deep_merge(std::move(included_origin), std::move(one_origin));
      }
      included = std::move(merged);
    } else {
      return error(src, where, "expected string or array of strings, got " + describe_value(spec, false));
    }
    if (origin != nullptr) *origin = included_origin;
    if (!included || obj.size() == 1) return included;
    if (!included->is_object()) {
      return error(src, where, "sibling keys need the included value to be an object, got " +
                                   std::string(type_name(*included)));
    }
    json siblings_origin;
    auto siblings = resolve_members(obj, src, path, kIncludeKey, origin != nullptr ? &siblings_origin : nullptr);
    if (!siblings) return siblings;
    if (origin != nullptr) *origin = deep_merge(std::move(*origin), std::move(siblings_origin));
    return deep_merge(std::move(*included), std::move(*siblings));
  }

  // Reads, parses and resolves the file named `target` by an "$include" of `src`.
  Result<json> load(const std::string& target, const Source& src, const std::string& where, json* origin) const {
    fs::path display = (src.display.parent_path() / target).lexically_normal();
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(fs::absolute(display), ec);
    if (ec) return error(src, where, "cannot resolve \"" + target + "\": " + ec.message());
    fs::path relative = canonical.lexically_relative(root_dir_);
    if (relative.empty() || *relative.begin() == "..") {
      return error(src, where, "\"" + target + "\" is outside the config directory " + root_dir_.string());
    }
    if (std::find(src.chain.begin(), src.chain.end(), canonical) != src.chain.end()) {
      return error(src, where, "circular $include: " + describe_chain(src.chain, canonical));
    }
    if (static_cast<int>(src.chain.size()) > kMaxIncludeDepth) {
      return error(src, where, "\"" + target + "\" exceeds the maximum include depth (" +
                                   std::to_string(kMaxIncludeDepth) + ")");
    }
    auto text = read_config_file(canonical);
    if (!text) {
      return error(src, where, "cannot read \"" + target + "\" (" + display.string() + "): " +
                                   text.error().message);
    }
    auto parsed = parse_config_text(*text, display, warnings_);
    if (!parsed) return parsed;
    Source nested{display, src.chain};
    nested.chain.push_back(canonical);
    return resolve(*parsed, nested, "", origin);
  }

  static std::string origin_tag(const Source& src, const std::string& path) {
    return src.display.string() + kOriginSeparator + path;
  }

  std::string describe_chain(const std::vector<fs::path>& chain, const fs::path& again) const {
    std::string out;
    for (const auto& p : chain) out += p.lexically_relative(root_dir_).generic_string() + " -> ";
    return out + again.lexically_relative(root_dir_).generic_string();
  }

  static Error error(const Source& src, const std::string& where, const std::string& what) {
    return invalid(src.display.string() + ": " + where + ": " + what);
  }

  fs::path root_dir_;  // canonical directory of the top-level file; includes stay below it
  std::vector<std::string>* warnings_;  // repeated keys of included files (null = not collected)
};

}  // namespace detail_config_include

namespace detail_config {

Result<nlohmann::json> resolve_includes(const nlohmann::json& doc, const std::filesystem::path& file,
                                        const std::filesystem::path& canonical, std::vector<std::string>* warnings,
                                        nlohmann::json* origins) {
  detail_config_include::IncludeResolver includes(canonical.parent_path(), warnings);
  return includes.resolve(doc, detail_config_include::Source{file, {canonical}}, "", origins);
}

}  // namespace detail_config

std::vector<ValueOrigin> value_origins(const std::filesystem::path& file, const std::vector<std::string>& paths) {
  namespace inc = detail_config_include;
  std::vector<ValueOrigin> out(paths.size());
  auto text = detail_config::read_config_file(file);
  if (!text) return out;
  auto parsed = detail_config::parse_config_text(*text, file);
  if (!parsed) return out;
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(file), ec);
  if (ec) return out;
  nlohmann::json origins;
  if (!detail_config::resolve_includes(*parsed, file, canonical, nullptr, &origins)) return out;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    auto path = json5::parse_path(paths[k]);
    if (!path) continue;
    // Down the tree as far as the path goes; the nearest tag above (or at) the end names the file,
    // the steps taken since are appended to its path there.
    const nlohmann::json* node = &origins;
    std::string tag;
    json5::Path since;
    std::size_t i = 0;
    for (; i < path->size(); ++i) {
      if (node->is_object()) {
        tag = node->value(inc::kOriginKey, tag);
        since.clear();
      }
      if (node->is_string()) break;
      const nlohmann::json* next = json5::find(*node, {(*path)[i]});
      if (next == nullptr) break;
      since.push_back((*path)[i]);
      node = next;
    }
    if (node->is_string() || node->is_object()) {
      tag = node->is_string() ? node->get<std::string>() : node->value(inc::kOriginKey, tag);
      since.clear();
    }
    const auto cut = tag.find(inc::kOriginSeparator);
    if (cut == std::string::npos) continue;
    ValueOrigin& o = out[k];
    o.file = tag.substr(0, cut);
    o.path = tag.substr(cut + 1);
    const auto append = [&o](const json5::PathSegment& step) {
      o.path = std::holds_alternative<std::size_t>(step) ? detail_config::index_path(o.path, std::get<std::size_t>(step))
                                                         : detail_config::key_path(o.path, std::get<std::string>(step));
    };
    for (const auto& step : since) append(step);
    o.present = i == path->size();
    o.included = o.file != file;
    // The line of what exists (the value, else the nearest object above the missing key).
    auto local = o.path.empty() ? Result<json5::Path>(json5::Path{}) : json5::parse_path(o.path);
    if (local) {
      auto file_text = o.included ? detail_config::read_config_file(o.file) : text;  // as the resolver named it
      if (file_text) o.line = json5::line_of(*file_text, *local);
    }
    for (std::size_t rest = i; rest < path->size(); ++rest) append((*path)[rest]);
  }
  return out;
}

}  // namespace pincer::config
