// "$include" resolution of config files (as OpenClaw's): objects deep-merge, arrays concatenate,
// paths relative to the including file and confined to the top-level file's directory, depth
// <= kMaxIncludeDepth, cycles detected (config.h, config_internal.h).
#include <algorithm>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "core/config.h"
#include "core/config_internal.h"

namespace pincer::config {
namespace detail_config_include {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace detail_config;

constexpr const char* kIncludeKey = "$include";

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

  // `value` with every "$include" below it resolved; `path` is its JSON path inside `src`.
  Result<json> resolve(const json& value, const Source& src, const std::string& path) const {
    if (value.is_array()) {
      json out = json::array();
      for (std::size_t i = 0; i < value.size(); ++i) {
        auto item = resolve(value[i], src, index_path(path, i));
        if (!item) return item;
        out.push_back(std::move(*item));
      }
      return out;
    }
    if (!value.is_object()) return value;
    if (value.contains(kIncludeKey)) return resolve_include(value, src, path);
    return resolve_members(value, src, path, /*skip=*/"");
  }

 private:
  Result<json> resolve_members(const json& obj, const Source& src, const std::string& path,
                               const std::string& skip) const {
    json out = json::object();
    for (const auto& [key, child] : obj.items()) {
      if (key == skip) continue;
      auto resolved = resolve(child, src, key_path(path, key));
      if (!resolved) return resolved;
      out[key] = std::move(*resolved);
    }
    return out;
  }

  // An object with "$include": the included value(s), with the sibling keys merged on top.
  Result<json> resolve_include(const json& obj, const Source& src, const std::string& path) const {
    const json& spec = obj.at(kIncludeKey);
    std::string where = key_path(path, kIncludeKey);
    Result<json> included = json::object();
    if (spec.is_string()) {
      included = load(spec.get<std::string>(), src, where);
    } else if (spec.is_array()) {
      json merged = json::object();
      for (std::size_t i = 0; i < spec.size(); ++i) {
        if (!spec[i].is_string()) {
          return error(src, index_path(where, i), "expected string, got " + describe_value(spec[i], false));
        }
        auto one = load(spec[i].get<std::string>(), src, where);
        if (!one) return one;
        merged = deep_merge(std::move(merged), std::move(*one));
      }
      included = std::move(merged);
    } else {
      return error(src, where, "expected string or array of strings, got " + describe_value(spec, false));
    }
    if (!included || obj.size() == 1) return included;
    if (!included->is_object()) {
      return error(src, where, "sibling keys need the included value to be an object, got " +
                                   std::string(type_name(*included)));
    }
    auto siblings = resolve_members(obj, src, path, kIncludeKey);
    if (!siblings) return siblings;
    return deep_merge(std::move(*included), std::move(*siblings));
  }

  // Reads, parses and resolves the file named `target` by an "$include" of `src`.
  Result<json> load(const std::string& target, const Source& src, const std::string& where) const {
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
    return resolve(*parsed, nested, "");
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
                                        const std::filesystem::path& canonical, std::vector<std::string>* warnings) {
  detail_config_include::IncludeResolver includes(canonical.parent_path(), warnings);
  return includes.resolve(doc, detail_config_include::Source{file, {canonical}}, "");
}

}  // namespace detail_config
}  // namespace pincer::config
