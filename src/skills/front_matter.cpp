#include "skills/front_matter.h"

#include <cctype>

#include <yaml-cpp/yaml.h>

#include "core/json5.h"

namespace pincer::skills {
namespace {

std::string fm_trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

/// A line of `text` starting at `pos` (without its line break) and the position after it.
std::string_view line_at(std::string_view text, std::size_t pos, std::size_t& next) {
  auto nl = text.find('\n', pos);
  if (nl == std::string_view::npos) {
    next = text.size();
    return text.substr(pos);
  }
  next = nl + 1;
  auto line = text.substr(pos, nl - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool is_fence(std::string_view line) { return fm_trim(line) == "---"; }

/// A string list from a JSON value: an array of strings, or one "a, b" string (OpenClaw's loose lists).
std::vector<std::string> string_list(const nlohmann::json& v) {
  std::vector<std::string> out;
  auto add = [&](std::string_view s) {
    std::size_t start = 0;
    while (start <= s.size()) {
      auto comma = s.find(',', start);
      auto part = fm_trim(s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
      if (!part.empty()) out.push_back(part);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  };
  if (v.is_string()) add(v.get<std::string>());
  if (v.is_array()) {
    for (const auto& e : v) {
      if (e.is_string()) add(e.get<std::string>());
    }
  }
  return out;
}

/// YAML node → JSON (scalars stay strings except true/false/null and numbers YAML resolves).
nlohmann::json to_json(const YAML::Node& n, int depth = 0) {
  if (depth > 64) return nullptr;
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& kv : n) {
        if (kv.first.IsScalar()) o[kv.first.Scalar()] = to_json(kv.second, depth + 1);
      }
      return o;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& e : n) a.push_back(to_json(e, depth + 1));
      return a;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (n.Tag() != "!") {  // plain (unquoted) scalars: YAML's core booleans
        if (s == "true" || s == "True" || s == "TRUE") return true;
        if (s == "false" || s == "False" || s == "FALSE") return false;
      }
      return s;
    }
    default:
      return nullptr;
  }
}

std::string string_field(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end()) return {};
  if (it->is_string()) return fm_trim(it->get<std::string>());
  return {};
}

std::string front_matter_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// A front matter flag as OpenClaw reads it: a YAML boolean, or true/yes/1 and false/no/0 as text
/// (any case); anything else (absent, other text, a list) is `fallback`.
bool front_matter_bool(const nlohmann::json& fm, const char* key, bool fallback) {
  auto it = fm.find(key);
  if (it == fm.end()) return fallback;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_number_integer()) return it->get<long long>() != 0;
  const std::string v = front_matter_lower(string_field(fm, key));
  if (v == "true" || v == "yes" || v == "1") return true;
  if (v == "false" || v == "no" || v == "0") return false;
  return fallback;
}

void read_metadata(const nlohmann::json& fm, SkillManifest& m) {
  auto it = fm.find("metadata");
  if (it == fm.end()) return;
  nlohmann::json meta = *it;
  if (meta.is_string()) {  // OpenClaw also accepts the block as a JSON5 string
    auto parsed = json5::parse(meta.get<std::string>(), "metadata");
    if (!parsed) return;
    meta = std::move(*parsed);
  }
  if (!meta.is_object()) return;
  const nlohmann::json* block = nullptr;
  for (const char* key : {"openclaw", "clawdbot"}) {
    auto b = meta.find(key);
    if (b != meta.end() && b->is_object()) {
      block = &*b;
      break;
    }
  }
  if (block == nullptr) return;
  m.primary_env = string_field(*block, "primaryEnv");
  m.emoji = string_field(*block, "emoji");
  if (auto key = string_field(*block, "skillKey"); !key.empty()) m.skill_key = key;
  if (auto a = block->find("always"); a != block->end()) m.requirements.always = a->is_boolean() ? a->get<bool>() : false;
  if (auto os = block->find("os"); os != block->end()) m.requirements.os = string_list(*os);
  auto req = block->find("requires");
  if (req == block->end() || !req->is_object()) return;
  if (auto v = req->find("bins"); v != req->end()) m.requirements.bins = string_list(*v);
  if (auto v = req->find("anyBins"); v != req->end()) m.requirements.any_bins = string_list(*v);
  if (auto v = req->find("env"); v != req->end()) m.requirements.env = string_list(*v);
  if (auto v = req->find("config"); v != req->end()) m.requirements.config = string_list(*v);
}

}  // namespace

std::optional<FrontMatterSplit> split_front_matter(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 BOM
  std::size_t next = 0;
  if (!is_fence(line_at(text, 0, next))) return std::nullopt;
  const std::size_t yaml_start = next;
  int line_no = 1;
  std::size_t pos = next;
  while (pos < text.size()) {
    const std::size_t line_start = pos;
    auto line = line_at(text, pos, next);
    ++line_no;
    if (is_fence(line)) {
      FrontMatterSplit out;
      out.yaml = std::string(text.substr(yaml_start, line_start - yaml_start));
      out.body = std::string(text.substr(next));
      out.body_line = line_no + 1;
      return out;
    }
    pos = next;
  }
  return std::nullopt;
}

ParseResult parse_skill_md(std::string_view text) {
  ParseResult r;
  auto fail = [&](int line, std::string message) {
    r.problem = ParseProblem{line, std::move(message)};
    return r;
  };
  std::size_t next = 0;
  std::string_view t = text.substr(0, 3) == "\xEF\xBB\xBF" ? text.substr(3) : text;
  if (!is_fence(line_at(t, 0, next))) return fail(1, "no YAML front matter (SKILL.md must start with a --- line)");
  auto split = split_front_matter(text);
  if (!split) return fail(1, "the front matter is not closed (no second --- line)");
  YAML::Node doc;
  try {
    doc = YAML::Load(split->yaml);
  } catch (const YAML::Exception& e) {
    // Mark lines are 0-based within the YAML text, which starts on line 2 of the file.
    const int line = e.mark.is_null() ? 1 : e.mark.line + 2;
    return fail(line, "YAML error: " + e.msg);
  } catch (const std::exception& e) {
    return fail(1, std::string("YAML error: ") + e.what());
  }
  if (!doc.IsMap()) return fail(2, "the front matter must be a YAML mapping (name: …, description: …)");
  nlohmann::json fm;
  try {
    fm = to_json(doc);
  } catch (const std::exception& e) {
    return fail(2, std::string("YAML error: ") + e.what());
  }
  SkillManifest m;
  m.name = string_field(fm, "name");
  m.description = string_field(fm, "description");
  if (m.name.empty()) return fail(2, "the front matter has no `name`");
  if (m.description.empty()) return fail(2, "the front matter has no `description`");
  m.skill_key = m.name;
  m.homepage = string_field(fm, "homepage");
  m.model_invocable = !front_matter_bool(fm, "disable-model-invocation", false);
  m.user_invocable = front_matter_bool(fm, "user-invocable", true);
  if (front_matter_lower(string_field(fm, "command-dispatch")) == "tool") m.dispatch_tool = string_field(fm, "command-tool");
  read_metadata(fm, m);
  m.body_line = static_cast<std::size_t>(split->body_line);
  r.manifest = std::move(m);
  return r;
}

}  // namespace pincer::skills
