#include "skills/skill_write.h"

#include <sys/stat.h>

#include "core/utf8.h"
#include "skills/front_matter.h"
#include "skills/skill_usage.h"
#include "store/atomic_file.h"

namespace pincer::skills {
namespace {

namespace fs = std::filesystem;

bool is_link_path(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

Result<fs::path> skill_file(const fs::path& workspace, const std::string& name) {
  if (auto why = skill_name_problem(name); !why.empty()) return Error{"SKILL_NAME_INVALID", why};
  const fs::path root = workspace / "skills";
  const fs::path dir = root / name;
  for (const auto& p : {root, dir, dir / "SKILL.md"}) {
    if (is_link_path(p)) return Error{"SKILL_PATH_INVALID", p.string() + " is a symbolic link; skills are written only to real folders"};
  }
  return dir / "SKILL.md";
}

std::string findings_text(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& f : findings) out += "\n- " + f.describe();
  return out;
}

Result<SkillWrite> write(const fs::path& file, const std::string& name, const std::string& content,
                         const fs::path& state_dir, bool created, std::int64_t now_ms) {
  if (auto st = check_skill_content(name, content); !st) return st.error();
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) return Error{"IO_ERROR", "cannot create " + file.parent_path().string() + ": " + ec.message()};
  if (is_link_path(file.parent_path())) return Error{"SKILL_PATH_INVALID", file.parent_path().string() + " is a symbolic link"};
  if (auto st = store::write_file_atomic(file, content, 0644); !st) return st.error();
  if (!state_dir.empty()) {
    if (auto st = record_agent_write(state_dir, name, file, !created, now_ms); !st) return st.error();
  }
  return SkillWrite{file, created};
}

}  // namespace

std::string skill_name_problem(std::string_view name) {
  if (name.empty() || name.size() > 64) return "a skill name has 1 to 64 characters";
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
      return "skill name \"" + std::string(name) + "\": use lowercase letters, digits and '-'";
    }
  }
  if (name.front() == '-') return "skill name \"" + std::string(name) + "\" must start with a letter or digit";
  return {};
}

Status check_skill_content(const std::string& name, const std::string& content) {
  if (content.size() > kMaxSkillBytes) {
    return Error{"SKILL_TOO_LARGE", "SKILL.md is " + std::to_string(content.size()) + " bytes; the limit is " +
                                        std::to_string(kMaxSkillBytes)};
  }
  if (!utf8::is_valid(content)) return Error{"SKILL_INVALID", "SKILL.md must be UTF-8 text"};
  auto parsed = parse_skill_md(content);
  if (!parsed.manifest) {
    return Error{"SKILL_INVALID", "SKILL.md line " + std::to_string(parsed.problem->line) + ": " + parsed.problem->message};
  }
  if (parsed.manifest->name != name) {
    return Error{"SKILL_INVALID", "the front matter's name \"" + parsed.manifest->name + "\" must be the skill's name \"" +
                                      name + "\""};
  }
  if (auto findings = scan_text(content, "skills/" + name + "/SKILL.md"); !findings.empty()) {
    return Error{"SKILL_BLOCKED", "refused by the safety scan:" + findings_text(findings)};
  }
  return Ok{};
}

Result<SkillWrite> create_skill(const fs::path& workspace, const fs::path& state_dir, const std::string& name,
                                const std::string& content, std::int64_t now_ms) {
  auto file = skill_file(workspace, name);
  if (!file) return file.error();
  std::error_code ec;
  if (fs::exists(*file, ec)) return Error{"SKILL_EXISTS", "skill \"" + name + "\" exists already; use action \"patch\""};
  return write(*file, name, content, state_dir, true, now_ms);
}

Result<SkillWrite> patch_skill(const fs::path& workspace, const fs::path& state_dir, const std::string& name,
                               const std::string& old_text, const std::string& new_text, std::int64_t now_ms) {
  auto file = skill_file(workspace, name);
  if (!file) return file.error();
  auto current = store::read_file(*file, kMaxSkillBytes * 4);
  if (!current) {
    if (current.error().code == "NOT_FOUND") {
      return Error{"NOT_FOUND", "no workspace skill \"" + name + "\" (skills/" + name + "/SKILL.md); create it first"};
    }
    return current.error();
  }
  std::string text = *current;
  if (old_text.empty()) {
    text = new_text;
  } else {
    const auto at = text.find(old_text);
    if (at == std::string::npos) return Error{"PATCH_NO_MATCH", "old_text does not occur in skills/" + name + "/SKILL.md"};
    if (text.find(old_text, at + 1) != std::string::npos) {
      return Error{"PATCH_AMBIGUOUS", "old_text occurs more than once in skills/" + name + "/SKILL.md; give more context"};
    }
    text.replace(at, old_text.size(), new_text);
  }
  return write(*file, name, text, state_dir, false, now_ms);
}

}  // namespace pincer::skills
